/* SPDX-License-Identifier: GPL-2.0 */
/* Small helpers shared by the guest test programs. */
#ifndef GUEST_H
#define GUEST_H

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* CLOCK_MONOTONIC in ns: the clock of the kernel's ktime_get_ns(). */
static inline long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Write @text to @path in one write(); 0 or -errno. */
static inline int write_str(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* The state letter of @pid in /proc/<pid>/stat ('R', 'S', 'T', ...), or 0. */
static inline char proc_state(pid_t pid)
{
	char path[64], line[512], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	p = fgets(line, sizeof(line), f) ? strrchr(line, ')') : NULL;
	fclose(f);
	return p && p[1] == ' ' ? p[2] : 0;
}

/* Wait until @pid is in state @state, up to 2 s; 1 if it got there. */
static inline int wait_state(pid_t pid, char state)
{
	int i;

	for (i = 0; i < 400; i++) {
		if (proc_state(pid) == state)
			return 1;
		usleep(5000);
	}
	return 0;
}

/* Reap @pid within @ms milliseconds; its wait status, or -1. */
static inline int reap_within(pid_t pid, int ms)
{
	int status;

	for (; ms > 0; ms -= 5) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return status;
		if (r < 0)
			return -1;
		usleep(5000);
	}
	return -1;
}

/* SIGKILL and reap *@pid if it is a child (> 0), then clear it. */
static inline void kill_child(pid_t *pid)
{
	if (*pid > 0) {
		kill(*pid, SIGKILL);
		waitpid(*pid, NULL, 0);
	}
	*pid = 0;
}

/*
 * Loop for ever, sleeping @period_us: count *@iters, record *@max_gap_ns.
 * It sleeps in poll(), an interruptible sleep that is not freezable, so a
 * freezer must wake it and it freezes on its way back to user space (the
 * todo freezer through its item).  usleep() would sleep freezably, and
 * both freezers freeze such a sleeper in place, without waking it.
 * A reader waits for two more iterations counted from a sample taken after
 * the thaw, and only then reads *@max_gap_ns: the first may be the one a
 * freeze interrupted between its clock reading and its count.  A sample
 * taken before the freeze is not enough: a thread loops on while the
 * freezer has not reached it yet, so both can be counted before it froze.
 */
static inline __attribute__((noreturn)) void
gap_loop(volatile long long *max_gap_ns, volatile unsigned long *iters, int period_us)
{
	long long last = now_ns(), t;

	for (;;) {
		t = now_ns();
		if (t - last > *max_gap_ns)
			*max_gap_ns = t - last;
		last = t;
		(*iters)++;
		poll(NULL, 0, period_us / 1000);
	}
}

#endif /* GUEST_H */
