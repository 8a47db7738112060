#!/bin/sh
# "make test": run every guest test program; each prints kselftest TAP.
# The host reads the markers to know which program each TAP block is from.
# Last, kmemleak is asked for leaks left by everything that ran.
rc=0
run_prog() {
	name=$1
	shift
	echo "TODO-PROG-BEGIN: $name"
	"$@"
	status=$?
	echo "TODO-PROG-END: $name $status"
	[ "$status" -eq 0 ] || rc=1
}

# kmemleak reports an object only once it has been unreferenced for a
# while and seen by two scans, hence the wait between them.
kmemleak_check() {
	km=/sys/kernel/debug/kmemleak
	echo "TAP version 13"
	echo "1..1"
	if [ ! -w $km ]; then
		echo "ok 1 kmemleak.no_leaks # SKIP no $km (CONFIG_DEBUG_KMEMLEAK)"
		return 0
	fi
	echo scan >$km
	sleep 6
	echo scan >$km
	leaks=$(grep -c '^unreferenced object' $km)
	if [ "$leaks" -eq 0 ]; then
		echo "ok 1 kmemleak.no_leaks"
		return 0
	fi
	sed 's/^/# /' $km | head -n 60
	echo "not ok 1 kmemleak.no_leaks # $leaks unreferenced objects"
	return 1
}

for prog in /tests/*; do
	run_prog "${prog##*/}" "$prog"
done
run_prog kmemleak kmemleak_check
exit $rc
