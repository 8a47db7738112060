#!/usr/bin/env bash
# sleepgraph_render (the kernel tree's sleepgraph, on the host) on the saved
# suspend-to-idle capture of "make demo": the page parses, names
# freeze_processes and thaw_processes and has no TEST FAILED banner, as
# tests/host/85-demo.sh checks; and the check refuses a page cut short.
. "$(dirname "$0")/../host/lib.sh"
. "$(dirname "$0")/../../scripts/host/lib/sleepgraph.sh"
. "$(dirname "$0")/../host/checks.sh"

tmp=$(scratch)
for f in sleepgraph_dmesg.txt sleepgraph_ftrace.txt; do
	xz -dc "$TOP/tests/data/$f.xz" >"$tmp/$f"
done
(sleepgraph_render "$tmp") >"$tmp/run" 2>&1 && rc=0 || rc=$?
name="check: sleepgraph: the page of the saved capture parses, names freeze_processes and thaw_processes and has no TEST FAILED banner"
if [ "$rc" -eq 0 ] && check_sleepgraph_html "$tmp/sleepgraph.html" >>"$tmp/run" 2>&1; then
	sed -n '/^# /p' "$tmp/run"
	pass "$name"
else
	fail "$name (sleepgraph_render exit $rc)" "$tmp/run"
fi
name="check: sleepgraph: a page cut short fails the check"
if [ "$rc" -ne 0 ]; then
	fail "$name (no page to cut)" "$tmp/run"
else
	head -c "$(($(wc -c <"$tmp/sleepgraph.html") / 3))" "$tmp/sleepgraph.html" >"$tmp/cut.html"
	if check_sleepgraph_html "$tmp/cut.html" >"$tmp/cut" 2>&1; then
		fail "$name (it passed)" "$tmp/cut"
	else
		sed 's/^# /# (as expected) /' "$tmp/cut"
		pass "$name"
	fi
fi
rm -rf "$tmp"
