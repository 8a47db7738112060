// SPDX-License-Identifier: GPL-2.0
/*
 * Real suspends, not pm_test stops: arm the RTC alarm
 * (/sys/class/rtc/rtc0/wakealarm; busybox has no rtcwake), write "freeze"
 * (suspend-to-idle) or "mem" (suspend-to-RAM) to /sys/power/state with
 * pm_test off, and let the alarm wake the machine (the UML RTC is a wakeup
 * source).  UML 6.12's "mem" returned at once: its suspend slept only
 * while the host timer was armed, and suspend stops the timer.
 *
 * Five suspends-to-idle and two suspends-to-RAM in a row per freezer, the
 * fixture's variants (rtc.todo.*,
 * rtc.classic.*; scripts/guest/jobs/rtc-job.sh runs the program in its own boot).
 * Each must be woken by its own alarm: the "+2" is accepted (UML 6.12 lost
 * the rtc interrupt of a suspend, so the RTC core kept the alarm and the
 * next "+2" got EBUSY), the rtc count in /proc/interrupts goes up by one
 * (the sigio helper stopped polling the timerfd after one alarm, so later
 * ones raised nothing and the suspend slept on), the alarm is consumed,
 * the suspend lasts at least ALARM_S - 1 s, and the RTC reads the alarm's
 * own second when it returns: not early (UML armed the host timer from the
 * guest's system clock while the RTC reads the host's, so once the two
 * drifted apart the alarm fired a second early and stayed set) and not
 * late (woken by something else).
 * The kernel log must show that freezer freezing user space and thawing
 * it again, and a child counting in a loop must have stopped for the whole
 * frozen window each time.
 *
 * Both states suspend timekeeping, as on real hardware: CLOCK_MONOTONIC
 * stands still while CLOCK_BOOTTIME counts the sleep.  UML 6.12 had no
 * cpuidle, so its suspend-to-idle ran the ordinary idle loop with the tick
 * going and CLOCK_MONOTONIC counted the sleep too (as "cpuidle.off=1"
 * still does).
 *
 * job: rtc
 */
#define _GNU_SOURCE
#include <signal.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "freeze.h"
#include "freezer_variants.h"

#define WAKEALARM	"/sys/class/rtc/rtc0/wakealarm"
#define RTC_SECONDS	"/sys/class/rtc/rtc0/since_epoch"
#define ALARM_S		2
#define SUSPENDS	5
/* What suspend-to-idle picks: the deepest state with ->enter_s2idle. */
#define S2IDLE_USAGE	"/sys/devices/system/cpu/cpu0/cpuidle/state1/s2idle/usage"
#define S2IDLE_CYCLES	50

struct counter {
	volatile long long max_gap_ns;
	volatile unsigned long iters;
};

/*
 * What wakealarm says once the RTC core has handled an alarm's interrupt,
 * in @buf: "" for a consumed alarm.  The interrupt only queues that work
 * (rtc_update_irq()), so give it up to a second.  0, or -errno.
 */
static int alarm_after_irq(char *buf, size_t size)
{
	int i, n;

	for (i = 0; i < 100; i++) {
		n = read_str(WAKEALARM, buf, size);
		if (n < 0)
			return n;
		buf[strcspn(buf, "\n")] = 0;
		if (!buf[0])
			break;
		usleep(10000);
	}
	return 0;
}

/*
 * CLOCK_BOOTTIME in ns: unlike CLOCK_MONOTONIC (now_ns()), it counts the
 * time spent in a suspend, where timekeeping is suspended.
 */
static long long boottime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Move the guest's CLOCK_REALTIME by @s seconds; the RTC (host) keeps its. */
static int shift_system_clock(int s)
{
	struct timespec ts;

	if (!s)
		return 0;
	if (clock_gettime(CLOCK_REALTIME, &ts))
		return -errno;
	ts.tv_sec += s;
	return clock_settime(CLOCK_REALTIME, &ts) ? -errno : 0;
}

FIXTURE(rtc) {
	pid_t child;
	struct counter *c;
	int clock_shift_s;	/* undone by the teardown */
};

FREEZER_VARIANTS(rtc);

FIXTURE_SETUP(rtc)
{
	self->child = 0;
	self->clock_shift_s = 0;
	SELECT_VARIANT_FREEZER();
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
	shift_system_clock(-self->clock_shift_s);
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

/* The rtc line's count in /proc/interrupts, or -1. */
static long rtc_irq_count(void)
{
	char line[256];
	long n = -1;
	FILE *f = fopen("/proc/interrupts", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, " rtc") && sscanf(line, " %*[^:]: %ld", &n) == 1)
			break;
	fclose(f);
	return n;
}

/* An integer sysfs value, or -1. */
static long long read_ll(const char *path)
{
	char buf[32];

	if (read_str(path, buf, sizeof(buf)) <= 0)
		return -1;
	return strtoll(buf, NULL, 10);
}

