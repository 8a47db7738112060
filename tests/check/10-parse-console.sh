#!/usr/bin/env bash
# scripts/host/parse_console.py on saved console logs.  The guest suite's log is
# reported as host test 40-guest-suite reports it (console_results: the
# job's document nested as printed, results on the kernel log beside it),
# recorded as scripts/host/test.sh records a test, and the run's document parsed
# once (scripts/host/ktap_totals.py).  A clean log gives only ok results; one
# test turned into a failure and a KASAN report added give exactly those
# failures, by their full names, counted, and the host test not ok, its
# status read from the document alone (the exit line's number is not
# read); a program that exits non-zero with its tests passed is one
# failure; a program cut out gives a failure for its missing result; a log
# cut off inside a program (a crash) gives failures for the missing results
# and keeps the results after it in place.  And --classify-reports fails a KCSAN report in the todo list but
# only lists those elsewhere in the kernel, also one inside a mutex that
# the todo trigger took (the race is the mutex's, not the caller's).
. "$(dirname "$0")/../host/lib.sh"

data=$TOP/tests/data
tmp=$(scratch)
host=host/40-guest-suite
xz -dc "$data/guest-suite.log.xz" >"$tmp/clean.log"

# as_run CASE: console log CASE.log as 40-guest-suite reports it (its
# results numbered from 1, in a shell of their own), in a run's document
# CASE.ktap of that one test; CASE.totals: what ktap_totals.py prints.
# The KUnit suites are those the saved log's test kernel ran; a log saved
# before um_time (or before the freezer variants, scen.todo.*, below) fails
# the clean case: save a newer one (tests/data/README.md).
as_run() {
	local c=$tmp/$1
	as_own_test console_results "guest suite" "$c.log" \
		--kunit-suites "task_todo todo_freezer maccess um_time" >"$c.out"
	{ printf 'KTAP version 1\n1..1\n'; ktap_subtest 1 "$host" "$c.out"; } >"$c.ktap"
	python3 "$TOP/scripts/host/ktap_totals.py" "$c.ktap" >"$c.totals" || true
}

# failed_are CASE LINE...: CASE's totals name exactly these failed tests.
failed_are() {
	diff <(printf '# failed: %s\n' "${@:2}") <(grep '^# failed: ' "$tmp/$1.totals") >"$tmp/$1.diff"
}

