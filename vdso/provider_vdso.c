// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * provider_vdso.c - the running-state array of the patched kernel
 * (kernel/patches/running-state/, ABI in running_state_abi.h).
 *
 * attach() runs once, in libuspin's setup: it opts the process in with
 * prctl(PR_SCHED_RUNNING_STATE, PR_SCHED_RS_ENABLE).  From then on the
 * kernel publishes this process's threads, and those of its fork children
 * until they exec, in an array indexed by the TIDs of its pid namespace
 * (the ones in our lock words), and maps that array read-only here.
 * Threads need nothing (no thread_init): the kernel publishes every thread
 * of an opted-in process itself.  Since series v3 the array
 * is the process's own (USPIN_RS_FLAG_PER_PROCESS): an owner in another
 * process reads UNKNOWN, as with per-thread areas; before, it was the pid
 * namespace's.
 *
 * new_process() re-checks in a fork child.  With a per-process array the
 * inherited mapping already shows the child's own threads.  Before patch
 * 9, a child that landed in a new pid namespace found its inherited
 * mapping detached by the kernel (it reads 0, UNKNOWN, never a wrong
 * answer) and mapped its own namespace's array.  If that fails, it drops
 * the view.
 *
 * (The name is historical: the first version of the series found the
 * array through a vDSO function.)
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

#include "running_state_abi.h"
#include "running_state_providers.h"

static int rs_prctl(int op, struct uspin_kernel_rs *rs)
{
	memset(rs, 0, sizeof(*rs));
	if (prctl(USPIN_PR_SCHED_RUNNING_STATE, op, (unsigned long)rs,
		  (unsigned long)sizeof(*rs), 0UL) != 0)
		return errno;
	return 0;
}

/* A description this library can read, of an array mapped here. */
static int rs_usable(const struct uspin_kernel_rs *rs)
{
	return rs->version == USPIN_RS_VERSION && rs->entry_size == 4 &&
	       rs->base != 0 && rs->nr_entries != 0 &&
	       rs->line_shift < rs->block_shift && rs->block_shift < 32 &&
	       /* whole blocks: a covered TID's index stays covered */
	       (rs->nr_entries & ((1u << rs->block_shift) - 1)) == 0 &&
	       rs->size >= (uint64_t)rs->nr_entries * 4;
}

static void rs_fill(struct uspin_rs_view *view, const struct uspin_kernel_rs *rs)
{
	view->line_shift = rs->line_shift;
	view->block_shift = rs->block_shift;
	view->stride = 1;
	view->alive = &uspin_rs_always_alive;
	__atomic_store_n(&view->base,
			 (const volatile uint32_t *)(uintptr_t)rs->base,
			 __ATOMIC_RELEASE);
}

static int vdso_attach(struct uspin_rs_view *view)
{
	struct uspin_kernel_rs rs;
	int err = rs_prctl(USPIN_PR_SCHED_RS_ENABLE, &rs);

	if (err == EINVAL)
		return ENOENT;		/* a kernel without the series */
	if (err)
		return err;		/* EPERM: the administrator keeps it off */
	if (!rs_usable(&rs))
		return ENOTSUP;		/* a layout this library cannot read */
	rs_fill(view, &rs);
	view->own_process = !!(rs.flags & USPIN_RS_FLAG_PER_PROCESS);
	view->nr_entries = rs.nr_entries;
	return 0;
}

/*
 * In a new process (fork, _Fork, clone without CLONE_VM).  The inherited
 * mapping still being ours (a per-process array, or the same namespace's):
 * nothing to do.  Otherwise (a new namespace, series v2): map its
 * array (the kernel already publishes us there).  The old mapping stays
 * mapped (detached, all zero), so a thread that still reads through the
 * old base gets UNKNOWN, never a fault.
 */
static void vdso_new_process(struct uspin_rs_view *view)
{
	struct uspin_kernel_rs rs;

	if (rs_prctl(USPIN_PR_SCHED_RS_GET, &rs) == 0 && rs_usable(&rs) &&
	    rs.base == (uintptr_t)view->base)
		return;
	if (rs_prctl(USPIN_PR_SCHED_RS_ENABLE, &rs) != 0 || !rs_usable(&rs) ||
	    rs.nr_entries < view->nr_entries) {
		__atomic_store_n(&view->nr_entries, 0, __ATOMIC_RELEASE);
		return;
	}
	rs_fill(view, &rs);
}

static const char *vdso_describe(void)
{
	static char line[192];
	struct uspin_kernel_rs rs;

	if (rs_prctl(USPIN_PR_SCHED_RS_GET, &rs) != 0)
		return NULL;
	snprintf(line, sizeof(line),
		 "kernel array of %spid namespace %" PRIu64 "%s: TIDs 0-%u, %u-TID blocks transposed by %u-entry lines; %s, publication %s",
		 rs.flags & USPIN_RS_FLAG_PER_PROCESS ? "this process, in " : "",
		 rs.pid_ns, rs.pid_ns == 0xEFFFFFFCu ? " (initial)" : "",
		 rs.nr_entries - 1, 1u << rs.block_shift, 1u << rs.line_shift,
		 rs.flags & USPIN_RS_FLAG_OPTED_IN ? "opted in" : "not opted in",
		 rs.flags & USPIN_RS_FLAG_PUBLISHING ? "on" : "off");
	return line;
}

const struct uspin_rs_provider uspin_rs_provider_vdso = {
	.name = "vdso",
	.attach = vdso_attach,
	.new_process = vdso_new_process,
	.describe = vdso_describe,
};
