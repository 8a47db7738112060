#!/usr/bin/env bash
# A real suspend-to-idle woken by the UML RTC alarm, once per freezer: one
# boot each, the freezer chosen with the freezer= boot parameter (UML 6.12
# wakes only the first such suspend of a boot, see tests/guest/suspend_rtc.c).
# KUnit is off in these boots: the guest suite reports it once.
. "$(dirname "$0")/lib.sh"

for freezer in todo classic; do
	log=$LOGS/suspend-rtc-$freezer.log
	"$TOP/scripts/boot.sh" --flavour "$TEST_FLAVOUR" --job rtc --timeout 120 \
		--show none --log "$log" -- "freezer=$freezer" kunit.enable=0 >"$log.runner" 2>&1 && rc=0 || rc=$?
	python3 "$TOP/scripts/parse_console.py" --no-kunit "$log"
	case $rc in
	0 | 1) ;;
	*) fail "suspend-to-idle with the $freezer freezer: boot finished (runner exit $rc)" "$log.runner" ;;
	esac
done
