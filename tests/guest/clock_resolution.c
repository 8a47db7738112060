// SPDX-License-Identifier: GPL-2.0
/*
 * The clocks a developer reads freeze timings from: the printk timestamps
 * of dmesg and /dev/kmsg, and the "local" trace clock (trace-cmd's
 * default).  Both come from sched_clock(); on UML without a sched_clock()
 * of its own they fall back to jiffies and step by a whole tick (10 ms at
 * HZ=100), which makes every short phase 0 or 10 ms long.
 *
 * Each test stamps a run of back-to-back marks and checks the smallest
 * step between two marks whose timestamps differ: it must be below a
 * millisecond.  Only the smallest step counts, so a preemption between
 * two marks on a busy host does not matter.
 *
 * job: test
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "harness_main.h"
#include "freeze.h"

#define MARKS		50	/* fit in the unexpanded 7 KB trace buffer */
#define MARK		"clock_resolution mark"
#define TICK_US		10000	/* one jiffy at HZ=100 */
#define RESOLUTION_US	1000

/*
 * Smallest difference between consecutive distinct values of @ts[0..n),
 * or -1 if they are all equal.
 */
static long long min_step(const long long *ts, int n)
{
	long long best = -1;
	int i;

	for (i = 1; i < n; i++) {
		long long step = ts[i] - ts[i - 1];

		if (step > 0 && (best < 0 || step < best))
			best = step;
	}
	return best;
}

TEST(printk_timestamps_step_below_a_millisecond)
{
	long long ts[MARKS];
	char rec[1024], mark[64];
	int fd, i, n = 0;

	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, fd) TH_LOG("/dev/kmsg: %s", strerror(errno));
	/* Read only what is logged from here on. */
	ASSERT_LE(0, lseek(fd, 0, SEEK_END));
	for (i = 0; i < MARKS; i++) {
		/* A new open each time: each open may log only 10 lines in 5 s. */
		int wfd = open("/dev/kmsg", O_WRONLY);

		ASSERT_LE(0, wfd);
		snprintf(mark, sizeof(mark), MARK " %d\n", i);
		ASSERT_LT(0, write(wfd, mark, strlen(mark)));
		close(wfd);
	}
	/* Records: "prio,seq,usec,flags;message"; the marks in order. */
	while (n < MARKS) {
		ssize_t len = read(fd, rec, sizeof(rec) - 1);
		unsigned long long usec;
		const char *msg;

		if (len < 0 && errno == EPIPE)
			continue;	/* overwritten records: skip them */
		if (len <= 0)
			break;
		rec[len] = 0;
		msg = strchr(rec, ';');
		if (!msg || strncmp(msg + 1, MARK, strlen(MARK)) ||
		    sscanf(rec, "%*u,%*u,%llu", &usec) != 1)
			continue;
		ts[n++] = usec;
	}
	close(fd);
	ASSERT_EQ(MARKS, n) TH_LOG("read back %d of %d marks", n, MARKS);
	TH_LOG("%d marks over %lld us; smallest step %lld us",
	       n, ts[n - 1] - ts[0], min_step(ts, n));
	ASSERT_LT(0, min_step(ts, n))
		TH_LOG("all %d marks have one timestamp: the clock did not move", n);
	EXPECT_GT(RESOLUTION_US, min_step(ts, n))
		TH_LOG("printk timestamps step by a tick (%d us)?", TICK_US);
}

static void clear_trace(void)
{
	close(open(TRACING "/trace", O_WRONLY | O_TRUNC));
}

/* Parse the timestamp in microseconds of a "trace" line of a mark, or -1. */
static long long trace_line_us(const char *line)
{
	const char *at = strstr(line, ": tracing_mark_write: " MARK);
	unsigned long long sec, usec;
	const char *p;

	if (!at)
		return -1;
	for (p = at; p > line && p[-1] != ' '; p--)
		;
	if (sscanf(p, "%llu.%6llu:", &sec, &usec) != 2)
		return -1;
	return sec * 1000000 + usec;
}

TEST(trace_clock_local_steps_below_a_millisecond)
{
	char clock[256] = "", line[512], mark[64];
	long long ts[MARKS];
	int fd, i, n = 0;
	FILE *trace;

	if (access(TRACING "/trace_marker", W_OK))
		SKIP(return, "no " TRACING "/trace_marker: no CONFIG_TRACING");
	ASSERT_LT(0, read_str(TRACING "/trace_clock", clock, sizeof(clock)));
	ASSERT_EQ(0, write_str(TRACING "/trace_clock", "local"));
	ASSERT_EQ(0, write_str(TRACING "/tracing_on", "1"));
	clear_trace();
	fd = open(TRACING "/trace_marker", O_WRONLY);
	ASSERT_LE(0, fd);
	for (i = 0; i < MARKS; i++) {
		snprintf(mark, sizeof(mark), MARK " %d\n", i);
		ASSERT_LT(0, write(fd, mark, strlen(mark)));
	}
	close(fd);
	trace = fopen(TRACING "/trace", "r");
	ASSERT_NE(NULL, trace);
	while (n < MARKS && fgets(line, sizeof(line), trace)) {
		long long us = trace_line_us(line);

		if (us >= 0)
			ts[n++] = us;
	}
	fclose(trace);
	/* Leave the buffer empty and the clock as it was ("[local] global ..."). */
	clear_trace();
	if (strchr(clock, '[')) {
		*strchr(clock, ']') = 0;
		write_str(TRACING "/trace_clock", strchr(clock, '[') + 1);
	}
	ASSERT_EQ(MARKS, n) TH_LOG("found %d of %d marks in the trace", n, MARKS);
	TH_LOG("%d marks over %lld us; smallest step %lld us",
	       n, ts[n - 1] - ts[0], min_step(ts, n));
	ASSERT_LT(0, min_step(ts, n))
		TH_LOG("all %d marks have one timestamp: the clock did not move", n);
	EXPECT_GT(RESOLUTION_US, min_step(ts, n))
		TH_LOG("the local trace clock steps by a tick (%d us)?", TICK_US);
}

HARNESS_MAIN
