#!/bin/sh
# "make bench": freeze/thaw latency per task kind and size, todo against
# classic in this one boot, the in-kernel floor, and allocations per task.
# Parameters from the kernel command line (scripts/host/bench.sh sets them):
#   sizes=10,100,1000,4000   tasks per measurement point
#   reps=7                   freezes per freezer and point
#   kinds=spin,pause,pipe,nanosleep,threads,uring,cgroup2
#   spin_max=100             larger sizes are skipped for spinners
#                            and SQPOLL threads (both run after a thaw)
#   alloc_n=1000             tasks for the allocation count (at most
#                            the largest size measured for the kind)
#   timeline=KIND,N          also one traced freeze per freezer of N
#                            tasks of KIND, printed as TIMELINE blocks
#                            for the host's timeline.png (default: none)
# (make bench SIZES= -> scripts/host/bench.sh --sizes -> sizes=: one word.)
# Prints "BENCH ..." lines for the host and "bench: ..." progress lines;
# tests/guest/bench_freeze does the measuring.

# shellcheck source=SCRIPTDIR/../job-lib.sh
. "$(dirname "$0")/../job-lib.sh"

# number NAME VALUE DEFAULT: VALUE if it is a positive integer.
number() {
	case $2 in
	'' | *[!0-9]* | 0)
		echo "bench: $1=$2 is not a positive number; using $3" >&2
		echo "$3" ;;
	*) echo "$2" ;;
	esac
}

sizes=$(cmdline_param sizes 10,100,1000,4000)
reps=$(number reps "$(cmdline_param reps 7)" 7)
kinds=$(cmdline_param kinds spin,pause,pipe,nanosleep,threads,uring,cgroup2)
spin_max=$(number spin_max "$(cmdline_param spin_max 100)" 100)
alloc_n=$(number alloc_n "$(cmdline_param alloc_n 1000)" 1000)
timeline=$(cmdline_param timeline "")
B=/tests/bench_freeze
rc=0
start=$(cut -d' ' -f1 /proc/uptime)

echo "BENCH info release=$(uname -r) sizes=$sizes reps=$reps kinds=$kinds spin_max=$spin_max alloc_n=$alloc_n"
if [ ! -r /sys/kernel/debug/freezer_bench/last ] || [ ! -w /sys/power/freezer ]; then
	echo "BENCH error this kernel has no /sys/kernel/debug/freezer_bench or no /sys/power/freezer: build the bench flavour (make build FLAVOUR=bench)"
	exit 1
fi

# What one read of each UML clock costs, as KUnit suite um_time measured
# it at boot (CONFIG_UML_TIME_KUNIT_TEST), for the report to set against
# ktime_get_ns(), the clocksource.
kunit_clocks=/sys/kernel/debug/kunit/um_time/results
if [ -r "$kunit_clocks" ]; then
	sed -n 's/.*um_clock_resolution: \(.*\): smallest step \([0-9]*\) ns, \([0-9]*\) ns per read$/\1|\2|\3/p' \
		"$kunit_clocks" | while IFS='|' read -r name step cost; do
		echo "BENCH clock name=$(echo "$name" | tr ' ' +) step_ns=$step read_ns=$cost"
	done
fi

# Info messages (each freeze logs about ten) would go out through the
# console inside the measured freeze; warnings and worse still show.
echo 5 >/proc/sys/kernel/printk

sizes=$(echo "$sizes" | tr ',' ' ')
kinds=$(echo "$kinds" | tr ',' ' ')

# The fixed cost: the guest's own few tasks, nothing else.
echo "bench: base (no extra tasks): $reps freezes per freezer"
$B base "$reps" || rc=1

for kind in $kinds; do
	for n in $sizes; do
		if { [ "$kind" = spin ] || [ "$kind" = uring ]; } && [ "$n" -gt "$spin_max" ]; then
			echo "BENCH skip kind=$kind n=$n reason=spin_max=$spin_max"
			echo "bench: $kind n=$n skipped (spin_max=$spin_max)"
			continue
		fi
		echo "bench: $kind n=$n: $reps freezes per freezer, alternating todo and classic"
		$B point "$kind" "$n" "$reps" || rc=1
	done
done

# The picture of one freeze per freezer, before the floor's threads exist.
if [ -n "$timeline" ]; then
	tkind=${timeline%,*}
	tn=${timeline#*,}
	echo "bench: timeline $tkind n=$tn: one traced freeze per freezer"
	$B timeline "$tkind" "$tn" || rc=1
fi

# The floor last: its kernel threads stay, and would lengthen every later
# walk of the task list.
for n in $sizes; do
	echo "bench: floor n=$n: $reps runs"
	$B floor "$n" "$reps" || rc=1
done

# Allocations: the largest size measured for the kind, up to alloc_n.
for kind in $kinds; do
	an=0
	for n in $sizes; do
		[ "$n" -le "$alloc_n" ] || continue
		case $kind in spin | uring) [ "$n" -le "$spin_max" ] || continue ;; esac
		[ "$n" -le "$an" ] || an=$n
	done
	if [ "$an" -eq 0 ]; then
		echo "bench: $kind: no size up to $alloc_n to count allocations with"
		continue
	fi
	echo "bench: $kind n=$an: counting allocations"
	$B alloc "$kind" "$an" || rc=1
done

echo todo >/sys/power/freezer
end=$(cut -d' ' -f1 /proc/uptime)
echo "BENCH end rc=$rc guest_s=$(awk "BEGIN { printf \"%.0f\", $end - $start }")"
exit $rc
