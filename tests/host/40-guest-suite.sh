#!/usr/bin/env bash
# Boot the test kernel with the guest test job: KUnit runs at boot, then
# every program in tests/guest/ whose job line names "test" (/tests/JOBS);
# one KTAP document, one result per KUnit case and per program test, plus
# a check that the kernel log has no splats.
# GUEST='PROG[:GLOB],...' and FREEZER= (make test, docs/testing.md): only
# those tests; KUnit only if a PROG glob matches "kunit", its GLOB then
# KUnit's kunit.filter_glob.
# needs: build initramfs
# timeout: 900
. "$(dirname "$0")/lib.sh"

params=() kunit=(--kunit-suites "$(kunit_suites "$(obj_dir "$TEST_FLAVOUR")/.config")")
if [ -n "${GUEST:-}${FREEZER:-}" ]; then
	params=(guest="${GUEST:-*}" ${FREEZER:+freezer="$FREEZER"}) kunit=()
	kunit_glob=$(guest_kunit_glob "${GUEST:-*}") || params+=(kunit.enable=0)
	[ -z "$kunit_glob" ] || params+=(kunit.filter_glob="$kunit_glob")
	echo "# guest tests: ${GUEST:-*}${FREEZER:+ (the $FREEZER freezer)}"
fi
boot_job "guest suite" test "$TIMEOUT" "$LOGS/guest-suite.log" "$TEST_FLAVOUR" \
	"${kunit[@]}" -- "${params[@]}"
