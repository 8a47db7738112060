#!/usr/bin/env bash
# Boot runner: start a built ./linux as an ordinary host process with the
# project's initramfs, run one guest job, and return the guest's exit status.
# The console goes to stdout (never stdin, which CI cannot poll) and, in
# full, to build/logs/.  A wall-clock timeout kills the whole UML process
# group; afterwards no UML host process may be left behind.
# The smp flavour is an x86_64 bzImage: it boots the same way under
# qemu-system-x86_64 (-smp $SMP_CPUS, default 4; KVM when /dev/kvm is
# usable, else multi-threaded TCG), with the console on its serial port.
# The command line of the session API (scripts/session.sh: session_start,
# then session_wait), which scripts use directly to reach a running guest.
#
# Usage: scripts/boot.sh [--flavour F] [--job JOB] [--timeout S] [--mem M]
#                        [--show all|guest|none] [--log FILE] [--wrap PROG]
#                        [-- KERNEL-ARGS...]
# --wrap PROG runs "PROG ./linux ARGS..." instead of ./linux (scripts/trace.sh
# runs ./linux under strace this way); PROG must stay in the process group.
# Exit: the guest's status; 124 timeout; 125 no exit line; 126 host problem.
. "$(dirname "$0")/session.sh"

flavour=$(cat "$BUILD/LAST_FLAVOUR" 2>/dev/null || echo run)

session_start --flavour "$flavour" "$@"
session_wait
