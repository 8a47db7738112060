/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One freeze as a timeline, from the kernel's own tracepoints ("make demo",
 * "make bench TIMELINE=kind,N"): todo:todo_add (a freeze item queued),
 * todo:todo_run (the task ran it), freezer:task_frozen (frozen, by which
 * freezer and how) and sched:sched_wakeup (after the thaw began: the thaw
 * woke it), for the tasks whose pids are in [lo, hi], on the trace clock
 * "mono" (CLOCK_MONOTONIC, the clock of now_ns()).  Also the wake-ups of
 * the freezing task, the one that runs freeze_processes(): the todo
 * freezer sleeps until the last task to freeze wakes it, the classic one
 * polls, woken by its timer.  After the freeze and thaw, timeline_dump()
 * prints the freeze's window and the events on the console between
 * markers, for scripts/host/timeline.py on the host:
 *
 *   TIMELINE-BEGIN freezer=F what=W tasks=N freezer_pid=P
 *                                              P: the freezing task, 0
 *                                              if not known
 *   TIMELINE window freeze_start_ns=.. frozen_at_ns=.. thaw_at_ns=..
 *                   freeze_ns=.. thaw_ns=.. frozen=.. left=..
 *   TIMELINE task pid=P name=NAME user_ns=T    one per task (lane); T: when
 *                                              it was back in user space
 *                                              after the thaw, as it saw
 *                                              it, or 0 if not known
 *   TIMELINE trace <a line of /sys/kernel/tracing/trace>
 *   TIMELINE-END freezer=F lines=N lost=0|1
 *
 * Only the lines from 1 ms before the freeze began until 2 s after the thaw
 * began are printed; of the wake-ups, those of the freezing task before
 * the thaw began, and of each task only the first after the thaw began.
 * A trace line begins with the task the event ran in: for a wake-up, the
 * waker (the last task to freeze, or whatever a timer interrupt found
 * running, <idle>-0 if nothing).  Needs CONFIG_FTRACE (tracepoints in
 * tracefs) and CONFIG_FREEZER_BENCH (the window): the bench and test
 * flavours.
 */
#ifndef TIMELINE_H
#define TIMELINE_H

#include <stdlib.h>
#include "freeze.h"

#define TL_BUFFER_KB	"4096"
#define TL_BEFORE_NS	1000000LL	/* printed before the freeze began */
#define TL_AFTER_NS	2000000000LL	/* and after the thaw began */

static const char *const tl_events[] = {
	"todo/todo_add", "todo/todo_run", "freezer/task_frozen", "sched/sched_wakeup",
};
#define TL_NR_EVENTS	(sizeof(tl_events) / sizeof(tl_events[0]))

/* A lane of the picture: one task. */
struct tl_task {
	pid_t pid;
	char name[32];
	long long user_ns;	/* back in user space after the thaw; 0: unknown */
};

/*
 * The kernel thread that freezes for "uml_mconsole freeze" (make demo): a
 * new one per freeze, so its pid is not known when tracing starts.
 */
#define TL_MC_FREEZER	"mconsole-freeze"

static pid_t tl_lo, tl_hi;
static pid_t tl_freezer;	/* the freezing task; 0: TL_MC_FREEZER */

static inline int tl_event_write(const char *event, const char *file, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), TRACING "/events/%s/%s", event, file);
	return write_str(path, val);
}

/* Empty the trace buffer and start recording; 0 or -errno. */
static inline int timeline_on(void)
{
	int fd = open(TRACING "/trace", O_WRONLY | O_TRUNC);

	if (fd < 0)
		return -errno;
	close(fd);
	return write_str(TRACING "/tracing_on", "1");
}

/*
 * Trace the timeline events of the tasks with pids @lo..@hi, and the
 * wake-ups of the freezing task, from now on: @freezer (the caller, if it
 * freezes through freeze_thaw()), or with 0 the kernel thread
 * TL_MC_FREEZER, found by its name.  0, or -errno (-ENOENT: this kernel has
 * no such tracepoints).
 */
static inline int timeline_start(pid_t lo, pid_t hi, pid_t freezer)
{
	char filter[128];
	unsigned int i;
	int ret;

	if (access(TRACING "/events/freezer/task_frozen/enable", W_OK) ||
	    access(TRACING "/events/todo/todo_add/enable", W_OK))
		return -ENOENT;
	tl_lo = lo;
	tl_hi = hi;
	tl_freezer = freezer;
	ret = write_str(TRACING "/tracing_on", "0");
	if (!ret)
		ret = write_str(TRACING "/trace_clock", "mono");
	if (!ret)
		ret = write_str(TRACING "/buffer_size_kb", TL_BUFFER_KB);
	/*
	 * Every one of these events has a "pid" and a "comm" field: the task
	 * it is about.  The freezing task (PF_SUSPEND_TASK) gets no freeze
	 * item and is not frozen: of its events, only its wake-ups pass.
	 */
	if (freezer)
		snprintf(filter, sizeof(filter), "(pid >= %d && pid <= %d) || pid == %d",
			 lo, hi, freezer);
	else
		snprintf(filter, sizeof(filter), "(pid >= %d && pid <= %d) || comm == \"%s\"",
			 lo, hi, TL_MC_FREEZER);
	for (i = 0; !ret && i < TL_NR_EVENTS; i++) {
		ret = tl_event_write(tl_events[i], "filter", filter);
		if (!ret)
			ret = tl_event_write(tl_events[i], "enable", "1");
	}
	return ret ? ret : timeline_on();
}

