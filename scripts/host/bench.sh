#!/usr/bin/env bash
# "make bench": what does the todo freezer cost compared with the classic
# one?  Boots ./linux of the bench flavour once (same patches, no debug
# options; make bench builds it) with the bench job (scripts/guest/jobs/bench-job.sh),
# which freezes and thaws N tasks of each kind, alternating todo and classic
# through /sys/power/freezer, and measures the in-kernel floor and the
# allocations per task; then writes the results to the output directory:
# results.csv, summary.csv, alloc.csv, table.txt (also printed) and
# latency.png (gnuplot), with the console log as console.log.  With
# --timeline KIND,N the guest also freezes N tasks of KIND once per freezer
# with the kernel's tracepoints on, and timeline.png shows that freeze, one
# lane per task, as "make demo" does (draw_timeline in scripts/host/lib/timeline.sh), with
# its data in timeline.dat.
#
# Usage: scripts/host/bench.sh [--sizes 10,100,1000,4000] [--reps 7]
#          [--kinds spin,pause,pipe,nanosleep,threads,uring,cgroup2] [--spin-max 100]
#          [--alloc-n 1000] [--timeline KIND,N] [--out DIR] [--timeout S]
#          [--mem M]
#          [--flavour bench]   (the smoke test of "make test" uses the test
#          kernel, which also has CONFIG_FREEZER_BENCH: no third build)
# (make bench SIZES= REPS= KINDS= SPIN_MAX= TIMELINE= TIMEOUT= pass them.)
# --timeout S: by default an estimate from the sizes and kinds.
. "$(dirname "$0")/lib/session.sh"
. "$(dirname "$0")/lib/timeline.sh"
help_if_asked "$@"

ALL_KINDS=spin,pause,pipe,nanosleep,threads,uring,cgroup2
sizes=10,100,1000,4000 reps=7 kinds=$ALL_KINDS spin_max=100 timeline="" alloc_n=1000
out=$BUILD/bench timeout="" mem=2G flavour=$(default_flavour bench)
opts_parse 'sizes reps:number kinds spin-max:number alloc-n:number timeline out timeout:number mem
	flavour:flavour' "$@"

# Check the parameters here: the guest can only fall back to defaults.
# (opts_parse checked the numbers.)
[[ $sizes =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] ||
	die "sizes must be a comma-separated list of task counts, not '$sizes'" "e.g. SIZES=10,100,1000"
for n in ${sizes//,/ }; do
	[ "$n" -le 8192 ] || die "size $n is too large" "the kernel's floor and the bench take up to 8192 tasks"
done
for k in ${kinds//,/ }; do
	[[ ,$ALL_KINDS, == *,$k,* ]] || die "unknown task kind '$k'" "kinds are: $ALL_KINDS"
done
if [ -n "$timeline" ]; then
	[[ $timeline =~ ^([a-z0-9]+),([1-9][0-9]*)$ ]] ||
		die "the timeline point must be KIND,N, not '$timeline'" "e.g. TIMELINE=pipe,100"
	[[ ,$ALL_KINDS, == *,${BASH_REMATCH[1]},* ]] ||
		die "unknown task kind '${BASH_REMATCH[1]}' in the timeline point" "kinds are: $ALL_KINDS"
	[ "${BASH_REMATCH[2]}" -le 8192 ] ||
		die "timeline size ${BASH_REMATCH[2]} is too large" "the bench takes up to 8192 tasks"
fi

# Rough guest time: creating and reaping tasks, and thawing spinners,
# which leave the frozen state one per scheduler tick.  Generous.
estimate_timeout() {
	local n total=300 k nk
	nk=$(tr ',' '\n' <<<"$kinds" | grep -vc '^spin$' || true)
	for n in ${sizes//,/ }; do
		total=$((total + nk * (n / 20 + 2 * reps * (n / 200 + 1))))
		if [[ ,$kinds, == *,spin,* ]] && [ "$n" -le "$spin_max" ]; then
			total=$((total + (2 * reps + 2 + 6) * (n / 50 + 1)))
		fi
		total=$((total + reps * (n / 500 + 1)))
	done
	[ -z "$timeline" ] || total=$((total + 60 + ${timeline#*,} / 10))
	echo "$total"
}
[ -n "$timeout" ] || timeout=$(estimate_timeout)

# progress LINE: "bench:" lines as progress, "BENCH error" lines as they come.
progress() {
	case $1 in
	"bench: "*) info "  ${1#bench: }" ;;
	"BENCH error"*) printf '[%s]   guest error: %s\n' "$(ts)" "${1#BENCH error }" ;;
	esac
}

main() {
	local start=$SECONDS log obj rc=0
	obj=$(obj_dir "$flavour")
	[ -x "$obj/linux" ] || die "no $flavour kernel at $obj/linux" "build it: make build FLAVOUR=$flavour"
	mkdir -p "$out"
	rm -f "$out"/{results,summary,alloc}.csv "$out"/table.txt "$out"/latency.png "$out"/plot-*.dat \
		"$out"/timeline.{png,dat,gp}
	log=$out/console.log
	stage "bench: sizes $sizes, $reps repetitions per freezer, kinds $kinds (spinners up to $spin_max), timeout ${timeout}s"
	# Follow the console log for progress while the kernel runs (the
	# runner's own lines go straight to the terminal).
	session_start --flavour "$flavour" --job bench --timeout "$timeout" --mem "$mem" \
		--show none --log "$log" -- sizes="$sizes" reps="$reps" \
		kinds="$kinds" spin_max="$spin_max" alloc_n="$alloc_n" \
		${timeline:+timeline="$timeline"}
	session_wait_line --each progress '' || true
	session_wait || rc=$?
	case $rc in
	0) ;;
	1) info "the bench job reported errors (see above and ${log#"$TOP"/}); writing what it measured" ;;
	*) die "the bench boot failed (runner exit $rc)" "console log: $log" ;;
	esac
	stage "bench: results in ${out#"$TOP"/}/"
	run python3 "$TOP/scripts/host/bench_report.py" --log "$log" --out "$out" --vmlinux "$obj/vmlinux"
	command -v gnuplot >/dev/null || die "no gnuplot: cannot draw latency.png" "run: make deps (package gnuplot-nox)"
	run gnuplot "$out/latency.gp"
	[ -s "$out/latency.png" ] || die "gnuplot wrote no $out/latency.png" "see $out/latency.gp"
	if [ -n "$timeline" ]; then
		stage "bench: the timeline of one freeze per freezer, ${timeline%,*} n=${timeline#*,}"
		draw_timeline "$log" "$out" "make bench TIMELINE=$timeline: one freeze and thaw of ${timeline#*,} tasks of kind ${timeline%,*}, todo vs classic freezer"
	fi
	info "wrote ${out#"$TOP"/}/{table.txt,results.csv,summary.csv,alloc.csv,latency.png,console.log} in $((SECONDS - start)) s"
	return "$rc"
}

main
