// SPDX-License-Identifier: GPL-2.0
/*
 * Freezer stress: about 200 tasks churn while the system is frozen and
 * thawed CYCLES times in a row through the standard interface
 * (pm_test=freezer, pm_test_delay 0, "echo freeze > /sys/power/state").
 * The churners fork children that exit at once, fork or vfork (posix_spawn)
 * /bin/true, exec themselves in place, create and join threads, or signal
 * each other in pairs (sigqueue() with sequence numbers, and kill()); each
 * counts its progress in a MAP_SHARED memfd page, which survives exec.
 *
 * Usage: stress_freeze [-a] [-n TASKS] [-p PERIOD%] [CYCLES [FREEZER]]
 *   CYCLES freeze/thaw cycles (default 100) with FREEZER, "todo" (the
 *   default) or "classic"; TASKS churners (default 200) that sleep
 *   PERIOD% (default 100) of their usual time per iteration.  -a spreads
 *   the churners over all online CPUs (churner i pinned to the i-th CPU,
 *   round robin, with sched_setaffinity(); make smp-test); what they fork
 *   inherits the pinning.
 *
 * Results (kselftest TAP, kselftest.h): the churners started; every freeze succeeded
 * (the first failure is named with its cycle and errno; the cycles stop
 * after MAX_FAILED_CYCLES failures, as each may take pm_freeze_timeout);
 * afterwards every churner still makes progress; no queued signal was lost
 * or doubled; no churn syscall failed; no task is left with a freeze item
 * on its todo list (/proc/<pid>/task/<tid>/todo); everything was reaped.
 * The cycle times (min/median/max) are "# " lines.
 *
 * Churners sleep 0.4 to 2.4 s per iteration: on the test kernel (KASAN +
 * lockdep + kmemleak, UML, one CPU) a fork costs 17 ms, and a churn that
 * saturates the CPU makes every cycle crawl.  Every wait is
 * bounded; at the end all churners are SIGKILLed as one process group, and
 * the program is their subreaper, so grandchildren are reaped too.
 *
 * job: stress smp
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest.h"
#include "freeze.h"

#define DEFAULT_CYCLES		100
#define DEFAULT_TASKS		200
#define MAX_CHURNERS		1024
/* Stop freezing after this many failed cycles: each can take 20 s. */
#define MAX_FAILED_CYCLES	10
/* Random pause before each cycle, so churners are caught anywhere. */
#define MAX_CYCLE_GAP_US	50000
#define STARTUP_TIMEOUT_MS	120000
#define PROGRESS_TIMEOUT_MS	5000
#define STOP_TIMEOUT_MS		10000
#define REAP_TIMEOUT_MS		10000
#define THREADS_PER_ROUND	3
#define TRUE_PROG		"/bin/true"

enum kind { K_FORK, K_SPAWN, K_VSPAWN, K_EXEC, K_THREADS, K_SIGNAL, NR_KINDS };

static const char *const kind_name[NR_KINDS] = {
	"fork", "spawn", "vspawn", "exec", "threads", "signal",
};

/*
 * The mix, in per mille of the churners (K_SIGNAL takes the rest), and the
 * mean sleep per iteration (each sleeps 50-150% of it; -p scales it).
 * Measured on the test kernel (UML, KASAN, one CPU): fork+exit+wait costs
 * about 17 ms, fork+exec 35, exec 25, a thread 1.5, a signal 0.5.  With
 * these periods the churn alone keeps the CPU 25-75% busy, depending on
 * what else the host runs: enough to catch tasks in every kind of
 * transition, not so much that a freeze waits for a saturated CPU (then a
 * cycle takes seconds instead of tens of ms).
 */
static const int share[NR_KINDS] = {
	[K_FORK] = 30, [K_SPAWN] = 15, [K_VSPAWN] = 15, [K_EXEC] = 25,
	[K_THREADS] = 150,
};
static const int period_ms[NR_KINDS] = {
	[K_FORK] = 800, [K_SPAWN] = 1600, [K_VSPAWN] = 1600, [K_EXEC] = 1600,
	[K_THREADS] = 800, [K_SIGNAL] = 800,
};
static int period_scale = 100;	/* percent */
static int spread;		/* -a: churner i on the i-th online CPU */

