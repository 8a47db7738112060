#!/usr/bin/env bash
# "make smp-test" (not part of make test: no number in its name): boot the
# smp flavour (x86_64 under QEMU, 4 vCPUs, KCSAN + lockdep) with the full
# smp job: KUnit task_todo and todo_freezer, task_todo, freeze_scenarios
# and the compat_* programs on both freezers, thaw_race (1000 cycles per freezer),
# freeze_bugs, the SMP hammer (HAMMER, default 200, per freezer) and CYCLES
# (default 1000) freeze/thaw cycles under churn spread over all CPUs.
# TIMEOUT overrides the time limit, which grows with CYCLES and HAMMER (so
# no "# timeout:" line).  (scripts/host/test.sh --cycles, --hammer,
# --timeout set them; make smp-test CYCLES=, HAMMER=, TIMEOUT=.)
# needs: build initramfs
. "$(dirname "$0")/lib.sh"

cycles=${CYCLES:-1000}
hammer=${HAMMER:-200}
smp_run full "${TIMEOUT:-$((3600 + 3 * cycles + 4 * hammer))}" "$LOGS/smp-full.log" \
	cycles="$cycles" hammer="$hammer"
