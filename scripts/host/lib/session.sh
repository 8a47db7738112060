# shellcheck shell=bash
# The session API, the one place that knows how a guest is started and
# where its files are: session_start, then any of the functions below.
# Source it (it sources the libraries it needs: base, flavour, opts);
# scripts/host/boot.sh is its command line.  One session per shell at a
# time, in SESSION_*.  session_start loads the flavour's backend
# (backend_load: scripts/host/lib/uml.sh, or qemu.sh for the smp flavours,
# which boot the same way under qemu-system-x86_64, without mconsole, and
# with --gdb-stub halted for gdb at QEMU's stub); what differs is asked of
# the backend_ functions.  A --wrap program stays in the process group and
# gets SESSION_UMID and SESSION_LOG.
. "${BASH_SOURCE[0]%/*}/opts.sh" # and flavour.sh

SESSION_DIR=$BUILD/uml          # UML's uml_dir: UMID/pid, UMID/mconsole; ours: UMID.*
SESSION_EXIT_TAG="TODO-EXIT:"   # the guest init, before poweroff (markers: docs/console.md)
SESSION_UMID=${SESSION_UMID:-} SESSION_LOG=${SESSION_LOG:-} SESSION_RUNNER="" SESSION_STATUS="" SESSION_ACCEL=""
SESSION_GDB_SOCKET=""
declare -gA SESSION_SEEN=()     # console lines session_wait_line has read, per log

# session_start --flavour F [OPTION...] [-- KERNEL-ARGS...]: boot F with a guest
# job, by default in the background: console only to the log, a timeout.
#   --job JOB          the guest job (scripts/guest/jobs/JOB-job.sh), run
#   --timeout S        the guest's time limit in seconds, 120
#   --mem M            its memory, 512M
#   --log FILE         its console log, build/logs/boot-JOB-TIME.log
#   --show all|guest|none  printed too: all, the guest's (from the init's
#                      first line), nothing
#   --wrap WORD        again for more: "WORD... ./linux ARGS" (strace, gdb)
#   --vmlinux          boot obj/vmlinux, the name gdb finds the kernel's
#                      scripts by
#   --terminal         in the foreground, the console here, no log or
#                      timeout, the started program's status
#   --no-input         the terminal's input is the wrapper's (gdb)
#   --wrapper-status   the started program's status, not the guest's
#   --gdb-stub         x86_64: halted until gdb connects to
#                      SESSION_GDB_SOCKET
session_start() {
	local flavour="" job=run mem=512M timeout=120 show=guest log="" terminal=0 no_input=0 vmlinux=0
	local wrapper_status=0 wrap=() extra=() cmd obj initrd=$BUILD/initramfs.cpio gdb_stub=0 runner_args word image=""
	SESSION_FLAVOUR="" SESSION_STATUS="" SESSION_RUNNER="" SESSION_GDB_SOCKET=""
	opts_parse 'flavour:flavour job timeout:number mem log show:all|guest|none wrap:list vmlinux:flag terminal:flag
		no-input:flag wrapper-status:flag gdb-stub:flag -- extra' "$@"
	SESSION_FLAVOUR=$flavour
	[ "$terminal" -eq 0 ] || wrapper_status=1
	[ "$vmlinux" -eq 0 ] || image=vmlinux
	[ -n "$SESSION_FLAVOUR" ] || die "session_start: no --flavour" "name the flavour to boot: run, test, bench or smp"
	backend_load "$SESSION_FLAVOUR"
	obj=$(obj_dir "$SESSION_FLAVOUR")
	SESSION_IMAGE=$obj/${image:-$(flavour_image "$SESSION_FLAVOUR")}
	[ -f "$SESSION_IMAGE" ] || die "no kernel at $SESSION_IMAGE" "build it first: make build FLAVOUR=$SESSION_FLAVOUR"
	[ -f "$initrd" ] || die "no initramfs at $initrd" "build it first: make initramfs"
	mkdir -p "$SESSION_DIR"
	SESSION_UMID=todo-$job-$$
	rm -f "$SESSION_DIR/$SESSION_UMID.kvm-failed"
	backend_cmd "$job" "$mem" "$initrd" "$((1 - no_input))" "$gdb_stub" "${extra[@]}"
	cmd=("${BACKEND_CMD[@]}")
	if [ "$terminal" -eq 1 ]; then
		SESSION_STATUS=0
		run "${wrap[@]}" "${cmd[@]}" || SESSION_STATUS=$?
		return 0
	fi
	SESSION_LOG=${log:-$LOGS/boot-$job-$(date +%Y%m%d-%H%M%S).log}
	mkdir -p "$(dirname "$SESSION_LOG")"
	: >"$SESSION_LOG" # no follower may read the last run's lines
	SESSION_SEEN[$SESSION_LOG]=0
	runner_args=(--job "$job" --timeout "$timeout" --show "$show" --obj "$obj")
	[ "$wrapper_status" -eq 0 ] || runner_args+=(--wrapper-status)
	for word in "${wrap[@]}"; do runner_args+=(--wrap "$word"); done
	session_runner "${runner_args[@]}" -- "${cmd[@]}" &
	SESSION_RUNNER=$!
}

