// SPDX-License-Identifier: GPL-2.0
/*
 * Freeze/thaw round trip through the standard interface: pm_test=freezer,
 * "echo freeze > /sys/power/state".  A spinning child records the largest
 * gap between two of its clock readings: a freeze that really froze it shows
 * a gap of about pm_test_delay, and the child must keep running afterwards.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "guest.h"

#define PM_TEST		"/sys/power/pm_test"
#define PM_TEST_DELAY	"/sys/module/suspend/parameters/pm_test_delay"
#define POWER_STATE	"/sys/power/state"
#define DELAY_S		1

struct spin_record {
	volatile long long max_gap_ns;
	volatile unsigned long long loops;
};

static void spin(struct spin_record *rec)
{
	long long last = now_ns(), t;

	for (;;) {
		t = now_ns();
		if (t - last > rec->max_gap_ns)
			rec->max_gap_ns = t - last;
		last = t;
		rec->loops++;
	}
}

/*
 * Wait until the spinner has taken more clock readings, so that a gap
 * spanning the freeze has been measured.  After the thaw the suspending
 * task may run before the spinner does.
 */
static int spinner_ran(struct spin_record *rec)
{
	unsigned long long loops = rec->loops;
	int i;

	for (i = 0; i < 200; i++) {
		usleep(10000);
		if (rec->loops > loops + 100)
			return 1;
	}
	return 0;
}

FIXTURE(freezer) {
	struct spin_record *rec;
	pid_t spinner;
};

FIXTURE_SETUP(freezer)
{
	char delay[16];

	if (access(PM_TEST, W_OK))
		SKIP(return, "%s not writable: needs CONFIG_PM_DEBUG and root", PM_TEST);
	ASSERT_EQ(0, write_str(PM_TEST, "freezer"));
	snprintf(delay, sizeof(delay), "%d", DELAY_S);
	ASSERT_EQ(0, write_str(PM_TEST_DELAY, delay));

	self->rec = mmap(NULL, sizeof(*self->rec), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->rec);
	self->spinner = fork();
	ASSERT_GE(self->spinner, 0);
	if (self->spinner == 0)
		spin(self->rec);
	/* Let it spin for a while so its ordinary gaps are measured too. */
	while (self->rec->loops < 1000)
		usleep(10000);
	usleep(200000);
}

FIXTURE_TEARDOWN(freezer)
{
	if (self->spinner > 0) {
		kill(self->spinner, SIGKILL);
		waitpid(self->spinner, NULL, 0);
	}
	write_str(PM_TEST, "none");
}

/* The write succeeds, the spinner was stopped for ~DELAY_S, and runs on. */
TEST_F(freezer, freeze_thaw_stops_and_resumes_a_spinner)
{
	long long gap_before = self->rec->max_gap_ns;

	ASSERT_LT(gap_before, DELAY_S * 500000000LL) {
		TH_LOG("spinner already had a %lld ns gap before the freeze", gap_before);
	}
	ASSERT_EQ(0, write_str(POWER_STATE, "freeze"));
	ASSERT_TRUE(spinner_ran(self->rec)) {
		TH_LOG("spinner did not run within 2 s of the thaw");
	}
	TH_LOG("largest spinner gap: %lld ms (pm_test_delay %d s)",
	       self->rec->max_gap_ns / 1000000, DELAY_S);
	EXPECT_GE(self->rec->max_gap_ns, DELAY_S * 800000000LL);
}

/* A second round trip works too: the freezer re-arms after a thaw. */
TEST_F(freezer, second_round_trip_succeeds)
{
	ASSERT_EQ(0, write_str(POWER_STATE, "freeze"));
	ASSERT_TRUE(spinner_ran(self->rec));
	self->rec->max_gap_ns = 0;
	ASSERT_EQ(0, write_str(POWER_STATE, "freeze"));
	ASSERT_TRUE(spinner_ran(self->rec));
	EXPECT_GE(self->rec->max_gap_ns, DELAY_S * 800000000LL);
}

TEST_HARNESS_MAIN
