# shellcheck shell=bash
# What the host hands guest job "cmd" (scripts/guest/jobs/cmd-job.sh) for
# make run CMD= and make debug CMD=: a directory under the session
# directory that the guest mounts through hostfs, holding the command, the
# host directory to run it in, and whether that is writable.  What comes
# back is cmd-output.sh's.
. "${BASH_SOURCE[0]%/*}/session.sh"

# cmd_dir_create CWD RW CMD [ARG...]: make the directory and print its
# path.  One CMD is a shell command line (sh -c); CMD ARG... a program and
# its arguments.
cmd_dir_create() {
	local cwd=$1 rw=$2 dir
	shift 2
	[ "$cwd" != / ] || die "the guest cannot mount / over its own root" "run the command from another directory"
	[ -d "$cwd" ] || die "no directory $cwd"
	mkdir -p "$SESSION_DIR"
	dir=$(mktemp -d "$SESSION_DIR/cmd.XXXXXX")
	if [ $# -eq 1 ]; then
		printf '%s\n' "$1" >"$dir/cmd.sh"
	else
		printf '%q ' "$@" >"$dir/cmd.sh"
		echo >>"$dir/cmd.sh"
	fi
	printf '%s\n' "$cwd" >"$dir/cwd"
	echo "$rw" >"$dir/rw"
	echo "$dir"
}

# cmd_flavour_ok FLAVOUR: die unless FLAVOUR's backend has hostfs (UML's).
cmd_flavour_ok() {
	backend_load "$1"
	backend_has_hostfs ||
		die "the $1 flavour runs under QEMU, which has no hostfs: a command runs on the UML flavours only" \
			"use FLAVOUR=run or FLAVOUR=test; on 4 vCPUs: make smp-test, or make debug FLAVOUR=smp (docs/testing.md)"
}
