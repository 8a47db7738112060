// SPDX-License-Identifier: GPL-2.0
/*
 * The todo freezer as a drop-in replacement for the classic one:
 * every task the classic freezer freezes, the todo freezer freezes too, and
 * user space cannot tell which freezer ran: same return values, same errno,
 * same timeouts.  Where the classic freezer itself already differs from no
 * freeze at all (a system call that returns EINTR when the freezer wakes
 * it), the test asserts what the classic freezer does, for both.
 *
 *  1. io_uring: an SQPOLL ring (its thread "iou-sqp-PID"), an idle io-wq
 *     worker ("iou-wrk-PID") with a poll-armed pipe read pending, and an
 *     io-wq worker blocked in a splice: threads of the process that never
 *     return to user space (PF_USER_WORKER).  The freeze succeeds and the
 *     rings work after the thaw.  And a thread waiting for a completion
 *     (io_uring_enter() with min_complete 1): plain, DEFER_TASKRUN, with
 *     an EXT_ARG timeout, and an IORING_UNREGISTER_FILES quiesce; their
 *     loops clear TIF_NOTIFY_SIGNAL and end only on task_sigpending(): the
 *     freeze succeeds and each returns EINTR, with both freezers.
 *  2. cgroup v2: tasks frozen through cgroup.freeze stay frozen across a
 *     system freeze, which succeeds.
 *  3. System calls sleeping interruptibly, freezable or not: for each one
 *     user space can reach in our configs, the call sleeps through the
 *     freeze and returns what it returns without a freeze, keeping its
 *     timeout; or, where the classic freezer interrupts it, it returns
 *     EINTR with both freezers.  The audit behind the choice of calls is
 *     the list below.
 *  4. cgroup v1 freezer: tasks frozen (or still freezing) through
 *     freezer.state stay frozen across a system freeze.  A sleeper the
 *     cgroup froze in place ran on after the system thaw with the classic
 *     freezer of 6.12 too; kernel-patches/0002 fixes it for both.
 *  5. OOM: a task frozen by the system freeze and then chosen by the OOM
 *     killer exits, so that oom_killer_disable() and the freeze succeed.
 *  6. A freezable kernel thread in an uninterruptible sleep with a
 *     timeout freezes at once.
 *  7. Core dumps: a multi-threaded process dumping a large core, to a
 *     file and to a pipe, while the freeze starts: dump_interrupted()
 *     tests only task_sigpending(); the freeze succeeds and cuts the dump
 *     short with both freezers.
 *  8. fork() during a freeze: processes and threads created in a loop by
 *     fork(), vfork() and pthread_create() (clone()).  copy_process()
 *     gives up with -ERESTARTNOINTR while the classic freezer's fake
 *     signal is pending, so no child is created from the freeze's start
 *     until the thaw, with both freezers; forking resumes after the thaw.
 *
 * Every test freezes through the standard interface (pm_test=freezer,
 * "echo freeze > /sys/power/state": freeze, pm_test_delay and thaw inside
 * that one write) with the freezer named by argv[1].  Times are compared
 * only with the window the kernel measured in the same run (struct
 * freeze_window, CONFIG_FREEZER_BENCH), never with pm_test_delay.
 *
 * Which sleepers are tested (git grep TASK_FREEZABLE in 6.12, and the
 * wait_event_freezable*() users), in the configs of this project:
 *
 *  - freezable, interruptible, returns -EINTR itself: the classic freezer
 *    freezes the sleeper in place and user space sees nothing; a freezer
 *    that wakes it (TIF_NOTIFY_SIGNAL) makes it fail:
 *	rt_sigtimedwait()/sigwaitinfo()	kernel/signal.c do_sigtimedwait()
 *	recv()/read()/recvmsg() on an AF_UNIX stream socket with
 *	SO_RCVTIMEO			net/unix/af_unix.c unix_stream_data_wait()
 *	and the same without a timeout after part of a MSG_WAITALL or
 *	SO_RCVLOWAT read: a short count instead of the whole read.
 *  - freezable, interruptible, restarted (-ERESTARTSYS, restart block):
 *    invisible with both freezers: futex() FUTEX_WAIT*, futex_waitv(),
 *    nanosleep(), clock_nanosleep(), wait4(), waitid().
 *  - freezable, uninterruptible or killable: frozen in place by both
 *    freezers: vfork() (freeze_scenarios), coredump waits, umh waits.
 *  - not freezable, interruptible: both freezers wake it with a fake
 *    signal (the todo freezer's kick of a user task carries the classic
 *    freezer's), so both give the same result.  Restarted, so
 *    invisible: read() on a pipe, poll(), select(), msgrcv(),
 *    mq_receive()/mq_timedreceive(), flock(), fcntl(F_SETLKW), accept()
 *    without a timeout, eventfd and signalfd reads, pause() (returns
 *    EINTR only when its handler ran); but select() with a timeout is
 *    restarted with what was left of it, so the time frozen is added to
 *    its timeout, with either freezer.  Returning EINTR with the classic
 *    freezer too: epoll_wait(), semop()/semtimedop(), io_getevents(),
 *    accept() and AF_UNIX datagram recv() with SO_RCVTIMEO; and an io-wq
 *    request blocked in an interruptible sleep completes with -EINTR.
 *  - not reachable here: binder, NFS, SMB, fanotify, the freezable kernel
 *    threads' waits (xfs, f2fs, gfs2, khugepaged, ...), pid namespaces.
 *
 * Every test runs once per freezer, as compat.todo.TEST and
 * compat.classic.TEST; a freezer this kernel does not have makes its tests
 * SKIP.
 * Usage: freeze_compat [--list] [--match GLOB] [--freezer todo|classic]
 *        [harness options]   (harness_main.h)
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/aio_abi.h>
#include <linux/futex.h>
#include <linux/io_uring.h>
#include <mqueue.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/msg.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/sem.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "guest.h"
#include "freeze.h"
#include "freezer_variants.h"
#include "uring.h"
#include "cgroup2.h"

/* pm_test_delay of most tests; the timeout tests hold the freeze longer. */
#define DELAY_S			1
/*
 * The timeout of the timeout tests: shorter than the freeze they sit in,
 * so that it comes due while every task is frozen.
 */
#define SHORT_TIMEOUT_MS	1000
/* How long, measured, the timeout tests hold every task frozen. */
#define TIMEOUT_HOLD_MS		(5 * SHORT_TIMEOUT_MS / 2)
#define TIMEOUT_DELAY_MAX_S	10
/* The timeout of calls that are to be woken long before it. */
#define LONG_TIMEOUT_MS		20000
/* SO_RCVTIMEO counts jiffies: the wait may end up to one (HZ=100) early. */
#define JIFFY_NS		10000000LL

#define MAX_CHILDREN		12
#define CG2_DIR			"/tmp/freeze_compat.cgroup2"
#define CG1_DIR			"/tmp/freeze_compat.freezer"
#define LOCK_FILE		"/tmp/freeze_compat.lock"
/*
 * While the OOM test runs, a freeze gives up after this many ms: longer
 * than the hog's populate takes, which the freeze has to wait for (3 to 5 s
 * on the KASAN test kernel, 11 s on the smp flavour under TCG on 2 busy
 * host cores); oom_killer_disable() waits as long.
 */
#define OOM_FREEZE_TIMEOUT_MS	40000
/* The napping kernel thread sleeps longer than the freeze may take. */
#define NAP_MS			30000
#define NAP_FREEZE_TIMEOUT_MS	5000
/* How long the hog populates before the freeze begins. */
#define HOG_HEAD_START_US	30000

/* Section 7, core dumps. */
#define CORE_PATTERN		"/proc/sys/kernel/core_pattern"
#define CORE_FILE		"/tmp/freeze_compat.core"
/* The pipe helper: progress and, at end of file, the bytes it read. */
#define PIPE_CORE_STARTED	"/tmp/freeze_compat.pipecore.started"
#define PIPE_CORE_BYTES		"/tmp/freeze_compat.pipecore.bytes"
#define CORE_THREADS		3
/* The pipe helper reads this much, then naps PIPE_READER_NAP_US. */
#define PIPE_READER_CHUNK	65536
#define PIPE_READER_NAP_US	2000
/* The dump to the pipe: its size and the pace of the reader make it last ~3 s. */
#define PIPE_CORE_MB		96

/* What one blocking call in a child did (shared, MAP_SHARED). */
struct call_slot {
	volatile long ret;
	volatile int err;
	volatile int started, done;
	/* CLOCK_MONOTONIC: entering the call, leaving it, its deadline */
	volatile long long start_ns, end_ns, deadline_ns;
	volatile long aux;
	char buf[64];
};

struct shared {
	struct call_slot slot[MAX_CHILDREN];
	volatile unsigned long counter[MAX_CHILDREN];
	volatile int ready[MAX_CHILDREN];
	volatile int futex_word;
	volatile int usr1;
	volatile long long hog_ns;
	volatile int hog_done;
};

static struct shared *sh;


/*
 * One blocking system call, run in a child: @fn does its set-up, calls
 * slot_begin() and makes the call, returning what the call returned; the
 * child records errno right after.  The parent fills in the fds before the
 * fork.
 */
struct call {
	const char *name;
	long (*fn)(const struct call *c, struct call_slot *s);
	int fd;
	long timeout_ms;
	size_t len;
	int flags;
	int id;
	/* The kernel function it must sleep in (/proc/<pid>/stack), or NULL. */
	const char *where;
};

static void slot_begin(struct call_slot *s)
{
	s->start_ns = now_ns();
	s->started = 1;
	errno = 0;
}

static pid_t fork_call(const struct call *c, int i)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct call_slot *s = &sh->slot[i];
		long ret = c->fn(c, s);

		s->err = errno;
		s->end_ns = now_ns();
		s->ret = ret;
		__sync_synchronize();
		s->done = 1;
		_exit(0);
	}
	return pid;
}

/* Wait until call @i (child @pid) sleeps in its call; 0, or -1. */
static int wait_blocked(pid_t pid, int i)
{
	int tries;

	for (tries = 0; tries < 600; tries++) {
		if (sh->slot[i].done)
			return -1;
		if (sh->slot[i].started && proc_state(pid) == 'S')
			return 0;
		usleep(5000);
	}
	return -1;
}

static const char *errname(int err)
{
	static char buf[32];

	switch (err) {
	case 0: return "0";
	case EINTR: return "EINTR";
	case EAGAIN: return "EAGAIN";
	case ETIMEDOUT: return "ETIMEDOUT";
	case EBUSY: return "EBUSY";
	case ERANGE: return "ERANGE";
	}
	snprintf(buf, sizeof(buf), "errno %d", err);
	return buf;
}

/* Log what call @i returned and when, relative to its start and @w. */
static void log_call(struct __test_metadata *_metadata, const char *name, int i,
		     const struct freeze_window *w)
{
	const struct call_slot *s = &sh->slot[i];

	if (!s->done) {
		TH_LOG("%s: still blocked", name);
		return;
	}
	TH_LOG("%s: returned %ld (%s) after %.3f ms%s%.3f ms after the thaw began",
	       name, s->ret, s->ret < 0 ? errname(s->err) : "ok",
	       (s->end_ns - s->start_ns) / 1e6, w ? ", " : "",
	       w ? (s->end_ns - w->thaw_at_ns) / 1e6 : 0.0);
}

/* Call @i returned @want, or -1 with errno @want_err if @want is -1. */
static void expect_ret(struct __test_metadata *_metadata, const char *name, int i,
		       long want, int want_err)
{
	const struct call_slot *s = &sh->slot[i];

	EXPECT_TRUE(s->done) TH_LOG("%s never returned", name);
	if (!s->done)
		return;
	if (want == -1) {
		EXPECT_TRUE(s->ret == -1 && s->err == want_err)
			TH_LOG("%s returned %ld (%s), expected -1 (%s)", name, s->ret,
			       s->ret < 0 ? errname(s->err) : "ok", errname(want_err));
	} else {
		EXPECT_EQ(want, s->ret)
			TH_LOG("%s returned %ld (%s), expected %ld", name, s->ret,
			       s->ret < 0 ? errname(s->err) : "ok", want);
	}
}

/* After the thaw: the @n calls still sleep, none ended at the freeze. */
static void expect_still_blocked(struct __test_metadata *_metadata, const struct call *calls,
				 int n, const struct freeze_window *w)
{
	int i;

	usleep(100000);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(0, sh->slot[i].done)
			TH_LOG("%s ended at the freeze, before it was woken: %ld (%s), %.3f ms after the thaw began",
			       calls[i].name, sh->slot[i].ret,
			       sh->slot[i].ret < 0 ? errname(sh->slot[i].err) : "ok",
			       (sh->slot[i].end_ns - w->thaw_at_ns) / 1e6);
	}
}

/*
 * Call @i had a deadline (s->deadline_ns) inside the freeze window @w: it
 * did not return before it (less @early_ns for jiffies-based timeouts),
 * nor while every task was frozen, and it was not restarted with its whole
 * timeout (@timeout_ns) after the thaw.
 */
static void expect_deadline_kept(struct __test_metadata *_metadata, const char *name, int i,
				 const struct freeze_window *w, long long timeout_ns,
				 long long early_ns)
{
	const struct call_slot *s = &sh->slot[i];

	if (!s->done)
		return;
	TH_LOG("%s: began %.3f ms before every task was frozen; deadline %.3f ms before the thaw began; returned %.3f ms after the thaw began",
	       name, (w->frozen_at_ns - s->start_ns) / 1e6, (w->thaw_at_ns - s->deadline_ns) / 1e6,
	       (s->end_ns - w->thaw_at_ns) / 1e6);
	EXPECT_GE(s->end_ns, s->deadline_ns - early_ns)
		TH_LOG("%s returned %.3f ms before its deadline", name,
		       (s->deadline_ns - s->end_ns) / 1e6);
	EXPECT_GT(s->end_ns, w->thaw_at_ns)
		TH_LOG("%s returned while every task was frozen", name);
	EXPECT_LT(s->end_ns, w->thaw_at_ns + timeout_ns)
		TH_LOG("%s returned %.3f ms after the thaw: its timeout started again",
		       name, (s->end_ns - w->thaw_at_ns) / 1e6);
}

