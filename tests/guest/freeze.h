/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the freezer tests: pick a freezer, freeze and thaw through
 * the standard interface, and reach the test-only knobs.
 *
 * With /sys/power/pm_test = freezer, "echo freeze > /sys/power/state"
 * freezes user space and the freezable kernel threads, waits
 * pm_test_delay seconds and thaws: all inside that one write().
 */
#ifndef FREEZE_H
#define FREEZE_H

#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <sys/klog.h>
#include "guest.h"

#define PM_TEST			"/sys/power/pm_test"
#define PM_TEST_DELAY		"/sys/module/suspend/parameters/pm_test_delay"
#define PM_FREEZE_TIMEOUT	"/sys/power/pm_freeze_timeout"
#define POWER_STATE		"/sys/power/state"
/* "[todo] classic": the freezer used by the next freeze (root only). */
#define FREEZER_SELECT		"/sys/power/freezer"
/* Test-only knobs (CONFIG_TODO_FREEZER_TEST), all root only. */
#define KNOB_DIR		"/sys/kernel/debug/todo_freezer"
/* "none", or some of "B1 B2 B3 B4 SB": the bugs to re-enact. */
#define KNOB_REENACT		KNOB_DIR "/reenact"
/* Write N: the writer sleeps N ms uninterruptibly (refuses to freeze). */
#define KNOB_SLEEP_UNINT	KNOB_DIR "/sleep_uninterruptible_ms"
/* Write N: a freezable kthread "todo_stuck" sleeps N ms, no checkpoint. */
#define KNOB_STUCK_KTHREAD	KNOB_DIR "/stuck_kthread_ms"
/* Write N: a freezable kthread "todo_napper" sleeps up to N ms, D state. */
#define KNOB_NAPPING_KTHREAD	KNOB_DIR "/napping_kthread_ms"
/* Write N: a freezable kthread "todo_ticker" meets a checkpoint every tick. */
#define KNOB_TICKING_KTHREAD	KNOB_DIR "/ticking_kthread_ms"
/* "none", "user", "kthreads", "all": whose todo freeze items do nothing. */
#define KNOB_ITEM_OFF		KNOB_DIR "/item_off"
#define TRACING			"/sys/kernel/tracing"
/* The kernel's own times of the last freeze (CONFIG_FREEZER_BENCH). */
#define FREEZER_BENCH_LAST	"/sys/kernel/debug/freezer_bench/last"

/* Read a small file into @buf (NUL-terminated); bytes read or -errno. */
static inline int read_str(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	return n;
}

/* Is @name ("todo" or "classic") the selected freezer? */
static inline int freezer_is(const char *name)
{
	char buf[64], want[32];

	if (read_str(FREEZER_SELECT, buf, sizeof(buf)) < 0)
		return !strcmp(name, "classic");	/* a stock kernel */
	snprintf(want, sizeof(want), "[%s]", name);
	return strstr(buf, want) != NULL;
}

/*
 * Select freezer @name: 0, -ENOENT if this kernel has no choice (then only
 * "classic" is available, and selecting it succeeds), or -errno.
 */
static inline int select_freezer(const char *name)
{
	if (access(FREEZER_SELECT, F_OK))
		return strcmp(name, "classic") ? -ENOENT : 0;
	return write_str(FREEZER_SELECT, name);
}

/* pm_test=freezer with a delay of @delay_s seconds; 0 or -errno. */
static inline int setup_pm_test(int delay_s)
{
	char delay[16];
	int ret = write_str(PM_TEST, "freezer");

	if (ret)
		return ret;
	snprintf(delay, sizeof(delay), "%d", delay_s);
	return write_str(PM_TEST_DELAY, delay);
}

/*
 * Select freezer @name and pm_test=freezer with no delay, for a program
 * that freezes in a loop; NULL, or why not (for its skip line).
 */
static inline const char *setup_freeze_loop(const char *name)
{
	static char why[128];
	int ret = select_freezer(name);

	if (ret) {
		snprintf(why, sizeof(why), "cannot select the %s freezer: %s", name, strerror(-ret));
		return why;
	}
	ret = setup_pm_test(0);
	if (ret) {
		snprintf(why, sizeof(why), "pm_test=freezer, pm_test_delay=0: %s", strerror(-ret));
		return why;
	}
	return NULL;
}

