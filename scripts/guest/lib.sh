# shellcheck shell=sh
# Shared by the guest jobs that run test programs (test.sh, stress.sh);
# source it, do not run it.  run_prog prints the markers the host reads to
# know which program each TAP block is from; kmemleak_check asks kmemleak
# for leaks left by everything that ran.  A failing program sets rc=1.
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

# tap_single NAME FILE CONFIG: the head of a TAP document of one test,
# NAME, that reads FILE; without FILE the test is skipped (CONFIG is not
# set) and tap_single returns 1.
tap_single() {
	echo "TAP version 13"
	echo "1..1"
	[ -e "$2" ] && return 0
	echo "ok 1 $1 # SKIP no $2 ($3)"
	return 1
}

# kmemleak reports an object only once it has been unreferenced for a
# while and seen by two scans, hence the wait between them.
kmemleak_check() {
	km=/sys/kernel/debug/kmemleak
	tap_single kmemleak.no_leaks "$km" CONFIG_DEBUG_KMEMLEAK || return 0
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

# cmdline_param NAME DEFAULT: the value of NAME=... on the kernel command
# line, or DEFAULT.
cmdline_param() {
	value=$2
	for arg in $(cat /proc/cmdline); do
		case $arg in "$1"=*) value=${arg#*=} ;; esac
	done
	echo "$value"
}
