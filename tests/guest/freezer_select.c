// SPDX-License-Identifier: GPL-2.0
/*
 * Choosing the system freezer through /sys/power/freezer: it reads
 * "[todo] classic" or "todo [classic]", takes "todo" or "classic" (a
 * trailing newline allowed) from root only, refuses anything else with
 * EINVAL and changes nothing then, and a freeze works under either.
 *
 * The tests run on whatever freezer is selected at start and restore it.
 *
 * job: test shortdelay
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
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

/*
 * pm_test_delay, nominally: an mdelay(), as long as the boot's BogoMIPS
 * calibration makes it (UML on a shared host: a round trip with a 1 s delay
 * took 0.79 s on one boot), so the sleeper counts as frozen when its
 * largest gap covers the window the kernel measured with every user task
 * frozen (struct freeze_window).
 */
#define DELAY_S			1
#define SLEEPER_PERIOD_US	20000
#define NOBODY			65534

static const char *const read_todo = "[todo] classic\n";
static const char *const read_classic = "todo [classic]\n";

/* The selection at start, restored by the teardown ("" if no choice). */
static char saved[16];

/* The contents of /sys/power/freezer; 0 or -errno. */
static int read_freezer(char *buf, size_t size)
{
	int n = read_str(FREEZER_SELECT, buf, size);

	return n < 0 ? n : 0;
}

/* Write @len bytes of @text to /sys/power/freezer; 0 or -errno. */
static int write_freezer(const char *text, size_t len, ssize_t *written)
{
	int fd = open(FREEZER_SELECT, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	if (written)
		*written = n;
	close(fd);
	return n < 0 ? -errno : 0;
}

/* A teardown: kill the test's child, restore the freezer and pm_test. */
static void undo_test(pid_t *child)
{
	kill_child(child);
	if (saved[0])
		write_str(FREEZER_SELECT, saved);
	write_str(PM_TEST, "none");
}

FIXTURE(select) {
	pid_t child;
};

FIXTURE_SETUP(select)
{
	char buf[64];

	self->child = 0;
	saved[0] = 0;
	if (access(FREEZER_SELECT, F_OK))
		return;		/* each test decides whether it needs the choice */
	ASSERT_EQ(0, read_freezer(buf, sizeof(buf)));
	strcpy(saved, strcmp(buf, read_todo) ? "classic" : "todo");
}

FIXTURE_TEARDOWN(select)
{
	undo_test(&self->child);
}

#define NEED_SELECT() do { \
	if (access(FREEZER_SELECT, F_OK)) \
		SKIP(return, "no %s: needs CONFIG_TODO_FREEZER", FREEZER_SELECT); \
} while (0)

/* Both freezers are listed, exactly one of them in brackets. */
TEST_F(select, lists_both_with_exactly_one_selected)
{
	char buf[64];

	NEED_SELECT();
	ASSERT_EQ(0, read_freezer(buf, sizeof(buf)));
	TH_LOG("%s reads: %s", FREEZER_SELECT, buf);
	EXPECT_TRUE(!strcmp(buf, read_todo) || !strcmp(buf, read_classic))
		TH_LOG("not \"[todo] classic\" nor \"todo [classic]\": \"%s\"", buf);
	EXPECT_EQ(1, !!strstr(buf, "[todo]") + !!strstr(buf, "[classic]"));
}

/* "classic" and "todo", with and without a newline, switch and read back. */
TEST_F(select, switching_reads_back)
{
	static const struct {
		const char *write, *reads;
	} steps[] = {
		{ "classic", "todo [classic]\n" },
		{ "todo", "[todo] classic\n" },
		{ "classic\n", "todo [classic]\n" },
		{ "todo\n", "[todo] classic\n" },
		{ "todo", "[todo] classic\n" },		/* selecting it again */
		{ "classic", "todo [classic]\n" },
		{ "classic", "todo [classic]\n" },
	};
	char buf[64];
	ssize_t n;
	size_t i;

	NEED_SELECT();
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		size_t len = strlen(steps[i].write);

		EXPECT_EQ(0, write_freezer(steps[i].write, len, &n))
			TH_LOG("writing \"%.*s\"", (int)strcspn(steps[i].write, "\n"), steps[i].write);
		EXPECT_EQ((ssize_t)len, n);
		ASSERT_EQ(0, read_freezer(buf, sizeof(buf)));
		EXPECT_STREQ(steps[i].reads, buf);
	}
}

