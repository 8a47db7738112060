/*
 * The KVM probe's guest (scripts/host/lib/qemu.sh, qemu_probe_accel): a multiboot
 * kernel that QEMU loads with -kernel.  It writes one line to the first
 * serial port and leaves QEMU through isa-debug-exit (exit status 33).
 * Reaching that line proves that QEMU could create, reset and run every
 * vCPU with the accelerator and -cpu it was given; the 6.12 kernel is not
 * needed for that, so the probe takes well under a second.
 */
	.section .multiboot, "a"
	.align 4
	.long 0x1badb002		/* multiboot v1 magic */
	.long 0				/* flags: the ELF headers say where to load */
	.long -0x1badb002		/* checksum */

	.text
	.code32
	.globl _start
_start:
	cli
	mov	$msg, %esi
	mov	$0x3f8, %dx		/* COM1 data register */
1:	lodsb
	test	%al, %al
	jz	2f
	outb	%al, %dx
	jmp	1b
2:	mov	$0xf4, %dx		/* isa-debug-exit: QEMU exits (0x10 << 1) | 1 */
	mov	$0x10, %al
	outb	%al, %dx
3:	hlt
	jmp	3b

	.section .rodata
msg:	.asciz "kvm-probe: guest running\n"
