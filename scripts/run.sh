#!/usr/bin/env bash
# "make run": boot ./linux of the run flavour (make builds it and the
# initramfs first).  On a terminal the guest is a shell on that terminal
# (guest job "shell"; "exit" powers it off); otherwise, as in CI, the
# scripted job "run" shows the guest and powers it off.
# Usage: scripts/run.sh [--flavour F]
. "$(dirname "$0")/session.sh"

FLAVOUR=$(flavour_opt run "$@")
[ "$(flavour_arch "$FLAVOUR")" != um ] || link_top "$FLAVOUR"
if [ -t 0 ] && [ -t 1 ]; then
	stage "booting ./linux (flavour $FLAVOUR) with a shell on this terminal"
	session_start --terminal --flavour "$FLAVOUR" --job shell
else
	stage "booting ./linux (flavour $FLAVOUR)"
	session_start --flavour "$FLAVOUR" --job run --timeout "${TIMEOUT:-300}"
fi
session_wait
