#!/bin/sh
# "make test": every guest test program, each a subtest of the job's KTAP
# document (lib.sh); last, kmemleak's leaks left by everything that ran.
# The stress programs (stress_*) are left to the stress job (stress.sh),
# which the host boots separately; the bench programs (bench_*) to the
# bench job (bench.sh, "make bench"); the SMP programs (smp_*) to the smp
# job (smp.sh, "make smp-test").
. "$(dirname "$0")/lib.sh"

# freeze_scenarios and freeze_compat run once per freezer, as
# PROG.todo and PROG.classic (a freezer the kernel lacks makes their tests
# SKIP); then the todo freezer, the default, is selected again.
job() {
	for prog in /tests/*; do
		case ${prog##*/} in
		stress_*) continue ;;
		suspend_rtc) continue ;; # the rtc job (rtc.sh)
		debug_tools) continue ;; # the debugtools job (debugtools.sh)
		bench_*) continue ;; # make bench only (scripts/guest/bench.sh)
		demo_*) continue ;; # make demo only (scripts/guest/demo.sh)
		smp_*) continue ;; # make smp-test only (scripts/guest/smp.sh)
		freeze_scenarios | freeze_compat)
			for freezer in todo classic; do
				run_prog "${prog##*/}.$freezer" "$prog" "$freezer"
			done
			if [ -w /sys/power/freezer ]; then
				echo todo >/sys/power/freezer || rc=1
			fi
			continue
			;;
		esac
		run_prog "${prog##*/}" "$prog"
	done
	run_prog kmemleak kmemleak_check
}
ktap_job job