/*
 * Anything else is EINVAL and changes nothing, from either selection.
 * "\n" is what "echo > freezer" writes; a write of no bytes at all never
 * reaches the attribute (sysfs returns 0 for it) and changes nothing too.
 */
TEST_F(select, bad_input_is_einval_and_changes_nothing)
{
	static const char *const bad[] = {
		"bogus", "\n", "todo classic", "TODO", "classic todo\n", "todo\n\n",
		" todo", "todox", "[todo]",
	};
	static const char *const start[] = { "todo", "classic" };
	char buf[64], want[64];
	ssize_t n;
	size_t i, s;

	NEED_SELECT();
	for (s = 0; s < 2; s++) {
		ASSERT_EQ(0, write_str(FREEZER_SELECT, start[s]));
		ASSERT_EQ(0, read_freezer(want, sizeof(want)));
		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			EXPECT_EQ(-EINVAL, write_freezer(bad[i], strlen(bad[i]), NULL))
				TH_LOG("writing \"%s\" with %s selected", bad[i], start[s]);
			ASSERT_EQ(0, read_freezer(buf, sizeof(buf)));
			EXPECT_STREQ(want, buf) TH_LOG("after writing \"%s\"", bad[i]);
		}
		n = -1;
		EXPECT_EQ(0, write_freezer("", 0, &n));
		EXPECT_EQ(0, n);
		ASSERT_EQ(0, read_freezer(buf, sizeof(buf)));
		EXPECT_STREQ(want, buf) TH_LOG("after writing nothing");
	}
}

/* What the child running as nobody found, by its exit status. */
static const char *nobody_failure(int status)
{
	switch (status) {
	case 10: return "setuid failed";
	case 11: return "a write succeeded";
	case 12: return "the file opened for writing (the write failed)";
	case 13: return "open for writing failed, but not with EACCES";
	case 14: return "the world-readable file is unreadable";
	case 15: return "the private file is readable, or not with EACCES";
	case 16: return "read nothing";
	case 17: return "read something else than root does";
	}
	return "?";
}

/*
 * Only root selects: the file is root's, mode 0644 or 0600, and a task
 * that switched to uid 65534 cannot open it for writing (EACCES), nor
 * change the selection; it can read it only if the mode lets it.
 */
TEST_F(select, only_root_can_select)
{
	struct stat st;
	char before[64], after[64];
	int status;

	NEED_SELECT();
	ASSERT_EQ(0, stat(FREEZER_SELECT, &st));
	TH_LOG("%s: mode %04o, uid %d", FREEZER_SELECT, st.st_mode & 07777, st.st_uid);
	EXPECT_EQ(0U, st.st_uid);
	EXPECT_TRUE((st.st_mode & 07777) == 0644 || (st.st_mode & 07777) == 0600);
	ASSERT_EQ(0, read_freezer(before, sizeof(before)));

	self->child = fork();
	ASSERT_GE(self->child, 0);
	if (self->child == 0) {
		const char *other = strcmp(before, read_todo) ? "todo" : "classic";
		char buf[64];
		int fd;

		if (setgid(NOBODY) || setuid(NOBODY))
			_exit(10);
		fd = open(FREEZER_SELECT, O_WRONLY);
		if (fd >= 0) {
			/* Then at least the write must fail. */
			if (write(fd, other, strlen(other)) >= 0)
				_exit(11);
			_exit(12);
		}
		if (errno != EACCES)
			_exit(13);
		fd = open(FREEZER_SELECT, O_RDONLY);
		if ((st.st_mode & 0004) && fd < 0)
			_exit(14);	/* world-readable, yet unreadable */
		if (!(st.st_mode & 0004) && (fd >= 0 || errno != EACCES))
			_exit(15);	/* private, yet readable */
		if (fd >= 0) {
			ssize_t n = read(fd, buf, sizeof(buf) - 1);

			if (n <= 0)
				_exit(16);
			buf[n] = 0;
			if (strcmp(buf, before))
				_exit(17);
		}
		_exit(0);
	}
	ASSERT_EQ(self->child, waitpid(self->child, &status, 0));
	self->child = 0;
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status))
		TH_LOG("as uid %d: %s", NOBODY, nobody_failure(WEXITSTATUS(status)));
	ASSERT_EQ(0, read_freezer(after, sizeof(after)));
	EXPECT_STREQ(before, after);
}

