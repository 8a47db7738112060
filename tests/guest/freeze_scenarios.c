// SPDX-License-Identifier: GPL-2.0
/*
 * System freezer scenarios for hard task kinds, as seen from user space:
 * many threads of one process, stopped and ptrace-stopped tasks, tasks
 * blocked in read(), nanosleep(), futex, poll and epoll, a timer signal due
 * while frozen, a vfork parent, a process forking in a loop, zombies and
 * processes in the middle of exit_group(), kernel threads, the hung task
 * detector, and tasks that refuse to freeze (the timeout path).  Each test
 * freezes through the standard interface (pm_test=freezer, "echo freeze >
 * /sys/power/state"; the freeze, the pm_test_delay and the thaw all happen
 * inside that write) and then checks that the freeze was transparent:
 * nothing returns early, nothing sees EINTR, no signal is lost or doubled,
 * stopped tasks stay stopped, nothing is left running or blocked.
 *
 * Every test runs once per freezer, as scen.todo.TEST and scen.classic.TEST
 * (freezer_variants.h); the same expectations hold for both.  A freezer
 * this kernel does not have makes its tests SKIP.
 * Usage: freeze_scenarios [--list] [--match GLOB] [--freezer todo|classic]
 *        [harness options]   (harness_main.h)
 *
 * Every workload sleeps, but for the forker: spinners slow freezing down a
 * lot on the test kernel (KASAN + lockdep).  Every wait is bounded so no
 * test can hang.
 *
 * job: test smp
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "guest.h"
#include "freeze.h"
#include "harness_freeze.h"
#include "freezer_variants.h"
#include "vecregs.h"

/*
 * pm_test_delay: how long the freeze holds every task frozen, nominally.
 * It is an mdelay(), counted in delay loops calibrated at boot, so a busy
 * host makes it shorter or longer (a "1 s" freeze of 350 ms was seen): the
 * checks compare with the window the kernel measured (struct freeze_window),
 * never with this.
 */
#define DELAY_S		1

#define NR_THREADS	64
/*
 * 2 ms would be 64 * 500 wakeups a second: more than the UML test kernel
 * (KASAN + lockdep, every syscall trapped) can serve, so the process turns
 * CPU-bound and threads starve for over half a second.  20 ms keeps it a
 * sleeping workload while staying far below the frozen gap.
 */
#define THREAD_PERIOD_US	20000
#define MAX_CHILDREN	4
/* Threads spinning in user space, for the freezer's wake-up: a few (KASAN) */
#define WAKE_SPINNERS	4

/* Children the forker keeps alive at once; each lives FORK_CHILD_US. */
#define FORK_MAX_LIVE	4
#define FORK_CHILD_US	10000
/* Threads of the process that calls exit_group() at the freeze. */
#define EXIT_THREADS	32
/* and the memory it touches, for exit_mmap() to tear down */
#define EXIT_MEM	(32 << 20)

#define HUNG_TIMEOUT	"/proc/sys/kernel/hung_task_timeout_secs"
#define HUNG_INTERVAL	"/proc/sys/kernel/hung_task_check_interval_secs"
#define HUNG_WARNINGS	"/proc/sys/kernel/hung_task_warnings"
/* The freeze timeout of the timeout-path tests, and how long they refuse. */
#define REFUSE_TIMEOUT_MS	1000
#define REFUSE_MS		3000
/* PF_NOFREEZE in the flags field of /proc/<pid>/stat */
#define PF_NOFREEZE_FLAG	0x00008000u

/* Shared with the forked workloads (MAP_SHARED, mapped before fork). */
struct shared {
	volatile long long max_gap_ns[NR_THREADS];
	volatile unsigned long iters[NR_THREADS];
	volatile int ready;
	volatile long ret[3];
	volatile int err[3];
	volatile int done[3];
	volatile int futex_word;
	volatile int futex_saw_word;
	volatile long long started_ns, elapsed_ns;
	volatile long long armed_ns, delivered_ns;
	volatile int alarms;
	volatile int resumed;
	volatile pid_t vfork_child;
	volatile long epoll_first_ret;
	volatile int epoll_first_err;
	volatile long long epoll_first_ns;
	char buf[16];
	/* the forker */
	volatile int stop;
	volatile unsigned long fork_iters, forks, fork_reaped;
	volatile unsigned long fork_errors, fork_bad;
	volatile long long fork_max_gap_ns;
	/* the exiting process */
	volatile int threads_ready;
	/* vector registers: bytes found changed, calls made */
	volatile int vec_read_differ, vec_yield_differ;
	volatile long vec_read_ret;
	volatile unsigned long vec_yields;
};

static struct shared *sh;	/* for the threads and the signal handler */


/*
 * Keep the calling test and all it starts on the CPU it runs on, as on
 * UML's one CPU.  For the tests that must catch tasks in passing: on more
 * than one CPU (make smp-test) those tasks run on the other CPUs and are
 * gone before the freeze that should catch them begins.  The harness runs
 * each test in its own process, so the pinning ends with the test.
 */
static int pin_to_this_cpu(void)
{
	int cpu = sched_getcpu();
	cpu_set_t one;

	if (cpu < 0)
		return -errno;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	return sched_setaffinity(0, sizeof(one), &one) ? -errno : 0;
}

/* Still running (not exited): the freeze did not end its blocking call. */
static int still_running(pid_t pid)
{
	return waitpid(pid, NULL, WNOHANG) == 0;
}

/* One kernel thread (kthreadd, pid 2, or a child of it) in a snapshot. */
struct kthread_use {
	pid_t pid;
	unsigned long ticks;
	unsigned int flags;
	char comm[32];
};

#define MAX_KTHREADS	1024

/* Every kernel thread with its CPU time so far; how many, or -1. */
static int kthread_snapshot(struct kthread_use *kt, int max)
{
	struct dirent *de;
	struct pstat ps;
	DIR *dir = opendir("/proc");
	int n = 0;

	if (!dir)
		return -1;
	while ((de = readdir(dir)) && n < max) {
		pid_t pid;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = atoi(de->d_name);
		if (read_pstat(pid, &ps) || (pid != 2 && ps.ppid != 2))
			continue;
		kt[n].pid = pid;
		kt[n].ticks = ps.ticks;
		kt[n].flags = ps.flags;
		snprintf(kt[n].comm, sizeof(kt[n].comm), "%s", ps.comm);
		n++;
	}
	closedir(dir);
	return n;
}

/*
 * CPU ticks the kernel threads of snapshot @b used since snapshot @a (a
 * thread not in @a counts whole), leaving out the threads named @skip.
 * The three biggest users go to @top (indexes into @b, -1 if none).
 */
static long kthread_ticks_between(const struct kthread_use *a, int na,
				  const struct kthread_use *b, int nb,
				  const char *skip, int top[3], long top_ticks[3])
{
	long sum = 0;
	int i, j, k;

	for (k = 0; k < 3; k++) {
		top[k] = -1;
		top_ticks[k] = 0;
	}
	for (i = 0; i < nb; i++) {
		long d = b[i].ticks;

		for (j = 0; j < na; j++) {
			if (a[j].pid == b[i].pid) {
				d -= a[j].ticks;
				break;
			}
		}
		if (skip && !strcmp(b[i].comm, skip))
			continue;
		sum += d;
		for (k = 0; k < 3; k++) {
			if (d > top_ticks[k]) {
				memmove(&top[k + 1], &top[k], (2 - k) * sizeof(top[0]));
				memmove(&top_ticks[k + 1], &top_ticks[k], (2 - k) * sizeof(top_ticks[0]));
				top[k] = i;
				top_ticks[k] = d;
				break;
			}
		}
	}
	return sum;
}

/* A number from /proc/<pid>/status ("Threads", "voluntary_ctxt_switches"). */
static long proc_status_field(pid_t pid, const char *field)
{
	char path[64], buf[4096], *p;
	size_t len = strlen(field);

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if (read_str(path, buf, sizeof(buf)) <= 0)
		return -1;
	for (p = buf; p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (!strncmp(p, field, len) && p[len] == ':')
			return strtol(p + len + 1, NULL, 10);
	}
	return -1;
}

/*
 * Does the kernel log report task @comm, pid @pid, in state @state, the way
 * sched_show_task() does: "task:COMM state:S ... pid:PID ..."?
 */
static int log_reports_task(const char *log, const char *comm, pid_t pid, char state)
{
	char tag[48], want_state[16];
	const char *p = log, *q, *limit;

	snprintf(tag, sizeof(tag), "task:%s ", comm);
	snprintf(want_state, sizeof(want_state), "state:%c", state);
	while ((p = strstr(p, tag))) {
		p += strlen(tag);
		/* This line and the next: pr_cont() may have split it. */
		limit = strchr(p, '\n');
		if (limit && strchr(limit + 1, '\n'))
			limit = strchr(limit + 1, '\n');
		if (!limit)
			limit = p + strlen(p);
		q = strstr(p, want_state);
		if (!q || q > limit)
			continue;
		q = strstr(p, " pid:");
		if (q && q < limit && strtol(q + 5, NULL, 10) == pid)
			return 1;
	}
	return 0;
}

