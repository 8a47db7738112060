#!/bin/sh
# The upstream candidates alone (scripts/host/check-candidates.sh boots this on
# a kernel without the test, teaching and bench patches): the todo list
# and both freezers must work with nothing but what would be submitted.
# A spinner runs through one pm_test=freezer round trip per freezer; the
# kernel log must say which freezer froze user space, and that it did.
# shellcheck source=SCRIPTDIR/../job-lib.sh
. "$(dirname "$0")/../job-lib.sh"

n=0
# check NAME CMD...: one TAP line for whether CMD succeeds.
# (run_prog's own variable is "name": sh has no locals.)
check() {
	what=$1
	shift
	n=$((n + 1))
	if "$@"; then echo "ok $n $what"; else echo "not ok $n $what"; rc=1; fi
}

froze_with() {
	dmesg -c >/dev/null
	echo "$1" >/sys/power/freezer || return 1
	grep -q "\[$1\]" /sys/power/freezer || return 1
	echo freeze >/sys/power/state || return 1
	dmesg | grep -q "Freezing user space processes ($1 freezer)" &&
		dmesg | grep -q 'Freezing user space processes completed'
}

candidate_checks() {
	echo "1..4"
	cat /dev/zero >/dev/null &
	spinner=$!
	echo 0 >/sys/module/suspend/parameters/pm_test_delay
	echo freezer >/sys/power/pm_test
	check "proc_todo_readable" test -r /proc/self/todo
	check "todo_freezer_froze" froze_with todo
	check "classic_freezer_froze" froze_with classic
	check "spinner_runs_after_the_thaws" kill -0 "$spinner"
	kill "$spinner"
	return "$rc"
}

job() { run_prog candidates candidate_checks; }
ktap_job job