struct churner {
	int kind;
	int peer;			/* K_SIGNAL: index of the other one */
	volatile pid_t pid;		/* set by the churner itself */
	volatile int ready;		/* K_SIGNAL: handlers installed */
	volatile int done;		/* K_SIGNAL: stopped sending */
	volatile int err;		/* errno of the first failure ... */
	char what[32];			/* ... and what failed */
	volatile unsigned long progress;	/* iterations */
	volatile unsigned long thread_runs;
	/* K_SIGNAL: sigqueue(SIGRTMIN) with value 1, 2, 3, ... */
	volatile unsigned long rt_sent, rt_received, rt_last, rt_bad_seq;
	volatile unsigned long usr1_received;
};

struct shared {
	volatile int stop;
	int nr;
	struct churner c[MAX_CHURNERS];
};

static struct shared *sh;
static struct churner *me;		/* in a churner: its own record */
static unsigned int seed;

/* ---- churners ---- */

static void note_err(struct churner *c, const char *what, int err)
{
	if (c->err)
		return;
	snprintf(c->what, sizeof(c->what), "%s", what);
	c->err = err ? err : -1;
}

/*
 * Sleep 50-150% of the kind's period, to the end even when signals come in:
 * a signal churner woken early by its peer would speed the peer up, and
 * the pairs would end up spinning.
 */