/* Freeze and thaw; 0 or -errno.  On failure, logs who refused. */
static int freeze(struct __test_metadata *_metadata)
{
	long long t0 = now_ns();
	int ret;
	char *log;

	dmesg_clear();
	ret = freeze_thaw();
	TH_LOG("freeze round trip: %s, %.3f ms", ret ? errname(-ret) : "0", (now_ns() - t0) / 1e6);
	if (ret && (log = dmesg_read())) {
		log_kernel_lines(log, "Freezing", 4);
		log_kernel_lines(log, "task:", 8);
		free(log);
	}
	return ret;
}

/* A freeze that must succeed, and the window the kernel measured. */
static void freeze_window(struct __test_metadata *_metadata, struct freeze_window *w)
{
	ASSERT_EQ(0, freeze(_metadata));
	ASSERT_EQ(0, last_freeze_window(w)) TH_LOG("no freeze window in %s", FREEZER_BENCH_LAST);
	TH_LOG("frozen window: %.3f ms, %d user tasks frozen", frozen_ns(w) / 1e6, w->frozen);
}

/*
 * Set pm_test_delay so that the next freeze holds every task frozen for
 * about TIMEOUT_HOLD_MS, for a timeout test.  The delay is a busy wait
 * counted in loops calibrated at boot, as long or as short as the host's
 * load then made it (2 s gave 0.83 s of frozen window on a loaded host):
 * a freeze of DELAY_S measures what one of its seconds is now.
 */
static void setup_timeout_freeze(struct __test_metadata *_metadata)
{
	struct freeze_window w;
	long long per_s;
	int delay_s;

	ASSERT_EQ(0, setup_pm_test(DELAY_S));
	freeze_window(_metadata, &w);
	per_s = frozen_ns(&w) / DELAY_S;
	ASSERT_GT(per_s, 0);
	delay_s = (TIMEOUT_HOLD_MS * 1000000LL + per_s - 1) / per_s;
	if (delay_s > TIMEOUT_DELAY_MAX_S)
		delay_s = TIMEOUT_DELAY_MAX_S;
	TH_LOG("pm_test_delay %d s held %.3f ms: %d s for %d ms", DELAY_S,
	       frozen_ns(&w) / 1e6, delay_s, TIMEOUT_HOLD_MS);
	ASSERT_EQ(0, setup_pm_test(delay_s));
}

/* A thread of @pid whose comm starts with @prefix: its tid, or 0. */
static pid_t find_thread(pid_t pid, const char *prefix, char *state)
{
	pid_t tid = 0;

	if (threads_named(pid, prefix, &tid, 1) && state)
		*state = proc_state(tid);
	return tid;
}

/* A field of /proc/meminfo in kB, or -1. */
static long meminfo_kb(const char *field)
{
	char buf[4096], *p;

	if (read_str("/proc/meminfo", buf, sizeof(buf)) <= 0)
		return -1;
	p = strstr(buf, field);
	if (!p || p[strlen(field)] != ':')
		return -1;
	return strtol(p + strlen(field) + 1, NULL, 10);
}

FIXTURE(compat) {
	pid_t child[MAX_CHILDREN];
	/* Set by the tests, cleaned up by the teardown. */
	char saved_freeze_timeout[32];
	struct cgroup2 cg2;
	char cg1_dir[128];
	int cg1_mounted;
	int sem_id, msg_id;
	char mq_name[32];
	int lock_file;
	/* core_pattern before the test changed it; the core file; pipe helper's files */
	char saved_core_pattern[256];
	char core_file[96];
	int pipe_core;
};

FREEZER_VARIANTS(compat);

FIXTURE_SETUP(compat)
{
	int i;

	for (i = 0; i < MAX_CHILDREN; i++)
		self->child[i] = 0;
	self->saved_freeze_timeout[0] = 0;
	self->cg2.dir[0] = self->cg2.mnt[0] = self->cg1_dir[0] = 0;
	self->cg1_mounted = 0;
	self->sem_id = self->msg_id = -1;
	self->mq_name[0] = 0;
	self->lock_file = 0;
	self->saved_core_pattern[0] = self->core_file[0] = 0;
	self->pipe_core = 0;
	SELECT_VARIANT_FREEZER();
	if (access(PM_TEST, W_OK))
		SKIP(return, "%s not writable: needs CONFIG_PM_DEBUG and root", PM_TEST);
	if (access(FREEZER_BENCH_LAST, R_OK))
		SKIP(return, "no %s (CONFIG_FREEZER_BENCH): no freeze window to compare with",
		     FREEZER_BENCH_LAST);
	ASSERT_EQ(0, setup_pm_test(DELAY_S));

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, sh);
}

FIXTURE_TEARDOWN(compat)
{
	char path[160];
	int i;

	/* Thawed first: a task frozen by cgroup v1 ignores SIGKILL. */
	if (self->cg1_dir[0]) {
		snprintf(path, sizeof(path), "%s/freezer.state", self->cg1_dir);
		write_str(path, "THAWED");
	}
	if (self->cg2.dir[0])
		cg2_write(&self->cg2, "cgroup.freeze", "0");
	for (i = 0; i < MAX_CHILDREN; i++)
		kill_child(&self->child[i]);
	if (self->cg1_dir[0])
		rmdir(self->cg1_dir);
	if (self->cg1_mounted)
		umount2(CG1_DIR, MNT_DETACH);
	cg2_remove(&self->cg2);
	if (self->sem_id >= 0)
		semctl(self->sem_id, 0, IPC_RMID);
	if (self->msg_id >= 0)
		msgctl(self->msg_id, IPC_RMID, NULL);
	if (self->mq_name[0])
		mq_unlink(self->mq_name);
	if (self->lock_file)
		unlink(LOCK_FILE);
	if (self->saved_freeze_timeout[0])
		write_str(PM_FREEZE_TIMEOUT, self->saved_freeze_timeout);
	if (self->saved_core_pattern[0])
		write_str(CORE_PATTERN, self->saved_core_pattern);
	if (self->core_file[0])
		unlink(self->core_file);
	if (self->pipe_core) {
		unlink(PIPE_CORE_STARTED);
		unlink(PIPE_CORE_BYTES);
	}
	write_str(PM_TEST, "none");
}

/*
 * 1. io_uring, through raw system calls: the rings mmap()ed, SQEs written
 * and CQEs reaped by hand.
 */
/*
 * An SQPOLL ring has a thread of this process, "iou-sqp-PID", that runs
 * no user code: the freeze must freeze it, and the ring works after it.
 */
TEST_F(compat, io_uring_sqpoll_thread_freezes_and_ring_works_after_thaw)
{
	struct io_uring_cqe cqe;
	struct uring r;
	pid_t sqp;
	char state = 0;
	int ret;

	ret = uring_init(&r, 8, IORING_SETUP_SQPOLL, 50);
	if (ret == -ENOSYS)
		SKIP(return, "no io_uring (CONFIG_IO_URING)");
	ASSERT_EQ(0, ret) TH_LOG("io_uring_setup(SQPOLL): %s", strerror(-ret));
	ASSERT_EQ(0, uring_nop(&r, 1, &cqe));
	EXPECT_EQ(1ULL, cqe.user_data);
	EXPECT_EQ(0, cqe.res);
	sqp = find_thread(getpid(), "iou-sqp-", &state);
	ASSERT_NE(0, sqp) TH_LOG("no iou-sqp thread in /proc/%d/task", getpid());
	/* Idle for longer than sq_thread_idle: the thread sleeps. */
	usleep(200000);
	TH_LOG("iou-sqp thread %d in state '%c'", sqp, proc_state(sqp));

	EXPECT_EQ(0, freeze(_metadata));

	EXPECT_EQ(sqp, find_thread(getpid(), "iou-sqp-", NULL))
		TH_LOG("the SQ thread is gone after the freeze");
	ret = uring_nop(&r, 2, &cqe);
	EXPECT_EQ(0, ret) TH_LOG("NOP after the thaw: %s", strerror(-ret));
	if (!ret) {
		EXPECT_EQ(2ULL, cqe.user_data);
		EXPECT_EQ(0, cqe.res);
	}
	uring_exit(&r);
}

/*
 * A read of an empty pipe with IOSQE_ASYNC goes to an io-wq worker
 * ("iou-wrk-PID"), which finds no data, arms a poll and waits idle for
 * more work: the freeze must freeze the worker with the read pending, and
 * data written after the thaw completes the read.
 */
TEST_F(compat, io_wq_worker_freezes_and_async_pipe_read_completes_after_thaw)
{
	struct io_uring_sqe sqe;
	struct io_uring_cqe cqe;
	struct uring r;
	char buf[16] = { 0 }, state = 0;
	int fds[2], ret, tries;
	pid_t wrk = 0;

	ret = uring_init(&r, 8, 0, 50);
	if (ret == -ENOSYS)
		SKIP(return, "no io_uring (CONFIG_IO_URING)");
	ASSERT_EQ(0, ret) TH_LOG("io_uring_setup: %s", strerror(-ret));
	ASSERT_EQ(0, pipe(fds));
	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = IORING_OP_READ;
	sqe.fd = fds[0];
	sqe.addr = (unsigned long)buf;
	sqe.len = 5;
	sqe.off = (__u64)-1;
	sqe.flags = IOSQE_ASYNC;
	sqe.user_data = 7;
	ASSERT_EQ(0, uring_submit(&r, &sqe));
	for (tries = 0; tries < 400 && !wrk; tries++) {
		wrk = find_thread(getpid(), "iou-wrk-", &state);
		if (!wrk)
			usleep(5000);
	}
	ASSERT_NE(0, wrk) TH_LOG("no io-wq worker in /proc/%d/task", getpid());
	ASSERT_TRUE(wait_state(wrk, 'S'));
	TH_LOG("io-wq worker %d", wrk);
	ASSERT_EQ(-ETIMEDOUT, uring_reap(&r, &cqe, 100))
		TH_LOG("the read completed with nothing written: %d", cqe.res);

	EXPECT_EQ(0, freeze(_metadata));

	ret = uring_reap(&r, &cqe, 100);
	EXPECT_EQ(-ETIMEDOUT, ret) TH_LOG("the read completed at the freeze: %d", cqe.res);
	if (ret) {
		ASSERT_EQ(5, write(fds[1], "hello", 5));
		ret = uring_reap(&r, &cqe, 3000);
		ASSERT_EQ(0, ret) TH_LOG("no completion within 3 s of the write");
	}
	EXPECT_EQ(7ULL, cqe.user_data);
	EXPECT_EQ(5, cqe.res) TH_LOG("read: %d (%s)", cqe.res, cqe.res < 0 ? strerror(-cqe.res) : "");
	EXPECT_EQ(0, memcmp(buf, "hello", 5));
	close(fds[0]);
	close(fds[1]);
	uring_exit(&r);
}

/*
 * A splice from an empty pipe always runs in an io-wq worker, which sleeps
 * in pipe_wait_readable(): interruptible, not freezable.  The freeze must
 * freeze that worker too.  The classic freezer's fake signal breaks the
 * splice off, so the request completes with -EINTR at the freeze (io_uring
 * turns -ERESTARTSYS into -EINTR: it cannot restart a request); both
 * freezers must do the same.
 */
TEST_F(compat, io_wq_worker_blocked_in_splice_freezes)
{
	struct io_uring_sqe sqe;
	struct io_uring_cqe cqe;
	struct uring r;
	int in[2], out[2], ret, tries;
	char buf[16] = { 0 };
	pid_t wrk = 0;

	ret = uring_init(&r, 8, 0, 50);
	if (ret == -ENOSYS)
		SKIP(return, "no io_uring (CONFIG_IO_URING)");
	ASSERT_EQ(0, ret) TH_LOG("io_uring_setup: %s", strerror(-ret));
	ASSERT_EQ(0, pipe(in));
	ASSERT_EQ(0, pipe(out));
	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = IORING_OP_SPLICE;
	sqe.fd = out[1];
	sqe.off = (__u64)-1;
	sqe.splice_fd_in = in[0];
	sqe.splice_off_in = (__u64)-1;
	sqe.len = 5;
	sqe.user_data = 9;
	ASSERT_EQ(0, uring_submit(&r, &sqe));
	for (tries = 0; tries < 400 && !wrk; tries++) {
		wrk = find_thread(getpid(), "iou-wrk-", NULL);
		if (!wrk)
			usleep(5000);
	}
	ASSERT_NE(0, wrk) TH_LOG("no io-wq worker in /proc/%d/task", getpid());
	ASSERT_TRUE(wait_state(wrk, 'S'));
	ASSERT_EQ(-ETIMEDOUT, uring_reap(&r, &cqe, 100))
		TH_LOG("the splice completed with nothing written: %d", cqe.res);

	EXPECT_EQ(0, freeze(_metadata));

	ret = uring_reap(&r, &cqe, 1000);
	if (ret) {
		TH_LOG("the splice is still pending after the thaw");
		ASSERT_EQ(5, write(in[1], "hello", 5));
		ASSERT_EQ(0, uring_reap(&r, &cqe, 3000)) TH_LOG("no completion within 3 s of the write");
	}
	EXPECT_EQ(9ULL, cqe.user_data);
	TH_LOG("splice: %d (%s)", cqe.res, cqe.res < 0 ? strerror(-cqe.res) : "ok");
	EXPECT_EQ(-EINTR, cqe.res) TH_LOG("the classic freezer ends it with -EINTR");
	/* The pipes and the ring still work: a second splice gets new data. */
	sqe.user_data = 10;
	ASSERT_EQ(0, uring_submit(&r, &sqe));
	ASSERT_EQ(5, write(in[1], "world", 5));
	ASSERT_EQ(0, uring_reap(&r, &cqe, 3000)) TH_LOG("no completion for the second splice");
	EXPECT_EQ(10ULL, cqe.user_data);
	EXPECT_EQ(5, cqe.res);
	/* "world", after "hello" if the first splice moved that */
	ret = read(out[0], buf, sizeof(buf) - 1);
	EXPECT_TRUE(ret >= 5 && !memcmp(buf + ret - 5, "world", 5))
		TH_LOG("read %d bytes from the splice's pipe: '%.*s'", ret, ret > 0 ? ret : 0, buf);
	close(in[0]);
	close(in[1]);
	close(out[0]);
	close(out[1]);
	uring_exit(&r);
}

