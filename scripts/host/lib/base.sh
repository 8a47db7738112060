# shellcheck shell=bash
# The frame of every host script, its first library: strict mode, where
# things are, its usage (-h), progress lines, and running commands with
# their output kept in a log.  Sourcing it (as any of scripts/host/lib/)
# defines, and changes nothing on disk.  Once per shell: backend_load
# (flavour.sh) sources a backend, and with it this file, while a script
# runs; a second run would undo what the script set since (set +e, a
# function it redefined).
[ -z "${BASE_SH_LOADED:-}" ] || return 0
BASE_SH_LOADED=1
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
BUILD=${BUILD:-$TOP/build}
# The git tree: tag "pristine" + branch "todo" (KERNEL_SRC: another tree,
# e.g. the candidates alone, scripts/host/check-candidates.sh).
SRC=${KERNEL_SRC:-$BUILD/src}
# Logs; BUILD_LOGS: elsewhere, so that a build of another tree (the
# candidates alone) does not overwrite the flavour's own build log.  Made
# by what writes there first (run_logged, session_start, test.sh).
LOGS=${BUILD_LOGS:-$BUILD/logs}

# usage [SCRIPT]: the script's usage, its header comment: the comment lines
# after "#!", up to the first line that is not one.
usage() {
	awk 'NR == 1 { next } !/^#/ { exit } !/^# shellcheck/ { sub(/^# ?/, ""); print }' "${1:-$0}"
}

# help_if_asked "$@": with -h or --help first, print the usage and exit,
# before anything runs.  Every runnable script calls it first.
help_if_asked() {
	case ${1:-} in -h | --help) usage; exit 0 ;; esac
}

ts() { date +%H:%M:%S; }
stage() { printf '[%s] == %s\n' "$(ts)" "$*"; }
info() { printf '[%s] %s\n' "$(ts)" "$*"; }

# die MESSAGE [NEXT-STEP...]: print the error and what to do next, exit 1.
die() {
	printf '[%s] error: %s\n' "$(ts)" "$1" >&2
	shift
	local line
	for line in "$@"; do printf '  %s\n' "$line" >&2; done
	exit 1
}

# stage_time NAME SECONDS: a row of the table of stage times that "make
# test" prints at its end (STAGE_TIMES, set by scripts/host/test.sh; nothing
# without it): kernel builds and guest boots, under the test that did them.
stage_time() { [ -z "${STAGE_TIMES:-}" ] || printf '%s\t%s\n' "$1" "$2" >>"$STAGE_TIMES"; }

# Print a command the way a user could paste it.
show_cmd() { printf '[%s] $ %s\n' "$(ts)" "$(printf '%q ' "$@")"; }

run() { show_cmd "$@"; "$@"; }

# run_logged LOG CMD...: run CMD with all output in LOG.  On failure show the
# last 30 lines and where the full log is, and return the command's status.
run_logged() {
	local log=$1 rc=0
	shift
	show_cmd "$@"
	mkdir -p "$(dirname "$log")"
	"$@" >"$log" 2>&1 || rc=$?
	if [ "$rc" -ne 0 ]; then
		printf '[%s] command failed (exit %d); last 30 lines of %s:\n' "$(ts)" "$rc" "$log" >&2
		tail -n 30 "$log" | sed 's/^/  | /' >&2
		printf '  full log: %s\n' "$log" >&2
	fi
	return "$rc"
}
