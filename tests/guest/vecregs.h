/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Vector registers through a system call.  vec_syscall() loads every
 * vector register the CPU has (xmm0-15, ymm0-15, or zmm0-31 and the mask
 * registers k1-k7) from a buffer, makes one system call, and stores the
 * registers to a second buffer.  UML moves a task's registers to and from
 * the host process that runs it around every system call, context switch
 * and freeze; a byte that comes back different was lost on the way.
 * Include in one .c file per program (it defines the functions in asm).
 */
#ifndef VECREGS_H
#define VECREGS_H

#include <stddef.h>
#include <string.h>

enum vec_width { VEC_SSE, VEC_AVX, VEC_AVX512 };

/* 32 zmm registers of 64 bytes, then k1-k7 (16 bits each, AVX512F). */
#define VEC_K_OFFSET	(32 * 64)
struct vec_regs {
	unsigned char b[VEC_K_OFFSET + 7 * 2];
} __attribute__((aligned(64)));

static inline enum vec_width vec_width(void)
{
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f"))
		return VEC_AVX512;
	if (__builtin_cpu_supports("avx"))
		return VEC_AVX;
	return VEC_SSE;
}

static inline const char *vec_name(enum vec_width w)
{
	return w == VEC_AVX512 ? "AVX-512: zmm0-31, k1-k7" :
	       w == VEC_AVX ? "AVX: ymm0-15" : "SSE: xmm0-15";
}

/* How many bytes of struct vec_regs the registers of @w fill. */
static inline size_t vec_bytes(enum vec_width w)
{
	return w == VEC_AVX512 ? sizeof(((struct vec_regs *)0)->b) :
	       w == VEC_AVX ? 16 * 32 : 16 * 16;
}

/* A pattern that differs in every byte from one @seed to the next. */
static inline void vec_fill(struct vec_regs *r, unsigned int seed)
{
	size_t i;

	for (i = 0; i < sizeof(r->b); i++)
		r->b[i] = (unsigned char)(seed * 131 + i * 7 + 1);
}

/* The bytes of @w's registers that differ between @a and @b. */
static inline int vec_differ(enum vec_width w, const struct vec_regs *a,
			     const struct vec_regs *b)
{
	size_t i;
	int n = 0;

	for (i = 0; i < vec_bytes(w); i++)
		n += a->b[i] != b->b[i];
	return n;
}

/*
 * long vec_W_syscall(const struct vec_regs *in, struct vec_regs *out,
 *                    long nr, long a1, long a2, long a3);
 * Vector registers are caller-saved in the x86-64 ABI, so the functions
 * may load them freely; rbx (callee-saved) keeps @out across the call.
 */
#define VEC_FN(name, loads, stores)						\
	".text\n.globl " name "\n.type " name ",@function\n" name ":\n"	\
	"push %rbx\n mov %rsi, %rbx\n mov %rdi, %r10\n mov %rdx, %rax\n"	\
	"mov %rcx, %rdi\n mov %r8, %rsi\n mov %r9, %rdx\n"			\
	loads "syscall\n" stores "pop %rbx\n ret\n.size " name ", .-" name "\n"

__asm__(VEC_FN("vec_sse_syscall",
	       ".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n"
	       "movdqu \\i*16(%r10), %xmm\\i\n.endr\n",
	       ".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n"
	       "movdqu %xmm\\i, \\i*16(%rbx)\n.endr\n"));
__asm__(VEC_FN("vec_avx_syscall",
	       ".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n"
	       "vmovdqu \\i*32(%r10), %ymm\\i\n.endr\n",
	       ".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n"
	       "vmovdqu %ymm\\i, \\i*32(%rbx)\n.endr\nvzeroupper\n"));
__asm__(VEC_FN("vec_avx512_syscall",
	       ".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,"
	       "16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31\n"
	       "vmovdqu64 \\i*64(%r10), %zmm\\i\n.endr\n"
	       ".irp i,1,2,3,4,5,6,7\n"
	       "kmovw 2048+(\\i-1)*2(%r10), %k\\i\n.endr\n",
	       ".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,"
	       "16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31\n"
	       "vmovdqu64 %zmm\\i, \\i*64(%rbx)\n.endr\n"
	       ".irp i,1,2,3,4,5,6,7\n"
	       "kmovw %k\\i, 2048+(\\i-1)*2(%rbx)\n.endr\nvzeroupper\n"));

long vec_sse_syscall(const struct vec_regs *in, struct vec_regs *out,
		     long nr, long a1, long a2, long a3);
long vec_avx_syscall(const struct vec_regs *in, struct vec_regs *out,
		     long nr, long a1, long a2, long a3);
long vec_avx512_syscall(const struct vec_regs *in, struct vec_regs *out,
			long nr, long a1, long a2, long a3);

/* System call @nr with @w's registers loaded from @in, stored to @out. */
static inline long vec_syscall(enum vec_width w, const struct vec_regs *in,
			       struct vec_regs *out, long nr, long a1, long a2, long a3)
{
	memset(out, 0, sizeof(*out));
	if (w == VEC_AVX512)
		return vec_avx512_syscall(in, out, nr, a1, a2, a3);
	if (w == VEC_AVX)
		return vec_avx_syscall(in, out, nr, a1, a2, a3);
	return vec_sse_syscall(in, out, nr, a1, a2, a3);
}

#endif
