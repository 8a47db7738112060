#!/usr/bin/env bash
# "make run": boot ./linux of the run flavour (make builds it and the
# initramfs first).  On a terminal the guest is a shell on that terminal
# (guest job "shell"; "exit" powers it off); otherwise, as in CI, the
# scripted job "run" shows the guest and powers it off.
#
# With a command ("make run CMD='...'", or after --): run it in the guest,
# in the directory it was started from on the host, which the guest mounts
# through hostfs at the same path (read-only unless --rw); print only the
# command's output and exit with its status.  The kernel log goes to the
# console log file (--kernel-log: on the console too).  Freezes are round
# trips (pm_test=freezer; --pm-test LEVEL, "none" for a real suspend).
# Programs must be static or shell scripts: the guest has busybox, not the
# host's libraries.
# --kernel-arg ARG (again for more) adds ARG to the kernel command line
# (say cpuidle.off=1).  --timeout S: the guest's time limit, 3600 s with
# a command, 300 s for the scripted job, none on a terminal.
# Usage: scripts/host/run.sh [--flavour F] [--rw] [--kernel-log] [--pm-test L]
#          [--cwd DIR] [--timeout S] [--kernel-arg ARG] [-- CMD [ARG...]]
#   CMD alone is a shell command line (sh -c); CMD ARG... a program and
#   its arguments (the same shape in scripts/host/debug.sh).
. "$(dirname "$0")/lib/session.sh"
. "$(dirname "$0")/lib/cmd-dir.sh"
. "$(dirname "$0")/lib/cmd-output.sh"
help_if_asked "$@"

# run_cmd: the command mode.  The runner's own lines go to stderr, the
# command's output, from the console log, to stdout.
run_cmd() {
	local dir status=0 line
	cmd_flavour_ok "$flavour"
	dir=$(cmd_dir_create "$cwd" "$rw" "${cmd[@]}") || exit
	local log=$LOGS/run-cmd-$(date +%Y%m%d-%H%M%S).log args=(cmd_dir="$dir" pm_test="$pm_test" "${kernel_arg[@]}")
	[ "$kernel_log" -eq 1 ] || args+=(quiet)
	info "running in the guest ($flavour, ${cwd} $([ "$rw" -eq 1 ] && echo read-write || echo read-only)): ${cmd[*]}" >&2
	session_start --flavour "$flavour" --job cmd --timeout "${timeout:-3600}" --show none --log "$log" -- "${args[@]}" >&2
	# The status is the guest's, which is the command's unless the job
	# failed around it (a timeout, a crash, no hostfs mount).
	cmd_output "$log" || true
	session_wait >&2 || status=$?
	if [ -s "$dir/dmesg" ]; then
		{ echo "---- the kernel log (dmesg) at the end of the command ----"; cat "$dir/dmesg"; } >>"$log"
	fi
	rm -rf "$dir"
	info "console and kernel log: ${log#"$TOP"/}; exit status $status" >&2
	exit "$status"
}

main() {
	local flavour cwd=$PWD rw=0 kernel_log=0 pm_test=freezer timeout="" cmd=() kernel_arg=()
	flavour=$(default_flavour run)
	opts_parse 'flavour:flavour rw:flag kernel-log:flag pm-test cwd:dir timeout:number kernel-arg:list -- cmd' "$@"
	backend_load "$flavour"
	! backend_links_top || link_top "$flavour"
	[ ${#cmd[@]} -eq 0 ] || run_cmd
	if [ -t 0 ] && [ -t 1 ]; then
		stage "booting ./linux (flavour $flavour) with a shell on this terminal"
		session_start --terminal --flavour "$flavour" --job shell -- "${kernel_arg[@]}"
	else
		stage "booting ./linux (flavour $flavour)"
		session_start --flavour "$flavour" --job run --timeout "${timeout:-300}" -- "${kernel_arg[@]}"
	fi
	session_wait
}

main "$@"
