# shellcheck shell=bash
# The QEMU backend: x86_64 guests under qemu-system-x86_64 (the smp
# flavours): which accelerator, decided by trying it, and the command
# line.  scripts/host/lib/uml.sh defines the same backend_ functions for
# UML; backend_load (scripts/host/lib/flavour.sh) sources one of the two
# for a flavour, and nothing else asks which.  Sourced alone, for the
# qemu_ functions (scripts/host/test.sh: the KVM verdict), it needs no
# flavour.
#
# SMP_ACCEL=kvm or tcg forces one, with no fallback.  Unset, KVM is used
# only if a probe guest (scripts/kvm-probe/probe.S, well under a second)
# ran under it with the same -cpu and -smp as the real boot, into 64-bit
# long mode and through a loop that TCG ends in 0.2 s, and a real boot
# that then fails under KVM before its first console line is booted again
# once under TCG (scripts/host/lib/session.sh; under gdb, gdb too).
# /dev/kvm being there proves nothing: nested under another hypervisor it
# has aborted QEMU (AMD: "failed to set MSR 0x10a"), stopped a guest after
# minutes of silence (Sapphire Rapids: "KVM internal error ... emulation
# failure"), and run guests 1000 times slower than TCG (Intel, kvm_pvm:
# no Linux kernel printed a byte in 60 s).  The
# probe's verdict is exported as SMP_ACCEL_PROBED, so that a run of many
# boots (make test) probes once.
. "${BASH_SOURCE[0]%/*}/base.sh"

# shellcheck disable=SC2034 # read by backend_load
BACKEND_LOADED=qemu
QEMU=qemu-system-x86_64
QEMU_ACCEL_FORCED=0
# Under KVM the banner comes within a second; a boot that has printed
# nothing after this many seconds is taken as KVM failing.
QEMU_FIRST_LINE_TIMEOUT=${SMP_KVM_FIRST_LINE_TIMEOUT:-30}
QEMU_FIRST_LINE='^Linux version '
# The probe's last line: all of it, so that no other probe (an older
# 32-bit one, which printed "kvm-probe: guest running") can pass.
QEMU_PROBE_LINE='kvm-probe: guest running: 10^7 iterations done in long mode'
# A CPU that runs the guest ends the probe in milliseconds, TCG in 0.2 s.
QEMU_PROBE_TIMEOUT=${SMP_KVM_PROBE_TIMEOUT:-5}

qemu_check_installed() {
	command -v "$QEMU" >/dev/null ||
		die "$QEMU is not installed" "run: make deps (package qemu-system-x86)"
}

# qemu_accel_args ACCEL: the accelerator and CPU options, in QEMU_ACCEL_ARGS.
qemu_accel_args() {
	case $1 in
	kvm) QEMU_ACCEL_ARGS=(-accel kvm -cpu host) ;;
	tcg) QEMU_ACCEL_ARGS=(-accel tcg,thread=multi -cpu max) ;;
	*) die "SMP_ACCEL must be kvm or tcg, not '$1'" "unset it to let the runner probe KVM" ;;
	esac
}

# qemu_kvm_failure LOG STATUS SECONDS: why a guest under KVM failed before
# its first console line (QEMU_FIRST_LINE or the probe's), on stdout; no
# output while it has not failed.  STATUS: QEMU's exit status, empty while
# it runs; SECONDS: how long it has run.
qemu_kvm_failure() {
	local log=$1 status=$2 secs=$3 last
	if grep -q '^KVM internal error' "$log"; then
		grep -m1 '^KVM internal error' "$log"
	elif grep -Eq "$QEMU_FIRST_LINE|^kvm-probe: " "$log"; then
		return 0
	elif [ -n "$status" ]; then
		last=$(grep -v '^[[:space:]]*$' "$log" | tail -n 1 | cut -c1-160)
		printf '%s exited with status %s%s before its first console line%s' "$QEMU" "$status" \
			"$([ "$status" -le 128 ] || echo " (signal $(kill -l "$((status - 128))" 2>/dev/null))")" \
			"${last:+: $last}"
	elif [ "$secs" -ge "$QEMU_FIRST_LINE_TIMEOUT" ]; then
		printf 'no console output in %s s' "$QEMU_FIRST_LINE_TIMEOUT"
	fi
}

