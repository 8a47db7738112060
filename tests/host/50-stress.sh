#!/usr/bin/env bash
# Freezer stress: boot the test kernel with the stress job, which runs
# tests/guest/stress_freeze: CYCLES (default 100) freeze/thaw cycles
# of the todo freezer while about 200 tasks fork, exec, create threads and
# signal each other, then a kmemleak scan.  One result per TAP line, plus a
# check that the kernel log has no splats, as subtest "stress".  "make
# stress" runs this with CYCLES=1000 (scripts/host/test.sh --cycles); TIMEOUT
# overrides the time limit, which grows with CYCLES (so no "# timeout:"
# line).  KUnit is off for this boot:
# 40-guest-suite.sh reports it.
# needs: build initramfs
. "$(dirname "$0")/lib.sh"

cycles=${CYCLES:-100}
# A cycle takes well under a second on the test kernel; the rest is the
# boot, starting the churners and the kmemleak scan.
run_guest_job stress stress "${TIMEOUT:-$((600 + cycles))}" "$LOGS/stress-$cycles.log" \
	cycles="$cycles"
