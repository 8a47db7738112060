// SPDX-License-Identifier: GPL-2.0
/*
 * System freezer scenarios for hard task kinds, as seen from user space:
 * many threads of one process, stopped and ptrace-stopped tasks, tasks
 * blocked in read(), nanosleep(), futex, poll and epoll, a timer signal due
 * while frozen, and a vfork parent.  Each test freezes through the standard
 * interface (pm_test=freezer, "echo freeze > /sys/power/state"; the freeze,
 * the pm_test_delay and the thaw all happen inside that write) and then
 * checks that the freeze was transparent: nothing returns early, nothing sees
 * EINTR, no signal is lost or doubled, and stopped tasks stay stopped.
 *
 * Every workload sleeps: spinners slow freezing down a lot on the test
 * kernel (KASAN + lockdep).  Every wait is bounded so no test can hang.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "guest.h"

#define PM_TEST		"/sys/power/pm_test"
#define PM_TEST_DELAY	"/sys/module/suspend/parameters/pm_test_delay"
#define POWER_STATE	"/sys/power/state"
#define DELAY_S		1
/* A gap this long means the task sat through the DELAY_S freeze. */
#define FROZEN_GAP_NS	(DELAY_S * 800000000LL)

#define NR_THREADS	64
/*
 * 2 ms would be 64 * 500 wakeups a second: more than the UML test kernel
 * (KASAN + lockdep, every syscall trapped) can serve, so the process turns
 * CPU-bound and threads starve for over half a second.  20 ms keeps it a
 * sleeping workload while staying far below the frozen gap.
 */
#define THREAD_PERIOD_US	20000
#define MAX_CHILDREN	4

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
	volatile long long elapsed_ns;
	volatile long long armed_ns, delivered_ns;
	volatile int alarms;
	volatile int resumed;
	volatile pid_t vfork_child;
	volatile long epoll_first_ret;
	volatile int epoll_first_err;
	volatile long long epoll_first_ns;
	char buf[16];
};

static struct shared *sh;	/* for the threads and the signal handler */

/* Reap @pid within @ms milliseconds; its wait status, or -1. */
static int reap_within(pid_t pid, int ms)
{
	int status;

	for (; ms > 0; ms -= 5) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return status;
		if (r < 0)
			return -1;
		usleep(5000);
	}
	return -1;
}

/* Still running (not exited): the freeze did not end its blocking call. */
static int still_running(pid_t pid)
{
	return waitpid(pid, NULL, WNOHANG) == 0;
}

/* Freeze and thaw; 0 or -errno.  Logs how long the round trip took. */
static int freeze(struct __test_metadata *_metadata)
{
	long long t0 = now_ns();
	int ret = write_str(POWER_STATE, "freeze");

	TH_LOG("freeze round trip: %d, %.3f ms", ret, (now_ns() - t0) / 1e6);
	return ret;
}

FIXTURE(scen) {
	pid_t child[MAX_CHILDREN];
};

FIXTURE_SETUP(scen)
{
	char delay[16];
	int i;

	for (i = 0; i < MAX_CHILDREN; i++)
		self->child[i] = 0;
	if (access(PM_TEST, W_OK))
		SKIP(return, "%s not writable: needs CONFIG_PM_DEBUG and root", PM_TEST);
	ASSERT_EQ(0, write_str(PM_TEST, "freezer"));
	snprintf(delay, sizeof(delay), "%d", DELAY_S);
	ASSERT_EQ(0, write_str(PM_TEST_DELAY, delay));

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
	for (i = 0; i < MAX_CHILDREN; i++) {
		if (self->child[i] > 0) {
			kill(self->child[i], SIGKILL);
			waitpid(self->child[i], NULL, 0);
		}
	}
	write_str(PM_TEST, "none");
}

/* One of the NR_THREADS sleepers: records its largest iteration gap. */
static void *gap_thread(void *arg)
{
	long i = (long)arg;
	long long last = now_ns(), t;

	for (;;) {
		t = now_ns();
		if (t - last > sh->max_gap_ns[i])
			sh->max_gap_ns[i] = t - last;
		last = t;
		sh->iters[i]++;
		usleep(THREAD_PERIOD_US);
	}
	return NULL;
}

