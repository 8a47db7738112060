// SPDX-License-Identifier: GPL-2.0
/*
 * Threads that run through a uprobe while the system freezes.  A task that
 * hits a uprobe executes the probed instruction out of line, in the mm's
 * XOL area, before it may take a signal (uprobe_deny_signal()): the
 * classic freezer never freezes a task in that window.  The todo freezer
 * must not either; before it held its items back there, its freeze item
 * froze tasks mid-step, with their user instruction pointer in the XOL
 * area and one of its few slots held until the thaw (and
 * task_todo_call() now warns if an item ever runs there).
 *
 * The program puts a uprobe (tracefs uprobe_events) on a function of its
 * own that threads call in a loop, freezes and thaws many times, and
 * checks: every freeze succeeds and every thread sat through it, the
 * function's results stay right, no SIGTRAP or SIGILL, the probe kept
 * firing, and the kernel logged no warning.  Needs CONFIG_UPROBE_EVENTS
 * (the smp flavour; UML has no uprobes, so it skips there).
 *
 * job: smp
 */
#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include "compat_fixture.h"

#define UPROBE_EVENTS	TRACING "/uprobe_events"
#define UPROBE_PROFILE	TRACING "/uprobe_profile"
#define UPROBE_ENABLE	TRACING "/events/compat_uprobe/hot/enable"
#define HOT_THREADS	6
#define FREEZES		12

/* The probed function, and what it must return, computed without it. */
#define HOT_EXPECT(x)	(((x) * 2654435761UL) ^ ((x) >> 7))

static __attribute__((noinline)) unsigned long hot(unsigned long x)
{
	unsigned long r = HOT_EXPECT(x);

	__asm__ volatile("" : "+r"(r));
	return r;
}

/* Written by one hot thread each, read by the test. */
struct hot_thread {
	pthread_t id;
	volatile unsigned long calls, wrong;
	/* The longest gap between two calls since the test last set @reset. */
	volatile long long gap_ns;
	volatile int reset;
};

static struct hot_thread hot_threads[HOT_THREADS];
static volatile int hot_stop;
static volatile sig_atomic_t traps, ills;

static void count_signal(int sig)
{
	if (sig == SIGTRAP)
		traps++;
	else
		ills++;
}

static void *hot_loop(void *arg)
{
	struct hot_thread *t = arg;
	long long last = now_ns(), gap = 0, now;
	unsigned long i;

	for (i = 1; !hot_stop; i++) {
		if (hot(i) != HOT_EXPECT(i))
			t->wrong++;
		now = now_ns();
		if (t->reset) {
			gap = 0;
			t->reset = 0;
		} else if (now - last > gap) {
			gap = now - last;
		}
		last = now;
		t->gap_ns = gap;
		__sync_synchronize();
		t->calls++;
	}
	return NULL;
}

/* hot()'s offset in the file it was loaded from. */
static int find_hot(struct dl_phdr_info *info, size_t size, void *data)
{
	unsigned long addr = (unsigned long)hot - info->dlpi_addr;
	unsigned long *offset = data;
	int i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && addr >= ph->p_vaddr &&
		    addr < ph->p_vaddr + ph->p_filesz) {
			*offset = addr - ph->p_vaddr + ph->p_offset;
			return 1;
		}
	}
	return 0;
}

/*
 * How often the probe fired: uprobe_profile's line "FILE EVENT HITS" for
 * our event (named without its group there); -1 if there is none.
 */
static long probe_hits(void)
{
	char buf[4096], *line, *end;

	if (read_str(UPROBE_PROFILE, buf, sizeof(buf)) <= 0)
		return -1;
	for (line = strtok_r(buf, "\n", &end); line; line = strtok_r(NULL, "\n", &end)) {
		char file[256], event[128];
		long hits;

		if (sscanf(line, "%255s %127s %ld", file, event, &hits) == 3 &&
		    !strcmp(event, "hot"))
			return hits;
	}
	return -1;
}

static int probe_remove(void)
{
	write_str(UPROBE_ENABLE, "0");
	return write_str(UPROBE_EVENTS, "-:compat_uprobe/hot");
}

/*
 * Wait until every hot thread has made a call since @calls[] (its counts
 * then), or, with @calls NULL, has taken its reset; 0 or -1 after 10 s.
 */
static int hot_threads_moved(const unsigned long *calls)
{
	long long deadline = now_ns() + 10000000000LL;
	int i;

	for (i = 0; i < HOT_THREADS; i++)
		while (calls ? hot_threads[i].calls == calls[i] : hot_threads[i].reset)
			if (now_ns() > deadline)
				return -1;
			else
				usleep(1000);
	return 0;
}