# session_runner --job J --timeout S --show all|guest|none --obj DIR
#   [--wrapper-status] [--wrap WORD]... -- CMD...:
# the part of session_start that runs in the background: boot CMD (the
# kernel, under the --wrap words) with its console to SESSION_LOG,
# supervise, report, and exit with the session's status (see
# session_wait).  DIR is the kernel's object dir.
session_runner() {
	local log=$SESSION_LOG job timeout show obj wrapper_status=0 wrap=() cmd=() status
	opts_parse 'job timeout:number show:all|guest|none obj wrapper-status:flag wrap:list -- cmd' "$@"
	session_boot_once "$job" "$timeout" "$show" -- "${wrap[@]}" "${cmd[@]}"
	# KVM that the probe let through can still fail this kernel
	# (backend_kvm_broke in scripts/host/lib/qemu.sh): boot it again, once,
	# under TCG (backend_fallback_cmd).  Under gdb the connection went with
	# the first QEMU: say so in the session's file that session_kvm_failed
	# reads, and leave the restart of both to gdb's caller
	# (scripts/host/debug.sh).
	if [ -n "$SESSION_KVM_WHY" ]; then
		mv "$log" "$log.kvm"
		if [ -n "$SESSION_GDB_SOCKET" ]; then
			printf '%s; console: %s\n' "$SESSION_KVM_WHY" "${log#"$TOP"/}.kvm" >"$SESSION_DIR/$SESSION_UMID.kvm-failed"
			printf '[%s] warning: KVM failed the guest (%s; console: %s); gdb lost it\n' \
				"$(ts)" "$SESSION_KVM_WHY" "${log#"$TOP"/}.kvm" >&2
			exit 75
		fi
		printf '[%s] warning: KVM failed the guest (%s; console: %s); booting it again under TCG\n' \
			"$(ts)" "$SESSION_KVM_WHY" "${log#"$TOP"/}.kvm" >&2
		backend_fallback_cmd
		: >"$log"
		session_boot_once "$job" "$timeout" "$show" -- "${wrap[@]}" "${BACKEND_CMD[@]}"
	fi
	if [ "$SESSION_TIMED_OUT" -eq 1 ]; then
		printf '[%s] error: guest job %s timed out after %s s; the kernel was killed\n' "$(ts)" "$job" "$timeout" >&2
		session_last_lines "$log" 20
		exit 124
	fi
	[ "$wrapper_status" -eq 0 ] || exit "$SESSION_BOOT_RC"
	status=$(sed -n "s/^$SESSION_EXIT_TAG \([0-9]*\)\$/\1/p" "$log" | tail -n 1)
	if [ -z "$status" ]; then
		printf '[%s] error: the guest exited without reporting its status (no "%s" line)\n' "$(ts)" "$SESSION_EXIT_TAG" >&2
		session_last_lines "$log" 30
		if grep -q 'Kernel panic' "$log"; then
			printf '  the kernel panicked; decode the trace with:\n  %s\n' \
				"$SRC/scripts/decode_stacktrace.sh $obj/vmlinux $SRC $obj < $log" >&2
		fi
		exit 125
	fi
	info "guest job '$job' exited with status $status"
	exit "$status"
}

# session_last_lines LOG N: the last N lines of console LOG, on stderr.
session_last_lines() {
	printf '  last console lines (%s):\n' "${1#"$TOP"/}" >&2
	tail -n "$2" "$1" | sed 's/^/  | /' >&2
}

