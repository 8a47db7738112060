# shellcheck shell=bash
# Helpers for host-side tests: each test prints "ok - NAME", "not ok - NAME"
# or "ok - NAME # SKIP why" on stdout; scripts/test.sh counts those lines.
# shellcheck source=../../scripts/session.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/session.sh"

# The flavour under test: scripts/test.sh --flavour sets it.
TEST_FLAVOUR=${TEST_FLAVOUR:-$(default_flavour test)}

pass() { echo "ok - $1"; }
skip() { echo "ok - $1 # SKIP $2"; }
# fail NAME [DIAGNOSTIC-FILE]: a failing result, with the file as "# " lines.
fail() {
	echo "not ok - $1"
	[ -z "${2:-}" ] || tail -n 40 "$2" | sed 's/^/# /'
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

scratch() { mktemp -d "$BUILD/test-tmp.XXXXXX"; }

# header_is FILE REGEX: FILE is not empty and its first line, as a whole,
# matches the extended regex (a CSV header, say).
header_is() { [ -s "$1" ] && [[ $(head -n 1 "$1") =~ ^$2$ ]]; }

# kunit_suites_ran LOG CONFIG: a KUnit suite CONFIG builds must have
# reported in LOG, or its results are silently missing from the counts.
kunit_suites_ran() {
	local log=$1 config=$2 pair option suite
	# Pairs of config option and suite.
	for pair in TASK_TODO_KUNIT_TEST:task_todo TODO_FREEZER_KUNIT_TEST:todo_freezer \
		MACCESS_KUNIT_TEST:maccess; do
		option=${pair%%:*} suite=${pair#*:}
		grep -q "^CONFIG_$option=y" "$config" || continue
		if grep -Eq "^ *ok [0-9]+ $suite\$" "$log"; then
			pass "kunit: suite $suite ran and passed"
		else
			fail "kunit: suite $suite ran and passed" "$log"
		fi
	done
}

# smp_run LEVEL TIMEOUT LOG [KERNEL-PARAM...]: boot the smp flavour (x86_64
# under QEMU, SMP_CPUS vCPUs, default 4) with guest job smp at
# smp_level=LEVEL (scripts/guest/smp.sh) and report, each name prefixed
# with "smp: ": KUnit, the guest programs, the kernel log (KCSAN and
# lockdep reports in the series fail, others are listed), that both KUnit
# suites ran, and that the boot finished.
smp_run() {
	local level=$1 timeout=$2 log=$3 rc
	shift 3
	"$TOP/scripts/boot.sh" --flavour smp --job smp --mem 1G --timeout "$timeout" \
		--show none --log "$log" -- smp_level="$level" "$@" >"$log.runner" 2>&1 && rc=0 || rc=$?
	{
		python3 "$TOP/scripts/parse_console.py" --classify-reports "$log"
		kunit_suites_ran "$log" "$(obj_dir smp)/.config"
		case $rc in
		0 | 1) ;; # the guest ran its programs; their results are above
		*) fail "boot finished (runner exit $rc)" "$log.runner" ;;
		esac
	} | sed -E 's/^((not )?ok - )/\1smp: /'
}

# run_guest_job WHAT JOB TIMEOUT LOG [KERNEL-PARAM...]: boot the test kernel
# with guest job JOB (KUnit off: the guest suite reports it once), report
# the guest programs' results from LOG, and fail WHAT if the boot itself
# did not finish (runner exit other than 0 or 1, the guest's own verdict).
run_guest_job() {
	local what=$1 job=$2 timeout=$3 log=$4 rc
	shift 4
	"$TOP/scripts/boot.sh" --flavour "$TEST_FLAVOUR" --job "$job" --timeout "$timeout" \
		--show none --log "$log" -- "$@" kunit.enable=0 >"$log.runner" 2>&1 && rc=0 || rc=$?
	python3 "$TOP/scripts/parse_console.py" --no-kunit "$log"
	case $rc in
	0 | 1) ;;
	*) fail "$what: boot finished (runner exit $rc)" "$log.runner" ;;
	esac
}
