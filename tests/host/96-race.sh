#!/usr/bin/env bash
# "make race" in CI: the race lab on the x86_64 kernel with debug info
# (smp-gdb) under QEMU, 4 vCPUs, narrated by gdb (scripts/gdb/race.py).
# The guest's verdicts (tests/guest/race_lab.c) are subtest "race"; the
# narration must show each race's deciding steps on the CPUs the guest
# pinned them to: the 2005 walk reads freed B, today's walk runs B after a
# cancel that could not take it; the SB recheck loads before the thaw's
# store and is not woken, today's recheck is.
# needs: initramfs
# builds: make build FLAVOUR=smp-gdb
# timeout: 900
. "$(dirname "$0")/lib.sh"

if ! command -v gdb >/dev/null; then
	fail "race: gdb is installed (run scripts/host/deps.sh)"
	exit 0
fi
tmp=$(scratch)
out=$tmp/out
make -C "$TOP" --no-print-directory race TIMEOUT="$TIMEOUT" >"$out" 2>&1 && rc=0 || rc=$?
log=$(sed -n 's/.*console log: //p' "$out" | tail -n 1)
if [ -n "$log" ] && [ -f "$TOP/$log" ]; then
	console_results race "$TOP/$log" --classify-reports \
		--expected-report "BUG: todo race lab: use-after-free in the 2005 walk"
else
	fail "race: make race leaves a console log (exit $rc)" "$out"
fi
# From here on, the gdb session that ran to the end.
all=$out
last_gdb_session "$all" >"$out.last"
out=$out.last

name="race: gdb narrates 14 steps, from the CPUs the guest pinned each side to"
steps=$(grep -c '^\[step [0-9]*\]' "$out" || true)
expect "$name ($steps)" "$out" '^race lab: 14 steps narrated' \
	'^\[step 1\] CPU 0, race_walker \(pid [0-9]+\), race_walk_2005\(\) at kernel/task_todo_race\.c:' \
	'^\[step 2\] CPU 1, race_canceller \(pid [0-9]+\), race_cancel\(\)' \
	'^\[step 9\] CPU 0, race_spinner \(pid [0-9]+\), todo_refrigerator\(\) at kernel/freezer\.c:' \
	'^\[step 10\] CPU 1, race_lab \(pid [0-9]+\), todo_thaw_begin\(\)'
expect "race: walk 2005: the cancel removes B from the live list, and the walk reads it freed" "$out" \
	'it read A->next = 0x[0-9a-f]+ \(block B at 0x[0-9a-f]+\)' \
	'returned true: B was still on the live list' \
	'^\[step 4\] CPU 0, race_walker .*race_report_use_after_free' \
	'now reads 0x6b6b6b6b6b6b6b6b 0x6b6b6b6b6b6b6b6b' \
	'BUG: todo race lab: use-after-free in the 2005 walk' '^ Free path:$' 'race_free_block\+'
expect "race: walk today: the cancel finds B detached, B runs, and is freed after" "$out" \
	'^\[step 5\] CPU 0, race_walker .*task_todo_call\(\) at kernel/task_todo\.c:' \
	"today's walk, on the list task_todo_run\(\) detached under pi_lock: next = 0x" \
	'returned false: B is on no list' '^\[step 7\] CPU 0, race_walker .*race_b_fn\(\)' \
	'^\[step 8\] CPU 1, race_canceller .*race_free_block\(\)'
expect "race: thaw sb: the recheck loads the old generation, the thaw ends it and does not wake the task" "$out" \
	'L1 done: gen = ([0-9]+), todo_user.gen = \1, leave = false' 'S1 not yet: __state = 0x0 ' \
	'S2: the thaw ends the generation under freezer_lock: todo_user.gen [0-9]+ -> [0-9]+' \
	'__state = 0x0; frozen\(p\) is false: no wake-up for race_spinner'
expect "race: thaw fixed: the recheck stored TASK_FROZEN first, and the thaw wakes it" "$out" \
	'S1 done: __state = 0x8000 \(TASK_FROZEN\)' '__state = 0x8000; frozen\(p\) is true: it wakes race_spinner'
if grep -q 'Traceback\|Python Exception' "$out"; then fail "race: no Python error from scripts/gdb/race.py" "$out"; else pass "race: no Python error from scripts/gdb/race.py"; fi
# The guest's verdicts are subtest "race" above; make race's status is gdb's.
name="race: make race exits 0, the guest powers off"
if [ "$rc" -eq 0 ] && grep -q '^TODO-EXIT: ' "$out"; then pass "$name"; else fail "$name (exit $rc)" "$all"; fi
rm -rf "$tmp"
