#!/usr/bin/env bash
# scripts/host/bench_report.py and gnuplot on the saved console log of a bench
# smoke run (every kind, N = 10, 2 repetitions): the same checks as the
# live smoke test (tests/host/checks.sh), without a kernel image.
. "$(dirname "$0")/../host/lib.sh"
. "$(dirname "$0")/../host/checks.sh"

tmp=$(scratch)
out=$tmp/bench
mkdir -p "$out"
xz -dc "$TOP/tests/data/bench-smoke.log.xz" >"$tmp/console.log"
{
	python3 "$TOP/scripts/host/bench_report.py" --log "$tmp/console.log" --out "$out" &&
		gnuplot "$out/latency.gp"
} >"$tmp/run" 2>&1 && rc=0 || rc=$?
name="check: bench_report: the report and the plot are made from the saved log"
if [ "$rc" -eq 0 ]; then pass "$name"; else fail "$name (exit $rc)" "$tmp/run"; fi
check_bench_out "check: bench_report" "$out" 2 "$tmp/run" no-vmlinux
rm -rf "$tmp"
