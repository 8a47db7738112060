#!/usr/bin/env bash
# "make debug": gdb on the built kernel, with the kernel's gdb scripts
# (lx-ps, $lx_current(), ... and the series' lx-todo, lx-frozen,
# $lx_todo_count() of scripts/gdb/linux/todo.py) loaded and breakpoints
# ready on the todo freeze path.  By default gdb starts ./vmlinux of the flavour with guest job
# "debug" (scripts/guest/jobs/debug-job.sh), which freezes once through the todo
# freezer about a second after boot, so the first breakpoint is hit without
# typing anything; --attach attaches to a running ./linux instead; --batch
# runs a gdb command file non-interactively once the first breakpoint is hit.
# A command after -- runs in the guest instead of that one freeze, as
# make run CMD= (scripts/host/run.sh -- CMD) does, in the same shape (guest
# job "cmd": in this directory, or --cwd DIR, through hostfs, read-only
# unless --rw), so the breakpoints stop in the freezes it makes.
# An x86_64 flavour (smp, which is debugged as smp-gdb: configs/
# flavours.mk) boots under QEMU with 4 vCPUs, halted until gdb connects to
# QEMU's gdb stub; gdb sees one thread per vCPU and stops at hardware
# breakpoints (hbreak) by default; quitting gdb detaches, and the guest
# runs on to its end.  No --attach or command there.
#
# Usage: scripts/host/debug.sh [--flavour F] [--attach PID] [--batch FILE]
#                         [--bp hbreak|break] [--breaks "FN..."] [--job JOB]
#                         [--timeout S] [--kernel-arg ARG]
#                         [[--cwd DIR] [--rw] -- CMD [ARG...]]
#   --kernel-arg ARG (again for more) adds ARG to the kernel command line.
#   CMD alone is a shell command line (sh -c); CMD ARG... a program and its
#   arguments.
# Exit: gdb's status; 124 when a --batch run timed out (default 300 s).
. "$(dirname "$0")/lib/session.sh"
. "$(dirname "$0")/lib/cmd-dir.sh"
help_if_asked "$@"

# Kernel parameters that keep a session quiet: the kernel misses its ticks
# while gdb holds it, so after a stop RCU would report a CPU stall and the
# hung-task detector a task blocked for over 120 s.  Both stay off for a
# kernel gdb boots; one booted otherwise and attached to keeps its own.
DEBUG_QUIET_ARGS=(rcupdate.rcu_cpu_stall_suppress=1 sysctl.kernel.hung_task_timeout_secs=0)

# The todo freeze path: queueing, the callback in the task being frozen, thaw.
DEFAULT_BREAKS="todo_freeze_task todo_freeze_self todo_thaw_begin"

# On UML, software breakpoints by default (BP=hbreak for hardware ones;
# the backend's choice, backend_gdb_breakpoint: QEMU's is hbreak).  Both were
# run in batch mode on UML 6.12, over a freeze, the single-stepped
# walkthrough, attach and detach, and 20 stress cycles (about 24,000 hits):
# both run cleanly while gdb is in control.  "Kernel panic - not syncing:
# Kernel mode signal 5" comes from a debugger that goes away without taking
# its breakpoints out of an attached kernel (gdb killed; only for processes
# it starts itself does gdb ask the host to kill them with it): the next hit
# is a SIGTRAP nobody traces.  Killed while the kernel runs, both kinds
# panic; killed while the kernel is stopped in gdb, software breakpoints are
# safe (gdb takes them out of the text whenever the kernel stops) but the
# x86 debug registers of hbreak stay armed and it panics.  hbreak is also
# limited to 4 and needs a live process.  Stepping (next, finish, advance)
# uses software breakpoints either way.  So --bp, when not given, is the
# backend's.
flavour=$(default_flavour debug) attach="" batch="" bp="" breaks=$DEFAULT_BREAKS job="" timeout=300
kernel_arg=() cmd=() cwd=$PWD rw=0
opts_parse 'flavour:flavour attach batch bp:hbreak|break breaks job timeout:number kernel-arg:list cwd:dir rw:flag
	-- cmd' "$@"
