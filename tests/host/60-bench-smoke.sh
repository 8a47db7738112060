#!/usr/bin/env bash
# A short run of "make bench" (scripts/host/bench.sh): 10 tasks of every kind, 2
# repetitions per freezer.  Checks that it produces a well-formed table,
# CSV and PNG; not that any number is fast.  It runs on the test kernel,
# which has the bench's CONFIG_FREEZER_BENCH too (configs/test.config), so
# "make test" needs no third build.
# needs: build initramfs
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/checks.sh"

REPS=2
tmp=$(scratch)
out=$tmp/bench
"$TOP/scripts/host/bench.sh" --flavour "$TEST_FLAVOUR" --sizes 10 --reps "$REPS" --out "$out" --timeout 900 \
	>"$tmp/run" 2>&1 && rc=0 || rc=$?
cp "$tmp/run" "$LOGS/bench-smoke.log"
[ ! -f "$out/console.log" ] || cp "$out/console.log" "$LOGS/bench-smoke-console.log"

name="bench smoke: make bench runs to the end (sizes 10, $REPS reps)"
if [ "$rc" -eq 0 ]; then pass "$name"; else fail "$name (exit $rc)" "$tmp/run"; fi

check_bench_out "bench smoke" "$out" "$REPS" "$tmp/run"
# The test kernel runs KUnit suite um_time at boot: the report has its
# cost of one read per clock, sched_clock() included, against ktime_get_ns().
expect "bench smoke: table.txt has the clock reads KUnit suite um_time measured" "$out/table.txt" \
	"^== clock reads" "^ktime_get_ns +[0-9]+ ns +[0-9]+ ns +1\.00$" "^sched_clock +[0-9]+ ns +[0-9]+ ns +[0-9.]+$"

# The kernel said nothing alarming while the bench ran.
[ ! -f "$out/console.log" ] || console_results "bench smoke" "$out/console.log" --kernel-only
rm -rf "$tmp"
