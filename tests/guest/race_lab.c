// SPDX-License-Identifier: GPL-2.0
/*
 * The race lab's guest side (make race): two races of two CPUs, each made
 * deterministic by a kernel knob that holds one CPU at the racing step
 * until the other has done its part, so that gdb can watch each step.
 *
 * walk 2005|today: /sys/kernel/debug/todo_race (kernel/task_todo_race.c).
 *	A walker pinned to the first CPU reads walk_2005 or walk_today: the
 *	kernel queues blocks A and B on it and runs its list; right after it has read A->next (B) it is held while
 *	a canceller pinned to the second CPU cancels B and, if the cancel
 *	removed it, frees it.  2005: the walk is in place and unlocked, so
 *	the cancel removes B and the walk then reads freed B (the kernel
 *	reports a use-after-free).  today: task_todo_run() detached the
 *	list first, the cancel finds no B and the canceller frees B only
 *	after B ran.
 * thaw sb|fixed: /sys/kernel/debug/todo_freezer/thaw_race_pid.  A
 *	spinner pinned to the first CPU is frozen by the todo freezer; the
 *	thaw, from the second CPU, wakes it spuriously and holds it in its
 *	recheck while the thaw ends the generation and wakes the frozen
 *	tasks.  sb: the recheck of this series' first frozen wait ("SB" in
 *	reenact: its load before its store) misses the thaw, and the
 *	spinner stays frozen after it; the next thaw frees it.  fixed:
 *	today's recheck, the spinner runs on after the thaw.
 *
 * Usage: race_lab walk 2005|today
 *        race_lab thaw sb|fixed
 * Results: kselftest TAP (kselftest.h); one skip without two CPUs or the
 * race's knob.
 *
 * job: race
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>

#include "kselftest.h"
#include "cpus.h"
#include "freeze.h"

#define RACE_DIR	"/sys/kernel/debug/todo_race"
#define KNOB_THAW_PID	KNOB_DIR "/thaw_race_pid"
#define KNOB_THAW_HELD	KNOB_DIR "/thaw_race_held"
/* How long a thawed spinner may take to count again, a liveness bound. */
#define RUNS_AGAIN_MS	3000

/* The value of @key in a line of "key=value" pairs, or -1. */
static long field(const char *line, const char *key)
{
	char pat[32];
	const char *p;

	snprintf(pat, sizeof(pat), " %s=", key);
	p = strstr(line, pat);
	if (!p && !strncmp(line, pat + 1, strlen(pat + 1)))
		p = line - 1;
	return p ? atol(p + strlen(pat)) : -1;
}

/*
 * From a child named @comm pinned to @cpu: write @text to @path, or read
 * @path into the shared @out if @text is NULL; the child's pid.
 */
static pid_t pinned_io(int cpu, const char *comm, const char *path, const char *text,
		       char *out, size_t size)
{
	pid_t pid;
	int ret;

	fflush(stdout);
	pid = fork();
	if (pid)
		return pid;
	prctl(PR_SET_NAME, comm);
	ret = pin_cpu(cpu);
	if (!ret)
		ret = text ? write_str(path, text) : read_str(path, out, size);
	if (ret < 0)
		ksft_print_msg("%s: %s %s: %s\n", comm, text ? "write to" : "read of", path,
			       strerror(-ret));
	_exit(ret < 0 ? 1 : 0);
}

/* Did @pid exit with status 0 within @ms? */
static int exited_ok(pid_t pid, int ms)
{
	return reap_within(pid, ms) == 0;
}

