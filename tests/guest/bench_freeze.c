// SPDX-License-Identifier: GPL-2.0
/*
 * Freezer bench ("make bench"), driven by scripts/guest/jobs/bench-job.sh; not a
 * test, so its job line below does not name the test job.
 *
 * Freezes and thaws user space through the standard interface (pm_test =
 * freezer, pm_test_delay 0, "echo freeze > /sys/power/state") with N tasks
 * of one kind, alternating the todo and the classic freezer, and reads the
 * latencies the kernel measured (CONFIG_FREEZER_BENCH): from the start of
 * freeze_processes() until the last user task was frozen, and from the
 * start of thaw_processes() until the last one had left the frozen state;
 * and the times to return: until freeze_processes() had found user space
 * frozen (the todo freezer, woken by the last task; the classic one, at
 * its next poll) and until thaw_processes() had woken or walked them all.
 * The time the write() takes is not used: the writer competes for the CPU
 * with the tasks it freezes.
 *
 * Usage:
 *   bench_freeze point KIND N REPS   N tasks of KIND; one warm-up freeze per
 *                                    freezer, then REPS per freezer,
 *                                    alternating todo, classic, todo, ...
 *   bench_freeze base REPS           the same with no extra tasks
 *   bench_freeze floor N REPS        the in-kernel floor for N tasks
 *   bench_freeze alloc KIND N        kmalloc/kmem_cache_alloc events per
 *                                    freeze and thaw, per task, per freezer
 *   bench_freeze timeline KIND N     one warm-up freeze per freezer, then one
 *                                    traced freeze per freezer, printed as
 *                                    TIMELINE blocks (tests/guest/timeline.h)
 * KIND: spin (user-space spinners), pause (pause()), pipe (read() on an
 * empty pipe), nanosleep (a freezable sleep, which the classic freezer
 * freezes in place), threads (threads of one process, in pause()), uring
 * (io_uring SQPOLL threads of one process: tasks that never return to user
 * space), cgroup2 (pause() in a frozen cgroup v2: both freezers freeze
 * them in place).
 *
 * Output, one line each (the host parses the "BENCH " lines):
 *   BENCH kind=K n=N freezer=F rep=R freeze_ns=.. thaw_ns=.. frozen=.. left=..
 *         freeze_ret_ns=.. thaw_ret_ns=..   (one line; -1: the kernel has no such field)
 *   BENCH floor n=N rep=R ns=..
 *   BENCH alloc kind=K n=N freezer=F events=.. base=.. per_task=..
 *   BENCH error ...
 * and "bench: ..." progress lines.  Exit 0, or 1 if a measurement failed.
 *
 * job: bench
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guest.h"
#include "freeze.h"
#include "uring.h"
#include "cgroup2.h"
#include "timeline.h"

#define BENCH_LAST	"/sys/kernel/debug/freezer_bench/last"
#define BENCH_FLOOR	"/sys/kernel/debug/freezer_bench/floor"
#define MAX_N		8192	/* the kernel's floor takes up to 8192 */
/* Every task must be back in its state within this, before each freeze. */
#define SETTLE_MS	30000
/* and a thaw must let one more task go at least this often. */
#define THAW_STALL_MS	60000
/* Starting tasks fails only when none started for this long. */
#define STALL_MS	60000
#define THREAD_STACK	(64 * 1024)
#define ALLOC_RUNS	3	/* per freezer; the fewest events count */
#define TRACE_BUF_KB	"8192"

enum kind { SPIN, PAUSE, PIPE, NANOSLEEP, THREADS, URING, CGROUP2, NR_KINDS };

static const char *const kind_names[NR_KINDS] = {
	"spin", "pause", "pipe", "nanosleep", "threads", "uring", "cgroup2",
};

/* Where the cgroup2 kind mounts cgroup2 if /sys/fs/cgroup is not. */
#define CG2_MNT		"/tmp/bench_freeze.cgroup2"

static const char *const freezers[2] = { "todo", "classic" };

/* Shared with the workload (MAP_SHARED, mapped before fork). */
struct shared {
	int started;		/* tasks past their setup */
	int slots;		/* the threads kind: tid[] slots taken */
	int spinning;		/* spinners in their loop */
	int thread_err;		/* pthread_create() or io_uring_setup() failed */
	int err;		/* its errno */
	pid_t tid[MAX_N];	/* the threads kind: each thread's tid */
};

