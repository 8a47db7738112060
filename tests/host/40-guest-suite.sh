#!/usr/bin/env bash
# Boot the test kernel with the guest test job: KUnit runs at boot, then
# every program in tests/guest/; one KTAP document, one result per KUnit
# case and per program test, plus a check that the kernel log has no splats.
# needs: build initramfs
. "$(dirname "$0")/lib.sh"

boot_job "guest suite" test "${GUEST_TIMEOUT:-900}" "$LOGS/guest-suite.log" "$TEST_FLAVOUR" \
	--kunit-suites "$(kunit_suites "$(obj_dir "$TEST_FLAVOUR")/.config")"
