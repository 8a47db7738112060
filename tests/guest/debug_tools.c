// SPDX-License-Identifier: GPL-2.0
/*
 * The tools people reach for first when a freeze is stuck, on the KASAN
 * test kernel (the host boots job "debugtools",
 * tests/host/47-debug-tools.sh):
 *
 *  - /proc/<pid>/wchan and /proc/<pid>/stack of every task, with a task
 *    frozen (cgroup v1 freezer) and not: correct output and no KASAN
 *    report (UML's __get_wchan() scanned stacks with a plain load);
 *  - sysrq t and w through /proc/sysrq-trigger: t shows every task's
 *    stack, a frozen one's in the refrigerator, and w a task in
 *    uninterruptible sleep (one that would not freeze), and the kernel
 *    survives (copy_from_kernel_nofault() of a kworker's fields panicked
 *    UML);
 *  - a fork() whose dup_mmap() fails part-way (strict overcommit: the
 *    child's copy of a big private mapping is refused) returns ENOMEM and
 *    the kernel survives (UML's flush_tlb_mm() walked into the
 *    XA_ZERO_ENTRY that dup_mmap() leaves: "Kernel mode fault at addr
 *    0x40e").
 *
 * Every test also fails on a kernel report in the log it caused.
 *
 * job: debugtools
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "harness_main.h"
#include "guest.h"
#include "freeze.h"

#define CG1_DIR		"/tmp/debug_tools.freezer"
#define SYSRQ		"/proc/sysrq-trigger"
#define OVERCOMMIT	"/proc/sys/vm/overcommit_memory"
#define OVERCOMMIT_KB	"/proc/sys/vm/overcommit_kbytes"
#define OVERCOMMIT_RATIO	"/proc/sys/vm/overcommit_ratio"
#define CHILD_COMM	"dbg_sleeper"
#define BLOCKED_COMM	"dbg_blocked"

/* The kernel reports no test here may cause (as scripts/host/parse_console.py). */
static const char *const splats[] = {
	"BUG: ", "WARNING: ", "KASAN", "UBSAN", "Kernel panic", "Oops",
	"possible circular locking", "inconsistent lock state",
	"sleeping function called from invalid context",
};

/* Fail, with the lines, if the kernel log since dmesg_clear() has a report. */
#define EXPECT_NO_KERNEL_REPORT() do {						\
	char *__log = dmesg_read();						\
	size_t __i;								\
										\
	ASSERT_NE(NULL, __log);							\
	for (__i = 0; __i < ARRAY_SIZE(splats); __i++) {			\
		EXPECT_EQ(NULL, strstr(__log, splats[__i]))			\
			log_kernel_lines(__log, splats[__i], 20);		\
	}									\
	free(__log);								\
} while (0)

FIXTURE(tools) {
	pid_t child;
	int cg1_mounted;
	char cg1_dir[128];
};

/* A child asleep in pause(), named CHILD_COMM. */
static pid_t start_sleeper(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		write_str("/proc/self/comm", CHILD_COMM);
		for (;;)
			pause();
	}
	return pid;
}

FIXTURE_SETUP(tools)
{
	self->cg1_mounted = 0;
	self->cg1_dir[0] = 0;
	self->child = start_sleeper();
	ASSERT_GT(self->child, 0);
	ASSERT_TRUE(wait_state(self->child, 'S'));
	dmesg_clear();
}

static void cg1_thaw(FIXTURE_DATA(tools) *self)
{
	char path[192];

	if (!self->cg1_dir[0])
		return;
	snprintf(path, sizeof(path), "%s/freezer.state", self->cg1_dir);
	write_str(path, "THAWED");
}

FIXTURE_TEARDOWN(tools)
{
	cg1_thaw(self);	/* a task frozen by cgroup v1 ignores SIGKILL */
	kill_child(&self->child);
	if (self->cg1_dir[0])
		rmdir(self->cg1_dir);
	if (self->cg1_mounted)
		umount(CG1_DIR);
}

/* Freeze the child with the cgroup v1 freezer; 0, or -errno. */
static int cg1_freeze_child(FIXTURE_DATA(tools) *self)
{
	char path[192], buf[32];
	int i;

	mkdir(CG1_DIR, 0755);
	if (mount("none", CG1_DIR, "cgroup", 0, "freezer"))
		return -errno;
	self->cg1_mounted = 1;
	snprintf(self->cg1_dir, sizeof(self->cg1_dir), "%s/dbg.%d", CG1_DIR, getpid());
	if (mkdir(self->cg1_dir, 0755)) {
		self->cg1_dir[0] = 0;
		return -errno;
	}
	snprintf(path, sizeof(path), "%s/cgroup.procs", self->cg1_dir);
	snprintf(buf, sizeof(buf), "%d", self->child);
	if (write_str(path, buf))
		return -EIO;
	snprintf(path, sizeof(path), "%s/freezer.state", self->cg1_dir);
	if (write_str(path, "FROZEN"))
		return -EIO;
	for (i = 0; i < 300; i++) {
		if (read_str(path, buf, sizeof(buf)) > 0 && !strncmp(buf, "FROZEN", 6))
			return 0;
		usleep(10000);
	}
	return -ETIMEDOUT;
}

