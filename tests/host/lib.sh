# shellcheck shell=bash
# Helpers for host-side tests: each test prints "ok - NAME", "not ok - NAME"
# or "ok - NAME # SKIP why" on stdout; scripts/test.sh counts those lines.
# shellcheck source=../../scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"

TEST_FLAVOUR=${TEST_FLAVOUR:-test}

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
