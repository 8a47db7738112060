#!/usr/bin/env bash
# The freeze tests must not rely on pm_test_delay lasting its nominal
# seconds: it is a busy wait counted in delay loops calibrated at boot, and
# a calibration on a busy host makes it shorter (a "1 s" freeze of 783 ms
# failed CI once).  Boot with lpj= a quarter of what this machine
# calibrates, so "1 s" lasts about 250 ms, and run the tests that measure
# frozen tasks' pauses (scripts/guest/jobs/shortdelay-job.sh).
# needs: build initramfs
. "$(dirname "$0")/lib.sh"

# The delay loop calibrated by an earlier UML boot here (the guest suite's,
# or any other), or a typical value when this test runs first.
lpj=$(sed -n 's/.*Calibrating delay loop.*(lpj=\([0-9]*\)).*/\1/p' "$LOGS/guest-suite.log" \
	"$LOGS"/candidates.log "$LOGS"/boot-*.log 2>/dev/null | head -n 1 || true)
lpj=$(( ${lpj:-28000000} / 4 ))
run_guest_job "short delay: boot with lpj=$lpj" shortdelay 300 "$LOGS/short-delay.log" "lpj=$lpj"