struct workload {
	enum kind kind;
	int n;
	pid_t pgid;		/* process kinds: the children's group */
	pid_t leader;		/* threads, uring: the process */
	struct cgroup2 cg;	/* cgroup2: the frozen cgroup */
	pid_t *tasks;		/* what must be asleep before a freeze */
	int nr_tasks;
	int go_w;		/* spin: closed to let the spinners go */
	int pipe_w;		/* pipe: held open, never written */
	struct shared *sh;
};

struct sample {
	long long freeze_ns, thaw_ns;
	int frozen, left;
	/* Until freeze_processes() decided, thaw_processes() had woken all; -1: not known */
	long long freeze_ret_ns, thaw_ret_ns;
};

static int parse_kind(const char *name)
{
	int k;

	for (k = 0; k < NR_KINDS; k++)
		if (!strcmp(name, kind_names[k]))
			return k;
	return -1;
}

static void die(const char *what)
{
	printf("BENCH error %s: %s\n", what, strerror(errno));
	exit(1);
}

/* pm_test freezer with no delay: the write freezes and thaws at once. */
static void setup_freezing(void)
{
	int ret;

	if (access(BENCH_LAST, R_OK)) {
		printf("BENCH error no %s: the kernel needs CONFIG_FREEZER_BENCH (make build FLAVOUR=bench)\n",
		       BENCH_LAST);
		exit(1);
	}
	ret = setup_pm_test(0);
	if (ret) {
		errno = -ret;
		die("setting pm_test=freezer, pm_test_delay=0");
	}
}

/* ---- the workload ---- */

static void *sleeping_thread(void *arg)
{
	struct shared *sh = arg;
	int i = __atomic_fetch_add(&sh->slots, 1, __ATOMIC_SEQ_CST);

	/* Counted as started only once its tid is there to be read. */
	sh->tid[i] = gettid();
	__atomic_fetch_add(&sh->started, 1, __ATOMIC_SEQ_CST);
	for (;;)
		pause();
	return NULL;
}

/* The process of the threads kind: @n threads in pause(), and itself. */
static void threads_main(struct shared *sh, int n)
{
	pthread_attr_t attr;
	pthread_t t;
	int i;

	prctl(PR_SET_NAME, "bench-threads");
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, THREAD_STACK);
	for (i = 0; i < n; i++) {
		if (pthread_create(&t, &attr, sleeping_thread, sh)) {
			sh->thread_err = 1;
			_exit(1);
		}
	}
	for (;;)
		pause();
}

/* The process of the uring kind: @n SQPOLL rings, each with its thread. */
static void uring_main(struct shared *sh, int n)
{
	struct rlimit nofile = { .rlim_cur = n + 64, .rlim_max = n + 64 };
	struct uring r;
	int i, ret;

	prctl(PR_SET_NAME, "bench-uring");
	if (setrlimit(RLIMIT_NOFILE, &nofile)) {
		sh->err = errno;
		sh->thread_err = 1;
		_exit(1);
	}
	for (i = 0; i < n; i++) {
		/* The ring stays mapped and open until this process dies. */
		/* Each thread polls 1 ms after a thaw, one after the other. */
		ret = uring_init(&r, 1, IORING_SETUP_SQPOLL, 1);
		if (ret) {
			sh->err = -ret;
			sh->thread_err = 1;
			_exit(1);
		}
		__atomic_fetch_add(&sh->started, 1, __ATOMIC_SEQ_CST);
	}
	for (;;)
		pause();
}

static void child_main(struct workload *w, int go_r, int pipe_r)
{
	struct timespec hour = { .tv_sec = 3600 };
	volatile unsigned long loops = 0;
	char c;

	prctl(PR_SET_NAME, w->kind == SPIN ? "bench-spin" : "bench-sleep");
	__atomic_fetch_add(&w->sh->started, 1, __ATOMIC_SEQ_CST);
	switch (w->kind) {
	case SPIN:
		/* Sleep until all are forked: spinners would starve the forker. */
		while (read(go_r, &c, 1) < 0 && errno == EINTR)
			;
		__atomic_fetch_add(&w->sh->spinning, 1, __ATOMIC_SEQ_CST);
		for (;;)
			loops++;
	case PAUSE:
	case CGROUP2:
		for (;;)
			pause();
	case PIPE:
		for (;;)
			if (read(pipe_r, &c, 1) == 0)
				pause();
	case NANOSLEEP:
		for (;;)
			nanosleep(&hour, NULL);
	default:
		_exit(1);
	}
}

/*
 * Sleep between two polls of something that began at @t0: briefly at
 * first, then longer, so that a long wait does not keep taking the CPU
 * from the tasks it waits for (every wake-up preempts one of them).
 */