# qemu_probe_run ACCEL LOG: run the probe guest under ACCEL, console to
# LOG, for at most QEMU_PROBE_TIMEOUT s; its exit status (124 timed out).
qemu_probe_run() {
	local src=$TOP/scripts/kvm-probe/probe.S dir=$BUILD/kvm-probe status=0
	mkdir -p "$dir" "$LOGS"
	# Assembled again whenever the source differs from the one it was
	# made from (kept beside it), whatever the files' times.
	if [ ! -f "$dir/probe.elf" ] || ! cmp -s "$src" "$dir/probe.S"; then
		as --32 -o "$dir/probe.o" "$src" &&
			ld -m elf_i386 -n -Ttext=0x100000 -e _start -o "$dir/probe.elf" "$dir/probe.o" &&
			cp "$src" "$dir/probe.S" ||
			die "cannot assemble the KVM probe guest $src" "binutils (as, ld) must be installed"
	fi
	qemu_accel_args "$1"
	# With stderr dropped around it: bash's "Aborted" for a QEMU
	# that aborts is no news, the reason below says it.
	{ timeout -k 2 "$QEMU_PROBE_TIMEOUT" "$QEMU" "${QEMU_ACCEL_ARGS[@]}" -smp "${SMP_CPUS:-4}" -m 64M \
		-nodefaults -display none -serial stdio -no-reboot \
		-device isa-debug-exit,iobase=0xf4,iosize=4 -kernel "$dir/probe.elf" </dev/null >"$2" 2>&1; } 2>/dev/null ||
		status=$?
	return "$status"
}

# qemu_probe_kvm: try the probe guest under KVM; set QEMU_PROBE_WHY to the
# verdict, return 0 if KVM ran it to its last line in time.  Its console
# is build/logs/kvm-probe.log.  A probe that started but did not finish in
# time is timed under TCG too, for the comparison in the verdict.
qemu_probe_kvm() {
	local log=$LOGS/kvm-probe.log status=0 t0=$SECONDS last tcg_ns tcg_note=""
	qemu_check_installed
	qemu_probe_run kvm "$log" || status=$?
	if grep -qxF "$QEMU_PROBE_LINE" "$log"; then
		QEMU_PROBE_WHY="a probe guest ran 10^7 iterations in 64-bit long mode on ${SMP_CPUS:-4} vCPUs in $((SECONDS - t0)) s"
		return 0
	fi
	last=$(grep -a '^kvm-probe: ' "$log" | tail -n 1 | sed 's/^kvm-probe: //')
	if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
		if [ -n "$last" ]; then
			tcg_ns=$(date +%s%N)
			qemu_probe_run tcg "$LOGS/kvm-probe-tcg.log" || true
			! grep -qxF "$QEMU_PROBE_LINE" "$LOGS/kvm-probe-tcg.log" ||
				tcg_note=", TCG runs all of it in $((($(date +%s%N) - tcg_ns) / 1000000)) ms"
			QEMU_PROBE_WHY="the probe guest reached $last, then did not finish its loop in $QEMU_PROBE_TIMEOUT s$tcg_note: this KVM runs guests slower than emulation"
		else
			QEMU_PROBE_WHY="the probe guest printed nothing in $QEMU_PROBE_TIMEOUT s"
		fi
	else
		QEMU_PROBE_WHY=$(QEMU_FIRST_LINE_TIMEOUT=999999 qemu_kvm_failure "$log" "$status" 0)
	fi
	[ -e /dev/kvm ] || QEMU_PROBE_WHY+="; there is no /dev/kvm"
	return 1
}

# qemu_decide_accel: set and export SMP_ACCEL_PROBED (kvm or tcg) unless
# SMP_ACCEL forces one or an earlier call decided, and say what was decided
# and why in one line.  Sets QEMU_ACCEL_FORCED (1 when SMP_ACCEL forces).
qemu_decide_accel() {
	QEMU_ACCEL_FORCED=0
	if [ -n "${SMP_ACCEL:-}" ]; then
		qemu_accel_args "$SMP_ACCEL"
		QEMU_ACCEL_FORCED=1
		info "KVM: not probed; SMP_ACCEL=$SMP_ACCEL forces -accel $SMP_ACCEL"
		return 0
	fi
	[ -z "${SMP_ACCEL_PROBED:-}" ] || return 0
	if qemu_probe_kvm; then
		SMP_ACCEL_PROBED=kvm
		info "KVM: usable ($QEMU_PROBE_WHY); x86_64 guests boot with -accel kvm, falling back to TCG if one fails"
	else
		SMP_ACCEL_PROBED=tcg
		info "KVM: not usable ($QEMU_PROBE_WHY); x86_64 guests boot under TCG"
	fi
	export SMP_ACCEL_PROBED
}

