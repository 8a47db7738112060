#!/bin/sh
# "make test": the KUnit suites that ran at boot (subtest "kunit", added by
# ktap_job), then every guest test program, each a subtest of the job's
# KTAP document (../job-lib.sh); last, kmemleak's leaks left by
# everything that ran.
# The programs are those whose job line (" * job: test ...", in their top
# comment; docs/testing.md) names this job: scripts/host/initramfs.sh
# writes the lines into /tests/JOBS, "PROG JOB...".  Each must list its
# tests (--list); one that cannot is a failed subtest, never left out.
#
# "make test GUEST=PROG[:GLOB],... FREEZER=todo|classic" (guest= and
# freezer= on the kernel command line): only the programs whose names
# match a PROG glob ("kunit" and "kmemleak" are names here too; KUnit's
# own glob is the host's kunit.filter_glob=), and in each only the tests
# whose names match its GLOB, of that freezer's variant (harness_main.h).
. "$(dirname "$0")/../job-lib.sh"

guest=$(cmdline_param guest "")
freezer=$(cmdline_param freezer "")
# FREEZER= alone: every program, each on that freezer's variants.
[ -z "$freezer" ] || [ -n "$guest" ] || guest='*'

# The programs of this job, in the order they run.
programs() {
	awk '{ for (i = 2; i <= NF; i++) if ($i == "test") print $1 }' /tests/JOBS
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

# unlisted PROG STATUS: the result of a program whose --list failed with
# exit STATUS, with what it printed.
unlisted() {
	echo "1..1"
	/tests/"$1" --list 2>&1 | tail -n 20 | sed 's/^/# /'
	echo "not ok 1 $1.list # /tests/$1 --list failed (exit $2): its tests can be neither listed nor chosen; its main() must be harness_main()'s (harness_main.h, docs/testing.md)"
	return 1
}

# Without the manifest the suite would be empty, not failed.
if [ ! -r /tests/JOBS ]; then
	printf 'KTAP version 1\n1..1\n# no /tests/JOBS: build the initramfs with scripts/host/initramfs.sh\nnot ok 1 guest.manifest\n'
	exit 1
fi

# The job's plan, worked out once: a line "PROG OPTIONS" per program with a
# chosen test (its --list says so), "unlisted PROG STATUS" per chosen
# program whose --list fails, "kmemleak" if chosen.  set -f: the users'
# globs go to the programs as they are.
plan="" progs=$(programs)
set -f
for prog in $progs; do
	opts=$(chosen "$prog") || continue
	listed=0
	/tests/"$prog" --list >/dev/null 2>&1 || listed=$?
	if [ "$listed" -ne 0 ]; then
		plan="${plan}unlisted $prog $listed
"
		continue
	fi
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
		unlisted) # shellcheck disable=SC2086 # opts: "PROG STATUS"
			run_prog "${opts% *}" unlisted $opts </dev/null ;;
		*) [ "$opts" = all ] && opts=""
			# shellcheck disable=SC2086
			run_prog "$prog" "/tests/$prog" $opts </dev/null ;;
		esac
	done <<EOF
$plan
EOF
	set +f
}

# guest= that names no test is a mistake: say which names there are.  A
# guest= that chose KUnit alone has an empty plan but KUnit's results.
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
