// SPDX-License-Identifier: GPL-2.0
/*
 * fork() during a freeze.  copy_process() checks for a pending signal
 * once, early, before it copies anything (dup_task_struct()), and gives up
 * with -ERESTARTNOINTR: the classic freezer's fake signal, which
 * recalc_sigpending() keeps while the task is freezing, makes a fork(),
 * vfork() or clone() that reaches the check after the kick fail, the
 * parent freezes, and the call is restarted after the thaw.  Past the
 * check only a fatal signal stops it.  TIF_NOTIFY_SIGNAL alone does not
 * stop the fork: the child would be created, and run, inside the freeze,
 * up to one per forker per pass.
 *
 * A few forkers loop on one kind of call each; every child (or thread)
 * stamps the time it first runs and exits at once.  No child of a call
 * begun after the freeze's start may run before the thaw began.  A call
 * begun before it may still create its child (the kick came after
 * copy_process()'s check) and that child may first run inside the freeze,
 * on another CPU or once its parent is frozen: seen on 4 vCPUs, 2.6 ms
 * after its call began, 1.5 ms into the freeze.  Such children are
 * counted apart, and the freezer's walk freezes them like any task.  Once thawed, a forker may
 * restart its fork while other tasks are still leaving the frozen state,
 * so the end of the thaw is no bound.
 *
 * The fixture and the helpers shared with the other compat_* programs:
 * compat_fixture.h.
 *
 * job: test smp
 */
#define _GNU_SOURCE
#include <limits.h>
#include <pthread.h>

#include "compat_fixture.h"

#define FORKERS			4
#define FORK_STAMPS		4096
/* Children each forker must have started before the freeze, and after it. */
#define FORK_CHILDREN_MIN	3

enum fork_kind { FORK_PROCESS, FORK_VFORK, FORK_THREAD };

static const char *const fork_kind_name[] = {
	[FORK_PROCESS] = "fork()",
	[FORK_VFORK] = "vfork()",
	[FORK_THREAD] = "pthread_create()",
};

/* One forker (shared, MAP_SHARED). */
struct forker {
	enum fork_kind kind;
	/* calls begun; errno of a call that failed */
	volatile int n, err;
	/* The forker's longest pause between two calls (CLOCK_MONOTONIC). */
	volatile long long gap_from_ns, gap_to_ns;
	/* When call i began, and when its child first ran its own code (0: not yet). */
	volatile long long call_ns[FORK_STAMPS], child_ns[FORK_STAMPS];
};

struct forkers {
	volatile int stop;
	struct forker f[FORKERS];
};

static struct forkers *fk;

static void *stamp_thread(void *stamp)
{
	*(volatile long long *)stamp = now_ns();
	return NULL;
}

/* Create children of @f's kind one after the other until told to stop. */
static __attribute__((noreturn)) void forker(struct forker *f)
{
	long long last = now_ns(), t;
	pthread_attr_t attr;
	pthread_t thread;
	pid_t pid = 0;
	int i, ret;

	/* Not waited for: a parent asleep in wait4() is frozen in place, not in fork(). */
	signal(SIGCHLD, SIG_IGN);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 65536);
	for (i = 0; i < FORK_STAMPS && !fk->stop; i++) {
		t = now_ns();
		if (t - last > f->gap_to_ns - f->gap_from_ns) {
			f->gap_from_ns = last;
			f->gap_to_ns = t;
		}
		last = t;
		f->call_ns[i] = t;
		f->n = i + 1;
		switch (f->kind) {
		case FORK_PROCESS:
			pid = fork();
			if (pid == 0) {
				f->child_ns[i] = now_ns();
				_exit(0);
			}
			break;
		case FORK_VFORK:
			pid = vfork();
			if (pid == 0) {
				f->child_ns[i] = now_ns();
				_exit(0);
			}
			break;
		case FORK_THREAD:
			ret = pthread_create(&thread, &attr, stamp_thread, (void *)&f->child_ns[i]);
			if (ret == EAGAIN) {	/* too many threads still exiting */
				i--;
				continue;
			}
			pid = ret ? -1 : 1;
			errno = ret;
			break;
		}
		if (pid < 0) {
			f->err = errno;
			break;
		}
	}
	_exit(0);
}

/*
 * @f's children that first ran from @from_ns to @to_ns, of calls begun at
 * or after @call_from_ns; the first one's time.
 */
static int children_of_calls_between(const struct forker *f, long long call_from_ns,
				     long long from_ns, long long to_ns, long long *first_ns)
{
	int i, n = 0;

	*first_ns = 0;
	for (i = 0; i < FORK_STAMPS; i++) {
		long long t = f->child_ns[i];

		if (!t || t < from_ns || t > to_ns || f->call_ns[i] < call_from_ns)
			continue;
		if (!n++ || t < *first_ns)
			*first_ns = t;
	}
	return n;
}

