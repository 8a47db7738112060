// SPDX-License-Identifier: GPL-2.0
/*
 * "make demo", the guest side: start four workloads and show them; the
 * host (scripts/demo.sh) freezes user space through mconsole, with the todo
 * freezer and then with the classic one, and looks inside the kernel while
 * it is frozen.  After each thaw, show how long each workload was stopped.
 *
 * Not a test: it prints for people.  scripts/guest/test.sh skips demo_*.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "freeze.h"

#define NR_THREADS	8
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
};

static struct gaps *g;

static void record(volatile long long *max, long long *last)
{
	long long t = now_ns();

	if (t - *last > *max)
		*max = t - *last;
	*last = t;
}

static void spinner(void)
{
	long long last = now_ns();

	g->started++;
	for (;;)
		record(&g->spin, &last);
}

static void sleeper(void)
{
	long long last = now_ns();

	g->started++;
	for (;;) {
		usleep(100000);
		record(&g->sleep, &last);
	}
}

static void *thread_fn(void *arg)
{
	volatile long long *max = &g->thread[(long)arg];
	long long last = now_ns();

	if ((long)arg < 2)
		g->tid[(long)arg] = gettid();

	for (;;) {
		usleep(20000);
		record(max, &last);
	}
	return NULL;
}

static void threads(void)
{
	pthread_t t;
	long i;

	for (i = 0; i < NR_THREADS; i++)
		pthread_create(&t, NULL, thread_fn, (void *)i);
	g->started++;
	for (;;)
		pause();
}

/* Blocks in read() until the parent writes, after the thaw. */
static void pipe_reader(int fd)
{
	long long t0;
	char c;

	g->started++;
	for (;;) {
		t0 = now_ns();
		g->pipe_ret = read(fd, &c, 1);
		g->pipe_err = g->pipe_ret < 0 ? errno : 0;
		g->pipe_ns = now_ns() - t0;
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
	pid_t spin, sleep_pid, thr, reader;
	int fds[2], i;

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
	for (i = 0; i < 200 && (g->started < 4 || !g->tid[1]); i++)
		usleep(10000);
	usleep(300000);

	printf("Four workloads are running:\n");
	show("spinner", spin);
	show("sleeper", sleep_pid);
	show("8-thread process", thr);
	show("pipe reader", reader);
	printf("DEMO-PIDS: %d %d %d %d %d %d\n", spin, sleep_pid, thr, g->tid[0], g->tid[1],
	       reader);

	for (i = 0; i < 2; i++) {
		reset();
		if (wait_for_freeze()) {
			printf("demo: no freeze came within 60 s\n");
			break;
		}
		pauses(fds[1]);
		printf("DEMO-RESUMED\n");
	}
	kill(spin, SIGKILL);
	kill(sleep_pid, SIGKILL);
	kill(thr, SIGKILL);
	kill(reader, SIGKILL);
	while (wait(NULL) > 0)
		;
	printf("DEMO-DONE\n");
	return 0;
}
