#!/usr/bin/env bash
# KVM that fails is left for TCG, whichever way it fails, on any host: a
# qemu-system-x86_64 first in PATH aborts (as QEMU did on a nested AMD
# host, "failed to set MSR 0x10a") or hangs without a word whenever it is
# given -accel kvm, and runs the real QEMU otherwise.  In each case the
# probe (scripts/host/lib/qemu.sh) says KVM is not usable and why, and a boot of the
# smp kernel whose probe had passed (so the kernel, not the probe guest,
# fails under KVM, as on the Sapphire Rapids host) falls back to TCG once,
# keeps the KVM console as LOG.kvm, and the guest job passes.  With
# SMP_ACCEL=kvm forcing KVM the aborting case fails: the fallback is what
# makes it pass.
# A third QEMU runs the probe guest (under TCG, so that it passes on any
# host) but, for a Linux kernel under -accel kvm, a guest that prints
# nothing, with QEMU and its gdb stub up, as the Intel host with kvm_pvm
# did before the probe ran 64-bit code: there the probe passes, and make
# debug FLAVOUR=smp, whose gdb loses the guest, restarts the guest and
# gdb under TCG and stops at its breakpoint.
# needs: initramfs
# builds: make build FLAVOUR=smp
# builds: make build FLAVOUR=smp-gdb
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../../scripts/host/lib/qemu.sh"

tmp=$(scratch)
real=$(command -v "$QEMU") || { fail "kvm fallback: $QEMU is installed"; exit 0; }

# A multiboot kernel that prints nothing and halts: what QEMU runs in
# place of a Linux kernel in the hang-linux mode, so that QEMU itself runs
# (with its gdb stub) and the guest stays silent, as on the kvm_pvm host.
hang_kernel() {
	[ -f "$tmp/hang.elf" ] && return 0
	printf '%s\n' '.section .multiboot, "a"' '.align 4' '.long 0x1badb002, 0, -0x1badb002' \
		'.text' '.code32' '.globl _start' '_start: cli' '1: hlt' 'jmp 1b' >"$tmp/hang.S"
	as --32 -o "$tmp/hang.o" "$tmp/hang.S" &&
		ld -m elf_i386 -n -Ttext=0x100000 -e _start -o "$tmp/hang.elf" "$tmp/hang.o"
}

# broken_qemu MODE: a directory whose qemu-system-x86_64 is broken so:
# abort, hang (QEMU prints nothing and never exits), or hang-linux (runs
# the probe guest, under TCG, but a silent kernel in place of Linux).
broken_qemu() {
	mkdir -p "$tmp/$1"
	[ "$1" != hang-linux ] || hang_kernel
	cat >"$tmp/$1/$QEMU" <<-EOF
		#!/bin/bash
		# KVM broken on purpose ($1) for tests/host/92-kvm-fallback.sh.
		case " \$* " in
		*" -accel kvm "*)
		    case $1 in
		    hang) exec sleep 100000 ;;
		    hang-linux)
		        args=("\$@")
		        for i in "\${!args[@]}"; do
		            case \${args[i]} in
		            kvm) args[i]=tcg ;;
		            host) args[i]=max ;;
		            */bzImage) args[i]=$tmp/hang.elf ;;
		            esac
		        done
		        exec $real "\${args[@]}" ;;
		    esac
		    echo "$QEMU: error: failed to set MSR 0x10a to 0x69" >&2
		    echo "$QEMU: ../../target/i386/kvm/kvm.c:3183: kvm_buf_set_msrs: Assertion failed." >&2
		    kill -ABRT \$\$ ;;
		esac
		exec $real "\$@"
	EOF
	chmod +x "$tmp/$1/$QEMU"
	echo "$tmp/$1"
}

# with_broken MODE CMD...: CMD with that QEMU first in PATH, nothing forced
# or probed before, and short bounds for a silent QEMU.
with_broken() {
	local dir
	dir=$(broken_qemu "$1")
	shift
	env -u SMP_ACCEL -u SMP_ACCEL_PROBED PATH="$dir:$PATH" \
		SMP_KVM_PROBE_TIMEOUT=5 SMP_KVM_FIRST_LINE_TIMEOUT=10 "$@"
}

boot_smp() {
	"$TOP/scripts/host/boot.sh" --flavour smp --job run --timeout 900 --mem 1G --show none \
		--log "$1" -- kunit.enable=0
}

if ! make -C "$TOP" --no-print-directory build FLAVOUR=smp >"$LOGS/kvm-fallback-build.log" 2>&1; then
	fail "kvm fallback: kernel 'smp' builds" "$LOGS/kvm-fallback-build.log"
	exit 0
