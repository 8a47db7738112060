#!/usr/bin/env bash
# 2005's B6: the freezer's completion was a global symbol named "thaw".
# Everything private to the todo freezer must be local to its object.
# needs: build
. "$(dirname "$0")/lib.sh"

name="build: the todo freezer's private symbols are local"
vmlinux=$(obj_dir "$TEST_FLAVOUR")/vmlinux
out=$LOGS/symbols.out
if [ ! -f "$vmlinux" ]; then
	fail "$name (no $vmlinux: build it with make build FLAVOUR=$TEST_FLAVOUR)"
	exit 0
fi
nm "$vmlinux" >"$out"
private='todo_user|todo_kthreads|todo_class|todo_freezing_wq|todo_freezer_woken|todo_thaw_class|still_leaving|todo_freezer_in_charge|todo_refrigerator|todo_freeze_self|thaw|nr_frozen'
global=$(grep -E " [A-Z] ($private)\$" "$out" || true)
if [ -n "$global" ]; then
	echo "$global" >"$out.global"
	fail "$name" "$out.global"
elif ! grep -Eq ' [a-z] todo_freeze_self$' "$out"; then
	# Or the test would pass on a kernel without the todo freezer.
	fail "$name (todo_freeze_self not found in $vmlinux)"
else
	pass "$name"
fi