/*
 * After a freeze that failed on the timeout: the "Freezing WHAT failed
 * after S.MMM seconds (N tasks refusing to freeze, wq_busy=W):" line, how
 * long the kernel measured it tried, in ms, N and W.
 */
static const char *parse_freeze_failure(const char *log, const char *what,
					int *tried_ms, int *tasks, int *wq_busy)
{
	char head[96];
	const char *p;
	int s, ms;

	snprintf(head, sizeof(head), "Freezing %s failed after", what);
	p = strstr(log, head);
	if (!p)
		return NULL;
	if (sscanf(p + strlen(head), " %d.%d seconds (%d tasks refusing to freeze, wq_busy=%d)",
		   &s, &ms, tasks, wq_busy) != 4)
		return NULL;
	*tried_ms = s * 1000 + ms;
	return p;
}

FIXTURE(scen) {
	pid_t child[MAX_CHILDREN];
	/* Settings a test changed, restored by the teardown ("" = none). */
	char saved_freeze_timeout[32];
	char saved_hung_timeout[32];
	char saved_hung_interval[32];
	char saved_hung_warnings[32];
};

FREEZER_VARIANTS(scen);

FIXTURE_SETUP(scen)
{
	char reenact[64];
	int i;

	for (i = 0; i < MAX_CHILDREN; i++)
		self->child[i] = 0;
	self->saved_freeze_timeout[0] = 0;
	self->saved_hung_timeout[0] = 0;
	self->saved_hung_interval[0] = 0;
	self->saved_hung_warnings[0] = 0;
	SELECT_VARIANT_FREEZER();
	if (access(PM_TEST, W_OK))
		SKIP(return, "%s not writable: needs CONFIG_PM_DEBUG and root", PM_TEST);
	ASSERT_EQ(0, setup_pm_test(DELAY_S));
	/* Re-enacted 2005 bugs make tests fail on purpose: say so. */
	if (read_str(KNOB_REENACT, reenact, sizeof(reenact)) > 0 && strncmp(reenact, "none", 4))
		TH_LOG("note: %s is '%.*s'", KNOB_REENACT, (int)strcspn(reenact, "\n"), reenact);

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, sh);
}

FIXTURE_TEARDOWN(scen)
{
	int i;

	/* The vfork child is a grandchild: kill it, its parent reaps it. */
	if (sh && sh != MAP_FAILED && sh->vfork_child > 0)
		kill(sh->vfork_child, SIGKILL);
	for (i = 0; i < MAX_CHILDREN; i++)
		kill_child(&self->child[i]);
	restore_saved(HUNG_TIMEOUT, self->saved_hung_timeout);
	restore_saved(HUNG_INTERVAL, self->saved_hung_interval);
	restore_saved(HUNG_WARNINGS, self->saved_hung_warnings);
	restore_saved(PM_FREEZE_TIMEOUT, self->saved_freeze_timeout);
	write_str(PM_TEST, "none");
}

/* One of the NR_THREADS sleepers: records its largest iteration gap. */
static void *gap_thread(void *arg)
{
	long i = (long)arg;

	gap_loop(&sh->max_gap_ns[i], &sh->iters[i], THREAD_PERIOD_US);
}

/* A thread that spins in user space, counting in sh->iters[its index]. */
static void *spin_thread(void *arg)
{
	long i = (long)arg;

	for (;;)
		sh->iters[i]++;
	return NULL;
}

/* Fork a child that read()s 5 bytes from the pipe @fds into sh->buf. */
static pid_t fork_pipe_reader(int fds[2])
{
	pid_t pid = fork();

	if (pid == 0) {
		/* Default signal dispositions: nothing may interrupt it. */
		close(fds[1]);
		sh->ret[0] = read(fds[0], sh->buf, 5);
		sh->err[0] = errno;
		_exit(0);
	}
	close(fds[0]);
	return pid;
}

/* Write 5 bytes to pipe @fd: the reader *@child must get them and exit. */
static void expect_pipe_read(struct __test_metadata *_metadata, pid_t *child, int fd)
{
	int status;

	ASSERT_EQ(5, write(fd, "hello", 5));
	status = reap_within(*child, 2000);
	ASSERT_NE(-1, status);
	*child = 0;
	EXPECT_EQ(5, sh->ret[0]) TH_LOG("read() failed: %s", strerror(sh->err[0]));
}

/* Every thread of a many-threaded process is frozen, not just the leader. */
TEST_F(scen, threads_of_a_multithreaded_process_all_freeze)
{
	unsigned long after_thaw[NR_THREADS];
	long long min_gap, max_before = 0, frozen_gap;
	struct frozen_by fb;
	int i, all, tries;

	self->child[0] = fork();
	ASSERT_GE(self->child[0], 0);
	if (self->child[0] == 0) {
		pthread_attr_t attr;
		pthread_t t;
		long n;

		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, 64 * 1024);
		for (n = 0; n < NR_THREADS; n++)
			if (pthread_create(&t, &attr, gap_thread, (void *)n))
				_exit(1);
		for (;;)
			pause();
	}
	/* Wait until every thread has looped a few times. */
	for (tries = 0; tries < 1000; tries++) {
		for (i = 0, all = 1; i < NR_THREADS; i++)
			if (sh->iters[i] < 10)
				all = 0;
		if (all)
			break;
		usleep(5000);
	}
	ASSERT_TRUE(all) TH_LOG("not all %d threads started within 5 s", NR_THREADS);
	/*
	 * Starting 64 threads under KASAN can stall some of them for most of
	 * a second: forget those start-up gaps and measure a quiet 300 ms.
	 * A racing thread can only store its current gap.
	 */
	for (i = 0; i < NR_THREADS; i++)
		sh->max_gap_ns[i] = 0;
	usleep(300000);
	for (i = 0; i < NR_THREADS; i++)
		if (sh->max_gap_ns[i] > max_before)
			max_before = sh->max_gap_ns[i];
	TH_LOG("largest gap of any thread before the freeze: %.3f ms", max_before / 1e6);

	frozen_gap = freeze_window(_metadata, NULL);
	/* Otherwise a gap from before the freeze could pass for a frozen one. */
	ASSERT_LT(max_before, frozen_gap);

	/*
	 * After the thaw each thread must loop again to measure its gap: two
	 * iterations counted after the thaw (see gap_loop()).
	 */
	for (i = 0; i < NR_THREADS; i++)
		after_thaw[i] = sh->iters[i];
	for (tries = 0; tries < 600; tries++) {
		for (i = 0, all = 1; i < NR_THREADS; i++)
			if (sh->iters[i] < after_thaw[i] + 2)
				all = 0;
		if (all)
			break;
		usleep(5000);
	}
	ASSERT_TRUE(all) TH_LOG("not every thread ran again within 3 s of the thaw");

	min_gap = sh->max_gap_ns[0];
	for (i = 0; i < NR_THREADS; i++) {
		if (sh->max_gap_ns[i] < min_gap)
			min_gap = sh->max_gap_ns[i];
		EXPECT_GT(sh->max_gap_ns[i], frozen_gap)
			TH_LOG("thread %d: largest gap only %lld ns", i, sh->max_gap_ns[i]);
	}
	TH_LOG("smallest per-thread max gap: %.3f ms over %d threads (frozen window %.3f ms)",
	       min_gap / 1e6, NR_THREADS, frozen_gap / 1e6);

	/*
	 * The threads sleep in poll(), which is not freezable: the todo
	 * freezer wakes them and each runs its item; the classic one sends
	 * them to the refrigerator.
	 */
	ASSERT_EQ(0, read_frozen_by(&fb)) TH_LOG("no %s", FROZEN_BY);
	TH_LOG("user tasks frozen: %d by their item, %d in place, %d in the refrigerator",
	       fb.item, fb.in_place, fb.refrigerator);
	if (freezer_is("todo")) {
		EXPECT_GE(fb.item, NR_THREADS);
		EXPECT_EQ(0, fb.refrigerator);
	} else {
		EXPECT_GE(fb.refrigerator, NR_THREADS);
	}
}


/*
 * The thaw does not wait for the tasks it woke to run: the todo freezer
 * ends the generation they wait for and returns.  As a SCHED_FIFO task,
 * this one starts the next freeze as soon as the thaw returns, before the
 * woken threads can run: the todo freezer's second freeze must find some
 * of them still leaving their wait, freeze them all again, and after its
 * thaw every thread runs.  A task in the classic refrigerator does not
 * leave it when the next freeze has begun: nothing is still leaving, and
 * nothing is counted again.
 *
 * No pm_test_delay here: its busy wait would keep this task running for
 * about a second, and 6.12's fair server then lets the fair tasks run for
 * 50 ms despite SCHED_FIFO, right at the thaw (sched_switch from this
 * task, still runnable, to the threads: 18 of 25 runs on a loaded host).
 *
 * On more than one CPU the threads, though pinned to this task's CPU, had
 * all left before the next freeze began in make smp-test and make test's
 * smp smoke (still_leaving=0; 0 and 1 with a lower-priority SCHED_FIFO
 * spinner on that CPU, which should have kept them off it), against 65 in
 * every run on UML; why is not known.  There the count is only logged.
 */