/* One freeze/thaw round trip; 0 or -errno (EBUSY: tasks refused). */
static inline int freeze_thaw(void)
{
	return write_str(POWER_STATE, "freeze");
}

/* Write the integer @val to @path; 0 or -errno. */
static inline int write_int(const char *path, long val)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld", val);
	return write_str(path, buf);
}

/*
 * The last freeze as the kernel measured it: when its last user task froze
 * and when the thaw began (CLOCK_MONOTONIC, the clock of now_ns()), with
 * the time freezing and thawing took and how many user tasks each saw.
 */
struct freeze_window {
	long long freeze_ns, thaw_ns;
	int frozen, left;
	long long frozen_at_ns, thaw_at_ns;
};

/*
 * Read the last freeze's window into @w: 0, or -errno (-ENOENT: no
 * CONFIG_FREEZER_BENCH; -ERANGE: that freeze froze no user task).
 *
 * Every user task that freeze froze stopped before frozen_at_ns and ran no
 * user code until after thaw_at_ns, so one that sat through it shows a gap
 * between two of its clock readings longer than frozen_ns(), and one that
 * was not frozen shows its ordinary gaps.  Tests compare with this window,
 * never with pm_test_delay: that is a busy wait counted in delay loops
 * calibrated at boot, as long or as short as the host's load then made it.
 */
static inline int last_freeze_window(struct freeze_window *w)
{
	char buf[256];
	int n = read_str(FREEZER_BENCH_LAST, buf, sizeof(buf));

	memset(w, 0, sizeof(*w));
	if (n < 0)
		return n;
	if (sscanf(buf, "freeze_ns=%lld thaw_ns=%lld frozen=%d left=%d frozen_at_ns=%lld thaw_at_ns=%lld",
		   &w->freeze_ns, &w->thaw_ns, &w->frozen, &w->left,
		   &w->frozen_at_ns, &w->thaw_at_ns) != 6)
		return -EPROTO;
	if (!w->frozen_at_ns || w->thaw_at_ns <= w->frozen_at_ns)
		return -ERANGE;
	return 0;
}

/* How long every task frozen by that freeze stayed frozen, at least. */
static inline long long frozen_ns(const struct freeze_window *w)
{
	return w->thaw_at_ns - w->frozen_at_ns;
}

/* How the user tasks of the last freeze were frozen (freezer:task_frozen). */
struct frozen_by {
	int item, in_place, refrigerator;
	/* Tasks of the freeze before still leaving their wait; -1: not shown. */
	int still_leaving;
	/*
	 * How the freezing task's last wait for the todo freeze items ended:
	 * "woken" (by the last task to freeze), "slice" (its 10 ms passed),
	 * "none" (it did not wait: the classic freezer polls); "" not shown.
	 */
	char last_wait[16];
};

#define FROZEN_BY		"/sys/kernel/debug/freezer/frozen_by"

/* Read the "user:" line of FROZEN_BY into @fb: 0 or -errno. */
static inline int read_frozen_by(struct frozen_by *fb)
{
	char buf[256];
	int n = read_str(FROZEN_BY, buf, sizeof(buf));

	if (n < 0)
		return n;
	fb->still_leaving = -1;
	fb->last_wait[0] = 0;
	if (sscanf(buf, "user: item=%d in_place=%d refrigerator=%d still_leaving=%d last_wait=%15s",
		   &fb->item, &fb->in_place, &fb->refrigerator, &fb->still_leaving,
		   fb->last_wait) < 3)
		return -EPROTO;
	return 0;
}

/*
 * Fields of /proc/<pid>/stat: comm (up to 15 characters), state, ppid,
 * flags and utime + stime in clock ticks.  0, or -1 if @pid is gone.
 */
struct pstat {
	char comm[32];
	char state;
	int ppid;
	unsigned int flags;
	unsigned long ticks;
};

static inline int read_pstat(pid_t pid, struct pstat *ps)
{
	char path[64], line[1024], *open_paren, *close_paren;
	unsigned long utime, stime;
	size_t len;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_str(path, line, sizeof(line)) <= 0)
		return -1;
	open_paren = strchr(line, '(');
	close_paren = strrchr(line, ')');
	if (!open_paren || !close_paren || close_paren < open_paren)
		return -1;
	len = close_paren - open_paren - 1;
	if (len >= sizeof(ps->comm))
		len = sizeof(ps->comm) - 1;
	memcpy(ps->comm, open_paren + 1, len);
	ps->comm[len] = 0;
	if (sscanf(close_paren + 2, "%c %d %*d %*d %*d %*d %u %*u %*u %*u %*u %lu %lu",
		   &ps->state, &ps->ppid, &ps->flags, &utime, &stime) != 5)
		return -1;
	ps->ticks = utime + stime;
	return 0;
}

