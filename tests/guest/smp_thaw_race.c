// SPDX-License-Identifier: GPL-2.0
/*
 * The lost wake-up between the todo freezer's frozen wait and the thaw
 * (docs/kick-audit.md, D), on two CPUs or more (make smp-test).
 *
 * A task frozen by the todo freezer stores its state (TASK_FROZEN), then
 * rechecks the generation the thaw ends; the thaw ends the generation,
 * then reads each task's state to decide whether to wake it.  Without a
 * lock or barrier pairing the two, both loads can miss the other store
 * and the task sleeps on after the thaw.  The kernel's test knobs widen
 * that window (/sys/kernel/debug/todo_freezer/thaw_race_us: every thaw
 * first wakes the frozen user tasks spuriously, and their recheck spins
 * that long) and re-enact the first version of the wait ("SB" in
 * reenact: the recheck without freezer_lock, its load before its store).
 *
 * One spinner per CPU but the first, pinned; the main task freezes and
 * thaws from CPU 0 (pm_test=freezer, pm_test_delay 0).  After each thaw
 * every spinner must count again; one that does not and shows D was left
 * frozen by the thaw.
 *
 * Usage: smp_thaw_race reverted|fixed CYCLES [FREEZER [WINDOW_US]]
 *   reverted  with SB: up to CYCLES cycles until one leaves a spinner
 *             frozen (it must), then one plain cycle, whose thaw must
 *             free it: the stress can find the bug.
 *   fixed     CYCLES cycles with the window and without SB: no thaw
 *             may leave a spinner frozen.
 * FREEZER todo (default) or classic; WINDOW_US default 20000.
 * Results: kselftest TAP (kselftest.h), the spinners and the knob set up,
 * then the mode's two; one skip without two CPUs or the knob.
 *
 * job: smp
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>

#include "kselftest.h"
#include "cpus.h"
#include "freeze.h"

#define KNOB_THAW_RACE	KNOB_DIR "/thaw_race_us"
#define MAX_CPUS	64
/* How long a thawed spinner may take to count again, a liveness bound. */
#define PROGRESS_TIMEOUT_MS	5000

struct spinner {
	pid_t pid;
	int cpu;
	volatile unsigned long count;
};

static struct spinner *sp;
static int nsp;

/* The tests of each mode, after the two of the setup. */
static const char *const reverted_tests[] = {
	"thaw_race.reverted_recheck_leaves_a_task_frozen", "thaw_race.next_thaw_frees_it",
};
static const char *const fixed_tests[] = {
	"thaw_race.every_freeze_succeeded", "thaw_race.no_task_left_frozen_by_any_thaw",
};

/*
 * Wait until every spinner counted past @before; the number that did not
 * within PROGRESS_TIMEOUT_MS, each named with its state if @report.
 */
static int left_behind(const unsigned long *before, int report)
{
	long long t0 = now_ns();
	int i, behind;

	for (;;) {
		behind = 0;
		for (i = 0; i < nsp; i++)
			behind += sp[i].count == before[i];
		if (!behind || now_ns() - t0 > PROGRESS_TIMEOUT_MS * 1000000LL)
			break;
		usleep(1000);
	}
	for (i = 0; report && i < nsp; i++)
		if (sp[i].count == before[i])
			ksft_print_msg("spinner on CPU %d (pid %d) did not run after the thaw, state %c\n",
				       sp[i].cpu, sp[i].pid, proc_state(sp[i].pid));
	return behind;
}

/* One freeze/thaw cycle, then the spinners left frozen; -1 if it failed. */
static int cycle(int report)
{
	unsigned long before[MAX_CPUS];
	int i, ret = freeze_thaw();

	if (ret) {
		ksft_print_msg("freeze failed: %s\n", strerror(-ret));
		return -1;
	}
	for (i = 0; i < nsp; i++)
		before[i] = sp[i].count;
	return left_behind(before, report);
}

static int start_spinners(int ncpu, const int *cpu_of)
{
	unsigned long zero[MAX_CPUS] = { 0 };
	int i;

	sp = mmap(NULL, sizeof(*sp) * MAX_CPUS, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sp == MAP_FAILED)
		return -1;
	for (i = 1; i < ncpu; i++) {
		struct spinner *s = &sp[nsp];
		pid_t pid;

		s->cpu = cpu_of[i];
		fflush(stdout);
		pid = fork();
		if (pid < 0)
			return -1;
		if (!pid) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			prctl(PR_SET_NAME, "thaw-race-spin");
			if (pin_cpu(s->cpu))
				_exit(3);
			/* User space only: the freezer's kick brings it in. */
			for (;;)
				s->count++;
		}
		s->pid = pid;
		nsp++;
	}
	return left_behind(zero, 1) ? -1 : 0;
}

