// SPDX-License-Identifier: GPL-2.0
/*
 * One test per bug of the 2005 "task notifier" freezer (docs: history.md,
 * section 6), each proving that the todo freezer does not have it:
 *
 *   B1  every thread of a multi-threaded process freezes, not just its
 *       group leader;
 *   B2  a task never has more than one freeze item queued, and none is
 *       left after the thaw;
 *   B3  the freeze waits for every task, and fails (EBUSY) when one
 *       refuses to freeze for longer than pm_freeze_timeout;
 *   B4  no fake signal is left behind: kernel threads do not spin in
 *       their interruptible sleeps after the thaw;
 *   B8  a process forking all through a freeze: every child exits
 *       normally, and no freeze item is left on anyone after the thaw;
 *   B9  freezing allocates nothing per task;
 *   B11 a pending todo item is not a freeze request, nor being frozen.
 *
 * For B1-B4 the todo freezer can re-enact the bug on demand
 * (/sys/kernel/debug/todo_freezer/reenact, CONFIG_TODO_FREEZER_TEST): each
 * check runs first as it is (it must pass), then with only that bug
 * re-enacted (it must fail: "Bn_check_fails_with_the_bug_reenacted"),
 * which shows the check can catch the bug.  B9's check is shown to fail
 * with B2, which allocates an item per task and pass.
 *
 * The tests select the todo freezer (and skip without it) and restore the
 * freezer, the re-enacted bugs, pm_freeze_timeout and tracing at the end,
 * even after a test timed out.  Every workload sleeps, except one spinner
 * (B2) and one forking process (B8); every wait is bounded.
 *
 * job: test smp
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "harness_main.h"
#include "freeze.h"
#include "harness_freeze.h"

/*
 * pm_test_delay, nominally.  It is an mdelay(), as long as the boot's
 * BogoMIPS calibration makes it: UML calibrates on a shared, busy host
 * (3200 to 7200 BogoMIPS from boot to boot here), and a whole round trip
 * with a 1 s delay took 0.79 s on one boot.  So a task counts as frozen
 * when its largest gap covers the window in which the kernel had every
 * user task frozen (struct freeze_window), measured in the same freeze.
 */
#define DELAY_S			1
#define THREAD_PERIOD_US	20000
#define NR_B1_THREADS		8
#define NR_B9_THREADS		32
#define MAX_THREADS		NR_B9_THREADS
#define MAX_CHILDREN		8
#define MAX_FORKED		4
/*
 * pm_freeze_timeout for checks whose freeze fails with the bug re-enacted
 * (B1, B2): long enough for any freeze here, short enough to fail fast.
 */
#define FAIL_FAST_TIMEOUT_MS	3000
/*
 * Kernel threads may use this much more CPU after the thaw than before
 * (B4), in ticks per second of each measured window: a fifth of the CPU.
 * Idle, they use a tick or two; with B4 they spin and use most of it.
 */
#define B4_MARGIN_TICKS_PER_S	20

#define TRIGGER_QUEUE		"/sys/kernel/debug/task_todo/queue"
#define TRIGGER_LOG		"/sys/kernel/debug/task_todo/log"
#define TRACE_BUFFER_KB		8192

/* What a check found: the property holds, or it does not. */
enum { CHECK_PASS, CHECK_FAIL };

/* Shared with the forked workloads (MAP_SHARED, mapped before fork). */
struct shared {
	volatile long long max_gap_ns[MAX_THREADS];
	volatile unsigned long iters[MAX_THREADS];
	volatile int period_us;
	volatile unsigned long loops;
	/* B8: the forking process */
	volatile int stop;
	volatile unsigned long forks, exits_ok, exits_bad;
	volatile pid_t live[MAX_FORKED];
	volatile int last_bad_status;
};

static struct shared *sh;	/* for the threads */

/* The state this program found, restored at its end (see restore_all()). */
static char saved_freezer[16];
static long saved_freeze_timeout = -1;
static long saved_buffer_kb = -1;

/* Read a long from @path; -1 if it cannot. */
static long read_long(const char *path)
{
	char buf[64], *p;

	if (read_str(path, buf, sizeof(buf)) <= 0)
		return -1;
	/* buffer_size_kb before first use: "7 (expanded: 1408)" */
	p = strstr(buf, "expanded: ");
	return strtol(p ? p + 10 : buf, NULL, 10);
}

static void save_state(void)
{
	if (freezer_is("todo") && !access(FREEZER_SELECT, F_OK))
		strcpy(saved_freezer, "todo");
	else if (!access(FREEZER_SELECT, F_OK))
		strcpy(saved_freezer, "classic");
	saved_freeze_timeout = read_long(PM_FREEZE_TIMEOUT);
	saved_buffer_kb = read_long(TRACING "/buffer_size_kb");
}

/* Undo whatever a test changed; also run at exit, after a timeout. */
static void restore_all(void)
{
	if (!access(KNOB_REENACT, F_OK))
		write_str(KNOB_REENACT, "none");
	if (saved_freeze_timeout > 0)
		write_int(PM_FREEZE_TIMEOUT, saved_freeze_timeout);
	if (saved_freezer[0])
		select_freezer(saved_freezer);
	if (!access(TRACING "/events/enable", F_OK)) {
		write_str(TRACING "/events/enable", "0");
		if (saved_buffer_kb > 0)
			write_int(TRACING "/buffer_size_kb", saved_buffer_kb);
	}
	write_str(PM_TEST, "none");
}

/* Re-enact @bugs ("none", "B1", ...) and check it reads back; 0 or -errno. */
static int reenact(const char *bugs)
{
	char buf[64];
	int ret = write_str(KNOB_REENACT, bugs);

	if (ret)
		return ret;
	if (read_str(KNOB_REENACT, buf, sizeof(buf)) < 0)
		return -EIO;
	buf[strcspn(buf, "\n")] = 0;
	return strcmp(buf, bugs) ? -EIO : 0;
}

