#!/bin/sh
# "make test": run every guest test program; each prints kselftest TAP.
# The host reads the markers to know which program each TAP block is from.
rc=0
for prog in /tests/*; do
	name=${prog##*/}
	echo "TODO-PROG-BEGIN: $name"
	"$prog"
	status=$?
	echo "TODO-PROG-END: $name $status"
	[ "$status" -eq 0 ] || rc=1
done
echo "kernel release: $(uname -r)"
exit $rc
