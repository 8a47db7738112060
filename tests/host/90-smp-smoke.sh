#!/usr/bin/env bash
# SMP smoke for "make test": build the smp flavour (x86_64, KCSAN +
# lockdep; incremental after the first build) and boot it under QEMU on 4
# vCPUs: KUnit task_todo and todo_freezer at boot, then freeze_scenarios
# once per freezer, task_todo (the kick of the generic entry code) and
# thaw_race (the frozen wait's lost wake-up: found re-enacted, absent with
# the fix).  KCSAN or lockdep reports in the todo list or freezer code
# fail; others are listed.  The full run is "make smp-test".
# needs: initramfs
# builds: make build FLAVOUR=smp
# timeout: 1200
. "$(dirname "$0")/lib.sh"

if ! make -C "$TOP" --no-print-directory build FLAVOUR=smp >"$LOGS/smp-smoke-build.log" 2>&1; then
	fail "smp: kernel 'smp' (x86_64) builds" "$LOGS/smp-smoke-build.log"
	exit 0
fi
pass "smp: kernel 'smp' (x86_64) builds"
smp_run smoke "$TIMEOUT" "$LOGS/smp-smoke.log"
