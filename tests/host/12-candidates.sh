#!/usr/bin/env bash
# The upstream candidates alone apply to the pristine source, build and
# boot, and freeze with each freezer (scripts/host/check-candidates.sh).
# needs: initramfs
# builds: scripts/host/check-candidates.sh --build-only
. "$(dirname "$0")/lib.sh"

log=$LOGS/candidates.log
rm -f "$log"
"$TOP/scripts/host/check-candidates.sh" --show none >"$log.runner" 2>&1 && rc=0 || rc=$?
if [ -s "$log" ]; then
	console_results candidates "$log"
	boot_finished candidates "$rc" "$log.runner"
else
	fail "candidates: apply, build and boot alone (exit $rc)" "$log.runner"
fi
