#!/usr/bin/env bash
# The mconsole commands freeze, thaw and todo, from the host with
# uml_mconsole (uml-utilities): bad arguments and wrong states get an error
# reply and change nothing; freeze really stops a spinning guest task (its
# own CPU time, read with mconsole "proc PID/stat", stands still) and thaw
# restarts it.  While user space is frozen, the debugging commands work:
# "proc PID/wchan" and "proc PID/stack", "sysrq t", which shows the frozen
# tasks' stacks in the refrigerator, and "sysrq w".  A freeze
# that fails (a guest task refuses for a while) gets an error reply and
# leaves no freezing thread behind: the next freeze works.  A client that
# is alive but does not read its reply stalls neither the kernel nor,
# once it reads, loses any of its reply.
# needs: build initramfs
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../../scripts/host/lib/session.sh"

log=$LOGS/mconsole.log
if ! command -v uml_mconsole >/dev/null; then
	fail "mconsole: uml_mconsole is installed (run scripts/host/deps.sh)"
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
# guest_ticks: the guest CPU's ticks (all fields of the cpu line of "proc
# stat"), or nothing if the kernel gave no answer within 10 s.
guest_ticks() {
	timeout 10 uml_mconsole "$sock" proc stat 2>/dev/null |
		awk '$1 == "cpu" { t = 0; for (i = 2; i <= NF; i++) t += $i; print t }' || true
}
# dump_tasks FILE: how many task headers the last sysrq t dump in FILE has.
dump_tasks() {
	awk '/sysrq: Show State/ { n = 0; on = 1 } on && /task:/ { n++ }
		/Showing busy workqueues/ { on = 0 } END { print n + 0 }' "$1"
}
# slow_reader: a client sends "sysrq t", then reads nothing for 4 s: its
# receive queue holds 10 datagrams, the dump is thousands of lines.  The
# kernel must run on meanwhile: it answers "proc stat" while the client
# still pauses, and counts ticks in a window of that pause at no less than
# half the rate of a window just before (the same run's rate, not HZ).
# Once the client reads, it gets the whole dump (as many tasks as the same
# dump on the console) and the final packet.
slow_reader() {
	local out a b c d t0 t1 t2 t3 sent read_at rc shown client
	out=$(scratch)
	a=$(guest_ticks) t0=$EPOCHREALTIME
	sleep 1
	b=$(guest_ticks) t1=$EPOCHREALTIME
	shown=$(grep -c 'Showing busy workqueues' "$log" || true)
	echo "# \$ scripts/host/mconsole_client.py --pause 4 --out $out/t $sock sysrq t"
	python3 "$TOP/scripts/host/mconsole_client.py" --pause 4 --out "$out/t" "$sock" sysrq t \
		2>"$out/client" &
	client=$!
	# The window starts once the request is out (python starts slowly).
	for _ in $(seq 100); do grep -q '^sent-at=' "$out/client" && break; sleep 0.1; done
	sent=$(sed -n 's/^sent-at=//p' "$out/client")
	sleep 0.5
	c=$(guest_ticks) t2=$EPOCHREALTIME
	sleep 1
	d=$(guest_ticks) t3=$EPOCHREALTIME
	wait "$client" && rc=0 || rc=$?
	read_at=$(sed -n 's/^read-at=\([0-9.]*\) .*/\1/p' "$out/client")
	echo "# client: $(tail -n 1 "$out/client")"
	if awk -v a="$a" -v b="$b" -v c="$c" -v d="$d" -v t0="$t0" -v t1="$t1" -v t2="$t2" \
		-v t3="$t3" -v s="${sent:-0}" -v r="${read_at:-0}" 'BEGIN {
			printf "# ticks: %d in %.2f s before, %d in %.2f s while the client paused; ", \
				b - a, t1 - t0, d - c, t3 - t2
			printf "proc stat answered %.2f s and %.2f s after the request, the client read at %.2f s\n", \
				t2 - s, t3 - s, r - s
			ok = a != "" && b != "" && c != "" && d != "" && s > 0 && r > 0 && t3 < r && b > a &&
				(d - c) / (t3 - t2) >= (b - a) / (t1 - t0) / 2
			exit !ok }'; then
		pass "mconsole: the kernel runs on while a client does not read its sysrq t"
	else
		fail "mconsole: the kernel runs on while a client does not read its sysrq t"
	fi
	# The console has the same dump once its last line is there.
	for _ in $(seq 50); do
		[ "$(grep -c 'Showing busy workqueues' "$log" || true)" -gt "$shown" ] && break
		sleep 0.2
	done
	echo "# tasks in the dump: $(dump_tasks "$out/t") to the client, $(dump_tasks "$log") on the console"
	if [ "$rc" -eq 0 ] && [ "$(dump_tasks "$out/t")" -gt 0 ] &&
		[ "$(dump_tasks "$out/t")" -eq "$(dump_tasks "$log")" ]; then
		expect "mconsole: a client that paused gets the whole sysrq t and the final packet" \
			"$out/t" 'sysrq: Show State' 'Showing busy workqueues'
	else
		fail "mconsole: a client that paused gets the whole sysrq t and the final packet" "$out/client"
	fi
	rm -rf "$out"
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
	slow_reader
fi
session_wait && rc=0 || rc=$?
console_results mconsole "$log" --kernel-only
[ "$rc" -eq 0 ] && pass "mconsole: the guest ran on and powered off" ||
	fail "mconsole: the guest ran on and powered off (runner exit $rc)" "$log.runner"