static void nap(struct churner *c)
{
	int ms = period_ms[c->kind] * period_scale / 100;
	long long end = now_ns() + (ms / 2 + rand_r(&seed) % (ms + 1)) * 1000000LL;
	struct timespec ts = { end / 1000000000LL, end % 1000000000LL };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static int wait_child(pid_t pid, int *status)
{
	pid_t r;

	do
		r = waitpid(pid, status, 0);
	while (r < 0 && errno == EINTR);
	return r == pid ? 0 : -1;
}

static void fork_churner(struct churner *c)
{
	int status;
	pid_t pid;

	while (!sh->stop) {
		pid = fork();
		if (pid == 0)
			_exit(0);
		if (pid < 0)
			note_err(c, "fork", errno);
		else if (wait_child(pid, &status))
			note_err(c, "waitpid", errno);
		else if (!WIFEXITED(status) || WEXITSTATUS(status))
			note_err(c, "child exit status", status);
		c->progress++;
		nap(c);
	}
}

/* fork() and exec, or posix_spawn(), which vforks. */
static void spawn_churner(struct churner *c, int use_vfork)
{
	char *const argv[] = { "true", NULL };
	int status, err;
	pid_t pid;

	while (!sh->stop) {
		if (use_vfork) {
			err = posix_spawn(&pid, TRUE_PROG, NULL, NULL, argv, environ);
			if (err)
				pid = -1, errno = err;
		} else {
			pid = fork();
			if (pid == 0) {
				execv(TRUE_PROG, argv);
				_exit(127);
			}
		}
		if (pid < 0)
			note_err(c, use_vfork ? "posix_spawn" : "fork", errno);
		else if (wait_child(pid, &status))
			note_err(c, "waitpid", errno);
		else if (!WIFEXITED(status) || WEXITSTATUS(status))
			note_err(c, TRUE_PROG " exit status", status);
		c->progress++;
		nap(c);
	}
}

static void *short_thread(void *arg)
{
	struct churner *c = arg;

	usleep(1000);
	__atomic_add_fetch(&c->thread_runs, 1, __ATOMIC_RELAXED);
	return NULL;
}

static void threads_churner(struct churner *c)
{
	pthread_t t[THREADS_PER_ROUND];
	pthread_attr_t attr;
	int i, n, err;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	while (!sh->stop) {
		for (n = 0; n < THREADS_PER_ROUND; n++) {
			err = pthread_create(&t[n], &attr, short_thread, c);
			if (err) {
				note_err(c, "pthread_create", err);
				break;
			}
		}
		for (i = 0; i < n; i++) {
			err = pthread_join(t[i], NULL);
			if (err)
				note_err(c, "pthread_join", err);
		}
		c->progress++;
		nap(c);
	}
}

static void on_rt(int sig, siginfo_t *si, void *uc)
{
	unsigned long seq = (unsigned int)si->si_value.sival_int;

	if (seq != me->rt_last + 1)
		me->rt_bad_seq++;
	me->rt_last = seq;
	me->rt_received++;
}

static void on_usr1(int sig)
{
	me->usr1_received++;
}

/* One of a pair: queue numbered SIGRTMINs and kill SIGUSR1 to the peer. */
static void signal_churner(struct churner *c)
{
	struct churner *peer = &sh->c[c->peer];
	struct sigaction sa = { .sa_sigaction = on_rt, .sa_flags = SA_SIGINFO };
	union sigval v;
	int i;

	sigaction(SIGRTMIN, &sa, NULL);
	sa.sa_handler = on_usr1;
	sa.sa_flags = 0;
	sigaction(SIGUSR1, &sa, NULL);
	c->ready = 1;
	/* The default action of both signals is to terminate the peer. */
	for (i = 0; !peer->ready && i < STARTUP_TIMEOUT_MS / 10; i++)
		usleep(10000);
	if (!peer->ready) {
		note_err(c, "peer never got ready", 0);
		return;
	}
	while (!sh->stop) {
		v.sival_int = (int)(c->rt_sent + 1);
		if (!sigqueue(peer->pid, SIGRTMIN, v))
			c->rt_sent++;
		else if (errno != EAGAIN)	/* EAGAIN: the queue is full */
			note_err(c, "sigqueue", errno);
		if (kill(peer->pid, SIGUSR1))
			note_err(c, "kill", errno);
		c->progress++;
		nap(c);
	}
	/* Keep receiving until killed: the peer may still have some queued. */
	c->done = 1;
	for (;;)
		pause();
}

/*
 * K_EXEC: one iteration per exec.  The image is re-executed with
 * "--exec-churner FD INDEX"; the memfd FD is inherited across exec.
 */
static int exec_churner_main(int argc, char **argv)
{
	char name[16];
	int fd, idx;

	if (argc < 4)
		return 2;
	fd = atoi(argv[2]);
	idx = atoi(argv[3]);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (sh == MAP_FAILED || idx < 0 || idx >= MAX_CHURNERS)
		return 2;
	me = &sh->c[idx];
	seed = getpid() ^ me->progress;
	snprintf(name, sizeof(name), "sf-exec-%d", idx);
	prctl(PR_SET_NAME, name);
	if (sh->stop)
		return 0;
	me->progress++;
	nap(me);
	if (sh->stop)
		return 0;
	execv("/proc/self/exe", argv);
	note_err(me, "execv", errno);
	return 1;
}

static void exec_churner(struct churner *c, int fd, int idx)
{
	char sfd[16], sidx[16];
	char *argv[] = { "stress_freeze", "--exec-churner", sfd, sidx, NULL };

	snprintf(sfd, sizeof(sfd), "%d", fd);
	snprintf(sidx, sizeof(sidx), "%d", idx);
	execv("/proc/self/exe", argv);
	note_err(c, "execv", errno);
}

/* ---- the controlling process ---- */

static pid_t leader;		/* process group of every churner */
static char stopped[MAX_CHURNERS];	/* left its loop, or reaped */

static pid_t start_leader(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		prctl(PR_SET_NAME, "sf-leader");
		setpgid(0, 0);
		for (;;)
			pause();
	}
	if (pid > 0)
		setpgid(pid, pid);
	return pid;
}

static pid_t start_churner(int idx, int memfd, pid_t parent)
{
	struct churner *c = &sh->c[idx];
	char name[16];
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	setpgid(0, leader);
	if (spread) {
		cpu_set_t online, one;
		int cpu, n = 0, want;

		if (sched_getaffinity(0, sizeof(online), &online))
			note_err(c, "sched_getaffinity", errno);
		want = idx % CPU_COUNT(&online);
		for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
			if (!CPU_ISSET(cpu, &online) || n++ != want)
				continue;
			CPU_ZERO(&one);
			CPU_SET(cpu, &one);
			if (sched_setaffinity(0, sizeof(one), &one))
				note_err(c, "sched_setaffinity", errno);
			break;
		}
	}
	snprintf(name, sizeof(name), "sf-%s-%d", kind_name[c->kind], idx);
	prctl(PR_SET_NAME, name);
	me = c;
	c->pid = getpid();
	seed = getpid();
	switch (c->kind) {
	case K_FORK:
		fork_churner(c);
		break;
	case K_SPAWN:
		spawn_churner(c, 0);
		break;
	case K_VSPAWN:
		spawn_churner(c, 1);
		break;
	case K_EXEC:
		exec_churner(c, memfd, idx);
		break;
	case K_THREADS:
		threads_churner(c);
		break;
	case K_SIGNAL:
		signal_churner(c);
		break;
	}
	_exit(0);
}

