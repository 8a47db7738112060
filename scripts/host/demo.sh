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
# OUT/timeline.png and its data, timeline.dat (--out OUT: build/demo).
# The host's trace-cmd, run in the guest, records both freezes into
# OUT/trace.dat (trace-cmd report, KernelShark); then the guest
# suspends to idle once, woken by the RTC, and the kernel's sleepgraph
# draws that on the host: OUT/sleepgraph.html (docs/trace.md).
# Usage: scripts/host/demo.sh [--flavour F] [--out DIR] [--timeout S]   (120 s)
. "$(dirname "$0")/lib/session.sh"
. "$(dirname "$0")/lib/timeline.sh"
. "$(dirname "$0")/lib/tracedat.sh"
. "$(dirname "$0")/lib/sleepgraph.sh"
help_if_asked "$@"

flavour=$(default_flavour demo) out=$BUILD/demo timeout=120
opts_parse 'flavour:flavour out timeout:number' "$@"
command -v uml_mconsole >/dev/null ||
	die "uml_mconsole not found" "install it: scripts/host/deps.sh (Debian package uml-utilities)"
tracecmd_check
log=$LOGS/demo.log
mkdir -p "$out"
rm -f "$out"/trace.dat "$out"/sleepgraph*
stage "booting ./linux (flavour $flavour) with the demo"
session_start --flavour "$flavour" --job demo --timeout "$timeout" --show none --log "$log" -- kunit.enable=0 \
	"$(tracedat_arg demo_dir "$out")"

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
guest_until '^TODO-EXIT:'
session_wait || die "the demo's guest job failed (status $?)" "see its lines above and $log"
echo
stage "the picture of both freezes: one lane per workload task"
draw_timeline "$log" "$out" "make demo: one freeze and thaw of the same workloads, todo vs classic freezer"
stage "the trace.dat of both freezes, and sleepgraph's picture of a suspend-to-idle"
[ -s "$out/trace.dat" ] || die "the guest wrote no ${out#"$TOP"/}/trace.dat" "see the guest's trace-cmd lines in $log"
tracedat_show "$out/trace.dat"
sleepgraph_render "$out"
