#!/usr/bin/env bash
# "make demo" works: on the test kernel, both freezes from the host freeze
# every workload task (the kernel says "frozen" for each), and after each
# thaw the guest reports its workloads resumed, the pipe reader without EINTR.
. "$(dirname "$0")/lib.sh"

out=$LOGS/demo.out
name="demo: make demo narrates a todo and a classic freeze"
if FLAVOUR=$TEST_FLAVOUR timeout 300 "$TOP/scripts/demo.sh" >"$out" 2>&1; then
	frozen=$(grep -c '^    [0-9]* [^ ]* frozen: nothing pending$' "$out" || true)
	if [ "$frozen" -eq 12 ]; then
		expect "$name" "$out" 'user space frozen \(todo freezer\)' \
			'user space frozen \(classic freezer\)' 'resumed; the longest pause' \
			'read\(\) returned 1 \(the byte, no EINTR\)'
	else
		fail "$name ($frozen of 12 task views say frozen)" "$out"
	fi
else
	fail "$name" "$out"
fi
