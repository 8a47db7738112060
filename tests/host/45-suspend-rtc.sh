#!/usr/bin/env bash
# A real suspend-to-idle woken by the UML RTC alarm, once per freezer: one
# boot each, the freezer chosen with the freezer= boot parameter (UML 6.12
# wakes only the first such suspend of a boot, see tests/guest/suspend_rtc.c).
# KUnit is off in these boots: the guest suite reports it once.
. "$(dirname "$0")/lib.sh"

for freezer in todo classic; do
	run_guest_job "suspend-to-idle with the $freezer freezer" rtc 120 \
		"$LOGS/suspend-rtc-$freezer.log" "freezer=$freezer"
done