# guest_lpj CONFIG: "lpj=N" for an x86_64 guest of kernel config CONFIG, N
# the host's TSC cycles per jiffy.  Under TCG the secondary CPUs time their
# delay loop against jiffies on a busy host, and some came out 5 to 20
# times short ("calibrate_delay_direct() failed"): pm_test_delay's mdelay()
# of 2 s then ended after 100 ms.  The guest's TSC is the host's (TCG and
# KVM), so the host's rate is the right one.  Nothing if it is unknown.
guest_lpj() {
	local hz
	hz=$(sed -n 's/^CONFIG_HZ=//p' "$1" 2>/dev/null)
	awk -F: -v hz="${hz:-250}" '/^cpu MHz/ { printf "lpj=%d", $2 * 1000000 / hz; exit }' /proc/cpuinfo
}

# qemu_cmd ACCEL BZIMAGE INITRD MEM APPEND [QEMU-OPTION...]: set the array
# QEMU_CMD to the QEMU command that boots an x86_64 flavour with SMP_CPUS
# vCPUs (default 4) under ACCEL (kvm, or tcg with one host thread per
# vCPU), with the QEMU-OPTIONs added.  The serial console is on stdio;
# -no-reboot makes the guest's poweroff, reboot or panic end QEMU.
qemu_cmd() {
	local accel=$1 kernel=$2 initrd=$3 mem=$4 append=$5
	shift 5
	qemu_check_installed
	qemu_accel_args "$accel"
	QEMU_CMD=("$QEMU" "${QEMU_ACCEL_ARGS[@]}" -smp "${SMP_CPUS:-4}" -m "$mem"
		-nodefaults -display none -serial stdio -no-reboot
		-kernel "$kernel" -initrd "$initrd" -append "$append" "$@")
}

# qemu_gdb_stub_args SOCKET: in QEMU_GDB_STUB_ARGS, the options that start
# the guest halted (-S) with QEMU's gdb stub listening on the Unix socket
# SOCKET ("target remote SOCKET" in gdb): no TCP port to pick, or to share
# with another user's QEMU on this machine.
qemu_gdb_stub_args() {
	QEMU_GDB_STUB_ARGS=(-S -chardev "socket,id=gdbstub,path=$1,server=on,wait=off" -gdb chardev:gdbstub)
}

# backend_config_base: what a flavour's config fragments are merged onto
# (scripts/host/config.sh): "allnoconfig", everything off; the fragment
# names all it needs.
backend_config_base() { echo allnoconfig; }

# backend_links_top: false: a bzImage is no program to run as ./linux.
backend_links_top() { false; }

# backend_test_mem: the guest memory the host tests boot with
# (boot_job in tests/host/lib.sh): 4 vCPUs, KCSAN and lockdep.
backend_test_mem() { echo 1G; }

