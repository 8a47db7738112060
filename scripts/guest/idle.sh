#!/bin/sh
# Keep the guest up for tests driven from the host (mconsole): a spinner
# and a sleeper whose pids are printed, then wait idle_seconds= (kernel
# command line; default 30) and power off.
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"

cat /dev/zero >/dev/null &
echo "TODO-SPINNER: $!"
sleep 1000 &
echo "TODO-SLEEPER: $!"
echo "TODO-READY"
sleep "$(cmdline_param idle_seconds 30)"