static void poll_sleep(long long t0)
{
	long long waited = now_ns() - t0;

	usleep(waited < 20000000LL ? 1000 : waited < 1000000000LL ? 10000 : 50000);
}

/*
 * Wait until *@counter reaches @n; 0, or -1 once it has not moved for
 * @stall_ms.  Spinners start slowly in UML, each one a host process that
 * gets the CPU once per scheduler tick, so only a stall is an error; a
 * long wait says how far it got every 30 s.
 */
static int wait_count(int *counter, int n, int stall_ms, const char *what)
{
	long long t0 = now_ns(), deadline = t0 + stall_ms * 1000000LL;
	long long report = t0 + 30000000000LL;
	int last = -1, c;

	while ((c = __atomic_load_n(counter, __ATOMIC_SEQ_CST)) < n) {
		if (c != last) {
			last = c;
			deadline = now_ns() + stall_ms * 1000000LL;
		} else if (now_ns() > deadline) {
			return -1;
		}
		if (now_ns() > report) {
			printf("bench: %d of %d %s after %.0f s\n", c, n, what, (now_ns() - t0) / 1e9);
			report += 30000000000LL;
		}
		poll_sleep(t0);
	}
	return 0;
}

/*
 * Every task of @w is where a measurement needs it: sleepers in state S,
 * spinners alive.  0, or -1 with a message.
 */
static int confirm(struct workload *w)
{
	long long deadline = now_ns() + SETTLE_MS * 1000000LL;
	char state = 0;
	int i;

	if (w->kind == SPIN) {
		if (kill(-w->pgid, 0) == 0)
			return 0;
		printf("BENCH error kind=spin n=%d: the spinners are gone\n", w->n);
		return -1;
	}
	for (i = 0; i < w->nr_tasks; i++) {
		while ((state = proc_state(w->tasks[i])) != 'S') {
			if (now_ns() > deadline) {
				printf("BENCH error kind=%s n=%d: task %d in state '%c', not S, after %d ms\n",
				       kind_names[w->kind], w->n, w->tasks[i], state ? state : '?',
				       SETTLE_MS);
				return -1;
			}
			usleep(1000);
		}
	}
	return 0;
}