static void walk(const char *how, const int *cpu)
{
	char path[64], *line;
	pid_t walker, canceller;
	int ok_w, ok_c, is_2005 = !strcmp(how, "2005");
	char *log;

	line = mmap(NULL, 256, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (line == MAP_FAILED)
		ksft_exit_fail_perror("walk: mmap");
	line[0] = 0;
	dmesg_clear();
	/* The canceller first: it waits for the walker's hold. */
	canceller = pinned_io(cpu[1], "race_canceller", RACE_DIR "/cancel", "B", NULL, 0);
	snprintf(path, sizeof(path), RACE_DIR "/walk_%s", is_2005 ? "2005" : "today");
	walker = pinned_io(cpu[0], "race_walker", path, NULL, line, 256);
	ok_w = exited_ok(walker, 30000);
	ok_c = exited_ok(canceller, 30000);
	ksft_test_result(ok_w && ok_c, "walk.%s.walker_and_canceller_finish\n", how);
	ksft_print_msg("%s", line[0] ? line : "(no outcome)\n");

	ksft_test_result(field(line, "held") == 1,
			 "walk.%s.walker_held_after_reading_a_next\n", how);
	if (is_2005) {
		ksft_test_result(field(line, "cancelled") == 1 &&
				 field(line, "freed_before_use") == 1,
				 "walk.2005.cancel_removed_b_from_the_live_list_and_freed_it\n");
		log = dmesg_read();
		ksft_test_result(field(line, "use_after_free") == 1 && field(line, "b_ran") == 0 &&
				 log && strstr(log, "BUG: todo race lab: use-after-free in the 2005 walk"),
				 "walk.2005.the_walk_then_read_freed_b\n");
		log_kernel_lines(log, "todo race lab", 4);
		free(log);
	} else {
		ksft_test_result(field(line, "cancelled") == 0,
				 "walk.today.cancel_found_b_detached_with_the_list\n");
		ksft_test_result(field(line, "a_ran") == 1 && field(line, "b_ran") == 1 &&
				 field(line, "use_after_free") == 0,
				 "walk.today.b_ran_once_and_was_freed_after_it\n");
	}
	munmap(line, 256);
}

/* Did the spinner count past @before within RUNS_AGAIN_MS? */
static int runs_again(volatile unsigned long *count, unsigned long before)
{
	long long end = now_ns() + RUNS_AGAIN_MS * 1000000LL;

	while (*count == before && now_ns() < end)
		usleep(1000);
	return *count != before;
}

static void thaw(const char *how, const int *cpu)
{
	volatile unsigned long *count;
	int sb = !strcmp(how, "sb"), ran, ret;
	char held0[16] = "0", held1[16] = "0";
	unsigned long before;
	pid_t spinner;

	count = mmap(NULL, sizeof(*count), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (count == MAP_FAILED)
		ksft_exit_fail_perror("thaw: mmap");
	if (pin_cpu(cpu[1]))
		ksft_exit_fail_msg("thaw: cannot pin to CPU %d\n", cpu[1]);
	*count = 0;
	fflush(stdout);
	spinner = fork();
	if (!spinner) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		prctl(PR_SET_NAME, "race_spinner");
		if (pin_cpu(cpu[0]))
			_exit(3);
		/* User space only: the freezer's kick brings it in. */
		for (;;)
			(*count)++;
	}
	ksft_test_result(runs_again(count, 0), "thaw.%s.spinner_runs\n", how);

	read_str(KNOB_THAW_HELD, held0, sizeof(held0));
	ret = write_str(KNOB_REENACT, sb ? "SB" : "none");
	if (!ret)
		ret = write_int(KNOB_THAW_PID, spinner);
	if (!ret)
		ret = freeze_thaw();
	if (ret)
		ksft_print_msg("freeze with the spinner held: %s\n", strerror(-ret));
	before = *count;
	ran = runs_again(count, before);
	read_str(KNOB_THAW_HELD, held1, sizeof(held1));
	ksft_print_msg("after the thaw: spinner pid %d %s, state %c; held in its recheck %ld time(s)\n",
		       spinner, ran ? "runs" : "does not run", proc_state(spinner),
		       atol(held1) - atol(held0));
	ksft_test_result(!ret && atol(held1) - atol(held0) == 1,
			 "thaw.%s.spinner_held_in_its_recheck_across_the_thaw\n", how);
	write_str(KNOB_REENACT, "none");
	if (sb) {
		ksft_test_result(!ret && !ran,
				 "thaw.sb.reverted_recheck_leaves_the_spinner_frozen\n");
		ret = freeze_thaw();
		ksft_test_result(!ret && runs_again(count, *count), "thaw.sb.next_thaw_frees_it\n");
	} else {
		ksft_test_result(!ret && ran, "thaw.fixed.spinner_runs_after_the_thaw\n");
	}
	kill(spinner, SIGKILL);
	waitpid(spinner, NULL, 0);
	munmap((void *)count, sizeof(*count));
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "", *how = argc > 2 ? argv[2] : "";
	int is_walk = !strcmp(what, "walk"), cpu[64], ret;

	if (argc != 3 || !((is_walk && (!strcmp(how, "2005") || !strcmp(how, "today"))) ||
			   (!strcmp(what, "thaw") && (!strcmp(how, "sb") || !strcmp(how, "fixed"))))) {
		fprintf(stderr, "usage: %s walk 2005|today\n       %s thaw sb|fixed\n",
			argv[0], argv[0]);
		return 2;
	}
	ksft_print_header();
	/* Without what the race needs the whole program is one skip. */
	if (online_cpus(cpu, 64) < 2)
		ksft_exit_skip("one CPU: a race needs two\n");
	if (is_walk && access(RACE_DIR "/cancel", W_OK))
		ksft_exit_skip("no %s (CONFIG_TASK_TODO_TEST_TRIGGER)\n", RACE_DIR);
	if (!is_walk) {
		if (access(KNOB_THAW_PID, W_OK))
			ksft_exit_skip("no %s (CONFIG_TODO_FREEZER_TEST)\n", KNOB_THAW_PID);
		ret = select_freezer("todo");
		if (ret)
			ksft_exit_skip("cannot select the todo freezer: %s\n", strerror(-ret));
		ret = setup_pm_test(0);
		if (ret)
			ksft_exit_skip("pm_test=freezer, pm_test_delay=0: %s\n", strerror(-ret));
	}
	ksft_set_plan(is_walk || !strcmp(how, "sb") ? 4 : 3);
	ksft_print_msg("%s %s: first CPU %d, second CPU %d\n", what, how, cpu[0], cpu[1]);
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	if (is_walk)
		walk(how, cpu);
	else
		thaw(how, cpu);
	ksft_finished();
}