/*
 * Arm the alarm ALARM_S seconds ahead and store in @due the RTC second it
 * is due at; 0, or -errno (EBUSY: still armed).
 */
static int arm_alarm(long long *due)
{
	char alarm[16];
	int ret = write_str(WAKEALARM, "0");

	if (ret)
		return ret;
	snprintf(alarm, sizeof(alarm), "+%d", ALARM_S);
	ret = write_str(WAKEALARM, alarm);
	if (ret)
		return ret;
	*due = read_ll(WAKEALARM);
	return *due > 0 ? 0 : -ENOENT;
}

/* The RTC second at which the rtc interrupt count leaves @count; -1: none. */
static long long rtc_second_of_next_irq(long count)
{
	long long t0 = now_ns();

	/* Only a safety net: 5 alarm periods. */
	while (rtc_irq_count() == count && now_ns() - t0 < 5LL * ALARM_S * 1000000000LL)
		usleep(10000);
	return rtc_irq_count() > count ? read_ll(RTC_SECONDS) : -1;
}

/*
 * With the system clock @shift_s seconds off the RTC, an alarm fires in the
 * second it is due by the RTC, the RTC core sees it and clears it.
 */
static void alarm_on_its_second(struct __test_metadata *_metadata,
				FIXTURE_DATA(rtc) *self, int shift_s)
{
	long long due, fired;
	char alarm[32];
	long count = rtc_irq_count();
	int ret;

	ASSERT_GE(count, 0) TH_LOG("no rtc line in /proc/interrupts");
	ASSERT_EQ(0, shift_system_clock(shift_s));
	self->clock_shift_s = shift_s;
	ret = arm_alarm(&due);
	ASSERT_EQ(0, ret) TH_LOG("arming the alarm: %s", strerror(-ret));
	fired = rtc_second_of_next_irq(count);
	ASSERT_EQ(0, shift_system_clock(-shift_s));
	self->clock_shift_s = 0;
	ASSERT_EQ(0, alarm_after_irq(alarm, sizeof(alarm)));
	TH_LOG("system clock %+d s: alarm due at %lld, fired at %lld, afterwards \"%s\"",
	       shift_s, due, fired, alarm);
	ASSERT_NE(-1, fired) TH_LOG("no rtc interrupt within %d s", 5 * ALARM_S);
	EXPECT_EQ(due, fired) TH_LOG("fired %+lld s off its second", fired - due);
	EXPECT_STREQ("", alarm) TH_LOG("the alarm is still set");
}

/*
 * One suspend to @state ("freeze" or "mem"), woken by the RTC alarm; the
 * kernel log names the state as "s2idle" or "deep".
 */
static void suspend_once(struct __test_metadata *_metadata,
			 FIXTURE_DATA(rtc) *self, const char *freezer,
			 const char *state, int nr)
{
	const char *entry = strcmp(state, "mem") ? "PM: suspend entry (s2idle)" :
						   "PM: suspend entry (deep)";
	char expect[64], alarm[32], *log;
	struct freeze_window w;
	long long t0, m0, took, slept, due, woke;
	long count;
	int i, ret;

	self->c->max_gap_ns = 0;
	dmesg_clear();
	count = rtc_irq_count();
	ASSERT_GE(count, 0) TH_LOG("no rtc line in /proc/interrupts");
	ret = arm_alarm(&due);
	ASSERT_EQ(0, ret) TH_LOG("suspend %d: arming the alarm: %s", nr, strerror(-ret));
	m0 = now_ns();
	t0 = boottime_ns();
	ret = write_str(POWER_STATE, state);
	took = boottime_ns() - t0;
	slept = took - (now_ns() - m0);
	t0 = now_ns();
	woke = read_ll(RTC_SECONDS);
	TH_LOG("suspend %d to %s with the %s freezer: %d after %.3f s (%.3f s of it suspended: CLOCK_BOOTTIME - CLOCK_MONOTONIC); rtc interrupts %ld -> %ld; alarm due at %lld, back at %lld",
	       nr, state, freezer, ret, took / 1e9, slept / 1e9, count, rtc_irq_count(), due, woke);
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, last_freeze_window(&w)) TH_LOG("no freeze window in %s", FREEZER_BENCH_LAST);
	/* Woken by its own alarm, which the RTC core saw fire. */
	EXPECT_EQ(count + 1, rtc_irq_count());
	ASSERT_EQ(0, alarm_after_irq(alarm, sizeof(alarm)));
	EXPECT_STREQ("", alarm) TH_LOG("the alarm is still set: %s", alarm);
	/*
	 * Not at once: "+N" arms the alarm N whole seconds after the RTC's
	 * current second, so it cannot fire sooner than N - 1 s after the
	 * write.  Back in the second the alarm was due: not woken early, not
	 * late by something else.
	 */
	EXPECT_GE(took, (ALARM_S - 1) * 1000000000LL);
	EXPECT_EQ(due, woke) TH_LOG("back %+lld s off the alarm's second", woke - due);
	/* Timekeeping was suspended for the sleep: CLOCK_MONOTONIC stood still. */
	EXPECT_GE(slept, (ALARM_S - 1) * 1000000000LL)
		TH_LOG("CLOCK_MONOTONIC counted the suspend: timekeeping was not suspended");

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
	EXPECT_NE(NULL, strstr(log, entry)) TH_LOG("no \"%s\" in the kernel log", entry);
	EXPECT_NE(NULL, strstr(log, "PM: suspend exit"));
	EXPECT_NE(NULL, strstr(log, "Restarting tasks ... done"));
	free(log);
}

