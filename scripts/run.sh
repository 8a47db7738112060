#!/usr/bin/env bash
# "make run": set everything up, build the run flavour and the initramfs,
# boot ./linux.  On a terminal the guest is a shell on that terminal (guest
# job "shell"; "exit" powers it off); otherwise, as in CI, the scripted job
# "run" shows the guest and powers it off.
# Usage: scripts/run.sh [--flavour F]
. "$(dirname "$0")/session.sh"

FLAVOUR=$(flavour_opt run "$@")
"$TOP/scripts/deps.sh"
"$TOP/scripts/source.sh"
"$TOP/scripts/build.sh" --flavour "$FLAVOUR"
"$TOP/scripts/initramfs.sh"
if [ -t 0 ] && [ -t 1 ]; then
	stage "booting ./linux (flavour $FLAVOUR) with a shell on this terminal"
	session_start --terminal --flavour "$FLAVOUR" --job shell
else
	stage "booting ./linux (flavour $FLAVOUR)"
	session_start --flavour "$FLAVOUR" --job run --timeout "${TIMEOUT:-300}"
fi
session_wait