# backend_cmd JOB MEM INITRD INPUT GDB-STUB [KERNEL-ARG...]: set BACKEND_CMD
# to the command that boots SESSION_IMAGE with guest job JOB
# (session_start): MEM of memory, INITRD, the serial console on stdio
# (INPUT is UML's), under the accelerator qemu_decide_accel chose (in
# SESSION_ACCEL); with GDB-STUB 1, halted until gdb connects to
# SESSION_GDB_SOCKET.  What backend_fallback_cmd boots again with is kept
# in QEMU_BOOT_ARGS.
backend_cmd() {
	local job=$1 mem=$2 initrd=$3 gdb_stub=$5
	shift 5
	# panic=-1 with -no-reboot: a panic ends QEMU at once, as it ends UML.
	# KUnit and KCSAN from boot (configs/smp.config says why not by config);
	# a later kunit.enable=0 in the extra arguments wins.  loglevel=6:
	# with several vCPUs the kernel's info lines (a freeze prints
	# five) land inside the guest's KTAP lines on the one serial port
	# ("okFreezing user space processes" was seen), so only notices
	# ("Linux version", the KVM fallback's cue) and worse (every
	# report parse_console.py looks for) reach the console; the
	# programs read the whole kernel log themselves.
	QEMU_BOOT_ARGS=("$SESSION_IMAGE" "$initrd" "$mem"
		"console=ttyS0 panic=-1 loglevel=6 kunit.enable=1 kcsan.early_enable=1 $(guest_lpj "$(obj_dir "$SESSION_FLAVOUR")/.config") job=$job $*")
	if [ "$gdb_stub" -eq 1 ]; then
		session_gdb_socket_path
		qemu_gdb_stub_args "$SESSION_GDB_SOCKET"
		QEMU_BOOT_ARGS+=("${QEMU_GDB_STUB_ARGS[@]}")
	fi
	qemu_decide_accel
	SESSION_ACCEL=${SMP_ACCEL:-$SMP_ACCEL_PROBED}
	qemu_cmd "$SESSION_ACCEL" "${QEMU_BOOT_ARGS[@]}"
	# shellcheck disable=SC2034 # for the caller
	BACKEND_CMD=("${QEMU_CMD[@]}")
}

# backend_halted LOG: without ACPI tables the x86_64 guest cannot power
# off: poweroff -f halts it instead ("System halted" in console LOG), and
# QEMU would wait for the timeout.
backend_halted() { grep -q "^$SESSION_EXIT_TAG" "$1" && grep -q 'System halted' "$1"; }

# backend_kvm_broke LOG STARTED [STATUS]: a boot under KVM that SMP_ACCEL
# did not force, started at SECONDS=STARTED with its console in LOG,
# failed before its first console line (QEMU aborted or exited with
# STATUS, printed nothing in time, or said "KVM internal error"); the
# reason in SESSION_KVM_WHY.
backend_kvm_broke() {
	[ "$SESSION_ACCEL" = kvm ] && [ "$QEMU_ACCEL_FORCED" -eq 0 ] || return 1
	SESSION_KVM_WHY=$(qemu_kvm_failure "$1" "${3:-}" "$((SECONDS - $2))")
	[ -n "$SESSION_KVM_WHY" ]
}

# backend_fallback_cmd: set BACKEND_CMD to the boot of backend_cmd again,
# under TCG, after KVM failed it (backend_kvm_broke).
backend_fallback_cmd() {
	SESSION_ACCEL=tcg
	qemu_cmd "$SESSION_ACCEL" "${QEMU_BOOT_ARGS[@]}"
	# shellcheck disable=SC2034 # for the caller
	BACKEND_CMD=("${QEMU_CMD[@]}")
}

# backend_pid: QEMU's host pid, the id of the session's process group.
backend_pid() { cat "$SESSION_DIR/$SESSION_UMID.pgid" 2>/dev/null; }

# backend_mconsole: dies: mconsole is a UML device.
backend_mconsole() {
	die "the $SESSION_FLAVOUR flavour runs under QEMU: it has no mconsole (a UML device)" \
		"boot a UML flavour (run, test or bench) to use uml_mconsole"
}

# backend_has_hostfs: false: no hostfs, and configs/smp.config has no
# virtio-9p.
backend_has_hostfs() { false; }

# backend_has_gdb_stub: true: gdb connects to QEMU's stub (session_start
# --gdb-stub), one thread per vCPU.
backend_has_gdb_stub() { true; }

# backend_can_attach: false: the kernel is no host process of its own.
backend_can_attach() { false; }

# backend_gdb_breakpoint: hardware breakpoints: gdb connects while the CPUs
# are still at the reset vector, where the kernel text is not mapped yet,
# so a software breakpoint cannot be written there under KVM (TCG would
# take either kind).
backend_gdb_breakpoint() { echo hbreak; }

# backend_gdb_args: in BACKEND_GDB_ARGS, the options gdb needs for this
# kernel: none.
# shellcheck disable=SC2034 # for the caller
backend_gdb_args() { BACKEND_GDB_ARGS=(); }