TEST_F(scen, freeze_right_after_a_thaw_freezes_the_tasks_still_leaving)
{
	struct sched_param fifo = { .sched_priority = 10 }, other = { .sched_priority = 0 };
	unsigned long before[NR_THREADS];
	int i, all, tries, ret[2] = { 0, 0 };
	struct frozen_by fb;

	/* The thaw-er must run before the threads it woke: one CPU. */
	ASSERT_EQ(0, pin_to_this_cpu());
	self->child[0] = fork();
	ASSERT_GE(self->child[0], 0);
	if (self->child[0] == 0) {
		pthread_t t;

		for (i = 0; i < NR_THREADS; i++)
			if (pthread_create(&t, NULL, gap_thread, (void *)(long)i))
				_exit(1);
		for (;;)
			pause();
	}
	for (tries = 0, all = 0; tries < 1000 && !all; tries++) {
		for (i = 0, all = 1; i < NR_THREADS && all; i++)
			all = sh->iters[i] > 0;
		if (!all)
			usleep(10000);
	}
	ASSERT_TRUE(all) TH_LOG("not all %d threads started", NR_THREADS);

	ASSERT_EQ(0, setup_pm_test(0));
	ASSERT_EQ(0, sched_setscheduler(0, SCHED_FIFO, &fifo));
	ret[0] = freeze_thaw();
	if (!ret[0])
		ret[1] = freeze_thaw();
	sched_setscheduler(0, SCHED_OTHER, &other);
	ASSERT_EQ(0, ret[0]) TH_LOG("the first freeze failed");
	ASSERT_EQ(0, ret[1]) TH_LOG("the freeze right after the thaw failed");
	ASSERT_EQ(0, read_frozen_by(&fb)) TH_LOG("no %s", FROZEN_BY);
	TH_LOG("second freeze: item=%d in_place=%d refrigerator=%d still_leaving=%d",
	       fb.item, fb.in_place, fb.refrigerator, fb.still_leaving);
	if (freezer_is("todo")) {
		if (sysconf(_SC_NPROCESSORS_ONLN) == 1)
			EXPECT_GT(fb.still_leaving, 0)
				TH_LOG("no task of the first freeze was still leaving when the second began: the thaw waited for them");
		/* Each left its wait, so the second freeze counted it again. */
		EXPECT_GE(fb.item + fb.in_place, NR_THREADS)
			TH_LOG("the second freeze froze fewer user tasks than the %d threads",
			       NR_THREADS);
	} else {
		EXPECT_EQ(0, fb.still_leaving);
	}

	for (i = 0; i < NR_THREADS; i++)
		before[i] = sh->iters[i];
	for (tries = 0, all = 0; tries < 500 && !all; tries++) {
		usleep(10000);
		for (i = 0, all = 1; i < NR_THREADS && all; i++)
			all = sh->iters[i] != before[i];
	}
	EXPECT_TRUE(all) TH_LOG("thread %d did not run after the thaw", i - 1);
}

/* A SIGSTOPped task does not block the freeze and is still stopped after. */
TEST_F(scen, stopped_process_stays_stopped_and_resumes_on_sigcont)
{
	self->child[0] = fork();
	ASSERT_GE(self->child[0], 0);
	if (self->child[0] == 0) {
		for (;;)
			pause();
	}
	ASSERT_TRUE(wait_state(self->child[0], 'S'));
	ASSERT_EQ(0, kill(self->child[0], SIGSTOP));
	ASSERT_TRUE(wait_state(self->child[0], 'T'));

	ASSERT_EQ(0, freeze(_metadata));
	/* The thaw must restore the stopped state, not wake the task. */
	EXPECT_EQ('T', proc_state(self->child[0]));
	usleep(100000);
	EXPECT_EQ('T', proc_state(self->child[0]));

	ASSERT_EQ(0, kill(self->child[0], SIGCONT));
	EXPECT_TRUE(wait_state(self->child[0], 'S'))
		TH_LOG("after SIGCONT the child is in state '%c'", proc_state(self->child[0]));
	EXPECT_TRUE(still_running(self->child[0]));
}

/* A tracee in a ptrace stop does not block the freeze and stays stopped. */
TEST_F(scen, ptraced_tracee_does_not_block_freeze)
{
	int status;

	self->child[0] = fork();
	ASSERT_GE(self->child[0], 0);
	if (self->child[0] == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(2);
		raise(SIGSTOP);
		sh->resumed = 1;
		_exit(0);
	}
	ASSERT_EQ(self->child[0], waitpid(self->child[0], &status, 0));
	ASSERT_TRUE(WIFSTOPPED(status));
	ASSERT_EQ(SIGSTOP, WSTOPSIG(status));
	ASSERT_TRUE(wait_state(self->child[0], 't'));

	ASSERT_EQ(0, freeze(_metadata));
	EXPECT_EQ('t', proc_state(self->child[0]));
	usleep(100000);
	EXPECT_EQ('t', proc_state(self->child[0]));
	EXPECT_EQ(0, sh->resumed) TH_LOG("the tracee ran on without PTRACE_CONT");

	/* Continued without a signal, it runs to its exit. */
	ASSERT_EQ(0, ptrace(PTRACE_CONT, self->child[0], NULL, NULL));
	status = reap_within(self->child[0], 2000);
	ASSERT_NE(-1, status) TH_LOG("the tracee did not finish within 2 s of PTRACE_CONT");
	self->child[0] = 0;
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(1, sh->resumed);
}

/* read() on a pipe sleeps through the freeze and returns the data. */
TEST_F(scen, pipe_reader_sees_no_eintr)
{
	int fds[2];

	ASSERT_EQ(0, pipe(fds));
	self->child[0] = fork_pipe_reader(fds);
	ASSERT_GE(self->child[0], 0);
	ASSERT_TRUE(wait_state(self->child[0], 'S'));

	ASSERT_EQ(0, freeze(_metadata));
	usleep(100000);
	EXPECT_TRUE(still_running(self->child[0])) TH_LOG("read() returned without data");

	expect_pipe_read(_metadata, &self->child[0], fds[1]);
	EXPECT_EQ(0, memcmp(sh->buf, "hello", 5));
	close(fds[1]);
}

/* The second thread of the vector-register test: yields, other values. */
static void *vec_yielder(void *arg)
{
	enum vec_width w = vec_width();
	struct vec_regs in, out;
	unsigned int seed = 1000;

	(void)arg;
	while (!sh->stop) {
		vec_fill(&in, seed++);
		vec_syscall(w, &in, &out, SYS_sched_yield, 0, 0, 0);
		sh->vec_yield_differ += vec_differ(w, &in, &out);
		sh->vec_yields++;
	}
	return NULL;
}

/*
 * A task's vector registers survive a freeze: a thread blocked in read()
 * with every vector register loaded finds them as it left them when read()
 * returns after the freeze, and so does a second thread of the same
 * process that yields the CPU through the freeze with other values.  UML
 * keeps them in the kernel and puts them back into the host process on
 * every return to user space (arch-um-patches/0012: hosts whose XSAVE
 * area is larger than UML's).
 */
TEST_F(scen, vector_registers_survive_a_freeze)
{
	enum vec_width w = vec_width();
	unsigned long yields;
	int fds[2], i;

	ASSERT_EQ(0, pipe(fds));
	sh->stop = 0;
	self->child[0] = fork();
	ASSERT_GE(self->child[0], 0);
	if (self->child[0] == 0) {
		struct vec_regs in, out;
		pthread_t t;
		char c;

		close(fds[1]);
		if (pthread_create(&t, NULL, vec_yielder, NULL))
			_exit(1);
		vec_fill(&in, 7);
		sh->vec_read_ret = vec_syscall(w, &in, &out, SYS_read, fds[0], (long)&c, 1);
		sh->vec_read_differ = vec_differ(w, &in, &out);
		sh->stop = 1;
		pthread_join(t, NULL);
		_exit(0);
	}
	close(fds[0]);
	ASSERT_TRUE(wait_state(self->child[0], 'S'));
	for (i = 0; i < 200 && sh->vec_yields < 100; i++)
		usleep(10000);
	ASSERT_GE(sh->vec_yields, 100UL) TH_LOG("the yielding thread did not run");
	yields = sh->vec_yields;

	ASSERT_EQ(0, freeze(_metadata));
	ASSERT_EQ(1, write(fds[1], "x", 1));
	ASSERT_NE(-1, reap_within(self->child[0], 5000));
	self->child[0] = 0;
	close(fds[1]);
	TH_LOG("%s (%zu bytes); the yielding thread made %lu calls, %lu from the freeze on",
	       vec_name(w), vec_bytes(w), sh->vec_yields, sh->vec_yields - yields);
	EXPECT_EQ(1, sh->vec_read_ret) TH_LOG("read(): %ld", sh->vec_read_ret);
	EXPECT_EQ(0, sh->vec_read_differ) TH_LOG("bytes of the reader's registers changed");
	EXPECT_EQ(0, sh->vec_yield_differ) TH_LOG("bytes of the yielder's registers changed");
	EXPECT_GT(sh->vec_yields, yields) TH_LOG("the yielding thread did not run after the thaw");
}