/* cgroup2: move every task into a new cgroup v2 and freeze it; 0 or -1. */
static int freeze_cgroup(struct workload *w)
{
	char path[256], events[256];
	long long deadline;
	int i, ret;

	ret = cg2_make(&w->cg, CG2_MNT, "bench_freeze");
	for (i = 0; !ret && i < w->nr_tasks; i++)
		ret = cg2_add(&w->cg, w->tasks[i]);
	if (!ret)
		ret = cg2_write(&w->cg, "cgroup.freeze", "1");
	if (ret) {
		printf("BENCH error kind=cgroup2 n=%d: setting up the frozen cgroup: %s\n", w->n,
		       strerror(-ret));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/cgroup.events", w->cg.dir);
	deadline = now_ns() + SETTLE_MS * 1000000LL;
	while (read_str(path, events, sizeof(events)) <= 0 || !strstr(events, "frozen 1")) {
		if (now_ns() > deadline) {
			printf("BENCH error kind=cgroup2 n=%d: the cgroup did not freeze in %d ms\n",
			       w->n, SETTLE_MS);
			return -1;
		}
		usleep(10000);
	}
	return 0;
}

static int start(struct workload *w, enum kind kind, int n)
{
	int go[2] = { -1, -1 }, data[2] = { -1, -1 };
	long long t0 = now_ns(), settle;
	int i;

	memset(w, 0, sizeof(*w));
	w->kind = kind;
	w->n = n;
	w->go_w = w->pipe_w = -1;
	w->sh = mmap(NULL, sizeof(*w->sh), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (w->sh == MAP_FAILED)
		die("mmap");
	w->tasks = calloc(n + 1, sizeof(*w->tasks));
	if (!w->tasks)
		die("calloc");

	if (kind == THREADS) {
		w->leader = fork();
		if (w->leader < 0)
			die("fork");
		if (w->leader == 0)
			threads_main(w->sh, n);
		if (wait_count(&w->sh->started, n, STALL_MS, "threads started")) {
			printf("BENCH error kind=threads n=%d: %d threads started (pthread_create %s)\n",
			       n, w->sh->started, w->sh->thread_err ? "failed" : "ok");
			return -1;
		}
		for (i = 0; i < n; i++)
			w->tasks[i] = w->sh->tid[i];
		w->tasks[n] = w->leader;
		w->nr_tasks = n + 1;
		goto confirm;
	}
	if (kind == URING) {
		w->leader = fork();
		if (w->leader < 0)
			die("fork");
		if (w->leader == 0)
			uring_main(w->sh, n);
		if (wait_count(&w->sh->started, n, STALL_MS, "SQPOLL rings set up")) {
			printf("BENCH error kind=uring n=%d: %d rings set up (%s)\n", n,
			       w->sh->started, w->sh->thread_err ? strerror(w->sh->err) : "stalled");
			return -1;
		}
		/*
		 * An SQ thread names itself "iou-sqp-PID" when it first runs,
		 * which can be after io_uring_setup() returned.
		 */
		settle = now_ns() + SETTLE_MS * 1000000LL;
		while ((w->nr_tasks = threads_named(w->leader, "iou-sqp-", w->tasks, n)) != n) {
			if (now_ns() > settle) {
				printf("BENCH error kind=uring n=%d: %d iou-sqp threads after %d ms\n",
				       n, w->nr_tasks, SETTLE_MS);
				return -1;
			}
			usleep(1000);
		}
		w->tasks[w->nr_tasks++] = w->leader;
		goto confirm;
	}

	if ((kind == SPIN && pipe(go)) || (kind == PIPE && pipe(data)))
		die("pipe");
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			printf("BENCH error kind=%s n=%d: fork %d: %s\n", kind_names[kind], n, i,
			       strerror(errno));
			return -1;
		}
		if (pid == 0) {
			setpgid(0, w->pgid);
			if (go[1] >= 0)
				close(go[1]);
			if (data[1] >= 0)
				close(data[1]);
			child_main(w, go[0], data[0]);
		}
		/* Both sides set the group, so neither races the other. */
		setpgid(pid, w->pgid ? w->pgid : pid);
		if (!w->pgid)
			w->pgid = pid;
		w->tasks[i] = pid;
		w->nr_tasks = i + 1;
	}
	if (go[0] >= 0)
		close(go[0]);
	if (data[0] >= 0)
		close(data[0]);
	w->go_w = go[1];
	w->pipe_w = data[1];
	if (wait_count(&w->sh->started, n, STALL_MS, "tasks started")) {
		printf("BENCH error kind=%s n=%d: only %d of the tasks started\n",
		       kind_names[kind], n, w->sh->started);
		return -1;
	}
	if (kind == SPIN) {
		/* Every child is in read() on the go pipe: let them spin. */
		if (confirm(&(struct workload){ .kind = PAUSE, .n = n, .tasks = w->tasks,
						.nr_tasks = n }))
			return -1;
		close(w->go_w);
		w->go_w = -1;
		if (wait_count(&w->sh->spinning, n, STALL_MS, "spinners in their loop")) {
			printf("BENCH error kind=spin n=%d: only %d spinners in their loop, none more in %d s\n",
			       n, w->sh->spinning, STALL_MS / 1000);
			return -1;
		}
	}
	if (kind == CGROUP2 && freeze_cgroup(w))
		return -1;
confirm:
	if (confirm(w))
		return -1;
	printf("bench: %s n=%d: %d tasks started and confirmed in %.1f s\n",
	       kind_names[kind], n, w->nr_tasks, (now_ns() - t0) / 1e9);
	return 0;
}

static void stop(struct workload *w)
{
	int i;

	if (w->kind == THREADS || w->kind == URING) {
		if (w->leader > 0) {
			kill(w->leader, SIGKILL);
			waitpid(w->leader, NULL, 0);
		}
	} else if (w->pgid > 0) {
		kill(-w->pgid, SIGKILL);
		for (i = 0; i < w->nr_tasks; i++)
			waitpid(w->tasks[i], NULL, 0);
	}
	/* Anything else still unreaped (a start that failed half way). */
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	cg2_remove(&w->cg);
	if (w->go_w >= 0)
		close(w->go_w);
	if (w->pipe_w >= 0)
		close(w->pipe_w);
	free(w->tasks);
	munmap(w->sh, sizeof(*w->sh));
	w->pgid = w->leader = 0;
}

/* ---- one freeze ---- */

