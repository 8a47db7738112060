// SPDX-License-Identifier: GPL-2.0
/*
 * A freezable kernel thread in an uninterruptible sleep with a timeout,
 * as threads polling hardware sleep: both freezers wake it from any sleep
 * (TASK_NORMAL), so it reaches its checkpoint at once instead of after its
 * timeout.  The nap is longer than the freeze timeout: a freezer that only
 * woke interruptible sleepers would fail with EBUSY naming todo_napper.
 *
 * The fixture and the helpers shared with the other compat_* programs:
 * compat_fixture.h.
 *
 * job: test smp
 */
#define _GNU_SOURCE
#include "compat_fixture.h"

/* The napping kernel thread sleeps longer than the freeze may take. */
#define NAP_MS			30000
#define NAP_FREEZE_TIMEOUT_MS	5000

TEST_F_TIMEOUT(compat, kthread_in_uninterruptible_timed_sleep_freezes_at_once, 90)
{
	long long started, gone_ns;
	struct freeze_window w;
	int count;
	pid_t pid;

	if (access(KNOB_NAPPING_KTHREAD, W_OK))
		SKIP(return, "no %s (CONFIG_TODO_FREEZER_TEST)", KNOB_NAPPING_KTHREAD);
	find_kthread("todo_napper", &count);
	ASSERT_EQ(0, count) TH_LOG("a todo_napper thread is left from before");
	ASSERT_EQ(0, save_and_set(PM_FREEZE_TIMEOUT, self->saved_freeze_timeout,
				  sizeof(self->saved_freeze_timeout), NAP_FREEZE_TIMEOUT_MS));
	started = now_ns();
	pid = start_knob_kthread(KNOB_NAPPING_KTHREAD, "todo_napper", NAP_MS);
	ASSERT_NE(0, pid) TH_LOG("no todo_napper thread");
	ASSERT_TRUE(wait_state(pid, 'D'));

	EXPECT_EQ(0, freeze(_metadata))
		TH_LOG("a kernel thread napping %d ms uninterruptibly held up the freeze for its %d ms timeout",
		       NAP_MS, NAP_FREEZE_TIMEOUT_MS);
	ASSERT_EQ(0, last_freeze_window(&w));

	/* Woken by the freeze, frozen, thawed: it exits long before its nap ends. */
	ASSERT_TRUE(kthread_gone_by(pid, "todo_napper", started + (NAP_MS + 2000) * 1000000LL))
		TH_LOG("todo_napper did not exit");
	gone_ns = now_ns();
	TH_LOG("todo_napper exited %.3f ms after it started, %.3f ms after the thaw began",
	       (gone_ns - started) / 1e6, (gone_ns - w.thaw_at_ns) / 1e6);
	/* schedule_timeout() never returns early unless the task is woken. */
	EXPECT_LT(gone_ns - started, NAP_MS * 1000000LL)
		TH_LOG("todo_napper slept its whole nap: no freezer woke it");
}

COMPAT_MAIN
