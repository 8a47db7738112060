#!/usr/bin/env bash
# scripts/parse_console.py on saved console logs: the guest suite's KTAP
# document of a clean run gives only ok results; the same log with one test
# turned into a failure and a KASAN report added gives exactly those
# failures, and with a program's subtest gone, a failure for the missing
# result; --totals counts those failures; and --classify-reports fails a
# KCSAN report in the todo list but only lists those elsewhere in the
# kernel, also one inside a mutex that the todo trigger took (the race is
# the mutex's, not the caller's).
. "$(dirname "$0")/../host/lib.sh"

data=$TOP/tests/data
tmp=$(scratch)
parse() { python3 "$TOP/scripts/parse_console.py" "$@"; }
# totals_of OUT: the totals line of parse_console's subtest OUT as a document.
totals_of() {
	{ printf 'KTAP version 1\n1..1\n'; cat "$1"; echo "ok 1 console"; } >"$1.ktap"
	{ parse --totals "$1.ktap" || true; } | tail -n 1
}
xz -dc "$data/guest-suite.log.xz" >"$tmp/suite.log"
R='^    (not )?ok [0-9]+'

parse --kunit-suites "task_todo todo_freezer maccess" "$tmp/suite.log" >"$tmp/suite" || true
ok=$(grep -cE '^    ok [0-9]+ ' "$tmp/suite" || true)
bad=$(grep -cE '^    not ok [0-9]+ ' "$tmp/suite" || true)
name="check: parse_console: a clean guest-suite log gives only ok results ($ok)"
if [ "$bad" -eq 0 ] && [ "$ok" -ge 100 ]; then
	expect "$name" "$tmp/suite" "$R kunit: task_todo\.task_todo_test_priority_order$" \
		"$R guest: freeze_scenarios\.todo: scen\.threads_of_a_multithreaded_process_all_freeze$" \
		"$R guest: freeze_compat\.classic: " "$R guest: kmemleak: kmemleak\.no_leaks$" \
		"$R kunit: suite maccess ran and passed$" "$R kernel: no warnings, lockdep, KASAN or hung-task reports$"
else
	fail "$name ($bad not ok)" "$tmp/suite"
fi

# One passing test made to fail, and a KASAN report in the kernel log.
sed -e 's/^\( *\)ok \([0-9]*\) scen\.pipe_reader_sees_no_eintr$/\1not ok \2 scen.pipe_reader_sees_no_eintr/' \
	-e '/^ok 1 kunit$/a BUG: KASAN: slab-use-after-free in task_todo_run+0x12/0x80' \
	"$tmp/suite.log" >"$tmp/broken.log"
parse "$tmp/broken.log" >"$tmp/broken" || true
name="check: parse_console: a failed test and a KASAN report each give a not ok result, counted"
bad=$(grep -cE '^    not ok ' "$tmp/broken" || true)
if [ "$bad" -eq 3 ]; then
	expect "$name" "$tmp/broken" \
		'^    not ok [0-9]+ guest: freeze_scenarios\.todo: scen\.pipe_reader_sees_no_eintr$' \
		'^    not ok [0-9]+ guest: freeze_scenarios\.classic: scen\.pipe_reader_sees_no_eintr$' \
		'^    not ok [0-9]+ kernel: no warnings, lockdep, KASAN or hung-task reports$' \
		'^    # BUG: KASAN: slab-use-after-free in task_todo_run'
	totals_of "$tmp/broken" | grep -qE '^[0-9]+ passed, 3 failed, [0-9]+ skipped$' ||
		fail "$name: --totals counts 3 failed" "$tmp/broken.ktap"
else
	fail "$name ($bad not ok, want 3: the test under each freezer and the kernel log)" "$tmp/broken"
fi

# A program that never reported: freezer_select's subtest cut out, from
# the KTAP version line before its name to its result.
first=$(grep -n '^    # Subtest: freezer_select$' "$tmp/suite.log" | cut -d: -f1)
sed "$((first - 1)),/^ok [0-9]* freezer_select$/d" "$tmp/suite.log" >"$tmp/missing.log"
parse "$tmp/missing.log" >"$tmp/missing" || true
name="check: parse_console: a missing program gives a not ok result, counted"
if ! grep -q freezer_select "$tmp/missing"; then
	expect "$name" "$tmp/missing" '^    not ok [0-9]+ guest: 1 of [0-9]+ results missing \(crash or timeout\)$'
	totals_of "$tmp/missing" | grep -qE '^[0-9]+ passed, 1 failed, [0-9]+ skipped$' ||
		fail "$name: --totals counts 1 failed" "$tmp/missing.ktap"
else
	fail "$name (freezer_select still there)" "$tmp/missing"
fi

parse --kernel-only --classify-reports "$data/kcsan-reports.log" >"$tmp/kcsan" || true
name="check: parse_console --classify-reports: a KCSAN report in the todo list fails, those elsewhere are listed"
expect "$name" "$tmp/kcsan" \
	'^    not ok [0-9]+ kernel: no KCSAN or lockdep report in the todo list or freezer code$' \
	'^    # BUG: KCSAN: data-race in task_todo_add / task_todo_call \[series: task_todo_add task_todo_call' \
	'^    ok [0-9]+ kernel: 2 KCSAN or lockdep report\(s\) elsewhere in the kernel \(2 distinct\), listed$' \
	'^    # elsewhere: BUG: KCSAN: data-race in alloc_pid / copy_process at alloc_pid, copy_process' \
	'^    # elsewhere: BUG: KCSAN: data-race in osq_lock / osq_unlock at osq_lock, osq_unlock$'
rm -rf "$tmp"
