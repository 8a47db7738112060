#!/usr/bin/env bash
# "make trace": what does the kernel, a host process, do on the host while
# it freezes?  Boots an already built ./linux under strace with the guest job
# scripts/guest/jobs/trace-job.sh, which freezes once with the todo freezer and once
# with the classic one (pm_test=freezer, pm_test_delay 1) between console
# markers, then powers off.  The console is UML's write() on the host, so
# the markers are in the strace log and give the freeze windows without
# correlating clocks.  scripts/host/trace_report.py then counts the host
# syscalls (and signals) in each window and outside, per second too.
# The guest also records both freezes with the host's trace-cmd, on the
# monotonic clock, into trace.dat (scripts/guest/tracecmd-lib.sh), for
# trace-cmd report and KernelShark (docs/trace.md).
# Output in build/trace/: strace.log (raw), console.log, summary.txt (also
# printed), summary.csv, windows.csv, trace.dat.
#
# Usage: scripts/host/trace.sh [--flavour run|test|bench] [--strace start|attach]
#                         [--out DIR] [--timeout S] [--strace-prog PROG]
# --strace-prog: the strace program to run, strace from PATH by default
# (tests/host/75-trace.sh gives it one that is missing, and one that is
# refused).  The initramfs must hold the current guest job (make trace
# brings it up to date).
#
# Only the main UML process is traced, never with strace -f: UML runs each
# guest process in a host process that it ptraces itself (and checks at
# boot that it can, with a child that calls PTRACE_TRACEME), and a process
# has only one tracer.  Under strace -f the boot stops at once:
# "Checking that ptrace can change system call numbers...ptrace: Operation
# not permitted".  The main process is the whole kernel (every kernel
# thread and every system call of the guest runs in it), and being traced
# does not stop it from tracing its own children, so strace can start
# ./linux (--strace start, the default) or attach to it after boot with -p
# (--strace attach, make trace STRACE=attach: the boot runs untraced and
# at full speed).  Both work.
. "$(dirname "$0")/lib/session.sh"
. "$(dirname "$0")/lib/tracedat.sh"
help_if_asked "$@"

flavour=$(default_flavour trace) strace=start out=$BUILD/trace timeout=180 strace_prog=strace
opts_parse 'flavour:flavour strace:start|attach out timeout:number strace-prog' "$@"
# -ttt: epoch timestamps with microseconds; -s 4096: whole console writes,
# so the markers can be read back; -q: no attach/detach chatter on the console.
STRACE_OPTS="-q -ttt -s 4096"

# ptrace_problem OUTPUT: die with what the tracer said and how to allow it.
ptrace_problem() {
	local scope
	scope=$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo none)
	die "ptrace is not permitted here, so strace cannot trace ./linux (strace said: $1)" \
		"UML needs ptrace for itself too.  In a container, allow it:" \
		"  docker run --cap-add=SYS_PTRACE --security-opt seccomp=unconfined ..." \
		"  (podman: the same options; LXC: lxc.cap.drop must not list sys_ptrace)." \
		"Yama ptrace_scope is $scope: 3 forbids ptrace until reboot; STRACE=attach needs 0," \
		"  or root with CAP_SYS_PTRACE: sysctl -w kernel.yama.ptrace_scope=0"
}

