#!/usr/bin/env bash
# scripts/host/trace_report.py on a saved strace log of "make trace" (strace
# starting ./linux): the same checks as tests/host/75-trace.sh.
. "$(dirname "$0")/../host/lib.sh"
. "$(dirname "$0")/../host/checks.sh"

tmp=$(scratch)
out=$tmp/trace
mkdir -p "$out"
xz -dc "$TOP/tests/data/strace-start.log.xz" >"$out/strace.log"
python3 "$TOP/scripts/host/trace_report.py" --strace "$out/strace.log" --out "$out" --mode start \
	>"$tmp/run" 2>&1 && rc=0 || rc=$?
name="check: trace_report: the summary is made from the saved strace log"
if [ "$rc" -eq 0 ]; then pass "$name"; else fail "$name (exit $rc)" "$tmp/run"; fi
check_trace_out "check: trace_report" start "$out" "$tmp/run"
rm -rf "$tmp"