static int read_last(struct sample *s)
{
	char buf[256];

	if (read_str(BENCH_LAST, buf, sizeof(buf)) < 0)
		return -1;
	s->freeze_ret_ns = s->thaw_ret_ns = -1;
	return sscanf(buf, "freeze_ns=%lld thaw_ns=%lld frozen=%d left=%d frozen_at_ns=%*d thaw_at_ns=%*d freeze_ret_ns=%lld thaw_ret_ns=%lld",
		      &s->freeze_ns, &s->thaw_ns, &s->frozen, &s->left, &s->freeze_ret_ns,
		      &s->thaw_ret_ns) >= 4 ? 0 : -1;
}

/*
 * How the user tasks of the freeze just measured were frozen
 * (kernel-patches/0012), as "BENCH how ..."; nothing on a kernel without it.
 */
static void print_how(const char *kind, int n, const char *freezer, int rep)
{
	struct frozen_by fb;

	if (read_frozen_by(&fb))
		return;
	printf("BENCH how kind=%s n=%d freezer=%s rep=%d item=%d in_place=%d refrigerator=%d\n",
	       kind, n, freezer, rep, fb.item, fb.in_place, fb.refrigerator);
}

/*
 * Wait until every task that froze has left the frozen state; -ETIMEDOUT
 * if none more left for THAW_STALL_MS (thawed spinners leave one per tick).
 */
static int wait_left(struct sample *s)
{
	long long t0 = now_ns(), deadline = t0 + THAW_STALL_MS * 1000000LL;
	int last = -1;

	for (;;) {
		if (read_last(s))
			return -EIO;
		if (s->left >= s->frozen && s->thaw_ns > 0)
			return 0;
		if (s->left != last) {
			last = s->left;
			deadline = now_ns() + THAW_STALL_MS * 1000000LL;
		} else if (now_ns() > deadline) {
			printf("BENCH error: %d of %d frozen tasks left the frozen state, none more in %d s\n",
			       s->left, s->frozen, THAW_STALL_MS / 1000);
			return -ETIMEDOUT;
		}
		poll_sleep(t0);
	}
}

/* Select @f, confirm the tasks of @w (NULL: none), freeze and thaw. */
static int freeze_once(struct workload *w, const char *f)
{
	int ret, tries;

	ret = select_freezer(f);
	if (ret)
		return ret;
	if (w && confirm(w))
		return -EAGAIN;
	for (tries = 0; tries < 3; tries++) {
		ret = freeze_thaw();
		if (ret != -EBUSY)
			break;
		printf("bench: the freeze failed with EBUSY (a task refused); again\n");
	}
	return ret;
}

/*
 * One measurement: freeze and thaw with freezer @f, then wait until every
 * task that froze has left the frozen state (a classic thaw only wakes
 * them) and read what the kernel measured.  0 or -errno.
 */
static int measure(struct workload *w, const char *f, struct sample *s)
{
	int ret = freeze_once(w, f);

	return ret ? ret : wait_left(s);
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

static double median_ms(long long *v, int n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_ll);
	return (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2) / 1e6;
}

/* Warm-up, then @reps freezes per freezer, alternating; BENCH lines. */
static int series(struct workload *w, const char *kind, int n, int reps)
{
	long long fr[2][reps], th[2][reps], t0 = now_ns();
	struct sample s;
	int rep, i, ret, done[2] = { 0, 0 };

	for (i = 0; i < 2; i++) {
		ret = measure(w, freezers[i], &s);
		if (ret) {
			printf("BENCH error kind=%s n=%d freezer=%s warm-up: %s\n", kind, n,
			       freezers[i], strerror(-ret));
			return -1;
		}
	}
	for (rep = 1; rep <= reps; rep++) {
		for (i = 0; i < 2; i++) {
			ret = measure(w, freezers[i], &s);
			if (ret) {
				printf("BENCH error kind=%s n=%d freezer=%s rep=%d: %s\n", kind, n,
				       freezers[i], rep, strerror(-ret));
				return -1;
			}
			printf("BENCH kind=%s n=%d freezer=%s rep=%d freeze_ns=%lld thaw_ns=%lld frozen=%d left=%d freeze_ret_ns=%lld thaw_ret_ns=%lld\n",
			       kind, n, freezers[i], rep, s.freeze_ns, s.thaw_ns, s.frozen, s.left,
			       s.freeze_ret_ns, s.thaw_ret_ns);
			print_how(kind, n, freezers[i], rep);
			fr[i][done[i]] = s.freeze_ns;
			th[i][done[i]++] = s.thaw_ns;
		}
	}
	{
		double ft = median_ms(fr[0], done[0]), fc = median_ms(fr[1], done[1]);

		printf("bench: %s n=%d: freeze median todo %.3f ms, classic %.3f ms (todo/classic %.2f); thaw todo %.3f ms, classic %.3f ms; %d freezes in %.1f s\n",
		       kind, n, ft, fc, fc > 0 ? ft / fc : 0, median_ms(th[0], done[0]),
		       median_ms(th[1], done[1]), 2 * (reps + 1), (now_ns() - t0) / 1e9);
	}
	return 0;
}

