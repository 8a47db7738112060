#!/bin/sh
# "make test": run every guest test program; each prints kselftest TAP.
# The host reads the markers to know which program each TAP block is from.
# Last, kmemleak is asked for leaks left by everything that ran.
# The stress programs (stress_*) are left to the stress job (stress.sh),
# which the host boots separately.
. "$(dirname "$0")/lib.sh"

for prog in /tests/*; do
	case ${prog##*/} in stress_*) continue ;; esac
	run_prog "${prog##*/}" "$prog"
done
run_prog kmemleak kmemleak_check
exit $rc
