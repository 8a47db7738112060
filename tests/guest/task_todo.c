// SPDX-License-Identifier: GPL-2.0
/*
 * The per-task todo list seen from user space, driven through the
 * test-only debugfs trigger (CONFIG_TASK_TODO_TEST_TRIGGER):
 * /sys/kernel/debug/task_todo/queue takes a pid and queues an item on it;
 * the item records, in .../log, the pid and comm it ran in and when.
 *
 * job: test smp
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/rseq.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "harness_main.h"
#include "guest.h"
#include "uring.h"

#define TRIGGER_DIR	"/sys/kernel/debug/task_todo"
#define QUEUE		TRIGGER_DIR "/queue"
#define LOG		TRIGGER_DIR "/log"
#define TRACING		"/sys/kernel/tracing"

struct ran {
	int pid;
	char comm[32];
	char action[8];
	unsigned long long queued_ns, ran_ns;
};

/* Shared with the forked workload. */
struct shared {
	volatile unsigned long long loops;
	volatile long ret;
	volatile int err;
	volatile long long started_ns, elapsed_ns, returned_ns;
	char buf[16];
};

static int queue_on(pid_t pid)
{
	char text[16];

	snprintf(text, sizeof(text), "%d", pid);
	return write_str(QUEUE, text);
}

/* Find the log line of the item queued on @target; 1 if found. */
static int find_ran(pid_t target, struct ran *r)
{
	char line[256];
	int t, found = 0;
	FILE *f = fopen(LOG, "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "id=%*u target=%d pid=%d tgid=%*d comm=%31s action=%7s queued_ns=%llu ran_ns=%llu",
			   &t, &r->pid, r->comm, r->action, &r->queued_ns, &r->ran_ns) == 6 &&
		    t == target)
			found = 1;
	}
	fclose(f);
	return found;
}

/* Poll the log for up to @ms milliseconds. */
static int wait_ran(pid_t target, struct ran *r, int ms)
{
	for (; ms > 0; ms -= 5) {
		if (find_ran(target, r))
			return 1;
		usleep(5000);
	}
	return find_ran(target, r);
}

static pid_t reap(pid_t pid)
{
	int status;

	return waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0 ? pid : -1;
}

/* Fork a child named @comm that spins in user space, counting loops. */
static pid_t fork_spinner(struct shared *sh, const char *comm)
{
	pid_t pid = fork();

	if (pid == 0) {
		prctl(PR_SET_NAME, comm);
		for (;;)
			sh->loops++;
	}
	while (pid > 0 && sh->loops == 0)
		usleep(1000);
	return pid;
}

FIXTURE(todo) {
	struct shared *sh;
	pid_t child;
};

FIXTURE_SETUP(todo)
{
	if (access(QUEUE, W_OK))
		SKIP(return, "no %s: needs CONFIG_TASK_TODO_TEST_TRIGGER", QUEUE);
	ASSERT_EQ(0, write_str(LOG, "clear"));
	self->sh = mmap(NULL, sizeof(*self->sh), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->sh);
	self->child = 0;
}

FIXTURE_TEARDOWN(todo)
{
	if (self->child > 0) {
		kill(self->child, SIGKILL);
		waitpid(self->child, NULL, 0);
	}
}

/* A task spinning in user space runs the item soon, in its own context. */
TEST_F(todo, spinner_runs_item_in_its_own_context)
{
	struct ran r;
	unsigned long long loops;
	long long seen;

	self->child = fork_spinner(self->sh, "todo-spinner");
	ASSERT_GT(self->child, 0);

	ASSERT_EQ(0, queue_on(self->child));
	ASSERT_TRUE(wait_ran(self->child, &r, 2000));
	seen = now_ns();
	EXPECT_EQ(self->child, r.pid);
	EXPECT_STREQ("todo-spinner", r.comm);
	EXPECT_STREQ("run", r.action);
	TH_LOG("item ran %.3f ms after it was queued", (r.ran_ns - r.queued_ns) / 1e6);
	/*
	 * Soon means within wait_ran()'s 2 s; a bound in ms would measure the
	 * host's load.  Here: it ran after it was queued, before we saw it.
	 */
	EXPECT_LE(r.queued_ns, r.ran_ns);
	EXPECT_LE(r.ran_ns, (unsigned long long)seen);

	loops = self->sh->loops;
	usleep(100000);
	EXPECT_GT(self->sh->loops, loops) TH_LOG("spinner stopped after its item ran");
}

