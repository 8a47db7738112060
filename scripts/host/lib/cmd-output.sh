# shellcheck shell=bash
# What the host prints of guest job "cmd" (make run CMD=, make debug CMD=):
# the command's output and exit status, read from the job's console log,
# live or saved (tests/check/60-run-cmd.sh).  The output lies between the
# job's begin marker (scripts/guest/jobs/cmd-job.sh) and the init's exit
# line, which gives the status (docs/console.md); all else on the console
# (the kernel's lines, the init's) stays in the log file.
. "${BASH_SOURCE[0]%/*}/session.sh"

# cmd_output [--saved] LOG: the command's output lines in console LOG, on
# stdout, as the running session writes them (--saved: LOG is a saved
# log).  Returns the command's exit status, from the exit line; 125 when
# the log has no begin marker or no exit line: cut off by a crash or a
# timeout, or not the log of a cmd job.
cmd_output() {
	local saved=0 file=() from=()
	opts_parse 'saved:flag @file' "$@"
	[ "$saved" -eq 0 ] || from=(--saved)
	session_wait_line --log "${file[0]}" "${from[@]}" '^TODO-CMD: begin$' || return 125
	session_wait_line --log "${file[0]}" "${from[@]}" --each session_print "^$SESSION_EXIT_TAG [0-9]+\$" || return 125
	return "${SESSION_LINE##* }"
}