TEST_F_TIMEOUT(compat, threads_in_a_uprobe_freeze_only_after_its_single_step, 300)
{
	unsigned long offset = 0, calls[HOT_THREADS];
	char exe[256], probe[320], *log;
	struct freeze_window w;
	long hits0, hits;
	int i, n, round;

	if (access(UPROBE_EVENTS, W_OK))
		SKIP(return, "no %s (CONFIG_UPROBE_EVENTS; UML has no uprobes)", UPROBE_EVENTS);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ASSERT_GT(n, 0);
	exe[n] = 0;
	ASSERT_EQ(1, dl_iterate_phdr(find_hot, &offset)) TH_LOG("hot() is in no loaded segment");
	probe_remove();
	snprintf(probe, sizeof(probe), "p:compat_uprobe/hot %s:0x%lx", exe, offset);
	ASSERT_EQ(0, write_str(UPROBE_EVENTS, probe)) TH_LOG("cannot add '%s'", probe);
	ASSERT_EQ(0, write_str(UPROBE_ENABLE, "1")) {
		probe_remove();
	}
	signal(SIGTRAP, count_signal);
	signal(SIGILL, count_signal);

	hot_stop = 0;
	for (i = 0; i < HOT_THREADS; i++)
		ASSERT_EQ(0, pthread_create(&hot_threads[i].id, NULL, hot_loop, &hot_threads[i]));
	usleep(200000);
	hits0 = probe_hits();
	usleep(200000);
	hits = probe_hits();
	TH_LOG("%s:0x%lx: the probe fired %ld times in 0.2 s", exe, offset, hits - hits0);
	EXPECT_GT(hits, hits0) TH_LOG("the probe on hot() does not fire");

	for (round = 1; round <= FREEZES && !_metadata->exit_code; round++) {
		for (i = 0; i < HOT_THREADS; i++)
			hot_threads[i].reset = 1;
		ASSERT_EQ(0, hot_threads_moved(NULL)) TH_LOG("a hot thread stopped calling hot()");
		hits0 = probe_hits();
		EXPECT_EQ(0, freeze(_metadata)) TH_LOG("freeze %d of %d failed", round, FREEZES);
		log = dmesg_read();
		if (log && (strstr(log, "WARNING:") || strstr(log, "BUG:"))) {
			log_kernel_lines(log, "WARNING:", 2);
			log_kernel_lines(log, "BUG:", 2);
			EXPECT_EQ(NULL, log) TH_LOG("the kernel warned during freeze %d", round);
		}
		free(log);
		ASSERT_EQ(0, last_freeze_window(&w));
		/* A call that ends after the thaw has recorded the gap of the freeze. */
		for (i = 0; i < HOT_THREADS; i++)
			calls[i] = hot_threads[i].calls;
		ASSERT_EQ(0, hot_threads_moved(calls)) TH_LOG("a hot thread did not run after the thaw");
		for (i = 0; i < HOT_THREADS; i++) {
			long long gap = hot_threads[i].gap_ns;

			EXPECT_GE(gap, frozen_ns(&w))
				TH_LOG("hot thread %d ran during freeze %d: longest gap %.3f ms, all frozen for %.3f ms",
				       i, round, gap / 1e6, frozen_ns(&w) / 1e6);
		}
		EXPECT_GT(probe_hits(), hits0) TH_LOG("the probe stopped firing");
	}

	hot_stop = 1;
	for (i = 0; i < HOT_THREADS; i++)
		pthread_join(hot_threads[i].id, NULL);
	hits = probe_hits();
	EXPECT_EQ(0, probe_remove());
	for (i = 0; i < HOT_THREADS; i++) {
		unsigned long wrong = hot_threads[i].wrong;

		EXPECT_EQ(0UL, wrong) TH_LOG("hot thread %d: %lu wrong results of hot()", i, wrong);
		TH_LOG("hot thread %d: %lu calls", i, hot_threads[i].calls);
	}
	EXPECT_EQ(0, traps) TH_LOG("%d SIGTRAP", (int)traps);
	EXPECT_EQ(0, ills) TH_LOG("%d SIGILL", (int)ills);
	TH_LOG("%d freezes with %d threads in hot(); the probe fired %ld times in all",
	       FREEZES, HOT_THREADS, hits);
}

COMPAT_MAIN