/* Read /proc/@pid/@name into @buf; bytes, or -errno. */
static int read_pid_file(pid_t pid, const char *name, char *buf, size_t size)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, name);
	return read_str(path, buf, size);
}

/* Read wchan and stack of every task; the number of tasks read. */
static int read_all_wchan_and_stack(void)
{
	struct dirent *de;
	char buf[4096];
	int n = 0;
	DIR *d = opendir("/proc");

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		pid_t pid = atoi(de->d_name);

		if (pid <= 0)
			continue;
		if (read_pid_file(pid, "wchan", buf, sizeof(buf)) >= 0 &&
		    read_pid_file(pid, "stack", buf, sizeof(buf)) >= 0)
			n++;
	}
	closedir(d);
	return n;
}

/*
 * The child's wchan names a function and its stack has frames.  wchan is
 * "0" while the sleeper is still on its run queue: 6.12's EEVDF keeps a
 * task that went to sleep with negative lag queued ("delayed dequeue")
 * until the queue is next picked from, and get_wchan() reports only tasks
 * off it.  So read it again for up to 2 s.
 */
static void check_child_wchan_and_stack(struct __test_metadata *_metadata,
					pid_t pid, const char *when)
{
	char wchan[128], stack[4096];
	int tries;

	for (tries = 1; tries <= 200; tries++) {
		ASSERT_GT(read_pid_file(pid, "wchan", wchan, sizeof(wchan)), 0)
			TH_LOG("/proc/%d/wchan %s: empty or unreadable", pid, when);
		if (strcmp(wchan, "0"))
			break;
		usleep(10000);
	}
	EXPECT_STRNE("0", wchan) TH_LOG("no wchan %s after %d reads in 2 s", when, tries - 1);
	if (tries > 1)
		TH_LOG("wchan %s: \"0\" for %d read(s) first", when, tries - 1);
	ASSERT_GT(read_pid_file(pid, "stack", stack, sizeof(stack)), 0);
	EXPECT_NE(NULL, strstr(stack, "[<0>] ")) TH_LOG("/proc/%d/stack %s: '%s'", pid, when, stack);
	TH_LOG("%s: wchan %s; stack:\n%s", when, wchan, stack);
}

TEST_F(tools, proc_wchan_and_stack_of_every_task_frozen_and_not)
{
	int ret;

	check_child_wchan_and_stack(_metadata, self->child, "asleep");
	EXPECT_GT(read_all_wchan_and_stack(), 5);
	ret = cg1_freeze_child(self);
	if (ret == -ENODEV || ret == -ENOENT)
		SKIP(return, "no cgroup v1 freezer (CONFIG_CGROUP_FREEZER)");
	ASSERT_EQ(0, ret);
	check_child_wchan_and_stack(_metadata, self->child, "frozen");
	EXPECT_GT(read_all_wchan_and_stack(), 5);
	EXPECT_NO_KERNEL_REPORT();
}

/*
 * The stack that sysrq printed for the task named @comm: the lines from its
 * "task:@comm" header to the next task's header.  malloc()ed, or NULL.
 */
static char *sysrq_task_dump(const char *log, const char *comm)
{
	char needle[64];
	const char *p, *end;

	snprintf(needle, sizeof(needle), "task:%s ", comm);
	p = strstr(log, needle);
	if (!p)
		return NULL;
	end = strstr(p + strlen(needle), "task:");
	return strndup(p, end ? (size_t)(end - p) : strlen(p));
}

/* Write @key to /proc/sysrq-trigger; @comm's dump must have a trace. */
static void sysrq_shows_task(struct __test_metadata *_metadata, char key,
			     const char *header, const char *comm, const char *frame)
{
	char k[2] = { key, 0 }, *log, *dump;

	dmesg_clear();
	ASSERT_EQ(0, write_str(SYSRQ, k));
	log = dmesg_read();
	ASSERT_NE(NULL, log);
	EXPECT_NE(NULL, strstr(log, header)) TH_LOG("no \"%s\" after sysrq %c", header, key);
	dump = sysrq_task_dump(log, comm);
	ASSERT_NE(NULL, dump) TH_LOG("sysrq %c printed no task:%s", key, comm);
	EXPECT_NE(NULL, strstr(dump, "Call Trace:")) TH_LOG("%s", dump);
	if (frame)
		EXPECT_NE(NULL, strstr(dump, frame)) TH_LOG("no %s in:\n%s", frame, dump);
	TH_LOG("sysrq %c, %s:\n%s", key, comm, dump);
	free(dump);
	free(log);
}