/* Stop tracing, disable the events and drop their filters. */
static inline void timeline_stop(void)
{
	unsigned int i;

	write_str(TRACING "/tracing_on", "0");
	for (i = 0; i < TL_NR_EVENTS; i++) {
		tl_event_write(tl_events[i], "enable", "0");
		tl_event_write(tl_events[i], "filter", "0");
	}
	write_str(TRACING "/trace_clock", "local");
}

/* The timestamp of a trace line ("comm-pid [cpu] flags  sec.usec: event:"), ns. */
static inline long long tl_line_ns(const char *line, const char **event)
{
	const char *p = strchr(line, ']'), *dot, *end;
	long long sec, frac;
	int digits;

	while (p && *p) {
		p += strspn(p, "] ");
		end = p + strcspn(p, " ");
		dot = memchr(p, '.', end - p);
		if (dot && end > p && end[-1] == ':' && dot > p) {
			sec = strtoll(p, NULL, 10);
			frac = strtoll(dot + 1, NULL, 10);
			for (digits = end - dot - 2; digits < 9; digits++)
				frac *= 10;
			*event = end + strspn(end, " ");
			return sec * 1000000000LL + frac;
		}
		p = end;
	}
	return -1;
}

/* The "pid=" field of the event part of a trace line, or -1. */
static inline pid_t tl_line_pid(const char *event)
{
	const char *p = event;

	while ((p = strstr(p, "pid="))) {
		if (p[-1] == ' ')
			return atoi(p + 4);
		p += 4;
	}
	return -1;
}

/* Is the sched_wakeup @event, of task @pid, a wake-up of the freezing task? */
static inline int tl_wakes_freezer(const char *event, pid_t pid)
{
	static const char mc[] = "sched_wakeup: comm=" TL_MC_FREEZER " ";

	return tl_freezer ? pid == tl_freezer : !strncmp(event, mc, sizeof(mc) - 1);
}

/*
 * Stop recording and print the last freeze (window, tasks, trace lines) as
 * a TIMELINE block; the buffer is left empty and off (timeline_on() again).
 * @freezer: "todo" or "classic"; @what: a word for the picture.  0 or -errno.
 */
static inline int timeline_dump(const char *freezer, const char *what,
				const struct tl_task *tasks, int nr_tasks)
{
	struct freeze_window w;
	long long start, ns;
	char line[1024], *seen, *body = NULL;
	const char *event = "";
	int i, lines = 0, lost = 0, ret;
	pid_t pid, freezer_pid = tl_freezer;
	size_t size;
	FILE *f, *out;

	write_str(TRACING "/tracing_on", "0");
	ret = last_freeze_window(&w);
	if (ret)
		return ret;
	start = w.frozen_at_ns - w.freeze_ns;
	seen = calloc(tl_hi - tl_lo + 1, 1);
	f = fopen(TRACING "/trace", "r");
	/* The lines wait in @body: TIMELINE-BEGIN names the freezing task found in them. */
	out = open_memstream(&body, &size);
	if (!seen || !f || !out) {
		free(seen);
		if (f)
			fclose(f);
		if (out)
			fclose(out);
		free(body);
		return -ENOMEM;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (line[0] == '#' || !line[0])
			continue;
		if (strstr(line, "LOST") && strstr(line, "EVENTS")) {
			lost = 1;
			continue;
		}
		ns = tl_line_ns(line, &event);
		if (ns < 0 || ns < start - TL_BEFORE_NS || ns > w.thaw_at_ns + TL_AFTER_NS)
			continue;
		if (!strncmp(event, "sched_wakeup:", 13)) {
			pid = tl_line_pid(event);
			if (tl_wakes_freezer(event, pid)) {
				/* How it waited for the tasks to freeze. */
				if (ns >= w.thaw_at_ns)
					continue;
				freezer_pid = pid;
			} else {
				/* Before the thaw: a kick of the freezer, not drawn. */
				if (ns < w.thaw_at_ns || pid < tl_lo || pid > tl_hi || seen[pid - tl_lo])
					continue;
				seen[pid - tl_lo] = 1;
			}
		}
		fprintf(out, "TIMELINE trace %s\n", line);
		lines++;
	}
	fclose(f);
	free(seen);
	ret = fclose(out) ? -ENOMEM : 0;
	if (!ret) {
		printf("TIMELINE-BEGIN freezer=%s what=%s tasks=%d freezer_pid=%d\n", freezer, what,
		       nr_tasks, freezer_pid);
		printf("TIMELINE window freeze_start_ns=%lld frozen_at_ns=%lld thaw_at_ns=%lld freeze_ns=%lld thaw_ns=%lld frozen=%d left=%d\n",
		       start, w.frozen_at_ns, w.thaw_at_ns, w.freeze_ns, w.thaw_ns, w.frozen, w.left);
		for (i = 0; i < nr_tasks; i++)
			printf("TIMELINE task pid=%d name=%s user_ns=%lld\n", tasks[i].pid,
			       tasks[i].name, tasks[i].user_ns);
		fputs(body, stdout);
		printf("TIMELINE-END freezer=%s lines=%d lost=%d\n", freezer, lines, lost);
	}
	free(body);
	i = open(TRACING "/trace", O_WRONLY | O_TRUNC);
	if (i >= 0)
		close(i);
	return ret;
}

#endif /* TIMELINE_H */