/* A nanosleep() cut by a freeze still sleeps its full time, returning 0. */
TEST_F(scen, nanosleep_keeps_its_full_time_across_a_freeze)
{
	struct freeze_window w;
	struct frozen_by fb;
	int status;

	self->child[0] = fork();
	ASSERT_GE(self->child[0], 0);
	if (self->child[0] == 0) {
		struct timespec ts = { .tv_sec = 3 };

		sh->started_ns = now_ns();
		sh->ret[0] = nanosleep(&ts, NULL);
		sh->err[0] = errno;
		sh->elapsed_ns = now_ns() - sh->started_ns;
		_exit(0);
	}
	ASSERT_TRUE(wait_state(self->child[0], 'S'));
	usleep(100000);

	freeze_window(_metadata, &w);
	/* Otherwise the freeze did not fall into the sleep. */
	ASSERT_LT(w.frozen_at_ns, sh->started_ns + 3000000000LL)
		TH_LOG("every task froze only %.3f ms after the sleep began",
		       (w.frozen_at_ns - sh->started_ns) / 1e6);
	/* Both freezers freeze a freezable sleeper where it sleeps. */
	ASSERT_EQ(0, read_frozen_by(&fb)) TH_LOG("no %s", FROZEN_BY);
	TH_LOG("user tasks frozen: %d by their item, %d in place, %d in the refrigerator",
	       fb.item, fb.in_place, fb.refrigerator);
	EXPECT_GE(fb.in_place, 1);

	status = reap_within(self->child[0], 5000);
	ASSERT_NE(-1, status);
	self->child[0] = 0;
	EXPECT_EQ(0, sh->ret[0]) TH_LOG("nanosleep failed: %s", strerror(sh->err[0]));
	TH_LOG("nanosleep(3 s) took %.3f ms", sh->elapsed_ns / 1e6);
	/*
	 * Not a timing guess: nanosleep() never returns 0 before its time on
	 * CLOCK_MONOTONIC, however busy the host; a freeze that ended the
	 * sleep, or restarted it with the time left counted wrong, shows here.
	 */
	EXPECT_GE(sh->elapsed_ns, 3000000000LL);
}

/* The context switches of @pid so far, voluntary and not; -1 if gone. */
static long context_switches(pid_t pid)
{
	long v = proc_status_field(pid, "voluntary_ctxt_switches");
	long nv = proc_status_field(pid, "nonvoluntary_ctxt_switches");

	return v < 0 || nv < 0 ? -1 : v + nv;
}

/*
 * Both freezers freeze a task in a freezable sleep where it sleeps, and the
 * thaw restores its sleep without waking it: a nanosleep() and a wait4()
 * sleeper make no context switch across a freeze.  A freeze item would
 * have to wake each one to run, which /proc/<pid>/status and getrusage()
 * count and a tracer sees as a restarted call: this is why the todo
 * freezer leaves them in place (the table in freezing-of-tasks.rst).
 */
TEST_F(scen, freezable_sleepers_are_frozen_without_a_wakeup)
{
	static const char *const what[] = { "nanosleep()", "wait4()" };
	long before[2], after[2];
	struct frozen_by fb;
	int i;

	self->child[0] = fork();
	ASSERT_GE(self->child[0], 0);
	if (self->child[0] == 0) {
		struct timespec ts = { .tv_sec = 600 };

		nanosleep(&ts, NULL);
		_exit(0);
	}
	self->child[1] = fork();
	ASSERT_GE(self->child[1], 0);
	if (self->child[1] == 0) {
		pid_t pid = fork();

		if (pid == 0) {
			pause();
			_exit(0);
		}
		/* Killed by the teardown, as the vfork test's grandchild is. */
		sh->vfork_child = pid;
		waitpid(pid, NULL, 0);
		_exit(0);
	}
	for (i = 0; i < 2; i++)
		ASSERT_TRUE(wait_state(self->child[i], 'S'));
	/* Settled in their sleep: no wake-up left from the fork. */
	usleep(200000);
	for (i = 0; i < 2; i++)
		before[i] = context_switches(self->child[i]);

	ASSERT_EQ(0, freeze(_metadata));
	ASSERT_EQ(0, read_frozen_by(&fb)) TH_LOG("no %s", FROZEN_BY);
	TH_LOG("user tasks frozen: %d by their item, %d in place, %d in the refrigerator",
	       fb.item, fb.in_place, fb.refrigerator);
	EXPECT_GE(fb.in_place, 2);
	for (i = 0; i < 2; i++) {
		after[i] = context_switches(self->child[i]);
		TH_LOG("the %s sleeper: %ld context switches before the freeze, %ld after the thaw",
		       what[i], before[i], after[i]);
		EXPECT_TRUE(before[i] >= 0 && after[i] == before[i])
			TH_LOG("the freeze or the thaw woke the %s sleeper", what[i]);
	}
}

/*
 * The counter decides when a todo freeze is complete: the last task to run
 * its freeze item wakes the freezing task, whose last wait ends "woken",
 * never at the end of its 10 ms slice (on more than one CPU the last task
 * may freeze before the freezer sleeps: "none").  The classic freezer polls
 * with its 1-8 ms back-off and never waits there: "none".
 */
TEST_F(scen, last_task_to_freeze_wakes_the_freezing_task)
{
	struct frozen_by fb;
	int i, tries, started;

	ASSERT_EQ(0, pin_to_this_cpu());
	self->child[0] = fork();
	ASSERT_GE(self->child[0], 0);
	if (self->child[0] == 0) {
		pthread_t t;

		for (i = 1; i < WAKE_SPINNERS; i++)
			if (pthread_create(&t, NULL, spin_thread, (void *)(long)i))
				_exit(1);
		spin_thread((void *)0L);
	}
	for (tries = 0; tries < 500; tries++) {
		for (i = 0, started = 0; i < WAKE_SPINNERS; i++)
			started += sh->iters[i] != 0;
		if (started == WAKE_SPINNERS)
			break;
		usleep(10000);
	}
	ASSERT_EQ(WAKE_SPINNERS, started) TH_LOG("the spinning threads did not all start in 5 s");

	ASSERT_EQ(0, freeze(_metadata));
	ASSERT_EQ(0, read_frozen_by(&fb)) TH_LOG("no %s", FROZEN_BY);
	TH_LOG("user tasks frozen: %d by their item, %d in place, %d in the refrigerator; "
	       "the freezing task's last wait: %s", fb.item, fb.in_place, fb.refrigerator,
	       fb.last_wait[0] ? fb.last_wait : "(not shown)");
	ASSERT_NE(0, fb.last_wait[0]) TH_LOG("%s has no last_wait=", FROZEN_BY);
	if (freezer_is("todo")) {
		EXPECT_GE(fb.item, WAKE_SPINNERS);
		EXPECT_STRNE("slice", fb.last_wait)
			TH_LOG("the last task to freeze did not wake the freezing task");
	} else {
		EXPECT_STREQ("none", fb.last_wait);
	}
}

/* futex, poll and epoll waiters sleep through the freeze; woken, they succeed. */
TEST_F(scen, futex_and_poll_waiters_resume_correctly)
{
	int pfd[2], efd[2], i, status;
	long long woken;

	ASSERT_EQ(0, pipe(pfd));
	ASSERT_EQ(0, pipe(efd));

	self->child[0] = fork();
	ASSERT_GE(self->child[0], 0);
	if (self->child[0] == 0) {
		sh->ret[0] = syscall(SYS_futex, &sh->futex_word, FUTEX_WAIT, 0,
				     NULL, NULL, 0);
		sh->err[0] = errno;
		/* A spurious wakeup would return 0 with the word unchanged. */
		sh->futex_saw_word = sh->futex_word;
		sh->done[0] = 1;
		_exit(0);
	}
	self->child[1] = fork();
	ASSERT_GE(self->child[1], 0);
	if (self->child[1] == 0) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };

		sh->ret[1] = poll(&p, 1, 10000);
		sh->err[1] = errno;
		sh->done[1] = 1;
		_exit(0);
	}
	self->child[2] = fork();
	ASSERT_GE(self->child[2], 0);
	if (self->child[2] == 0) {
		struct epoll_event ev = { .events = EPOLLIN }, out;
		int ep = epoll_create1(0);

		if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, efd[0], &ev))
			_exit(2);
		/*
		 * ep_poll() sleeps plainly TASK_INTERRUPTIBLE and returns
		 * -EINTR on any pending signal, the freezer's fake one
		 * included, and epoll_wait() is never restarted (signal(7)
		 * lists it among the calls a stop signal interrupts even
		 * without a handler).  So the freeze may end the first call
		 * with EINTR; the event must then still be there on retry.
		 */
		sh->epoll_first_ret = epoll_wait(ep, &out, 1, 10000);
		sh->epoll_first_err = errno;
		sh->epoll_first_ns = now_ns();
		sh->ret[2] = sh->epoll_first_ret;
		sh->err[2] = sh->epoll_first_err;
		if (sh->ret[2] < 0 && sh->err[2] == EINTR) {
			sh->ret[2] = epoll_wait(ep, &out, 1, 10000);
			sh->err[2] = errno;
		}
		sh->done[2] = 1;
		_exit(0);
	}
	for (i = 0; i < 3; i++) {
		ASSERT_TRUE(wait_state(self->child[i], 'S')) TH_LOG("waiter %d never slept", i);
	}
	usleep(50000);

	ASSERT_EQ(0, freeze(_metadata));
	usleep(100000);
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(0, sh->done[i]) TH_LOG("waiter %d returned before it was woken", i);
	}

	woken = now_ns();
	sh->futex_word = 1;
	ASSERT_LE(0, syscall(SYS_futex, &sh->futex_word, FUTEX_WAKE, 1, NULL, NULL, 0));
	ASSERT_EQ(1, write(pfd[1], "x", 1));
	ASSERT_EQ(1, write(efd[1], "x", 1));
	for (i = 0; i < 3; i++) {
		status = reap_within(self->child[i], 2000);
		ASSERT_NE(-1, status) TH_LOG("waiter %d not done within 2 s of its wakeup", i);
		self->child[i] = 0;
		ASSERT_TRUE(WIFEXITED(status));
		ASSERT_EQ(0, WEXITSTATUS(status));
	}
	EXPECT_EQ(0, sh->ret[0]) TH_LOG("futex: %s", strerror(sh->err[0]));
	EXPECT_EQ(1, sh->futex_saw_word);
	EXPECT_EQ(1, sh->ret[1]) TH_LOG("poll: %s", strerror(sh->err[1]));
	/* The first epoll_wait() returns the event, or EINTR at the freeze only. */
	if (sh->epoll_first_ret < 0) {
		TH_LOG("first epoll_wait() ended at the freeze: %s", strerror(sh->epoll_first_err));
		EXPECT_EQ(EINTR, sh->epoll_first_err);
		EXPECT_LT(sh->epoll_first_ns, woken)
			TH_LOG("EINTR came after the wakeup, not from the freeze");
	} else {
		EXPECT_EQ(1, sh->epoll_first_ret);
	}
	EXPECT_EQ(1, sh->ret[2]) TH_LOG("epoll_wait: %s", strerror(sh->err[2]));
	close(pfd[0]);
	close(pfd[1]);
	close(efd[0]);
	close(efd[1]);
}

