// SPDX-License-Identifier: GPL-2.0
/*
 * System calls sleeping interruptibly, freezable or not, across a freeze,
 * with both freezers: for each one user space can reach in our configs,
 * the call sleeps through the freeze and returns what it returns without
 * a freeze, keeping its timeout; or, where the classic freezer interrupts
 * it, it returns EINTR with both freezers.  Each call runs in a child
 * (struct call, compat_fixture.h), its set-up before slot_begin().
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
 * The fixture and the helpers shared with the other compat_* programs:
 * compat_fixture.h.
 *
 * job: test smp
 */
#define _GNU_SOURCE
#include <limits.h>
#include <linux/aio_abi.h>
#include <linux/futex.h>
#include <poll.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/select.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>

#include "compat_fixture.h"

/* SO_RCVTIMEO counts jiffies: the wait may end up to one (HZ=100) early. */
#define JIFFY_NS		10000000LL

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
	snprintf(addr->sun_path + 1, sizeof(addr->sun_path) - 1, "compat.%s.%d",
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
	snprintf(self->mq_name, sizeof(self->mq_name), "/compat.%d", getpid());
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
	snprintf(self->mq_name, sizeof(self->mq_name), "/compat.%d", getpid());
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

COMPAT_MAIN
