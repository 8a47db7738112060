// SPDX-License-Identifier: GPL-2.0
/*
 * "make demo", the guest side: start four workloads and show them; the
 * host (scripts/host/demo.sh) freezes user space through mconsole, with the todo
 * freezer and then with the classic one, and looks inside the kernel while
 * it is frozen.  After each thaw, show how long each workload was stopped,
 * and print the freeze as the kernel's tracepoints saw it, one lane per
 * workload task (tests/guest/timeline.h), for the picture the host draws.
 *
 * Not a test: it prints for people, in the demo job only.
 *
 * job: demo
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "freeze.h"
#include "timeline.h"

#define NR_THREADS	8
/* The lanes of the timeline: every workload task. */
enum { L_SPIN, L_SLEEP, L_THREADS, L_THREAD0, L_PIPE = L_THREAD0 + NR_THREADS, NR_LANES };
/* A gap this long in the spinner's loop means a freeze came and went. */
#define FROZEN_NS	500000000LL

/* Largest gap between two iterations, per workload (shared, MAP_SHARED). */
struct gaps {
	volatile long long spin, sleep, thread[NR_THREADS];
	volatile long long pipe_ns;	/* read() blocked this long */
	volatile long pipe_ret;
	volatile int pipe_err;
	volatile int started;
	volatile pid_t tid[2];		/* two of the threads */
	struct tl_task lane[NR_LANES];	/* each task fills in its own */
};

static struct gaps *g;

/* Task @lane is @name: its comm, and its lane of the timeline. */
static void lane_is(int lane, const char *name)
{
	prctl(PR_SET_NAME, name);
	snprintf(g->lane[lane].name, sizeof(g->lane[lane].name), "%s", name);
	g->lane[lane].pid = gettid();
}

/* At @t, after a gap since @last: back in user space after a freeze? */
static void back(int lane, long long last, long long t)
{
	if (t - last > FROZEN_NS && !g->lane[lane].user_ns)
		g->lane[lane].user_ns = t;
}

static void record(volatile long long *max, long long *last, int lane)
{
	long long t = now_ns();

	back(lane, *last, t);
	if (t - *last > *max)
		*max = t - *last;
	*last = t;
}

static void spinner(void)
{
	long long last = now_ns();

	lane_is(L_SPIN, "spinner");
	g->started++;
	for (;;)
		record(&g->spin, &last, L_SPIN);
}

static void sleeper(void)
{
	long long last = now_ns();

	lane_is(L_SLEEP, "sleeper");
	g->started++;
	for (;;) {
		usleep(100000);
		record(&g->sleep, &last, L_SLEEP);
	}
}

static void *thread_fn(void *arg)
{
	volatile long long *max = &g->thread[(long)arg];
	long long last = now_ns();
	char name[16];

	snprintf(name, sizeof(name), "thread-%ld", (long)arg);
	lane_is(L_THREAD0 + (long)arg, name);
	if ((long)arg < 2)
		g->tid[(long)arg] = gettid();

	for (;;) {
		usleep(20000);
		record(max, &last, L_THREAD0 + (long)arg);
	}
	return NULL;
}

static void threads(void)
{
	pthread_t t;
	long i;

	lane_is(L_THREADS, "threads");
	for (i = 0; i < NR_THREADS; i++)
		pthread_create(&t, NULL, thread_fn, (void *)i);
	g->started++;
	for (;;)
		pause();
}

/* Blocks in read() until the parent writes, after the thaw. */
static void pipe_reader(int fd)
{
	long long t0, t;
	char c;

	lane_is(L_PIPE, "pipe-reader");
	g->started++;
	for (;;) {
		t0 = now_ns();
		g->pipe_ret = read(fd, &c, 1);
		g->pipe_err = g->pipe_ret < 0 ? errno : 0;
		t = now_ns();
		back(L_PIPE, t0, t);
		g->pipe_ns = t - t0;
	}
}

static pid_t start(void (*fn)(void))
{
	pid_t pid = fork();

	if (pid == 0) {
		fn();
		_exit(0);
	}
	return pid;
}

static void show(const char *what, pid_t pid)
{
	char path[64], todo[256] = "";

	snprintf(path, sizeof(path), "/proc/%d/todo", pid);
	if (read_str(path, todo, sizeof(todo)) <= 0)
		strcpy(todo, "(empty)\n");
	printf("  %-22s pid %-4d state %c   todo list: %s", what, pid, proc_state(pid),
	       todo);
}

static void reset(void)
{
	int i;

	g->spin = g->sleep = 0;
	for (i = 0; i < NR_THREADS; i++)
		g->thread[i] = 0;
	for (i = 0; i < NR_LANES; i++)
		g->lane[i].user_ns = 0;
}

