#!/usr/bin/env bash
# Boot runner: start a built ./linux as an ordinary host process with the
# project's initramfs, run one guest job, and return the guest's exit status.
# The console goes to stdout (never stdin, which CI cannot poll) and, in
# full, to build/logs/.  A wall-clock timeout kills the whole UML process
# group; afterwards no UML host process may be left behind.
# The smp flavour is an x86_64 bzImage: it boots the same way under
# qemu-system-x86_64 (-smp $SMP_CPUS, default 4; KVM when /dev/kvm is
# usable, else multi-threaded TCG), with the console on its serial port.
#
# Usage: scripts/boot.sh [--flavour F] [--job JOB] [--timeout S] [--mem M]
#                        [--show all|guest|none] [--log FILE] [--wrap PROG]
#                        [-- KERNEL-ARGS...]
# --wrap PROG runs "PROG ./linux ARGS..." instead of ./linux (scripts/trace.sh
# runs it under strace this way); PROG must stay in the process group.
# Exit: the guest's status; 124 timeout; 125 no exit line; 126 host problem.
. "$(dirname "$0")/lib.sh"

EXIT_TAG="TODO-EXIT:"   # printed by the guest init right before poweroff
INIT_TAG="TODO-INIT:"   # first line the guest init prints

flavour=$(cat "$BUILD/LAST_FLAVOUR" 2>/dev/null || echo run)
job=run timeout=120 mem=512M show=guest log="" wrap=() extra=()

while [ $# -gt 0 ]; do
	case $1 in
	--flavour) flavour=$2; shift 2 ;;
	--job) job=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--show) show=$2; shift 2 ;;
	--log) log=$2; shift 2 ;;
	--wrap) wrap=("$2"); shift 2 ;;
	--) shift; extra=("$@"); break ;;
	*) die "boot.sh: unknown argument '$1'" "see the usage at the top of scripts/boot.sh" ;;
	esac
done

arch=$(flavour_arch "$flavour")
linux=$(obj_dir "$flavour")/$(flavour_image "$flavour")
initrd=$BUILD/initramfs.cpio
[ -f "$linux" ] || die "no kernel at $linux" "build it first: make build FLAVOUR=$flavour"
[ -f "$initrd" ] || die "no initramfs at $initrd" "build it first: make initramfs"
[ -n "$log" ] || log=$LOGS/boot-$job-$(date +%Y%m%d-%H%M%S).log

# Processes still in the UML process group once the kernel has exited.
leftovers() { pgrep -g "$1" 2>/dev/null || true; }

case $show in all | guest | none) ;; *) die "--show takes all, guest or none, not '$show'" ;; esac
mkdir -p "$BUILD/uml"
umid=todo-$job-$$
if [ "$arch" = um ]; then
	check_tempdir
	cmd=("$linux" mem="$mem" initrd="$initrd" uml_dir="$BUILD/uml" umid="$umid"
		con=null ssl=null con0=fd:0,fd:1 guest="$job" "${extra[@]}")
else
	# panic=-1 with -no-reboot: a panic ends QEMU at once, as it ends UML.
	# KUnit and KCSAN from boot (configs/smp.config says why not by config);
	# a later kunit.enable=0 in the extra arguments wins.
	qemu_args=("$linux" "$initrd" "$mem"
		"console=ttyS0 panic=-1 kunit.enable=1 kcsan.early_enable=1 $(guest_lpj "$(obj_dir "$flavour")/.config") guest=$job ${extra[*]}")
	qemu_cmd "${qemu_args[@]}"
	cmd=("${QEMU_CMD[@]}")
fi

