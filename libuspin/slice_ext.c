// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * slice_ext.c - the rseq time-slice extension (Linux 7.0) for lock
 * owners: what the kernel offers, probed once at setup; each thread's
 * enable, in its first slow path; the end of a grant.  The per-lock
 * halves are inline (slice_ext.h).
 *
 * glibc registers every thread's rseq area; the extension is enabled per
 * thread with a prctl, so libuspin enables it for the threads that lock,
 * lazily: a thread's first lock or unlock always takes a slow path
 * (uspin_self_tid_slow), which makes the one system call.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#if defined(__has_include) && __has_include(<sys/rseq.h>)
#include <sys/rseq.h>
#define HAVE_GLIBC_RSEQ	1
/*
 * Defined by ld.so (libc.a when static): weak, so that libuspin.so needs
 * libc alone, as before; ld.so is in every dynamic program's scope.
 */
extern const ptrdiff_t __rseq_offset __attribute__((weak));
extern const unsigned int __rseq_size __attribute__((weak));
#endif

#include "setup.h"

/* The calling thread's area, or NULL if glibc registered none. */
static struct uspin_rseq_slice_ctrl *thread_slice_ctrl(void)
{
#ifdef HAVE_GLIBC_RSEQ
	/* __rseq_size is glibc's feature size (20), not the 32 it registered. */
	if (&__rseq_size && &__rseq_offset && __rseq_size > 0)
		return (struct uspin_rseq_slice_ctrl *)
			((char *)__builtin_thread_pointer() + __rseq_offset +
			 USPIN_RSEQ_SLICE_CTRL_OFFSET);
#endif
	return NULL;
}

static long slice_prctl(unsigned long op, unsigned long mode)
{
	return prctl(PR_RSEQ_SLICE_EXTENSION, op, mode, 0, 0);
}

/*
 * GET tells a kernel with the prctl from one without (EINVAL); only SET
 * checks the boot switch and the registration, so set the mode the
 * thread already has: the answer without a change.
 */
static const char *probe(void)
{
	long mode;

#ifndef __NR_rseq_slice_yield
	return "no rseq_slice_yield on this architecture";
#endif
	mode = slice_prctl(PR_RSEQ_SLICE_EXTENSION_GET, 0);
	if (mode < 0)
		return errno == EINVAL ? "kernel has no PR_RSEQ_SLICE_EXTENSION" :
					 "PR_RSEQ_SLICE_EXTENSION failed";
	if (!thread_slice_ctrl())
		return "no rseq registration (glibc.pthread.rseq=0)";
	if (slice_prctl(PR_RSEQ_SLICE_EXTENSION_SET, (unsigned long)mode) != 0) {
		if (errno == ENOTSUPP)
			return "disabled by the kernel (rseq_slice_ext=0)";
		if (errno == ENXIO)
			return "no rseq registration (glibc.pthread.rseq=0)";
		return "PR_RSEQ_SLICE_EXTENSION_SET failed";
	}
	return NULL;
}

static void slice_forget_held(void);

/* USPIN_SLICE_EXT=0|1|force; a bad value is reported, the default kept. */
static enum uspin_slice_policy read_slice_env(void)
{
	const char *env = getenv("USPIN_SLICE_EXT");

	if (!env || !*env || strcmp(env, "1") == 0)
		return SLICE_USE;
	if (strcmp(env, "0") == 0)
		return SLICE_OFF;
	if (strcmp(env, "force") == 0)
		return SLICE_FORCE;
	fprintf(stderr,
		"uspin: USPIN_SLICE_EXT=%s is not one of 0|1|force; using 1\n",
		env);
	return SLICE_USE;
}

void uspin_slice_setup(struct uspin_setup *s)
{
	const char *why = probe();

	s->slice_policy = read_slice_env();
	s->slice_available = why == NULL;
	s->slice_reason = why ? why : "";
	if (s->slice_policy != SLICE_OFF)
		pthread_atfork(NULL, NULL, slice_forget_held);
}

/* Start using it on the calling thread; the words it holds asked nothing. */
static void slice_on(struct uspin_rseq_slice_ctrl *ctrl, int kernel)
{
	struct uspin_slice *s = &uspin_thread.slice;

	s->ctrl = ctrl;
	s->kernel = (uint8_t)kernel;
	s->depth = 0;
	CMM_STORE_SHARED(ctrl->request, 0);
	cmm_barrier();
	CMM_STORE_SHARED(s->on, 1);
	uspin_thread.unlock_work |= USPIN_UNLOCK_SLICE;
}

