/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * thread_stats.h - libuspin's per-thread slow-path counters
 * (uspin_thread_stats()), read the same way for every lock that has them.
 *
 * The harness is linked against whatever libuspin the tree has: if the
 * library does not define uspin_thread_stats() yet, the reference stays
 * weak and unresolved, every reading fails, and the columns stay empty
 * (bench.mk forces the symbol in from libuspin.a when it is there).
 */
#ifndef BENCH_THREAD_STATS_H
#define BENCH_THREAD_STATS_H

#include "result.h"
#include "uspin.h"

/* "available", or why the counters are not there. */
const char *bench_thread_stats_status(void);
/* Zeroes the calling thread's counters; 0, or -1 when unavailable. */
int bench_thread_stats_reset(void);
/* The calling thread's counters since the reset; 0 or -1. */
int bench_thread_stats_read(struct uspin_thread_stats *st);
/* Adds @b into @a. */
void bench_thread_stats_add(struct uspin_thread_stats *a,
			    const struct uspin_thread_stats *b);
/* The spin_* / blocks / handoffs columns of @r from @st over @ops. */
void bench_thread_stats_fill(struct bench_result *r,
			     const struct uspin_thread_stats *st, double ops);

#endif /* BENCH_THREAD_STATS_H */