/*
 * Fork a child named @comm that runs @call on the read end of a new pipe
 * and exits; once it sleeps, queue an item on it and see it run there.
 * Returns the pipe's write end (the child's data), -1 after a failure.
 */
static int pipe_waiter_runs_item(struct __test_metadata *_metadata,
				 FIXTURE_DATA(todo) *self, const char *comm,
				 void (*call)(struct shared *sh, int fd), struct ran *r)
{
	int fds[2];

	if (pipe(fds))
		return -1;
	self->child = fork();
	if (self->child == 0) {
		prctl(PR_SET_NAME, comm);
		close(fds[1]);
		call(self->sh, fds[0]);
		_exit(0);
	}
	close(fds[0]);
	EXPECT_GE(self->child, 0);
	EXPECT_TRUE(wait_state(self->child, 'S'));
	EXPECT_EQ(0, queue_on(self->child));
	EXPECT_TRUE(wait_ran(self->child, r, 2000));
	EXPECT_EQ(self->child, r->pid);
	EXPECT_STREQ(comm, r->comm);
	if (_metadata->exit_code) {
		close(fds[1]);
		return -1;
	}
	return fds[1];
}

static void read_5(struct shared *sh, int fd)
{
	sh->ret = read(fd, sh->buf, 5);
	sh->err = errno;
}

/* A task blocked in read() on a pipe runs the item; read() is restarted. */
TEST_F(todo, pipe_reader_runs_item_and_read_is_restarted)
{
	struct ran r;
	int w = pipe_waiter_runs_item(_metadata, self, "todo-reader", read_5, &r);

	ASSERT_GE(w, 0);
	/* The item ran; the reader must still be waiting for data. */
	usleep(50000);
	EXPECT_EQ(0, waitpid(self->child, NULL, WNOHANG)) TH_LOG("read() returned early");

	ASSERT_EQ(5, write(w, "hello", 5));
	ASSERT_EQ(self->child, reap(self->child));
	self->child = 0;
	EXPECT_EQ(5, self->sh->ret) TH_LOG("read() failed: %s", strerror(self->sh->err));
	EXPECT_EQ(0, memcmp(self->sh->buf, "hello", 5));
	close(w);
}

/*
 * What task_todo_add()'s kernel-doc says of calls that return -EINTR
 * themselves: the kick interrupts them as a signal would, and they fail
 * with EINTR, where a pipe read() (above) is restarted.  epoll_wait()
 * sleeps with a timeout it does not restart, so it returns.
 */
static void epoll_wait_20s(struct shared *sh, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN }, out;
	int ep = epoll_create1(0);

	epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
	sh->started_ns = now_ns();
	sh->ret = epoll_wait(ep, &out, 1, 20000);
	sh->err = errno;
	sh->returned_ns = now_ns();
}

TEST_F(todo, epoll_waiter_runs_item_and_returns_eintr)
{
	struct ran r;
	int w = pipe_waiter_runs_item(_metadata, self, "todo-epoller", epoll_wait_20s, &r);

	ASSERT_GE(w, 0);
	ASSERT_EQ(self->child, reap(self->child));
	self->child = 0;
	close(w);
	EXPECT_EQ(-1, self->sh->ret);
	EXPECT_EQ(EINTR, self->sh->err) TH_LOG("epoll_wait() failed with %s, not EINTR",
					       strerror(self->sh->err));
	TH_LOG("epoll_wait(20 s) returned %ld (%s) %.3f ms after it began; the item ran at %.3f ms",
	       self->sh->ret, strerror(self->sh->err),
	       (self->sh->returned_ns - self->sh->started_ns) / 1e6,
	       ((long long)r.ran_ns - self->sh->started_ns) / 1e6);
	/* Returned because of the kick: after the item ran, long before 20 s. */
	EXPECT_GE(self->sh->returned_ns, (long long)r.ran_ns);
}