/* Kinds for @n churners, by share[]; K_SIGNAL ones in pairs. */
static int plan_churners(int n)
{
	int count[NR_KINDS], k, i, idx = 0, rest = n;

	for (k = 0; k < K_SIGNAL; k++) {
		count[k] = n * share[k] / 1000;
		rest -= count[k];
	}
	count[K_SIGNAL] = rest & ~1;
	count[K_THREADS] += rest & 1;
	for (k = 0; k < NR_KINDS; k++) {
		for (i = 0; i < count[k]; i++, idx++) {
			sh->c[idx].kind = k;
			if (k == K_SIGNAL)
				sh->c[idx].peer = i % 2 ? idx - 1 : idx + 1;
		}
	}
	return idx;
}

/* Fields of /proc/<pid>/stat after the comm: state, ppid, pgrp; 0 or -1. */
static int proc_stat(pid_t pid, char *state, pid_t *ppid, pid_t *pgrp)
{
	char path[64], line[512], *p;
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	p = fgets(line, sizeof(line), f) ? strrchr(line, ')') : NULL;
	fclose(f);
	ok = p && sscanf(p + 1, " %c %d %d", state, ppid, pgrp) == 3;
	return ok ? 0 : -1;
}

/* First line of a small /proc file of @pid, for diagnostics. */
static const char *proc_line(pid_t pid, const char *file, char *buf, size_t size)
{
	char path[340];
	int n;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
	n = read_str(path, buf, size);
	if (n < 0)
		return "-";
	buf[strcspn(buf, "\n")] = 0;
	return buf;
}

/*
 * What a churner and its children are doing.  Not /proc/<pid>/wchan: on
 * UML, __get_wchan() walks the task's stack without KASAN annotations and
 * reports a stack-out-of-bounds read.
 */
static void describe(FILE *out, int idx, const char *why)
{
	struct churner *c = &sh->c[idx];
	char state = '?', todo[128], comm[32];
	pid_t pid, ppid, pgrp;
	struct dirent *d;
	DIR *procs;

	proc_stat(c->pid, &state, &ppid, &pgrp);
	fprintf(out, "# churner %d (%s, pid %d) %s: progress %lu, state %c, todo \"%s\"\n",
	       idx, kind_name[c->kind], c->pid, why, c->progress, state,
	       proc_line(c->pid, "todo", todo, sizeof(todo)));
	procs = opendir("/proc");
	while (procs && (d = readdir(procs))) {
		pid = atoi(d->d_name);
		if (pid <= 0 || proc_stat(pid, &state, &ppid, &pgrp) || ppid != c->pid)
			continue;
		fprintf(out, "#   its child pid %d (%s): state %c, todo \"%s\"\n", pid,
		       proc_line(pid, "comm", comm, sizeof(comm)), state,
		       proc_line(pid, "todo", todo, sizeof(todo)));
	}
	if (procs)
		closedir(procs);
}

/* Busy and total jiffies of all CPUs, from /proc/stat. */
static void cpu_jiffies(unsigned long long *busy, unsigned long long *total)
{
	unsigned long long v[8] = { 0 };
	char buf[256];
	int i;

	*busy = *total = 0;
	if (read_str("/proc/stat", buf, sizeof(buf)) < 0 ||
	    sscanf(buf, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
		   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) < 4)
		return;
	for (i = 0; i < 8; i++)
		*total += v[i];
	*busy = *total - v[3] - v[4];	/* not idle, not iowait */
}

static long long ms_since(long long t0)
{
	return (now_ns() - t0) / 1000000;
}

static int numeric(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s);
}

/*
 * Print to @out (up to 20 of) the tasks with a pending freeze item, found
 * in /proc/<pid>/task/<tid>/todo; their number, or -1 if no task shows a
 * todo file (a kernel without the todo list).
 */
