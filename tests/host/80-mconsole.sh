#!/usr/bin/env bash
# The mconsole commands freeze, thaw and todo, from the host with
# uml_mconsole (uml-utilities): bad arguments and wrong states get an error
# reply and change nothing; freeze really stops a spinning guest task (its
# own CPU time, read with mconsole "proc PID/stat", stands still) and thaw
# restarts it.  While user space is frozen, the debugging commands work:
# "proc PID/wchan" and "proc PID/stack", "sysrq t", which shows the frozen
# tasks' stacks in the refrigerator, and "sysrq w" (issue 14).  A freeze
# that fails (a guest task refuses for a while) gets an error reply and
# leaves no freezing thread behind: the next freeze works.
# needs: build initramfs
. "$(dirname "$0")/lib.sh"

log=$LOGS/mconsole.log
if ! command -v uml_mconsole >/dev/null; then
	fail "mconsole: uml_mconsole is installed (run scripts/deps.sh)"
	exit 0
fi
session_start --flavour "$TEST_FLAVOUR" --job idle --timeout 180 --show none \
	--log "$log" -- kunit.enable=0 idle_seconds=90 idle_refuse_ms=3000 >"$log.runner" 2>&1
sock=$(session_mconsole)
# Up to 90 s: boot, then the guest prints the pids.  The guest powers off
# idle_seconds after that, which is plenty for the checks below.
session_wait_line --timeout 90 '^TODO-READY' || true
spinner=$(sed -n 's/^TODO-SPINNER: //p' "$log")
sleeper=$(sed -n 's/^TODO-SLEEPER: //p' "$log")

# check NAME EXPECTED-REGEX COMMAND...: one reply, matched in full.
check() {
	local name=$1 want=$2 got
	shift 2
	got=$(session_mc "$@")
	if [[ $got =~ ^$want$ ]]; then pass "mconsole: $name"; else
		fail "mconsole: $name (wanted /$want/, got '$got')"
	fi
}
# cpu_ticks: "BUSY TOTAL" ticks: the spinner's own (utime+stime of
# "proc PID/stat"; its comm has no spaces) and the guest CPU's (all fields
# of the cpu line of "proc stat").  The reply is "OK " and a newline, then
# the file.
cpu_ticks() {
	local busy total
	busy=$(session_mc proc "$spinner/stat" | awk -v pid="$spinner" '$1 == pid { print $14 + $15 }')
	total=$(session_mc proc stat | awk '$1 == "cpu" { t = 0; for (i = 2; i <= NF; i++) t += $i; print t }')
	if [ -n "$busy" ] && [ -n "$total" ]; then echo "$busy $total"; fi
}
# task_dump FILE COMM: the lines sysrq printed for task COMM, from its
# "task:COMM" header up to the next task's.
task_dump() { awk -v re="task:$2 " 'on && /task:/ { exit } $0 ~ re { on = 1 } on' "$1"; }
# frozen_debug FREEZER: with user space frozen by FREEZER, wchan, stack
# and sysrq t and w through mconsole show the frozen tasks in the freezer.
frozen_debug() {
	local f=$1 out
	out=$(scratch)
	session_mc proc "$sleeper/wchan" >"$out/wchan"
	expect "mconsole: proc PID/wchan of a frozen task ($f)" "$out/wchan" '^[a-z_][a-z0-9_.]+$'
	session_mc proc "$spinner/stack" >"$out/stack"
	expect "mconsole: proc PID/stack of a frozen task shows the freezer ($f)" "$out/stack" \
		'^\[<0>\] .*refrigerator'
	session_mc sysrq t >"$out/t"
	task_dump "$out/t" cat >"$out/t-cat"
	expect "mconsole: sysrq t shows the frozen spinner's stack in the freezer ($f)" "$out/t-cat" \
		'^task:cat ' 'Call Trace:' 'refrigerator'
	# w lists tasks in uninterruptible sleep, the ones a freeze waits for;
	# frozen tasks (TASK_FROZEN) are not among them.
	session_mc sysrq w >"$out/w"
	expect "mconsole: sysrq w answers while frozen ($f)" "$out/w" 'sysrq: Show Blocked State'
	rm -rf "$out"
}
# spinning NAME yes|no: over about a second, is the guest CPU busy for at
# least half of the ticks counted in that window (yes), or for at most a
# tenth (no)?  Shares of the ticks in the same window, not ticks per
# nominal second: a busy host delivers fewer ticks, not a smaller share.
spinning() {
	local a b busy total
	a=$(cpu_ticks)
	sleep 1
	b=$(cpu_ticks)
	if [ -z "$a" ] || [ -z "$b" ]; then
		fail "mconsole: $1 (mconsole proc $spinner/stat or proc stat gave nothing)"
		return
	fi
	busy=$((${b% *} - ${a% *})) total=$((${b#* } - ${a#* }))
	if [ "$total" -gt 0 ] && { { [ "$2" = yes ] && [ $((2 * busy)) -ge "$total" ]; } ||
		{ [ "$2" = no ] && [ $((10 * busy)) -le "$total" ]; }; }; then
		pass "mconsole: $1 ($busy of $total ticks busy)"
	else
		fail "mconsole: $1 ($busy of $total ticks busy)"
	fi
}

if [ -z "$spinner" ] || [ ! -S "$sock" ]; then
	fail "mconsole: the guest came up with its socket at $sock" "$log"
else
	check "todo with a bad pid is refused" 'ERR Usage: todo \[pid\]' todo abc
	check "todo for a missing pid is refused" 'ERR No such pid' todo 99999
	check "thaw while not frozen is refused" 'ERR Not frozen' thaw
	check "freeze with a bad argument is refused" 'ERR Usage: freeze \[todo\|classic\]' freeze now
	check "a freeze that times out is refused" 'ERR Freezing failed, see the kernel log' freeze
	session_wait_line --timeout 30 '^TODO-REFUSER-DONE' ||
		fail "mconsole: the refusing guest task finished its sleep" "$log"
	check "thaw after a failed freeze is refused" 'ERR Not frozen' thaw
	spinning "a spinner runs before the freeze" yes
	check "freeze freezes user space" 'OK user space frozen \(todo freezer\)' freeze
	check "a second freeze is refused" 'ERR Already frozen' freeze
	spinning "the spinner stands still while frozen" no
	check "todo lists nothing pending while frozen (the items ran)" \
		'OK no task has todo items pending' todo
	check "todo for one task shows it frozen" "OK $spinner [^ ]+ frozen: nothing pending" todo "$spinner"
	frozen_debug todo
	check "thaw thaws" 'OK user space thawed' thaw
	spinning "the spinner runs again after the thaw" yes
	check "proc PID/stat reads the task's stat" "OK[[:space:]]+$spinner \\(cat\\) R .*" proc "$spinner/stat"
	check "freeze classic freezes user space" 'OK user space frozen \(classic freezer\)' freeze classic
	spinning "the spinner stands still while frozen (classic)" no
	frozen_debug classic
	check "thaw thaws (classic)" 'OK user space thawed' thaw
fi
session_wait && rc=0 || rc=$?
console_results mconsole "$log" --kernel-only
[ "$rc" -eq 0 ] && pass "mconsole: the guest ran on and powered off" ||
	fail "mconsole: the guest ran on and powered off (runner exit $rc)" "$log.runner"
