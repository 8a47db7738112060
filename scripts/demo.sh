#!/usr/bin/env bash
# "make demo": a narrated look at the todo freezer next to the classic one.
# Boots ./linux of the bench flavour (the default: the run kernel has no
# tracepoints; make demo builds it) with the demo job
# (tests/guest/demo_workloads.c: a spinner, a sleeper, an 8-thread process
# and a pipe reader).  From the host, with uml_mconsole, it freezes user
# space for 2 s with each freezer ("freeze todo", "freeze classic"), shows
# each workload task's freezer state and todo list as the kernel sees them
# ("todo PID") and thaws; the guest then shows each workload's pause.
# Full console: build/logs/demo.log.
# The guest also traces both freezes (tests/guest/timeline.h); the demo ends
# with their picture, one lane per workload task, todo above classic:
# DEMO_OUT/timeline.png and its data, timeline.dat (DEMO_OUT: build/demo).
# Usage: scripts/demo.sh [--flavour F]
. "$(dirname "$0")/session.sh"

FLAVOUR=$(flavour_opt demo "$@")
out=${DEMO_OUT:-$BUILD/demo}
command -v uml_mconsole >/dev/null ||
	die "uml_mconsole not found" "install it: scripts/deps.sh (Debian package uml-utilities)"
log=$LOGS/demo.log
stage "booting ./linux (flavour $FLAVOUR) with the demo"
session_start --flavour "$FLAVOUR" --job demo --timeout 60 --show none --log "$log" -- kunit.enable=0

# The guest's narration: its lines that are not for the host.
narrate() { case $1 in TODO-* | DEMO-* | TIMELINE* | "Run /init"*) ;; *) echo "$1" ;; esac; }
# guest_until ERE: print the narration up to the guest's line matching ERE.
guest_until() { session_wait_line --each narrate "$1" || die "the guest stopped early; see $log"; }

session_wait_line '^TODO-INIT:' || die "the guest stopped early; see $log"
guest_until '^DEMO-PIDS:'
pids=${SESSION_LINE#DEMO-PIDS: }
for freezer in todo classic; do
	echo
	echo "== [host] uml_mconsole freeze $freezer: user space stops for 2 s =="
	echo "  [host] $(session_mc freeze "$freezer" | sed 's/^OK //')"
	echo "  [host] the kernel's view of the workloads (uml_mconsole todo PID):"
	for pid in $pids; do echo "    $(session_mc todo "$pid" | sed 's/^OK //')"; done
	echo "  [host] tasks in the run queue (uml_mconsole proc loadavg, 4th field):" \
		"$(session_mc proc loadavg | sed -n 2p | cut -d' ' -f4)"
	sleep 2
	echo "  [host] $(session_mc thaw | sed 's/^OK //')"
	guest_until '^DEMO-RESUMED'
done
session_wait
echo
stage "the picture of both freezes: one lane per workload task"
draw_timeline "$log" "$out" "make demo: one freeze and thaw of the same workloads, todo vs classic freezer"
