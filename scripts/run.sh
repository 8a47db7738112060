#!/usr/bin/env bash
# "make run": set everything up, build the run flavour and the initramfs,
# boot ./linux, show the guest, power it off.
. "$(dirname "$0")/lib.sh"

FLAVOUR=${FLAVOUR:-run}
"$TOP/scripts/deps.sh"
"$TOP/scripts/source.sh"
"$TOP/scripts/build.sh" "$FLAVOUR"
"$TOP/scripts/initramfs.sh"
stage "booting ./linux (flavour $FLAVOUR)"
exec "$TOP/scripts/boot.sh" --flavour "$FLAVOUR" --job run --timeout "${TIMEOUT:-300}"