/* A task in nanosleep() runs the item mid-sleep and still sleeps in full. */
TEST_F(todo, sleeper_runs_item_and_sleeps_its_full_time)
{
	struct ran r;

	self->child = fork();
	ASSERT_GE(self->child, 0);
	if (self->child == 0) {
		struct timespec ts = { .tv_sec = 1 };

		prctl(PR_SET_NAME, "todo-sleeper");
		self->sh->started_ns = now_ns();
		self->sh->ret = nanosleep(&ts, NULL);
		self->sh->err = errno;
		self->sh->elapsed_ns = now_ns() - self->sh->started_ns;
		_exit(0);
	}
	ASSERT_TRUE(wait_state(self->child, 'S'));
	usleep(100000);

	ASSERT_EQ(0, queue_on(self->child));
	ASSERT_TRUE(wait_ran(self->child, &r, 2000));
	EXPECT_EQ(self->child, r.pid);
	EXPECT_STREQ("todo-sleeper", r.comm);

	ASSERT_EQ(self->child, reap(self->child));
	self->child = 0;
	EXPECT_EQ(0, self->sh->ret) TH_LOG("nanosleep failed: %s", strerror(self->sh->err));
	TH_LOG("nanosleep(1 s) took %.3f ms; the item ran %.3f ms into it",
	       self->sh->elapsed_ns / 1e6, ((long long)r.ran_ns - self->sh->started_ns) / 1e6);
	/* Otherwise the item could not have run mid-sleep. */
	ASSERT_LT((long long)r.queued_ns, self->sh->started_ns + 1000000000LL)
		TH_LOG("queued %.3f ms after the sleep began",
		       ((long long)r.queued_ns - self->sh->started_ns) / 1e6);
	/* Mid-sleep: after the sleep began and before nanosleep() returned. */
	EXPECT_GT((long long)r.ran_ns, self->sh->started_ns);
	EXPECT_LT((long long)r.ran_ns, self->sh->started_ns + self->sh->elapsed_ns)
		TH_LOG("item did not run mid-sleep");
	/*
	 * Not a timing guess: nanosleep() never returns 0 before its time,
	 * however busy the host; an item that cut the sleep short shows here.
	 */
	EXPECT_GE(self->sh->elapsed_ns, 1000000000LL);
}

/* A stopped task keeps its item pending, visible in /proc/<pid>/todo. */
TEST_F(todo, proc_todo_shows_a_pending_item_by_symbol)
{
	char path[64], text[256] = "";
	struct stat st;
	struct ran r;
	ssize_t n;
	int fd;

	self->child = fork();
	ASSERT_GE(self->child, 0);
	if (self->child == 0) {
		prctl(PR_SET_NAME, "todo-stopped");
		for (;;)
			pause();
	}
	ASSERT_TRUE(wait_state(self->child, 'S'));
	ASSERT_EQ(0, kill(self->child, SIGSTOP));
	ASSERT_TRUE(wait_state(self->child, 'T'));

	ASSERT_EQ(0, queue_on(self->child));
	snprintf(path, sizeof(path), "/proc/%d/todo", self->child);
	ASSERT_EQ(0, stat(path, &st));
	EXPECT_EQ(0400U, st.st_mode & 07777);
	fd = open(path, O_RDONLY);
	ASSERT_GE(fd, 0);
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	ASSERT_GT(n, 0);
	text[n] = 0;
	TH_LOG("/proc/%d/todo: %s", self->child, text);
	EXPECT_NE(NULL, strstr(text, "todo_trigger_record"));
	EXPECT_EQ(NULL, strstr(text, "0x")) TH_LOG("a raw address is shown");
	EXPECT_FALSE(find_ran(self->child, &r)) TH_LOG("a stopped task ran its item");

	/* Continued, it runs the item and the list is empty again. */
	ASSERT_EQ(0, kill(self->child, SIGCONT));
	ASSERT_TRUE(wait_ran(self->child, &r, 2000));
	EXPECT_STREQ("todo-stopped", r.comm);
	fd = open(path, O_RDONLY);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(0, read(fd, text, sizeof(text)));
	close(fd);
}

/* The todo tracepoints report the add and the run, with pid and symbol. */
TEST_F(todo, tracepoints_report_add_and_run)
{
	char line[512], want[64];
	int saw_add = 0, saw_run = 0;
	struct ran r;
	FILE *f;

	if (access(TRACING "/events/todo/enable", W_OK))
		SKIP(return, "no todo trace events in %s", TRACING);
	self->child = fork_spinner(self->sh, "todo-traced");
	ASSERT_GT(self->child, 0);
	ASSERT_EQ(0, write_str(TRACING "/trace", ""));
	ASSERT_EQ(0, write_str(TRACING "/events/todo/enable", "1"));
	ASSERT_EQ(0, queue_on(self->child));
	ASSERT_TRUE(wait_ran(self->child, &r, 2000));
	ASSERT_EQ(0, write_str(TRACING "/events/todo/enable", "0"));

	snprintf(want, sizeof(want), "pid=%d comm=todo-traced func=todo_trigger_record", self->child);
	f = fopen(TRACING "/trace", "r");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "todo_add:") && strstr(line, want))
			saw_add = 1;
		if (strstr(line, "todo_run:") && strstr(line, want))
			saw_run = 1;
	}
	fclose(f);
	EXPECT_TRUE(saw_add);
	EXPECT_TRUE(saw_run);
}

