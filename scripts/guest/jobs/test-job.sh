#!/bin/sh
# "make test": every guest test program, each a subtest of the job's KTAP
# document (job-lib.sh); last, kmemleak's leaks left by everything that ran.
# The stress programs (stress_*) are left to the stress job (stress.sh),
# which the host boots separately; the bench programs (bench_*) to the
# bench job (bench.sh, "make bench"); the SMP programs (smp_*) to the smp
# job (smp.sh, "make smp-test"); the race lab (race_*) to the race job
# (race.sh, "make race").
#
# "make test GUEST=PROG[:GLOB],... FREEZER=todo|classic" (guest= and
# freezer= on the kernel command line): only the programs whose names
# match a PROG glob ("kunit" and "kmemleak" are names here too; KUnit's
# own glob is the host's kunit.filter_glob=), and in each only the tests
# whose names match its GLOB, of that freezer's variant (harness_main.h).
. "$(dirname "$0")/../job-lib.sh"

guest=$(cmdline_param guest "")
freezer=$(cmdline_param freezer "")
[ -z "$freezer" ] || [ -n "$guest" ] || guest='*'

# The programs of this job, in the order they run.
programs() {
	for prog in /tests/*; do
		case ${prog##*/} in
		stress_*) ;;
		suspend_rtc) ;; # the rtc job (rtc.sh)
		debug_tools) ;; # the debugtools job (debugtools.sh)
		bench_*) ;; # make bench only (scripts/guest/jobs/bench-job.sh)
		demo_*) ;; # make demo only (scripts/guest/jobs/demo-job.sh)
		smp_*) ;; # make smp-test only (scripts/guest/jobs/smp-job.sh)
		race_*) ;; # make race only (scripts/guest/jobs/race-job.sh)
		*) echo "${prog##*/}" ;;
		esac
	done
}

# chosen PROG: the harness options that pick PROG's tests named by guest=,
# or "all" for every test; nothing (status 1) when guest= names none of
# them.
chosen() {
	[ -n "$guest" ] || { echo all; return 0; }
	opts=""
	set -f
	for item in $(echo "$guest" | tr ',' ' '); do
		# shellcheck disable=SC2254 # the item's program part is a glob
		case $1 in ${item%%:*}) ;; *) continue ;; esac
		case $item in *:*) opts="$opts --match ${item#*:}" ;; *) opts="$opts --match *" ;; esac
	done
	set +f
	[ -n "$opts" ] || return 1
	[ -z "$freezer" ] || opts="$opts --freezer $freezer"
	echo "$opts"
}

# The job's plan, worked out once: a line "PROG OPTIONS" per program with a
# chosen test (its --list says so), "kmemleak" if chosen.  set -f: the
# users' globs go to the programs as they are.
plan="" progs=$(programs)
set -f
for prog in $progs; do
	opts=$(chosen "$prog") || continue
	# shellcheck disable=SC2086 # word splitting of the options is meant
	[ "$opts" = all ] || /tests/"$prog" --list $opts >/dev/null 2>&1 || continue
	plan="$plan$prog $opts
"
done
set +f
if chosen kmemleak >/dev/null; then plan="${plan}kmemleak
"; fi

job() {
	set -f
	# (The programs' stdin is not the plan.)
	while read -r prog opts; do
		case $prog in
		'') ;;
		kmemleak) run_prog kmemleak kmemleak_check </dev/null ;;
		*) [ "$opts" = all ] && opts=""
			# shellcheck disable=SC2086
			run_prog "$prog" "/tests/$prog" $opts </dev/null ;;
		esac
	done <<EOF
$plan
EOF
	set +f
}

# guest= that names no test is a mistake: say which names there are.
kunit_ran=0
for f in /sys/kernel/debug/kunit/*/results; do [ -e "$f" ] && kunit_ran=1; break; done
if [ -z "$(echo "$plan" | tr -d '\n')" ] && [ "$kunit_ran" -eq 0 ]; then
	echo "KTAP version 1"
	echo "1..1"
	echo "# guest=$guest${freezer:+ freezer=$freezer}: no program here has such a test; the programs: $(echo $progs) kunit kmemleak"
	echo "# their tests: /tests/PROG --list (make run CMD=...), or docs/testing.md"
	echo "not ok 1 guest.chosen_tests_exist"
	exit 1
fi
ktap_job job
