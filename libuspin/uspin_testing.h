/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * uspin_testing.h - hooks for the test suites (static library only; not
 * exported by libuspin.so).
 */
#ifndef USPIN_TESTING_H
#define USPIN_TESTING_H

/* Non-zero: behave as on a stock kernel (FUTEX_WAIT slow path). */
extern int uspin_force_stock_kernel;

/*
 * The calling thread uses the time-slice extension (1) or not (0) from
 * now on, whatever the kernel and USPIN_SLICE_EXT say: where the kernel
 * cannot enable it, the request byte of the thread's rseq area is written
 * all the same (such a kernel ignores it), so that its cost and its
 * bookkeeping can be measured anywhere.  Locks held now asked for
 * nothing.  Returns whether it was in use before.
 */
int uspin_slice_force(int on);

#endif
