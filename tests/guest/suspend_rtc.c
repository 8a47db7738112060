// SPDX-License-Identifier: GPL-2.0
/*
 * A real suspend-to-idle, not a pm_test stop: arm the RTC alarm
 * (/sys/class/rtc/rtc0/wakealarm; busybox has no rtcwake), write "freeze"
 * to /sys/power/state with pm_test off, and let the alarm wake the machine
 * (the UML RTC is a wakeup source).  UML's "mem" state is no good here: it
 * returns well before the alarm.
 *
 * Once per boot: on UML 6.12 the RTC interrupt that wakes suspend-to-idle
 * is not replayed after resume, so the RTC core never sees the alarm fire,
 * the alarm stays set, and a second suspend in the same boot is never
 * woken.  The host boots once per freezer (tests/host/45-suspend-rtc.sh),
 * choosing it with the freezer= boot parameter, which this also checks.  Once per freezer, the kernel log must
 * show that freezer freezing user space and thawing it again, and a child
 * counting in a loop must have stopped for the whole suspend.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "freeze.h"

#define WAKEALARM	"/sys/class/rtc/rtc0/wakealarm"
#define ALARM_S		2

struct counter {
	volatile long long max_gap_ns;
	volatile unsigned long iters;
};

FIXTURE(rtc) {
	pid_t child;
	struct counter *c;
};

FIXTURE_SETUP(rtc)
{
	self->child = 0;
	if (access(WAKEALARM, W_OK))
		SKIP(return, "no %s (CONFIG_RTC_CLASS, CONFIG_UML_RTC)", WAKEALARM);
	self->c = mmap(NULL, sizeof(*self->c), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->c);
	ASSERT_EQ(0, write_str(PM_TEST, "none"));
}

FIXTURE_TEARDOWN(rtc)
{
	if (self->child > 0) {
		kill(self->child, SIGKILL);
		waitpid(self->child, NULL, 0);
	}
	write_str(WAKEALARM, "0");
}

/* Sleeps 10 ms per iteration and records its largest gap. */
static void counter_loop(struct counter *c)
{
	long long last = now_ns(), t;

	for (;;) {
		t = now_ns();
		if (t - last > c->max_gap_ns)
			c->max_gap_ns = t - last;
		last = t;
		c->iters++;
		usleep(10000);
	}
}

static void suspend_once(struct __test_metadata *_metadata,
			 FIXTURE_DATA(rtc) *self, const char *freezer)
{
	char expect[64], alarm[16], *log;
	struct freeze_window w;
	long long t0, took;
	int i, ret;

	ret = select_freezer(freezer);
	if (ret == -ENOENT)
		SKIP(return, "this kernel has no %s freezer", freezer);
	ASSERT_EQ(0, ret);

	self->child = fork();
	ASSERT_GE(self->child, 0);
	if (self->child == 0)
		counter_loop(self->c);
	for (i = 0; i < 400 && self->c->iters < 10UL; i++)
		usleep(5000);
	ASSERT_GE(self->c->iters, 10UL);
	self->c->max_gap_ns = 0;

	dmesg_clear();
	ASSERT_EQ(0, write_str(WAKEALARM, "0"));
	snprintf(alarm, sizeof(alarm), "+%d", ALARM_S);
	ASSERT_EQ(0, write_str(WAKEALARM, alarm));
	t0 = now_ns();
	ret = write_str(POWER_STATE, "freeze");
	took = now_ns() - t0;
	TH_LOG("suspend-to-idle with the %s freezer: %d after %.3f s",
	       freezer, ret, took / 1e9);
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, last_freeze_window(&w)) TH_LOG("no freeze window in %s", FREEZER_BENCH_LAST);
	/*
	 * Woken by the alarm, not at once.  Not a timing guess: "+N" arms the
	 * alarm N whole seconds after the RTC's current second, so it cannot
	 * fire sooner than N - 1 s after the write, however busy the host.
	 * (No upper bound: how late the machine gets back depends on the load.)
	 */
	EXPECT_GE(took, (ALARM_S - 1) * 1000000000LL);

	/* The child runs again and shows the suspend as one long gap. */
	i = self->c->iters;
	while (self->c->iters < (unsigned long)i + 3 && now_ns() - t0 < 20000000000LL)
		usleep(10000);
	TH_LOG("child's largest gap: %.3f s; user space frozen for %.3f s",
	       self->c->max_gap_ns / 1e9, frozen_ns(&w) / 1e9);
	EXPECT_GT(self->c->max_gap_ns, frozen_ns(&w));

	log = dmesg_read();
	ASSERT_NE(NULL, log);
	snprintf(expect, sizeof(expect), "Freezing user space processes (%s freezer)",
		 freezer);
	if (access(FREEZER_SELECT, F_OK))	/* a stock kernel names no freezer */
		snprintf(expect, sizeof(expect), "Freezing user space processes");
	EXPECT_NE(NULL, strstr(log, expect)) TH_LOG("no \"%s\" in the kernel log", expect);
	EXPECT_NE(NULL, strstr(log, "PM: suspend entry (s2idle)"));
	EXPECT_NE(NULL, strstr(log, "PM: suspend exit"));
	EXPECT_NE(NULL, strstr(log, "Restarting tasks ... done"));
	free(log);
}

/* The freezer= of the kernel command line, or "todo", the default. */
static const char *boot_freezer(void)
{
	char cmdline[4096];

	if (read_str("/proc/cmdline", cmdline, sizeof(cmdline)) > 0 &&
	    strstr(cmdline, "freezer=classic"))
		return "classic";
	return "todo";
}

TEST_F(rtc, suspend_to_idle_woken_by_rtc_alarm)
{
	const char *freezer = boot_freezer();

	/* The boot parameter chose the freezer. */
	if (!access(FREEZER_SELECT, F_OK))
		ASSERT_TRUE(freezer_is(freezer))
			TH_LOG("booted with freezer=%s, /sys/power/freezer disagrees", freezer);
	suspend_once(_metadata, self, freezer);
}

TEST_HARNESS_MAIN