/* @f's children that first ran from @from_ns to @to_ns; the first one's time. */
static int children_between(const struct forker *f, long long from_ns, long long to_ns,
			    long long *first_ns)
{
	return children_of_calls_between(f, 0, from_ns, to_ns, first_ns);
}

/* How many forkers have @min children that first ran after @from_ns. */
static int forkers_with_children(long long from_ns, int min)
{
	long long first;
	int i, n = 0;

	for (i = 0; i < FORKERS; i++)
		n += children_between(&fk->f[i], from_ns, LLONG_MAX, &first) >= min;
	return n;
}

TEST_F_TIMEOUT(compat, fork_during_a_freeze_creates_no_child_until_the_thaw, 60)
{
	static const enum fork_kind kinds[FORKERS] = {
		FORK_PROCESS, FORK_PROCESS, FORK_VFORK, FORK_THREAD,
	};
	long long freeze_at, first;
	struct freeze_window w, after;
	int i, tries, status;

	fk = mmap(NULL, sizeof(*fk), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, fk);
	for (i = 0; i < FORKERS; i++) {
		fk->f[i].kind = kinds[i];
		self->child[i] = fork();
		ASSERT_LE(0, self->child[i]);
		if (self->child[i] == 0)
			forker(&fk->f[i]);
	}
	for (tries = 0; tries < 1000; tries++) {
		if (forkers_with_children(0, FORK_CHILDREN_MIN) == FORKERS)
			break;
		usleep(5000);
	}
	ASSERT_EQ(FORKERS, forkers_with_children(0, FORK_CHILDREN_MIN))
		TH_LOG("not every forker started %d children within 5 s", FORK_CHILDREN_MIN);

	freeze_window(_metadata, &w);
	freeze_at = w.frozen_at_ns - w.freeze_ns;

	/*
	 * Two children after the thaw: the forker's loop ran again after the
	 * call the freeze caught, so its pause is complete.
	 */
	for (tries = 0; tries < 1000; tries++) {
		if (forkers_with_children(w.thaw_at_ns, FORK_CHILDREN_MIN) == FORKERS)
			break;
		usleep(5000);
	}
	fk->stop = 1;
	for (i = 0; i < FORKERS; i++) {
		status = reap_within(self->child[i], 5000);
		EXPECT_NE(-1, status) TH_LOG("%s forker %d did not stop", fork_kind_name[kinds[i]], i);
		if (status != -1)
			self->child[i] = 0;
	}
	/* Read again: the thaw's end is known once every frozen task has run. */
	if (!last_freeze_window(&after) && after.thaw_at_ns == w.thaw_at_ns)
		w = after;
	TH_LOG("the freeze began %.3f ms before every task was frozen; the thaw took %.3f ms",
	       w.freeze_ns / 1e6, w.thaw_ns / 1e6);

	for (i = 0; i < FORKERS; i++) {
		const struct forker *f = &fk->f[i];
		const char *kind = fork_kind_name[f->kind];
		int before, inside, late, resumed;
		long long first_inside, first_after;

		before = children_between(f, 1, freeze_at - 1, &first);
		late = children_between(f, freeze_at, w.thaw_at_ns, &first);
		inside = children_of_calls_between(f, freeze_at, freeze_at, w.thaw_at_ns, &first_inside);
		late -= inside;
		resumed = children_between(f, w.thaw_at_ns + 1, LLONG_MAX, &first_after);
		TH_LOG("%s forker %d: %d calls; children: %d before the freeze, %d in it (%d more of calls begun before it), %d after the thaw began (the first %.3f ms after); its pause: from %+.3f ms of the freeze's start to %+.3f ms of the thaw's",
		       kind, i, f->n, before, inside, late, resumed,
		       resumed ? (first_after - w.thaw_at_ns) / 1e6 : 0.0,
		       (f->gap_from_ns - freeze_at) / 1e6, (f->gap_to_ns - w.thaw_at_ns) / 1e6);
		EXPECT_EQ(0, f->err) TH_LOG("%s failed: %s", kind, strerror(f->err));
		EXPECT_EQ(0, inside)
			TH_LOG("%s forker %d: %d children of calls begun in the freeze ran in it, the first %.3f ms after it began, %.3f ms before every task was frozen",
			       kind, i, inside, (first_inside - freeze_at) / 1e6,
			       (w.frozen_at_ns - first_inside) / 1e6);
		/* The freeze stopped the forker itself. */
		EXPECT_GE(w.frozen_at_ns, f->gap_from_ns)
			TH_LOG("%s forker %d ran after every task was frozen", kind, i);
		EXPECT_LE(w.thaw_at_ns, f->gap_to_ns)
			TH_LOG("%s forker %d ran before the thaw", kind, i);
		EXPECT_LE(FORK_CHILDREN_MIN, resumed)
			TH_LOG("%s forker %d: %d children after the thaw, forking did not resume",
			       kind, i, resumed);
	}
	munmap(fk, sizeof(*fk));
}

COMPAT_MAIN