/*
 * Leave rseq, which glibc registers for every thread: on x86 a task with
 * rseq gets TIF_NOTIFY_RESUME at every context switch, which also runs a
 * todo list that no kick is left to run, and would hide such an item.
 * Programs of a libc without rseq (musl, Go) have no such help.  UML has
 * no rseq (ENOSYS), nothing to leave.
 */
static void leave_rseq(void)
{
	char *tp;

	if (__rseq_size == 0)
		return;
	/* The thread pointer: the TCB's first word points to itself. */
	__asm__ volatile("mov %%fs:0, %0" : "=r"(tp));
	/* glibc registers 32 bytes, though __rseq_size may say 20. */
	syscall(__NR_rseq, tp + __rseq_offset, 32, 1 /* RSEQ_FLAG_UNREGISTER */, RSEQ_SIG);
}

/*
 * An item whose kick was eaten still runs on the way back to user mode.
 * io_uring_enter() waiting for a completion runs task_work, which clears
 * TIF_NOTIFY_SIGNAL, and sleeps on; the item stays queued.  When a
 * completion ends the wait, the task must run the item before its next
 * instruction in user space, not at some later kick: with the generic
 * entry code (x86) the kick also sets TIF_NOTIFY_RESUME, which only the
 * return to user mode consumes; UML's TIF_TASK_TODO survives anyway.
 */
TEST_F(todo, item_kicked_in_an_io_uring_wait_runs_on_return_to_user)
{
	struct io_uring_sqe sqe;
	struct ran r = { 0 };
	struct uring ring;
	int err, i;

	err = uring_init(&ring, 4, 0, 0);
	if (err == -ENOSYS)
		SKIP(return, "no io_uring (CONFIG_IO_URING)");
	ASSERT_EQ(0, err);
	self->child = fork();
	ASSERT_GE(self->child, 0);
	if (self->child == 0) {
		prctl(PR_SET_NAME, "todo-uring");
		leave_rseq();
		self->sh->ret = syscall(__NR_io_uring_enter, ring.fd, 0, 1,
					IORING_ENTER_GETEVENTS, NULL, 0);
		self->sh->err = errno;
		self->sh->returned_ns = now_ns();
		for (;;)
			pause();
	}
	ASSERT_TRUE(wait_state(self->child, 'S'));
	ASSERT_EQ(0, queue_on(self->child));
	/* Woken by the kick, the wait finds no completion and sleeps again. */
	usleep(100000);
	ASSERT_TRUE(wait_state(self->child, 'S'));
	if (find_ran(self->child, &r) || self->sh->returned_ns)
		SKIP(goto out, "the kick ended the wait: nothing was eaten");

	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = IORING_OP_NOP;
	ASSERT_EQ(0, uring_submit(&ring, &sqe));
	EXPECT_TRUE(wait_ran(self->child, &r, 2000))
		TH_LOG("item left queued after io_uring_enter() returned %ld (errno %d)",
		       (long)self->sh->ret, self->sh->err);
	/* The item runs first; on SMP we may look before the child stores. */
	for (i = 0; i < 2000 && !self->sh->returned_ns; i++)
		usleep(1000);
	ASSERT_NE(0, self->sh->returned_ns)
		TH_LOG("io_uring_enter() did not return after the completion");
	EXPECT_EQ(0, self->sh->ret);
	EXPECT_STREQ("todo-uring", r.comm);
	EXPECT_LE((long long)r.ran_ns, self->sh->returned_ns)
		TH_LOG("the item ran after the task was back in user space");
out:
	uring_exit(&ring);
}

/* The tid of this process's io-wq worker ("iou-wrk-PID"), or 0. */
static pid_t iowq_worker(void)
{
	char path[300], comm[32], want[32];
	struct dirent *d;
	DIR *dir = opendir("/proc/self/task");
	pid_t tid = 0;

	snprintf(want, sizeof(want), "iou-wrk-%d", getpid());
	while (dir && !tid && (d = readdir(dir))) {
		FILE *f;

		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", d->d_name);
		f = fopen(path, "r");
		if (f && fgets(comm, sizeof(comm), f) && !strncmp(comm, want, strlen(want)))
			tid = atoi(d->d_name);
		if (f)
			fclose(f);
	}
	if (dir)
		closedir(dir);
	return tid;
}

