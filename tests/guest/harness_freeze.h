/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A freeze inside a kselftest_harness test: the round trip logged, with
 * the kernel's lines on who refused when it fails, and a freeze that must
 * succeed with the window the kernel measured.  Include after
 * kselftest_harness.h and freeze.h.
 */
#ifndef HARNESS_FREEZE_H
#define HARNESS_FREEZE_H

#include <stdlib.h>
#include <string.h>
#include "freeze.h"

/*
 * Freeze and thaw; 0 or -errno.  Logs how long the round trip took (also
 * into *@took_ns unless NULL) and, on failure, who refused.  The kernel
 * log is emptied first, so a test reads only this freeze's lines.
 */
static inline int freeze_timed(struct __test_metadata *_metadata, long long *took_ns)
{
	long long t0, took;
	char *log;
	int ret;

	dmesg_clear();
	t0 = now_ns();
	ret = freeze_thaw();
	took = now_ns() - t0;
	TH_LOG("freeze round trip: %d (%s), %.3f ms", ret, ret ? strerror(-ret) : "ok", took / 1e6);
	if (took_ns)
		*took_ns = took;
	if (ret && (log = dmesg_read())) {
		log_kernel_lines(log, "Freezing", 4);
		log_kernel_lines(log, "task:", 8);
		free(log);
	}
	return ret;
}

static inline int freeze(struct __test_metadata *_metadata)
{
	return freeze_timed(_metadata, NULL);
}

/*
 * A freeze that must succeed; returns the window in which the kernel had
 * every user task frozen (into @w unless NULL), which a task that sat
 * through the freeze shows as a gap longer than the returned ns.
 */
static inline long long freeze_window(struct __test_metadata *_metadata, struct freeze_window *w)
{
	struct freeze_window window;

	if (!w)
		w = &window;
	ASSERT_EQ(0, freeze(_metadata));
	ASSERT_EQ(0, last_freeze_window(w)) TH_LOG("no freeze window in %s", FREEZER_BENCH_LAST);
	TH_LOG("frozen window: %.3f ms, %d user tasks frozen", frozen_ns(w) / 1e6, w->frozen);
	return frozen_ns(w);
}

#endif /* HARNESS_FREEZE_H */