/*
 * A thread that waits for completions in io_uring_enter() (min_complete
 * 1, IORING_ENTER_GETEVENTS), the wait of liburing's io_uring_wait_cqe(),
 * sleeps interruptibly in io_cqring_wait(), which is not freezable; its
 * loop runs task work, clearing TIF_NOTIFY_SIGNAL, and ends only on
 * task_sigpending().  The classic freezer's fake signal ends the wait with
 * -EINTR, and the task freezes on its way out: both freezers must freeze
 * it and return the same.  The rings are set up in the child that waits.
 */
#ifndef IORING_SETUP_SINGLE_ISSUER
#define IORING_SETUP_SINGLE_ISSUER	(1U << 12)
#endif
#ifndef IORING_SETUP_DEFER_TASKRUN
#define IORING_SETUP_DEFER_TASKRUN	(1U << 13)
#endif
#ifndef IORING_ENTER_EXT_ARG
#define IORING_ENTER_EXT_ARG		(1U << 3)
#endif

/* The ring a child waits on; set up before slot_begin(). */
static int uring_child_ring(struct uring *r, unsigned int flags)
{
	int ret = uring_init(r, 8, flags, 50);

	if (ret) {
		errno = -ret;
		return -1;
	}
	return 0;
}

/* io_uring_enter(fd, 0, 1, GETEVENTS): wait for a completion that never comes. */
static long call_uring_wait(const struct call *c, struct call_slot *s)
{
	struct uring r;

	if (uring_child_ring(&r, c->flags))
		return -2;
	slot_begin(s);
	return syscall(__NR_io_uring_enter, r.fd, 0, 1, IORING_ENTER_GETEVENTS, NULL, 0);
}

/* The same with IORING_ENTER_EXT_ARG and a relative timeout of c->timeout_ms. */
static long call_uring_wait_ext_arg(const struct call *c, struct call_slot *s)
{
	struct io_uring_getevents_arg arg;
	struct __kernel_timespec ts = {
		.tv_sec = c->timeout_ms / 1000,
		.tv_nsec = (c->timeout_ms % 1000) * 1000000LL,
	};
	struct uring r;

	if (uring_child_ring(&r, c->flags))
		return -2;
	memset(&arg, 0, sizeof(arg));
	arg.sigmask_sz = _NSIG / 8;
	arg.ts = (unsigned long)&ts;
	slot_begin(s);
	s->deadline_ns = s->start_ns + c->timeout_ms * 1000000LL;
	return syscall(__NR_io_uring_enter, r.fd, 0, 1,
		       IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG, &arg, sizeof(arg));
}

/*
 * IORING_UNREGISTER_FILES while a read of a registered pipe (a fixed file)
 * is pending: io_sqe_files_unregister() waits in io_rsrc_ref_quiesce() for
 * the request to drop its reference to the file table, interruptibly, in a
 * loop on io_run_task_work_sig(), which clears TIF_NOTIFY_SIGNAL and ends
 * the wait only on task_sigpending().
 */
static long call_uring_quiesce(const struct call *c, struct call_slot *s)
{
	struct io_uring_sqe sqe;
	struct uring r;
	int fds[2];

	if (uring_child_ring(&r, c->flags) || pipe(fds))
		return -2;
	if (syscall(__NR_io_uring_register, r.fd, IORING_REGISTER_FILES, &fds[0], 1))
		return -3;
	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = IORING_OP_READ;
	sqe.fd = 0;			/* index 0 of the registered files */
	sqe.flags = IOSQE_FIXED_FILE;
	sqe.addr = (unsigned long)s->buf;
	sqe.len = 5;
	sqe.off = (__u64)-1;
	sqe.user_data = 11;
	if (uring_submit(&r, &sqe)) {
		errno = EIO;
		return -4;
	}
	slot_begin(s);
	return syscall(__NR_io_uring_register, r.fd, IORING_UNREGISTER_FILES, NULL, 0);
}

/* /proc/<pid>/wchan into @buf; its length, or -1. */
static int proc_wchan(pid_t pid, char *buf, size_t size)
{
	char path[64];
	int n;

	snprintf(path, sizeof(path), "/proc/%d/wchan", pid);
	n = read_str(path, buf, size);
	return n > 0 ? n : -1;
}

/*
 * Does /proc/<pid>/stack have a frame in function @fn?  (UML's wchan may
 * name a stale scheduler frame; the stack is exact.)
 */
static int proc_stack_has(pid_t pid, const char *fn)
{
	char path[64], buf[4096], want[96];

	snprintf(path, sizeof(path), "/proc/%d/stack", pid);
	if (read_str(path, buf, sizeof(buf)) <= 0)
		return 0;
	snprintf(want, sizeof(want), "] %s+", fn);
	return strstr(buf, want) != NULL;
}

/* Shared with the sleeps of section 3, below. */
static void start_calls(struct __test_metadata *_metadata, FIXTURE_DATA(compat) *self,
			const struct call *calls, int n);
static void reap_calls(struct __test_metadata *_metadata, FIXTURE_DATA(compat) *self,
		       const struct call *calls, int n, int ms);

/*
 * Fork the @n io_uring waits and check that each sleeps where it should:
 * state S, and c->where (io_cqring_wait(), io_rsrc_ref_quiesce()) on its
 * kernel stack.
 */
static void start_uring_calls(struct __test_metadata *_metadata, FIXTURE_DATA(compat) *self,
			      const struct call *calls, int n)
{
	int i;

	start_calls(_metadata, self, calls, n);
	for (i = 0; i < n; i++) {
		ASSERT_EQ('S', proc_state(self->child[i]));
		ASSERT_TRUE(proc_stack_has(self->child[i], calls[i].where))
			TH_LOG("%s: pid %d not asleep in %s", calls[i].name, self->child[i],
			       calls[i].where);
		TH_LOG("%s: pid %d sleeps in %s", calls[i].name, self->child[i], calls[i].where);
	}
}

/*
 * The four waits of io_uring that loop on task_sigpending(), each over one
 * freeze: the freeze succeeds, and each call returns -EINTR at the freeze
 * (after the thaw), as the classic freezer's fake signal makes it.
 */
static void uring_waits_over_a_freeze(struct __test_metadata *_metadata,
				      FIXTURE_DATA(compat) *self, const struct call *calls, int n)
{
	struct uring probe;
	struct freeze_window w;
	int i, ret;

	ret = uring_init(&probe, 8, calls[0].flags, 50);
	if (ret == -ENOSYS)
		SKIP(return, "no io_uring (CONFIG_IO_URING)");
	ASSERT_EQ(0, ret) TH_LOG("io_uring_setup(%#x): %s", calls[0].flags, strerror(-ret));
	uring_exit(&probe);

	start_uring_calls(_metadata, self, calls, n);
	ret = freeze(_metadata);
	if (ret)	/* Not left for the next test's freeze to trip over. */
		for (i = 0; i < n; i++)
			kill_child(&self->child[i]);
	ASSERT_EQ(0, ret) TH_LOG("a task waiting in io_uring refused to freeze");
	ASSERT_EQ(0, last_freeze_window(&w));
	reap_calls(_metadata, self, calls, n, 3000);
	for (i = 0; i < n; i++) {
		log_call(_metadata, calls[i].name, i, &w);
		expect_ret(_metadata, calls[i].name, i, -1, EINTR);
		/* It froze on its way out: user space saw it return after the thaw. */
		EXPECT_GT(sh->slot[i].end_ns, w.thaw_at_ns)
			TH_LOG("%s returned while every task was frozen", calls[i].name);
	}
}

TEST_F(compat, io_uring_wait_for_a_completion_freezes_with_eintr)
{
	const struct call calls[] = {
		{ .name = "io_uring_enter(min_complete 1)", .fn = call_uring_wait,
		  .where = "io_cqring_wait" },
	};

	uring_waits_over_a_freeze(_metadata, self, calls, 1);
}

TEST_F(compat, io_uring_defer_taskrun_wait_for_a_completion_freezes_with_eintr)
{
	const struct call calls[] = {
		{ .name = "io_uring_enter(min_complete 1), DEFER_TASKRUN", .fn = call_uring_wait,
		  .flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
		  .where = "io_cqring_wait" },
	};

	uring_waits_over_a_freeze(_metadata, self, calls, 1);
}

/*
 * With IORING_ENTER_EXT_ARG and a timeout: one longer than the freeze and
 * one that comes due while every task is frozen.  The freeze wakes both
 * before their timeouts, so both return -EINTR, not -ETIME, with both
 * freezers.
 */
TEST_F(compat, io_uring_wait_with_ext_arg_timeout_freezes_with_eintr)
{
	const struct call calls[] = {
		{ .name = "io_uring_enter(min_complete 1, EXT_ARG 20 s)",
		  .fn = call_uring_wait_ext_arg, .timeout_ms = LONG_TIMEOUT_MS,
		  .where = "io_cqring_wait" },
		{ .name = "io_uring_enter(min_complete 1, EXT_ARG 1 s), DEFER_TASKRUN",
		  .fn = call_uring_wait_ext_arg, .timeout_ms = SHORT_TIMEOUT_MS,
		  .flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
		  .where = "io_cqring_wait" },
	};
	struct freeze_window w;
	int i;

	setup_timeout_freeze(_metadata);
	uring_waits_over_a_freeze(_metadata, self, calls, 2);
	ASSERT_EQ(0, last_freeze_window(&w));
	/* The short timeout was due inside the freeze, yet the freeze ended the wait. */
	EXPECT_LT(w.frozen_at_ns, sh->slot[1].deadline_ns);
	EXPECT_GT(w.thaw_at_ns, sh->slot[1].deadline_ns);
	for (i = 0; i < 2; i++)
		TH_LOG("%s: deadline %.3f ms after every task was frozen",
		       calls[i].name, (sh->slot[i].deadline_ns - w.frozen_at_ns) / 1e6);
}

TEST_F(compat, io_uring_unregister_files_quiesce_freezes_with_eintr)
{
	const struct call calls[] = {
		{ .name = "io_uring_register(UNREGISTER_FILES), a fixed-file read pending",
		  .fn = call_uring_quiesce, .where = "io_rsrc_ref_quiesce" },
	};

	uring_waits_over_a_freeze(_metadata, self, calls, 1);
}

/* Counting children for the cgroup tests: they must not run while frozen. */
static __attribute__((noreturn)) void counting_sleeper(int i)
{
	for (;;) {
		sh->counter[i]++;
		usleep(10000);
	}
}

static __attribute__((noreturn)) void counting_spinner(int i)
{
	for (;;)
		sh->counter[i]++;
}

/* Wait until counter @i moves; 1 if it did within 3 s. */
static int counter_moves(int i)
{
	unsigned long c = sh->counter[i];
	int tries;

	for (tries = 0; tries < 600; tries++) {
		if (sh->counter[i] != c)
			return 1;
		usleep(5000);
	}
	return 0;
}

/* Does @path (a cgroup file) contain @text?  Waits up to 3 s for it. */
static int wait_file_has(const char *path, const char *text)
{
	char buf[512];
	int tries;

	for (tries = 0; tries < 600; tries++) {
		if (read_str(path, buf, sizeof(buf)) > 0 && strstr(buf, text))
			return 1;
		usleep(5000);
	}
	return 0;
}

/*
 * 2. A task frozen through cgroup v2 (cgroup.freeze, sleeping in
 * do_freezer_trap()) does not make a system freeze fail, stays frozen
 * through it and after it, and runs again once the cgroup is thawed.
 */
