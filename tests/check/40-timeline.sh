#!/usr/bin/env bash
# draw_timeline (scripts/host/timeline.py and gnuplot) on the saved console log
# of "make demo": the same picture checks as tests/host/85-demo.sh.
. "$(dirname "$0")/../host/lib.sh"
. "$(dirname "$0")/../../scripts/host/lib/timeline.sh"
. "$(dirname "$0")/../host/checks.sh"

tmp=$(scratch)
xz -dc "$TOP/tests/data/demo.log.xz" >"$tmp/demo.log"
(draw_timeline "$tmp/demo.log" "$tmp/pic" "check") >"$tmp/run" 2>&1 && rc=0 || rc=$?
name="check: timeline: a well-formed PNG with one lane per workload task per freezer"
if [ "$rc" -eq 0 ] && check_timeline "$tmp/pic/timeline.png" "$tmp/pic/timeline.dat" "$tmp/demo.log" >>"$tmp/run" 2>&1; then
	sed -n '/^# /p' "$tmp/run"
	pass "$name"
else
	fail "$name (draw_timeline exit $rc)" "$tmp/run"
fi
rm -rf "$tmp"
