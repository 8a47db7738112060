# shellcheck shell=sh
# Shared by the guest jobs that run test programs; source it, do not run it.
# A job prints one KTAP document (docs/console.md), which the host passes
# on as printed (scripts/host/parse_console.py), for the kernel's kunit_parser
# to parse once with the run's other results: each run_prog a subtest.  The
# document is the only status the host reads; the job's exit status (1 if
# a subtest failed) is for a person who boots it (make boot).
rc=0 ktap_n=0 counting=""

# ktap_job FUNCTION: FUNCTION's run_prog calls as the job's KTAP document,
# then exit with rc.  A first pass in which run_prog only counts gives the
# plan; the KUnit suites that ran at boot (debugfs) come first, as subtest
# "kunit".
ktap_job() {
	counting=1
	"$1"
	# (ktap_*: sh has no locals, and the job's own variables are its own.)
	ktap_plan=$ktap_n counting="" ktap_n=0 ktap_kunit=0
	for ktap_f in /sys/kernel/debug/kunit/*/results; do [ -e "$ktap_f" ] && ktap_kunit=1; break; done
	echo "KTAP version 1"
	echo "1..$((ktap_plan + ktap_kunit))"
	[ "$ktap_kunit" -eq 0 ] || run_prog kunit kunit_suites
	"$1"
	exit "$rc"
}

# run_prog NAME CMD...: CMD's TAP as subtest NAME, indented; the subtest's
# head replaces CMD's own version line.  Its result is CMD's exit status
# read as kselftest's runner reads it: 0 ok, 4 (KSFT_SKIP) skipped, any
# other not ok.
# shellcheck disable=SC3040 # pipefail: the guest's sh is busybox ash, which has it
run_prog() {
	ktap_n=$((ktap_n + 1))
	[ -z "$counting" ] || return 0
	name=$1
	shift
	# One write: a kernel message between these lines would hide the name.
	printf '    KTAP version 1\n    # Subtest: %s\n' "$name"
	# pipefail: the pipeline's status is CMD's, not sed's.  CMD (a shell
	# function, say) runs without it: "dmesg | grep -q" would fail there.
	set -o pipefail
	{ set +o pipefail; "$@" 2>&1; } | sed -e '/^TAP version 13$/d' -e 's/^/    /'
	status=$?
	set +o pipefail
	case $status in
	0) echo "ok $ktap_n $name" ;;
	4) echo "ok $ktap_n $name # SKIP" ;;
	*) echo "not ok $ktap_n $name # exit status $status"
		rc=1 ;;
	esac
}

# Each suite's debugfs results are a KTAP document of one subtest, the
# suite: keep that subtest, numbered in this list.
kunit_suites() {
	set -- /sys/kernel/debug/kunit/*/results
	echo "1..$#"
	i=0
	for f; do
		i=$((i + 1))
		sed "1,2d; \$s/ok 1 /ok $i /" "$f"
	done
	! grep -q '^not ok' "$@"
}

# kmemleak reports an object only once it has been unreferenced for a
# while and seen by two scans, hence the wait between them.
kmemleak_check() {
	km=/sys/kernel/debug/kmemleak
	echo "1..1"
	[ -e $km ] || { echo "ok 1 kmemleak.no_leaks # SKIP no $km (CONFIG_DEBUG_KMEMLEAK)"; return 0; }
	echo scan >$km
	sleep 6
	echo scan >$km
	leaks=$(grep -c '^unreferenced object' $km)
	if [ "$leaks" -eq 0 ]; then
		echo "ok 1 kmemleak.no_leaks"
		return 0
	fi
	sed 's/^/# /' $km | head -n 60
	echo "not ok 1 kmemleak.no_leaks # $leaks unreferenced objects"
	return 1
}

# cmdline_param NAME DEFAULT: the value of NAME=... on the kernel command
# line, or DEFAULT.
cmdline_param() {
	value=$2
	set -f # a value may be a glob (guest=)
	for arg in $(cat /proc/cmdline); do
		case $arg in "$1"=*) value=${arg#*=} ;; esac
	done
	set +f
	echo "$value"
}