/* Shared with the sleeper. */
struct gap {
	volatile long long max_gap_ns;
	volatile unsigned long iters;
};

/* The same fixture, once per freezer. */
FIXTURE(freeze) {
	pid_t child;
};

FIXTURE_VARIANT(freeze) {
	const char *freezer;
};

FIXTURE_VARIANT_ADD(freeze, todo) {
	.freezer = "todo",
};

FIXTURE_VARIANT_ADD(freeze, classic) {
	.freezer = "classic",
};

FIXTURE_SETUP(freeze)
{
	self->child = 0;
	saved[0] = 0;
	if (!access(FREEZER_SELECT, F_OK))
		strcpy(saved, freezer_is("todo") ? "todo" : "classic");
}

FIXTURE_TEARDOWN(freeze)
{
	undo_test(&self->child);
}

/*
 * A freeze under each freezer works: the round trip returns 0, the kernel
 * says which freezer froze, and a sleeping child sat through the freeze.
 */
TEST_F_TIMEOUT(freeze, round_trip_works, 30)
{
	struct gap *g;
	struct freeze_window w;
	unsigned long iters;
	long long quiet_gap;
	char want[64], *log;
	long long t0, elapsed;
	int i, ret;

	if (access(PM_TEST, W_OK))
		SKIP(return, "%s not writable: needs CONFIG_PM_DEBUG and root", PM_TEST);
	ret = select_freezer(variant->freezer);
	if (ret == -ENOENT)
		SKIP(return, "no %s: only the classic freezer", FREEZER_SELECT);
	ASSERT_EQ(0, ret);
	ASSERT_TRUE(freezer_is(variant->freezer));
	ASSERT_EQ(0, setup_pm_test(DELAY_S));

	g = mmap(NULL, sizeof(*g), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, g);
	self->child = fork();
	ASSERT_GE(self->child, 0);
	if (self->child == 0) {
		prctl(PR_SET_NAME, "select-sleeper");
		gap_loop(&g->max_gap_ns, &g->iters, SLEEPER_PERIOD_US);
	}
	for (i = 0; i < 400 && g->iters < 10; i++)
		usleep(5000);
	ASSERT_LE(10UL, g->iters);
	g->max_gap_ns = 0;
	usleep(200000);
	quiet_gap = g->max_gap_ns;

	dmesg_clear();
	iters = g->iters;
	t0 = now_ns();
	ret = freeze_thaw();
	elapsed = now_ns() - t0;
	TH_LOG("%s freezer: round trip %d, %.3f ms", variant->freezer, ret, elapsed / 1e6);
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, last_freeze_window(&w)) TH_LOG("no freeze window in %s", FREEZER_BENCH_LAST);
	for (i = 0; i < 600 && g->iters < iters + 2; i++)
		usleep(5000);
	ASSERT_LE(iters + 2, g->iters) TH_LOG("the sleeper did not run again within 3 s");
	TH_LOG("the sleeper's largest gap: %.3f ms, before the freeze %.3f ms; frozen window %.3f ms",
	       g->max_gap_ns / 1e6, quiet_gap / 1e6, frozen_ns(&w) / 1e6);
	/* Otherwise a gap from before the freeze could pass for a frozen one. */
	ASSERT_LT(quiet_gap, frozen_ns(&w));
	EXPECT_GT(g->max_gap_ns, frozen_ns(&w));

	/* The kernel names the freezer it froze with. */
	if (!access(FREEZER_SELECT, F_OK)) {
		log = dmesg_read();
		ASSERT_NE(NULL, log);
		snprintf(want, sizeof(want), "Freezing user space processes (%s freezer)",
			 variant->freezer);
		EXPECT_NE(NULL, strstr(log, want)) TH_LOG("no \"%s\" in the kernel log", want);
		free(log);
	}
	munmap(g, sizeof(*g));
}

HARNESS_MAIN