/* Stop; a signal handler in between sees it off before the request goes. */
static void slice_off(void)
{
	struct uspin_slice *s = &uspin_thread.slice;

	CMM_STORE_SHARED(s->on, 0);
	uspin_thread.unlock_work &= ~USPIN_UNLOCK_SLICE;
	cmm_barrier();
	if (s->ctrl)
		CMM_STORE_SHARED(s->ctrl->request, 0);
	s->depth = 0;
	s->kernel = 0;
}

/* Where glibc registered no area, forcing writes into a private one. */
static USPIN_TLS struct uspin_rseq_slice_ctrl private_ctrl;

static struct uspin_rseq_slice_ctrl *force_ctrl(void)
{
	struct uspin_rseq_slice_ctrl *ctrl = thread_slice_ctrl();

	return ctrl ? ctrl : &private_ctrl;
}

/*
 * A fork child starts with nothing requested: the requests of the words
 * its forking thread held were the parent's, and their unlocks in the
 * child (owner.c) find depth 0 (slice_ext.h).  fork() clears at once;
 * _Fork() and a raw clone() at the child's first slow path, below.
 */
static void slice_forget_held(void)
{
	struct uspin_slice *s = &uspin_thread.slice;

	if (!s->on)
		return;
	s->depth = 0;
	CMM_STORE_SHARED(s->ctrl->request, 0);
}

void uspin_slice_thread_init(void)
{
	const struct uspin_setup *st = uspin_setup();
	struct uspin_slice *s = &uspin_thread.slice;
	struct uspin_rseq_slice_ctrl *ctrl;

	/* Setup enables the thread that runs it once it knows the policy. */
	if (!uspin_setup_done())
		return;
	if (s->on) {
		/*
		 * Only a fork child comes here on: a thread is enabled once
		 * setup is done, after which only a new process sends it
		 * here again.  The kernel keeps the enable over fork; check
		 * it once.
		 */
		slice_forget_held();
		if (!s->kernel ||
		    slice_prctl(PR_RSEQ_SLICE_EXTENSION_GET, 0) == PR_RSEQ_SLICE_EXT_ENABLE)
			return;
		slice_off();
	}
	if (st->slice_policy == SLICE_OFF)
		return;
	ctrl = thread_slice_ctrl();
	if (st->slice_available && ctrl &&
	    slice_prctl(PR_RSEQ_SLICE_EXTENSION_SET, PR_RSEQ_SLICE_EXT_ENABLE) == 0)
		slice_on(ctrl, 1);
	else if (st->slice_policy == SLICE_FORCE)
		slice_on(force_ctrl(), 0);
}

void uspin_slice_yield(void)
{
	struct uspin_slice *s = &uspin_thread.slice;
	int saved = errno;	/* an unlock leaves errno alone */

	s->granted++;
#ifdef __NR_rseq_slice_yield
	if (syscall(__NR_rseq_slice_yield) == 1)
		s->yields++;
#endif
	errno = saved;
}

/* ---- uspin_testing.h ---- */
int uspin_slice_force(int on)
{
	int was = uspin_thread.slice.on;

	uspin_self_tid();	/* the thread's first slow path, if not yet */
	if (on && !uspin_thread.slice.on)
		slice_on(force_ctrl(), 0);
	else if (!on && uspin_thread.slice.on) {
		if (uspin_thread.slice.kernel)
			slice_prctl(PR_RSEQ_SLICE_EXTENSION_SET, 0);
		slice_off();
	}
	return was;
}

/* ---- uspin.h ---- */
int uspin_slice_extension(struct uspin_slice_info *p, size_t size)
{
	const struct uspin_setup *st;
	struct uspin_slice_info out;

	if (!p || size == 0)
		return EINVAL;
	uspin_setup_run();
	uspin_self_tid();	/* the calling thread's enable, if not yet */
	st = uspin_setup();
	memset(&out, 0, sizeof(out));
	out.available = st->slice_available;
	out.in_use = uspin_thread.slice.on && uspin_thread.slice.kernel;
	out.forced = uspin_thread.slice.on && !uspin_thread.slice.kernel;
	out.enabled_by_policy = st->slice_policy != SLICE_OFF;
	out.reason = st->slice_reason ? st->slice_reason : "";
	memcpy(p, &out, size < sizeof(out) ? size : sizeof(out));
	if (size > sizeof(out))
		memset((char *)p + sizeof(out), 0, size - sizeof(out));
	return 0;
}