preflight() {
	local obj=$1 err
	command -v "$strace_prog" >/dev/null 2>&1 ||
		die "strace is not installed (no '$strace_prog' in PATH)" \
			"run: make deps (it installs the Debian package strace), or: apt-get install -y strace"
	[ -x "$obj/linux" ] || die "no $flavour kernel at ${obj#"$TOP"/}/linux" \
		"build it first: make build FLAVOUR=$flavour (make test builds the test flavour)"
	tracecmd_check
	grep -q '^CONFIG_TRACING=y' "$obj/.config" 2>/dev/null ||
		die "the $flavour kernel has no CONFIG_TRACING (no tracepoints for the trace.dat)" \
			"rebuild it: make build FLAVOUR=$flavour (configs/base.config enables tracing)"
	grep -q '^CONFIG_PM_DEBUG=y' "$obj/.config" 2>/dev/null ||
		die "the $flavour kernel has no CONFIG_PM_DEBUG (no /sys/power/pm_test to hold the freeze)" \
			"rebuild it: make build FLAVOUR=$flavour (configs/base.config sets CONFIG_PM_DEBUG=y)"
	# Tracing a child of our own, the way start mode does.
	if ! err=$("$strace_prog" -q -o /dev/null true 2>&1); then
		ptrace_problem "$(head -n 1 <<<"$err")"
	fi
	# Attaching to a process that is not our descendant, as attach mode does.
	if [ "$strace" = attach ]; then
		sleep 5 &
		local victim=$!
		err=$(timeout 10 "$strace_prog" -q -o /dev/null -p "$victim" 2>&1 & sleep 0.5; kill "$victim")
		wait "$victim" 2>/dev/null || true
		if grep -qi 'not permitted\|denied' <<<"$err"; then
			ptrace_problem "$(head -n 1 <<<"$err")"
		fi
	fi
}

main() {
	local obj log console rc=0 extra=() wrap=() word
	obj=$(obj_dir "$flavour")
	preflight "$obj"
	mkdir -p "$out"
	log=$out/strace.log
	console=$out/console.log
	rm -f "$log" "$console" "$out"/summary.txt "$out"/summary.csv "$out"/windows.csv "$out"/trace.dat
	stage "trace: $flavour kernel under strace ($strace mode), one freeze per freezer"
	info "strace: $strace_prog $STRACE_OPTS -o ${log#"$TOP"/} $([ "$strace" = attach ] && echo "-p PID-of-./linux, after boot" || echo "./linux ...")"
	# strace=attach: the guest waits for the host's word that strace is on.
	extra=("$(tracedat_arg tracedat "$out/trace.dat")" strace="$strace")
	for word in "$TOP/scripts/host/trace-wrap.sh" --strace "$strace" --log "$log" \
		--strace-prog "$strace_prog" --strace-opts "$STRACE_OPTS" --; do
		wrap+=(--wrap "$word")
	done
	session_start --flavour "$flavour" --job trace --timeout "$timeout" \
		--show guest --log "$console" "${wrap[@]}" -- "${extra[@]}"
	session_wait || rc=$?
	if grep -q '^strace: ' "$console" 2>/dev/null; then
		if grep -qi '^strace: .*\(not permitted\|denied\)' "$console"; then
			ptrace_problem "$(grep -m1 '^strace: ' "$console")"
		fi
		die "strace failed: $(grep -m1 '^strace: ' "$console")" "console log: $console"
	fi
	if grep -q '^TRACE error trace-cmd' "$console" 2>/dev/null; then
		die "the guest could not record the trace.dat: $(grep -m1 '^TRACE error trace-cmd' "$console" | cut -d' ' -f3-)" \
			"the guest's reason is the line before it in $console (grep -B3 'TRACE error' ${console#"$TOP"/})"
	fi
	if grep -q '^TRACE error' "$console" 2>/dev/null; then
		die "the guest job could not freeze: $(grep -m1 '^TRACE error' "$console" | cut -d' ' -f3-)" \
			"a build older than the series? rebuild it: make build FLAVOUR=$flavour" \
			"console log: $console"
	fi
	[ "$rc" -eq 0 ] || die "the trace boot failed (runner exit $rc)" \
		"console log: $console" "strace log: $log"
	[ -s "$log" ] || die "strace wrote nothing to $log" "console log: $console"
	info "strace log: ${log#"$TOP"/} ($(wc -l <"$log") lines)"
	stage "trace: host syscalls in and out of the freeze windows"
	run python3 "$TOP/scripts/host/trace_report.py" --strace "$log" --out "$out" --mode "$strace" ||
		die "the summary found a problem (see the error lines above)" "strace log: $log"
	[ -s "$out/trace.dat" ] || die "the guest wrote no ${out#"$TOP"/}/trace.dat" "console log: $console"
	tracedat_show "$out/trace.dat"
	info "results: ${out#"$TOP"/}/{strace.log,console.log,summary.txt,summary.csv,windows.csv,trace.dat}"
}

main "$@"
