#!/usr/bin/env bash
# The series under x86_64 allmodconfig, read from Kconfig alone (seconds):
# no KUnit suite of the series is built in while KUNIT=m (it would not
# link), as CONFIG_TODO_FREEZER_KUNIT_TEST once was.
. "$(dirname "$0")/lib.sh"

out=$LOGS/kconfig-check.out
name="build: under x86_64 allmodconfig no KUnit suite of the series is built in with KUNIT=m"
if "$TOP/scripts/host/kconfig-check.sh" allmodconfig >"$out" 2>&1; then
	expect "$name" "$out" '^\[[0-9:]+\] CONFIG_KUNIT=m$' \
		'none of the [0-9]+ options of the series is a built-in KUnit suite with KUNIT=m'
else
	fail "$name" "$out"
fi
