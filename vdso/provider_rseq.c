// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * provider_rseq.c - per-thread running state, rseq-style
 * (kernel/patches/rseq/, prctl(PR_SCHED_THREAD_STATE); docs/rseq-state.md).
 *
 * Each thread registers one u32 of this process's memory, its area, that
 * the scheduler keeps up to date in the running-state encoding v2 (0
 * unknown, 1 off CPU, 2 + n on CPU n).  A spinner reads its owner's area
 * through a per-process map TID -> area: the view's indirect mode,
 * *ptrs[tid].
 *
 * Memory.  Two private anonymous regions reserved at attach (the only
 * place this provider allocates), MAP_NORESERVE and backed on first touch:
 *   ptrs   nr_tids pointers (nr_tids = kernel.pid_max at attach): the map
 *   slab   nr_tids areas of one cache line each (no two threads' areas
 *          share a line, so the switch-time stores of different CPUs do
 *          not bounce one), handed out by an atomic bump index
 * Neither is ever unmapped or reused for anything else: a spinner that
 * read ptrs[owner] never faults, whenever the owner exits.  Areas are not
 * in TLS, so a thread's exit frees nothing a reader may touch.
 *
 * TID reuse.  An area belongs to a TID, not to a thread: thread_init(tid)
 * reuses the area ptrs[tid] already points to, and allocates one only for
 * a TID this process has not registered before (so at most nr_tids areas
 * ever, at most one per TID).  The kernel stores 0 (UNKNOWN) into an
 * exiting thread's area in do_exit(), before its TID can be freed; the
 * slot keeps pointing at that area, which reads UNKNOWN until a new thread
 * of this process with that TID registers it again.  A TID now used by a
 * thread that never registered (not a libuspin user, or another process)
 * therefore reads UNKNOWN, never a stale "on CPU".
 *
 * Scope.  The map holds this process's threads only: the TID of a thread
 * in another process (a process-shared mutex's owner) reads UNKNOWN.
 *
 * New process.  Both regions are MADV_WIPEONFORK: a fork child (or a
 * clone without CLONE_VM) starts with an empty map and zeroed areas, so
 * the parent's threads read UNKNOWN there from the first instruction; the
 * kernel does not inherit registrations, and libuspin's thread_init()
 * registers the child's thread (and each later one) again.  The bump index
 * is not reset (another thread of the child may be allocating already):
 * the parent's areas are lost to the child, at most nr_tids in all.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "running_state_abi.h"
#include "running_state_providers.h"

#define RSEQ_AREA_SIZE		64u		/* one cache line per area */
#define RSEQ_PID_MAX_LIMIT	(4u << 20)	/* PID_MAX_LIMIT on 64-bit */

typedef const volatile uint32_t *area_ptr;

static struct {
	area_ptr volatile *ptrs;	/* TID -> area; NULL: none */
	char *slab;			/* nr areas of RSEQ_AREA_SIZE bytes */
	uint32_t nr;			/* TIDs covered, areas in the slab */
	uint32_t next;			/* bump index into slab */
	int tried, err;			/* attach()'s outcome, for describe() */
} rs;

static uint32_t read_pid_max(void)
{
	char buf[32];
	ssize_t n;
	int fd = open("/proc/sys/kernel/pid_max", O_RDONLY | O_CLOEXEC);
	unsigned long v;

	if (fd < 0)
		return RSEQ_PID_MAX_LIMIT;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return RSEQ_PID_MAX_LIMIT;
	buf[n] = '\0';
	v = strtoul(buf, NULL, 10);
	return v == 0 || v > RSEQ_PID_MAX_LIMIT ? RSEQ_PID_MAX_LIMIT
						: (uint32_t)v;
}

static void *reserve(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (madvise(p, size, MADV_WIPEONFORK) != 0) {
		munmap(p, size);
		return NULL;
	}
	/*
	 * The kernel pins and charges the whole folio of a registered area
	 * against RLIMIT_MEMLOCK: in a transparent huge page, 2 MiB per
	 * thread.  A kernel without THP refuses the advice; nothing to do.
	 */
	(void)madvise(p, size, MADV_NOHUGEPAGE);
	return p;
}

/* The area of @tid: the one the map has, or a new one; NULL if full. */
static volatile uint32_t *area_of(uint32_t tid)
{
	area_ptr a = rs.ptrs[tid];
	uint32_t i;

	if (a)
		return (volatile uint32_t *)(uintptr_t)a;
	i = __atomic_fetch_add(&rs.next, 1, __ATOMIC_RELAXED);
	if (i >= rs.nr)
		return NULL;
	return (volatile uint32_t *)(rs.slab + (size_t)i * RSEQ_AREA_SIZE);
}

/*
 * The TID this thread registered with, in the process it did so.
 * initial-exec: libuspin.so links libc only (no __tls_get_addr from ld.so).
 */
static __thread uint32_t registered_tid __attribute__((tls_model("initial-exec")));

/*
 * Register the calling thread (TID @tid) with the kernel; 0 or an errno.
 * Already done: this thread registered @tid and the map still has it (a
 * fork child's map is empty: the kernel dropped the registration too).
 * EBUSY: somebody else registered this thread's own area; it then stays
 * out of the map (UNKNOWN), as the kernel does not write ours.
 */
static int register_self(uint32_t tid)
{
	volatile uint32_t *a;
	int err;

	if (tid == 0 || tid >= rs.nr)
		return ERANGE;		/* not covered: reads UNKNOWN */
	if (registered_tid == tid && rs.ptrs[tid])
		return 0;
	a = area_of(tid);
	if (!a)
		return ENOSPC;
	err = prctl(USPIN_PR_SCHED_THREAD_STATE, USPIN_PR_SCHED_TS_REGISTER,
		    (unsigned long)(uintptr_t)a, 0UL, 0UL) != 0 ? errno : 0;
	if (!err)
		registered_tid = tid;
	/*
	 * The kernel stored our state before the slot makes it reachable.
	 * Unregistered, the area reads 0 (new, or cleared at its last
	 * thread's exit): published anyway, so that it is not lost.
	 */
	__atomic_store_n(&rs.ptrs[tid], (area_ptr)a, __ATOMIC_RELEASE);
	return err;
}

static int rseq_attach(struct uspin_rs_view *view)
{
	uint32_t nr = read_pid_max();
	int err;

	rs.tried = 1;
	rs.ptrs = reserve((size_t)nr * sizeof(*rs.ptrs));
	rs.slab = reserve((size_t)nr * RSEQ_AREA_SIZE);
	if (!rs.ptrs || !rs.slab) {
		err = ENOMEM;
		goto fail;
	}
	rs.nr = nr;
	/* Register the setup thread: the probe for kernel support too. */
	err = register_self((uint32_t)syscall(SYS_gettid));
	if (err) {
		if (err == EINVAL)
			err = ENOENT;	/* a kernel without the series */
		goto fail;
	}
	view->base = NULL;
	view->ptrs = (const volatile uint32_t *const volatile *)rs.ptrs;
	view->has_cpu = 1;	/* the areas hold 2 + cpu */
	view->own_process = 1;	/* only this process registers areas */
	view->alive = &uspin_rs_always_alive;
	view->nr_entries = nr;
	return 0;
fail:
	if (rs.ptrs)
		munmap((void *)rs.ptrs, (size_t)nr * sizeof(*rs.ptrs));
	if (rs.slab)
		munmap(rs.slab, (size_t)nr * RSEQ_AREA_SIZE);
	memset(&rs, 0, sizeof(rs));
	rs.tried = 1;
	rs.err = err;
	return err;
}

/* Once per thread, before it can own a lock: bounded, two system calls. */
static void rseq_thread_init(uint32_t tid)
{
	if (rs.nr)
		(void)register_self(tid);
}

/*
 * In a fork child: MADV_WIPEONFORK already emptied the map and zeroed the
 * areas (the parent's threads read UNKNOWN here), and the child's own
 * thread registers in thread_init(), which libuspin calls next.
 */
static void rseq_new_process(struct uspin_rs_view *view)
{
	(void)view;
}

static const char *rseq_describe(void)
{
	static char line[192];
	const char *want = getenv("USPIN_RS_PROVIDER");

	if (rs.nr) {
		snprintf(line, sizeof(line),
			 "per-thread areas (prctl PR_SCHED_THREAD_STATE): TIDs 0-%u of this process; areas handed out: %u",
			 rs.nr - 1, __atomic_load_n(&rs.next, __ATOMIC_RELAXED));
		return line;
	}
	/* Say why not only if asked for by name, or for an unusual reason. */
	if (!rs.tried || (rs.err == ENOENT && !(want && !strcmp(want, "rseq"))))
		return NULL;
	snprintf(line, sizeof(line), "rseq: not available: %s",
		 rs.err == ENOENT ?
		 "this kernel has no prctl(PR_SCHED_THREAD_STATE) (CONFIG_SCHED_THREAD_STATE, kernel/patches/rseq/)" :
		 strerror(rs.err));
	return line;
}

const struct uspin_rs_provider uspin_rs_provider_rseq = {
	.name = "rseq",
	.attach = rseq_attach,
	.thread_init = rseq_thread_init,
	.new_process = rseq_new_process,
	.describe = rseq_describe,
};