# Boot cmd once: console to $log, wait for the end or the timeout, check
# nothing is left behind.  Sets timed_out and kvm_failed.
run_kernel() {
	kvm_failed=0
	info "booting $flavour kernel, job '$job', timeout ${timeout}s, console log ${log#"$TOP"/}"
	show_cmd "${wrap[@]}" "${cmd[@]}"
	# UML polls its console fds, and epoll refuses regular files: the console
	# goes through a FIFO to a writer that also drops the CRs of the tty layer.
	fifo=$BUILD/uml/$umid.console
	rm -f "$fifo"
	mkfifo "$fifo"
	: >"$log"
	stdbuf -oL tr -d '\r' <"$fifo" >"$log" & # line by line: tests read it live
	writer=$!
	# Console input: UML adds its input fd to epoll, which refuses /dev/null and
	# regular files (and CI's stdin).  Give it a FIFO that this script holds
	# open for writing, so it is pollable and never hits end-of-file.
	input=$BUILD/uml/$umid.input
	rm -f "$input"
	mkfifo "$input"
	exec {hold}<>"$input"
	# A background child of a script is not a process-group leader, so setsid
	# does not fork: $! is the kernel's pid (or the --wrap program's) and the id
	# of its own process group.
	setsid "${wrap[@]}" "${cmd[@]}" <"$input" >"$fifo" 2>&1 {hold}>&- &
	pid=$!

	# The viewer follows the writer, which ends only once the console is drained.
	viewer=""
	case $show in
	all) tail -n +1 -f --pid="$writer" "$log" 2>/dev/null & viewer=$! ;;
	guest)
		tail -n +1 -f --pid="$writer" "$log" 2>/dev/null |
			awk -v tag="$INIT_TAG" 'index($0, tag) == 1 { on = 1 } on' &
		viewer=$! ;;
	esac

	# Without ACPI tables the x86_64 guest cannot power off: poweroff -f halts
	# it instead ("System halted"), and QEMU would wait for the timeout.
	halted() { [ "$arch" != um ] && grep -q "^$EXIT_TAG" "$log" && grep -q 'System halted' "$log"; }
	# QEMU stops a guest that KVM cannot run, and waits; before that the
	# kernel had printed nothing for minutes.  Under a working KVM its
	# banner comes within a second, so 30 s of silence count as a failure.
	kvm_broke() {
		{ [ "$arch" != um ] && [ "$QEMU_ACCEL" = kvm ]; } || return 1
		grep -q '^KVM internal error' "$log" && return 0
		[ "$SECONDS" -ge "$kvm_silent_by" ] && ! grep -q '^Linux version' "$log"
	}

	timed_out=0
	deadline=$((SECONDS + timeout)) kvm_silent_by=$((SECONDS + 30))
	while kill -0 "$pid" 2>/dev/null; do
		if halted; then
			kill -TERM -- "-$pid" 2>/dev/null || true
			break
		fi
		if kvm_broke; then
			kvm_failed=1
			kill -TERM -- "-$pid" 2>/dev/null || true
			break
		fi
		if [ "$SECONDS" -ge "$deadline" ]; then
			timed_out=1
			kill -TERM -- "-$pid" 2>/dev/null || true
			sleep 2
			kill -KILL -- "-$pid" 2>/dev/null || true
			break
		fi
		sleep 0.2
	done
	wait "$pid" 2>/dev/null || true
	wait "$writer" 2>/dev/null || true
	exec {hold}>&-
	rm -f "$fifo" "$input"
	[ -n "$viewer" ] && wait "$viewer" 2>/dev/null || true

	# Whatever UML forked must be gone too; give it a moment, then insist.
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		[ -z "$(leftovers "$pid")" ] && break
		sleep 0.3
	done
	left=$(leftovers "$pid")
	if [ -n "$left" ]; then
		printf '[%s] error: the kernel (%s) left host processes behind: %s\n' "$(ts)" "$arch" "$(echo $left)" >&2
		kill -KILL -- "-$pid" 2>/dev/null || true
		exit 126
	fi
	rm -rf "${BUILD:?}/uml/$umid"
}

run_kernel
# A host can offer /dev/kvm and still fail the guest (seen under nested
# virtualisation: no console output for minutes, then "KVM internal error.
# Suberror: 1 ... emulation failure" on a lock cmpxchg16b, after which QEMU
# waits with the guest stopped).  The job then runs again under TCG;
# SMP_ACCEL=tcg skips KVM altogether.
if [ "$kvm_failed" -eq 1 ]; then
	mv "$log" "$log.kvm"
	why=$(grep -m1 '^KVM internal error' "$log.kvm" | tr -d '\r' || true)
	printf '[%s] warning: KVM failed the guest (%s); booting it again with TCG (SMP_ACCEL=tcg skips KVM)\n' \
		"$(ts)" "${why:-no console output in 30 s}" >&2
	SMP_ACCEL=tcg qemu_cmd "${qemu_args[@]}"
	cmd=("${QEMU_CMD[@]}")
	: >"$log"
	run_kernel
fi

last_lines() {
	printf '  last console lines (%s):\n' "${log#"$TOP"/}" >&2
	tail -n "$1" "$log" | sed 's/^/  | /' >&2
}

if [ "$timed_out" -eq 1 ]; then
	printf '[%s] error: guest job %s timed out after %s s; the kernel was killed\n' "$(ts)" "$job" "$timeout" >&2
	last_lines 20
	exit 124
fi
status=$(sed -n "s/^$EXIT_TAG \([0-9]*\)\$/\1/p" "$log" | tail -n 1)
if [ -z "$status" ]; then
	printf '[%s] error: the guest exited without reporting its status (no "%s" line)\n' "$(ts)" "$EXIT_TAG" >&2
	last_lines 30
	if grep -q 'Kernel panic' "$log"; then
		printf '  the kernel panicked; decode the trace with:\n  %s\n' \
			"$SRC/scripts/decode_stacktrace.sh $(obj_dir "$flavour")/vmlinux $SRC $(obj_dir "$flavour") < $log" >&2
	fi
	exit 125
fi
info "guest job '$job' exited with status $status"
exit "$status"
