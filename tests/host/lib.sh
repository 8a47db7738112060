# shellcheck shell=bash
# Helpers for host-side tests: each prints KTAP results, "ok N - NAME",
# "not ok N - NAME", "ok N - NAME # SKIP why", and a guest's console as its
# job's document nested as it was printed, with results on its kernel log;
# scripts/host/test.sh makes the test a subtest of the run's document, not ok
# if one of its results is, and the kernel's KTAP parser counts it
# (docs/console.md).  A test that starts a session itself sources
# scripts/host/lib/session.sh too; a test answers -h with its header.
# shellcheck source=../../scripts/host/lib/flavour.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/host/lib/flavour.sh"
# shellcheck source=../../scripts/host/lib/ktap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/host/lib/ktap.sh"
help_if_asked "$@"

# The flavour under test: scripts/host/test.sh --flavour sets it.
TEST_FLAVOUR=${TEST_FLAVOUR:-$(default_flavour test)}
# The time limit of the test's guest boot, in seconds: TIMEOUT (make test
# TIMEOUT=, scripts/host/test.sh --timeout), else the test's own, a line
# "# timeout: S" beside its "# needs:" line, as kselftest's settings file
# has timeout=S for its tests; empty for a test without one.
TIMEOUT=${TIMEOUT:-$(sed -n 's/^# timeout: \([1-9][0-9]*\)$/\1/p' "$0")}

# One result of the test each (ktap_result in scripts/host/lib/ktap.sh).
pass() { ktap_result ok "$1"; }
skip() { ktap_result ok "$1 # SKIP $2"; }
# fail NAME [DIAGNOSTIC-FILE]: a failing result, with the file as "# " lines.
fail() {
	# A missing diagnostic file is said, not a reason to die before "not ok".
	[ -z "${2:-}" ] || tail -n 40 "$2" 2>&1 | sed 's/^/# /' || true
	ktap_result "not ok" "$1"
}

# expect NAME OUTPUT-FILE PATTERN...: pass when every extended regex matches.
expect() {
	local name=$1 out=$2 pat
	shift 2
	for pat; do
		grep -Eq -- "$pat" "$out" || { echo "# missing: $pat"; fail "$name" "$out"; return; }
	done
	pass "$name"
}

# scratch: a new temporary directory under build/, which a test run alone
# on a fresh clone (bash tests/host/NN-name.sh) makes first.
scratch() { mkdir -p "$BUILD" && mktemp -d "$BUILD/test-tmp.XXXXXX"; }

# last_gdb_session FILE: the output of make debug or make race (FILE) from
# the last start of guest and gdb on.  A session whose guest KVM failed is
# started again under TCG (scripts/host/debug.sh); the first one's gdb
# output, which lost its guest, is not the test's.
last_gdb_session() {
	awk 'index($0, "decided: restart the guest and gdb under TCG") { buf = ""; next }
		{ buf = buf $0 "\n" } END { printf "%s", buf }' "$1"
}

# header_is FILE REGEX: FILE is not empty and its first line, as a whole,
# matches the extended regex (a CSV header, say).
header_is() { [ -s "$1" ] && [[ $(head -n 1 "$1") =~ ^$2$ ]]; }

# kunit_suites CONFIG: the KUnit suites that kernel config CONFIG builds;
# each must have reported, or its results are silently missing.  Read from
# the source: for each CONFIG_*KUNIT_TEST=y, the objects a Makefile builds
# with it, and the .name of each kunit_suite in their C files.
kunit_suites() {
	local opt mk obj
	for opt in $(sed -n 's/^CONFIG_\([A-Z0-9_]*KUNIT_TEST\)=y$/\1/p' "$1"); do
		while IFS=: read -r mk obj; do
			sed -n '/struct kunit_suite [a-z0-9_]* = {/,/};/ s/^[[:space:]]*\.name = "\([^"]*\)".*/\1/p' \
				"${mk%/*}/${obj%.o}.c"
		done < <(grep -rHo --include=Makefile "^obj-\$(CONFIG_$opt)[[:space:]]*+=[[:space:]]*[a-z0-9_-]*\.o" "$SRC" |
			sed 's/:obj-.*=[[:space:]]*/:/')
	done
}

