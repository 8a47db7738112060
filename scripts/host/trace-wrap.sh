#!/usr/bin/env bash
# The --wrap program of the session scripts/host/trace.sh starts ("make trace"):
# runs the kernel command given as arguments under strace, in this process
# group.  Environment, set by trace.sh:
#   TRACE_MODE        start: strace starts ./linux (the default)
#                     attach: ./linux boots untraced; once the guest prints
#                     TODO-TRACE-WAIT, strace -p attaches to it, and a line
#                     on the console input tells the guest to go on
#   TRACE_LOG         strace's output file (-o)
#   TRACE_STRACE      the strace binary
#   TRACE_OPTS        strace options (words without spaces)
# strace follows only the main UML process, never -f: see scripts/host/trace.sh.
. "$(dirname "$0")/lib/session.sh"
help_if_asked "$@"

: "${TRACE_LOG:?}" "${TRACE_STRACE:?}" "${TRACE_OPTS:?}"
read -r -a opts <<<"$TRACE_OPTS"

if [ "${TRACE_MODE:-start}" = start ]; then
	exec "$TRACE_STRACE" "${opts[@]}" -o "$TRACE_LOG" "$@"
fi

# A background command of a script gets /dev/null as stdin unless told
# otherwise; the kernel needs the session's console input on our stdin.
"$@" <&0 &
kernel=$!
session_wait_line --alive "$kernel" '^TODO-TRACE-WAIT' || { wait "$kernel"; exit; }
"$TRACE_STRACE" "${opts[@]}" -o "$TRACE_LOG" -p "$kernel" &
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