static void count_alarm(int sig)
{
	sh->delivered_ns = now_ns();
	sh->alarms++;
}

/* A timer signal that comes due while frozen is delivered after, exactly once. */
TEST_F(scen, timer_signal_due_while_frozen_is_delivered_once)
{
	struct freeze_window w;
	long long delay, due;

	self->child[0] = fork();
	ASSERT_GE(self->child[0], 0);
	if (self->child[0] == 0) {
		struct sigaction sa = { .sa_handler = count_alarm, .sa_flags = SA_RESTART };
		struct itimerval it = { .it_value = { .tv_usec = 300000 } };

		sigemptyset(&sa.sa_mask);
		if (sigaction(SIGALRM, &sa, NULL))
			_exit(2);
		sh->armed_ns = now_ns();
		if (setitimer(ITIMER_REAL, &it, NULL))
			_exit(2);
		sh->ready = 1;
		for (;;)
			pause();
	}
	for (delay = 0; delay < 2000 && !sh->ready; delay++)
		usleep(1000);
	ASSERT_TRUE(sh->ready);

	/* Long enough for the timer to expire inside even a short freeze. */
	ASSERT_EQ(0, setup_pm_test(2));
	freeze_window(_metadata, &w);
	due = sh->armed_ns + 300000000LL;
	TH_LOG("SIGALRM due %.3f ms after every task froze, %.3f ms before the thaw",
	       (due - w.frozen_at_ns) / 1e6, (w.thaw_at_ns - due) / 1e6);
	/* Else a signal handled in time could pass for a delayed one. */
	ASSERT_TRUE(due > w.frozen_at_ns && due < w.thaw_at_ns)
		TH_LOG("the timer did not come due inside the frozen window");
	usleep(500000);
	EXPECT_TRUE(still_running(self->child[0]));
	EXPECT_EQ(1, sh->alarms);
	delay = sh->delivered_ns - sh->armed_ns;
	TH_LOG("SIGALRM armed for 300 ms, handled after %.3f ms, %.3f ms after the thaw began",
	       delay / 1e6, (sh->delivered_ns - w.thaw_at_ns) / 1e6);
	/* Handled only after the thaw: the timer really expired while frozen. */
	EXPECT_GT(sh->delivered_ns, w.thaw_at_ns);
}

/* A parent waiting in vfork() does not block the freeze and completes. */
TEST_F(scen, vfork_parent_waiting_for_child)
{
	struct freeze_window w;
	int status;

	self->child[0] = fork();
	ASSERT_GE(self->child[0], 0);
	if (self->child[0] == 0) {
		pid_t pid = vfork();

		if (pid == 0) {
			sh->started_ns = now_ns();
			sh->vfork_child = getpid();
			sleep(2);
			_exit(0);
		}
		sh->elapsed_ns = now_ns();	/* when vfork() returned */
		if (pid < 0 || waitpid(pid, &status, 0) != pid)
			_exit(2);
		_exit(WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 3);
	}
	for (status = 0; status < 400 && !sh->vfork_child; status++)
		usleep(5000);
	ASSERT_NE(0, sh->vfork_child);
	ASSERT_TRUE(wait_state(sh->vfork_child, 'S'));
	/* The vfork parent waits killable: 'D'. */
	ASSERT_TRUE(wait_state(self->child[0], 'D'))
		TH_LOG("vfork parent in state '%c'", proc_state(self->child[0]));

	freeze_window(_metadata, &w);
	/* Otherwise the child's sleep had ended before the freeze. */
	ASSERT_LT(w.frozen_at_ns, sh->started_ns + 2000000000LL)
		TH_LOG("every task froze only %.3f ms after the child began its 2 s sleep",
		       (w.frozen_at_ns - sh->started_ns) / 1e6);

	status = reap_within(self->child[0], 4000);
	ASSERT_NE(-1, status) TH_LOG("vfork parent not done within 4 s of the thaw");
	/*
	 * Not while frozen: the child was frozen in its sleep, so vfork()
	 * returns after the thaw began.  (When the freeze outlasts the sleep,
	 * both finish right after the thaw, perhaps before the write
	 * returns: so no "still running after the freeze" check.)
	 */
	EXPECT_GT(sh->elapsed_ns, w.thaw_at_ns)
		TH_LOG("vfork() returned %.3f ms before the thaw began",
		       (w.thaw_at_ns - sh->elapsed_ns) / 1e6);
	self->child[0] = 0;
	sh->vfork_child = 0;
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/*
 * The forker: forks as fast as it can, each child sleeping FORK_CHILD_US
 * and exiting with its own status, and reaps them, checking every status.
 * It records the largest gap between two iterations of its loop.
 */
static void forker(void)
{
	pid_t pids[FORK_MAX_LIVE], r;
	int codes[FORK_MAX_LIVE], live = 0, status, i, code;
	long long last = now_ns(), t;

	while (!sh->stop) {
		t = now_ns();
		if (t - last > sh->fork_max_gap_ns)
			sh->fork_max_gap_ns = t - last;
		last = t;
		sh->fork_iters++;
		/* Reap what has exited; wait for one if all slots are taken. */
		while (live) {
			r = waitpid(-1, &status, live == FORK_MAX_LIVE ? 0 : WNOHANG);
			if (r == 0)
				break;
			if (r < 0) {
				sh->fork_bad++;	/* a child we forked is lost */
				live = 0;
				break;
			}
			for (i = 0; i < live && pids[i] != r; i++)
				;
			if (i == live) {
				sh->fork_bad++;	/* a child we did not fork */
				continue;
			}
			if (!WIFEXITED(status) || WEXITSTATUS(status) != codes[i])
				sh->fork_bad++;
			sh->fork_reaped++;
			pids[i] = pids[live - 1];
			codes[i] = codes[live - 1];
			live--;
		}
		code = 1 + sh->forks % 100;
		r = fork();
		if (r == 0) {
			usleep(FORK_CHILD_US);
			_exit(code);
		}
		if (r < 0) {
			sh->fork_errors++;
			usleep(1000);
			continue;
		}
		pids[live] = r;
		codes[live++] = code;
		sh->forks++;
	}
	while (live) {
		r = waitpid(-1, &status, 0);
		if (r < 0) {
			sh->fork_bad++;
			break;
		}
		for (i = 0; i < live && pids[i] != r; i++)
			;
		if (i == live) {
			sh->fork_bad++;
			continue;
		}
		if (!WIFEXITED(status) || WEXITSTATUS(status) != codes[i])
			sh->fork_bad++;
		sh->fork_reaped++;
		pids[i] = pids[--live];
		codes[i] = codes[live];
	}
	/* No child left behind, and none we never forked. */
	if (waitpid(-1, NULL, WNOHANG) != -1 || errno != ECHILD)
		sh->fork_bad++;
	_exit(0);
}

/*
 * Children forked while the freeze is under way are frozen too, or the
 * fork is restarted after the thaw: the freeze succeeds, the forker sits
 * through it, and every child is accounted for with its exit status.
 */
TEST_F(scen, process_forking_in_a_loop_freezes_and_loses_no_child)
{
	unsigned long forks_before, iters_before, forks_at_thaw;
	long long frozen_gap, quiet_gap, t0;
	int status, tries;

	self->child[0] = fork();
	ASSERT_GE(self->child[0], 0);
	if (self->child[0] == 0)
		forker();
	for (tries = 0; tries < 1000 && sh->forks < 20; tries++)
		usleep(5000);
	ASSERT_GE(sh->forks, 20UL) TH_LOG("the forker forked only %lu children in 5 s", sh->forks);
	/* As for the threads: measure a quiet stretch, not the start-up. */
	sh->fork_max_gap_ns = 0;
	forks_before = sh->forks;
	t0 = now_ns();
	usleep(300000);
	quiet_gap = sh->fork_max_gap_ns;
	TH_LOG("forker: %.0f forks/s, largest gap before the freeze %.3f ms",
	       (sh->forks - forks_before) * 1e9 / (now_ns() - t0), quiet_gap / 1e6);

	frozen_gap = freeze_window(_metadata, NULL);
	/* Otherwise a gap from before the freeze could pass for a frozen one. */
	ASSERT_LT(quiet_gap, frozen_gap);
	forks_at_thaw = sh->forks;
	iters_before = sh->fork_iters;
	for (tries = 0; tries < 600 && sh->fork_iters < iters_before + 20; tries++)
		usleep(5000);
	EXPECT_GE(sh->fork_iters, iters_before + 20)
		TH_LOG("the forker made no progress within 3 s of the thaw");
	TH_LOG("forker: largest gap %.3f ms, %lu forks in all, %lu since the thaw",
	       sh->fork_max_gap_ns / 1e6, sh->forks, sh->forks - forks_at_thaw);
	/*
	 * It sat through the freeze; that it was not held long after is the
	 * progress check above (no upper bound here: how soon a thawed task
	 * runs depends on the host's load).
	 */
	EXPECT_GT(sh->fork_max_gap_ns, frozen_gap);

	sh->stop = 1;
	status = reap_within(self->child[0], 5000);
	ASSERT_NE(-1, status) TH_LOG("the forker did not finish within 5 s");
	self->child[0] = 0;
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0UL, sh->fork_errors) TH_LOG("fork() failed %lu times", sh->fork_errors);
	EXPECT_EQ(0UL, sh->fork_bad)
		TH_LOG("%lu children lost, unknown or with a wrong exit status", sh->fork_bad);
	EXPECT_EQ(sh->forks, sh->fork_reaped)
		TH_LOG("forked %lu children, reaped %lu", sh->forks, sh->fork_reaped);
}

