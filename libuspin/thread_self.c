// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * thread_self.c - the caller's kernel TID, cached per thread so that the
 * uncontended paths make no system call, and right in every process.
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
#include <sys/mman.h>
#include <sys/syscall.h>
#include <pthread.h>
#include <unistd.h>

#include "mutex_impl.h"
#include "robust_list.h"
#include "running_state.h"

USPIN_TLS struct uspin_self uspin_self;

/* Before setup no fork can be detected; the cache still works. */
static uint32_t process_pid_boot;
const volatile uint32_t *uspin_process_pid = &process_pid_boot;

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

/* Once in a new process, by whichever thread gets here first. */
static void new_process(void)
{
	const struct uspin_rs_provider *p = uspin_running_state_active();

	if (p->new_process)
		p->new_process(&uspin_rs_view);
}

uint32_t uspin_self_tid_slow(void)
{
	uint32_t *page = (uint32_t *)(uintptr_t)uspin_process_pid;
	uint32_t pid = CMM_LOAD_SHARED(*page), old_tid = uspin_self.tid;
	const struct uspin_rs_provider *p;
	uint32_t tid;

	if (page != &process_pid_boot && pid == 0) {
		/* First slow path of a new process. */
		uint32_t mine = (uint32_t)getpid();

		pid = uatomic_cmpxchg(page, 0, mine);
		if (pid == 0) {
			pid = mine;
			new_process();
		}
	}
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
	uspin_self.tid = tid;
	uspin_self.pid = pid;
	p = uspin_running_state_active();
	if (p->thread_init)
		p->thread_init(tid);
	uspin_slice_thread_init();
	return tid;
}
