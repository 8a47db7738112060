#!/usr/bin/env bash
# The --wrap program of the session scripts/host/trace.sh starts ("make trace"):
# runs the kernel command after -- under strace, in this process group.
# Usage: scripts/host/trace-wrap.sh --strace start|attach --log FILE
#          --strace-prog PROG --strace-opts 'OPTION...' -- KERNEL-CMD...
#   --strace start     strace starts ./linux (the default)
#   --strace attach    ./linux boots untraced; once the guest prints
#                      TODO-TRACE-WAIT, strace -p attaches to it, and a
#                      line on the console input tells the guest to go on
#   --log FILE         strace's output file (-o)
#   --strace-prog PROG the strace program
#   --strace-opts      strace's options (words without spaces)
# strace follows only the main UML process, never -f: see scripts/host/trace.sh.
. "$(dirname "$0")/lib/session.sh"
help_if_asked "$@"

strace=start log="" strace_prog=strace strace_opts="" cmd=()
opts_parse 'strace:start|attach log strace-prog strace-opts -- cmd' "$@"
if [ -z "$log" ] || [ ${#cmd[@]} -eq 0 ]; then
	die "trace-wrap.sh: no --log, or no kernel command after --" "its usage: scripts/host/trace-wrap.sh --help"
fi
read -r -a opts <<<"$strace_opts"

if [ "$strace" = start ]; then
	exec "$strace_prog" "${opts[@]}" -o "$log" "${cmd[@]}"
fi

# A background command of a script gets /dev/null as stdin unless told
# otherwise; the kernel needs the session's console input on our stdin.
"${cmd[@]}" <&0 &
kernel=$!
session_wait_line --alive "$kernel" '^TODO-TRACE-WAIT' || { wait "$kernel"; exit; }
"$strace_prog" "${opts[@]}" -o "$log" -p "$kernel" &
tracer=$!
# Attached once the kernel's TracerPid is strace (or strace gave up).
while [ "$(awk '/^TracerPid:/ { print $2 }' "/proc/$kernel/status" 2>/dev/null)" != "$tracer" ]; do
	if ! kill -0 "$tracer" 2>/dev/null; then
		echo "trace-wrap: strace could not attach to the kernel (pid $kernel); stopping it" >&2
		kill -TERM "$kernel" 2>/dev/null || true
		wait "$kernel" || true
		exit 1
	fi
	sleep 0.05
done
# The guest's go-ahead.
session_send go
wait "$kernel" || true
wait "$tracer" || true