/* The thread of a process whose group leader has already exited. */
static void *orphan_thread(void *arg)
{
	long long last = now_ns(), t;

	while (!sh->stop) {
		t = now_ns();
		if (t - last > sh->max_gap_ns[0])
			sh->max_gap_ns[0] = t - last;
		last = t;
		sh->iters[0]++;
		usleep(THREAD_PERIOD_US);
	}
	_exit(43);	/* exit_group() from a thread that is not the leader */
}

/*
 * A zombie stays a zombie through the freeze and is reaped after it with
 * its exit status; so is a process whose group leader has exited while
 * another of its threads lives on: that thread freezes.
 */
TEST_F(scen, zombie_and_exited_group_leader_survive_a_freeze)
{
	long long frozen_gap, quiet_gap;
	unsigned long after_thaw;
	int status, tries;

	self->child[0] = fork();
	ASSERT_GE(self->child[0], 0);
	if (self->child[0] == 0)
		_exit(42);
	self->child[1] = fork();
	ASSERT_GE(self->child[1], 0);
	if (self->child[1] == 0) {
		pthread_t t;

		if (pthread_create(&t, NULL, orphan_thread, NULL))
			_exit(2);
		pthread_exit(NULL);	/* the leader exits, the thread runs on */
	}
	ASSERT_TRUE(wait_state(self->child[0], 'Z'));
	/* A leader that exited before its thread shows 'Z' too. */
	ASSERT_TRUE(wait_state(self->child[1], 'Z'));
	for (tries = 0; tries < 400 && sh->iters[0] < 5; tries++)
		usleep(5000);
	ASSERT_GE(sh->iters[0], 5UL);
	sh->max_gap_ns[0] = 0;
	usleep(100000);
	quiet_gap = sh->max_gap_ns[0];

	frozen_gap = freeze_window(_metadata, NULL);
	/* Otherwise a gap from before the freeze could pass for a frozen one. */
	ASSERT_LT(quiet_gap, frozen_gap);
	EXPECT_EQ('Z', proc_state(self->child[0]));
	EXPECT_EQ('Z', proc_state(self->child[1]));
	/* Two iterations counted after the thaw (see gap_loop()). */
	after_thaw = sh->iters[0];
	for (tries = 0; tries < 400 && sh->iters[0] < after_thaw + 2; tries++)
		usleep(5000);
	EXPECT_GE(sh->iters[0], after_thaw + 2) TH_LOG("the thread did not run again after the thaw");
	TH_LOG("thread of the exited leader: largest gap %.3f ms", sh->max_gap_ns[0] / 1e6);
	EXPECT_GT(sh->max_gap_ns[0], frozen_gap);

	status = reap_within(self->child[0], 1000);
	ASSERT_NE(-1, status) TH_LOG("the zombie could not be reaped");
	self->child[0] = 0;
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(42, WEXITSTATUS(status));

	sh->stop = 1;
	status = reap_within(self->child[1], 2000);
	ASSERT_NE(-1, status) TH_LOG("the process of the exited leader did not exit");
	self->child[1] = 0;
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(43, WEXITSTATUS(status));
}

static void *parked_thread(void *arg)
{
	__sync_fetch_and_add(&sh->threads_ready, 1);
	for (;;)
		pause();
	return NULL;
}

/* Has @pid exited completely (all its threads), so that it can be reaped? */
static int reapable(pid_t pid)
{
	siginfo_t si = { 0 };

	return !waitid(P_PID, pid, &si, WEXITED | WNOHANG | WNOWAIT) && si.si_pid == pid;
}

/*
 * A process with many threads and a big address space calls exit_group()
 * just before the freeze, and is still exiting (its threads dying, its
 * memory torn down) while the freezer walks the tasks: that must not make
 * the freeze fail, and the process exits with its status.
 *
 * Timing: on one CPU the woken child would run its whole exit before this
 * task runs again.  So this task triggers the exit as a SCHED_FIFO task
 * and sleeps EXIT_DELAY_US[round] (round 0: not at all; the child then
 * freezes before its exit_group()); when it wakes it preempts the child
 * wherever its exit has got to and starts the freeze at once.  The first
 * BASE_ROUNDS always run; the longer delays only until a freeze has begun
 * in the middle of an exit: a vCPU of a busy host under TCG had not begun
 * the exit 3 ms after the trigger in any of the four base rounds.
 */
static const int exit_delay_us[] = { 0, 300, 1000, 3000, 10000, 30000, 100000 };
#define BASE_ROUNDS	4

