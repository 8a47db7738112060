#!/usr/bin/env bash
# "make race": the race lab.  Boots the x86_64 kernel with debug info
# (flavour smp-gdb) under QEMU with 4 vCPUs and its gdb stub, runs guest
# job "race" (scripts/guest/jobs/race-job.sh, tests/guest/race_lab.c) and has gdb
# narrate each step of each race from scripts/gdb/race.py: which CPU, which
# task, which line, which values.  Two races, each against the 2005 (or
# first) design, re-enacted by a kernel knob, and against today's code:
#   walk  the todo list walked without its lock (2005) while the other CPU
#         cancels and frees the next block: a use-after-free; today's
#         walk on a detached list survives it
#   thaw  the frozen wait's recheck with its load before its store (this
#         series' first version, SB) against the thaw: the task stays
#         frozen after the thaw; today's recheck under freezer_lock does not
# Kernel knobs hold one CPU at the racing step until the other is done,
# so each interleaving happens in the same order every time, and gdb's
# all-stop mode suffices (docs/race.md).
#
# Usage: scripts/host/race.sh [--race walk|thaw|all] [--timeout S]   (900 s)
# Exit: gdb's status (scripts/host/debug.sh --batch); 124 on timeout.  The
# guest's verdicts (a race against today's code that fails, or a
# re-enactment that does not show its bug) are its KTAP document's, on
# the console log.
. "$(dirname "$0")/lib/opts.sh"
help_if_asked "$@"

race=all timeout=900
opts_parse 'race:walk|thaw|all timeout:number' "$@"

# The first stop: the hold of the first race the guest runs.
run "$TOP/scripts/host/debug.sh" --flavour smp-gdb --job race --timeout "$timeout" \
	--breaks "race_walk_hold todo_thaw_race_hold" --batch "$TOP/scripts/gdb/race.py" --kernel-arg race="$race"
