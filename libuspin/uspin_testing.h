/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * uspin_testing.h - hooks for the test suites (static library only; not
 * exported by libuspin.so).
 */
#ifndef USPIN_TESTING_H
#define USPIN_TESTING_H

/* Non-zero: behave as on a stock kernel (FUTEX_WAIT slow path). */
extern int uspin_force_stock_kernel;

#endif
