// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * thread_self.c - the caller's kernel TID, cached per thread so that the
 * uncontended paths make no system call, and right in every process; and
 * what a process is to its mutexes (struct uspin_process): its fork
 * generation, the TID its forking thread had in the parent, its pid
 * namespace.
 *
 * A fork child inherits the forking thread's TLS, TID cache included, but
 * not always through fork(): _Fork() and a raw clone() without CLONE_VM
 * run no atfork handler.  So the cache is paired with the PID of the
 * process it was filled in, compared against a word on a MADV_WIPEONFORK
 * page: the kernel hands every child that page zeroed, whatever made it,
 * and the child's first slow path refreshes the TID (and runs the
 * once-per-process work below).  One extra load on the fast path, no
 * system call.  Where MADV_WIPEONFORK is missing (Linux < 4.14), an atfork
 * handler zeroes the word instead, which covers fork() only.
 *
 * The same slow path, once per thread and once in a fork child, is where
 * a thread's time-slice extension is enabled or checked (slice_ext.c).
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <pthread.h>
#include <unistd.h>

#include "pid_namespace.h"
#include "process_state.h"
#include "robust_list.h"
#include "running_state.h"

USPIN_TLS struct uspin_thread uspin_thread;
struct uspin_process uspin_process = { .gen = 1 };

/* Before setup no fork can be detected; the cache still works. */
static uint32_t process_pid_boot;
const volatile uint32_t *uspin_process_pid = &process_pid_boot;

/* The page's word while the first slow path of a new process sets it up. */
#define PID_SETTING_UP	UINT32_MAX

static void forget_pid_in_child(void)
{
	*(volatile uint32_t *)uspin_process_pid = 0;
}

void uspin_thread_self_setup(void)
{
	long page = sysconf(_SC_PAGESIZE);
	uint32_t *p = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return;
	if (madvise(p, (size_t)page, MADV_WIPEONFORK) != 0 &&
	    pthread_atfork(NULL, NULL, forget_pid_in_child) != 0) {
		munmap(p, (size_t)page);
		return;
	}
	*p = (uint32_t)getpid();
	cmm_smp_wmb();
	CMM_STORE_SHARED(uspin_process_pid, p);
}

/*
 * The tag a process-shared mutex's owner leaves beside its TID: the inode
 * number of its pid namespace, which tells the namespaces apart exactly
 * (nsfs numbers are unique among live namespaces and fit in 32 bits).
 * Without /proc and pidfd ioctls, a random number below every nsfs inode
 * number instead: unique per process, so it still tells this process's
 * TIDs from another namespace's, but only with a chance of 2^-29 per
 * pair of such processes of being taken for another (docs/design.md).
 */
static uint32_t pid_ns_tag_of_this_process(void)
{
	uint64_t ino;
	uint32_t r = 0;

	if (uspin_pid_ns_inode(&ino) == 0 && (uint32_t)ino)
		return (uint32_t)ino;
	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
		r = (uint32_t)getpid() * 2654435761u ^ (uint32_t)(uintptr_t)&r;
	return r % (USPIN_NSFS_INO_MIN - 1) + 1;
}

uint32_t uspin_pid_ns_tag_slow(void)
{
	uint32_t tag = pid_ns_tag_of_this_process();

	CMM_STORE_SHARED(uspin_process.pid_ns, tag);
	return tag;
}

/*
 * Once in a new process, by whichever thread gets here first, before any
 * thread of the process may use a mutex's claims or ownership: a new
 * generation (claims.c), a pid namespace that may be new (clone with
 * CLONE_NEWPID), the running-state provider's view.
 */
static void new_process(void)
{
	const struct uspin_rs_provider *p = uspin_running_state_active();

	uspin_process.gen = (uspin_process.gen + 1) & USPIN_GEN_MASK;
	if (!uspin_process.gen)
		uspin_process.gen = 1;
	uspin_process.inherited_tid = 0;
	uspin_process.inherited_by = 0;
	uspin_process.pid_ns = 0;	/* looked up again when needed */
	if (p->new_process)
		p->new_process(&uspin_rs_view);
}

/*
 * The PID of the process the caller runs in, set up once per process: the
 * first caller in a new process runs new_process() while the page says
 * PID_SETTING_UP, and the others wait for it (microseconds, once).
 */
static uint32_t process_pid(uint32_t *page)
{
	uint32_t pid = CMM_LOAD_SHARED(*page), mine;

	if (page == &process_pid_boot)
		return pid;
	while (pid == 0 || pid == PID_SETTING_UP) {
		if (pid == PID_SETTING_UP) {
			caa_cpu_relax();
			pid = CMM_LOAD_SHARED(*page);
			continue;
		}
		mine = (uint32_t)getpid();
		pid = uatomic_cmpxchg(page, 0, PID_SETTING_UP);
		if (pid == 0) {
			new_process();
			cmm_smp_wmb();
			CMM_STORE_SHARED(*page, mine);
			return mine;
		}
	}
	cmm_smp_rmb();	/* new_process()'s results before its PID */
	return pid;
}

uint32_t uspin_self_tid_slow(void)
{
	uint32_t *page = (uint32_t *)(uintptr_t)uspin_process_pid;
	uint32_t pid = process_pid(page), old_tid = uspin_thread.self.tid;
	uint32_t old_pid = uspin_thread.self.pid;
	const struct uspin_rs_provider *p;
	uint32_t tid;

	/*
	 * A new thread learns glibc's robust list head now, while the kernel
	 * still knows it; the forking thread's replica in a child may find
	 * the kernel no longer does (raw clone).
	 */
	if (old_tid)
		uspin_robust_after_fork();
	else
		uspin_robust_list_available();
	tid = (uint32_t)syscall(SYS_gettid);
	/*
	 * Only the forking thread arrives with a TID cached in another
	 * process: it owns, in this one, the private mutexes it held there
	 * (the pthread_atfork pattern releases them in the child).
	 */
	if (old_tid && old_pid && old_pid != pid) {
		uspin_process.inherited_tid = old_tid;
		uspin_process.inherited_by = tid;
	}
	uspin_thread.self.tid = tid;
	uspin_thread.self.pid = pid;
	p = uspin_running_state_active();
	if (p->thread_init)
		p->thread_init(tid);
	uspin_slice_thread_init();
	return tid;
}