TEST_F(compat, cgroup2_frozen_tasks_stay_frozen_across_a_system_freeze)
{
	char path[256], buf[256], name[64];
	unsigned long before[2];
	int i, ret;

	snprintf(name, sizeof(name), "freeze_compat.%d", getpid());
	ret = cg2_make(&self->cg2, CG2_DIR, name);
	if (ret == -ENODEV)
		SKIP(return, "no cgroup2 file system (CONFIG_CGROUPS)");
	ASSERT_EQ(0, ret) TH_LOG("cgroup2 %s: %s", name, strerror(-ret));

	for (i = 0; i < 2; i++) {
		self->child[i] = fork();
		ASSERT_GE(self->child[i], 0);
		if (self->child[i] == 0) {
			if (i == 0)
				counting_sleeper(i);
			counting_spinner(i);
		}
		ASSERT_EQ(0, cg2_add(&self->cg2, self->child[i]));
		ASSERT_TRUE(counter_moves(i));
	}
	ASSERT_EQ(0, cg2_write(&self->cg2, "cgroup.freeze", "1"));
	snprintf(path, sizeof(path), "%s/cgroup.events", self->cg2.dir);
	ASSERT_TRUE(wait_file_has(path, "frozen 1")) TH_LOG("the cgroup did not freeze");
	for (i = 0; i < 2; i++)
		before[i] = sh->counter[i];
	usleep(100000);
	for (i = 0; i < 2; i++)
		ASSERT_EQ(before[i], sh->counter[i]) TH_LOG("child %d runs in a frozen cgroup", i);

	EXPECT_EQ(0, freeze(_metadata));

	ASSERT_EQ(0, read_str(path, buf, sizeof(buf)) > 0 ? 0 : -1);
	EXPECT_NE(NULL, strstr(buf, "frozen 1")) TH_LOG("cgroup.events after the thaw: %s", buf);
	usleep(200000);
	for (i = 0; i < 2; i++) {
		EXPECT_EQ('S', proc_state(self->child[i]))
			TH_LOG("child %d in state '%c'", i, proc_state(self->child[i]));
		EXPECT_EQ(before[i], sh->counter[i])
			TH_LOG("child %d ran %lu times after the system thaw, its cgroup frozen",
			       i, sh->counter[i] - before[i]);
	}

	ASSERT_EQ(0, cg2_write(&self->cg2, "cgroup.freeze", "0"));
	for (i = 0; i < 2; i++)
		EXPECT_TRUE(counter_moves(i)) TH_LOG("child %d did not run after the cgroup thaw", i);
}

/* Mount the cgroup v1 freezer and make our cgroup; 0, or -errno. */
static int cg1_setup(FIXTURE_DATA(compat) *self)
{
	mkdir(CG1_DIR, 0755);
	if (mount("none", CG1_DIR, "cgroup", 0, "freezer"))
		return -errno;
	self->cg1_mounted = 1;
	snprintf(self->cg1_dir, sizeof(self->cg1_dir), "%s/freeze_compat.%d", CG1_DIR, getpid());
	if (mkdir(self->cg1_dir, 0755)) {
		self->cg1_dir[0] = 0;
		return -errno;
	}
	return 0;
}

static int cg1_add(FIXTURE_DATA(compat) *self, pid_t pid)
{
	char path[192], buf[32];

	snprintf(path, sizeof(path), "%s/cgroup.procs", self->cg1_dir);
	snprintf(buf, sizeof(buf), "%d", pid);
	return write_str(path, buf);
}

static int cg1_state(FIXTURE_DATA(compat) *self, char *buf, size_t size)
{
	char path[192];
	int n;

	snprintf(path, sizeof(path), "%s/freezer.state", self->cg1_dir);
	n = read_str(path, buf, size);
	if (n > 0)
		buf[strcspn(buf, "\n")] = 0;
	return n;
}

/*
 * A task frozen through freezer.state before the system freeze must stay
 * frozen through it and after it, with the cgroup still FROZEN, and run
 * again once the cgroup is thawed.  @sleeper: a task the cgroup v1 freezer
 * freezes in place (sleeping in nanosleep(), TASK_FREEZABLE), not through
 * the refrigerator (a spinner, which only a fake signal stops).
 */
static void cg1_frozen_across_system_freeze(struct __test_metadata *_metadata,
					    FIXTURE_DATA(compat) *self, int sleeper)
{
	char path[192], state[64];
	unsigned long before;
	int ret = cg1_setup(self);

	if (ret == -ENODEV || ret == -ENOENT)
		SKIP(return, "no cgroup v1 freezer (CONFIG_CGROUP_FREEZER)");
	ASSERT_EQ(0, ret) TH_LOG("mount -t cgroup -o freezer: %s", strerror(-ret));
	self->child[0] = fork();
	ASSERT_GE(self->child[0], 0);
	if (self->child[0] == 0) {
		if (sleeper)
			counting_sleeper(0);
		counting_spinner(0);
	}
	ASSERT_EQ(0, cg1_add(self, self->child[0]));
	ASSERT_TRUE(counter_moves(0));
	snprintf(path, sizeof(path), "%s/freezer.state", self->cg1_dir);
	ASSERT_EQ(0, write_str(path, "FROZEN"));
	ASSERT_TRUE(wait_file_has(path, "FROZEN")) TH_LOG("the cgroup did not freeze");
	before = sh->counter[0];
	usleep(100000);
	ASSERT_EQ(before, sh->counter[0]) TH_LOG("the task runs in a FROZEN cgroup");

	EXPECT_EQ(0, freeze(_metadata));

	/* Just thawed, the task may not have gone back to its frozen wait yet. */
	EXPECT_TRUE(wait_file_has(path, "FROZEN"));
	ASSERT_GT(cg1_state(self, state, sizeof(state)), 0);
	usleep(200000);
	EXPECT_EQ(before, sh->counter[0])
		TH_LOG("the task ran %lu times after the system thaw, its cgroup %s, its state '%c'",
		       sh->counter[0] - before, state, proc_state(self->child[0]));

	ASSERT_EQ(0, write_str(path, "THAWED"));
	EXPECT_TRUE(counter_moves(0)) TH_LOG("the task did not run after the cgroup thaw");
}

/*
 * 4. cgroup v1.  The cgroup going FROZEN while its task already sits in
 * the todo freezer's wait (i.e. during the system freeze) cannot be reached from user space: from the first pass of the freeze to
 * the thaw no user task runs user code, the writer of /sys/power/state is
 * inside that write(), and nothing else (mconsole included) writes
 * freezer.state.  What user space can do is freeze the cgroup before (these
 * two tests) or start the system freeze while the cgroup is still FREEZING
 * (the third).
 *
 * A spinner, frozen by the cgroup through the refrigerator, whose loop
 * rechecks freezing() when the system thaw wakes it.
 */
TEST_F(compat, cgroup1_frozen_spinner_stays_frozen_across_a_system_freeze)
{
	cg1_frozen_across_system_freeze(_metadata, self, 0);
}

/*
 * A sleeper, frozen by the cgroup in place.  Fails with the classic
 * freezer of 6.12 too: thaw_processes() calls __thaw_task() on every task,
 * which restores the saved state of a task frozen in place without asking
 * freezing(), so the sleeper sleeps on, unfrozen, and runs when its sleep
 * ends, its cgroup reading FROZEN.
 */
TEST_F(compat, cgroup1_frozen_sleeper_stays_frozen_across_a_system_freeze)
{
	cg1_frozen_across_system_freeze(_metadata, self, 1);
}

/*
 * The system freeze starts while the cgroup v1 freeze is still under way:
 * its task sleeps uninterruptibly (not freezably) in the test knob, so the
 * cgroup reads FREEZING.  When the sleep ends the task must freeze for
 * both, the system freeze succeeds, and after the system thaw the cgroup
 * reads FROZEN and the task has not run.
 */
TEST_F(compat, cgroup1_freezing_task_stays_frozen_after_the_system_thaw)
{
	char path[192], state[64];
	int ret;

	if (access(KNOB_SLEEP_UNINT, W_OK))
		SKIP(return, "no %s (CONFIG_TODO_FREEZER_TEST)", KNOB_SLEEP_UNINT);
	ret = cg1_setup(self);
	if (ret == -ENODEV || ret == -ENOENT)
		SKIP(return, "no cgroup v1 freezer (CONFIG_CGROUP_FREEZER)");
	ASSERT_EQ(0, ret) TH_LOG("mount -t cgroup -o freezer: %s", strerror(-ret));
	self->child[0] = fork();
	ASSERT_GE(self->child[0], 0);
	if (self->child[0] == 0) {
		while (!sh->ready[0])
			usleep(1000);
		sh->ready[1] = 1;
		/* Well within the freeze timeout, and longer than the setup. */
		write_str(KNOB_SLEEP_UNINT, "1500");
		counting_sleeper(0);
	}
	ASSERT_EQ(0, cg1_add(self, self->child[0]));
	sh->ready[0] = 1;
	ASSERT_TRUE(wait_state(self->child[0], 'D'));
	snprintf(path, sizeof(path), "%s/freezer.state", self->cg1_dir);
	ASSERT_EQ(0, write_str(path, "FROZEN"));
	ASSERT_GT(cg1_state(self, state, sizeof(state)), 0);
	ASSERT_STREQ("FREEZING", state);
	ASSERT_EQ('D', proc_state(self->child[0]));

	EXPECT_EQ(0, freeze(_metadata));

	/* Just thawed, the task may not have gone back to its frozen wait yet. */
	EXPECT_TRUE(wait_file_has(path, "FROZEN"));
	ASSERT_GT(cg1_state(self, state, sizeof(state)), 0);
	usleep(200000);
	EXPECT_EQ(0UL, sh->counter[0])
		TH_LOG("the task ran %lu times after the system thaw, its cgroup %s",
		       sh->counter[0], state);

	ASSERT_EQ(0, write_str(path, "THAWED"));
	EXPECT_TRUE(counter_moves(0)) TH_LOG("the task did not run after the cgroup thaw");
}

/*
 * 3. System calls across a freeze.  The calls, each run by call_*() in a
 * child, with its set-up before slot_begin().
 */
/*
 * Freeze and thaw, into @w; the timeout of each of the @n calls must come
 * due inside the frozen window, or the test could not tell a kept timeout.
 */
static void freeze_with_deadlines_inside(struct __test_metadata *_metadata,
					 const struct call *calls, int n,
					 struct freeze_window *w)
{
	int i;

	freeze_window(_metadata, w);
	for (i = 0; i < n; i++) {
		ASSERT_LT(w->frozen_at_ns, sh->slot[i].deadline_ns) TH_LOG("%s", calls[i].name);
		ASSERT_GT(w->thaw_at_ns, sh->slot[i].deadline_ns) TH_LOG("%s", calls[i].name);
	}
}

static long call_sigtimedwait(const struct call *c, struct call_slot *s)
{
	struct timespec ts = { c->timeout_ms / 1000, (c->timeout_ms % 1000) * 1000000L };
	siginfo_t info;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	slot_begin(s);
	s->deadline_ns = s->start_ns + c->timeout_ms * 1000000LL;
	return syscall(SYS_rt_sigtimedwait, &set, &info, c->timeout_ms < 0 ? NULL : &ts, _NSIG / 8);
}

static long call_recv(const struct call *c, struct call_slot *s)
{
	slot_begin(s);
	s->deadline_ns = s->start_ns + c->timeout_ms * 1000000LL;
	return recv(c->fd, s->buf, c->len, c->flags);
}

static long call_read(const struct call *c, struct call_slot *s)
{
	slot_begin(s);
	s->deadline_ns = s->start_ns + c->timeout_ms * 1000000LL;
	return read(c->fd, s->buf, c->len);
}

static long call_recvmsg(const struct call *c, struct call_slot *s)
{
	struct iovec iov = { .iov_base = s->buf, .iov_len = c->len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

	slot_begin(s);
	s->deadline_ns = s->start_ns + c->timeout_ms * 1000000LL;
	return recvmsg(c->fd, &msg, c->flags);
}

/* An AF_UNIX socket pair of @type, the receive timeout on [0] (0: none). */
static void unix_pair(struct __test_metadata *_metadata, int type, int fds[2], long timeout_ms)
{
	struct timeval tv = { timeout_ms / 1000, (timeout_ms % 1000) * 1000 };

	ASSERT_EQ(0, socketpair(AF_UNIX, type, 0, fds));
	if (timeout_ms)
		ASSERT_EQ(0, setsockopt(fds[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)));
}

/* Fork @n calls and wait until each sleeps in its call. */
static void start_calls(struct __test_metadata *_metadata, FIXTURE_DATA(compat) *self,
			const struct call *calls, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		self->child[i] = fork_call(&calls[i], i);
		ASSERT_GE(self->child[i], 0);
		ASSERT_EQ(0, wait_blocked(self->child[i], i))
			TH_LOG("%s did not block: %ld (%s)", calls[i].name, sh->slot[i].ret,
			       errname(sh->slot[i].err));
	}
	usleep(50000);
}

/* Reap the @n calls' children, each within @ms of now. */
static void reap_calls(struct __test_metadata *_metadata, FIXTURE_DATA(compat) *self,
		       const struct call *calls, int n, int ms)
{
	int i, status;

	for (i = 0; i < n; i++) {
		status = reap_within(self->child[i], ms);
		ASSERT_NE(-1, status) TH_LOG("%s did not return", calls[i].name);
		self->child[i] = 0;
		ASSERT_TRUE(WIFEXITED(status));
	}
}

/*
 * rt_sigtimedwait() sleeps TASK_INTERRUPTIBLE|TASK_FREEZABLE and returns
 * -EINTR itself when woken without a signal (kernel/signal.c,
 * do_sigtimedwait()): a freeze must leave it asleep, and the signal it
 * waits for, sent after the thaw, is what it returns.
 */
TEST_F(compat, sigtimedwait_and_sigwaitinfo_sleep_through_a_freeze)
{
	const struct call calls[] = {
		{ .name = "sigtimedwait(SIGUSR1, 20 s)", .fn = call_sigtimedwait,
		  .timeout_ms = LONG_TIMEOUT_MS },
		{ .name = "sigwaitinfo(SIGUSR1)", .fn = call_sigtimedwait, .timeout_ms = -1 },
	};
	const int n = sizeof(calls) / sizeof(calls[0]);
	struct freeze_window w;
	int i;

	start_calls(_metadata, self, calls, n);
	freeze_window(_metadata, &w);
	expect_still_blocked(_metadata, calls, n, &w);
	for (i = 0; i < n; i++)
		if (!sh->slot[i].done)
			kill(self->child[i], SIGUSR1);
	reap_calls(_metadata, self, calls, n, 3000);
	for (i = 0; i < n; i++) {
		log_call(_metadata, calls[i].name, i, &w);
		expect_ret(_metadata, calls[i].name, i, SIGUSR1, 0);
	}
}