static void stop_spinners(void)
{
	int i;

	for (i = 0; i < nsp; i++)
		kill(sp[i].pid, SIGKILL);
	for (i = 0; i < nsp; i++)
		waitpid(sp[i].pid, NULL, 0);
}

/* With SB, some cycle must leave a spinner frozen; the next thaw frees it. */
static void reverted(int cycles)
{
	int i, n = 0, failed = 0;

	if (write_str(KNOB_REENACT, "SB")) {
		ksft_test_result_fail("%s\n", reverted_tests[0]);
		ksft_test_result_code(KSFT_SKIP, reverted_tests[1], "no SB re-enactment");
		return;
	}
	for (i = 0; i < cycles && !n; i++) {
		n = cycle(1);
		if (n < 0 && ++failed < 5)
			n = 0;
	}
	write_str(KNOB_REENACT, "none");
	if (n > 0)
		ksft_print_msg("cycle %d of %d: %d spinner(s) left frozen by the thaw\n", i, cycles,
			       n);
	else
		ksft_print_msg("no spinner left frozen in %d cycles (%d failed)\n", i, failed);
	ksft_test_result(n > 0, "%s\n", reverted_tests[0]);

	write_int(KNOB_THAW_RACE, 0);
	ksft_test_result(n > 0 && cycle(1) == 0, "%s\n", reverted_tests[1]);
}

static void fixed(int cycles)
{
	int i, n, stuck = 0, failed = 0;

	for (i = 0; i < cycles; i++) {
		n = cycle(!stuck);
		if (n < 0)
			failed++;
		else if (n > 0 && !stuck++)
			ksft_print_msg("cycle %d: %d spinner(s) left frozen by the thaw\n", i + 1,
				       n);
		if (failed >= 5 || stuck)
			break;
	}
	ksft_print_msg("%d cycles, %d failed, %d left a spinner frozen\n", i, failed, stuck);
	ksft_test_result(!failed, "%s\n", fixed_tests[0]);
	ksft_test_result(!stuck, "%s\n", fixed_tests[1]);
	write_int(KNOB_THAW_RACE, 0);
	/* A spinner left frozen is freed by the next thaw: end with all running. */
	if (stuck)
		cycle(0);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int cycles = argc > 2 ? atoi(argv[2]) : 0;
	const char *freezer = argc > 3 ? argv[3] : "todo";
	long window = argc > 4 ? atol(argv[4]) : 20000;
	int reverted_mode = !strcmp(mode, "reverted");
	const char *const *tests = reverted_mode ? reverted_tests : fixed_tests;
	int ret, ncpu, cpu_of[MAX_CPUS];
	const char *why;

	if ((!reverted_mode && strcmp(mode, "fixed")) || cycles < 1 || argc > 5) {
		fprintf(stderr, "usage: %s reverted|fixed CYCLES [todo|classic [WINDOW_US]]\n",
			argv[0]);
		return 2;
	}
	ksft_print_header();
	/* Without what the race needs the whole program is one skip. */
	ncpu = online_cpus(cpu_of, MAX_CPUS);
	if (ncpu < 2)
		ksft_exit_skip("one CPU: the thaw and a frozen task never run at once\n");
	if (access(KNOB_THAW_RACE, W_OK))
		ksft_exit_skip("no %s (CONFIG_TODO_FREEZER_TEST)\n", KNOB_THAW_RACE);
	why = setup_freeze_loop(freezer);
	if (why)
		ksft_exit_skip("%s\n", why);
	ksft_set_plan(4);
	ksft_print_msg("%s: up to %d cycles, %s freezer, %d CPUs, window %ld us\n", mode, cycles,
		       freezer, ncpu, window);

	prctl(PR_SET_CHILD_SUBREAPER, 1);
	ret = pin_cpu(cpu_of[0]) ? -1 : start_spinners(ncpu, cpu_of);
	ksft_test_result(!ret, "thaw_race.spinners_run_on_every_other_cpu\n");
	if (ret) {
		ksft_test_result_code(KSFT_SKIP, "thaw_race.knob_set", "no spinners");
	} else {
		ret = write_int(KNOB_THAW_RACE, window);
		ksft_test_result(!ret, "thaw_race.knob_set\n");
	}
	if (ret) {
		ksft_test_result_code(KSFT_SKIP, tests[0], "not set up");
		ksft_test_result_code(KSFT_SKIP, tests[1], "not set up");
	} else if (reverted_mode) {
		reverted(cycles);
	} else {
		fixed(cycles);
	}
	write_int(KNOB_THAW_RACE, 0);
	stop_spinners();
	ksft_finished();
}