/* The contents of /proc/<pid>/todo into @buf; bytes or -errno. */
static int proc_todo(pid_t pid, char *buf, size_t size)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/todo", pid);
	return read_str(path, buf, size);
}

/* One sleeper thread: records its largest gap between iterations. */
static void *gap_thread(void *arg)
{
	long i = (long)arg;

	gap_loop(&sh->max_gap_ns[i], &sh->iters[i], sh->period_us);
}

/* Fork a process named @comm with @n gap_threads; its leader pause()s. */
static pid_t fork_threads(const char *comm, int n, int period_us)
{
	pid_t pid;

	sh->period_us = period_us;
	pid = fork();
	if (pid == 0) {
		pthread_attr_t attr;
		pthread_t t;
		long i;

		prctl(PR_SET_NAME, comm);
		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, 64 * 1024);
		for (i = 0; i < n; i++)
			if (pthread_create(&t, &attr, gap_thread, (void *)i))
				_exit(1);
		for (;;)
			pause();
	}
	return pid;
}

/* Wait (up to @ms) until each of the @n threads looped @min more times. */
static int threads_looped(int n, const unsigned long *since, unsigned long min, int ms)
{
	int i, all;

	for (; ms > 0; ms -= 5) {
		for (i = 0, all = 1; i < n; i++)
			if (sh->iters[i] < (since ? since[i] : 0) + min)
				all = 0;
		if (all)
			return 1;
		usleep(5000);
	}
	return 0;
}

/*
 * Fork a sleeper named @comm: poll() with a timeout in a loop, a sleep
 * that is not freezable, so the todo freezer asks it with an item (a
 * usleep() sleeper would be frozen in place, without one).
 */
static pid_t fork_sleeper(const char *comm)
{
	pid_t pid = fork();

	if (pid == 0) {
		prctl(PR_SET_NAME, comm);
		for (;;)
			poll(NULL, 0, THREAD_PERIOD_US / 1000);
	}
	return pid;
}

/* ---- tracing ---- */

/* Stop all events, empty the buffer, enable @events; 0 or -errno. */
static int trace_start(const char *const *events)
{
	char path[256];
	int fd, ret;

	ret = write_str(TRACING "/events/enable", "0");
	if (!ret)
		ret = write_int(TRACING "/buffer_size_kb", TRACE_BUFFER_KB);
	if (!ret)
		ret = write_str(TRACING "/tracing_on", "1");
	if (ret)
		return ret;
	/* Only an open with O_TRUNC empties the buffer. */
	fd = open(TRACING "/trace", O_WRONLY | O_TRUNC);
	if (fd < 0)
		return -errno;
	close(fd);
	for (; *events; events++) {
		snprintf(path, sizeof(path), TRACING "/events/%s/enable", *events);
		ret = write_str(path, "1");
		if (ret)
			return ret;
	}
	return 0;
}

static void trace_stop(void)
{
	write_str(TRACING "/events/enable", "0");
}

/*
 * Open the trace for reading; the test fails if it cannot, or if events
 * were dropped (entries-in-buffer below entries-written in the header).
 */
static FILE *trace_open(struct __test_metadata *_metadata)
{
	FILE *f = fopen(TRACING "/trace", "r");
	char line[512];
	unsigned long in, written;
	int lost = 0;

	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "entries-in-buffer/entries-written:");

		if (p && sscanf(p, "entries-in-buffer/entries-written: %lu/%lu", &in, &written) == 2) {
			lost = in != written;
			break;
		}
		if (line[0] != '#')
			break;
	}
	ASSERT_FALSE(lost) TH_LOG("the trace buffer overflowed");
	rewind(f);
	return f;
}

/* The next event line of trace @f (the '#' header skipped) in @line; 0 at the end. */
static int trace_next(FILE *f, char *line, int size)
{
	while (fgets(line, size, f))
		if (line[0] != '#')
			return 1;
	return 0;
}

/*
 * The pid of the task that logged a trace line ("   comm-pid   [000] ..."),
 * or -1; its "comm-pid" is copied to @task.
 */
static int trace_line_task(const char *line, char *task, size_t size)
{
	const char *p, *q, *start;

	for (p = line; (p = strchr(p, '[')); p++) {
		if (p[1] < '0' || p[1] > '9')
			continue;
		/* Back over the padding, then the pid. */
		for (q = p; q > line && q[-1] == ' '; q--)
			;
		p = q;
		while (q > line && q[-1] >= '0' && q[-1] <= '9')
			q--;
		if (q == p || q == line || q[-1] != '-')
			continue;
		for (start = line; *start == ' '; start++)
			;
		snprintf(task, size, "%.*s", (int)(p - start), start);
		return atoi(q);
	}
	return -1;
}

/* ---- kernel threads' CPU time ---- */

struct kthread_cpu {
	pid_t pid;
	char comm[32];
	unsigned long long ticks;	/* utime + stime */
	long long delta;
};

#define MAX_KTHREADS	512

/* Every child of kthreadd (and kthreadd); the count, or -1. */
static int kthreads_snapshot(struct kthread_cpu *kt, int max)
{
	struct dirent *de;
	DIR *d = opendir("/proc");
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)) && n < max) {
		char path[64], line[1024], *open, *close;
		unsigned long long utime, stime;
		int ppid;
		char state;
		FILE *f;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%.20s/stat", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(line, sizeof(line), f))
			line[0] = 0;
		fclose(f);
		open = strchr(line, '(');
		close = strrchr(line, ')');
		if (!open || !close || close < open)
			continue;
		if (sscanf(close + 2, "%c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
			   &state, &ppid, &utime, &stime) != 4)
			continue;
		kt[n].pid = atoi(line);
		if (ppid != 2 && kt[n].pid != 2)
			continue;
		snprintf(kt[n].comm, sizeof(kt[n].comm), "%.*s", (int)(close - open - 1), open + 1);
		kt[n].ticks = utime + stime;
		n++;
	}
	closedir(d);
	return n;
}

/*
 * The CPU ticks the kernel threads used between @a and @b (those in both);
 * each b[i].delta is set.  kmemleak's scanner is left out: it wakes on
 * its own schedule (60 s after boot, then every 10 minutes) and a scan
 * takes seconds of CPU on this kernel, freeze or not.
 */
