#!/usr/bin/env bash
# Boot the test kernel with the guest test job: KUnit runs at boot, then
# every program in tests/guest/.  One result per KUnit case and per TAP line,
# plus a check that the kernel log has no splats.
# needs: build initramfs
. "$(dirname "$0")/lib.sh"

log=$LOGS/guest-suite.log
"$TOP/scripts/boot.sh" --flavour "$TEST_FLAVOUR" --job test --timeout "${GUEST_TIMEOUT:-900}" \
	--show none --log "$log" >"$log.runner" 2>&1 && rc=0 || rc=$?
python3 "$TOP/scripts/parse_console.py" "$log"

kunit_suites_ran "$log" "$(obj_dir "$TEST_FLAVOUR")/.config"
case $rc in
0 | 1) ;; # the guest ran its programs; their results are above
*) fail "guest suite: boot finished (runner exit $rc)" "$log.runner" ;;
esac