static int scan_freeze_items(FILE *out, const char *when)
{
	char path[300], line[256], comm[32];
	struct dirent *p, *t;
	DIR *procs, *tasks;
	int found = 0, files = 0;
	FILE *f;

	procs = opendir("/proc");
	if (!procs)
		return -1;
	while ((p = readdir(procs))) {
		if (!numeric(p->d_name))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", p->d_name);
		tasks = opendir(path);
		if (!tasks)
			continue;
		while ((t = readdir(tasks))) {
			if (!numeric(t->d_name))
				continue;
			snprintf(path, sizeof(path), "/proc/%s/task/%s/todo", p->d_name, t->d_name);
			f = fopen(path, "r");
			if (!f)
				continue;
			files++;
			while (fgets(line, sizeof(line), f)) {
				if (!strstr(line, "todo_freeze"))
					continue;
				line[strcspn(line, "\n")] = 0;
				if (found++ < 20) {
					snprintf(path, sizeof(path), "task/%s/comm", t->d_name);
					fprintf(out, "# %s: pid %s tid %s (%s) has \"%s\" pending\n",
					       when, p->d_name, t->d_name,
					       proc_line(atoi(p->d_name), path, comm, sizeof(comm)),
					       line);
				}
			}
			fclose(f);
		}
		closedir(tasks);
	}
	closedir(procs);
	return files ? found : -1;
}

/* Zombies anywhere and tasks left in the churners' process group. */
static int scan_leftovers(void)
{
	struct dirent *d;
	char state, comm[32];
	pid_t pid, ppid, pgrp;
	int bad = 0;
	DIR *procs = opendir("/proc");

	if (!procs)
		return 0;
	while ((d = readdir(procs))) {
		if (!numeric(d->d_name))
			continue;
		pid = atoi(d->d_name);
		if (proc_stat(pid, &state, &ppid, &pgrp))
			continue;
		if (state == 'Z' || pgrp == leader) {
			ksft_print_msg("left over: pid %d (%s) state %c ppid %d pgrp %d\n", pid,
				       proc_line(pid, "comm", comm, sizeof(comm)), state, ppid,
				       pgrp);
			bad++;
		}
	}
	closedir(procs);
	return bad;
}

/* Kill a child still running (not one already reaped: pid reuse). */
static void kill_children(void)
{
	struct dirent *d;
	char state;
	pid_t pid, ppid, pgrp;
	DIR *procs = opendir("/proc");

	if (!procs)
		return;
	while ((d = readdir(procs))) {
		if (!numeric(d->d_name))
			continue;
		pid = atoi(d->d_name);
		if (!proc_stat(pid, &state, &ppid, &pgrp) && ppid == getpid() && state != 'Z')
			kill(pid, SIGKILL);
	}
	closedir(procs);
}

/* SIGKILL the churners' group, reap every child; 1 if all are reaped. */
static int kill_and_reap(void)
{
	long long t0 = now_ns();
	int i;

	if (leader > 0)
		kill(-leader, SIGKILL);
	for (i = 0; i < sh->nr; i++)
		if (sh->c[i].pid > 0 && (sh->c[i].kind == K_SIGNAL || !stopped[i]))
			kill(sh->c[i].pid, SIGKILL);
	while (ms_since(t0) < REAP_TIMEOUT_MS) {
		pid_t r = waitpid(-1, NULL, WNOHANG);

		if (r < 0 && errno == ECHILD)
			return 1;
		if (r > 0)
			continue;
		/* Orphans reparented to us (the subreaper) after the kill. */
		kill_children();
		usleep(10000);
	}
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

#define NR_TESTS 7

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-a] [-n TASKS] [-p PERIOD%%] [CYCLES [todo|classic]]\n", prog);
	exit(2);
}