static long long kthreads_used(const struct kthread_cpu *a, int na, struct kthread_cpu *b, int nb)
{
	long long sum = 0;
	int i, j;

	for (i = 0; i < nb; i++) {
		b[i].delta = 0;
		for (j = 0; j < na; j++)
			if (a[j].pid == b[i].pid && !strcmp(a[j].comm, b[i].comm))
				break;
		if (j == na || !strcmp(b[i].comm, "kmemleak"))
			continue;
		b[i].delta = b[i].ticks - a[j].ticks;
		sum += b[i].delta;
	}
	return sum;
}

/* The value of entry @i of a table, for top_entries(). */
typedef long long (*entry_value_fn)(const void *table, int i);

/*
 * The indexes of the (up to) @max of the @n entries of @table with the
 * largest positive values, largest first (of equal ones the first), into
 * @top; how many.
 */
static int top_entries(const void *table, int n, entry_value_fn value, int *top, int max)
{
	int i, j, k, best;

	for (k = 0; k < max; k++) {
		best = -1;
		for (i = 0; i < n; i++) {
			for (j = 0; j < k && top[j] != i; j++)
				;
			if (j == k && value(table, i) > 0 &&
			    (best < 0 || value(table, i) > value(table, best)))
				best = i;
		}
		if (best < 0)
			break;
		top[k] = best;
	}
	return k;
}

static long long kthread_delta(const void *table, int i)
{
	return ((const struct kthread_cpu *)table)[i].delta;
}

/* Log the kernel threads that used the most CPU in @kt. */
static void log_top_kthreads(struct __test_metadata *_metadata, const char *when,
			     const struct kthread_cpu *kt, int n)
{
	char text[256] = "";
	int top[4], i, k;

	k = top_entries(kt, n, kthread_delta, top, 4);
	for (i = 0; i < k; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text), " %s(%d)=%lld",
			 kt[top[i]].comm, kt[top[i]].pid, kt[top[i]].delta);
	TH_LOG("busiest kernel threads %s (ticks):%s", when, text[0] ? text : " none");
}

/* ---- the fixture ---- */

FIXTURE(bugs) {
	pid_t child[MAX_CHILDREN];
};

FIXTURE_SETUP(bugs)
{
	int i;

	for (i = 0; i < MAX_CHILDREN; i++)
		self->child[i] = 0;
	if (access(PM_TEST, W_OK))
		SKIP(return, "%s not writable: needs CONFIG_PM_DEBUG and root", PM_TEST);
	if (select_freezer("todo"))
		SKIP(return, "no todo freezer to select (%s)", FREEZER_SELECT);
	ASSERT_TRUE(freezer_is("todo"));
	if (!access(KNOB_REENACT, F_OK))
		ASSERT_EQ(0, reenact("none"));
	if (saved_freeze_timeout > 0)
		ASSERT_EQ(0, write_int(PM_FREEZE_TIMEOUT, saved_freeze_timeout));
	ASSERT_EQ(0, setup_pm_test(DELAY_S));

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, sh);
}

FIXTURE_TEARDOWN(bugs)
{
	int i;

	for (i = 0; i < MAX_CHILDREN; i++)
		kill_child(&self->child[i]);
	if (sh && sh != MAP_FAILED) {
		for (i = 0; i < MAX_FORKED; i++)
			if (sh->live[i] > 0)
				kill(sh->live[i], SIGKILL);
	}
	restore_all();
}

/* Why a check cannot run here (its test is skipped), or NULL. */
typedef const char *(*need_fn)(void);

static const char *need_reenact(void)
{
	if (access(KNOB_REENACT, W_OK))
		return "no " KNOB_REENACT ": needs CONFIG_TODO_FREEZER_TEST";
	return NULL;
}

static const char *need_todo_events(void)
{
	if (access(TRACING "/events/todo/todo_add/enable", W_OK))
		return "no todo trace events in " TRACING;
	return need_reenact();
}

static const char *need_sleep_knob(void)
{
	if (access(KNOB_SLEEP_UNINT, W_OK))
		return "no " KNOB_SLEEP_UNINT ": needs CONFIG_TODO_FREEZER_TEST";
	return NULL;
}

static const char *need_b3(void)
{
	return need_reenact() ?: need_sleep_knob();
}

static const char *need_kmem_events(void)
{
	if (access(TRACING "/events/kmem/kmalloc/enable", W_OK) ||
	    access(TRACING "/events/kmem/kmem_cache_alloc/enable", W_OK))
		return "no kmem trace events in " TRACING;
	return NULL;
}

static const char *need_trigger(void)
{
	if (access(TRIGGER_QUEUE, W_OK))
		return "no " TRIGGER_QUEUE ": needs CONFIG_TASK_TODO_TEST_TRIGGER";
	return NULL;
}

#define NEED(fn) do { \
	const char *why = fn(); \
	if (why) \
		SKIP(return, "%s", why); \
} while (0)

/*
 * Bn_<what>: the check, with no bug re-enacted, must pass.
 * Bn_check_fails_with_the_bug_reenacted: with only Bn re-enacted, the same
 * check must fail; "none" is restored before the verdict.  Both are
 * skipped when the check cannot run (need() says why).
 */
