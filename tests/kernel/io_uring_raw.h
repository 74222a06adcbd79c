/* SPDX-License-Identifier: MIT */
/*
 * io_uring_raw.h - just enough io_uring, on the raw system calls, for the
 * guest suites to queue IORING_OP_FUTEX_WAIT and IORING_OP_FUTEX_WAITV
 * requests: Debian 12's liburing (2.3) predates the futex opcodes.  One
 * ring, one SQE submitted at a time, one CQE reaped at a time, every wait
 * bounded.  Compiled against the patched kernel's uapi headers like
 * futex_lock_test.h, so <linux/io_uring.h> is the kernel's own (the futex
 * opcodes are enumerators: older headers fail to compile on them).
 */
#ifndef USPIN_TESTS_KERNEL_IO_URING_RAW_H
#define USPIN_TESTS_KERNEL_IO_URING_RAW_H

#include <errno.h>
#include <linux/futex.h>
#include <linux/io_uring.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* A ring and the views into its mappings. */
struct uring {
	int fd;
	void *sq_map, *cq_map;		/* cq_map == sq_map: one mapping */
	size_t sq_map_len, cq_map_len;
	struct io_uring_sqe *sqes;
	size_t sqes_len;
	unsigned int *sq_head, *sq_tail, *sq_mask, *sq_entries, *sq_array;
	unsigned int *cq_head, *cq_tail, *cq_mask;
	struct io_uring_cqe *cqes;
};

#define URING_INIT { .fd = -1 }

/* Unmap and close; closing the fd cancels what is still queued.  Idempotent. */
static inline void uring_exit(struct uring *r)
{
	if (r->sqes && r->sqes != MAP_FAILED)
		munmap(r->sqes, r->sqes_len);
	if (r->cq_map && r->cq_map != MAP_FAILED && r->cq_map != r->sq_map)
		munmap(r->cq_map, r->cq_map_len);
	if (r->sq_map && r->sq_map != MAP_FAILED)
		munmap(r->sq_map, r->sq_map_len);
	if (r->fd >= 0)
		close(r->fd);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}

/*
 * Set up a ring of @entries; 0 or the errno (ENOSYS: no CONFIG_IO_URING;
 * EPERM: kernel.io_uring_disabled).  On failure *@r is as after uring_exit().
 */
static inline int uring_init(struct uring *r, unsigned int entries)
{
	struct io_uring_params p;
	int err;

	memset(r, 0, sizeof(*r));
	memset(&p, 0, sizeof(p));
	r->fd = (int)syscall(__NR_io_uring_setup, entries, &p);
	if (r->fd < 0) {
		err = errno;
		r->fd = -1;
		return err;
	}

	r->sq_map_len = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	r->cq_map_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if (p.features & IORING_FEAT_SINGLE_MMAP) {
		if (r->cq_map_len > r->sq_map_len)
			r->sq_map_len = r->cq_map_len;
		r->cq_map_len = r->sq_map_len;
	}
	r->sq_map = mmap(NULL, r->sq_map_len, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQ_RING);
	if (r->sq_map == MAP_FAILED)
		goto fail;
	if (p.features & IORING_FEAT_SINGLE_MMAP) {
		r->cq_map = r->sq_map;
	} else {
		r->cq_map = mmap(NULL, r->cq_map_len, PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_CQ_RING);
		if (r->cq_map == MAP_FAILED)
			goto fail;
	}
	r->sqes_len = p.sq_entries * sizeof(struct io_uring_sqe);
	r->sqes = mmap(NULL, r->sqes_len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQES);
	if (r->sqes == MAP_FAILED)
		goto fail;

#define URING_AT(map, off) ((unsigned int *)((char *)(map) + (off)))
	r->sq_head = URING_AT(r->sq_map, p.sq_off.head);
	r->sq_tail = URING_AT(r->sq_map, p.sq_off.tail);
	r->sq_mask = URING_AT(r->sq_map, p.sq_off.ring_mask);
	r->sq_entries = URING_AT(r->sq_map, p.sq_off.ring_entries);
	r->sq_array = URING_AT(r->sq_map, p.sq_off.array);
	r->cq_head = URING_AT(r->cq_map, p.cq_off.head);
	r->cq_tail = URING_AT(r->cq_map, p.cq_off.tail);
	r->cq_mask = URING_AT(r->cq_map, p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)((char *)r->cq_map + p.cq_off.cqes);
#undef URING_AT
	return 0;

fail:
	err = errno;
	uring_exit(r);
	return err;
}

