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