/* The tids of @leader's threads whose comm starts with @prefix, up to @max. */
static inline int threads_named(pid_t leader, const char *prefix, pid_t *tids, int max)
{
	char path[320], comm[32];
	struct dirent *de;
	int n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", leader);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((de = readdir(dir)) && n < max) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/comm", leader, de->d_name);
		if (read_str(path, comm, sizeof(comm)) > 0 && !strncmp(comm, prefix, strlen(prefix)))
			tids[n++] = atoi(de->d_name);
	}
	closedir(dir);
	return n;
}

/* The kernel thread called @comm: its pid (the last one found) and count. */
static inline pid_t find_kthread(const char *comm, int *count)
{
	struct dirent *de;
	struct pstat ps;
	DIR *dir = opendir("/proc");
	pid_t found = 0;

	*count = 0;
	if (!dir)
		return 0;
	while ((de = readdir(dir))) {
		pid_t pid;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = atoi(de->d_name);
		if (read_pstat(pid, &ps) || ps.ppid != 2 || strcmp(ps.comm, comm))
			continue;
		found = pid;
		(*count)++;
	}
	closedir(dir);
	return found;
}

/*
 * Write @ms to test @knob, which starts kernel thread @comm: its pid once
 * it is there (within 2 s), or 0.
 */
static inline pid_t start_knob_kthread(const char *knob, const char *comm, int ms)
{
	int count, tries;
	pid_t pid = 0;

	if (write_int(knob, ms))
		return 0;
	for (tries = 0; tries < 100 && !pid; tries++) {
		pid = find_kthread(comm, &count);
		if (!pid)
			usleep(20000);
	}
	return pid;
}

/* Has kernel thread @pid, called @comm, exited by @deadline_ns? */
static inline int kthread_gone_by(pid_t pid, const char *comm, long long deadline_ns)
{
	struct pstat ps;

	while (!read_pstat(pid, &ps) && !strcmp(ps.comm, comm)) {
		if (now_ns() > deadline_ns)
			return 0;
		usleep(20000);
	}
	return 1;
}

/* Read @path into @saved (newline dropped), then write @val; 0 or -errno. */
static inline int save_and_set(const char *path, char *saved, size_t size, long val)
{
	int n = read_str(path, saved, size);

	if (n < 0) {
		saved[0] = 0;
		return n;
	}
	saved[strcspn(saved, "\n")] = 0;
	return write_int(path, val);
}

/* Write back what save_and_set() saved in @saved, if anything, once. */
static inline void restore_saved(const char *path, char *saved)
{
	if (saved[0])
		write_str(path, saved);
	saved[0] = 0;
}

/* Empty the kernel log buffer (so a test only sees its own messages). */
static inline void dmesg_clear(void)
{
	klogctl(5, NULL, 0);	/* SYSLOG_ACTION_CLEAR */
}

/* The kernel log buffer, malloc()ed and NUL-terminated, or NULL. */
static inline char *dmesg_read(void)
{
	int size = klogctl(10, NULL, 0);	/* SYSLOG_ACTION_SIZE_BUFFER */
	char *buf;
	int n;

	if (size <= 0)
		return NULL;
	buf = malloc(size + 1);
	if (!buf)
		return NULL;
	n = klogctl(3, buf, size);		/* SYSLOG_ACTION_READ_ALL */
	if (n < 0) {
		free(buf);
		return NULL;
	}
	buf[n] = 0;
	return buf;
}

/* Copy the kernel log lines matching @needle (all if NULL) to the test log. */
static inline void log_kernel_lines(const char *log, const char *needle, int max)
{
	const char *p = log, *nl;

	while (p && *p && max > 0) {
		nl = strchr(p, '\n');
		if (!needle || memmem(p, nl ? (size_t)(nl - p) : strlen(p), needle, strlen(needle))) {
			fprintf(stderr, "#   kernel: %.*s\n", nl ? (int)(nl - p) : (int)strlen(p), p);
			max--;
		}
		p = nl ? nl + 1 : NULL;
	}
}

#endif /* FREEZE_H */
