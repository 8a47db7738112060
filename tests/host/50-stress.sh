#!/usr/bin/env bash
# Freezer stress: boot the test kernel with the stress job, which runs
# tests/guest/stress_freeze: STRESS_CYCLES (default 100) freeze/thaw cycles
# of the todo freezer while about 200 tasks fork, exec, create threads and
# signal each other, then a kmemleak scan.  One result per TAP line, plus a
# check that the kernel log has no splats.  "make stress" runs this with
# CYCLES=1000.  KUnit is off for this boot: 40-guest-suite.sh reports it.
# needs: build initramfs
. "$(dirname "$0")/lib.sh"

cycles=${STRESS_CYCLES:-100}
# A cycle takes well under a second on the debug kernel; the rest is the
# boot, starting the churners and the kmemleak scan.
timeout=${STRESS_TIMEOUT:-$((600 + cycles))}
log=$LOGS/stress-$cycles.log
"$TOP/scripts/boot.sh" --flavour "$TEST_FLAVOUR" --job stress --timeout "$timeout" \
	--show none --log "$log" -- stress_cycles="$cycles" kunit.enable=0 \
	>"$log.runner" 2>&1 && rc=0 || rc=$?
# The kernel log check is named as in 40-guest-suite.sh: say which boot.
python3 "$TOP/scripts/parse_console.py" --no-kunit "$log" |
	sed -E 's/^((not )?ok - )kernel:/\1stress: kernel:/'
case $rc in
0 | 1) ;; # the guest ran the stress; its results are above
*) fail "stress: boot finished (runner exit $rc)" "$log.runner" ;;
esac
