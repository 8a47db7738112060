# shellcheck shell=sh
# The host's trace-cmd (Debian package trace-cmd), run in the guest: a
# trace.dat of a freeze, written to the host through hostfs, that
# "trace-cmd report" and KernelShark read on the host (docs/trace.md).
# Source it (after lib.sh), do not run it.  Used by the jobs trace, demo
# and tracedat.
#
# The guest has busybox, not trace-cmd and its libraries: the host's / is
# mounted through hostfs, read-only, at TC_ROOT and trace-cmd runs in a
# chroot there, with the guest's proc, sysfs and tracefs mounted in it and
# the one host directory it writes to (the trace.dat's) mounted writable at
# its own path.  Events are recorded in a trace instance of their own
# (TC_BUF), so that the timeline of tests/guest/timeline.h (the top
# buffer) and trace-cmd do not stop or clear each other's tracing, on the
# monotonic clock, the guest's CLOCK_MONOTONIC, which the freeze timestamps
# and the timeline use too.  trace-cmd start/stop/extract, not
# record: no reader threads of trace-cmd run, and are frozen, in the
# freeze they record.
TC_ROOT=/mnt/host
TC_BUF=freeze
TC_TRACING=/sys/kernel/tracing/instances/$TC_BUF
TC_LOG=/tmp/trace-cmd.log
TC_MOUNTS=""
# What the lines of these functions begin with: "# " in a job's KTAP
# document (a diagnostic line), else "guest: ".
TC_SAY=${TC_SAY:-"guest: "}

# tc_mount TYPE OPTIONS DIR: mount, and remember it for tc_teardown.
tc_mount() {
	mkdir -p "$3" 2>/dev/null
	mount -t "$1" -o "$2" none "$3" || { echo "${TC_SAY}trace-cmd: cannot mount $1 on $3"; return 1; }
	TC_MOUNTS="$3 $TC_MOUNTS"
}

# tc_setup OUTDIR: the chroot, OUTDIR (a host directory, absolute)
# writable in it; status 1, with the reason on the console, if the kernel
# has no tracepoints or the host no trace-cmd.
tc_setup() {
	[ -d /sys/kernel/tracing/events/freezer ] || {
		echo "${TC_SAY}trace-cmd: no freezer tracepoints in /sys/kernel/tracing (a kernel without CONFIG_TRACING)"
		return 1
	}
	tc_mount hostfs ro,/ "$TC_ROOT" || return 1
	[ -x "$TC_ROOT/usr/bin/trace-cmd" ] || {
		echo "${TC_SAY}trace-cmd: the host has no /usr/bin/trace-cmd (apt-get install trace-cmd)"
		tc_teardown
		return 1
	}
	if ! { tc_mount proc defaults "$TC_ROOT/proc" && tc_mount sysfs defaults "$TC_ROOT/sys" &&
		tc_mount tracefs defaults "$TC_ROOT/sys/kernel/tracing" &&
		tc_mount devtmpfs defaults "$TC_ROOT/dev" && tc_mount tmpfs defaults "$TC_ROOT/tmp" &&
		tc_mount hostfs "rw,$1" "$TC_ROOT$1"; }; then
		tc_teardown
		return 1
	fi
}

tc_teardown() {
	for m in $TC_MOUNTS; do umount "$m" || echo "${TC_SAY}trace-cmd: cannot unmount $m"; done
	TC_MOUNTS=""
}

# tc ARG...: trace-cmd ARG... in the chroot, the command printed first; its
# output only when it fails.
tc() {
	echo "${TC_SAY}\$ trace-cmd $*"
	chroot "$TC_ROOT" /usr/bin/trace-cmd "$@" >"$TC_LOG" 2>&1 && return 0
	tc_status=$?
	sed "s/^/${TC_SAY}trace-cmd: /" "$TC_LOG"
	return "$tc_status"
}

# tc_start [CLOCK]: a fresh buffer, the freezer, todo and power events on,
# stamped with trace clock CLOCK (default mono, the clock of the guest
# programs' freeze windows).
tc_start() { tc start -B "$TC_BUF" -C "${1:-mono}" -e freezer -e todo -e power; }

# tc_mark TEXT: a line in the trace (ftrace's print event, a trace marker).
tc_mark() { echo "$*" >"$TC_TRACING/trace_marker"; }

# tc_save FILE: stop, and write the buffer to FILE (on the host's path).
tc_save() { tc stop -B "$TC_BUF" && tc extract -B "$TC_BUF" -o "$1"; }

# tc_end: the instance gone, its events off.
tc_end() { tc reset -B "$TC_BUF"; rmdir "$TC_TRACING" 2>/dev/null; true; }

# tc_s2idle DIR: one real suspend-to-idle, woken by the RTC alarm after 2 s
# (as tests/guest/suspend_rtc.c does; busybox has no rtcwake), traced, and
# captured for the kernel's sleepgraph (tools/power/pm-graph), which the
# host runs on DIR/sleepgraph_ftrace.txt and DIR/sleepgraph_dmesg.txt:
# each begins with the stamp line sleepgraph reads (machine, mode, kernel),
# the trace is the instance's ftrace text with sleepgraph's SUSPEND START
# and RESUME COMPLETE markers, the kernel log is printed with timestamps.
# The guest has no host name of its own ("(none)"): it gets one here, as
# sleepgraph names the machine after it.  The trace clock is boot, which
# counts the time suspended, as the clock sleepgraph traces with on real
# hardware does: sleepgraph cuts that time out of the timeline between its
# timekeeping_freeze events and reports it as the time in s2idle (with
# mono it would be the few microseconds timekeeping took to stop).
tc_s2idle() {
	alarm=/sys/class/rtc/rtc0/wakealarm
	[ -w "$alarm" ] || { echo "${TC_SAY}sleepgraph: no $alarm to wake the guest"; return 1; }
	[ "$(hostname)" != "(none)" ] || hostname uml-todo
	pm_test=$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/power/pm_test)
	tc_start boot || return 1
	stamp="# suspend-$(date +%m%d%y-%H%M%S) $(hostname) freeze $(uname -r)"
	echo none >/sys/power/pm_test
	echo 0 >"$alarm"
	echo +2 >"$alarm"
	tc_mark "SUSPEND START $(date +%Y%m%d-%H:%M:%S).000000"
	echo freeze >/sys/power/state
	# shellcheck disable=SC2320 # the status of the write is the suspend's
	s2idle_status=$?
	tc_mark "RESUME COMPLETE $(date +%Y%m%d-%H:%M:%S).000000"
	echo "$pm_test" >/sys/power/pm_test
	tc stop -B "$TC_BUF" || return 1
	{ echo "$stamp"; echo "# command | echo freeze > /sys/power/state"; cat "$TC_TRACING/trace"; } \
		>"$TC_ROOT$1/sleepgraph_ftrace.txt"
	printk_time=$(cat /sys/module/printk/parameters/time)
	echo Y >/sys/module/printk/parameters/time
	{ echo "$stamp"; echo "# command | echo freeze > /sys/power/state"; dmesg; } >"$TC_ROOT$1/sleepgraph_dmesg.txt"
	echo "$printk_time" >/sys/module/printk/parameters/time
	[ "$s2idle_status" -eq 0 ] || echo "${TC_SAY}sleepgraph: the suspend-to-idle failed (status $s2idle_status)"
	return "$s2idle_status"
}