/* Start the counting child and wait until it has counted. */
static void start_counter(struct __test_metadata *_metadata, FIXTURE_DATA(rtc) *self)
{
	int i;

	self->child = fork();
	ASSERT_GE(self->child, 0);
	if (self->child == 0)
		counter_loop(self->c);
	for (i = 0; i < 400 && self->c->iters < 10UL; i++)
		usleep(5000);
	ASSERT_GE(self->c->iters, 10UL);
}

TEST_F_TIMEOUT(rtc, five_suspends_to_idle_each_woken_by_the_rtc_alarm, 300)
{
	int i;

	start_counter(_metadata, self);
	alarm_on_its_second(_metadata, self, 0);
	for (i = 1; i <= SUSPENDS; i++)
		suspend_once(_metadata, self, variant->freezer, "freeze", i);
}

TEST_F_TIMEOUT(rtc, two_suspends_to_ram_each_woken_by_the_rtc_alarm, 120)
{
	int i;

	start_counter(_metadata, self);
	for (i = 1; i <= 2; i++)
		suspend_once(_metadata, self, variant->freezer, "mem", i);
}

/*
 * Many short suspends-to-idle in a row (100 with both freezers), each woken
 * by a "+1" alarm (the next RTC second), each through the cpuidle state
 * with ->enter_s2idle (its s2idle_usage counts them), for the kernel log
 * check after the job: lockdep and KASAN silent across them.  An alarm can
 * fire while the suspend is still freezing; that suspend is then aborted
 * (EBUSY: a wakeup event came) and does not count.
 */
TEST_F_TIMEOUT(rtc, suspends_to_idle_in_a_row_each_through_the_cpuidle_s2idle_state, 240)
{
	long long before, after, slept = 0, t0, m0;
	int done = 0, aborted = 0, ret;

	while (done < S2IDLE_CYCLES) {
		before = read_ll(S2IDLE_USAGE);
		ASSERT_GE(before, 0) TH_LOG("no %s: no cpuidle state with ->enter_s2idle", S2IDLE_USAGE);
		ASSERT_EQ(0, write_str(WAKEALARM, "0"));
		ASSERT_EQ(0, write_str(WAKEALARM, "+1"));
		m0 = now_ns();
		t0 = boottime_ns();
		ret = write_str(POWER_STATE, "freeze");
		if (ret == -EBUSY && ++aborted <= S2IDLE_CYCLES / 2)
			continue;
		ASSERT_EQ(0, ret) TH_LOG("suspend %d: %s (%d aborted before)",
					 done + 1, strerror(-ret), aborted);
		slept += boottime_ns() - t0 - (now_ns() - m0);
		after = read_ll(S2IDLE_USAGE);
		ASSERT_GT(after, before) TH_LOG("suspend %d did not enter the s2idle state", done + 1);
		done++;
	}
	TH_LOG("%d suspends to idle with the %s freezer (%d aborted by an early alarm), %.3f s suspended in all",
	       done, variant->freezer, aborted, slept / 1e9);
}

/*
 * The RTC reads the host's clock; the guest's system clock is its own
 * (set by date, NTP, or drifting across suspends).  UML armed the alarm's
 * host timer for "alarm - system time" seconds: one second ahead, it fired
 * a second early and the RTC core, not yet at the alarm, kept it set for
 * ever; one second behind, a second late; an hour ahead, never.
 */
TEST_F(rtc, alarm_fires_on_its_rtc_second_whatever_the_system_clock_says)
{
	static const int shifts[] = { 1, -1, 3600 };
	unsigned int i;

	for (i = 0; i < sizeof(shifts) / sizeof(shifts[0]); i++)
		alarm_on_its_second(_metadata, self, shifts[i]);
}

static struct saved_setting settings[] = {
	{ .path = PM_FREEZE_TIMEOUT },
};

int main(int argc, char **argv)
{
	return freezer_test_main(argc, argv, settings, sizeof(settings) / sizeof(settings[0]));
}
