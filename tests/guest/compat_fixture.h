/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fixture of the compat_* programs: the todo freezer as a drop-in
 * replacement for the classic one.  Every task the classic freezer
 * freezes, the todo freezer freezes too, and user space cannot tell which
 * freezer ran: same return values, same errno, same timeouts.  Where the
 * classic freezer itself already differs from no freeze at all (a system
 * call that returns EINTR when the freezer wakes it), the tests assert
 * what the classic freezer does, for both.  One program per subject:
 *
 *   compat_uring     io_uring's threads and waits
 *   compat_cgroup    tasks frozen by the cgroup v2 and v1 freezers
 *   compat_syscalls  system calls sleeping across a freeze
 *   compat_oom       an OOM victim frozen by the freeze
 *   compat_kthread   a kernel thread in an uninterruptible timed sleep
 *   compat_coredump  core dumps cut short by the freeze
 *   compat_fork      fork(), vfork() and clone() during a freeze
 *   compat_uprobe    threads running through a uprobe (x86_64 only)
 *
 * Every test freezes through the standard interface (pm_test=freezer,
 * "echo freeze > /sys/power/state": freeze, pm_test_delay and thaw inside
 * that one write).  Times are compared only with the window the kernel
 * measured in the same run (struct freeze_window, CONFIG_FREEZER_BENCH),
 * never with pm_test_delay.
 *
 * Every test runs once per freezer, as compat.todo.TEST and
 * compat.classic.TEST; a freezer this kernel does not have makes its tests
 * SKIP.  Here: the fixture, whose teardown undoes what any of the tests
 * set up, and the helpers more than one program uses, among them one
 * blocking system call run in a child (struct call).
 * Usage: compat_* [--list] [--match GLOB] [--freezer todo|classic]
 *        [harness options]   (harness_main.h)
 */
#ifndef COMPAT_FIXTURE_H
#define COMPAT_FIXTURE_H

#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "guest.h"
#include "freeze.h"
#include "harness_freeze.h"
#include "freezer_variants.h"
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

#define MAX_CHILDREN		12
/* What the teardown cleans up after the tests that make them. */
#define CG1_DIR			"/tmp/compat.freezer"
#define LOCK_FILE		"/tmp/compat.lock"
#define CORE_PATTERN		"/proc/sys/kernel/core_pattern"
/* The core_pattern pipe helper: progress and, at end of file, the bytes it read. */
#define PIPE_CORE_STARTED	"/tmp/compat.pipecore.started"
#define PIPE_CORE_BYTES		"/tmp/compat.pipecore.bytes"

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

static inline void slot_begin(struct call_slot *s)
{
	s->start_ns = now_ns();
	s->started = 1;
	errno = 0;
}

static inline pid_t fork_call(const struct call *c, int i)
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
static inline int wait_blocked(pid_t pid, int i)
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

static inline const char *errname(int err)
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
static inline void log_call(struct __test_metadata *_metadata, const char *name, int i,
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
static inline void expect_ret(struct __test_metadata *_metadata, const char *name, int i,
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

/*
 * Set pm_test_delay so that the next freeze holds every task frozen for
 * about TIMEOUT_HOLD_MS, for a timeout test.  The delay is a busy wait
 * counted in loops calibrated at boot, as long or as short as the host's
 * load then made it (2 s gave 0.83 s of frozen window on a loaded host):
 * a freeze of DELAY_S measures what one of its seconds is now.
 */
static inline void setup_timeout_freeze(struct __test_metadata *_metadata)
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

/* A field of /proc/meminfo in kB, or -1. */
static inline long meminfo_kb(const char *field)
{
	char buf[4096], *p;

	if (read_str("/proc/meminfo", buf, sizeof(buf)) <= 0)
		return -1;
	p = strstr(buf, field);
	if (!p || p[strlen(field)] != ':')
		return -1;
	return strtol(p + strlen(field) + 1, NULL, 10);
}

/*
 * Does /proc/<pid>/stack have a frame in function @fn?  (UML's wchan may
 * name a stale scheduler frame; the stack is exact.)
 */
static inline int proc_stack_has(pid_t pid, const char *fn)
{
	char path[64], buf[4096], want[96];

	snprintf(path, sizeof(path), "/proc/%d/stack", pid);
	if (read_str(path, buf, sizeof(buf)) <= 0)
		return 0;
	snprintf(want, sizeof(want), "] %s+", fn);
	return strstr(buf, want) != NULL;
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

/* Fork @n calls and wait until each sleeps in its call. */
static inline void start_calls(struct __test_metadata *_metadata,
			       FIXTURE_DATA(compat) *self, const struct call *calls, int n)
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
static inline void reap_calls(struct __test_metadata *_metadata,
			      FIXTURE_DATA(compat) *self, const struct call *calls, int n, int ms)
{
	int i, status;

	for (i = 0; i < n; i++) {
		status = reap_within(self->child[i], ms);
		ASSERT_NE(-1, status) TH_LOG("%s did not return", calls[i].name);
		self->child[i] = 0;
		ASSERT_TRUE(WIFEXITED(status));
	}
}

/* The settings the tests change, restored when the program exits. */
static struct saved_setting compat_settings[] = {
	{ .path = PM_FREEZE_TIMEOUT },
	{ .path = CORE_PATTERN },
};

static inline int compat_main(int argc, char **argv)
{
	return freezer_test_main(argc, argv, compat_settings,
				 sizeof(compat_settings) / sizeof(compat_settings[0]));
}

#define COMPAT_MAIN						\
	int main(int argc, char **argv)				\
	{							\
		return compat_main(argc, argv);			\
	}

#endif /* COMPAT_FIXTURE_H */