/* Its timeout, due while every task is frozen, ends it with EAGAIN. */
TEST_F(compat, sigtimedwait_timeout_is_kept_across_a_freeze)
{
	const struct call calls[] = {
		{ .name = "sigtimedwait(SIGUSR1, 1 s)", .fn = call_sigtimedwait,
		  .timeout_ms = SHORT_TIMEOUT_MS },
	};
	struct freeze_window w;

	setup_timeout_freeze(_metadata);
	start_calls(_metadata, self, calls, 1);
	freeze_window(_metadata, &w);
	/* Else this did not test a timeout that came due while frozen. */
	ASSERT_LT(w.frozen_at_ns, sh->slot[0].deadline_ns);
	ASSERT_GT(w.thaw_at_ns, sh->slot[0].deadline_ns);
	reap_calls(_metadata, self, calls, 1, 3000);
	log_call(_metadata, calls[0].name, 0, &w);
	expect_ret(_metadata, calls[0].name, 0, -1, EAGAIN);
	expect_deadline_kept(_metadata, calls[0].name, 0, &w, SHORT_TIMEOUT_MS * 1000000LL, 0);
}

/*
 * recv(), read() and recvmsg() on an AF_UNIX stream socket sleep in
 * unix_stream_data_wait(), TASK_INTERRUPTIBLE|TASK_FREEZABLE, and, woken
 * with a receive timeout set, return -EINTR (sock_intr_errno()): a freeze
 * must leave them asleep, and data sent after the thaw is what they get.
 */
TEST_F(compat, unix_stream_recv_with_rcvtimeo_sleeps_through_a_freeze)
{
	struct call calls[] = {
		{ .name = "recv(AF_UNIX stream, SO_RCVTIMEO 20 s)", .fn = call_recv, .len = 5 },
		{ .name = "read(AF_UNIX stream, SO_RCVTIMEO 20 s)", .fn = call_read, .len = 5 },
		{ .name = "recvmsg(AF_UNIX stream, SO_RCVTIMEO 20 s)", .fn = call_recvmsg, .len = 5 },
	};
	const int n = sizeof(calls) / sizeof(calls[0]);
	struct freeze_window w;
	int fds[3][2], i;

	for (i = 0; i < n; i++) {
		unix_pair(_metadata, SOCK_STREAM, fds[i], LONG_TIMEOUT_MS);
		calls[i].fd = fds[i][0];
		calls[i].timeout_ms = LONG_TIMEOUT_MS;
	}
	start_calls(_metadata, self, calls, n);
	freeze_window(_metadata, &w);
	expect_still_blocked(_metadata, calls, n, &w);
	for (i = 0; i < n; i++)
		ASSERT_EQ(5, write(fds[i][1], "hello", 5));
	reap_calls(_metadata, self, calls, n, 3000);
	for (i = 0; i < n; i++) {
		log_call(_metadata, calls[i].name, i, &w);
		expect_ret(_metadata, calls[i].name, i, 5, 0);
		EXPECT_EQ(0, memcmp(sh->slot[i].buf, "hello", 5));
		close(fds[i][0]);
		close(fds[i][1]);
	}
}

/* Their receive timeout, due while every task is frozen, ends them with EAGAIN. */
TEST_F(compat, unix_stream_recv_timeout_is_kept_across_a_freeze)
{
	struct call calls[] = {
		{ .name = "recv(AF_UNIX stream, SO_RCVTIMEO 1 s)", .fn = call_recv, .len = 5 },
		{ .name = "read(AF_UNIX stream, SO_RCVTIMEO 1 s)", .fn = call_read, .len = 5 },
	};
	const int n = sizeof(calls) / sizeof(calls[0]);
	struct freeze_window w;
	int fds[2][2], i;

	setup_timeout_freeze(_metadata);
	for (i = 0; i < n; i++) {
		unix_pair(_metadata, SOCK_STREAM, fds[i], SHORT_TIMEOUT_MS);
		calls[i].fd = fds[i][0];
		calls[i].timeout_ms = SHORT_TIMEOUT_MS;
	}
	start_calls(_metadata, self, calls, n);
	freeze_with_deadlines_inside(_metadata, calls, n, &w);
	reap_calls(_metadata, self, calls, n, 3000);
	for (i = 0; i < n; i++) {
		log_call(_metadata, calls[i].name, i, &w);
		expect_ret(_metadata, calls[i].name, i, -1, EAGAIN);
		expect_deadline_kept(_metadata, calls[i].name, i, &w,
				     SHORT_TIMEOUT_MS * 1000000LL, JIFFY_NS);
		close(fds[i][0]);
		close(fds[i][1]);
	}
}

/*
 * Without a timeout the same sleep is restarted, unless part of the data
 * was already copied: recv(MSG_WAITALL) or a read with SO_RCVLOWAT then
 * returns what it has.  A freeze must not cut such a read short.
 */
TEST_F(compat, unix_stream_waitall_read_is_not_cut_short_by_a_freeze)
{
	struct call calls[] = {
		{ .name = "recv(AF_UNIX stream, 10 bytes, MSG_WAITALL)", .fn = call_recv,
		  .len = 10, .flags = MSG_WAITALL },
		{ .name = "read(AF_UNIX stream, 10 bytes, SO_RCVLOWAT 10)", .fn = call_read,
		  .len = 10 },
	};
	const int n = sizeof(calls) / sizeof(calls[0]);
	struct freeze_window w;
	int fds[2][2], i, lowat = 10;

	for (i = 0; i < n; i++) {
		unix_pair(_metadata, SOCK_STREAM, fds[i], 0);
		calls[i].fd = fds[i][0];
	}
	ASSERT_EQ(0, setsockopt(fds[1][0], SOL_SOCKET, SO_RCVLOWAT, &lowat, sizeof(lowat)));
	start_calls(_metadata, self, calls, n);
	/* The first part: copied, and the call sleeps for the rest. */
	for (i = 0; i < n; i++) {
		ASSERT_EQ(4, write(fds[i][1], "abcd", 4));
		usleep(50000);
		ASSERT_EQ(0, wait_blocked(self->child[i], i));
		ASSERT_EQ(0, sh->slot[i].done);
	}
	freeze_window(_metadata, &w);
	expect_still_blocked(_metadata, calls, n, &w);
	for (i = 0; i < n; i++)
		ASSERT_EQ(6, write(fds[i][1], "efghij", 6));
	reap_calls(_metadata, self, calls, n, 3000);
	for (i = 0; i < n; i++) {
		log_call(_metadata, calls[i].name, i, &w);
		expect_ret(_metadata, calls[i].name, i, 10, 0);
		EXPECT_EQ(0, memcmp(sh->slot[i].buf, "abcdefghij", sh->slot[i].ret > 0 ? sh->slot[i].ret : 0));
		close(fds[i][0]);
		close(fds[i][1]);
	}
}

/* futex() FUTEX_WAIT with a relative timeout, or none (c->timeout_ms < 0). */
static long call_futex_wait(const struct call *c, struct call_slot *s)
{
	struct timespec ts = { c->timeout_ms / 1000, (c->timeout_ms % 1000) * 1000000L };

	slot_begin(s);
	s->deadline_ns = s->start_ns + c->timeout_ms * 1000000LL;
	return syscall(SYS_futex, &sh->futex_word, FUTEX_WAIT, 0,
		       c->timeout_ms < 0 ? NULL : &ts, NULL, 0);
}

/* CLOCK_MONOTONIC @ms from now as a timespec; its ns into *@ns. */
static struct timespec mono_in(long ms, long long *ns)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	*ns = ts.tv_sec * 1000000000LL + ts.tv_nsec;
	return ts;
}

/* FUTEX_WAIT_BITSET: an absolute CLOCK_MONOTONIC timeout. */
static long call_futex_wait_bitset(const struct call *c, struct call_slot *s)
{
	long long deadline;
	struct timespec ts;

	slot_begin(s);
	ts = mono_in(c->timeout_ms, &deadline);
	s->deadline_ns = deadline;
	return syscall(SYS_futex, &sh->futex_word, FUTEX_WAIT_BITSET, 0, &ts, NULL,
		       FUTEX_BITSET_MATCH_ANY);
}

static long call_futex_waitv(const struct call *c, struct call_slot *s)
{
	struct futex_waitv fw = {
		.val = 0, .uaddr = (unsigned long)&sh->futex_word, .flags = FUTEX_32,
	};
	long long deadline;
	struct timespec ts;

	slot_begin(s);
	ts = mono_in(c->timeout_ms, &deadline);
	s->deadline_ns = deadline;
	return syscall(__NR_futex_waitv, &fw, 1, 0, &ts, CLOCK_MONOTONIC);
}

/* wait4() or waitid() for a grandchild that exits 7 once fd has data. */
static long call_wait(const struct call *c, struct call_slot *s)
{
	pid_t pid = fork();
	siginfo_t si;
	int status = 0;
	long ret;
	char ch;

	if (pid == 0) {
		_exit(read(c->fd, &ch, 1) == 1 ? 7 : 2);
	}
	s->aux = pid;
	slot_begin(s);
	if (c->flags) {
		memset(&si, 0, sizeof(si));
		ret = waitid(P_PID, pid, &si, WEXITED);
		if (!ret && si.si_pid == pid && si.si_code == CLD_EXITED)
			s->buf[0] = si.si_status;
		return ret;
	}
	ret = wait4(pid, &status, 0, NULL);
	if (ret == pid && WIFEXITED(status))
		s->buf[0] = WEXITSTATUS(status);
	return ret;
}

/*
 * futex waits and wait4()/waitid() sleep TASK_INTERRUPTIBLE|TASK_FREEZABLE
 * and, woken, return restart codes (-ERESTARTSYS, a restart block): both
 * freezers must leave them asleep, or restart them unseen.
 */
TEST_F(compat, futex_and_wait_sleep_through_a_freeze)
{
	struct call calls[] = {
		{ .name = "FUTEX_WAIT", .fn = call_futex_wait, .timeout_ms = -1 },
		{ .name = "FUTEX_WAIT, 20 s", .fn = call_futex_wait, .timeout_ms = LONG_TIMEOUT_MS },
		{ .name = "FUTEX_WAIT_BITSET, 20 s absolute", .fn = call_futex_wait_bitset,
		  .timeout_ms = LONG_TIMEOUT_MS },
		{ .name = "futex_waitv, 20 s absolute", .fn = call_futex_waitv,
		  .timeout_ms = LONG_TIMEOUT_MS },
		{ .name = "wait4", .fn = call_wait },
		{ .name = "waitid", .fn = call_wait, .flags = 1 },
	};
	const int n = sizeof(calls) / sizeof(calls[0]);
	struct freeze_window w;
	int fds[2][2], i;

	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, pipe(fds[i]));
		calls[4 + i].fd = fds[i][0];
	}
	sh->futex_word = 0;
	start_calls(_metadata, self, calls, n);
	freeze_window(_metadata, &w);
	expect_still_blocked(_metadata, calls, n, &w);

	sh->futex_word = 1;
	syscall(SYS_futex, &sh->futex_word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	for (i = 0; i < 2; i++)
		ASSERT_EQ(1, write(fds[i][1], "x", 1));
	reap_calls(_metadata, self, calls, n, 3000);
	for (i = 0; i < n; i++) {
		log_call(_metadata, calls[i].name, i, &w);
		if (i < 4) {
			expect_ret(_metadata, calls[i].name, i, 0, 0);
		} else {
			expect_ret(_metadata, calls[i].name, i, i == 4 ? sh->slot[i].aux : 0, 0);
			EXPECT_EQ(7, sh->slot[i].buf[0]) TH_LOG("%s: exit status %d", calls[i].name,
							      sh->slot[i].buf[0]);
		}
	}
	for (i = 0; i < 2; i++) {
		close(fds[i][0]);
		close(fds[i][1]);
	}
}

static long call_clock_nanosleep(const struct call *c, struct call_slot *s)
{
	struct timespec ts = { c->timeout_ms / 1000, (c->timeout_ms % 1000) * 1000000L }, rem;
	long long deadline;
	int ret;

	if (c->flags & TIMER_ABSTIME) {
		slot_begin(s);
		ts = mono_in(c->timeout_ms, &deadline);
		s->deadline_ns = deadline;
	} else {
		slot_begin(s);
		s->deadline_ns = s->start_ns + c->timeout_ms * 1000000LL;
	}
	/* clock_nanosleep() returns the error; make it look like a syscall's. */
	ret = clock_nanosleep(CLOCK_MONOTONIC, c->flags, &ts, &rem);
	if (ret) {
		errno = ret;
		return -1;
	}
	return 0;
}

static long call_nanosleep(const struct call *c, struct call_slot *s)
{
	struct timespec ts = { c->timeout_ms / 1000, (c->timeout_ms % 1000) * 1000000L }, rem;

	slot_begin(s);
	s->deadline_ns = s->start_ns + c->timeout_ms * 1000000LL;
	return nanosleep(&ts, &rem);
}

/*
 * The freezable, restarted sleeps with a timeout that comes due while
 * every task is frozen: each ends at its time with its usual result.
 */