fi

for mode in abort hang; do
	case $mode in
	abort) why="exited with status 134 \(signal ABRT\) before its first console line: .*Assertion" ;;
	hang) why="printed nothing in 5 s|no console output in 10 s" ;;
	esac
	# The probe, as make test runs it at its start.
	with_broken "$mode" bash -c '. "$1/scripts/host/lib/qemu.sh"; qemu_decide_accel' _ "$TOP" \
		>"$tmp/probe-$mode" 2>&1 || true
	expect "kvm fallback: the probe finds KVM unusable when QEMU ${mode}s" "$tmp/probe-$mode" \
		"KVM: not usable \(.*($why).*\); x86_64 guests boot under TCG"

	# A boot after a probe that passed: falls back to TCG and passes.
	log=$LOGS/kvm-fallback-$mode.log
	rm -f "$log" "$log.kvm"
	with_broken "$mode" env SMP_ACCEL_PROBED=kvm bash -c "$(declare -f boot_smp); TOP=$TOP; boot_smp $log" \
		>"$tmp/boot-$mode" 2>&1 && rc=0 || rc=$?
	name="kvm fallback: a boot that KVM fails ($mode) runs again under TCG and passes"
	if [ "$rc" -eq 0 ] && [ -f "$log.kvm" ] && grep -q '^TODO-EXIT: 0' "$log" &&
		! grep -q '^Linux version' "$log.kvm"; then
		expect "$name" "$tmp/boot-$mode" \
			"warning: KVM failed the guest \(.*($why).*; console: .*\.kvm\); booting it again under TCG" \
			"-accel tcg"
	else
		echo "# runner exit $rc; ${log#"$TOP"/}.kvm $([ -f "$log.kvm" ] && echo kept || echo missing)"
		fail "$name" "$tmp/boot-$mode"
	fi
done

# Without the fallback (KVM forced), the aborting QEMU fails the boot.
log=$LOGS/kvm-fallback-forced.log
with_broken abort env SMP_ACCEL=kvm bash -c "$(declare -f boot_smp); TOP=$TOP; boot_smp $log" \
	>"$tmp/boot-forced" 2>&1 && rc=0 || rc=$?
if [ "$rc" -ne 0 ] && [ ! -f "$log.kvm" ]; then
	expect "kvm fallback: SMP_ACCEL=kvm forces KVM, with no fallback" "$tmp/boot-forced" \
		"KVM: not probed; SMP_ACCEL=kvm forces -accel kvm" "without reporting its status"
else
	fail "kvm fallback: SMP_ACCEL=kvm forces KVM, with no fallback (runner exit $rc)" "$tmp/boot-forced"
fi

# hang-linux: the probe passes, so every boot pays the first-line timeout
# and falls back; under gdb, gdb is restarted with the guest.
with_broken hang-linux bash -c '. "$1/scripts/host/lib/qemu.sh"; qemu_decide_accel' _ "$TOP" \
	>"$tmp/probe-hang-linux" 2>&1 || true
expect "kvm fallback: a QEMU that runs the probe but hangs Linux passes the probe" "$tmp/probe-hang-linux" \
	"KVM: usable \(a probe guest ran 10\^7 iterations in 64-bit long mode"
if ! make -C "$TOP" --no-print-directory build FLAVOUR=smp-gdb >"$LOGS/kvm-fallback-build-smp-gdb.log" 2>&1; then
	fail "kvm fallback: kernel 'smp-gdb' builds" "$LOGS/kvm-fallback-build-smp-gdb.log"
else
	printf '%s\n' 'p $lx_current().comm' >"$tmp/batch.gdb"
	with_broken hang-linux make -C "$TOP" --no-print-directory debug FLAVOUR=smp BATCH="$tmp/batch.gdb" \
		TIMEOUT=900 >"$tmp/debug-hang-linux" 2>&1 && rc=0 || rc=$?
	name="kvm fallback: make debug FLAVOUR=smp whose guest KVM hangs restarts the guest and gdb under TCG"
	if [ "$rc" -eq 0 ]; then
		expect "$name" "$tmp/debug-hang-linux" "KVM: usable" \
			"warning: KVM failed the guest \(no console output in 10 s; console: .*\.kvm\); gdb lost it" \
			"KVM failed the guest under gdb \(.*\); decided: restart the guest and gdb under TCG" \
			"-accel tcg" 'hit Breakpoint 1, todo_freeze_task' '^\$1 = "' '^TODO-EXIT: 0$'
	else
		fail "$name (exit $rc)" "$tmp/debug-hang-linux"
	fi
fi
rm -rf "$tmp"
