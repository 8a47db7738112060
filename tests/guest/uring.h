/* SPDX-License-Identifier: GPL-2.0 */
/*
 * io_uring through raw system calls, for guest tests and the bench (no
 * liburing in the initramfs): the rings mmap()ed, SQEs written and CQEs
 * reaped by hand.  Include after guest.h.
 */
#ifndef GUEST_URING_H
#define GUEST_URING_H

#include <errno.h>
#include <linux/io_uring.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* One ring and the user-space view of its queues. */
struct uring {
	int fd;
	unsigned int flags;
	void *sq_ring, *cq_ring;
	size_t sq_ring_sz, cq_ring_sz, sqes_sz;
	struct io_uring_sqe *sqes;
	unsigned int *sq_head, *sq_tail, *sq_mask, *sq_flags, *sq_array;
	unsigned int *cq_head, *cq_tail, *cq_mask;
	struct io_uring_cqe *cqes;
};

static inline void uring_exit(struct uring *r)
{
	if (r->sqes && r->sqes != MAP_FAILED)
		munmap(r->sqes, r->sqes_sz);
	if (r->cq_ring && r->cq_ring != MAP_FAILED && r->cq_ring != r->sq_ring)
		munmap(r->cq_ring, r->cq_ring_sz);
	if (r->sq_ring && r->sq_ring != MAP_FAILED)
		munmap(r->sq_ring, r->sq_ring_sz);
	if (r->fd > 0)
		close(r->fd);
	memset(r, 0, sizeof(*r));
}

/*
 * Set up a ring of @entries with setup @flags; an SQ thread (SQPOLL) polls
 * for @idle_ms ms without work before it sleeps.  0 or -errno.
 */
static inline int uring_init(struct uring *r, unsigned int entries, unsigned int flags,
			     unsigned int idle_ms)
{
	struct io_uring_params p;

	memset(r, 0, sizeof(*r));
	memset(&p, 0, sizeof(p));
	p.flags = flags;
	p.sq_thread_idle = idle_ms;
	r->fd = syscall(__NR_io_uring_setup, entries, &p);
	if (r->fd < 0) {
		r->fd = 0;
		return -errno;
	}
	r->flags = flags;
	r->sq_ring_sz = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	r->cq_ring_sz = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if (p.features & IORING_FEAT_SINGLE_MMAP) {
		if (r->cq_ring_sz > r->sq_ring_sz)
			r->sq_ring_sz = r->cq_ring_sz;
		r->cq_ring_sz = r->sq_ring_sz;
	}
	r->sq_ring = mmap(NULL, r->sq_ring_sz, PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQ_RING);
	if (r->sq_ring == MAP_FAILED)
		return -errno;
	if (p.features & IORING_FEAT_SINGLE_MMAP)
		r->cq_ring = r->sq_ring;
	else
		r->cq_ring = mmap(NULL, r->cq_ring_sz, PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_CQ_RING);
	if (r->cq_ring == MAP_FAILED)
		return -errno;
	r->sqes_sz = p.sq_entries * sizeof(struct io_uring_sqe);
	r->sqes = mmap(NULL, r->sqes_sz, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQES);
	if (r->sqes == MAP_FAILED)
		return -errno;
	r->sq_head = (unsigned int *)((char *)r->sq_ring + p.sq_off.head);
	r->sq_tail = (unsigned int *)((char *)r->sq_ring + p.sq_off.tail);
	r->sq_mask = (unsigned int *)((char *)r->sq_ring + p.sq_off.ring_mask);
	r->sq_flags = (unsigned int *)((char *)r->sq_ring + p.sq_off.flags);
	r->sq_array = (unsigned int *)((char *)r->sq_ring + p.sq_off.array);
	r->cq_head = (unsigned int *)((char *)r->cq_ring + p.cq_off.head);
	r->cq_tail = (unsigned int *)((char *)r->cq_ring + p.cq_off.tail);
	r->cq_mask = (unsigned int *)((char *)r->cq_ring + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)((char *)r->cq_ring + p.cq_off.cqes);
	return 0;
}

/* Queue @sqe and make the kernel see it; 0 or -errno. */
static inline int uring_submit(struct uring *r, const struct io_uring_sqe *sqe)
{
	unsigned int tail = *r->sq_tail, idx = tail & *r->sq_mask;
	long ret;

	r->sqes[idx] = *sqe;
	r->sq_array[idx] = idx;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
	if (r->flags & IORING_SETUP_SQPOLL) {
		/* The SQ thread picks it up; wake it if it went to sleep. */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (!(__atomic_load_n(r->sq_flags, __ATOMIC_RELAXED) & IORING_SQ_NEED_WAKEUP))
			return 0;
		ret = syscall(__NR_io_uring_enter, r->fd, 0, 0, IORING_ENTER_SQ_WAKEUP, NULL, 0);
		return ret < 0 ? -errno : 0;
	}
	ret = syscall(__NR_io_uring_enter, r->fd, 1, 0, 0, NULL, 0);
	if (ret < 0)
		return -errno;
	return ret == 1 ? 0 : -EIO;
}

/* The next CQE within @ms ms into *@cqe: 0, or -ETIMEDOUT. */
static inline int uring_reap(struct uring *r, struct io_uring_cqe *cqe, int ms)
{
	long long deadline = now_ns() + ms * 1000000LL;

	do {
		unsigned int head = *r->cq_head;

		if (head != __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE)) {
			*cqe = r->cqes[head & *r->cq_mask];
			__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
			return 0;
		}
		/* Runs the task work that posts poll-driven completions. */
		syscall(__NR_io_uring_enter, r->fd, 0, 0, IORING_ENTER_GETEVENTS, NULL, 0);
		usleep(1000);
	} while (now_ns() < deadline);
	return -ETIMEDOUT;
}

/* Submit a NOP with @user_data and reap its CQE: 0, or -errno. */
static inline int uring_nop(struct uring *r, __u64 user_data, struct io_uring_cqe *cqe)
{
	struct io_uring_sqe sqe;
	int ret;

	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = IORING_OP_NOP;
	sqe.user_data = user_data;
	ret = uring_submit(r, &sqe);
	return ret ? ret : uring_reap(r, cqe, 3000);
}

#endif /* GUEST_URING_H */
