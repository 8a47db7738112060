#!/bin/sh
# make smp-test: the series on the x86_64 kernel with 4 vCPUs (KCSAN +
# lockdep).  KUnit (task_todo, todo_freezer) ran at boot.  smp_level= on
# the kernel command line picks what follows:
#   smoke  freeze_scenarios once per freezer, task_todo (the generic
#          entry code's kick, which UML does not use), compat_uprobe (UML
#          has no uprobes) once per freezer, and thaw_race: the
#          lost wake-up of the first frozen wait found with it re-enacted,
#          none in smp_race_cycles= (default 50) cycles with the fix
#          (tests/host/*-smp-smoke.sh)
#   full   (default) also the compat_* programs and the SMP hammer on both freezers
#          (hammer=, default 200), thaw_race for 1000 cycles
#          on both freezers, cycles= (default 1000) freeze/thaw cycles
#          of the todo freezer under churn, the churners spread over all
#          CPUs, and freeze_bugs.
# shellcheck source=SCRIPTDIR/../job-lib.sh
. "$(dirname "$0")/../job-lib.sh"

level=$(cmdline_param smp_level full)
cycles=$(cmdline_param cycles 1000)
hammer=$(cmdline_param hammer 200)
race=$(cmdline_param smp_race_cycles 50)
echo "# smp: $(grep -c ^processor /proc/cpuinfo) CPUs online, level $level"

# KCSAN (on from boot: kcsan.early_enable=1) stalls every watched access
# for tens of microseconds; under TCG on a busy 2-core host that stretches
# freeze_scenarios' time windows (gaps before a freeze, a timer due while
# frozen, the harness's 30 s per test) past what they allow.  So the
# scenarios run with KCSAN off and lockdep on; KUnit (at boot), task_todo,
# freeze_bugs, smp_hammer and the churn run with KCSAN on.
kcsan() { [ -w /sys/kernel/debug/kcsan ] && echo "$1" >/sys/kernel/debug/kcsan; }

# KCSAN's own counters: it did watch accesses (no report is worth something
# only then); data_races is what it reported.
kcsan_watched() {
	f=/sys/kernel/debug/kcsan
	echo "1..1"
	[ -e $f ] || { echo "ok 1 kcsan.watched_accesses # SKIP no $f (CONFIG_KCSAN)"; return 0; }
	grep -E '^(enabled|setup_watchpoints|data_races|no_capacity):' $f | sed 's/^/# /'
	n=$(sed -n 's/^setup_watchpoints: *//p' $f)
	if [ "${n:-0}" -gt 0 ]; then
		echo "ok 1 kcsan.watched_accesses"
		return 0
	fi
	echo "not ok 1 kcsan.watched_accesses"
	return 1
}

# kcsan_off CMD...: CMD with KCSAN off (its stalls stretch the time
# windows the timed programs check, see above), on again after it.
kcsan_off() {
	kcsan off
	"$@"
	st=$?
	kcsan on
	return "$st"
}

# todo_after CMD...: CMD, then the todo freezer, the default, selected
# again (CMD may leave the classic one); CMD's status, 1 if that fails:
# the document is the only status the host reads.
todo_after() {
	"$@"
	st=$?
	echo todo >/sys/power/freezer && return "$st"
	echo "# cannot select the todo freezer again"
	return 1
}

# timed_both PROG: /tests/PROG, whose tests run once per freezer (their
# variants), with KCSAN off.
timed_both() { run_prog "$1" kcsan_off todo_after "/tests/$1"; }

job() {
	timed_both freeze_scenarios
	run_prog task_todo /tests/task_todo
	timed_both compat_uprobe
	run_prog thaw_race.reverted /tests/smp_thaw_race reverted 50
	run_prog thaw_race.todo /tests/smp_thaw_race fixed "$race" todo
	[ "$level" = smoke ] || full
	run_prog kcsan kcsan_watched
}

full() {
	for prog in /tests/compat_*; do
		# The smoke above ran it.
		[ "${prog##*/}" = compat_uprobe ] && continue
		timed_both "${prog##*/}"
	done
	for freezer in todo classic; do
		run_prog "thaw_race.$freezer.long" /tests/smp_thaw_race fixed 1000 "$freezer"
	done
	for freezer in todo classic; do
		run_prog "smp_hammer.$freezer" todo_after /tests/smp_hammer "$hammer" "$freezer"
	done
	run_prog stress_freeze.spread /tests/stress_freeze -a "$cycles" todo
	# Last: the 2005 bugs it re-enacts leave their items
	# ("todo_freeze_self_2005") on kernel threads that never freeze, which
	# stress_freeze's leak check would count.
	run_prog freeze_bugs /tests/freeze_bugs
}
ktap_job job
