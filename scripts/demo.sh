#!/usr/bin/env bash
# "make demo": a narrated look at the todo freezer next to the classic one.
# Builds the bench flavour (FLAVOUR=bench by default: the run kernel has no
# tracepoints) and boots ./linux with the demo job
# (tests/guest/demo_workloads.c: a spinner, a sleeper, an 8-thread process
# and a pipe reader).  From the host, with uml_mconsole, it freezes user
# space for 2 s with each freezer ("freeze todo", "freeze classic"), shows
# each workload task's freezer state and todo list as the kernel sees them
# ("todo PID") and thaws; the guest then shows each workload's pause.
# Full console: build/logs/demo.log.
# The guest also traces both freezes (tests/guest/timeline.h); the demo ends
# with their picture, one lane per workload task, todo above classic:
# DEMO_OUT/timeline.png and its data, timeline.dat (DEMO_OUT: build/demo).
. "$(dirname "$0")/lib.sh"

FLAVOUR=${FLAVOUR:-bench}
out=${DEMO_OUT:-$BUILD/demo}
command -v uml_mconsole >/dev/null ||
	die "uml_mconsole not found" "install it: scripts/deps.sh (Debian package uml-utilities)"
"$TOP/scripts/deps.sh"
"$TOP/scripts/source.sh"
"$TOP/scripts/build.sh" "$FLAVOUR"
"$TOP/scripts/initramfs.sh"

log=$LOGS/demo.log
rm -f "$log"
stage "booting ./linux (flavour $FLAVOUR) with the demo"
"$TOP/scripts/boot.sh" --flavour "$FLAVOUR" --job demo --timeout 60 --show none \
	--log "$log" -- kunit.enable=0 &
boot=$!
sock=$BUILD/uml/todo-demo-$boot/mconsole
mc() { uml_mconsole "$sock" "$@" 2>/dev/null || true; }

# Print the guest's narration as it comes; return at a line matching $1.
follow=0
guest_until() {
	local line n=0
	while :; do
		while IFS= read -r line; do
			n=$((n + 1))
			[ "$n" -gt "$follow" ] || continue
			follow=$n
			case $line in
			$1) return 0 ;;
			TODO-* | DEMO-* | TIMELINE* | "Run /init"*) ;;
			*) [ "$printing" = 1 ] && echo "$line" ;;
			esac
		done <"$log"
		n=0
		kill -0 "$boot" 2>/dev/null || die "the guest stopped early; see $log"
		sleep 0.1
	done
}

printing=0
for _ in $(seq 100); do [ -f "$log" ] && break; sleep 0.1; done
guest_until 'TODO-INIT:*'
printing=1
guest_until 'DEMO-PIDS:*'
pids=$(sed -n 's/^DEMO-PIDS: //p' "$log")
for freezer in todo classic; do
	echo
	echo "== [host] uml_mconsole freeze $freezer: user space stops for 2 s =="
	echo "  [host] $(mc freeze "$freezer" | sed 's/^OK //')"
	echo "  [host] the kernel's view of the workloads (uml_mconsole todo PID):"
	for pid in $pids; do echo "    $(mc todo "$pid" | sed 's/^OK //')"; done
	echo "  [host] tasks in the run queue (uml_mconsole proc loadavg, 4th field):" \
		"$(mc proc loadavg | sed -n 2p | cut -d' ' -f4)"
	sleep 2
	echo "  [host] $(mc thaw | sed 's/^OK //')"
	guest_until 'DEMO-RESUMED'
done
wait "$boot"
echo
stage "the picture of both freezes: one lane per workload task"
draw_timeline "$log" "$out" "make demo: one freeze and thaw of the same workloads, todo vs classic freezer"
