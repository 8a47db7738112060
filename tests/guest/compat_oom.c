// SPDX-License-Identifier: GPL-2.0
/*
 * OOM: a task frozen by the system freeze (parked in pause(), so both
 * freezers freeze it through their own path, not in place) is chosen by
 * the OOM killer while the freeze is still waiting for a memory hog stuck
 * in one long mmap(MAP_POPULATE).  mark_oom_victim() thaws the victim: it
 * must leave the frozen state and exit, so that oom_killer_disable(),
 * called once user space is frozen, finds no victim left and the freeze
 * succeeds.
 *
 * Without MEMCG (not in our configs) this is a global OOM: the victim holds
 * 40% of MemAvailable, the hog asks for 80%; oom_score_adj makes the victim
 * the only choice (1000) and everything else of this program unkillable
 * (-1000).  The victim's memory is reaped by the oom_reaper, so the hog's
 * populate then succeeds and nothing else is killed.
 *
 * The fixture and the helpers shared with the other compat_* programs:
 * compat_fixture.h.
 *
 * job: test smp
 */
#define _GNU_SOURCE
#include <sched.h>

#include "compat_fixture.h"

/*
 * While the OOM test runs, a freeze gives up after this many ms: longer
 * than the hog's populate takes, which the freeze has to wait for (3 to 5 s
 * on the KASAN test kernel, 11 s on the smp flavour under TCG on 2 busy
 * host cores); oom_killer_disable() waits as long.
 */
#define OOM_FREEZE_TIMEOUT_MS	40000
/* How long the hog populates before the freeze begins. */
#define HOG_HEAD_START_US	30000

TEST_F_TIMEOUT(compat, oom_victim_frozen_by_the_freeze_exits_and_the_freeze_succeeds, 120)
{
	struct sched_param fifo = { .sched_priority = 10 }, other = { .sched_priority = 0 };
	long avail_kb = meminfo_kb("MemAvailable");
	size_t victim_sz, hog_sz;
	const char *begin, *killed, *done;
	char needle[64], *log;
	int fds[2], ret, status, tries;
	long long t0, took = 0;
	pid_t victim;

	ASSERT_GT(avail_kb, 65536) TH_LOG("MemAvailable: %ld kB", avail_kb);
	victim_sz = (size_t)avail_kb * 1024 / 100 * 40;
	hog_sz = (size_t)avail_kb * 1024 / 100 * 80;
	TH_LOG("MemAvailable %ld kB: victim %zu MB, hog %zu MB", avail_kb, victim_sz >> 20, hog_sz >> 20);
	ASSERT_EQ(0, write_str("/proc/self/oom_score_adj", "-1000"));
	ASSERT_EQ(0, save_and_set(PM_FREEZE_TIMEOUT, self->saved_freeze_timeout,
				  sizeof(self->saved_freeze_timeout), OOM_FREEZE_TIMEOUT_MS));
	ASSERT_EQ(0, pipe(fds));

	self->child[0] = fork();
	ASSERT_GE(self->child[0], 0);
	if (self->child[0] == 0) {
		char *mem;

		if (write_str("/proc/self/oom_score_adj", "1000"))
			_exit(2);
		mem = mmap(NULL, victim_sz, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (mem == MAP_FAILED)
			_exit(3);
		memset(mem, 1, victim_sz);
		sh->ready[0] = 1;
		for (;;)
			pause();
	}
	self->child[1] = fork();
	ASSERT_GE(self->child[1], 0);
	if (self->child[1] == 0) {
		char c;
		void *mem;

		close(fds[1]);
		if (read(fds[0], &c, 1) != 1)
			_exit(2);
		t0 = now_ns();
		sh->ready[1] = 1;
		mem = mmap(NULL, hog_sz, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		sh->hog_ns = now_ns() - t0;
		sh->hog_done = mem == MAP_FAILED ? -1 : 1;
		for (;;)
			pause();
	}
	close(fds[0]);
	for (tries = 0; tries < 6000 && !sh->ready[0]; tries++)
		usleep(5000);
	ASSERT_TRUE(sh->ready[0]) TH_LOG("the victim did not touch its memory within 30 s");
	ASSERT_TRUE(wait_state(self->child[0], 'S'));
	ASSERT_TRUE(wait_state(self->child[1], 'S'));

	dmesg_clear();
	/*
	 * Start the freeze while the hog is inside its mmap(), well before
	 * it runs out of memory: as a SCHED_FIFO task, this one runs as soon
	 * as its short sleeps end, whatever the hog does.
	 */
	ASSERT_EQ(0, sched_setscheduler(0, SCHED_FIFO, &fifo));
	ret = write(fds[1], "x", 1) == 1 ? 0 : -EIO;
	for (tries = 0; !ret && tries < 2000 && !sh->ready[1]; tries++)
		usleep(1000);
	if (!ret && sh->ready[1]) {
		usleep(HOG_HEAD_START_US);
		t0 = now_ns();
		ret = sh->hog_done ? -EALREADY : freeze_thaw();
		took = now_ns() - t0;
	}
	sched_setscheduler(0, SCHED_OTHER, &other);
	ASSERT_NE(-EALREADY, ret) TH_LOG("the hog's populate ended before the freeze began");
	ASSERT_TRUE(sh->ready[1]) TH_LOG("the hog did not start");
	TH_LOG("freeze round trip: %s, %.3f ms", ret ? errname(-ret) : "0", took / 1e6);

	victim = self->child[0];
	status = reap_within(victim, 10000);
	ASSERT_NE(-1, status) TH_LOG("the victim did not exit within 10 s of the thaw");
	self->child[0] = 0;
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
		TH_LOG("the victim ended with status %#x, not killed", status);
	for (tries = 0; tries < 2000 && !sh->hog_done; tries++)
		usleep(5000);
	TH_LOG("the hog's populate: %s after %.3f ms", sh->hog_done == 1 ? "done" :
	       sh->hog_done ? "failed" : "not done", sh->hog_ns / 1e6);
	EXPECT_EQ(1, sh->hog_done);

	/* The kill came while the freeze was freezing user space. */
	log = dmesg_read();
	ASSERT_NE(NULL, log);
	snprintf(needle, sizeof(needle), "Killed process %d ", victim);
	begin = strstr(log, "Freezing user space processes");
	killed = strstr(log, needle);
	done = begin ? strstr(begin + 1, "Freezing user space processes completed") : NULL;
	EXPECT_NE(NULL, killed) TH_LOG("no \"%s\" in the kernel log", needle);
	if (!killed)
		log_kernel_lines(log, "Killed process", 4);
	EXPECT_NE(NULL, begin);
	if (killed && begin)
		EXPECT_LT(begin, killed) TH_LOG("the OOM kill came before the freeze began");
	if (killed && done)
		EXPECT_LT(killed, done) TH_LOG("the OOM kill came after user space was frozen");
	if (killed)
		log_kernel_lines(killed, "Killed process", 1);
	log_kernel_lines(log, "Freezing", 4);
	log_kernel_lines(log, "OOM killer", 2);
	free(log);
	EXPECT_EQ(0, ret) TH_LOG("the freeze failed: oom_killer_disable() waited for the victim");
	close(fds[1]);
}

COMPAT_MAIN
