# shellcheck shell=bash
# sleepgraph's page of a suspend-to-idle that the guest captured.
. "${BASH_SOURCE[0]%/*}/base.sh"

# sleepgraph_render DIR: DIR/sleepgraph.html, the kernel tree's sleepgraph
# (tools/power/pm-graph, as Debian ships no pm-graph package) run on the
# host on a suspend-to-idle captured in the guest (tc_s2idle in
# scripts/guest/tracecmd-lib.sh): DIR/sleepgraph_dmesg.txt and
# DIR/sleepgraph_ftrace.txt.  Run on the host, not in the guest: its
# network probe fails there (no CONFIG_INET).  Its output in
# DIR/sleepgraph.log; a "TEST FAILED" in it is reported (docs/trace.md says
# what it meant on UML before the cpuidle driver, arch-um-patches/0016).
sleepgraph_render() {
	local dir=$1 sg=$SRC/tools/power/pm-graph/sleepgraph.py f
	[ -f "$sg" ] || die "no sleepgraph at ${sg#"$TOP"/}" "unpack the kernel source: make source"
	for f in "$dir"/sleepgraph_{dmesg,ftrace}.txt; do
		[ -s "$f" ] || die "no capture for sleepgraph: ${f#"$TOP"/} is missing or empty" \
			"the guest's suspend-to-idle failed; see its lines in the console log"
	done
	rm -f "$dir/sleepgraph.html"
	run_logged "$dir/sleepgraph.log" python3 "$sg" -dmesg "$dir/sleepgraph_dmesg.txt" \
		-ftrace "$dir/sleepgraph_ftrace.txt" ||
		die "sleepgraph could not render the capture in ${dir#"$TOP"/}" "see $dir/sleepgraph.log"
	[ -s "$dir/sleepgraph.html" ] || die "sleepgraph wrote no ${dir#"$TOP"/}/sleepgraph.html" "see $dir/sleepgraph.log"
	if grep -q 'FAILED' "$dir/sleepgraph.log"; then
		info "warning: sleepgraph says: $(grep -m1 'FAILED' "$dir/sleepgraph.log")"
		info "  (no timekeeping_freeze in the trace: was the kernel built with CONFIG_CPU_IDLE? docs/trace.md)"
	fi
	info "sleepgraph: ${dir#"$TOP"/}/sleepgraph.html"
}