if [ ${#cmd[@]} -gt 0 ]; then
	[ -z "$job" ] || die "a command runs in guest job cmd: it does not go with --job $job (JOB=)" \
		"leave out one of them"
	job=cmd
fi
[ -n "$job" ] || job=debug
# A flavour without debug info names the one that is the same kernel with
# it (gdb.F in configs/flavours.mk).
gdb_flavour=$(flavour_table "gdb.$flavour")
if [ -n "$gdb_flavour" ]; then
	info "make debug FLAVOUR=$flavour runs $gdb_flavour: the $flavour kernel with debug info and gdb scripts"
	flavour=$gdb_flavour
fi
backend_load "$flavour"
[ -n "$bp" ] || bp=$(backend_gdb_breakpoint)
obj=$(obj_dir "$flavour")
vmlinux=$obj/vmlinux

command -v gdb >/dev/null ||
	die "gdb is not installed" "run: make deps (or apt-get install -y gdb)"
read -r -a break_fns <<<"$breaks"
if [ "$bp" = hbreak ] && [ ${#break_fns[@]} -gt 4 ]; then
	die "${#break_fns[@]} hardware breakpoints asked for, x86 has 4 debug registers" \
		"name at most 4 functions in BREAKS=, or use software ones: BP=break"
fi
if [ -n "$batch" ]; then
	[ -f "$batch" ] || die "no gdb command file '$batch'" "BATCH= names a file of gdb commands"
	batch=$(cd "$(dirname "$batch")" && pwd)/$(basename "$batch")
fi

check_build() {
	[ -f "$vmlinux" ] || die "no kernel at ${vmlinux#"$TOP"/}" \
		"build it first: make build FLAVOUR=$flavour$([ "$flavour" != test ] || echo " (make test builds it)")"
	[ -e "$obj/vmlinux-gdb.py" ] || die "no ${obj#"$TOP"/}/vmlinux-gdb.py: the $flavour kernel has no gdb scripts" \
		"build a flavour with CONFIG_GDB_SCRIPTS=y and debug info: make build FLAVOUR=test"
	# lx-todo and lx-frozen come with the series (scripts/gdb/linux/todo.py).
	[ -e "$obj/scripts/gdb/linux/todo.py" ] || die "${obj#"$TOP"/} has gdb scripts without lx-todo and lx-frozen: it was built before the series had them" \
		"rebuild it: make build FLAVOUR=$flavour"
}

# foreign_build_dirs VMLINUX: the build/ dirs of other clones that objects
# in VMLINUX were compiled in (their DWARF 5 line tables name them).
foreign_build_dirs() {
	readelf -p .debug_line_str "$1" 2>/dev/null |
		grep -oE '/[^ ]*/build/obj-[A-Za-z0-9_.-]+$' | sed 's|/obj-[^/]*$||' | sort -u |
		grep -vxF "$BUILD" || true
}

# The UML kernel a pid belongs to: its own pid if it is the kernel's main
# process, else die with what to do.  Sets flavour, obj and vmlinux.
check_attach() {
	local pid=$1 exe ppid d
	case $pid in '' | *[!0-9]*) die "ATTACH= takes a pid, not '$pid'" "running UML kernels: $(running_kernels)" ;; esac
	[ -d "/proc/$pid" ] || die "no process $pid" "running UML kernels: $(running_kernels)"
	exe=$(readlink "/proc/$pid/exe" 2>/dev/null) ||
		die "cannot read /proc/$pid/exe (not your process?)" "run make debug as the user that started the kernel"
	# The kernel's own image, not a UML kernel, or one of another flavour.
	if ! [ "/proc/$pid/exe" -ef "$vmlinux" ]; then
		for d in "$BUILD"/obj-*; do
			if [ -f "$d/vmlinux" ] && [ "/proc/$pid/exe" -ef "$d/vmlinux" ]; then
				info "pid $pid runs ${d#"$TOP"/}/linux: using that flavour"
				obj=$d vmlinux=$d/vmlinux flavour=${d##*/obj-}
				break
			fi
		done
	fi
	if ! [ "/proc/$pid/exe" -ef "$vmlinux" ]; then
		case $exe in
		*"/obj-"*"/linux (deleted)" | *"/obj-"*"/vmlinux (deleted)")
			die "pid $pid runs a kernel binary that has been rebuilt since it started ($exe); its symbols are gone" \
				"boot the new build and attach to that one, or run make debug without ATTACH=" ;;
		esac
		die "pid $pid is not a UML kernel built here: it runs $exe" \
			"running UML kernels: $(running_kernels); or run make debug without ATTACH= to boot one under gdb"
	fi
	# UML runs each guest address space and some helpers in host processes
	# cloned from the kernel: same binary, parent is the kernel.
	ppid=$(awk '/^PPid:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || echo 0)
	if [ "$ppid" -gt 1 ] && [ "/proc/$ppid/exe" -ef "/proc/$pid/exe" ]; then
		die "pid $pid is a host process of the UML kernel $ppid (a guest process or a helper), not the kernel" \
			"attach to the kernel: make debug ATTACH=$ppid"
	fi
	local tracer
	tracer=$(awk '/^TracerPid:/ { print $2 }' "/proc/$pid/status")
	[ "$tracer" = 0 ] || die "pid $pid is already traced by pid $tracer ($(cat "/proc/$tracer/comm" 2>/dev/null))" \
		"detach that debugger first"
}

# "PID (obj-FLAVOUR)" of every UML kernel main process built here: one
# pass over /proc (a guest can have thousands of host processes).
running_kernels() {
	local dir exe p pp key value out=""
	while read -r dir exe; do
		p=${dir#/proc/} pp=""
		while read -r key value; do
			[ "$key" = PPid: ] && { pp=$value; break; }
		done 2>/dev/null <"$dir/status" || continue
		# Not a host process UML cloned from a kernel.
		[ -n "$pp" ] && [ "/proc/$pp/exe" -ef "$dir/exe" ] && continue
		exe=${exe%/*}
		out+="${out:+, }$p (${exe##*/})"
	done < <(find /proc -mindepth 2 -maxdepth 2 -name exe \
		\( -lname "$BUILD/obj-*/linux" -o -lname "$BUILD/obj-*/vmlinux" \) -printf '%h %l\n' 2>/dev/null)
	echo "${out:-none}"
}

# debug_qemu_once: boot the x86_64 flavour under QEMU, halted, with its
# gdb stub; gdb connects, sets the breakpoints and lets it run.  The
# console is printed as it comes (and kept in the log); with --batch,
# gdb's output also in LOG.gdb.  gdb detaches when it quits (QEMU's stub
# says it attached), and the guest runs on to its end.  If KVM fails the
# guest before its first console line, gdb is told to quit (SIGTERM) and
# the status is 75 (session_kvm_failed says why).  Status: gdb's, else the
# guest's (session_wait).
debug_qemu_once() {
	local fn rc=0 guest_rc=0 args gdb_cmd
	args=(--flavour "$flavour" --job "$job" --gdb-stub --no-input --show all --log "$log")
	# Interactive: as long as you like.
	if [ -z "$batch" ]; then args+=(--timeout 86400); else args+=(--timeout "$timeout"); fi
	stage "gdb on ${vmlinux#"$TOP"/} ($flavour, ${SMP_CPUS:-4} vCPUs under QEMU), ${bp} on: $breaks"
	session_start "${args[@]}" -- kunit.enable=0 "${DEBUG_QUIET_ARGS[@]}" "${kernel_arg[@]}"
	gdb_cmd=("${gdb_args[@]}" -ex "target remote $SESSION_GDB_SOCKET")
	for fn in "${break_fns[@]}"; do gdb_cmd+=(-ex "$bp $fn"); done
	gdb_cmd+=(-ex continue)
	[ -z "$batch" ] || gdb_cmd+=(-batch -x "$batch")
	gdb_cmd+=("$vmlinux")
	# The socket's path is this session's alone: it names this gdb.
	session_on_kvm_failure pkill -TERM -f -- "-ex target remote $SESSION_GDB_SOCKET"
	show_cmd gdb "${gdb_cmd[@]}"
	if [ -z "$batch" ]; then
		gdb "${gdb_cmd[@]}" || rc=$?
		if ! session_kvm_failed >/dev/null; then
			# Detached: the guest ends its job in seconds, unless it
			# was left in a state it cannot leave; then it is stopped.
			info "gdb has quit; the guest runs on to its end (at most 60 s)"
			session_wait_line --timeout 60 "^$SESSION_EXIT_TAG" || session_stop
		fi
	else
		info "batch: ${batch#"$TOP"/}, timeout ${timeout}s, console ${log#"$TOP"/}, gdb's output ${log#"$TOP"/}.gdb"
		# gdb -batch detaches at its end too, taking its breakpoints out.
		timeout -s INT -k 10 "$timeout" gdb "${gdb_cmd[@]}" </dev/null \
			> >(stdbuf -oL tr -d '\r' | tee "$log.gdb") 2>&1 || rc=$?
		case $rc in 124 | 137) rc=124; printf '[%s] error: gdb batch run timed out after %s s\n' "$(ts)" "$timeout" >&2 ;; esac
		if [ "$rc" -ne 0 ]; then
			# gdb may have ended first because KVM's QEMU did: its runner
			# then ends in a moment, having said why.
			for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$SESSION_RUNNER" 2>/dev/null && sleep 0.5; done
			session_kvm_failed >/dev/null || { session_stop; return "$rc"; }
		fi
	fi
	session_wait || guest_rc=$?
	wait "$SESSION_WATCHER" 2>/dev/null || true
	[ "$guest_rc" -ne 75 ] || return 75
	info "console log: ${log#"$TOP"/}"
	[ "$rc" -ne 0 ] || rc=$guest_rc
	return "$rc"
}

# debug_qemu: debug_qemu_once, and once more under TCG, gdb too, if KVM
# failed the guest (the probe passed, the kernel did not boot); exit with
# its status.  SMP_ACCEL=kvm forces KVM: then a failure is the end.
debug_qemu() {
	local rc=0 why
	debug_qemu_once || rc=$?
	if [ "$rc" -eq 75 ] && why=$(session_kvm_failed); then
		info "KVM failed the guest under gdb ($why); decided: restart the guest and gdb under TCG"
		export SMP_ACCEL_PROBED=tcg
		log=${log%.log}-tcg.log
		rc=0
		debug_qemu_once || rc=$?
	fi
	exit "$rc"
}

if [ -n "$attach" ] && ! backend_can_attach; then
	die "the $flavour kernel runs under QEMU: there is no process to attach to" \
		"run make debug FLAVOUR=$flavour without ATTACH=: it boots one under gdb"
fi
[ -z "$attach" ] || check_attach "$attach"
check_build
if [ ${#cmd[@]} -gt 0 ]; then
	[ -z "$attach" ] || die "a command (CMD=) boots a kernel of its own; it does not go with --attach (ATTACH=)"
	cmd_flavour_ok "$flavour"
	cmd_dir=$(cmd_dir_create "$cwd" "$rw" "${cmd[@]}") || exit
	kernel_arg+=(cmd_dir="$cmd_dir")
	info "the guest runs, in $cwd ($([ "$rw" -eq 1 ] && echo read-write || echo read-only)): ${cmd[*]}"
fi

# gdb auto-loads vmlinux-gdb.py (the kernel's lx- commands, lx-todo and
# lx-frozen among them) next to an objfile named vmlinux, and only from an
# auto-load safe path.
gdb_args=(-q -iex "add-auto-load-safe-path $obj"
	-ex "set print thread-events off"
	-ex "set print inferior-events off")
# Objects the compiler cache brought from another clone keep that clone's
# absolute source paths in their debug info (CCACHE_BASEDIR shares the
# cache between clones, scripts/host/build.sh): gdb reads those files here.
while read -r foreign; do
	gdb_args+=(-iex "set substitute-path $foreign $BUILD")
done < <(foreign_build_dirs "$vmlinux")
backend_gdb_args
gdb_args+=("${BACKEND_GDB_ARGS[@]}")
log=$LOGS/debug-$(date +%Y%m%d-%H%M%S)-$$.log
mkdir -p "$LOGS"
! backend_has_gdb_stub || debug_qemu
# Hardware breakpoints need a live process: start it stopped at its first
# instruction (starti), or attach first, then set them.
if [ -n "$attach" ] || [ "$bp" = break ]; then
	for fn in "${break_fns[@]}"; do gdb_args+=(-ex "$bp $fn"); done
	if [ -n "$attach" ]; then gdb_args+=(-ex continue); else gdb_args+=(-ex run); fi
else
	gdb_args+=(-ex starti)
	for fn in "${break_fns[@]}"; do gdb_args+=(-ex "$bp $fn"); done
	gdb_args+=(-ex continue)
fi
[ -z "$batch" ] || gdb_args+=(-batch -x "$batch")

stage "gdb on ${vmlinux#"$TOP"/} ($flavour), ${bp} on: $breaks"
[ -z "$batch" ] || info "batch: ${batch#"$TOP"/}, timeout ${timeout}s, log ${log#"$TOP"/}"
rc=0
if [ -n "$attach" ]; then
	gdb_args+=("$vmlinux" "$attach")
	show_cmd gdb "${gdb_args[@]}"
	if [ -z "$batch" ]; then
		gdb "${gdb_args[@]}" || rc=$?
	else
		# Bounded.  The attached kernel must keep running: on timeout gdb is
		# interrupted and detaches, taking its breakpoints out (a killed gdb
		# would leave them in, and the kernel would panic at the next hit).
		timeout -s INT -k 10 "$timeout" gdb "${gdb_args[@]}" </dev/null \
			> >(stdbuf -oL tr -d '\r' | tee "$log") 2>&1 || rc=$?
		case $rc in 124 | 137) rc=124; printf '[%s] error: gdb batch run timed out after %s s\n' "$(ts)" "$timeout" >&2 ;; esac
	fi
	exit "$rc"
fi
# A session with gdb as its wrapper: on this terminal, or for --batch in the
# background with a timeout.  kunit.enable=0: the boot-time KUnit suites
# would take 15 s and run the freezer functions the breakpoints are on.
args=(--flavour "$flavour" --job "$job" --vmlinux --wrapper-status)
[ "$job" = shell ] || args+=(--no-input)
for word in gdb "${gdb_args[@]}" --args; do args+=(--wrap "$word"); done
if [ -z "$batch" ]; then args+=(--terminal); else args+=(--show all --timeout "$timeout" --log "$log"); fi
session_start "${args[@]}" -- kunit.enable=0 "${DEBUG_QUIET_ARGS[@]}" "${kernel_arg[@]}"
session_wait || rc=$?
session_stop
if [ -n "${cmd_dir:-}" ]; then
	# The last line: the command's status (the exit status is gdb's).
	if [ -s "$cmd_dir/status" ]; then
		info "the command's exit status: $(cat "$cmd_dir/status") (gdb's: $rc)"
	else
		info "the command did not finish: no exit status (gdb's: $rc)"
	fi
	rm -rf "$cmd_dir"
fi
exit "$rc"
