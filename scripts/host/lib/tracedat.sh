# shellcheck shell=bash
# trace.dat: a freeze recorded in the guest by the host's trace-cmd
# (scripts/guest/tracecmd-lib.sh), read here with trace-cmd report.
. "${BASH_SOURCE[0]%/*}/base.sh"

# tracecmd_check: die unless trace-cmd is installed.
tracecmd_check() {
	command -v trace-cmd >/dev/null ||
		die "trace-cmd is not installed: the guest runs the host's trace-cmd to record the trace.dat" \
			"run: make deps (it installs the Debian package trace-cmd), or: apt-get install -y trace-cmd"
}

# tracedat_arg NAME FILE: the kernel parameter NAME=FILE that tells the
# guest where on the host to write a trace.dat (or a directory), FILE made
# absolute; dies if the command line cannot carry it.
tracedat_arg() {
	local path
	path=$(realpath -m "$2")
	[[ $path != *[[:space:]]* ]] ||
		die "the guest cannot be told to write to '$path': a kernel parameter has no spaces" \
			"use an output directory without spaces"
	echo "$1=$path"
}

# tracedat_frozen FILE: the freezer:task_frozen events of trace.dat FILE,
# counted: a line "FREEZER HOW N" per freezer and how= seen.  Status 1 if
# trace-cmd report cannot read FILE.
tracedat_frozen() {
	local report
	report=$(trace-cmd report "$1" 2>&1) || { printf '%s\n' "$report" | tail -n 5 >&2; return 1; }
	sed -n 's/.* task_frozen: .* freezer=\([a-z]*\) how=\([a-z_]*\).*/\1 \2/p' <<<"$report" |
		sort | uniq -c | awk '{ print $2, $3, $1 }'
}

# tracedat_show FILE: where the trace.dat is, what it holds, how to open it.
tracedat_show() {
	local counts
	counts=$(tracedat_frozen "$1") ||
		die "trace-cmd report cannot read ${1#"$TOP"/}" "see the console log: the guest's trace-cmd lines"
	info "trace.dat: ${1#"$TOP"/} ($(du -k "$1" | cut -f1) KiB); task_frozen events:" \
		"$(awk '$1 != f { printf "%s%s:", (f == "" ? "" : "; "), $1; f = $1 } { printf " %s=%s", $2, $3 }' <<<"$counts")"
	info "  read it: trace-cmd report ${1#"$TOP"/}; open it: kernelshark ${1#"$TOP"/}"
}