# session_boot_once JOB TIMEOUT SHOW -- COMMAND...: boot COMMAND (the
# kernel, or its wrapper and the kernel) once for guest job JOB: console
# to SESSION_LOG (SHOW as session_start's --show), wait for the end (or
# backend_halted) or TIMEOUT seconds, check nothing is left behind.  Sets
# SESSION_TIMED_OUT (1 or 0), SESSION_KVM_WHY (see backend_kvm_broke) and
# SESSION_BOOT_RC (the started program's exit status).
session_boot_once() {
	local job=$1 timeout=$2 show=$3 log=$SESSION_LOG
	local fifo=$SESSION_DIR/$SESSION_UMID.console input=$SESSION_DIR/$SESSION_UMID.input
	local hold pid writer viewer="" left i deadline started=$SECONDS rc=0
	shift 4
	SESSION_TIMED_OUT=0 SESSION_KVM_WHY="" SESSION_BOOT_RC=0
	info "booting $SESSION_FLAVOUR kernel, job '$job', timeout ${timeout}s, console log ${log#"$TOP"/}"
	show_cmd "$@"
	# UML polls its console fds, and epoll refuses regular files: the console
	# goes through a FIFO to a writer that also drops the CRs of the tty layer.
	# Its input: epoll refuses /dev/null and regular files (and CI's stdin)
	# too, so a FIFO that this shell holds open for writing, pollable and
	# never at end-of-file.
	rm -f "$fifo" "$input"
	mkfifo "$fifo" "$input"
	stdbuf -oL tr -d '\r' <"$fifo" >"$log" & # line by line: followers read it live
	writer=$!
	exec {hold}<>"$input"
	# A background child of a script is not a process-group leader, so setsid
	# does not fork: $! is the kernel's pid (or the wrapper's) and the id of
	# its own process group.
	SESSION_UMID=$SESSION_UMID SESSION_LOG=$log \
		setsid "$@" <"$input" >"$fifo" 2>&1 {hold}>&- &
	pid=$!
	echo "$pid" >"$SESSION_DIR/$SESSION_UMID.pgid"
	# The viewer follows the writer, which ends only once the console is drained.
	case $show in
	all) session_wait_line --alive "$writer" --each session_print '' & viewer=$! ;;
	guest)
		{ session_wait_line --alive "$writer" '^TODO-INIT:' && session_print "$SESSION_LINE" &&
			session_wait_line --alive "$writer" --each session_print ''; } &
		viewer=$! ;;
	esac

	deadline=$((SECONDS + timeout))
	while kill -0 "$pid" 2>/dev/null; do
		if backend_halted "$log" || backend_kvm_broke "$log" "$started" ||
			{ [ "$SECONDS" -ge "$deadline" ] && SESSION_TIMED_OUT=1; }; then
			kill -TERM -- "-$pid" 2>/dev/null || true
			[ "$SESSION_TIMED_OUT" -eq 0 ] || { sleep 2; kill -KILL -- "-$pid" 2>/dev/null || true; }
			break
		fi
		sleep 0.2
	done
	wait "$pid" 2>/dev/null || rc=$?
	SESSION_BOOT_RC=$rc
	wait "$writer" 2>/dev/null || true
	[ -n "$SESSION_KVM_WHY" ] || [ "$SESSION_TIMED_OUT" -eq 1 ] || backend_kvm_broke "$log" "$started" "$rc" || true
	exec {hold}>&-
	rm -f "$fifo" "$input" "$SESSION_DIR/$SESSION_UMID.pgid"
	if [ -n "$SESSION_GDB_SOCKET" ]; then
		rm -f "$SESSION_GDB_SOCKET"
		[[ $SESSION_GDB_SOCKET == "$SESSION_DIR"/* ]] || rmdir "$(dirname "$SESSION_GDB_SOCKET")" 2>/dev/null || true
	fi
	[ -z "$viewer" ] || wait "$viewer" 2>/dev/null || true
	stage_time "boot $SESSION_FLAVOUR, job $job${SESSION_ACCEL:+ ($SESSION_ACCEL${SESSION_KVM_WHY:+, failed})}" "$((SECONDS - started))"

	# Whatever UML forked (still in its process group) must be gone too; give
	# it a moment, then insist.
	for i in 1 2 3 4 5 6 7 8 9 10; do
		left=$(pgrep -g "$pid" 2>/dev/null || true)
		[ -n "$left" ] && [ "$i" -lt 10 ] || break
		sleep 0.3
	done
	if [ -n "$left" ]; then
		printf '[%s] error: the kernel (%s) left host processes behind: %s\n' "$(ts)" "$(flavour_arch "$SESSION_FLAVOUR")" "${left//$'\n'/ }" >&2
		kill -KILL -- "-$pid" 2>/dev/null || true
		exit 126
	fi
	rm -rf "${SESSION_DIR:?}/$SESSION_UMID"
}

session_print() { printf '%s\n' "$1"; }

# session_gdb_socket_path: set SESSION_GDB_SOCKET, where the --gdb-stub
# session's QEMU listens: in the session dir, unless that path is too long
# for a Unix socket (108 bytes with its NUL), then in a fresh dir in /tmp.
session_gdb_socket_path() {
	SESSION_GDB_SOCKET=$SESSION_DIR/$SESSION_UMID.gdb
	[ "${#SESSION_GDB_SOCKET}" -gt 100 ] || return 0
	SESSION_GDB_SOCKET=$(mktemp -d "${TMPDIR:-/tmp}/todo-gdb.XXXXXX")/stub
}

# session_wait_line [--timeout S] [--each FN] [--log FILE] [--alive PID]
#   [--saved] ERE: read the console log on from the last line read, calling
# FN LINE for each line before the first that matches ERE (left in
# SESSION_LINE).  Returns 0 there; 1 if the session (or PID) ended first,
# every line read; 124 after S seconds.  An empty ERE follows to the end.
# A last line still without its newline (a prompt) can match, but goes to
# FN only once complete.  --saved: FILE is a saved log, read to its end
# with no session to wait for.
session_wait_line() {
	local timeout="" each="" log=$SESSION_LOG alive=$SESSION_RUNNER saved=0 ere=() deadline ended line partial
	opts_parse 'timeout:number each log alive saved:flag @ere' "$@"
	[ ${#ere[@]} -eq 1 ] || die "session_wait_line: one ERE, not ${#ere[@]}: ${ere[*]}"
	set -- "${ere[0]}"
	deadline=$((SECONDS + ${timeout:-999999}))
	while :; do
		ended=$saved # checked before reading, so that the last read sees every line
		[ -z "$alive" ] || kill -0 "$alive" 2>/dev/null || ended=1
		# Fewer lines than read: the runner started the log afresh (KVM retry).
		[ "$(wc -l 2>/dev/null <"$log" || echo 0)" -ge "${SESSION_SEEN[$log]:-0}" ] || SESSION_SEEN[$log]=0
		while partial=0; IFS= read -r line || { partial=1; [ -n "$line" ]; }; do
			if [ -n "${1-}" ] && [[ $line =~ $1 ]]; then
				SESSION_SEEN[$log]=$((${SESSION_SEEN[$log]:-0} + 1)) SESSION_LINE=$line
				return 0
			fi
			[ "$partial" -eq 0 ] || break
			SESSION_SEEN[$log]=$((${SESSION_SEEN[$log]:-0} + 1))
			[ -z "$each" ] || "$each" "$line"
		done < <(tail -n "+$((${SESSION_SEEN[$log]:-0} + 1))" "$log" 2>/dev/null)
		[ "$ended" -eq 0 ] || return 1
		[ "$SECONDS" -lt "$deadline" ] || return 124
		sleep 0.2
	done
}

# session_pid: the kernel's host pid (UML's own, under a wrapper too), known
# before its first console line.
session_pid() { backend_pid; }

# session_mconsole: the path of the session's mconsole socket (UML only:
# under QEMU it dies, naming the flavours that have one).
session_mconsole() { backend_mconsole; }

# session_mc CMD...: one mconsole command, its reply on stdout; an ERR reply
# is not an error (uml_mconsole's stderr: it looked under ~/.uml first).
session_mc() { session_mconsole >/dev/null; uml_mconsole "$(session_mconsole)" "$@" 2>/dev/null || true; }

# session_send LINE: type LINE on the console input (a background session's).
session_send() { printf '%s\n' "$1" >"$SESSION_DIR/$SESSION_UMID.input"; }

# session_wait: wait for the end; return the exit status: the guest's (its
# TODO-EXIT line), 124 timeout, 125 no exit line, 126 host processes left
# behind, 75 KVM failed a guest under gdb (session_kvm_failed); the started
# program's own with --terminal or --wrapper-status.
session_wait() {
	[ -n "$SESSION_STATUS" ] || { SESSION_STATUS=0; wait "$SESSION_RUNNER" || SESSION_STATUS=$?; }
	return "$SESSION_STATUS"
}

# session_kvm_failed: true if KVM failed the last session under gdb
# (--gdb-stub) before its first console line, with the reason and the
# kept console on stdout.  Its runner exits 75 then.
session_kvm_failed() { cat "$SESSION_DIR/$SESSION_UMID.kvm-failed" 2>/dev/null; }

# session_on_kvm_failure CMD...: in the background, once the session's
# runner has ended, run CMD if KVM failed the guest (session_kvm_failed);
# its pid in SESSION_WATCHER.  For the gdb that the dead guest leaves
# waiting.
session_on_kvm_failure() {
	local runner=$SESSION_RUNNER
	{
		while kill -0 "$runner" 2>/dev/null; do sleep 0.5; done
		! session_kvm_failed >/dev/null || "$@"
	} &
	SESSION_WATCHER=$!
}

# session_stop: end the session now, and a kernel its wrapper left running
# (gdb on a terminal quits, the kernel it started may not).
session_stop() {
	local pid
	pid=$(cat "$SESSION_DIR/$SESSION_UMID.pgid" 2>/dev/null) && { kill -TERM -- "-$pid" 2>/dev/null || true; }
	[ -z "$SESSION_RUNNER" ] || session_wait || true
	pid=$(session_pid) && [ "/proc/$pid/exe" -ef "$SESSION_IMAGE" ] && { kill -KILL "$pid" 2>/dev/null || true; }
	rm -rf "${SESSION_DIR:?}/$SESSION_UMID"
}