static int cmd_point(enum kind kind, int n, int reps)
{
	struct workload w;
	long long t0;
	int ret;

	if (start(&w, kind, n)) {
		stop(&w);
		return 1;
	}
	ret = series(&w, kind_names[kind], n, reps);
	t0 = now_ns();
	stop(&w);
	printf("bench: %s n=%d: killed and reaped in %.1f s\n", kind_names[kind], n,
	       (now_ns() - t0) / 1e9);
	return ret ? 1 : 0;
}

static int cmd_base(int reps)
{
	return series(NULL, "base", 0, reps) ? 1 : 0;
}

/* ---- the floor ---- */

static int cmd_floor(int n, int reps)
{
	long long t0 = now_ns(), v[reps];
	unsigned int got_n;
	unsigned long long ns;
	char buf[128];
	int rep, ret;

	/* The first run creates the kernel threads; it is not timed. */
	for (rep = 0; rep <= reps; rep++) {
		ret = write_int(BENCH_FLOOR, n);
		if (ret || read_str(BENCH_FLOOR, buf, sizeof(buf)) < 0 ||
		    sscanf(buf, "n=%u ns=%llu", &got_n, &ns) != 2 || (int)got_n != n) {
			printf("BENCH error floor n=%d rep=%d: %s (read '%s')\n", n, rep,
			       strerror(ret ? -ret : EIO), ret ? "" : buf);
			return 1;
		}
		if (!rep)
			continue;
		printf("BENCH floor n=%d rep=%d ns=%llu\n", n, rep, ns);
		v[rep - 1] = ns;
	}
	printf("bench: floor n=%d: median %.3f ms (%.2f us per task); %d runs in %.1f s\n", n,
	       median_ms(v, reps), median_ms(v, reps) * 1e3 / n, reps + 1, (now_ns() - t0) / 1e9);
	return 0;
}

/* ---- allocations ---- */

struct site {
	char name[96];
	long count;
};

#define MAX_SITES	512
#define MARKER		"bench-thaw-returned"

/* The pid of a trace line ("  comm-123  [000] ..."), or -1. */
static int line_pid(const char *line)
{
	const char *b = strchr(line, '['), *p;

	if (!b)
		return -1;
	for (p = b; p > line && p[-1] == ' '; p--)
		;
	while (p > line && p[-1] >= '0' && p[-1] <= '9')
		p--;
	return p > line && p[-1] == '-' ? atoi(p) : -1;
}

/*
 * Allocation events in the trace buffer: all of them up to the marker
 * (the freeze and thaw, in the writer and everywhere else), after it only
 * those of other tasks than @self (the frozen tasks leaving, not the
 * bench polling).  Call sites counted in @sites.  -1 if the buffer cannot
 * be read or lost events.
 */
static long count_events(pid_t self, struct site *sites, int *nr_sites)
{
	char line[1024], *p;
	int i, marked = 0;
	long events = 0;
	FILE *f;

	f = fopen(TRACING "/trace", "r");
	if (!f)
		return -1;
	*nr_sites = 0;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		if (strstr(line, "LOST") && strstr(line, "EVENTS")) {
			fclose(f);
			return -1;
		}
		if (strstr(line, MARKER)) {
			marked = 1;
			continue;
		}
		p = strstr(line, "call_site=");
		if (!p || (marked && line_pid(line) == self))
			continue;
		events++;
		p += strlen("call_site=");
		p[strcspn(p, " \n")] = 0;
		for (i = 0; i < *nr_sites && strcmp(sites[i].name, p); i++)
			;
		if (i == *nr_sites) {
			if (i == MAX_SITES)
				continue;
			snprintf(sites[i].name, sizeof(sites[i].name), "%s", p);
			sites[i].count = 0;
			(*nr_sites)++;
		}
		sites[i].count++;
	}
	fclose(f);
	return events;
}