# The job's plan; the first test of the first program after KUnit's: its
# line, program, name.
plan=$(sed -n '/^TODO-INIT:/,$ s/^1\.\.//p' "$tmp/clean.log" | head -n 1)
read -r line prog leaf < <(awk '/^ok [0-9]+ kunit$/ { on = 1 }
	on && /^    # Subtest: / { prog = $3 }
	on && prog && /^    ok [0-9]+ [^ ]+$/ { print NR, prog, $3; exit }' "$tmp/clean.log")

as_run clean
passed=$(sed -n 's/^\([0-9]*\) passed, 0 failed, [0-9]* skipped$/\1/p' "$tmp/clean.totals")
name="check: parse_console: a clean guest-suite log gives only ok results (${passed:-?} passed)"
if [ "${passed:-0}" -ge 100 ] && ! grep -q '^#' "$tmp/clean.totals" &&
	! grep -qE '^ *not ok ' "$tmp/clean.ktap"; then
	# Nested as printed: KUnit case, program test, each at its depth.
	expect "$name" "$tmp/clean.ktap" '^ {16}ok [0-9]+ task_todo_test_priority_order$' \
		"^ {12}ok [0-9]+ $leaf\$" '^ {12}ok [0-9]+ scen\.todo\.[a-z0-9_]+$' '^    ok [0-9]+ - guest suite$' \
		'^    ok [0-9]+ - kunit: suite maccess ran and passed$' '^    ok [0-9]+ - kunit: suite um_time ran and passed$' \
		'^    ok [0-9]+ - kernel: no warnings, lockdep, KASAN or hung-task reports$' "^ok 1 $host\$"
else
	fail "$name" "$tmp/clean.totals"
fi

# The program exits 1, as the guest prints it (a sed expression); the
# job's exit line stays "TODO-EXIT: 0": the document alone says what failed.
exit1=(-e "s/^ok \\([0-9]*\\) $prog\$/not ok \\1 $prog # exit status 1/")

# The test fails, and a KASAN report in the kernel log.
sed -e "${line}s/^    ok /    not ok /" "${exit1[@]}" \
	-e '/^ok 1 kunit$/a BUG: KASAN: slab-use-after-free in task_todo_run+0x12/0x80' \
	"$tmp/clean.log" >"$tmp/broken.log"
as_run broken
name="check: parse_console: a failed test and a KASAN report are the failures, by full name, counted"
if failed_are broken "$host > guest suite > $prog > $leaf" \
	"$host > kernel: no warnings, lockdep, KASAN or hung-task reports" &&
	grep -qx "$((passed - 2)) passed, 2 failed, [0-9]* skipped" "$tmp/broken.totals"; then
	expect "$name" "$tmp/broken.ktap" '^    # BUG: KASAN: slab-use-after-free in task_todo_run' \
		'^    not ok [0-9]+ - guest suite$' "^not ok 1 $host\$"
else
	cat "$tmp/broken.totals" >>"$tmp/broken.diff"
	fail "$name" "$tmp/broken.diff"
fi

# The program exits 1 with all its tests passed.
sed "${exit1[@]}" "$tmp/clean.log" >"$tmp/exited.log"
as_run exited
name="check: parse_console: a program that exits non-zero with its tests passed is one failure, counted"
if failed_are exited "$host > guest suite > $prog (not ok, with no failing test under it)" &&
	grep -qx "$passed passed, 1 failed, [0-9]* skipped" "$tmp/exited.totals"; then
	expect "$name" "$tmp/exited.ktap" '^    not ok [0-9]+ - guest suite$' "^not ok 1 $host\$"
else
	cat "$tmp/exited.totals" >>"$tmp/exited.diff"
	fail "$name" "$tmp/exited.diff"
fi

# The job's exit line says 1 over a clean document: its status is the
# document's, one status per result.
sed 's/^TODO-EXIT: 0$/TODO-EXIT: 1/' "$tmp/clean.log" >"$tmp/exit1.log"
as_run exit1
name="check: parse_console: the job's exit status is no result: a clean document that exits 1 passes"
if grep -qx "$passed passed, 0 failed, [0-9]* skipped" "$tmp/exit1.totals"; then
	expect "$name" "$tmp/exit1.ktap" '^    ok [0-9]+ - guest suite$' "^ok 1 $host\$"
else
	fail "$name" "$tmp/exit1.totals"
fi

# A program that never reported: its subtest cut out, from the KTAP version
# line before its name to its result.
first=$(grep -n "^    # Subtest: $prog\$" "$tmp/clean.log" | cut -d: -f1)
sed "$((first - 1)),/^ok [0-9]* $prog\$/d" "$tmp/clean.log" >"$tmp/missing.log"
as_run missing
name="check: parse_console: a program cut out is a failure for its missing result, counted"
if failed_are missing "$host > guest suite: 1 of $plan results missing (a crash or a timeout)" &&
	grep -qx '[0-9]* passed, 1 failed, [0-9]* skipped' "$tmp/missing.totals" &&
	! grep -q "$prog" "$tmp/missing.totals"; then
	expect "$name" "$tmp/missing.ktap" "^    not ok [0-9]+ - guest suite # 1 of $plan results missing\$" \
		"^not ok 1 $host\$"
else
	fail "$name" "$tmp/missing.totals"
fi

# A crash inside that program: the log ends after its first test.
head -n "$line" "$tmp/clean.log" >"$tmp/cut.log"
as_run cut
name="check: parse_console: a log cut inside a program fails what is missing, and keeps what follows"
total=$(grep -A 1 "^    # Subtest: $prog\$" "$tmp/clean.log" | sed -n 's/^    1\.\.//p')
if failed_are cut "$host > guest suite > $prog: $((total - 1)) of $total results missing (a crash or a timeout)" \
	"$host > guest suite: $((plan - 2)) of $plan results missing (a crash or a timeout)" &&
	grep -qx "[0-9]* passed, $((total - 1 + plan - 2)) failed, [0-9]* skipped" "$tmp/cut.totals"; then
	expect "$name" "$tmp/cut.ktap" "^        not ok 2 $prog # the document ends here: a crash or a timeout\$" \
		'^    not ok [0-9]+ - guest suite # cut off: a crash or a timeout$' \
		'^    ok [0-9]+ - kunit: suite maccess ran and passed$' "^not ok 1 $host\$"
else
	cat "$tmp/cut.totals" >>"$tmp/cut.diff"
	fail "$name" "$tmp/cut.diff"
fi

as_own_test console_results kcsan "$data/kcsan-reports.log" --kernel-only --classify-reports >"$tmp/kcsan"
name="check: parse_console --classify-reports: a KCSAN report in the todo list fails, those elsewhere are listed"
expect "$name" "$tmp/kcsan" \
	'^not ok [0-9]+ - kernel: no KCSAN or lockdep report in the todo list or freezer code$' \
	'^# BUG: KCSAN: data-race in task_todo_add / task_todo_call \[series: task_todo_add task_todo_call' \
	'^ok [0-9]+ - kernel: 2 KCSAN or lockdep report\(s\) elsewhere in the kernel \(2 distinct\), listed$' \
	'^# elsewhere: BUG: KCSAN: data-race in alloc_pid / copy_process at alloc_pid, copy_process' \
	'^# elsewhere: BUG: KCSAN: data-race in osq_lock / osq_unlock at osq_lock, osq_unlock$'

# --expected-report: the race lab's use-after-free report (make race) is
# what its test causes on purpose.  Named, it must be there and is no
# splat; unnamed, it is one; named in a log without it, it is missing.
uaf="BUG: todo race lab: use-after-free in the 2005 walk"
for c in named unnamed absent; do
	log=$data/race-uaf-report.log opts=(--expected-report "$uaf")
	[ "$c" != absent ] || log=$data/kcsan-reports.log
	[ "$c" != unnamed ] || opts=()
	as_own_test console_results uaf "$log" --kernel-only "${opts[@]}" >"$tmp/uaf-$c"
	cat "$tmp/uaf-$c" >>"$tmp/uaf"
done
name="check: parse_console --expected-report: a report caused on purpose must be there, and only it is no splat"
expect "$name" "$tmp/uaf" \
	"^ok 1 - kernel: the report the test causes on purpose is there: '$uaf' \\(1\\)$" \
	'^ok 2 - kernel: no warnings, lockdep, KASAN or hung-task reports$' \
	"^# $uaf, block [0-9a-f]+$" '^not ok 1 - kernel: no warnings, lockdep, KASAN or hung-task reports$' \
	"^not ok 1 - kernel: the report the test causes on purpose is there: '$uaf' \\(0\\)$"
rm -rf "$tmp"
