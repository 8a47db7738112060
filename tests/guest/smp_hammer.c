// SPDX-License-Identifier: GPL-2.0
/*
 * SMP hammer for the todo list and the freezers (make smp-test, 4 vCPUs):
 * add, run and cancel of todo items and freeze/thaw race from different
 * CPUs.  For every online CPU there are four tasks:
 *
 *   spin-N   pinned to CPU N, spins in user space (never enters the
 *            kernel by itself: only the kick's IPI brings it in);
 *   sleep-N  pinned to CPU N, 1 ms nanosleep()s;
 *   hop-N    migrates to the next CPU on every iteration
 *            (sched_setaffinity()), so that its freeze item and the items
 *            queued on it are often queued while it is moving;
 *   queue-N  pinned to CPU N, queues todo items on the other tasks
 *            (/sys/kernel/debug/task_todo/queue), which run them on their
 *            own CPUs while the freezers queue and cancel theirs.
 *
 * Meanwhile the main task runs CYCLES freeze/thaw cycles with FREEZER
 * (pm_test=freezer, pm_test_delay 0), from a different CPU each cycle.
 *
 * Usage: smp_hammer [CYCLES [FREEZER]]   (default 200, todo)
 *
 * Results (kselftest TAP, kselftest.h): the tasks started; every freeze succeeded; every task
 * made progress after the last thaw; every migrator ran on every CPU;
 * every queuer queued items from its CPU without an unexpected error; no
 * todo item is left on any hammer task once the queuers stopped; all
 * tasks were reaped.  Needs 2 CPUs or more (else the program is one skip).
 *
 * job: smp
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest.h"
#include "cpus.h"
#include "freeze.h"

#define QUEUE_FILE	"/sys/kernel/debug/task_todo/queue"
#define MAX_CPUS	64
#define NR_ROLES	4
#define NR_TESTS	7
#define PROGRESS_TIMEOUT_MS	10000
#define DRAIN_TIMEOUT_MS	10000
#define REAP_TIMEOUT_MS		10000

enum role { R_SPIN, R_SLEEP, R_HOP, R_QUEUE };
static const char *const role_name[NR_ROLES] = { "spin", "sleep", "hop", "queue" };

struct task {
	pid_t pid;
	enum role role;
	int cpu;			/* the CPU it is pinned to, or starts on */
	volatile unsigned long count;	/* iterations, written by the task only */
	volatile unsigned long long seen;	/* hop: CPUs it ran on (bit per index) */
	volatile unsigned long queued, queue_err;
	volatile int first_err;		/* queue: first unexpected errno */
};

struct shared {
	volatile int stop;
	int nr;
	struct task t[MAX_CPUS * NR_ROLES];
};

static struct shared *sh;
static int ncpu, cpu_of[MAX_CPUS];	/* index -> CPU number */

static int pin(int idx)
{
	return pin_cpu(cpu_of[idx % ncpu]);
}

static int cpu_index(int cpu)
{
	int i;

	for (i = 0; i < ncpu; i++)
		if (cpu_of[i] == cpu)
			return i;
	return -1;
}

static void run_task(struct task *t, unsigned int seed)
{
	int fd = -1, hop = t->cpu, i;
	char buf[16];

	if (t->role != R_HOP && pin(t->cpu))
		_exit(3);
	if (t->role == R_QUEUE)
		fd = open(QUEUE_FILE, O_WRONLY);
	while (!sh->stop) {
		switch (t->role) {
		case R_SPIN:
			for (i = 0; i < 100000 && !sh->stop; i++)
				__asm__ __volatile__("" ::: "memory");
			break;
		case R_SLEEP:
			usleep(1000);
			break;
		case R_HOP:
			hop = (hop + 1) % ncpu;
			if (pin(hop))
				_exit(4);
			i = cpu_index(sched_getcpu());
			if (i >= 0)
				t->seen |= 1ULL << i;
			for (i = 0; i < 20000; i++)
				__asm__ __volatile__("" ::: "memory");
			break;
		case R_QUEUE: {
			struct task *v = &sh->t[rand_r(&seed) % sh->nr];

			if (fd < 0 || v->role == R_QUEUE || !v->pid)
				break;
			snprintf(buf, sizeof(buf), "%d", v->pid);
			if (pwrite(fd, buf, strlen(buf), 0) >= 0) {
				t->queued++;
			} else if (errno != ESRCH) {
				if (!t->queue_err++)
					t->first_err = errno;
			}
			if (!(t->queued % 8))
				usleep(200);
			break;
		}
		}
		t->count++;
	}
	_exit(0);
}

