#!/usr/bin/env bash
# scripts/parse_console.py on saved console logs: the guest suite of a
# clean run gives only ok results; the same log with one test turned into
# a failure and a KASAN report added gives exactly those two failures; and
# --classify-reports fails a KCSAN report in the todo list but only lists
# those elsewhere in the kernel, also one inside a mutex that the todo
# trigger took (the race is the mutex's, not the caller's).
. "$(dirname "$0")/../host/lib.sh"

data=$TOP/tests/data
tmp=$(scratch)
parse() { python3 "$TOP/scripts/parse_console.py" "$@"; }
xz -dc "$data/guest-suite.log.xz" >"$tmp/suite.log"

parse "$tmp/suite.log" >"$tmp/suite" || true
ok=$(grep -c '^ok - ' "$tmp/suite" || true)
bad=$(grep -c '^not ok - ' "$tmp/suite" || true)
name="check: parse_console: a clean guest-suite log gives only ok results ($ok)"
if [ "$bad" -eq 0 ] && [ "$ok" -ge 100 ]; then
	expect "$name" "$tmp/suite" '^ok - kunit: task_todo\.task_todo_test_priority_order$' \
		'^ok - guest: freeze_scenarios\.todo: scen\.threads_of_a_multithreaded_process_all_freeze$' \
		'^ok - guest: freeze_compat\.classic: ' '^ok - kernel: no warnings, lockdep, KASAN or hung-task reports$'
else
	fail "$name ($bad not ok)" "$tmp/suite"
fi

# One passing test made to fail, and a KASAN report in the kernel log.
sed -e 's/^ok \([0-9]*\) scen\.pipe_reader_sees_no_eintr$/not ok \1 scen.pipe_reader_sees_no_eintr/' \
	-e '0,/^TODO-PROG-BEGIN: /s//BUG: KASAN: slab-use-after-free in task_todo_run+0x12\/0x80\n&/' \
	"$tmp/suite.log" >"$tmp/broken.log"
parse "$tmp/broken.log" >"$tmp/broken" || true
name="check: parse_console: a failed test and a KASAN report each give a not ok result"
bad=$(grep -c '^not ok - ' "$tmp/broken" || true)
if [ "$bad" -eq 3 ]; then
	expect "$name" "$tmp/broken" \
		'^not ok - guest: freeze_scenarios\.todo: scen\.pipe_reader_sees_no_eintr$' \
		'^not ok - guest: freeze_scenarios\.classic: scen\.pipe_reader_sees_no_eintr$' \
		'^not ok - kernel: no warnings, lockdep, KASAN or hung-task reports$' \
		'^# BUG: KASAN: slab-use-after-free in task_todo_run'
else
	fail "$name ($bad not ok, want 3: the test under each freezer and the kernel log)" "$tmp/broken"
fi

parse --no-kunit --classify-reports "$data/kcsan-reports.log" >"$tmp/kcsan" || true
name="check: parse_console --classify-reports: a KCSAN report in the todo list fails, those elsewhere are listed"
expect "$name" "$tmp/kcsan" \
	'^not ok - kernel: no KCSAN or lockdep report in the todo list or freezer code$' \
	'^# BUG: KCSAN: data-race in task_todo_add / task_todo_call \[series: task_todo_add task_todo_call' \
	'^ok - kernel: 2 KCSAN or lockdep report\(s\) elsewhere in the kernel \(2 distinct\), listed$' \
	'^# elsewhere: BUG: KCSAN: data-race in alloc_pid / copy_process at alloc_pid, copy_process' \
	'^# elsewhere: BUG: KCSAN: data-race in osq_lock / osq_unlock at osq_lock, osq_unlock$'
rm -rf "$tmp"
