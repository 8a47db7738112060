#!/usr/bin/env bash
# "make demo" works: on the test kernel, both freezes from the host freeze
# every workload task (the kernel says "frozen" for each), and after each
# thaw the guest reports its workloads resumed, the pipe reader without EINTR.
# Its picture is a well-formed PNG (signature, IHDR of non-zero size first,
# every chunk's CRC, IEND last), and its data file has exactly one lane per
# workload task (the pids the guest printed on its DEMO-TASKS line) for
# each freezer.  trace-cmd report reads its trace.dat, with task_frozen
# events of both freezers, and sleepgraph's page of its suspend-to-idle
# parses, names freeze_processes and thaw_processes, and has no TEST FAILED
# banner (it did while UML had no cpuidle driver).
# needs: build initramfs
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/checks.sh"

out=$LOGS/demo.out
pic=$BUILD/test-demo
name="demo: make demo narrates a todo and a classic freeze"
pic_name="demo: timeline.png is a well-formed PNG with one lane per workload task per freezer"
sg_name="demo: sleepgraph.html parses, names freeze_processes and thaw_processes and has no TEST FAILED banner"

rm -rf "$pic"
if timeout 300 "$TOP/scripts/host/demo.sh" --flavour "$TEST_FLAVOUR" --out "$pic" >"$out" 2>&1; then
	frozen=$(grep -c '^    [0-9]* [^ ]* frozen: nothing pending$' "$out" || true)
	if [ "$frozen" -eq 12 ]; then
		expect "$name" "$out" 'user space frozen \(todo freezer\)' \
			'user space frozen \(classic freezer\)' 'resumed; the longest pause' \
			'read\(\) returned 1 \(the byte, no EINTR\)'
	else
		fail "$name ($frozen of 12 task views say frozen)" "$out"
	fi
	if ! grep -q "timeline picture: ${pic#"$TOP"/}/timeline.png" "$out"; then
		fail "$pic_name (the demo printed no path of its picture)" "$out"
	elif check_timeline "$pic/timeline.png" "$pic/timeline.dat" "$LOGS/demo.log" >"$out.timeline" 2>&1; then
		cat "$out.timeline"
		pass "$pic_name"
	else
		fail "$pic_name" "$out.timeline"
	fi
	check_tracedat demo "$pic/trace.dat" "$out"
	if [ ! -s "$pic/sleepgraph.html" ]; then
		fail "$sg_name (no sleepgraph.html)" "$out"
	elif check_sleepgraph_html "$pic/sleepgraph.html" >"$out.sleepgraph" 2>&1; then
		cat "$out.sleepgraph"
		pass "$sg_name"
	else
		fail "$sg_name" "$out.sleepgraph"
	fi
else
	fail "$name" "$out"
	fail "$pic_name (the demo failed)" "$out"
	fail "demo: trace-cmd report reads trace.dat, with task_frozen events of both freezers (the demo failed)" "$out"
	fail "$sg_name (the demo failed)" "$out"
fi
