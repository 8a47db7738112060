// SPDX-License-Identifier: GPL-2.0
/*
 * Freeze/thaw round trip through the standard interface: pm_test=freezer,
 * "echo freeze > /sys/power/state".  A spinning child records the largest
 * gap between two of its clock readings: a freeze that really froze it shows
 * a gap longer than the window the kernel measured between the last task
 * frozen and the start of the thaw, and the child must keep running after.
 *
 * job: test shortdelay
 */
#define _GNU_SOURCE
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
#include "harness_main.h"
#include "freeze.h"

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
	if (access(PM_TEST, W_OK))
		SKIP(return, "%s not writable: needs CONFIG_PM_DEBUG and root", PM_TEST);
	ASSERT_EQ(0, setup_pm_test(DELAY_S));

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

/*
 * One freeze and thaw: it succeeds, the spinner runs again, and its largest
 * gap covers the window in which the kernel had every user task frozen.
 * Its largest gap before the freeze must be shorter than that window, or a
 * spinner that never froze could pass.
 */
static void round_trip(struct __test_metadata *_metadata, struct spin_record *rec)
{
	long long gap_before = rec->max_gap_ns;
	struct freeze_window w;

	ASSERT_EQ(0, freeze_thaw());
	ASSERT_EQ(0, last_freeze_window(&w)) TH_LOG("no freeze window in %s", FREEZER_BENCH_LAST);
	ASSERT_TRUE(spinner_ran(rec)) TH_LOG("spinner did not run within 2 s of the thaw");
	TH_LOG("largest spinner gap %.3f ms, before the freeze %.3f ms, frozen window %.3f ms",
	       rec->max_gap_ns / 1e6, gap_before / 1e6, frozen_ns(&w) / 1e6);
	ASSERT_LT(gap_before, frozen_ns(&w));
	EXPECT_GT(rec->max_gap_ns, frozen_ns(&w));
}

/* The write succeeds, the spinner was stopped while frozen, and runs on. */
TEST_F(freezer, freeze_thaw_stops_and_resumes_a_spinner)
{
	round_trip(_metadata, self->rec);
}

/* A second round trip works too: the freezer re-arms after a thaw. */
TEST_F(freezer, second_round_trip_succeeds)
{
	round_trip(_metadata, self->rec);
	self->rec->max_gap_ns = 0;
	usleep(200000);
	round_trip(_metadata, self->rec);
}

HARNESS_MAIN