/* Allocation events caused by one freeze and thaw with freezer @f. */
static long traced_freeze(struct workload *w, const char *f, struct site *sites, int *nr)
{
	struct sample s;
	int fd, ret;

	/* Select and confirm before tracing: neither is part of a freeze. */
	if (select_freezer(f) || (w && confirm(w)))
		return -1;
	fd = open(TRACING "/trace", O_WRONLY | O_TRUNC);	/* empty it */
	if (fd < 0)
		return -1;
	close(fd);
	if (write_str(TRACING "/tracing_on", "1"))
		return -1;
	ret = freeze_thaw();
	write_str(TRACING "/trace_marker", MARKER);
	if (!ret)
		ret = wait_left(&s);
	write_str(TRACING "/tracing_on", "0");
	if (ret)
		return -1;
	return count_events(getpid(), sites, nr);
}

static int trace_setup(int on)
{
	static const char *const events[] = { "kmem/kmalloc", "kmem/kmem_cache_alloc" };
	char path[128];
	unsigned int i;

	if (on && (write_str(TRACING "/tracing_on", "0") ||
		   write_str(TRACING "/buffer_size_kb", TRACE_BUF_KB)))
		return -1;
	for (i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		snprintf(path, sizeof(path), TRACING "/events/%s/enable", events[i]);
		if (write_str(path, on ? "1" : "0"))
			return -1;
	}
	return 0;
}

/* The sites of @b with more events than in @a, as "site+n" notes. */
static void site_diff(const char *kind, int n, const char *f, struct site *a, int na,
		      struct site *b, int nb)
{
	int i, j, shown = 0;
	long extra;

	for (i = 0; i < nb && shown < 8; i++) {
		for (j = 0; j < na && strcmp(a[j].name, b[i].name); j++)
			;
		extra = b[i].count - (j < na ? a[j].count : 0);
		if (extra * 10 >= n) {	/* 0.1 per task or more */
			printf("BENCH alloc-site kind=%s n=%d freezer=%s site=%s extra=%ld\n",
			       kind, n, f, b[i].name, extra);
			shown++;
		}
	}
}

/*
 * Allocation events per task per freeze and thaw: the fewest events of
 * ALLOC_RUNS freezes with the tasks, less the fewest of ALLOC_RUNS with no
 * extra tasks, over N; for each freezer.
 */
static int cmd_alloc(enum kind kind, int n)
{
	static struct site base_sites[2][MAX_SITES], sites[MAX_SITES], best[2][MAX_SITES];
	int nr_base[2] = { 0, 0 }, nr, nr_best[2] = { 0, 0 }, i, run, ret = 0;
	long base[2] = { -1, -1 }, ev[2] = { -1, -1 }, c;
	struct workload w;

	if (access(TRACING "/events/kmem/kmalloc/enable", W_OK)) {
		for (i = 0; i < 2; i++)
			printf("BENCH alloc kind=%s n=%d freezer=%s status=no-tracing\n",
			       kind_names[kind], n, freezers[i]);
		printf("bench: %s n=%d: allocations not counted: no %s/events/kmem (the kernel has no CONFIG_TRACING)\n",
		       kind_names[kind], n, TRACING);
		return 0;
	}
	if (trace_setup(1)) {
		printf("BENCH error alloc: cannot set up %s\n", TRACING);
		return 1;
	}
	for (run = 0; run < ALLOC_RUNS; run++) {
		for (i = 0; i < 2; i++) {
			c = traced_freeze(NULL, freezers[i], sites, &nr);
			if (c >= 0 && (base[i] < 0 || c < base[i])) {
				base[i] = c;
				memcpy(base_sites[i], sites, nr * sizeof(*sites));
				nr_base[i] = nr;
			}
		}
	}
	if (start(&w, kind, n)) {
		stop(&w);
		trace_setup(0);
		return 1;
	}
	for (run = 0; run < ALLOC_RUNS; run++) {
		for (i = 0; i < 2; i++) {
			c = traced_freeze(&w, freezers[i], sites, &nr);
			if (c >= 0 && (ev[i] < 0 || c < ev[i])) {
				ev[i] = c;
				memcpy(best[i], sites, nr * sizeof(*sites));
				nr_best[i] = nr;
			}
		}
	}
	stop(&w);
	trace_setup(0);
	for (i = 0; i < 2; i++) {
		if (base[i] < 0 || ev[i] < 0) {
			printf("BENCH error alloc kind=%s n=%d freezer=%s: no complete traced freeze\n",
			       kind_names[kind], n, freezers[i]);
			ret = 1;
			continue;
		}
		printf("BENCH alloc kind=%s n=%d freezer=%s events=%ld base=%ld per_task=%.2f\n",
		       kind_names[kind], n, freezers[i], ev[i], base[i],
		       (double)(ev[i] - base[i]) / n);
		site_diff(kind_names[kind], n, freezers[i], base_sites[i], nr_base[i], best[i],
			  nr_best[i]);
	}
	printf("bench: %s n=%d: allocations per task per freeze: todo %.2f, classic %.2f\n",
	       kind_names[kind], n, (double)(ev[0] - base[0]) / n, (double)(ev[1] - base[1]) / n);
	return ret;
}

