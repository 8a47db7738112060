// SPDX-License-Identifier: GPL-2.0
/*
 * Tasks frozen by a cgroup freezer under a system freeze, with both
 * freezers.  cgroup v2: tasks frozen through cgroup.freeze stay frozen
 * across a system freeze, which succeeds.  cgroup v1 freezer: tasks frozen
 * (or still freezing) through freezer.state stay frozen across a system
 * freeze.  A sleeper the cgroup froze in place ran on after the system
 * thaw with the classic freezer of 6.12 too; kernel-patches/0002 fixes it
 * for both.
 *
 * cgroup v1: the cgroup going FROZEN while its task already sits in the
 * todo freezer's wait (i.e. during the system freeze) cannot be reached
 * from user space: from the first pass of the freeze to the thaw no user
 * task runs user code, the writer of /sys/power/state is inside that
 * write(), and nothing else (mconsole included) writes freezer.state.
 * What user space can do is freeze the cgroup before (the frozen_spinner
 * and frozen_sleeper tests) or start the system freeze while the cgroup is
 * still FREEZING (the freezing_task test).
 *
 * The fixture and the helpers shared with the other compat_* programs:
 * compat_fixture.h.
 *
 * job: test smp
 */
#define _GNU_SOURCE
#include <sys/stat.h>

#include "compat_fixture.h"

#define CG2_DIR			"/tmp/compat.cgroup2"

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
 * A task frozen through cgroup v2 (cgroup.freeze, sleeping in
 * do_freezer_trap()) does not make a system freeze fail, stays frozen
 * through it and after it, and runs again once the cgroup is thawed.
 */
TEST_F(compat, cgroup2_frozen_tasks_stay_frozen_across_a_system_freeze)
{
	char path[256], buf[256], name[64];
	unsigned long before[2];
	int i, ret;

	snprintf(name, sizeof(name), "compat.%d", getpid());
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
	snprintf(self->cg1_dir, sizeof(self->cg1_dir), "%s/compat.%d", CG1_DIR, getpid());
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

COMPAT_MAIN