TEST_F(compat, freezable_sleep_timeouts_are_kept_across_a_freeze)
{
	const struct call calls[] = {
		{ .name = "FUTEX_WAIT, 1 s", .fn = call_futex_wait, .timeout_ms = SHORT_TIMEOUT_MS },
		{ .name = "FUTEX_WAIT_BITSET, 1 s absolute", .fn = call_futex_wait_bitset,
		  .timeout_ms = SHORT_TIMEOUT_MS },
		{ .name = "futex_waitv, 1 s absolute", .fn = call_futex_waitv,
		  .timeout_ms = SHORT_TIMEOUT_MS },
		{ .name = "clock_nanosleep, 1 s", .fn = call_clock_nanosleep,
		  .timeout_ms = SHORT_TIMEOUT_MS },
		{ .name = "clock_nanosleep, 1 s absolute", .fn = call_clock_nanosleep,
		  .timeout_ms = SHORT_TIMEOUT_MS, .flags = TIMER_ABSTIME },
		{ .name = "nanosleep, 1 s", .fn = call_nanosleep, .timeout_ms = SHORT_TIMEOUT_MS },
	};
	const int n = sizeof(calls) / sizeof(calls[0]);
	struct freeze_window w;
	int i;

	setup_timeout_freeze(_metadata);
	sh->futex_word = 0;
	start_calls(_metadata, self, calls, n);
	freeze_with_deadlines_inside(_metadata, calls, n, &w);
	reap_calls(_metadata, self, calls, n, 3000);
	for (i = 0; i < n; i++) {
		log_call(_metadata, calls[i].name, i, &w);
		if (i < 3)
			expect_ret(_metadata, calls[i].name, i, -1, ETIMEDOUT);
		else
			expect_ret(_metadata, calls[i].name, i, 0, 0);
		expect_deadline_kept(_metadata, calls[i].name, i, &w,
				     SHORT_TIMEOUT_MS * 1000000LL, 0);
	}
}

static long call_poll(const struct call *c, struct call_slot *s)
{
	struct pollfd p = { .fd = c->fd, .events = POLLIN };

	slot_begin(s);
	s->deadline_ns = s->start_ns + c->timeout_ms * 1000000LL;
	return poll(&p, 1, c->timeout_ms);
}

static long call_select(const struct call *c, struct call_slot *s)
{
	struct timeval tv = { c->timeout_ms / 1000, (c->timeout_ms % 1000) * 1000 };
	fd_set set;
	long ret;

	FD_ZERO(&set);
	FD_SET(c->fd, &set);
	slot_begin(s);
	s->deadline_ns = s->start_ns + c->timeout_ms * 1000000LL;
	ret = select(c->fd + 1, &set, NULL, NULL, c->timeout_ms < 0 ? NULL : &tv);
	/* What is left of the timeout, as select() updates it. */
	s->aux = tv.tv_sec * 1000000L + tv.tv_usec;
	return ret;
}

static long call_msgrcv(const struct call *c, struct call_slot *s)
{
	struct { long mtype; char mtext[16]; } msg;
	long ret;

	slot_begin(s);
	ret = msgrcv(c->id, &msg, sizeof(msg.mtext), 0, 0);
	if (ret > 0)
		memcpy(s->buf, msg.mtext, ret);
	return ret;
}

static long call_mq_receive(const struct call *c, struct call_slot *s)
{
	struct timespec ts;
	long long mono;

	if (c->timeout_ms < 0) {
		slot_begin(s);
		return mq_receive(c->fd, s->buf, 16, NULL);
	}
	/* mq_timedreceive() takes CLOCK_REALTIME: the same interval. */
	clock_gettime(CLOCK_REALTIME, &ts);
	slot_begin(s);
	mono_in(c->timeout_ms, &mono);
	s->deadline_ns = mono;
	ts.tv_sec += c->timeout_ms / 1000;
	ts.tv_nsec += (c->timeout_ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return mq_timedreceive(c->fd, s->buf, 16, NULL, &ts);
}

static long call_flock(const struct call *c, struct call_slot *s)
{
	int fd = open(LOCK_FILE, O_RDWR);

	slot_begin(s);
	return flock(fd, LOCK_EX);
}

static long call_fcntl_setlkw(const struct call *c, struct call_slot *s)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int fd = open(LOCK_FILE, O_RDWR);

	slot_begin(s);
	return fcntl(fd, F_SETLKW, &fl);
}

static long call_accept(const struct call *c, struct call_slot *s)
{
	slot_begin(s);
	s->deadline_ns = s->start_ns + c->timeout_ms * 1000000LL;
	return accept(c->fd, NULL, NULL);
}

static void note_usr1(int sig)
{
	sh->usr1++;
}

static long call_pause(const struct call *c, struct call_slot *s)
{
	struct sigaction sa = { .sa_handler = note_usr1 };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	slot_begin(s);
	return pause();
}

static long call_signalfd_read(const struct call *c, struct call_slot *s)
{
	struct signalfd_siginfo si;
	sigset_t set;
	int fd;
	long ret;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, NULL);
	fd = signalfd(-1, &set, 0);
	slot_begin(s);
	ret = read(fd, &si, sizeof(si));
	if (ret == sizeof(si))
		s->aux = si.ssi_signo;
	return ret;
}

/* A listening AF_UNIX socket (abstract name), receive timeout @timeout_ms. */
static int unix_listener(struct __test_metadata *_metadata, struct sockaddr_un *addr,
			 const char *tag, long timeout_ms)
{
	struct timeval tv = { timeout_ms / 1000, (timeout_ms % 1000) * 1000 };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	memset(addr, 0, sizeof(*addr));
	addr->sun_family = AF_UNIX;
	snprintf(addr->sun_path + 1, sizeof(addr->sun_path) - 1, "freeze_compat.%s.%d",
		 tag, getpid());
	if (fd < 0 || bind(fd, (struct sockaddr *)addr, sizeof(*addr)) || listen(fd, 4))
		return -1;
	if (timeout_ms && setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
		return -1;
	return fd;
}

/*
 * Sleeps that are not freezable: both freezers wake them (the classic one
 * with its fake signal) and these restart, so a freeze is invisible; woken
 * the normal way after the thaw, each returns its normal result.
 */
TEST_F(compat, restarted_sleeps_are_invisible)
{
	struct call calls[] = {
		{ .name = "read(pipe)", .fn = call_read, .len = 5 },
		{ .name = "poll(pipe, no timeout)", .fn = call_poll, .timeout_ms = -1 },
		{ .name = "select(pipe, no timeout)", .fn = call_select, .timeout_ms = -1 },
		{ .name = "msgrcv", .fn = call_msgrcv },
		{ .name = "mq_receive", .fn = call_mq_receive, .timeout_ms = -1 },
		{ .name = "flock(LOCK_EX)", .fn = call_flock },
		{ .name = "fcntl(F_SETLKW)", .fn = call_fcntl_setlkw },
		{ .name = "accept(AF_UNIX, no timeout)", .fn = call_accept },
		{ .name = "read(eventfd)", .fn = call_read, .len = 8 },
		{ .name = "read(signalfd)", .fn = call_signalfd_read },
		{ .name = "pause (SIGUSR1 handler)", .fn = call_pause },
	};
	const int n = sizeof(calls) / sizeof(calls[0]);
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	struct mq_attr attr = { .mq_maxmsg = 4, .mq_msgsize = 16 };
	struct { long mtype; char mtext[16]; } msg = { .mtype = 1 };
	int p[3][2], lock_fd, lock_fd2, conn, i;
	struct sockaddr_un addr;
	struct freeze_window w;
	uint64_t one = 1;
	long long woken;
	mqd_t mq;

	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, pipe(p[i]));
		calls[i].fd = p[i][0];
	}
	self->msg_id = msgget(IPC_PRIVATE, 0600);
	ASSERT_LE(0, self->msg_id) TH_LOG("msgget: %s (CONFIG_SYSVIPC)", strerror(errno));
	calls[3].id = self->msg_id;
	snprintf(self->mq_name, sizeof(self->mq_name), "/freeze_compat.%d", getpid());
	mq = mq_open(self->mq_name, O_CREAT | O_RDWR, 0600, &attr);
	ASSERT_NE((mqd_t)-1, mq) TH_LOG("mq_open: %s (CONFIG_POSIX_MQUEUE)", strerror(errno));
	calls[4].fd = mq;
	lock_fd = open(LOCK_FILE, O_RDWR | O_CREAT, 0600);
	ASSERT_LE(0, lock_fd);
	self->lock_file = 1;
	ASSERT_EQ(0, flock(lock_fd, LOCK_EX));
	lock_fd2 = open(LOCK_FILE, O_RDWR);
	ASSERT_LE(0, lock_fd2);
	ASSERT_EQ(0, fcntl(lock_fd2, F_SETLK, &fl));
	calls[7].fd = unix_listener(_metadata, &addr, "accept", 0);
	ASSERT_LE(0, calls[7].fd);
	calls[8].fd = eventfd(0, 0);
	ASSERT_LE(0, calls[8].fd);

	start_calls(_metadata, self, calls, n);
	freeze_window(_metadata, &w);
	expect_still_blocked(_metadata, calls, n, &w);

	woken = now_ns();
	for (i = 0; i < 3; i++)
		ASSERT_EQ(5, write(p[i][1], "hello", 5));
	memcpy(msg.mtext, "hello", 5);
	ASSERT_EQ(0, msgsnd(self->msg_id, &msg, 5, 0));
	ASSERT_EQ(0, mq_send(mq, "hello", 5, 0));
	ASSERT_EQ(0, flock(lock_fd, LOCK_UN));
	fl.l_type = F_UNLCK;
	ASSERT_EQ(0, fcntl(lock_fd2, F_SETLK, &fl));
	conn = socket(AF_UNIX, SOCK_STREAM, 0);
	ASSERT_EQ(0, connect(conn, (struct sockaddr *)&addr, sizeof(addr)));
	ASSERT_EQ(8, write(calls[8].fd, &one, 8));
	ASSERT_EQ(0, kill(self->child[9], SIGUSR2));
	ASSERT_EQ(0, kill(self->child[10], SIGUSR1));
	reap_calls(_metadata, self, calls, n, 3000);
	for (i = 0; i < n; i++)
		log_call(_metadata, calls[i].name, i, &w);
	for (i = 0; i < 3; i++) {
		expect_ret(_metadata, calls[i].name, i, i ? 1 : 5, 0);
	}
	EXPECT_EQ(0, memcmp(sh->slot[0].buf, "hello", 5));
	expect_ret(_metadata, calls[3].name, 3, 5, 0);
	expect_ret(_metadata, calls[4].name, 4, 5, 0);
	expect_ret(_metadata, calls[5].name, 5, 0, 0);
	expect_ret(_metadata, calls[6].name, 6, 0, 0);
	EXPECT_LE(0, sh->slot[7].ret) TH_LOG("accept: %s", errname(sh->slot[7].err));
	expect_ret(_metadata, calls[8].name, 8, 8, 0);
	expect_ret(_metadata, calls[9].name, 9, sizeof(struct signalfd_siginfo), 0);
	EXPECT_EQ(SIGUSR2, sh->slot[9].aux);
	/* pause() returns -1/EINTR once its handler ran: after the wake, only. */
	expect_ret(_metadata, calls[10].name, 10, -1, EINTR);
	EXPECT_EQ(1, sh->usr1);
	EXPECT_GT(sh->slot[10].end_ns, woken) TH_LOG("pause() ended before SIGUSR1");
	close(conn);
	close(calls[7].fd);
	close(calls[8].fd);
	close(lock_fd);
	close(lock_fd2);
	mq_close(mq);
	for (i = 0; i < 3; i++) {
		close(p[i][0]);
		close(p[i][1]);
	}
}

/* The same sleeps with a timeout that comes due while every task is frozen. */
TEST_F(compat, restarted_sleep_timeouts_are_kept_across_a_freeze)
{
	struct call calls[] = {
		{ .name = "poll(pipe, 1 s)", .fn = call_poll, .timeout_ms = SHORT_TIMEOUT_MS },
		{ .name = "select(pipe, 1 s)", .fn = call_select, .timeout_ms = SHORT_TIMEOUT_MS },
		{ .name = "mq_timedreceive(1 s)", .fn = call_mq_receive,
		  .timeout_ms = SHORT_TIMEOUT_MS },
	};
	const int n = sizeof(calls) / sizeof(calls[0]);
	struct mq_attr attr = { .mq_maxmsg = 4, .mq_msgsize = 16 };
	struct freeze_window w;
	int p[2][2], i;
	mqd_t mq;

	setup_timeout_freeze(_metadata);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, pipe(p[i]));
		calls[i].fd = p[i][0];
	}
	snprintf(self->mq_name, sizeof(self->mq_name), "/freeze_compat.%d", getpid());
	mq = mq_open(self->mq_name, O_CREAT | O_RDWR, 0600, &attr);
	ASSERT_NE((mqd_t)-1, mq) TH_LOG("mq_open: %s (CONFIG_POSIX_MQUEUE)", strerror(errno));
	calls[2].fd = mq;
	start_calls(_metadata, self, calls, n);
	freeze_with_deadlines_inside(_metadata, calls, n, &w);
	reap_calls(_metadata, self, calls, n, 3000);
	for (i = 0; i < n; i++) {
		log_call(_metadata, calls[i].name, i, &w);
		if (i < 2)
			expect_ret(_metadata, calls[i].name, i, 0, 0);
		else
			expect_ret(_metadata, calls[i].name, i, -1, ETIMEDOUT);
		if (i != 1)
			expect_deadline_kept(_metadata, calls[i].name, i, &w,
					     SHORT_TIMEOUT_MS * 1000000LL, 0);
	}
	/*
	 * select() is different: woken by the freezer, it writes back what
	 * is left of its timeout and is restarted with that, relative to the
	 * restart, after the thaw.  So its timeout is extended by the time it
	 * spent frozen: with the classic freezer's fake signal, as with any
	 * signal that has no handler.  What was left when it was woken is at
	 * least its deadline less the time every task was frozen.
	 */
	if (sh->slot[1].done) {
		const struct call_slot *sel = &sh->slot[1];
		long long left = sel->deadline_ns - w.frozen_at_ns;

		TH_LOG("select: %.3f ms left at the freeze at least, returned %.3f ms after the thaw began",
		       left / 1e6, (sel->end_ns - w.thaw_at_ns) / 1e6);
		EXPECT_GE(sel->end_ns, sel->deadline_ns);
		EXPECT_GE(sel->end_ns, w.thaw_at_ns + left - 1000000LL)
			TH_LOG("select() was not restarted with what was left of its timeout");
		EXPECT_LT(sel->end_ns, w.thaw_at_ns + 2 * SHORT_TIMEOUT_MS * 1000000LL)
			TH_LOG("select() ended %.3f ms after the thaw", (sel->end_ns - w.thaw_at_ns) / 1e6);
		EXPECT_EQ(0, sel->aux) TH_LOG("select() left %ld us of its timeout", sel->aux);
	}
	mq_close(mq);
	for (i = 0; i < 2; i++) {
		close(p[i][0]);
		close(p[i][1]);
	}
}