static int wait_progress(const unsigned long *before)
{
	long long t0 = now_ns();
	int i, behind;

	do {
		behind = 0;
		for (i = 0; i < sh->nr; i++)
			behind += sh->t[i].count == before[i];
		if (!behind)
			return 0;
		usleep(10000);
	} while (now_ns() - t0 < PROGRESS_TIMEOUT_MS * 1000000LL);
	for (i = 0; i < sh->nr; i++)
		if (sh->t[i].count == before[i])
			ksft_print_msg("%s-%d (pid %d) made no progress after the last thaw (state %c)\n",
				       role_name[sh->t[i].role], sh->t[i].cpu, sh->t[i].pid,
				       proc_state(sh->t[i].pid));
	return behind;
}

/* Pending todo items of the hammer's tasks, from /proc/<pid>/todo. */
static int pending_items(int report)
{
	char path[64], line[256];
	int i, n = 0;
	FILE *f;

	for (i = 0; i < sh->nr; i++) {
		snprintf(path, sizeof(path), "/proc/%d/todo", sh->t[i].pid);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			n++;
			if (report)
				ksft_print_msg("%s-%d (pid %d) still has: %s",
					       role_name[sh->t[i].role], sh->t[i].cpu, sh->t[i].pid,
					       line);
		}
		fclose(f);
	}
	return n;
}

