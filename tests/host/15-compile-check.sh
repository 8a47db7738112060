#!/usr/bin/env bash
# The features are switchable: every C file the series touches still
# compiles with the todo list off, and with only the todo freezer off.
. "$(dirname "$0")/lib.sh"

for option in TASK_TODO TODO_FREEZER; do
	out=$LOGS/compile-check-$option.out
	name="build: every touched C file compiles with CONFIG_$option=n"
	if "$TOP/scripts/host/compile-check.sh" "$option" >"$out" 2>&1; then
		expect "$name" "$out" "all [0-9]+ touched C files compile with CONFIG_$option off"
	else
		fail "$name" "$out"
	fi
done
