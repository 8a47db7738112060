#!/usr/bin/env bash
# The series compiles beyond the flavours the project builds: every C file
# it touches, in every cell of configs/compile-matrix (the features off,
# no system sleep, no freezer, x86_64 on one CPU and with PREEMPT_RT, and
# x86_64 allmodconfig, where the KUnit suites are modules), with no
# warning.  Only the touched files are compiled, not whole kernels.
. "$(dirname "$0")/lib.sh"

for cell in $("$TOP/scripts/host/compile-check.sh" --list); do
	out=$LOGS/compile-check-$cell.out
	name="build: every touched C file compiles in the compile-matrix cell $cell"
	if "$TOP/scripts/host/compile-check.sh" "$cell" >"$out" 2>&1; then
		expect "$name" "$out" "cell $cell: all [0-9]+ touched C files compile"
	else
		fail "$name" "$out"
	fi
done
