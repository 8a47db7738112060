#!/usr/bin/env bash
# Boot runner, the command line of the session API (scripts/host/lib/session.sh):
# boot a built ./linux (the smp flavour under QEMU) with one guest job and
# return the guest's exit status.  The console goes to stdout and, in
# full, to build/logs/; a timeout kills the whole process group.
# Usage: scripts/host/boot.sh [--flavour F] [--job JOB] [--timeout S] [--mem M]
#          [--show all|guest|none] [--log FILE] [--wrap PROG] [-- KERNEL-ARGS...]
# --wrap PROG runs "PROG ./linux ARGS..." (strace, in the process group).
# Exit: the guest's status; 124 timeout; 125 no exit line; 126 host problem.
. "$(dirname "$0")/lib/session.sh"
help_if_asked "$@"

flavour=$(default_flavour boot)
session_start --flavour "$flavour" "$@"
session_wait