TEST_F(scen, process_in_exit_group_does_not_fail_the_freeze)
{
	struct sched_param fifo = { .sched_priority = 10 }, other = { .sched_priority = 0 };
	int round, fds[2], status, tries, mid_exit = 0, ret, complete;
	const int rounds = sizeof(exit_delay_us) / sizeof(exit_delay_us[0]);
	long threads;

	/* The freeze must begin before the exiting threads are all gone. */
	ASSERT_EQ(0, pin_to_this_cpu());
	ASSERT_EQ(0, setup_pm_test(0));
	for (round = 0; round < rounds && (round < BASE_ROUNDS || !mid_exit); round++) {
		sh->threads_ready = 0;
		ASSERT_EQ(0, pipe(fds));
		self->child[0] = fork();
		ASSERT_GE(self->child[0], 0);
		if (self->child[0] == 0) {
			pthread_attr_t attr;
			pthread_t t;
			char c, *mem;
			int i;

			close(fds[1]);
			/* Touched, so that exit_mmap() has work to do. */
			mem = mmap(NULL, EXIT_MEM, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (mem == MAP_FAILED)
				_exit(2);
			memset(mem, 1, EXIT_MEM);
			pthread_attr_init(&attr);
			pthread_attr_setstacksize(&attr, 64 * 1024);
			for (i = 0; i < EXIT_THREADS; i++)
				if (pthread_create(&t, &attr, parked_thread, NULL))
					_exit(2);
			if (read(fds[0], &c, 1) != 1)
				_exit(3);
			syscall(SYS_exit_group, 7);
			_exit(4);
		}
		close(fds[0]);
		for (tries = 0; tries < 1000 && sh->threads_ready < EXIT_THREADS; tries++)
			usleep(5000);
		ASSERT_EQ(EXIT_THREADS, sh->threads_ready);
		ASSERT_TRUE(wait_state(self->child[0], 'S'));

		ASSERT_EQ(0, sched_setscheduler(0, SCHED_FIFO, &fifo));
		ret = write(fds[1], "x", 1);
		if (exit_delay_us[round])
			usleep(exit_delay_us[round]);
		threads = proc_status_field(self->child[0], "Threads");
		complete = reapable(self->child[0]);
		if (threads <= EXIT_THREADS && !complete)
			mid_exit++;
		ret = ret == 1 ? freeze(_metadata) : -EIO;
		sched_setscheduler(0, SCHED_OTHER, &other);
		TH_LOG("round %d: froze %d us after the trigger, %ld of %d threads left%s",
		       round, exit_delay_us[round], threads, EXIT_THREADS + 1,
		       complete ? ", exit complete" : "");
		ASSERT_EQ(0, ret);

		status = reap_within(self->child[0], 3000);
		ASSERT_NE(-1, status) TH_LOG("the exiting process was not gone 3 s after the thaw");
		self->child[0] = 0;
		ASSERT_TRUE(WIFEXITED(status));
		EXPECT_EQ(7, WEXITSTATUS(status));
		close(fds[1]);
	}
	TH_LOG("%d of %d freezes began in the middle of the exit", mid_exit, round);
	/* Else this tested only a process about to exit. */
	EXPECT_GE(mid_exit, 1);
}

/*
 * Kernel threads (children of kthreadd) use no more CPU in the second
 * after the thaw than in the second before the freeze: none is left
 * spinning, e.g. on a freeze request it can never satisfy.  kmemleak's
 * scanner is left out: its scans take seconds of CPU on this kernel, on
 * their own schedule.
 */
TEST_F(scen, kernel_threads_use_no_extra_cpu_after_thaw)
{
	static struct kthread_use s0[MAX_KTHREADS], s1[MAX_KTHREADS];
	static struct kthread_use s2[MAX_KTHREADS], s3[MAX_KTHREADS];
	int n0, n1, n2, n3, i, freezable = 0, top[3];
	long before, after, top_ticks[3];
	long long t0, t1, t2, t3;

	t0 = now_ns();
	n0 = kthread_snapshot(s0, MAX_KTHREADS);
	usleep(1000000);
	t1 = now_ns();
	n1 = kthread_snapshot(s1, MAX_KTHREADS);
	ASSERT_GT(n0, 1);
	ASSERT_GT(n1, 1);
	for (i = 0; i < n1; i++) {
		if (!(s1[i].flags & PF_NOFREEZE_FLAG)) {
			TH_LOG("freezable: %s (pid %d)", s1[i].comm, s1[i].pid);
			freezable++;
		}
	}
	TH_LOG("%d kernel threads, %d of them freezable", n1, freezable);
	/* kswapd0 and kcompactd0 at least: else this tests nothing. */
	ASSERT_GE(freezable, 1);

	ASSERT_EQ(0, freeze(_metadata));
	t2 = now_ns();
	n2 = kthread_snapshot(s2, MAX_KTHREADS);
	usleep(1000000);
	t3 = now_ns();
	n3 = kthread_snapshot(s3, MAX_KTHREADS);

	TH_LOG("kmemleak's scanner, left out: %ld ticks before, %ld after",
	       kthread_ticks_between(s0, n0, s1, n1, NULL, top, top_ticks) -
	       kthread_ticks_between(s0, n0, s1, n1, "kmemleak", top, top_ticks),
	       kthread_ticks_between(s2, n2, s3, n3, NULL, top, top_ticks) -
	       kthread_ticks_between(s2, n2, s3, n3, "kmemleak", top, top_ticks));
	before = kthread_ticks_between(s0, n0, s1, n1, "kmemleak", top, top_ticks);
	TH_LOG("before the freeze: %ld ticks in %.3f s", before, (t1 - t0) / 1e9);
	for (i = 0; i < 3 && top[i] >= 0; i++)
		TH_LOG("  %s (pid %d): %ld", s1[top[i]].comm, s1[top[i]].pid, top_ticks[i]);
	after = kthread_ticks_between(s2, n2, s3, n3, "kmemleak", top, top_ticks);
	TH_LOG("after the thaw: %ld ticks in %.3f s", after, (t3 - t2) / 1e9);
	for (i = 0; i < 3 && top[i] >= 0; i++)
		TH_LOG("  %s (pid %d): %ld", s3[top[i]].comm, s3[top[i]].pid, top_ticks[i]);
	EXPECT_LT(after, before + 20);
}

/*
 * The hung task detector, checking every second with a 1 s timeout, stays
 * quiet across a 3 s freeze with a pipe reader and a sleeper frozen, and
 * after it: nobody is left blocked.  (It pauses itself from
 * PM_SUSPEND_PREPARE to PM_POST_SUSPEND; frozen tasks are TASK_FROZEN.)
 */
TEST_F(scen, hung_task_detector_stays_quiet)
{
	long csw0, csw1;
	pid_t khung;
	int fds[2], count, i;
	char warnings[32], *log;
	long long took;

	if (access(HUNG_TIMEOUT, W_OK))
		SKIP(return, "no %s (CONFIG_DETECT_HUNG_TASK)", HUNG_TIMEOUT);
	ASSERT_EQ(0, save_and_set(HUNG_TIMEOUT, self->saved_hung_timeout,
				  sizeof(self->saved_hung_timeout), 1));
	if (!access(HUNG_INTERVAL, W_OK))
		ASSERT_EQ(0, save_and_set(HUNG_INTERVAL, self->saved_hung_interval,
					  sizeof(self->saved_hung_interval), 1));
	/* Used up, the detector would stay quiet whatever happens. */
	if (read_str(HUNG_WARNINGS, warnings, sizeof(warnings)) > 0 && atoi(warnings) == 0)
		ASSERT_EQ(0, save_and_set(HUNG_WARNINGS, self->saved_hung_warnings,
					  sizeof(self->saved_hung_warnings), 10));
	ASSERT_EQ(0, setup_pm_test(3));

	ASSERT_EQ(0, pipe(fds));
	self->child[0] = fork_pipe_reader(fds);
	ASSERT_GE(self->child[0], 0);
	self->child[1] = fork();
	ASSERT_GE(self->child[1], 0);
	if (self->child[1] == 0) {
		struct timespec ts = { .tv_sec = 30 };

		nanosleep(&ts, NULL);
		_exit(0);
	}
	ASSERT_TRUE(wait_state(self->child[0], 'S'));
	ASSERT_TRUE(wait_state(self->child[1], 'S'));
	khung = find_kthread("khungtaskd", &count);
	ASSERT_EQ(1, count) TH_LOG("no khungtaskd");

	dmesg_clear();
	ASSERT_EQ(0, freeze_timed(_metadata, &took));
	/* Long enough for two checks of anyone still blocked after the thaw. */
	csw0 = proc_status_field(khung, "voluntary_ctxt_switches");
	usleep(3500000);
	csw1 = proc_status_field(khung, "voluntary_ctxt_switches");
	TH_LOG("khungtaskd woke %ld times in the 3.5 s after the thaw", csw1 - csw0);
	EXPECT_GE(csw1 - csw0, 2) TH_LOG("khungtaskd did not run its checks");
	for (i = 0; i < 2; i++)
		EXPECT_EQ('S', proc_state(self->child[i]))
			TH_LOG("child %d in state '%c' after the thaw", i, proc_state(self->child[i]));

	log = dmesg_read();
	ASSERT_NE(NULL, log);
	EXPECT_EQ(NULL, strstr(log, "blocked for more than"))
		log_kernel_lines(log, "blocked for more than", 10);
	free(log);

	expect_pipe_read(_metadata, &self->child[0], fds[1]);
	close(fds[1]);
}

/* Freeze with a task that refuses to; check the failure and its report. */
static void expect_refused_freeze(struct __test_metadata *_metadata, const char *what,
				  const char *comm, pid_t pid)
{
	int tasks = -1, wq_busy = -1, tried_ms = -1;
	long long took;
	char *log;

	dmesg_clear();
	EXPECT_EQ(-EBUSY, freeze_timed(_metadata, &took));
	/*
	 * It gave up at the timeout, without waiting for the task: the task
	 * is still in its REFUSE_MS sleep (three times the timeout).
	 */
	EXPECT_EQ('D', proc_state(pid)) TH_LOG("%s (pid %d) no longer in its sleep", comm, pid);

	log = dmesg_read();
	ASSERT_NE(NULL, log);
	EXPECT_NE(NULL, parse_freeze_failure(log, what, &tried_ms, &tasks, &wq_busy))
		TH_LOG("no \"Freezing %s failed after\" line", what);
	TH_LOG("the kernel tried for %d ms, the write took %.3f ms", tried_ms, took / 1e6);
	/*
	 * It tried for the whole timeout: the kernel's deadline is in jiffies
	 * (10 ms at HZ=100), so it cannot give up sooner than that less a
	 * jiffy, however busy the host; and its own count of how long it tried
	 * lies inside the write() measured around it.
	 */
	EXPECT_GE(tried_ms, REFUSE_TIMEOUT_MS - 10);
	EXPECT_LE(tried_ms * 1000000LL, took);
	EXPECT_EQ(1, tasks);
	EXPECT_EQ(0, wq_busy);
	/*
	 * Both freezers wake kernel threads from any sleep on every pass
	 * (wake_up_state(TASK_NORMAL) in freeze_task() and
	 * todo_freeze_task()); msleep() sleeps again, but on SMP the report
	 * can catch the thread running on another CPU (make smp-test).  Only
	 * the second step freezes kernel threads.
	 */
	EXPECT_TRUE(log_reports_task(log, comm, pid, 'D') ||
		    (!strcmp(what, "remaining freezable tasks") &&
		     log_reports_task(log, comm, pid, 'R')))
		TH_LOG("the kernel log does not report task %s, pid %d, in state D", comm, pid);
	if (_metadata->exit_code != KSFT_PASS)
		log_kernel_lines(log, NULL, 40);
	free(log);
}

/*
 * A user task sleeping uninterruptibly (not freezably) past the freeze
 * timeout fails the freeze with EBUSY after the timeout, and the kernel
 * log names it; the tasks are thawed, and once it is done, freezing works.
 */
TEST_F(scen, user_task_refusing_to_freeze_fails_it_with_ebusy)
{
	char path[64], todo[256];
	int status;

	if (access(KNOB_SLEEP_UNINT, W_OK))
		SKIP(return, "no %s (CONFIG_TODO_FREEZER_TEST)", KNOB_SLEEP_UNINT);
	ASSERT_EQ(0, save_and_set(PM_FREEZE_TIMEOUT, self->saved_freeze_timeout,
				  sizeof(self->saved_freeze_timeout), REFUSE_TIMEOUT_MS));
	self->child[0] = fork();
	ASSERT_GE(self->child[0], 0);
	if (self->child[0] == 0) {
		char ms[16];

		prctl(PR_SET_NAME, "unint_sleeper");
		snprintf(ms, sizeof(ms), "%d", REFUSE_MS);
		_exit(write_str(KNOB_SLEEP_UNINT, ms) ? 1 : 0);
	}
	ASSERT_TRUE(wait_state(self->child[0], 'D'));

	expect_refused_freeze(_metadata, "user space processes", "unint_sleeper",
			      self->child[0]);
	/* Thawed: no freeze item of this freeze left. */
	snprintf(path, sizeof(path), "/proc/%d/todo", self->child[0]);
	if (read_str(path, todo, sizeof(todo)) >= 0)
		EXPECT_EQ(NULL, strstr(todo, "todo_freeze_self"))
			TH_LOG("%s after the failed freeze: %s", path, todo);

	status = reap_within(self->child[0], REFUSE_MS + 2000);
	ASSERT_NE(-1, status) TH_LOG("the sleeper did not finish");
	self->child[0] = 0;
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("writing %s failed", KNOB_SLEEP_UNINT);
	EXPECT_EQ(0, freeze(_metadata)) TH_LOG("the next freeze failed");
}

/* The same for a freezable kernel thread that never reaches a checkpoint. */
TEST_F(scen, stuck_kernel_thread_fails_the_freeze_with_ebusy)
{
	int count;
	pid_t pid;

	if (access(KNOB_STUCK_KTHREAD, W_OK))
		SKIP(return, "no %s (CONFIG_TODO_FREEZER_TEST)", KNOB_STUCK_KTHREAD);
	find_kthread("todo_stuck", &count);
	ASSERT_EQ(0, count) TH_LOG("a todo_stuck thread is left from before");
	ASSERT_EQ(0, save_and_set(PM_FREEZE_TIMEOUT, self->saved_freeze_timeout,
				  sizeof(self->saved_freeze_timeout), REFUSE_TIMEOUT_MS));
	pid = start_knob_kthread(KNOB_STUCK_KTHREAD, "todo_stuck", REFUSE_MS);
	ASSERT_NE(0, pid) TH_LOG("no todo_stuck thread");
	ASSERT_TRUE(wait_state(pid, 'D'));

	expect_refused_freeze(_metadata, "remaining freezable tasks", "todo_stuck", pid);

	/* It sleeps its time out and exits; then freezing works again. */
	ASSERT_TRUE(kthread_gone_by(pid, "todo_stuck", now_ns() + (REFUSE_MS + 2000) * 1000000LL))
		TH_LOG("todo_stuck did not exit");
	EXPECT_EQ(0, freeze(_metadata)) TH_LOG("the next freeze failed");
}

/*
 * With the items of class @off ("user", "kthreads") turned off (item_off),
 * freeze once: under freezer=todo the freeze must fail in step @what,
 * naming task @comm, @pid, which refused (it runs, or sleeps
 * interruptibly between its checkpoints); the classic freezer queues no
 * item and must freeze as usual.  Then, with the items back, a freeze must
 * succeed.
 */
static void expect_frozen_only_by_its_item(struct __test_metadata *_metadata, const char *off,
					   const char *what, const char *comm, pid_t pid)
{
	ASSERT_EQ(0, write_str(KNOB_ITEM_OFF, off));
	if (freezer_is("todo")) {
		int tasks = -1, wq_busy = -1, tried_ms = -1;
		char *log;

		dmesg_clear();
		EXPECT_EQ(-EBUSY, freeze(_metadata))
			TH_LOG("a todo freeze succeeded with the %s freeze items turned off", off);
		log = dmesg_read();
		ASSERT_NE(NULL, log);
		EXPECT_NE(NULL, parse_freeze_failure(log, what, &tried_ms, &tasks, &wq_busy))
			TH_LOG("no \"Freezing %s failed after\" line", what);
		EXPECT_GE(tasks, 1);
		EXPECT_TRUE(log_reports_task(log, comm, pid, 'R') || log_reports_task(log, comm, pid, 'S'))
			TH_LOG("the kernel log does not name %s, pid %d", comm, pid);
		if (_metadata->exit_code != KSFT_PASS)
			log_kernel_lines(log, NULL, 40);
		free(log);
	} else {
		EXPECT_EQ(0, freeze(_metadata)) TH_LOG("item_off changed the classic freezer");
	}
	ASSERT_EQ(0, write_str(KNOB_ITEM_OFF, "none"));
	EXPECT_EQ(0, freeze(_metadata)) TH_LOG("the freeze with the items back failed");
}

/*
 * Under freezer=todo the freeze item is what freezes a task: with the items
 * of user tasks turned off, a task spinning in user space is kicked into
 * its checkpoint on every pass and never frozen, and the freeze fails,
 * naming it.  The classic freezer does not notice the knob.
 */
TEST_F(scen, freeze_item_is_what_freezes_a_user_task)
{
	int tries;

	if (access(KNOB_ITEM_OFF, W_OK))
		SKIP(return, "no %s (CONFIG_TODO_FREEZER_TEST)", KNOB_ITEM_OFF);
	ASSERT_EQ(0, save_and_set(PM_FREEZE_TIMEOUT, self->saved_freeze_timeout,
				  sizeof(self->saved_freeze_timeout), REFUSE_TIMEOUT_MS));
	self->child[0] = fork();
	ASSERT_GE(self->child[0], 0);
	if (self->child[0] == 0) {
		prctl(PR_SET_NAME, "item_spinner");
		for (;;)
			sh->iters[0]++;
	}
	/* Named and spinning: its count moves (R alone is true from the fork). */
	for (tries = 0; tries < 500 && !sh->iters[0]; tries++)
		usleep(10000);
	ASSERT_NE(0UL, sh->iters[0]) TH_LOG("item_spinner did not start within 5 s");
	expect_frozen_only_by_its_item(_metadata, "user", "user space processes", "item_spinner",
				       self->child[0]);
}

/*
 * The same for a kernel thread: "todo_ticker" meets its checkpoint every
 * tick and sleeps interruptibly, not freezably, so only its freeze item
 * can freeze it under freezer=todo; with kernel threads' items off, the
 * second step of the freeze fails and names it.
 */
TEST_F(scen, freeze_item_is_what_freezes_a_kernel_thread)
{
	struct pstat ps = { .flags = PF_NOFREEZE_FLAG };
	int count, tries;
	pid_t pid;

	if (access(KNOB_ITEM_OFF, W_OK) || access(KNOB_TICKING_KTHREAD, W_OK))
		SKIP(return, "no %s (CONFIG_TODO_FREEZER_TEST)", KNOB_ITEM_OFF);
	find_kthread("todo_ticker", &count);
	ASSERT_EQ(0, count) TH_LOG("a todo_ticker thread is left from before");
	ASSERT_EQ(0, save_and_set(PM_FREEZE_TIMEOUT, self->saved_freeze_timeout,
				  sizeof(self->saved_freeze_timeout), REFUSE_TIMEOUT_MS));
	pid = start_knob_kthread(KNOB_TICKING_KTHREAD, "todo_ticker", 4 * REFUSE_MS);
	ASSERT_NE(0, pid) TH_LOG("no todo_ticker thread");
	/* Freezable: set_freezable() has cleared PF_NOFREEZE. */
	for (tries = 0; tries < 500; tries++) {
		if (read_pstat(pid, &ps) == 0 && !(ps.flags & PF_NOFREEZE_FLAG))
			break;
		usleep(10000);
	}
	ASSERT_EQ(0U, ps.flags & PF_NOFREEZE_FLAG) TH_LOG("todo_ticker still PF_NOFREEZE after 5 s");
	expect_frozen_only_by_its_item(_metadata, "kthreads", "remaining freezable tasks",
				       "todo_ticker", pid);
	EXPECT_TRUE(kthread_gone_by(pid, "todo_ticker", now_ns() + (4 * REFUSE_MS + 2000) * 1000000LL))
		TH_LOG("todo_ticker did not exit");
}

/* The settings this program changes, restored when it exits. */
static struct saved_setting settings[] = {
	{ .path = PM_FREEZE_TIMEOUT }, { .path = KNOB_ITEM_OFF }, { .path = HUNG_TIMEOUT },
	{ .path = HUNG_INTERVAL }, { .path = HUNG_WARNINGS },
};

int main(int argc, char **argv)
{
	return freezer_test_main(argc, argv, settings, sizeof(settings) / sizeof(settings[0]));
}
