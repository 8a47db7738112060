#!/usr/bin/env bash
# trace.dat: the guest records one freeze per freezer with the host's
# trace-cmd (guest job tracedat, scripts/guest/tracecmd-lib.sh), written to the
# host through hostfs with the kernel's frozen_by of each freeze.  On the
# host, trace-cmd report must decode it, and its freezer:task_frozen
# events, counted per how=, must equal what the kernel counted in
# /sys/kernel/debug/freezer/frozen_by for that freeze (user tasks plus
# kernel threads): the trace and the kernel agree on every task frozen and
# how.  Every event must name the freezer that was selected.
# needs: build initramfs
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../../scripts/host/lib/tracedat.sh"

HOWS=(item in_place refrigerator)
tmp=$(scratch)
log=$LOGS/trace-dat.log
tracecmd_check
run_guest_job "trace.dat" tracedat 300 "$log" tracedat_dir="$tmp"

# frozen_by_sum FILE HOW: HOW's count in a frozen_by file, both lines.
frozen_by_sum() { grep -o " $2=[0-9]*" "$1" | awk -F= '{ n += $2 } END { print n + 0 }'; }

for freezer in todo classic; do
	dat=$tmp/$freezer.dat by=$tmp/$freezer.frozen_by
	name="trace.dat ($freezer): trace-cmd report's task_frozen events per how= equal the kernel's frozen_by"
	if [ ! -s "$dat" ] || [ ! -s "$by" ]; then
		fail "$name (the guest wrote no ${dat##*/} or ${by##*/})" "$log"
		continue
	fi
	cp "$dat" "$LOGS/trace-dat-$freezer.dat"
	if ! counts=$(tracedat_frozen "$dat" 2>"$tmp/report.err"); then
		fail "$name (trace-cmd report cannot read it)" "$tmp/report.err"
		continue
	fi
	echo "# frozen_by: $(tr '\n' ' ' <"$by")"
	echo "# trace.dat: $(tr '\n' ' ' <<<"$counts")"
	bad="" summary="" total=0
	for how in "${HOWS[@]}"; do
		traced=$(awk -v f="$freezer" -v h="$how" '$1 == f && $2 == h { print $3 }' <<<"$counts")
		kernel=$(frozen_by_sum "$by" "$how")
		total=$((total + kernel))
		summary+=" $how=${traced:-0}"
		[ "${traced:-0}" -eq "$kernel" ] || bad+=" $how: trace ${traced:-0}, frozen_by $kernel;"
	done
	others=$(awk -v f="$freezer" '$1 != f { printf " %s %s=%s", $1, $2, $3 }' <<<"$counts")
	if [ -n "$bad" ]; then
		fail "$name (differ:$bad)" "$by"
	elif [ "$total" -eq 0 ]; then
		fail "$name (the freeze froze nothing)" "$by"
	elif [ -n "$others" ]; then
		fail "$name (events of another freezer:$others)" "$by"
	else
		pass "$name:$summary"
	fi
done
rm -rf "$tmp"