/* ---- the timeline of one freeze ---- */

/*
 * The picture of one freeze per freezer ("make bench TIMELINE=kind,N"):
 * N tasks of KIND, a warm-up freeze per freezer, then a traced one per
 * freezer.  The tasks keep their workload (spinners make no system call),
 * so none says when it was back in user space.
 */
static int cmd_timeline(enum kind kind, int n)
{
	struct tl_task *lanes;
	struct workload w;
	struct sample s;
	char what[32];
	pid_t lo, hi;
	int i, ret = 0;

	if (start(&w, kind, n)) {
		stop(&w);
		return 1;
	}
	lanes = calloc(w.nr_tasks, sizeof(*lanes));
	if (!lanes)
		die("calloc");
	lo = hi = w.tasks[0];
	for (i = 0; i < w.nr_tasks; i++) {
		lanes[i].pid = w.tasks[i];
		if (kind == THREADS && i == n)
			snprintf(lanes[i].name, sizeof(lanes[i].name), "leader");
		else
			snprintf(lanes[i].name, sizeof(lanes[i].name), "%s-%d",
				 kind == THREADS ? "thread" : kind_names[kind], i);
		lo = w.tasks[i] < lo ? w.tasks[i] : lo;
		hi = w.tasks[i] > hi ? w.tasks[i] : hi;
	}
	snprintf(what, sizeof(what), "%s,%d", kind_names[kind], n);
	for (i = 0; i < 2 && !ret; i++)
		ret = measure(&w, freezers[i], &s);
	for (i = 0; i < 2 && !ret; i++) {
		/* We freeze: measure() writes /sys/power/state. */
		ret = timeline_start(lo, hi, getpid());
		if (!ret)
			ret = measure(&w, freezers[i], &s);
		if (!ret)
			ret = timeline_dump(freezers[i], what, lanes, w.nr_tasks);
	}
	timeline_stop();
	if (ret)
		printf("BENCH error timeline kind=%s n=%d: %s\n", kind_names[kind], n, strerror(-ret));
	else
		printf("bench: %s n=%d: one traced freeze per freezer printed\n", kind_names[kind], n);
	stop(&w);
	free(lanes);
	return ret ? 1 : 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: bench_freeze point KIND N REPS | base REPS | floor N REPS | alloc KIND N | timeline KIND N\n"
			"KIND: spin pause pipe nanosleep threads; N: 1..%d\n", MAX_N);
	return 2;
}

static int number(const char *s, int max)
{
	char *end;
	long v = strtol(s, &end, 10);

	return *s && !*end && v >= 1 && v <= max ? (int)v : -1;
}

int main(int argc, char **argv)
{
	int kind, n, reps, ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		return usage();
	setup_freezing();
	if (!strcmp(argv[1], "point") && argc == 5) {
		kind = parse_kind(argv[2]);
		n = number(argv[3], MAX_N);
		reps = number(argv[4], 1000);
		if (kind < 0 || n < 0 || reps < 0)
			return usage();
		ret = cmd_point(kind, n, reps);
	} else if (!strcmp(argv[1], "base") && argc == 3) {
		reps = number(argv[2], 1000);
		if (reps < 0)
			return usage();
		ret = cmd_base(reps);
	} else if (!strcmp(argv[1], "floor") && argc == 4) {
		n = number(argv[2], MAX_N);
		reps = number(argv[3], 1000);
		if (n < 0 || reps < 0)
			return usage();
		ret = cmd_floor(n, reps);
	} else if (!strcmp(argv[1], "alloc") && argc == 4) {
		kind = parse_kind(argv[2]);
		n = number(argv[3], MAX_N);
		if (kind < 0 || n < 0)
			return usage();
		ret = cmd_alloc(kind, n);
	} else if (!strcmp(argv[1], "timeline") && argc == 4) {
		kind = parse_kind(argv[2]);
		n = number(argv[3], MAX_N);
		if (kind < 0 || n < 0)
			return usage();
		ret = cmd_timeline(kind, n);
	} else {
		return usage();
	}
	/* The todo freezer is the default: leave it selected. */
	select_freezer("todo");
	return ret;
}