TEST_F(tools, sysrq_t_and_w_show_stacks_frozen_and_not)
{
	pid_t blocked;
	int ret;

	/* t: every task; the sleeper in pause(). */
	sysrq_shows_task(_metadata, 't', "sysrq: Show State", CHILD_COMM, "pause");
	EXPECT_NO_KERNEL_REPORT();
	/* w: tasks in uninterruptible sleep, the ones a freeze waits for. */
	if (!access(KNOB_SLEEP_UNINT, W_OK)) {
		blocked = fork();
		ASSERT_GE(blocked, 0);
		if (blocked == 0) {
			write_str("/proc/self/comm", BLOCKED_COMM);
			_exit(write_str(KNOB_SLEEP_UNINT, "5000") ? 1 : 0);
		}
		ASSERT_TRUE(wait_state(blocked, 'D'));
		sysrq_shows_task(_metadata, 'w', "sysrq: Show Blocked State", BLOCKED_COMM,
				 "msleep");
		kill_child(&blocked);
		EXPECT_NO_KERNEL_REPORT();
	}
	ret = cg1_freeze_child(self);
	if (ret == -ENODEV || ret == -ENOENT)
		SKIP(return, "no cgroup v1 freezer (CONFIG_CGROUP_FREEZER)");
	ASSERT_EQ(0, ret);
	/* Frozen: t shows it in the refrigerator. */
	sysrq_shows_task(_metadata, 't', "sysrq: Show State", CHILD_COMM, "refrigerator");
	EXPECT_NO_KERNEL_REPORT();
}

/*
 * Strict overcommit, and a private writable mapping that fits once in the
 * commit limit but not twice: fork() must copy it (VM_ACCOUNT) and is
 * refused in dup_mmap(), after the mappings below it were copied.
 */
TEST_F(tools, fork_fails_in_dup_mmap_with_enomem)
{
	char old_mode[16], old_kb[32], old_ratio[16], line[256];
	long limit_kb = -1, committed_kb = -1, size_kb;
	void *big, *small[64];
	int i, err;
	pid_t pid;
	FILE *f;

	ASSERT_GT(read_str(OVERCOMMIT, old_mode, sizeof(old_mode)), 0);
	ASSERT_GT(read_str(OVERCOMMIT_KB, old_kb, sizeof(old_kb)), 0);
	ASSERT_GT(read_str(OVERCOMMIT_RATIO, old_ratio, sizeof(old_ratio)), 0);
	/* Mappings on both sides of the big one, so the copy stops inside. */
	for (i = 0; i < 64; i++) {
		small[i] = mmap(NULL, 4096, PROT_READ | (i & 1 ? PROT_WRITE : 0),
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ASSERT_NE(MAP_FAILED, small[i]);
	}
	f = fopen("/proc/meminfo", "r");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "CommitLimit: %ld kB", &limit_kb);
		sscanf(line, "Committed_AS: %ld kB", &committed_kb);
	}
	fclose(f);
	ASSERT_GT(limit_kb, 0);
	ASSERT_GE(committed_kb, 0);
	/* A limit of what is committed now plus 48 MiB; the mapping takes 32. */
	snprintf(line, sizeof(line), "%ld", committed_kb + 48 * 1024);
	ASSERT_EQ(0, write_str(OVERCOMMIT_KB, line));
	ASSERT_EQ(0, write_str(OVERCOMMIT, "2"));
	size_kb = 32 * 1024;
	big = mmap(NULL, size_kb * 1024, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	err = big == MAP_FAILED ? errno : 0;
	if (!err) {
		pid = fork();
		if (pid == 0)
			_exit(0);
		err = pid < 0 ? errno : 0;
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
	write_str(OVERCOMMIT, old_mode);
	write_str(OVERCOMMIT_KB, old_kb);
	write_str(OVERCOMMIT_RATIO, old_ratio);	/* last: it clears the kbytes */
	ASSERT_NE(MAP_FAILED, big) TH_LOG("the %ld kB mapping itself was refused", size_kb);
	EXPECT_EQ(ENOMEM, err) TH_LOG("fork() with the mapping: %s", strerror(err));
	/* The kernel is still here, and fork() works once it is gone. */
	munmap(big, size_kb * 1024);
	pid = fork();
	if (pid == 0)
		_exit(7);
	ASSERT_GT(pid, 0);
	ASSERT_EQ(pid, waitpid(pid, &i, 0));
	EXPECT_EQ(7, WEXITSTATUS(i));
	EXPECT_NO_KERNEL_REPORT();
}

HARNESS_MAIN
