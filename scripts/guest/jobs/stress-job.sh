#!/bin/sh
# Freezer stress: /tests/stress_freeze with cycles=N freeze/thaw
# cycles (kernel command line; default 100) on the freezer named by
# stress_freezer= (default todo), then a kmemleak scan.  Booted by
# tests/host/50-stress.sh ("make test", "make stress").
# shellcheck source=SCRIPTDIR/../job-lib.sh
. "$(dirname "$0")/../job-lib.sh"

cycles=$(cmdline_param cycles 100)
freezer=$(cmdline_param stress_freezer todo)
case $cycles in '' | *[!0-9]*)
	echo "stress: cycles=$cycles is not a number; using 100"
	cycles=100 ;;
esac

job() {
	run_prog stress_freeze /tests/stress_freeze "$cycles" "$freezer"
	run_prog kmemleak-after-stress kmemleak_check
}
ktap_job job
