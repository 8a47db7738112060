#!/usr/bin/env bash
# "make smp-test" (not part of make test: no number in its name): boot the
# smp flavour (x86_64 under QEMU, 4 vCPUs, KCSAN + lockdep) with the full
# smp job: KUnit task_todo and todo_freezer, task_todo, freeze_scenarios
# and freeze_compat on both freezers, thaw_race (1000 cycles per freezer),
# freeze_bugs, the SMP hammer (SMP_HAMMER_CYCLES, default 200, per freezer)
# and SMP_CYCLES (default 1000) freeze/thaw cycles under churn spread over
# all CPUs.  SMP_TIMEOUT overrides the time limit.
# needs: build initramfs
. "$(dirname "$0")/lib.sh"

cycles=${SMP_CYCLES:-1000}
hammer=${SMP_HAMMER_CYCLES:-200}
smp_run full "${SMP_TIMEOUT:-$((3600 + 3 * cycles + 4 * hammer))}" "$LOGS/smp-full.log" \
	smp_cycles="$cycles" smp_hammer_cycles="$hammer"
