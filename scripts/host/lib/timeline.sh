# shellcheck shell=bash
# The timeline picture of "make demo" and "make bench TIMELINE=": one
# freeze per freezer, drawn from the console log.
. "${BASH_SOURCE[0]%/*}/base.sh"

# draw_timeline LOG OUT TITLE: the picture of one freeze per freezer, one
# lane per task, from the TIMELINE blocks a guest printed in the console
# LOG (tests/guest/timeline.h): scripts/host/timeline.py writes OUT/timeline.dat
# and OUT/timeline.gp, gnuplot draws OUT/timeline.png.  For "make demo" and
# "make bench TIMELINE=kind,N".  Prints the paths of the PNG and its data.
draw_timeline() {
	local log=$1 out=$2 title=$3
	command -v gnuplot >/dev/null ||
		die "no gnuplot: cannot draw the timeline" "run: make deps (package gnuplot-nox)"
	mkdir -p "$out"
	rm -f "$out"/timeline.{png,dat,gp}
	grep -q '^TIMELINE-END ' "$log" ||
		die "no timeline in ${log#"$TOP"/}: the guest traced no freeze" \
			"the kernel needs tracepoints and CONFIG_FREEZER_BENCH: the bench or test flavour;" \
			"see the guest's reason: grep -i timeline $log"
	run python3 "$TOP/scripts/host/timeline.py" --log "$log" --out "$out" --title "$title" ||
		die "scripts/host/timeline.py could not read the timeline in $log" \
			"re-run it by hand: python3 scripts/host/timeline.py --log $log --out $out"
	# gnuplot warns about every series a panel has no point for (a classic
	# freeze queues no item): keep its output in a log, shown on failure.
	run_logged "$out/timeline.gnuplot.log" gnuplot "$out/timeline.gp" ||
		die "gnuplot could not draw $out/timeline.png" "see $out/timeline.gp"
	[ -s "$out/timeline.png" ] || die "gnuplot wrote no $out/timeline.png" "see $out/timeline.gp"
	info "timeline picture: ${out#"$TOP"/}/timeline.png"
	info "timeline data:    ${out#"$TOP"/}/timeline.dat"
}