/* Every thread of a many-threaded process is frozen, not just the leader. */
TEST_F(scen, threads_of_a_multithreaded_process_all_freeze)
{
	unsigned long before[NR_THREADS];
	long long min_gap, max_before = 0;
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
	/* Otherwise a gap from before the freeze could pass for a frozen one. */
	ASSERT_LT(max_before, FROZEN_GAP_NS / 2)
		TH_LOG("a thread already had a %lld ns gap before the freeze", max_before);

	for (i = 0; i < NR_THREADS; i++)
		before[i] = sh->iters[i];
	ASSERT_EQ(0, freeze(_metadata));

	/* After the thaw each thread must loop again to measure its gap. */
	for (tries = 0; tries < 600; tries++) {
		for (i = 0, all = 1; i < NR_THREADS; i++)
			if (sh->iters[i] < before[i] + 2)
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
		EXPECT_GE(sh->max_gap_ns[i], FROZEN_GAP_NS)
			TH_LOG("thread %d: largest gap only %lld ns", i, sh->max_gap_ns[i]);
	}
	TH_LOG("smallest per-thread max gap: %.3f ms over %d threads (pm_test_delay %d s)",
	       min_gap / 1e6, NR_THREADS, DELAY_S);
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
	int fds[2], status;

	ASSERT_EQ(0, pipe(fds));
	self->child[0] = fork();
	ASSERT_GE(self->child[0], 0);
	if (self->child[0] == 0) {
		/* Default signal dispositions: nothing may interrupt it. */
		close(fds[1]);
		sh->ret[0] = read(fds[0], sh->buf, 5);
		sh->err[0] = errno;
		_exit(0);
	}
	close(fds[0]);
	ASSERT_TRUE(wait_state(self->child[0], 'S'));

	ASSERT_EQ(0, freeze(_metadata));
	usleep(100000);
	EXPECT_TRUE(still_running(self->child[0])) TH_LOG("read() returned without data");

	ASSERT_EQ(5, write(fds[1], "hello", 5));
	status = reap_within(self->child[0], 2000);
	ASSERT_NE(-1, status);
	self->child[0] = 0;
	EXPECT_EQ(5, sh->ret[0]) TH_LOG("read() failed: %s", strerror(sh->err[0]));
	EXPECT_EQ(0, memcmp(sh->buf, "hello", 5));
	close(fds[1]);
}

/* A nanosleep() cut by a freeze still sleeps its full time, returning 0. */
TEST_F(scen, nanosleep_keeps_its_full_time_across_a_freeze)
{
	long long start;
	int status;

	self->child[0] = fork();
	ASSERT_GE(self->child[0], 0);
	if (self->child[0] == 0) {
		struct timespec ts = { .tv_sec = 3 };
		long long t0 = now_ns();

		sh->ret[0] = nanosleep(&ts, NULL);
		sh->err[0] = errno;
		sh->elapsed_ns = now_ns() - t0;
		_exit(0);
	}
	start = now_ns();
	ASSERT_TRUE(wait_state(self->child[0], 'S'));
	usleep(100000);

	ASSERT_EQ(0, freeze(_metadata));
	/* Otherwise the freeze did not fall into the sleep. */
	ASSERT_LT(now_ns() - start, 2800000000LL) TH_LOG("freeze took too long to test this");
	EXPECT_TRUE(still_running(self->child[0])) TH_LOG("nanosleep ended at the freeze");

	status = reap_within(self->child[0], 5000);
	ASSERT_NE(-1, status);
	self->child[0] = 0;
	EXPECT_EQ(0, sh->ret[0]) TH_LOG("nanosleep failed: %s", strerror(sh->err[0]));
	TH_LOG("nanosleep(3 s) took %.3f ms", sh->elapsed_ns / 1e6);
	EXPECT_GE(sh->elapsed_ns, 3000000000LL);
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
	long long delay;

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

	ASSERT_EQ(0, freeze(_metadata));
	usleep(500000);
	EXPECT_TRUE(still_running(self->child[0]));
	EXPECT_EQ(1, sh->alarms);
	delay = sh->delivered_ns - sh->armed_ns;
	TH_LOG("SIGALRM armed for 300 ms, handled after %.3f ms", delay / 1e6);
	/* Handled only after the thaw: the timer really expired while frozen. */
	EXPECT_GE(delay, FROZEN_GAP_NS);
}

/* A parent waiting in vfork() does not block the freeze and completes. */
TEST_F(scen, vfork_parent_waiting_for_child)
{
	int status;

	self->child[0] = fork();
	ASSERT_GE(self->child[0], 0);
	if (self->child[0] == 0) {
		pid_t pid = vfork();

		if (pid == 0) {
			sh->vfork_child = getpid();
			sleep(2);
			_exit(0);
		}
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

	ASSERT_EQ(0, freeze(_metadata));
	EXPECT_TRUE(still_running(self->child[0])) TH_LOG("done before the freeze ended");

	status = reap_within(self->child[0], 4000);
	ASSERT_NE(-1, status) TH_LOG("vfork parent not done within 4 s of the thaw");
	self->child[0] = 0;
	sh->vfork_child = 0;
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST_HARNESS_MAIN