# guest_kunit_glob SPEC: the KUnit glob of GUEST=SPEC ("PROG[:GLOB],...",
# docs/testing.md): GLOB of the first item whose PROG glob matches "kunit",
# "*" if it has none; status 1 when no item names KUnit.
guest_kunit_glob() {
	local item items
	IFS=, read -ra items <<<"$1"
	for item in "${items[@]}"; do
		# shellcheck disable=SC2053 # PROG is a glob
		[[ kunit == ${item%%:*} ]] || continue
		if [[ $item == *:* ]]; then echo "${item#*:}"; else echo '*'; fi
		return 0
	done
	return 1
}

# console_results NAME LOG [OPTION...]: console LOG's results, read by
# scripts/host/parse_console.py: the guest job's KTAP document, as printed, as
# subtest NAME, then the results on the kernel log; numbered on from this
# test's.
console_results() {
	local name=$1 log=$2 out rc=0
	shift 2
	out=$(python3 "$TOP/scripts/host/parse_console.py" --name "$name" --first "$((KTAP_N + 1))" \
		"$@" "$log") || rc=$?
	[ -z "$out" ] || printf '%s\n' "$out"
	KTAP_N=$((KTAP_N + $(ktap_count <<<"$out")))
	[ "$rc" -eq 0 ] || fail "$name: scripts/host/parse_console.py reads $log (exit $rc)"
}

# as_own_test CMD...: CMD's results numbered from 1, as a test of their
# own would number them (the checks record a console as a host test).
as_own_test() { (KTAP_N=0 && "$@"); }

# boot_finished NAME RUNNER-STATUS RUNNER-LOG: fail "NAME: boot finished"
# when the boot runner's status (session_wait in scripts/host/lib/session.sh)
# says what no console shows: 124, it timed out and killed the kernel;
# 126, the kernel left host processes behind.  Any other status is the
# guest's, or says it printed no exit line (a crash): its results are its
# document's, not read here.
boot_finished() {
	local why
	case $2 in
	124) why="timed out" ;;
	126) why="host processes left behind" ;;
	*) return 0 ;;
	esac
	fail "$1: boot finished (runner exit $2: $why)" "$3"
}

# boot_job NAME JOB TIMEOUT LOG FLAVOUR [PARSE-OPTION...] [-- KERNEL-PARAM...]:
# boot FLAVOUR with guest job JOB, report its console (console_results:
# the job's document as subtest NAME), and what the runner knows beside
# it (boot_finished).
boot_job() {
	local name=$1 job=$2 timeout=$3 log=$4 flavour=$5 opts=() rc mem
	shift 5
	while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
	[ $# -eq 0 ] || shift
	backend_load "$flavour"
	mem=$(backend_test_mem)
	"$TOP/scripts/host/boot.sh" --flavour "$flavour" --job "$job" --timeout "$timeout" --mem "$mem" \
		--show none --log "$log" -- "$@" >"$log.runner" 2>&1 && rc=0 || rc=$?
	console_results "$name" "$log" "${opts[@]}"
	boot_finished "$name" "$rc" "$log.runner"
}

# smp_run LEVEL TIMEOUT LOG [KERNEL-PARAM...]: boot the smp flavour (x86_64
# under QEMU, SMP_CPUS vCPUs, default 4) with guest job smp at
# smp_level=LEVEL (scripts/guest/jobs/smp-job.sh): subtest "smp" (KUnit, the guest
# programs), and beside it the kernel log (KCSAN and lockdep reports in the
# series fail, others are listed) and that both KUnit suites ran.
smp_run() {
	local level=$1 timeout=$2 log=$3
	shift 3
	boot_job smp smp "$timeout" "$log" smp --classify-reports \
		--kunit-suites "$(kunit_suites "$(obj_dir smp)/.config")" -- smp_level="$level" "$@"
}

# run_guest_job NAME JOB TIMEOUT LOG [KERNEL-PARAM...]: boot the test kernel
# with guest job JOB, KUnit off (the guest suite reports it once).
run_guest_job() {
	local name=$1 job=$2 timeout=$3 log=$4
	shift 4
	boot_job "$name" "$job" "$timeout" "$log" "$TEST_FLAVOUR" -- "$@" kunit.enable=0
}