/* Every workload task has filled in its lane. */
static int lanes_ready(void)
{
	int i;

	for (i = 0; i < NR_LANES; i++)
		if (!g->lane[i].pid)
			return 0;
	return 1;
}

/*
 * Trace the workload tasks for the timeline: 1 if on; 0 (and why) if this
 * kernel cannot (the run flavour has no CONFIG_FREEZER_BENCH).
 */
static int timeline_begin(void)
{
	pid_t lo = g->lane[0].pid, hi = lo;
	int i, ret;

	printf("DEMO-TASKS:");
	for (i = 0; i < NR_LANES; i++) {
		printf(" %d", g->lane[i].pid);
		lo = g->lane[i].pid < lo ? g->lane[i].pid : lo;
		hi = g->lane[i].pid > hi ? g->lane[i].pid : hi;
	}
	printf("\n");
	/* 0: the host freezes, "uml_mconsole freeze" in a kernel thread. */
	ret = timeline_start(lo, hi, 0);
	if (ret)
		printf("  [guest] no timeline: cannot trace the freezes (%s); the bench and test kernels can\n",
		       strerror(-ret));
	return !ret;
}

/* The freeze just seen through @freezer, as a TIMELINE block. */
static void timeline_show(const char *freezer)
{
	struct tl_task lanes[NR_LANES];
	int ret;

	memcpy(lanes, g->lane, sizeof(lanes));
	ret = timeline_dump(freezer, "demo", lanes, NR_LANES);
	if (ret)
		printf("  [guest] no timeline of the %s freeze: %s\n", freezer, strerror(-ret));
	timeline_on();
}

/* Wait for the next freeze and thaw: a long gap in the spinner's loop. */
static int wait_for_freeze(void)
{
	int i;

	for (i = 0; i < 1200; i++) {	/* 60 s */
		if (g->spin > FROZEN_NS) {
			usleep(300000);	/* every workload runs again */
			return 0;
		}
		usleep(50000);
	}
	return -1;
}

static void pauses(int pipe_w)
{
	long long min = g->thread[0], max = 0;
	int i;

	for (i = 0; i < NR_THREADS; i++) {
		if (g->thread[i] < min)
			min = g->thread[i];
		if (g->thread[i] > max)
			max = g->thread[i];
	}
	/* Let the pipe reader return: it was blocked across the freeze. */
	g->pipe_ns = -1;
	if (write(pipe_w, "x", 1) != 1)
		perror("write");
	for (i = 0; i < 100 && g->pipe_ns < 0; i++)
		usleep(10000);
	printf("  [guest] resumed; the longest pause each workload saw:\n");
	printf("    spinner                %7.3f s\n", g->spin / 1e9);
	printf("    sleeper (usleep loop)  %7.3f s\n", g->sleep / 1e9);
	printf("    %d threads of one proc  %7.3f .. %.3f s\n", NR_THREADS, min / 1e9,
	       max / 1e9);
	printf("    pipe reader            read() returned %ld (%s), blocked %.3f s\n",
	       g->pipe_ret, g->pipe_ret == 1 ? "the byte, no EINTR" : strerror(g->pipe_err),
	       g->pipe_ns / 1e9);
}

int main(void)
{
	static const char *const freezer[2] = { "todo", "classic" };
	pid_t spin, sleep_pid, thr, reader;
	int fds[2], i, tracing;

	setvbuf(stdout, NULL, _IOLBF, 0);
	g = mmap(NULL, sizeof(*g), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (g == MAP_FAILED || pipe(fds))
		return 1;
	spin = start(spinner);
	sleep_pid = start(sleeper);
	thr = start(threads);
	reader = fork();
	if (reader == 0)
		pipe_reader(fds[0]);
	for (i = 0; i < 200 && (g->started < 4 || !g->tid[1] || !lanes_ready()); i++)
		usleep(10000);
	usleep(300000);

	printf("Four workloads are running:\n");
	show("spinner", spin);
	show("sleeper", sleep_pid);
	show("8-thread process", thr);
	show("pipe reader", reader);
	tracing = timeline_begin();
	printf("DEMO-PIDS: %d %d %d %d %d %d\n", spin, sleep_pid, thr, g->tid[0], g->tid[1],
	       reader);

	for (i = 0; i < 2; i++) {
		reset();
		if (wait_for_freeze()) {
			printf("demo: no freeze came within 60 s\n");
			break;
		}
		pauses(fds[1]);
		/* scripts/host/demo.sh freezes with the todo freezer, then the classic one. */
		if (tracing)
			timeline_show(freezer[i]);
		printf("DEMO-RESUMED\n");
	}
	if (tracing)
		timeline_stop();
	kill(spin, SIGKILL);
	kill(sleep_pid, SIGKILL);
	kill(thr, SIGKILL);
	kill(reader, SIGKILL);
	while (wait(NULL) > 0)
		;
	printf("DEMO-DONE\n");
	return 0;
}