static long call_epoll_wait(const struct call *c, struct call_slot *s)
{
	struct epoll_event ev = { .events = EPOLLIN }, out;
	int ep = epoll_create1(0);

	epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev);
	slot_begin(s);
	return epoll_wait(ep, &out, 1, c->timeout_ms);
}

static long call_semtimedop(const struct call *c, struct call_slot *s)
{
	struct timespec ts = { c->timeout_ms / 1000, (c->timeout_ms % 1000) * 1000000L };
	struct sembuf op = { .sem_num = 0, .sem_op = -1 };

	slot_begin(s);
	return semtimedop(c->id, &op, 1, c->timeout_ms < 0 ? NULL : &ts);
}

/* io_getevents() on an aio poll of fd (aio contexts do not survive fork()). */
static long call_io_getevents(const struct call *c, struct call_slot *s)
{
	struct timespec ts = { c->timeout_ms / 1000, (c->timeout_ms % 1000) * 1000000L };
	struct iocb cb, *cbs[1] = { &cb };
	aio_context_t ctx = 0;
	struct io_event ev;

	if (syscall(__NR_io_setup, 1, &ctx))
		return -1;
	memset(&cb, 0, sizeof(cb));
	cb.aio_lio_opcode = IOCB_CMD_POLL;
	cb.aio_fildes = c->fd;
	cb.aio_buf = POLLIN;
	if (syscall(__NR_io_submit, ctx, 1, cbs) != 1)
		return -1;
	slot_begin(s);
	return syscall(__NR_io_getevents, ctx, 1, 1, &ev, &ts);
}

/*
 * Sleeps that are not freezable and return EINTR themselves when woken by
 * a signal: the classic freezer's fake signal ends them with EINTR, which
 * user space sees after the thaw (the task froze on its way out).  The
 * classic freezer already differs from no freeze here, and the todo
 * freezer must do exactly the same.
 */
TEST_F(compat, eintr_from_unfreezable_sleeps_is_the_same_for_both_freezers)
{
	struct call calls[] = {
		{ .name = "epoll_wait(20 s)", .fn = call_epoll_wait, .timeout_ms = LONG_TIMEOUT_MS },
		{ .name = "semop", .fn = call_semtimedop, .timeout_ms = -1 },
		{ .name = "semtimedop(20 s)", .fn = call_semtimedop, .timeout_ms = LONG_TIMEOUT_MS },
		{ .name = "io_getevents(20 s)", .fn = call_io_getevents,
		  .timeout_ms = LONG_TIMEOUT_MS },
		{ .name = "accept(AF_UNIX, SO_RCVTIMEO 20 s)", .fn = call_accept,
		  .timeout_ms = LONG_TIMEOUT_MS },
		{ .name = "recv(AF_UNIX datagram, SO_RCVTIMEO 20 s)", .fn = call_recv, .len = 5,
		  .timeout_ms = LONG_TIMEOUT_MS },
	};
	const int n = sizeof(calls) / sizeof(calls[0]);
	struct freeze_window w;
	struct sockaddr_un addr;
	int p[2][2], dgram[2], i;

	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, pipe(p[i]));
	calls[0].fd = p[0][0];
	calls[3].fd = p[1][0];
	self->sem_id = semget(IPC_PRIVATE, 1, 0600);
	ASSERT_LE(0, self->sem_id) TH_LOG("semget: %s (CONFIG_SYSVIPC)", strerror(errno));
	calls[1].id = calls[2].id = self->sem_id;
	calls[4].fd = unix_listener(_metadata, &addr, "accept_timeo", LONG_TIMEOUT_MS);
	ASSERT_LE(0, calls[4].fd);
	unix_pair(_metadata, SOCK_DGRAM, dgram, LONG_TIMEOUT_MS);
	calls[5].fd = dgram[0];

	start_calls(_metadata, self, calls, n);
	freeze_window(_metadata, &w);
	reap_calls(_metadata, self, calls, n, 3000);
	for (i = 0; i < n; i++) {
		log_call(_metadata, calls[i].name, i, &w);
		expect_ret(_metadata, calls[i].name, i, -1, EINTR);
		/* It ended at the freeze, but user space saw it after the thaw. */
		EXPECT_GT(sh->slot[i].end_ns, w.thaw_at_ns)
			TH_LOG("%s returned %.3f ms before the thaw", calls[i].name,
			       (w.thaw_at_ns - sh->slot[i].end_ns) / 1e6);
	}
	close(calls[4].fd);
	close(dgram[0]);
	close(dgram[1]);
	for (i = 0; i < 2; i++) {
		close(p[i][0]);
		close(p[i][1]);
	}
}

/*
 * 5. OOM: a task frozen by the system freeze (parked in pause(), so both
 * freezers freeze it through their own path, not in place) is chosen by
 * the OOM killer while the freeze is still waiting for a memory hog stuck
 * in one long mmap(MAP_POPULATE).  mark_oom_victim() thaws the victim: it
 * must leave the frozen state and exit, so that oom_killer_disable(),
 * called once user space is frozen, finds no victim left and the freeze
 * succeeds.
 *
 * Without MEMCG (not in our configs) this is a global OOM: the victim holds
 * 40% of MemAvailable, the hog asks for 80%; oom_score_adj makes the victim
 * the only choice (1000) and everything else of this program unkillable
 * (-1000).  The victim's memory is reaped by the oom_reaper, so the hog's
 * populate then succeeds and nothing else is killed.
 */
TEST_F_TIMEOUT(compat, oom_victim_frozen_by_the_freeze_exits_and_the_freeze_succeeds, 120)
{
	struct sched_param fifo = { .sched_priority = 10 }, other = { .sched_priority = 0 };
	long avail_kb = meminfo_kb("MemAvailable");
	size_t victim_sz, hog_sz;
	const char *begin, *killed, *done;
	char needle[64], *log;
	int fds[2], ret, status, tries;
	long long t0, took = 0;
	pid_t victim;

	ASSERT_GT(avail_kb, 65536) TH_LOG("MemAvailable: %ld kB", avail_kb);
	victim_sz = (size_t)avail_kb * 1024 / 100 * 40;
	hog_sz = (size_t)avail_kb * 1024 / 100 * 80;
	TH_LOG("MemAvailable %ld kB: victim %zu MB, hog %zu MB", avail_kb, victim_sz >> 20, hog_sz >> 20);
	ASSERT_EQ(0, write_str("/proc/self/oom_score_adj", "-1000"));
	ASSERT_EQ(0, save_and_set(PM_FREEZE_TIMEOUT, self->saved_freeze_timeout,
				  sizeof(self->saved_freeze_timeout), OOM_FREEZE_TIMEOUT_MS));
	ASSERT_EQ(0, pipe(fds));

	self->child[0] = fork();
	ASSERT_GE(self->child[0], 0);
	if (self->child[0] == 0) {
		char *mem;

		if (write_str("/proc/self/oom_score_adj", "1000"))
			_exit(2);
		mem = mmap(NULL, victim_sz, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (mem == MAP_FAILED)
			_exit(3);
		memset(mem, 1, victim_sz);
		sh->ready[0] = 1;
		for (;;)
			pause();
	}
	self->child[1] = fork();
	ASSERT_GE(self->child[1], 0);
	if (self->child[1] == 0) {
		char c;
		void *mem;

		close(fds[1]);
		if (read(fds[0], &c, 1) != 1)
			_exit(2);
		t0 = now_ns();
		sh->ready[1] = 1;
		mem = mmap(NULL, hog_sz, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		sh->hog_ns = now_ns() - t0;
		sh->hog_done = mem == MAP_FAILED ? -1 : 1;
		for (;;)
			pause();
	}
	close(fds[0]);
	for (tries = 0; tries < 6000 && !sh->ready[0]; tries++)
		usleep(5000);
	ASSERT_TRUE(sh->ready[0]) TH_LOG("the victim did not touch its memory within 30 s");
	ASSERT_TRUE(wait_state(self->child[0], 'S'));
	ASSERT_TRUE(wait_state(self->child[1], 'S'));

	dmesg_clear();
	/*
	 * Start the freeze while the hog is inside its mmap(), well before
	 * it runs out of memory: as a SCHED_FIFO task, this one runs as soon
	 * as its short sleeps end, whatever the hog does.
	 */
	ASSERT_EQ(0, sched_setscheduler(0, SCHED_FIFO, &fifo));
	ret = write(fds[1], "x", 1) == 1 ? 0 : -EIO;
	for (tries = 0; !ret && tries < 2000 && !sh->ready[1]; tries++)
		usleep(1000);
	if (!ret && sh->ready[1]) {
		usleep(HOG_HEAD_START_US);
		t0 = now_ns();
		ret = sh->hog_done ? -EALREADY : freeze_thaw();
		took = now_ns() - t0;
	}
	sched_setscheduler(0, SCHED_OTHER, &other);
	ASSERT_NE(-EALREADY, ret) TH_LOG("the hog's populate ended before the freeze began");
	ASSERT_TRUE(sh->ready[1]) TH_LOG("the hog did not start");
	TH_LOG("freeze round trip: %s, %.3f ms", ret ? errname(-ret) : "0", took / 1e6);

	victim = self->child[0];
	status = reap_within(victim, 10000);
	ASSERT_NE(-1, status) TH_LOG("the victim did not exit within 10 s of the thaw");
	self->child[0] = 0;
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
		TH_LOG("the victim ended with status %#x, not killed", status);
	for (tries = 0; tries < 2000 && !sh->hog_done; tries++)
		usleep(5000);
	TH_LOG("the hog's populate: %s after %.3f ms", sh->hog_done == 1 ? "done" :
	       sh->hog_done ? "failed" : "not done", sh->hog_ns / 1e6);
	EXPECT_EQ(1, sh->hog_done);

	/* The kill came while the freeze was freezing user space. */
	log = dmesg_read();
	ASSERT_NE(NULL, log);
	snprintf(needle, sizeof(needle), "Killed process %d ", victim);
	begin = strstr(log, "Freezing user space processes");
	killed = strstr(log, needle);
	done = begin ? strstr(begin + 1, "Freezing user space processes completed") : NULL;
	EXPECT_NE(NULL, killed) TH_LOG("no \"%s\" in the kernel log", needle);
	if (!killed)
		log_kernel_lines(log, "Killed process", 4);
	EXPECT_NE(NULL, begin);
	if (killed && begin)
		EXPECT_LT(begin, killed) TH_LOG("the OOM kill came before the freeze began");
	if (killed && done)
		EXPECT_LT(killed, done) TH_LOG("the OOM kill came after user space was frozen");
	if (killed)
		log_kernel_lines(killed, "Killed process", 1);
	log_kernel_lines(log, "Freezing", 4);
	log_kernel_lines(log, "OOM killer", 2);
	free(log);
	EXPECT_EQ(0, ret) TH_LOG("the freeze failed: oom_killer_disable() waited for the victim");
	close(fds[1]);
}

/*
 * 6. A freezable kernel thread in an uninterruptible sleep with a timeout,
 * as threads polling hardware sleep: both freezers wake it from any sleep
 * (TASK_NORMAL), so it reaches its checkpoint at once instead of after its
 * timeout.  The nap is longer than the freeze timeout: a freezer that only
 * woke interruptible sleepers would fail with EBUSY naming todo_napper.
 */
TEST_F_TIMEOUT(compat, kthread_in_uninterruptible_timed_sleep_freezes_at_once, 90)
{
	long long started, gone_ns;
	struct freeze_window w;
	int count;
	pid_t pid;

	if (access(KNOB_NAPPING_KTHREAD, W_OK))
		SKIP(return, "no %s (CONFIG_TODO_FREEZER_TEST)", KNOB_NAPPING_KTHREAD);
	find_kthread("todo_napper", &count);
	ASSERT_EQ(0, count) TH_LOG("a todo_napper thread is left from before");
	ASSERT_EQ(0, save_and_set(PM_FREEZE_TIMEOUT, self->saved_freeze_timeout,
				  sizeof(self->saved_freeze_timeout), NAP_FREEZE_TIMEOUT_MS));
	started = now_ns();
	pid = start_knob_kthread(KNOB_NAPPING_KTHREAD, "todo_napper", NAP_MS);
	ASSERT_NE(0, pid) TH_LOG("no todo_napper thread");
	ASSERT_TRUE(wait_state(pid, 'D'));

	EXPECT_EQ(0, freeze(_metadata))
		TH_LOG("a kernel thread napping %d ms uninterruptibly held up the freeze for its %d ms timeout",
		       NAP_MS, NAP_FREEZE_TIMEOUT_MS);
	ASSERT_EQ(0, last_freeze_window(&w));

	/* Woken by the freeze, frozen, thawed: it exits long before its nap ends. */
	ASSERT_TRUE(kthread_gone_by(pid, "todo_napper", started + (NAP_MS + 2000) * 1000000LL))
		TH_LOG("todo_napper did not exit");
	gone_ns = now_ns();
	TH_LOG("todo_napper exited %.3f ms after it started, %.3f ms after the thaw began",
	       (gone_ns - started) / 1e6, (gone_ns - w.thaw_at_ns) / 1e6);
	/* schedule_timeout() never returns early unless the task is woken. */
	EXPECT_LT(gone_ns - started, NAP_MS * 1000000LL)
		TH_LOG("todo_napper slept its whole nap: no freezer woke it");
}

/*
 * 7. Core dumps.  A process of a few threads with a large anonymous mapping
 * aborts and dumps core while the freeze starts.  The dumping thread runs
 * in do_coredump(), not asleep freezably: dump_emit() stops the dump when
 * dump_interrupted() sees task_sigpending(), which the classic freezer's
 * fake signal sets, so the classic freezer truncates the core and the
 * freeze does not wait for the dump.  The other threads wait freezably in
 * coredump_task_exit() and are frozen in place.  To a file (tmpfs) and to
 * a pipe (core_pattern "|helper", a reader slower than the dump): the
 * freeze succeeds, and the core is truncated with both freezers.
 */

static void *core_thread(void *arg)
{
	for (;;)
		pause();
	return arg;
}

/*
 * The crashing child: CORE_THREADS threads, @mb MiB of anonymous memory
 * written, then abort().  It dumps core with RLIMIT_CORE unlimited.
 */
static __attribute__((noreturn)) void core_crasher(size_t mb)
{
	struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };
	pthread_t t;
	size_t i, len = mb << 20;
	char *p;

	if (setrlimit(RLIMIT_CORE, &rl))
		_exit(2);
	for (i = 0; i < CORE_THREADS; i++)
		if (pthread_create(&t, NULL, core_thread, NULL))
			_exit(3);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		_exit(4);
	for (i = 0; i < len; i += 4096)
		p[i] = (char)(i >> 12) | 1;
	sh->ready[0] = 1;
	while (!sh->ready[1])
		usleep(1000);
	abort();
}

/*
 * The core_pattern pipe helper ("freeze_compat coredump-reader"): reads
 * the core from stdin, PIPE_READER_CHUNK bytes and then a nap at a time,
 * so that the dump waits for it in pipe_write(); writes PIPE_CORE_STARTED
 * after the first MiB and the byte count to PIPE_CORE_BYTES at the end.
 */
static int coredump_reader(void)
{
	static char buf[PIPE_READER_CHUNK];
	long long total = 0;
	char text[32];
	int started = 0, fd;
	ssize_t n;

	for (;;) {
		n = read(0, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		total += n;
		if (!started && total >= (1 << 20)) {
			close(open(PIPE_CORE_STARTED, O_WRONLY | O_CREAT, 0644));
			started = 1;
		}
		usleep(PIPE_READER_NAP_US);
	}
	snprintf(text, sizeof(text), "%lld\n", total);
	/* Written whole, then renamed: the test reads it as soon as it exists. */
	fd = open(PIPE_CORE_BYTES ".tmp", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, text, strlen(text)) < 0)
		return 1;
	close(fd);
	return rename(PIPE_CORE_BYTES ".tmp", PIPE_CORE_BYTES) ? 1 : 0;
}

/* Size of @path, or -1. */
static long long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (long long)st.st_size;
}