static inline int uring_enter(struct uring *r, unsigned int to_submit,
			      unsigned int min_complete, unsigned int flags)
{
	return (int)syscall(__NR_io_uring_enter, r->fd, to_submit, min_complete,
			    flags, NULL, 0);
}

/*
 * Submit one SQE (copied; the caller fills every field it needs, the rest
 * must be 0).  The futex opcodes are issued inline: when this returns 0
 * the request is queued on its futex, or completed already (a CQE).
 * Returns 0 or the errno.
 */
static inline int uring_submit(struct uring *r, const struct io_uring_sqe *sqe)
{
	unsigned int tail = *r->sq_tail, idx;
	int n;

	/* The kernel consumes SQEs in io_uring_enter: the ring is empty here. */
	if (tail - __atomic_load_n(r->sq_head, __ATOMIC_ACQUIRE) >= *r->sq_entries)
		return EBUSY;
	idx = tail & *r->sq_mask;
	r->sqes[idx] = *sqe;
	r->sq_array[idx] = idx;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
	do
		n = uring_enter(r, 1, 0, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno;
	return n == 1 ? 0 : EIO;
}

/*
 * Wait at most @ms milliseconds for one CQE and consume it into *@cqe.
 * Polls the CQ tail, with io_uring_enter(GETEVENTS) to run the task work
 * that posts the completions, between 1 ms sleeps: never blocks longer.
 * Returns 0, or ETIMEDOUT when no CQE came (a lost wake-up).
 */
static inline int uring_wait_cqe(struct uring *r, long ms, struct io_uring_cqe *cqe)
{
	struct timespec now, end, nap = { 0, 1000000L };

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += ms / 1000;
	end.tv_nsec += (ms % 1000) * 1000000L;
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	for (;;) {
		unsigned int head = *r->cq_head;

		if (head != __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE)) {
			*cqe = r->cqes[head & *r->cq_mask];
			__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
			return 0;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > end.tv_sec ||
		    (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec))
			return ETIMEDOUT;
		uring_enter(r, 0, 0, IORING_ENTER_GETEVENTS);
		nanosleep(&nap, NULL);
	}
}

/* IORING_OP_FUTEX_WAIT on a 32-bit word: the futex2 flags go in sqe->fd. */
static inline void uring_prep_futex_wait(struct io_uring_sqe *sqe, uint32_t *uaddr,
					 uint32_t val, unsigned int futex2_flags,
					 uint64_t user_data)
{
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_FUTEX_WAIT;
	sqe->fd = (int)futex2_flags;
	sqe->addr = (uintptr_t)uaddr;
	sqe->addr2 = val;
	sqe->addr3 = FUTEX_BITSET_MATCH_ANY;	/* 0 is -EINVAL */
	sqe->user_data = user_data;
}

/* IORING_OP_FUTEX_WAITV: flags are per entry; sqe->fd must be 0. */
static inline void uring_prep_futex_waitv(struct io_uring_sqe *sqe,
					  struct futex_waitv *waiters,
					  unsigned int nr, uint64_t user_data)
{
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_FUTEX_WAITV;
	sqe->addr = (uintptr_t)waiters;
	sqe->len = nr;
	sqe->user_data = user_data;
}

#endif /* USPIN_TESTS_KERNEL_IO_URING_RAW_H */