#define BUG_PAIR(bug, what, checkfn, need, timeout)				\
TEST_F_TIMEOUT(bugs, bug##_##what, timeout)					\
{										\
	NEED(need);								\
	EXPECT_EQ(CHECK_PASS, checkfn(_metadata, self));			\
}										\
TEST_F_TIMEOUT(bugs, bug##_check_fails_with_the_bug_reenacted, timeout)	\
{										\
	int result;							\
										\
	NEED(need);								\
	ASSERT_EQ(0, reenact(#bug));						\
	result = checkfn(_metadata, self);					\
	ASSERT_EQ(0, reenact("none"));						\
	EXPECT_EQ(CHECK_FAIL, result)						\
		TH_LOG("the check passed with " #bug " re-enacted");		\
}

/*
 * B1: every thread of an 8-thread process (sleepers recording their
 * largest gap between iterations) shows a gap of about pm_test_delay (at
 * least half the round trip), and the freeze succeeds.  With B1 only the leader gets a freeze item:
 * the other threads never freeze and the freeze fails after
 * pm_freeze_timeout (FAIL_FAST_TIMEOUT_MS here).
 */
static int check_b1(struct __test_metadata *_metadata, FIXTURE_DATA(bugs) *self)
{
	unsigned long after_thaw[NR_B1_THREADS];
	long long min_gap = -1, max_before = 0, elapsed, window = 0;
	struct freeze_window w;
	int i, ret, frozen = 0;

	ASSERT_EQ(0, write_int(PM_FREEZE_TIMEOUT, FAIL_FAST_TIMEOUT_MS));
	self->child[0] = fork_threads("b1-threads", NR_B1_THREADS, THREAD_PERIOD_US);
	ASSERT_GT(self->child[0], 0);
	ASSERT_TRUE(threads_looped(NR_B1_THREADS, NULL, 10, 5000))
		TH_LOG("not all %d threads started within 5 s", NR_B1_THREADS);
	/* Forget the start-up gaps; measure a quiet 300 ms. */
	for (i = 0; i < NR_B1_THREADS; i++)
		sh->max_gap_ns[i] = 0;
	usleep(300000);
	for (i = 0; i < NR_B1_THREADS; i++)
		if (sh->max_gap_ns[i] > max_before)
			max_before = sh->max_gap_ns[i];
	ret = freeze_timed(_metadata, &elapsed);
	/* A failed freeze (B1: EBUSY) may have frozen no user task at all. */
	if (!ret) {
		ASSERT_EQ(0, last_freeze_window(&w));
		window = frozen_ns(&w);
		TH_LOG("frozen window %.3f ms; largest gap before the freeze %.3f ms",
		       window / 1e6, max_before / 1e6);
		/* Otherwise a gap from before the freeze could pass for a frozen one. */
		ASSERT_LT(max_before, window);
	}
	/* After the thaw each thread must loop again to measure its gap. */
	for (i = 0; i < NR_B1_THREADS; i++)
		after_thaw[i] = sh->iters[i];
	ASSERT_TRUE(threads_looped(NR_B1_THREADS, after_thaw, 2, 3000))
		TH_LOG("not every thread ran again within 3 s of the thaw");
	for (i = 0; i < NR_B1_THREADS; i++) {
		if (!ret && sh->max_gap_ns[i] > window)
			frozen++;
		else
			TH_LOG("thread %d: largest gap only %.3f ms", i, sh->max_gap_ns[i] / 1e6);
		if (min_gap < 0 || sh->max_gap_ns[i] < min_gap)
			min_gap = sh->max_gap_ns[i];
	}
	TH_LOG("%d of %d threads frozen; smallest largest gap %.3f ms (frozen window %.3f ms, round trip %.3f ms)",
	       frozen, NR_B1_THREADS, min_gap / 1e6, window / 1e6, elapsed / 1e6);
	kill_child(&self->child[0]);
	return ret == 0 && frozen == NR_B1_THREADS ? CHECK_PASS : CHECK_FAIL;
}

BUG_PAIR(B1, all_threads_of_a_process_freeze, check_b1, need_reenact, 60)

/* Pending freeze items of one task over the trace. */
struct pending {
	int pid;
	char comm[32];
	int now, max, adds;
};

#define MAX_PENDING	1024

static struct pending *pending_of(struct pending *tab, int *n, int pid)
{
	int i;

	for (i = 0; i < *n; i++)
		if (tab[i].pid == pid)
			return &tab[i];
	if (*n == MAX_PENDING)
		return NULL;
	memset(&tab[*n], 0, sizeof(tab[*n]));
	tab[*n].pid = pid;
	return &tab[(*n)++];
}

/*
 * Count the freeze items (func todo_freeze*) of every task over the todo
 * events in the trace: +1 per todo_add, -1 per todo_run or todo_cancel.
 */
static int count_freeze_items(struct __test_metadata *_metadata, struct pending *tab)
{
	char line[512], func[128], comm[20];
	int n = 0, pid, delta;
	struct pending *p;
	FILE *f = trace_open(_metadata);

	while (trace_next(f, line, sizeof(line))) {
		char *s;

		if (strstr(line, " todo_add: "))
			delta = 1;
		else if (strstr(line, " todo_run: ") || strstr(line, " todo_cancel: "))
			delta = -1;
		else
			continue;
		s = strstr(line, ": pid=");
		if (!s || sscanf(s, ": pid=%d comm=%19s", &pid, comm) != 2)
			continue;
		s = strstr(s, " func=");
		if (!s || sscanf(s, " func=%127s", func) != 1 || !strstr(func, "todo_freeze"))
			continue;
		p = pending_of(tab, &n, pid);
		ASSERT_NE(NULL, p) TH_LOG("more than %d tasks in the trace", MAX_PENDING);
		snprintf(p->comm, sizeof(p->comm), "%s", comm);
		p->now += delta;
		if (delta > 0)
			p->adds++;
		if (p->now > p->max)
			p->max = p->now;
	}
	fclose(f);
	return n;
}

/*
 * B2: freeze once with a spinner and four sleepers (poll(), read() on a
 * pipe, pause()); over the todo events of the freeze no task ever has more
 * than one freeze item pending, and after the thaw the todo list of every
 * test task is empty.  With B2 every pass of the freeze loop queues
 * another item on every task (and the freeze may fail: each item kicks
 * kernel threads out of the freezable sleeps they would be frozen in).
 */
static const char *const todo_events[] = {
	"todo/todo_add", "todo/todo_run", "todo/todo_cancel", NULL
};

static int check_b2(struct __test_metadata *_metadata, FIXTURE_DATA(bugs) *self)
{
	static struct pending tab[MAX_PENDING];
	int result = CHECK_PASS;
	int i, n, ret, worst = -1, fds[2];
	const int nr = 5;
	char text[256];

	ASSERT_EQ(0, write_int(PM_FREEZE_TIMEOUT, FAIL_FAST_TIMEOUT_MS));
	ASSERT_EQ(0, pipe(fds));
	self->child[0] = fork();
	ASSERT_GE(self->child[0], 0);
	if (self->child[0] == 0) {
		prctl(PR_SET_NAME, "b2-spinner");
		for (;;)
			sh->loops++;
	}
	self->child[1] = fork_sleeper("b2-sleeper");
	self->child[2] = fork_sleeper("b2-sleeper");
	self->child[3] = fork();
	if (self->child[3] == 0) {
		prctl(PR_SET_NAME, "b2-reader");
		close(fds[1]);
		_exit(read(fds[0], text, 1) == 1 ? 0 : 1);
	}
	self->child[4] = fork();
	if (self->child[4] == 0) {
		prctl(PR_SET_NAME, "b2-pauser");
		for (;;)
			pause();
	}
	close(fds[0]);
	for (i = 1; i < nr; i++)
		ASSERT_TRUE(wait_state(self->child[i], 'S')) TH_LOG("child %d never slept", i);
	for (i = 0; i < 200 && !sh->loops; i++)
		usleep(5000);
	ASSERT_NE(0UL, sh->loops);

	ASSERT_EQ(0, trace_start(todo_events));
	ret = freeze(_metadata);
	usleep(100000);
	trace_stop();
	if (ret) {
		TH_LOG("the freeze failed");
		result = CHECK_FAIL;
	}

	n = count_freeze_items(_metadata, tab);
	for (i = 0; i < n; i++) {
		if (tab[i].max > 1) {
			TH_LOG("pid %d (%s): up to %d freeze items pending at once, %d queued",
			       tab[i].pid, tab[i].comm, tab[i].max, tab[i].adds);
			result = CHECK_FAIL;
		}
		if (worst < 0 || tab[i].max > tab[worst].max)
			worst = i;
	}
	TH_LOG("%d tasks got freeze items; most pending at once: %d (pid %d, %s)", n,
	       worst < 0 ? 0 : tab[worst].max, worst < 0 ? 0 : tab[worst].pid,
	       worst < 0 ? "-" : tab[worst].comm);
	/* Otherwise the check saw nothing: every test task was asked. */
	for (i = 0; i < nr; i++) {
		struct pending *p;
		int j;

		for (j = 0, p = NULL; j < n; j++)
			if (tab[j].pid == self->child[i])
				p = &tab[j];
		ASSERT_NE(NULL, p) TH_LOG("test task %d got no freeze item", self->child[i]);
	}

	for (i = 0; i < nr; i++) {
		ASSERT_LE(0, proc_todo(self->child[i], text, sizeof(text)));
		if (text[0]) {
			TH_LOG("after the thaw /proc/%d/todo still lists: %s", self->child[i], text);
			result = CHECK_FAIL;
		}
	}
	for (i = 0; i < nr; i++)
		kill_child(&self->child[i]);
	close(fds[1]);
	return result;
}

BUG_PAIR(B2, at_most_one_freeze_item_per_task, check_b2, need_todo_events, 60)

/*
 * B3: with pm_freeze_timeout 1000 ms, a task that sleeps 3 s
 * uninterruptibly (sleep_uninterruptible_ms) refuses to freeze, so the
 * freeze must wait for it, a second, and fail with EBUSY.  With B3 the
 * freeze stops after its first pass and reports success.
 */
static int check_b3(struct __test_metadata *_metadata, FIXTURE_DATA(bugs) *self)
{
	long long elapsed;
	int ret, status;

	ASSERT_EQ(0, write_int(PM_FREEZE_TIMEOUT, 1000));
	self->child[0] = fork();
	ASSERT_GE(self->child[0], 0);
	if (self->child[0] == 0) {
		prctl(PR_SET_NAME, "b3-dsleeper");
		_exit(write_str(KNOB_SLEEP_UNINT, "3000") ? 1 : 0);
	}
	ASSERT_TRUE(wait_state(self->child[0], 'D'));

	ret = freeze_timed(_metadata, &elapsed);
	TH_LOG("after the freeze the refusing task is in state '%c'", proc_state(self->child[0]));

	status = reap_within(self->child[0], 5000);
	ASSERT_NE(-1, status) TH_LOG("the sleeper did not finish within 5 s");
	self->child[0] = 0;
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("writing %s failed", KNOB_SLEEP_UNINT);
	if (ret != -EBUSY) {
		TH_LOG("the freeze returned %d, not -EBUSY, with a task refusing to freeze", ret);
		return CHECK_FAIL;
	}
	/*
	 * It waited for the task, pm_freeze_timeout long, before it gave up.
	 * Not a timing guess: the kernel's deadline is in jiffies, so it
	 * cannot give up sooner than the timeout less one jiffy (10 ms at
	 * HZ=100), however busy the host; this write() contains all of it.
	 */
	if (elapsed < 990000000LL) {
		TH_LOG("the freeze gave up after %.3f ms, before pm_freeze_timeout", elapsed / 1e6);
		return CHECK_FAIL;
	}
	return CHECK_PASS;
}

BUG_PAIR(B3, freeze_fails_on_a_task_that_refuses, check_b3, need_b3, 60)

/*
 * B4: the kernel threads (kthreadd and its children) use no more CPU per
 * second after the thaw than before the freeze, give or take
 * B4_MARGIN_TICKS_PER_S, each rate over a window of about a second measured
 * around its two snapshots.  With B4 the kick leaves TIF_SIGPENDING set, and
 * freezable kernel threads (kswapd0 ...) spin in their interruptible
 * sleeps after the thaw.
 */
static int check_b4(struct __test_metadata *_metadata, FIXTURE_DATA(bugs) *self)
{
	static struct kthread_cpu s0[MAX_KTHREADS], s1[MAX_KTHREADS];
	static struct kthread_cpu s2[MAX_KTHREADS], s3[MAX_KTHREADS];
	int n0, n1, n2, n3, ret;
	long long before, after, t0, t1, t2, t3;
	double rate_before, rate_after;

	t0 = now_ns();
	n0 = kthreads_snapshot(s0, MAX_KTHREADS);
	usleep(1000000);
	n1 = kthreads_snapshot(s1, MAX_KTHREADS);
	t1 = now_ns();
	ret = freeze(_metadata);
	t2 = now_ns();
	n2 = kthreads_snapshot(s2, MAX_KTHREADS);
	usleep(1000000);
	n3 = kthreads_snapshot(s3, MAX_KTHREADS);
	t3 = now_ns();
	ASSERT_LT(0, n0);
	ASSERT_LT(0, n1);
	ASSERT_LT(0, n2);
	ASSERT_LT(0, n3);

	before = kthreads_used(s0, n0, s1, n1);
	after = kthreads_used(s2, n2, s3, n3);
	log_top_kthreads(_metadata, "in the second before the freeze", s1, n1);
	log_top_kthreads(_metadata, "in the second after the thaw", s3, n3);
	/* The windows include the snapshots: an upper bound on each. */
	rate_before = before * 1e9 / (t1 - t0);
	rate_after = after * 1e9 / (t3 - t2);
	TH_LOG("%d kernel threads used %lld ticks in %.3f s before the freeze, %lld in %.3f s after the thaw (%ld ticks/s)",
	       n3, before, (t1 - t0) / 1e9, after, (t3 - t2) / 1e9, sysconf(_SC_CLK_TCK));
	if (ret)
		return CHECK_FAIL;
	if (rate_after > rate_before + B4_MARGIN_TICKS_PER_S) {
		TH_LOG("kernel threads used %.1f ticks/s after the thaw, %.1f before (margin %d)",
		       rate_after, rate_before, B4_MARGIN_TICKS_PER_S);
		return CHECK_FAIL;
	}
	return CHECK_PASS;
}

BUG_PAIR(B4, kernel_threads_do_not_spin_after_the_thaw, check_b4, need_reenact, 60)

/*
 * B8: a process forks continuously (children sleep 0-19 ms and exit with
 * status 7; at most MAX_FORKED alive) while the system freezes.  The
 * freeze succeeds, the forker goes on forking after the thaw, every child
 * exits normally, and the todo lists of the survivors are empty.
 */
/* Count a forked child's exit: normal with status 7, or bad. */
static void count_exit(int status)
{
	if (WIFEXITED(status) && WEXITSTATUS(status) == 7) {
		sh->exits_ok++;
	} else {
		sh->exits_bad++;
		sh->last_bad_status = status;
	}
}

static void forker(void)
{
	unsigned long n = 0;
	int i, status;

	prctl(PR_SET_NAME, "b8-forker");
	while (!sh->stop) {
		pid_t pid;

		for (i = 0; i < MAX_FORKED && sh->live[i] > 0; i++)
			;
		if (i == MAX_FORKED) {
			/* All slots busy: reap one. */
			pid = waitpid(-1, &status, 0);
			if (pid < 0)
				_exit(2);
			for (i = 0; i < MAX_FORKED; i++)
				if (sh->live[i] == pid)
					sh->live[i] = 0;
			count_exit(status);
			continue;
		}
		pid = fork();
		if (pid == 0) {
			usleep((n * 7919) % 20000);
			_exit(7);
		}
		if (pid < 0)
			_exit(3);
		sh->live[i] = pid;
		sh->forks++;
		n++;
	}
	for (i = 0; i < MAX_FORKED; i++) {
		if (sh->live[i] <= 0)
			continue;
		if (waitpid(sh->live[i], &status, 0) != sh->live[i])
			_exit(4);
		sh->live[i] = 0;
		count_exit(status);
	}
	_exit(0);
}

TEST_F_TIMEOUT(bugs, B8_forking_through_a_freeze_leaves_no_item_and_no_bad_exit, 60)
{
	unsigned long forks;
	pid_t survivors[1 + MAX_FORKED];
	char text[256];
	int i, status, ret;

	self->child[0] = fork();
	ASSERT_GE(self->child[0], 0);
	if (self->child[0] == 0)
		forker();
	for (i = 0; i < 1000 && sh->forks < 20; i++)
		usleep(5000);
	ASSERT_LE(20UL, sh->forks) TH_LOG("the forker did not get going within 5 s");

	forks = sh->forks;
	ret = freeze(_metadata);
	EXPECT_EQ(0, ret);
	TH_LOG("%lu forks before the thaw", sh->forks);

	/* Survivors: the forker and its children alive right after the thaw. */
	survivors[0] = self->child[0];
	for (i = 0; i < MAX_FORKED; i++)
		survivors[1 + i] = sh->live[i];
	for (i = 0; i < 1 + MAX_FORKED; i++) {
		if (survivors[i] <= 0)
			continue;
		ret = proc_todo(survivors[i], text, sizeof(text));
		/* Exited meanwhile: gone before the open, or before the read. */
		if (ret == -ENOENT || ret == -ESRCH)
			continue;
		EXPECT_LE(0, ret) TH_LOG("/proc/%d/todo: %s", survivors[i], strerror(-ret));
		EXPECT_STREQ("", text) TH_LOG("after the thaw /proc/%d/todo lists: %s", survivors[i], text);
	}

	for (i = 0; i < 600 && sh->forks < forks + 40; i++)
		usleep(5000);
	EXPECT_LE(forks + 40, sh->forks) TH_LOG("the forker did not go on after the thaw");
	sh->stop = 1;
	status = reap_within(self->child[0], 5000);
	ASSERT_NE(-1, status) TH_LOG("the forker did not finish within 5 s");
	self->child[0] = 0;
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("forker: wait status 0x%x", status);
	TH_LOG("%lu forks, %lu children exited normally, %lu did not", sh->forks,
	       sh->exits_ok, sh->exits_bad);
	EXPECT_EQ(0UL, sh->exits_bad)
		TH_LOG("a child ended with wait status 0x%x", sh->last_bad_status);
	EXPECT_EQ(sh->forks, sh->exits_ok + sh->exits_bad);
}

/*
 * B9: freezing a process of 32 sleeping threads allocates nothing in the
 * freezer: no kmalloc or kmem_cache_alloc event has a call_site in
 * todo_freeze*, todo_2005*, todo_refrigerator, todo_thaw*, freeze_task,
 * __freeze_task, try_to_freeze_tasks or task_todo_add.  The allocations of
 * the suspending task are counted as a diagnostic.  B2 allocates an item
 * per task and pass: the check must fail with it.
 */
static int freezer_call_site(const char *sym)
{
	static const char *const prefixes[] = {
		"todo_freeze", "todo_2005", "todo_refrigerator", "todo_thaw", NULL
	};
	static const char *const names[] = {
		"freeze_task", "__freeze_task", "try_to_freeze_tasks", "task_todo_add",
		"__refrigerator", NULL
	};
	int i;

	for (i = 0; prefixes[i]; i++)
		if (!strncmp(sym, prefixes[i], strlen(prefixes[i])))
			return 1;
	for (i = 0; names[i]; i++)
		if (!strcmp(sym, names[i]))
			return 1;
	return 0;
}

static long long pending_adds(const void *table, int i)
{
	return ((const struct pending *)table)[i].adds;
}

/* Log the tasks that allocated the most (struct pending: adds = count). */
static void log_top_allocators(struct __test_metadata *_metadata, const struct pending *t, int n)
{
	char text[256] = "";
	int top[5], i, k;

	k = top_entries(t, n, pending_adds, top, 5);
	for (i = 0; i < k; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text), " %s=%d",
			 t[top[i]].comm, t[top[i]].adds);
	TH_LOG("allocations by task:%s", text[0] ? text : " none");
}

static const char *const kmem_events[] = {
	"kmem/kmalloc", "kmem/kmem_cache_alloc", NULL
};

static int check_b9(struct __test_metadata *_metadata, FIXTURE_DATA(bugs) *self)
{
	char line[512], sym[128], task[64], sites[8][64] = { "" };
	int site_count[8] = { 0 }, nsites = 0;
	static struct pending tasks[MAX_PENDING];
	int i, ret, ntasks = 0, bad = 0, total = 0, mine = 0, asked = 0;
	struct pending *t;
	/* The todo events show that the threads were asked to freeze. */
	int todo = freezer_is("todo") &&
		   !access(TRACING "/events/todo/todo_add/enable", W_OK);
	FILE *f;

	self->child[0] = fork_threads("b9-threads", NR_B9_THREADS, 100000);
	ASSERT_GT(self->child[0], 0);
	ASSERT_TRUE(threads_looped(NR_B9_THREADS, NULL, 3, 5000))
		TH_LOG("not all %d threads started within 5 s", NR_B9_THREADS);

	ASSERT_EQ(0, write_int(PM_FREEZE_TIMEOUT, FAIL_FAST_TIMEOUT_MS));
	ASSERT_EQ(0, trace_start(kmem_events));
	if (todo)
		ASSERT_EQ(0, write_str(TRACING "/events/todo/todo_add/enable", "1"));
	ret = freeze(_metadata);
	trace_stop();

	f = trace_open(_metadata);
	while (trace_next(f, line, sizeof(line))) {
		char *s;

		if (strstr(line, " todo_add: ")) {
			if (strstr(line, "comm=b9-threads ") && strstr(line, "func=todo_freeze"))
				asked++;
			continue;
		}
		s = strstr(line, " call_site=");
		if (!s || (!strstr(line, " kmalloc: ") && !strstr(line, " kmem_cache_alloc: ")))
			continue;
		total++;
		if (sscanf(s, " call_site=%127[^+ ]", sym) != 1)
			continue;
		if (freezer_call_site(sym)) {
			if (bad++ < 5)
				TH_LOG("allocation in the freezer: %s", strstr(line, " call_site="));
		}
		i = trace_line_task(line, task, sizeof(task));
		if (i < 0) {
			TH_LOG("no task in trace line: %s", line);
			continue;
		}
		t = pending_of(tasks, &ntasks, i);
		if (t) {
			snprintf(t->comm, sizeof(t->comm), "%.31s", task);
			t->adds++;
		}
		if (i != getpid())
			continue;
		mine++;
		for (i = 0; i < nsites && strcmp(sites[i], sym); i++)
			;
		if (i == nsites && nsites < 8)
			snprintf(sites[nsites++], sizeof(sites[0]), "%.63s", sym);
		if (i < nsites)
			site_count[i]++;
	}
	fclose(f);
	TH_LOG("%d allocations during the freeze, %d by the suspending task, %d in the freezer",
	       total, mine, bad);
	for (i = 0; i < nsites; i++)
		TH_LOG("  suspending task: %d x %s", site_count[i], sites[i]);
	log_top_allocators(_metadata, tasks, ntasks);
	kill_child(&self->child[0]);
	ASSERT_LT(0, total) TH_LOG("no allocation traced at all");
	if (todo) {
		TH_LOG("%d freeze items queued on the %d threads and their leader", asked,
		       NR_B9_THREADS);
		ASSERT_LE(NR_B9_THREADS + 1, asked) TH_LOG("the threads were not asked to freeze");
	}
	return ret == 0 && bad == 0 ? CHECK_PASS : CHECK_FAIL;
}

TEST_F_TIMEOUT(bugs, B9_freezing_allocates_nothing_per_task, 60)
{
	NEED(need_kmem_events);
	EXPECT_EQ(CHECK_PASS, check_b9(_metadata, self));
}

TEST_F_TIMEOUT(bugs, B9_check_fails_with_B2_reenacted, 60)
{
	int result;

	NEED(need_kmem_events);
	NEED(need_reenact);
	ASSERT_EQ(0, reenact("B2"));
	result = check_b9(_metadata, self);
	ASSERT_EQ(0, reenact("none"));
	EXPECT_EQ(CHECK_FAIL, result) TH_LOG("the check passed with B2 re-enacted");
}

/*
 * B11: a pending todo item is neither a freeze request nor being frozen.
 * Items are queued with the task_todo test trigger, which logs each run.
 */
static int queue_on(pid_t pid)
{
	return write_int(TRIGGER_QUEUE, pid);
}

/* How often the trigger item queued on @target ran; *action of the last. */
static int trigger_runs(pid_t target, pid_t *ran_in, char *action)
{
	char line[256], act[8];
	int t, pid, n = 0;
	FILE *f = fopen(TRIGGER_LOG, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "id=%*u target=%d pid=%d tgid=%*d comm=%*s action=%7s",
			   &t, &pid, act) == 3 && t == target) {
			n++;
			*ran_in = pid;
			strcpy(action, act);
		}
	}
	fclose(f);
	return n;
}

static int wait_trigger_runs(pid_t target, pid_t *ran_in, char *action, int ms)
{
	int n;

	for (; ms > 0; ms -= 5) {
		n = trigger_runs(target, ran_in, action);
		if (n)
			return n;
		usleep(5000);
	}
	return trigger_runs(target, ran_in, action);
}

/*
 * A stopped task with an unrelated item pending does not block the freeze
 * (it succeeds); after the thaw the task is still
 * stopped with its item still pending, not run and no freeze item beside
 * it; SIGCONT runs the item, exactly once, in the task.
 */
TEST_F_TIMEOUT(bugs, B11_pending_item_does_not_block_the_freeze_and_runs_once_after, 60)
{
	char text[256], action[8] = "";
	pid_t ran_in = 0;
	pid_t c;

	NEED(need_trigger);
	ASSERT_EQ(0, write_str(TRIGGER_LOG, "clear"));
	c = self->child[0] = fork();
	ASSERT_GE(c, 0);
	if (c == 0) {
		prctl(PR_SET_NAME, "b11-stopped");
		for (;;)
			pause();
	}
	ASSERT_TRUE(wait_state(c, 'S'));
	ASSERT_EQ(0, kill(c, SIGSTOP));
	ASSERT_TRUE(wait_state(c, 'T'));
	ASSERT_EQ(0, queue_on(c));
	ASSERT_LT(0, proc_todo(c, text, sizeof(text)));
	ASSERT_NE(NULL, strstr(text, "todo_trigger_record")) TH_LOG("/proc/%d/todo: %s", c, text);

	EXPECT_EQ(0, freeze(_metadata));

	EXPECT_EQ('T', proc_state(c)) TH_LOG("the thaw woke the stopped task");
	ASSERT_LE(0, proc_todo(c, text, sizeof(text)));
	TH_LOG("after the thaw /proc/%d/todo: %s", c, text);
	EXPECT_NE(NULL, strstr(text, "todo_trigger_record")) TH_LOG("the item is gone");
	EXPECT_EQ(NULL, strstr(text, "todo_freeze")) TH_LOG("a freeze item is left");
	EXPECT_EQ(0, trigger_runs(c, &ran_in, action)) TH_LOG("the item ran while stopped");

	ASSERT_EQ(0, kill(c, SIGCONT));
	EXPECT_EQ(1, wait_trigger_runs(c, &ran_in, action, 2000));
	/* Give a second run the time to show up. */
	usleep(300000);
	EXPECT_EQ(1, trigger_runs(c, &ran_in, action));
	EXPECT_EQ(c, ran_in);
	EXPECT_STREQ("run", action);
	ASSERT_LE(0, proc_todo(c, text, sizeof(text)));
	EXPECT_STREQ("", text);
	EXPECT_TRUE(wait_state(c, 'S')) TH_LOG("after SIGCONT in state '%c'", proc_state(c));
}

/*
 * A task sleeping uninterruptibly with an unrelated item pending is not
 * frozen: with pm_freeze_timeout 1000 ms the freeze fails with EBUSY, as
 * without the item.  The item stays pending through the failed freeze
 * and runs once when the task returns to user space.
 */
TEST_F_TIMEOUT(bugs, B11_pending_item_is_not_being_frozen, 60)
{
	char text[256], action[8] = "";
	pid_t ran_in = 0, c;
	int status;

	NEED(need_trigger);
	NEED(need_sleep_knob);
	ASSERT_EQ(0, write_str(TRIGGER_LOG, "clear"));
	ASSERT_EQ(0, write_int(PM_FREEZE_TIMEOUT, 1000));
	c = self->child[0] = fork();
	ASSERT_GE(c, 0);
	if (c == 0) {
		prctl(PR_SET_NAME, "b11-dsleeper");
		_exit(write_str(KNOB_SLEEP_UNINT, "3000") ? 1 : 0);
	}
	ASSERT_TRUE(wait_state(c, 'D'));
	ASSERT_EQ(0, queue_on(c));
	ASSERT_LT(0, proc_todo(c, text, sizeof(text)));
	ASSERT_NE(NULL, strstr(text, "todo_trigger_record")) TH_LOG("/proc/%d/todo: %s", c, text);

	EXPECT_EQ(-EBUSY, freeze(_metadata))
		TH_LOG("a task with a pending item counted as frozen");
	if (proc_state(c) == 'D') {
		ASSERT_LE(0, proc_todo(c, text, sizeof(text)));
		EXPECT_NE(NULL, strstr(text, "todo_trigger_record")) TH_LOG("the item is gone: %s", text);
		EXPECT_EQ(NULL, strstr(text, "todo_freeze")) TH_LOG("a freeze item is left: %s", text);
	}

	status = reap_within(c, 5000);
	ASSERT_NE(-1, status) TH_LOG("the sleeper did not finish within 5 s");
	self->child[0] = 0;
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	EXPECT_EQ(1, trigger_runs(c, &ran_in, action));
	EXPECT_EQ(c, ran_in);
	EXPECT_STREQ("run", action);
}

int main(int argc, char **argv)
{
	save_state();
	/* The harness exit()s; a timed-out test skips its teardown. */
	atexit(restore_all);
	return harness_main(argc, argv);
}
