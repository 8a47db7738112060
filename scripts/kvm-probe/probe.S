/*
 * The KVM probe's guest (scripts/host/lib/qemu.sh, qemu_probe_kvm): a
 * multiboot kernel that QEMU loads with -kernel.  It enters the way an
 * x86_64 Linux kernel does after its setup code: from 32-bit protected
 * mode it builds 4-level page tables, turns on PAE, long mode (EFER.LME,
 * with NX and SYSCALL enabled as the kernel's startup does) and paging,
 * and jumps to a 64-bit code segment.  There it runs a loop of 10^7
 * iterations, each a store to one of 16 pages (a few milliseconds on a
 * CPU that runs the guest, a fraction of a second under TCG), and only then prints
 * the line that passes.  It prints one line at each step to the first
 * serial port and leaves QEMU through isa-debug-exit (exit status 33).
 *
 * Why a loop in long mode: on an Intel host whose /dev/kvm comes from
 * kvm_pvm (no VMX), a probe that only printed from 32-bit mode passed,
 * while no Linux kernel printed a byte in minutes.  That host runs a
 * guest that is not PVM-aware by emulating it, about 1000 times slower
 * than TCG (10^6 iterations of this loop took 3.3 s; the kernel's
 * decompressor was still running after 30 s).  So the verdict needs the
 * speed of 64-bit code with paging, not only that it runs; the last line
 * printed tells how far a failing host got.
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
	mov	$msg32, %esi
	call	puts32

	/* Identity-map the first GiB with 2 MiB pages: PML4 -> PDPT -> PD. */
	mov	$pd, %edi
	mov	$0x83, %eax		/* present, writable, 2 MiB page */
	xor	%ecx, %ecx
1:	mov	%eax, (%edi, %ecx, 8)
	movl	$0, 4(%edi, %ecx, 8)
	add	$0x200000, %eax
	inc	%ecx
	cmp	$512, %ecx
	jne	1b
	mov	$pdpt + 3, %eax
	mov	%eax, pml4
	mov	$pd + 3, %eax
	mov	%eax, pdpt

	mov	%cr4, %eax
	or	$0x20, %eax		/* CR4.PAE */
	mov	%eax, %cr4
	mov	$pml4, %eax
	mov	%eax, %cr3
	mov	$0xc0000080, %ecx	/* EFER */
	rdmsr
	or	$0x901, %eax		/* NXE, LME, SCE */
	wrmsr
	lgdt	gdt_desc
	mov	%cr0, %eax
	or	$0x80000001, %eax	/* CR0.PG, CR0.PE */
	mov	%eax, %cr0
	ljmp	$0x08, $long_mode

/* puts32: the NUL-terminated string at %esi to COM1. */
puts32:
	mov	$0x3f8, %dx		/* COM1 data register */
1:	lodsb
	test	%al, %al
	jz	2f
	outb	%al, %dx
	jmp	1b
2:	ret

	.code64
long_mode:
	mov	$0x10, %ax
	mov	%ax, %ds
	mov	%ax, %es
	mov	%ax, %ss
	lea	msg64(%rip), %rsi
	call	puts64

	/* The loop: 10^7 stores, over and over the 64 KiB at 4 MiB. */
	mov	$10000000, %rcx
	mov	$0x400000, %rdi
1:	mov	%rcx, (%rdi)
	add	$8, %rdi
	and	$0x40ffff, %rdi
	dec	%rcx
	jnz	1b

	lea	msg_done(%rip), %rsi
	call	puts64
	mov	$0xf4, %dx		/* isa-debug-exit: QEMU exits (0x10 << 1) | 1 */
	mov	$0x10, %al
	outb	%al, %dx
3:	hlt
	jmp	3b

/* puts64: the NUL-terminated string at %rsi to COM1. */
puts64:
	mov	$0x3f8, %dx
1:	lodsb
	test	%al, %al
	jz	2f
	outb	%al, %dx
	jmp	1b
2:	ret

	.section .rodata
	.align 8
gdt:	.quad 0
	.quad 0x00af9a000000ffff	/* 0x08: 64-bit code */
	.quad 0x00cf92000000ffff	/* 0x10: data */
gdt_desc:
	.word gdt_desc - gdt - 1
	.long gdt
msg32:	.asciz "kvm-probe: protected mode\n"
msg64:	.asciz "kvm-probe: 64-bit long mode\n"
msg_done:
	.asciz "kvm-probe: guest running: 10^7 iterations done in long mode\n"

	/* In .data, not .bss: the loader writes the file's bytes, zeros. */
	.data
	.align 4096
pml4:	.fill 4096, 1, 0
pdpt:	.fill 4096, 1, 0
pd:	.fill 4096, 1, 0