/*
 * An item queued on an io-wq worker: a kernel-side thread of the ring's
 * process (PF_IO_WORKER) that never returns to user mode, so its only
 * checkpoints are get_signal(), which its loop calls when a signal is
 * pending, and its exit.  io_run_task_work() in that loop clears
 * TIF_NOTIFY_SIGNAL and TIF_NOTIFY_RESUME without running the list.
 * First the worker is blocked in a pipe read that IOSQE_ASYNC sent it:
 * the item must run, in the worker, while the read is still pending,
 * and the read must then complete normally when data comes.  Then the
 * worker is idle, waiting for work: a second item must run too.
 */
TEST_F(todo, item_queued_on_an_io_wq_worker_runs_in_it_blocked_or_idle)
{
	struct io_uring_sqe sqe;
	struct io_uring_cqe cqe;
	struct ran r = { 0 };
	struct uring ring;
	char buf[8];
	long long t0;
	pid_t tid = 0;
	int err, p[2], i, ran;

	err = uring_init(&ring, 4, 0, 0);
	if (err == -ENOSYS)
		SKIP(return, "no io_uring (CONFIG_IO_URING)");
	ASSERT_EQ(0, err);
	ASSERT_EQ(0, pipe(p));
	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = IORING_OP_READ;
	sqe.fd = p[0];
	sqe.addr = (unsigned long)buf;
	sqe.len = sizeof(buf);
	sqe.flags = IOSQE_ASYNC;
	sqe.user_data = 7;
	ASSERT_EQ(0, uring_submit(&ring, &sqe));
	for (i = 0; i < 400 && !(tid = iowq_worker()); i++)
		usleep(5000);
	ASSERT_NE(0, tid) TH_LOG("no io-wq worker (iou-wrk-%d) for the async read", getpid());
	ASSERT_TRUE(wait_state(tid, 'S'));
	t0 = now_ns();
	ASSERT_EQ(0, queue_on(tid));
	ran = wait_ran(tid, &r, 2000);
	TH_LOG("item on io-wq worker %d: %s%s%s after %.1f ms",
	       tid, ran ? "ran in " : "not run", ran ? r.comm : "", ran ? "," : "",
	       ((ran ? (long long)r.ran_ns : now_ns()) - t0) / 1e6);
	EXPECT_TRUE(ran);
	if (ran)
		EXPECT_EQ(tid, r.pid);
	/* The read was pending all along: it gets the byte, not an error. */
	ASSERT_EQ(1, write(p[1], "x", 1));
	ASSERT_EQ(0, uring_reap(&ring, &cqe, 3000)) TH_LOG("no completion for the read");
	TH_LOG("the read completed with %d", cqe.res);
	EXPECT_EQ(7, (int)cqe.user_data);
	EXPECT_EQ(1, cqe.res);

	/* Idle now (io_wq_worker() waits up to 5 s for work, then exits). */
	ASSERT_TRUE(wait_state(tid, 'S'));
	ASSERT_EQ(0, write_str(LOG, "clear"));
	t0 = now_ns();
	ASSERT_EQ(0, queue_on(tid));
	ran = wait_ran(tid, &r, 2000);
	TH_LOG("item on the idle io-wq worker: %s%s after %.1f ms",
	       ran ? "ran in " : "not run", ran ? r.comm : "",
	       ((ran ? (long long)r.ran_ns : now_ns()) - t0) / 1e6);
	EXPECT_TRUE(ran);
	if (ran) {
		EXPECT_EQ(tid, r.pid);
		EXPECT_STREQ("run", r.action) TH_LOG("it ran only when the worker exited");
	}
	close(p[0]);
	close(p[1]);
	uring_exit(&ring);
}

/* Bad input to the trigger is refused with the right errno. */
TEST_F(todo, trigger_refuses_bad_input)
{
	pid_t zombie;

	EXPECT_EQ(-EINVAL, write_str(QUEUE, "abc"));
	EXPECT_EQ(-EINVAL, write_str(QUEUE, "12abc"));
	EXPECT_EQ(-EINVAL, write_str(QUEUE, "-1"));
	EXPECT_EQ(-EINVAL, write_str(QUEUE, "0"));
	EXPECT_EQ(-ESRCH, write_str(QUEUE, "4000000"));

	/* A zombie is past its exit processing. */
	zombie = fork();
	ASSERT_GE(zombie, 0);
	if (zombie == 0)
		_exit(0);
	ASSERT_TRUE(wait_state(zombie, 'Z'));
	EXPECT_EQ(-ESRCH, queue_on(zombie));
	waitpid(zombie, NULL, 0);
}

HARNESS_MAIN
