// SPDX-License-Identifier: GPL-2.0
/*
 * io_uring under a freeze, with both freezers.  Threads of the process
 * that never return to user space (PF_USER_WORKER): an SQPOLL ring's
 * thread ("iou-sqp-PID"), an idle io-wq worker ("iou-wrk-PID") with a
 * poll-armed pipe read pending, and an io-wq worker blocked in a splice.
 * The freeze succeeds and the rings work after the thaw.  And a thread
 * waiting for a completion (io_uring_enter() with min_complete 1): plain,
 * DEFER_TASKRUN, with an EXT_ARG timeout, and an IORING_UNREGISTER_FILES
 * quiesce; their loops clear TIF_NOTIFY_SIGNAL and end only on
 * task_sigpending(): the freeze succeeds and each returns EINTR, with
 * both freezers.  Through raw system calls (uring.h): the rings mmap()ed,
 * SQEs written and CQEs reaped by hand.
 *
 * The fixture and the helpers shared with the other compat_* programs:
 * compat_fixture.h.
 *
 * job: test smp
 */
#define _GNU_SOURCE
#include <linux/io_uring.h>
#include <sys/syscall.h>

#include "compat_fixture.h"
#include "uring.h"

/* A thread of @pid whose comm starts with @prefix: its tid, or 0. */
static pid_t find_thread(pid_t pid, const char *prefix, char *state)
{
	pid_t tid = 0;

	if (threads_named(pid, prefix, &tid, 1) && state)
		*state = proc_state(tid);
	return tid;
}

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

COMPAT_MAIN