/* Set core_pattern to @pattern, saving the old one in the fixture. */
static int set_core_pattern(FIXTURE_DATA(compat) *self, const char *pattern)
{
	if (!self->saved_core_pattern[0]) {
		if (read_str(CORE_PATTERN, self->saved_core_pattern,
			     sizeof(self->saved_core_pattern)) <= 0)
			return -1;
		self->saved_core_pattern[strcspn(self->saved_core_pattern, "\n")] = 0;
	}
	return write_str(CORE_PATTERN, pattern);
}

/* Fork the crasher of @mb MiB; it aborts once told to (sh->ready[1]). */
static pid_t start_crasher(struct __test_metadata *_metadata, FIXTURE_DATA(compat) *self,
			   size_t mb)
{
	int tries;

	sh->ready[0] = sh->ready[1] = 0;
	self->child[0] = fork();
	if (self->child[0] == 0)
		core_crasher(mb);
	for (tries = 0; tries < 6000 && !sh->ready[0]; tries++)
		usleep(5000);
	return sh->ready[0] ? self->child[0] : -1;
}

/*
 * Log the state and wchan of every thread of @pid; how many are in one of
 * the @states.
 */
static int log_threads(struct __test_metadata *_metadata, pid_t pid, const char *when,
		       const char *states)
{
	char path[96], wchan[64];
	struct dirent *de;
	int n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((de = readdir(dir))) {
		pid_t tid;
		char st;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		tid = atoi(de->d_name);
		st = proc_state(tid);
		if (proc_wchan(tid, wchan, sizeof(wchan)) < 0)
			strcpy(wchan, "?");
		TH_LOG("%s: thread %d state '%c' wchan %s", when, tid, st, wchan);
		n += st && strchr(states, st) != NULL;
	}
	closedir(dir);
	return n;
}

/* Reap the crasher; log how it ended; its status or -1. */
static int reap_crasher(struct __test_metadata *_metadata, FIXTURE_DATA(compat) *self, int ms)
{
	int status = reap_within(self->child[0], ms);

	if (status == -1)
		return -1;
	self->child[0] = 0;
	TH_LOG("crasher: %s %d%s", WIFSIGNALED(status) ? "signal" : "exit",
	       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status),
	       WIFSIGNALED(status) && WCOREDUMP(status) ? ", core dumped" : "");
	return status;
}

/* The anonymous memory of the file test: enough, without running out. */
static size_t core_file_mb(void)
{
	long avail_kb = meminfo_kb("MemAvailable");
	size_t mb = 256;

	/* The mapping and its core, both in memory, and some left over. */
	if (avail_kb > 0 && (size_t)avail_kb * 35 / 100 / 1024 < mb)
		mb = avail_kb * 35 / 100 / 1024;
	return mb;
}

TEST_F_TIMEOUT(compat, core_dump_to_a_file_is_truncated_by_the_freeze, 90)
{
	long long at_freeze, final, full;
	size_t mb = core_file_mb();
	char path[64];
	int status, tries;
	pid_t pid;

	ASSERT_LT(32UL, mb) TH_LOG("too little memory for the test: %zu MiB", mb);
	full = (long long)mb << 20;
	pid = start_crasher(_metadata, self, mb);
	ASSERT_LT(0, pid) TH_LOG("the crasher did not get ready");
	snprintf(path, sizeof(path), "%s.%d", CORE_FILE, pid);
	unlink(path);
	ASSERT_EQ(0, set_core_pattern(self, CORE_FILE ".%p"));
	snprintf(self->core_file, sizeof(self->core_file), "%s", path);
	TH_LOG("crasher %d: %d threads, %zu MiB written", pid, CORE_THREADS + 1, mb);

	sh->ready[1] = 1;
	/* The dump is under way: the core has its first MiBs, far from all. */
	for (tries = 0; tries < 2000 && file_size(path) < (4 << 20); tries++)
		usleep(500);
	at_freeze = file_size(path);
	ASSERT_LE(4 << 20, at_freeze) TH_LOG("the dump did not start: core %lld bytes", at_freeze);
	/* The other threads wait for the dump in coredump_task_exit() (TASK_IDLE: I). */
	ASSERT_LE(CORE_THREADS, log_threads(_metadata, pid, "dumping", "DI"));
	ASSERT_GT(full / 4, at_freeze)
		TH_LOG("the dump went too fast to test: %lld of %lld bytes before the freeze",
		       at_freeze, full);

	EXPECT_EQ(0, freeze(_metadata));

	status = reap_crasher(_metadata, self, 60000);
	ASSERT_NE(-1, status) TH_LOG("the crasher did not end");
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
	final = file_size(path);
	TH_LOG("core: %lld bytes when the freeze began, %lld in the end, of at least %lld",
	       at_freeze, final, full);
	/* The classic freezer's fake signal stopped the dump at the freeze. */
	EXPECT_GT(full / 2, final) TH_LOG("the freeze did not interrupt the core dump");
}

TEST_F_TIMEOUT(compat, core_dump_to_a_pipe_is_truncated_by_the_freeze, 90)
{
	char exe[PATH_MAX], pattern[PATH_MAX + 64], buf[64];
	long long full = (long long)PIPE_CORE_MB << 20, bytes;
	int status, tries, waits = 0;
	ssize_t n;
	pid_t pid;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ASSERT_LT(0, n);
	exe[n] = 0;
	unlink(PIPE_CORE_STARTED);
	unlink(PIPE_CORE_BYTES);
	self->pipe_core = 1;
	snprintf(pattern, sizeof(pattern), "|%s coredump-reader", exe);
	pid = start_crasher(_metadata, self, PIPE_CORE_MB);
	ASSERT_LT(0, pid) TH_LOG("the crasher did not get ready");
	ASSERT_EQ(0, set_core_pattern(self, pattern));

	sh->ready[1] = 1;
	for (tries = 0; tries < 2000 && access(PIPE_CORE_STARTED, F_OK); tries++)
		usleep(5000);
	ASSERT_EQ(0, access(PIPE_CORE_STARTED, F_OK)) TH_LOG("the pipe helper did not start reading");
	/*
	 * The dumping thread (the one that aborted) waits for the slow
	 * reader.  Seen once, not asked again: on SMP it runs between its
	 * waits, each time the reader drains the pipe a little.
	 */
	for (tries = 0; tries < 400 && !waits; tries++) {
		waits = proc_state(pid) == 'S' && proc_stack_has(pid, "pipe_write");
		if (!waits)
			usleep(5000);
	}
	ASSERT_LE(CORE_THREADS, log_threads(_metadata, pid, "dumping", "DI"));
	ASSERT_TRUE(waits) TH_LOG("the dump does not wait for the pipe");

	EXPECT_EQ(0, freeze(_metadata));

	status = reap_crasher(_metadata, self, 60000);
	ASSERT_NE(-1, status) TH_LOG("the crasher did not end");
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
	for (tries = 0; tries < 2000 && read_str(PIPE_CORE_BYTES, buf, sizeof(buf)) <= 0; tries++)
		usleep(5000);
	ASSERT_LT(0, read_str(PIPE_CORE_BYTES, buf, sizeof(buf))) TH_LOG("the helper did not finish");
	bytes = atoll(buf);
	TH_LOG("core: the helper read %lld bytes, of at least %lld", bytes, full);
	EXPECT_GT(full / 2, bytes) TH_LOG("the freeze did not interrupt the core dump");
}

/*
 * 8. fork() during a freeze.  copy_process() rechecks for a pending signal
 * just before it adds the child, and gives up with -ERESTARTNOINTR: the
 * classic freezer's fake signal, which recalc_sigpending() keeps while the
 * task is freezing, makes a fork(), vfork() or clone() the freezer catches
 * fail, the parent freezes, and the call is restarted after the thaw.  So
 * no process or thread is created, let alone runs, while the freeze goes
 * on.  TIF_NOTIFY_SIGNAL alone does not stop the fork: the child would be
 * created, and run, inside the freeze, up to one per forker per pass.
 *
 * A few forkers loop on one kind of call each; every child (or thread)
 * stamps the time it first runs and exits at once.  No stamp may fall from
 * the freeze's start until the thaw began.  Once thawed, a forker may
 * restart its fork while other tasks are still leaving the frozen state,
 * so the end of the thaw is no bound.
 */
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
	/* When call i's child first ran its own code; 0: not yet. */
	volatile long long child_ns[FORK_STAMPS];
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

/* @f's children that first ran from @from_ns to @to_ns; the first one's time. */
static int children_between(const struct forker *f, long long from_ns, long long to_ns,
			    long long *first_ns)
{
	int i, n = 0;

	*first_ns = 0;
	for (i = 0; i < FORK_STAMPS; i++) {
		long long t = f->child_ns[i];

		if (!t || t < from_ns || t > to_ns)
			continue;
		if (!n++ || t < *first_ns)
			*first_ns = t;
	}
	return n;
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
		int before, inside, resumed;
		long long first_inside, first_after;

		before = children_between(f, 1, freeze_at - 1, &first);
		inside = children_between(f, freeze_at, w.thaw_at_ns, &first_inside);
		resumed = children_between(f, w.thaw_at_ns + 1, LLONG_MAX, &first_after);
		TH_LOG("%s forker %d: %d calls; children: %d before the freeze, %d in it, %d after the thaw began (the first %.3f ms after); its pause: from %+.3f ms of the freeze's start to %+.3f ms of the thaw's",
		       kind, i, f->n, before, inside, resumed,
		       resumed ? (first_after - w.thaw_at_ns) / 1e6 : 0.0,
		       (f->gap_from_ns - freeze_at) / 1e6, (f->gap_to_ns - w.thaw_at_ns) / 1e6);
		EXPECT_EQ(0, f->err) TH_LOG("%s failed: %s", kind, strerror(f->err));
		EXPECT_EQ(0, inside)
			TH_LOG("%s forker %d: %d children created in the freeze, the first %.3f ms after it began, %.3f ms before every task was frozen",
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

/* The settings this program changes, restored when it exits. */
static struct saved_setting settings[] = {
	{ .path = PM_FREEZE_TIMEOUT },
	{ .path = CORE_PATTERN },
};

int main(int argc, char **argv)
{
	/* Run by the kernel as the core_pattern pipe helper of section 7. */
	if (argc > 1 && !strcmp(argv[1], "coredump-reader"))
		return coredump_reader();
	return freezer_test_main(argc, argv, settings, sizeof(settings) / sizeof(settings[0]));
}