int main(int argc, char **argv)
{
	int cycles = DEFAULT_CYCLES, ntasks = DEFAULT_TASKS, memfd, opt, i, k;
	int failed = 0, first_fail = 0, first_errno = 0, ok, done, started;
	int leaked_after_thaw, leaked, reaped, leftovers;
	unsigned long *before, *rt_before, total[NR_KINDS], threads, rt, usr1;
	const char *freezer = "todo";
	char prev_freezer[64];
	double *ms, *sorted, sum = 0;
	long long t0, t_start;
	unsigned long long busy0, total0, busy1, total1;
	/* Diagnostics kept for the result they belong to. */
	char *after_thaw_buf = NULL, *not_stopped_buf = NULL;
	size_t after_thaw_len, not_stopped_len;
	FILE *after_thaw, *not_stopped;
	pid_t self = getpid();
	int ret;

	if (argc > 1 && !strcmp(argv[1], "--exec-churner"))
		return exec_churner_main(argc, argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "an:p:")) != -1) {
		if (opt == 'a')
			spread = 1;
		else if (opt == 'n')
			ntasks = atoi(optarg);
		else if (opt == 'p')
			period_scale = atoi(optarg);
		else
			usage(argv[0]);
	}
	if (optind < argc)
		cycles = atoi(argv[optind++]);
	if (optind < argc)
		freezer = argv[optind++];
	if (optind < argc || cycles < 1 || ntasks < 2 || ntasks > MAX_CHURNERS ||
	    period_scale < 1)
		usage(argv[0]);

	ksft_print_header();
	ksft_print_msg("%d freeze/thaw cycles, %s freezer, pm_test_delay 0, %d churners, periods %d%%%s\n",
		       cycles, freezer, ntasks, period_scale,
		       spread ? ", spread over the online CPUs" : "");
	if (spread) {
		cpu_set_t online;

		if (!sched_getaffinity(0, sizeof(online), &online))
			ksft_print_msg("churner i pinned to online CPU i %% %d\n",
				       CPU_COUNT(&online));
	}
	/* Without what the stress needs the whole program is one skip. */
	if (access(PM_TEST, W_OK))
		ksft_exit_skip("%s not writable: needs CONFIG_PM_DEBUG and root\n", PM_TEST);
	if (read_str(FREEZER_SELECT, prev_freezer, sizeof(prev_freezer)) < 0)
		prev_freezer[0] = 0;
	ret = select_freezer(freezer);
	if (ret)
		ksft_exit_skip("cannot select the %s freezer: %s\n", freezer,
			       ret == -ENOENT ? "this kernel has no " FREEZER_SELECT :
						strerror(-ret));
	ret = setup_pm_test(0);
	if (ret)
		ksft_exit_skip("pm_test=freezer, pm_test_delay=0: %s\n", strerror(-ret));
	ksft_set_plan(NR_TESTS);

	memfd = memfd_create("stress_freeze", 0);
	if (memfd < 0 || ftruncate(memfd, sizeof(*sh)))
		ksft_exit_fail_perror("memfd");
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	ms = calloc(cycles, sizeof(*ms));
	sorted = calloc(cycles, sizeof(*sorted));
	before = calloc(MAX_CHURNERS, sizeof(*before));
	rt_before = calloc(MAX_CHURNERS, sizeof(*rt_before));
	if (sh == MAP_FAILED || !ms || !sorted || !before || !rt_before)
		ksft_exit_fail_perror("memory");
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	seed = self;

	/* 1: start every churner; each must have done a few iterations. */
	t_start = now_ns();
	sh->nr = plan_churners(ntasks);
	leader = start_leader();
	started = leader > 0;
	for (i = 0; started && i < sh->nr; i++) {
		sh->c[i].pid = start_churner(i, memfd, self);
		if (sh->c[i].pid < 0) {
			ksft_print_msg("fork of churner %d failed: %s\n", i, strerror(errno));
			sh->c[i].pid = 0;
			started = 0;
		}
	}
	for (done = 0; started && !done && ms_since(t_start) < STARTUP_TIMEOUT_MS; usleep(20000))
		for (i = 0, done = 1; i < sh->nr; i++)
			if (sh->c[i].progress < 3 ||
			    (sh->c[i].kind == K_SIGNAL && !sh->c[i].rt_received))
				done = 0;
	if (started && !done)
		for (i = 0; i < sh->nr; i++)
			if (sh->c[i].progress < 3 ||
			    (sh->c[i].kind == K_SIGNAL && !sh->c[i].rt_received))
				describe(stdout, i, "did not get going");
	ksft_print_msg("%d churners running after %lld ms:", sh->nr, ms_since(t_start));
	for (k = 0; k < NR_KINDS; k++)
		total[k] = 0;
	for (i = 0; i < sh->nr; i++)
		total[sh->c[i].kind]++;
	for (k = 0; k < NR_KINDS; k++)
		printf(" %s %lu%s", kind_name[k], total[k], k < NR_KINDS - 1 ? "," : "\n");
	ksft_test_result(started && done, "stress.churners_started\n");
	cpu_jiffies(&busy0, &total0);
	usleep(2000000);
	cpu_jiffies(&busy1, &total1);
	if (total1 > total0)
		ksft_print_msg("CPU busy with the churn alone: %llu%%\n",
			       100 * (busy1 - busy0) / (total1 - total0));

	/* 2: the freeze/thaw cycles. */
	t_start = now_ns();
	for (i = 0; i < cycles && failed < MAX_FAILED_CYCLES; i++) {
		usleep(rand_r(&seed) % MAX_CYCLE_GAP_US);
		t0 = now_ns();
		ret = freeze_thaw();
		ms[i] = (now_ns() - t0) / 1e6;
		sum += ms[i];
		if (ret) {
			if (!failed++) {
				first_fail = i + 1;
				first_errno = -ret;
			}
			ksft_print_msg("cycle %d: freeze failed: %s (errno %d) after %.1f ms\n",
				       i + 1, strerror(-ret), -ret, ms[i]);
		}
		if ((i + 1) % (cycles >= 100 ? cycles / 10 : 10) == 0)
			ksft_print_msg("%d/%d cycles, %.1f s\n", i + 1, cycles,
				       ms_since(t_start) / 1000.0);
	}
	memcpy(sorted, ms, i * sizeof(*ms));
	qsort(sorted, i, sizeof(*sorted), cmp_double);
	ksft_print_msg("%d cycles in %.1f s (incl. pauses); freeze/thaw ms per cycle: min %.1f, median %.1f, max %.1f, mean %.1f\n",
		       i, ms_since(t_start) / 1000.0, sorted[0], sorted[i / 2], sorted[i - 1],
		       sum / i);
	if (failed)
		ksft_print_msg("%d of %d cycles failed; the first: cycle %d, %s (errno %d)%s\n",
			       failed, i, first_fail, strerror(first_errno), first_errno,
			       failed >= MAX_FAILED_CYCLES ? "; stopped early" : "");
	ksft_test_result(!failed && i == cycles, "stress.every_freeze_succeeds\n");

	/* Right after the last thaw nobody may still have a freeze item. */
	after_thaw = open_memstream(&after_thaw_buf, &after_thaw_len);
	leaked_after_thaw = scan_freeze_items(after_thaw ? after_thaw : stdout,
					      "after the last thaw");

	/* 3: every churner moves on within PROGRESS_TIMEOUT_MS. */
	for (i = 0; i < sh->nr; i++) {
		before[i] = sh->c[i].progress;
		rt_before[i] = sh->c[i].rt_received;
	}
	t0 = now_ns();
	do {
		usleep(20000);
		for (i = 0, done = 1; i < sh->nr; i++)
			if (sh->c[i].progress <= before[i] ||
			    (sh->c[i].kind == K_SIGNAL && sh->c[i].rt_received <= rt_before[i]))
				done = 0;
	} while (!done && ms_since(t0) < PROGRESS_TIMEOUT_MS);
	if (!done)
		for (i = 0; i < sh->nr; i++)
			if (sh->c[i].progress <= before[i] ||
			    (sh->c[i].kind == K_SIGNAL && sh->c[i].rt_received <= rt_before[i]))
				describe(stdout, i, "made no progress in 5 s");
	ksft_test_result(done, "stress.no_lost_task\n");

	/* Stop: the signal pairs stop sending, every other churner exits. */
	sh->stop = 1;
	t0 = now_ns();
	for (;;) {
		for (i = 0, done = 1; i < sh->nr; i++) {
			struct churner *c = &sh->c[i];

			if (stopped[i])
				continue;
			if (c->kind == K_SIGNAL)
				stopped[i] = c->done;
			else	/* reaped (or never started): never kill it */
				stopped[i] = c->pid <= 0 ||
					     waitpid(c->pid, NULL, WNOHANG) != 0;
			done &= stopped[i];
		}
		if (done || ms_since(t0) >= STOP_TIMEOUT_MS)
			break;
		usleep(20000);
	}
	not_stopped = open_memstream(&not_stopped_buf, &not_stopped_len);
	for (i = 0; i < sh->nr; i++)
		if (!stopped[i])
			describe(not_stopped ? not_stopped : stdout, i, "did not stop within 10 s");
	ok = done;

	/* 4: every queued signal arrived once, in order. */
	t0 = now_ns();
	do {
		usleep(20000);
		for (i = 0, done = 1; i < sh->nr; i++)
			if (sh->c[i].kind == K_SIGNAL &&
			    sh->c[i].rt_received != sh->c[sh->c[i].peer].rt_sent)
				done = 0;
	} while (!done && ms_since(t0) < PROGRESS_TIMEOUT_MS);
	for (i = 0, done = 1; i < sh->nr; i++) {
		struct churner *c = &sh->c[i], *peer = &sh->c[c->peer];

		if (c->kind != K_SIGNAL)
			continue;
		if (c->rt_received != peer->rt_sent || c->rt_bad_seq ||
		    c->rt_last != peer->rt_sent) {
			ksft_print_msg("churner %d (pid %d): %lu of %lu queued signals received, last %lu, %lu out of sequence\n",
				       i, c->pid, c->rt_received, peer->rt_sent, c->rt_last,
				       c->rt_bad_seq);
			done = 0;
		}
	}
	ksft_test_result(done, "stress.no_lost_signal\n");

	/* 5: no churn syscall failed. */
	for (i = 0, done = 1; i < sh->nr; i++) {
		if (!sh->c[i].err)
			continue;
		ksft_print_msg("churner %d (%s, pid %d): %s failed: %s (%d)\n", i,
			       kind_name[sh->c[i].kind], sh->c[i].pid, sh->c[i].what,
			       sh->c[i].err > 0 ? strerror(sh->c[i].err) : "", sh->c[i].err);
		done = 0;
	}
	ksft_test_result(done, "stress.churners_saw_no_errors\n");

	/* 6 and 7: kill and reap everything; no freeze item left anywhere. */
	reaped = kill_and_reap();
	if (after_thaw) {
		fclose(after_thaw);
		fputs(after_thaw_buf, stdout);
	}
	leaked = scan_freeze_items(stdout, "after reaping the churners");
	if (leaked < 0 && leaked_after_thaw < 0) {
		ksft_test_result_code(KSFT_SKIP, "stress.no_leaked_item",
				      "no /proc/<pid>/task/<tid>/todo in this kernel");
	} else {
		if (leaked_after_thaw > 0)
			ksft_print_msg("%d task(s) had a freeze item right after the last thaw\n",
				       leaked_after_thaw);
		if (leaked > 0)
			ksft_print_msg("%d task(s) have a freeze item after the churners were reaped\n",
				       leaked);
		ksft_test_result(leaked <= 0 && leaked_after_thaw <= 0, "stress.no_leaked_item\n");
	}

	if (not_stopped) {
		fclose(not_stopped);
		fputs(not_stopped_buf, stdout);
	}
	leftovers = scan_leftovers();
	if (!reaped)
		ksft_print_msg("children still not reaped after %d s\n", REAP_TIMEOUT_MS / 1000);
	ksft_test_result(ok && reaped && !leftovers, "stress.everything_reaped\n");

	/* Statistics, after every result. */
	for (k = 0; k < NR_KINDS; k++)
		total[k] = 0;
	for (i = 0; i < sh->nr; i++)
		total[sh->c[i].kind] += sh->c[i].progress;
	for (i = 0, threads = rt = usr1 = 0; i < sh->nr; i++) {
		threads += sh->c[i].thread_runs;
		rt += sh->c[i].rt_received;
		usr1 += sh->c[i].usr1_received;
	}
	ksft_print_msg("churner iterations:");
	for (k = 0; k < NR_KINDS; k++)
		printf(" %s %lu,", kind_name[k], total[k]);
	printf(" threads run %lu, signals received %lu queued + %lu SIGUSR1\n",
	       threads, rt, usr1);

	write_str(PM_TEST, "none");
	if (prev_freezer[0])
		select_freezer(strstr(prev_freezer, "[classic]") ? "classic" : "todo");
	ksft_finished();
}