int main(int argc, char **argv)
{
	int cycles = argc > 1 ? atoi(argv[1]) : 200;
	const char *freezer = argc > 2 ? argv[2] : "todo";
	const char *why;
	int i, r, ret, failed = 0, first_fail = -1, first_errno = 0, ok, reaped, n;
	unsigned long before[MAX_CPUS * NR_ROLES];
	unsigned long long all;
	long long t0, slowest = 0;
	pid_t pid;

	if (cycles < 1 || argc > 3) {
		fprintf(stderr, "usage: %s [CYCLES [todo|classic]]\n", argv[0]);
		return 2;
	}
	ksft_print_header();
	/* Without what the hammer needs the whole program is one skip. */
	ncpu = online_cpus(cpu_of, MAX_CPUS);
	if (ncpu < 2)
		ksft_exit_skip("one CPU: nothing to race with\n");
	if (access(QUEUE_FILE, W_OK))
		ksft_exit_skip("no %s (CONFIG_TASK_TODO_TEST_TRIGGER)\n", QUEUE_FILE);
	why = setup_freeze_loop(freezer);
	if (why)
		ksft_exit_skip("%s\n", why);
	ksft_set_plan(NR_TESTS);
	ksft_print_msg("%d freeze/thaw cycles, %s freezer, %d CPUs, %d tasks per CPU\n",
		       cycles, freezer, ncpu, NR_ROLES);

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		ksft_exit_fail_perror("mmap");
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	for (r = 0; r < NR_ROLES; r++) {
		for (i = 0; i < ncpu; i++) {
			struct task *t = &sh->t[sh->nr];

			t->role = r;
			t->cpu = i;
			fflush(stdout);
			pid = fork();
			if (!pid) {
				char name[16];

				prctl(PR_SET_PDEATHSIG, SIGKILL);
				snprintf(name, sizeof(name), "hm-%s-%d", role_name[r], i);
				prctl(PR_SET_NAME, name);
				run_task(t, getpid());
			}
			if (pid < 0)
				break;
			t->pid = pid;
			sh->nr++;
		}
	}
	ok = sh->nr == ncpu * NR_ROLES;
	for (i = 0; i < sh->nr; i++)
		before[i] = 0;
	ok = ok && !wait_progress(before);
	ksft_test_result(ok, "smp_hammer.tasks_started_on_every_cpu\n");

	for (i = 0; i < cycles; i++) {
		long long t1;

		pin(i);		/* freeze and thaw from a different CPU each time */
		usleep(rand() % 20000);
		t1 = now_ns();
		ret = freeze_thaw();
		t1 = now_ns() - t1;
		if (t1 > slowest)
			slowest = t1;
		if (ret && !failed++) {
			first_fail = i;
			first_errno = -ret;
		}
		if (failed >= 5)
			break;
	}
	if (failed)
		ksft_print_msg("%d cycle(s) failed, the first (cycle %d) with %s\n", failed,
			       first_fail, strerror(first_errno));
	ksft_print_msg("slowest cycle %lld ms\n", slowest / 1000000);
	ksft_test_result(!failed, "smp_hammer.every_freeze_succeeded\n");

	for (i = 0; i < sh->nr; i++)
		before[i] = sh->t[i].count;
	ksft_test_result(!wait_progress(before), "smp_hammer.every_task_progressed_after_thaw\n");

	all = ncpu >= 64 ? ~0ULL : (1ULL << ncpu) - 1;
	ok = 1;
	for (i = 0; i < sh->nr; i++) {
		if (sh->t[i].role != R_HOP || sh->t[i].seen == all)
			continue;
		ksft_print_msg("hop-%d ran on CPU set %#llx of %#llx\n", sh->t[i].cpu,
			       sh->t[i].seen, all);
		ok = 0;
	}
	ksft_test_result(ok, "smp_hammer.every_migrator_ran_on_every_cpu\n");

	ok = 1;
	for (i = 0; i < sh->nr; i++) {
		struct task *t = &sh->t[i];

		if (t->role != R_QUEUE)
			continue;
		ksft_print_msg("queue-%d queued %lu items\n", t->cpu, t->queued);
		if (!t->queued || t->queue_err) {
			ksft_print_msg("queue-%d: %lu unexpected errors, the first %s\n", t->cpu,
				       t->queue_err, strerror(t->first_err));
			ok = 0;
		}
	}
	ksft_test_result(ok, "smp_hammer.items_queued_from_every_cpu\n");

	/* Queuers stop first; what they queued runs at the targets' next return. */
	for (i = 0; i < sh->nr; i++)
		if (sh->t[i].role == R_QUEUE)
			kill(sh->t[i].pid, SIGKILL);
	t0 = now_ns();
	while ((n = pending_items(0)) && now_ns() - t0 < DRAIN_TIMEOUT_MS * 1000000LL)
		usleep(10000);
	if (n)
		pending_items(1);
	ksft_test_result(!n, "smp_hammer.no_item_left_behind\n");

	sh->stop = 1;
	reaped = 0;
	t0 = now_ns();
	while (reaped < sh->nr && now_ns() - t0 < REAP_TIMEOUT_MS * 1000000LL) {
		pid = waitpid(-1, NULL, WNOHANG);
		if (pid > 0)
			reaped++;
		else if (pid < 0 && errno == ECHILD)
			break;
		else
			usleep(10000);
	}
	if (reaped < sh->nr) {
		for (i = 0; i < sh->nr; i++)
			kill(sh->t[i].pid, SIGKILL);
		ksft_print_msg("%d of %d tasks reaped\n", reaped, sh->nr);
	}
	ksft_test_result(reaped == sh->nr, "smp_hammer.all_tasks_reaped\n");
	ksft_finished();
}
