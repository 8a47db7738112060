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

# The saved log predates the return times: add made-up ones to its points,
# as a kernel that reports them would, and see them reach the outputs.
awk '/^BENCH kind=/ { split($6, f, "="); split($7, t, "=")
	$0 = $0 " freeze_ret_ns=" (f[2] + 1000) " thaw_ret_ns=" int(t[2] / 2) } 1' \
	"$tmp/console.log" >"$tmp/ret.log"
mkdir -p "$tmp/ret"
name="check: bench_report: the report is made from a log with the return times"
if python3 "$TOP/scripts/host/bench_report.py" --log "$tmp/ret.log" --out "$tmp/ret" >"$tmp/run" 2>&1; then
	pass "$name"
	expect "check: bench_report: table.txt shows the return times and their ratios" "$tmp/ret/table.txt" \
		"^ +10 todo +2 [|]( +[0-9.]+){4} [|]( +[0-9.]+){4} [|]( +[0-9]+\.[0-9]){2} [|]( +[0-9.]+){4} [|]" \
		"^n/a +todo/classic freeze return <= 0\.8, .*: not measured\$"
	expect "check: bench_report: results.csv has the return times" "$tmp/ret/results.csv" \
		"^pause,10,todo,1,([0-9]+,){5}[0-9]+\$"
else
	fail "$name" "$tmp/run"
fi
rm -rf "$tmp"
