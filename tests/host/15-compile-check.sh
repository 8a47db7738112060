#!/usr/bin/env bash
# The todo list is switchable: every C file the series touches still
# compiles with CONFIG_TASK_TODO off.
. "$(dirname "$0")/lib.sh"

out=$LOGS/compile-check.out
name="build: every touched C file compiles with CONFIG_TASK_TODO=n"
if "$TOP/scripts/compile-check.sh" TASK_TODO >"$out" 2>&1; then
	expect "$name" "$out" "all [0-9]+ touched C files compile with CONFIG_TASK_TODO off"
else
	fail "$name" "$out"
fi
