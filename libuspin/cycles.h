/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cycles.h - the time base of the spin phases: a counter user space reads
 * without a system call or a trap, whatever the clocksource (the TSC on
 * x86, the generic timer's virtual count on arm64).  Spin budgets are kept
 * in its units; setup.c learns once, outside any lock, how many of them
 * make a microsecond.
 */
#ifndef USPIN_CYCLES_H
#define USPIN_CYCLES_H

#include <stdint.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>

static inline uint64_t uspin_cycles(void)
{
	return __rdtsc();
}
#define USPIN_CYCLES_SOURCE	"tsc"
#elif defined(__aarch64__)
static inline uint64_t uspin_cycles(void)
{
	uint64_t v;

	__asm__ __volatile__("isb; mrs %0, cntvct_el0" : "=r"(v) :: "memory");
	return v;
}
#define USPIN_CYCLES_SOURCE	"cntvct"
#else
/*
 * No user-readable counter: count calls.  Each spin iteration reads it
 * once, so budgets become iteration counts (setup.c says "nominal").
 */
extern __thread uint64_t uspin_cycles_fallback __attribute__((tls_model("initial-exec")));

static inline uint64_t uspin_cycles(void)
{
	return uspin_cycles_fallback += 64;
}
#define USPIN_CYCLES_SOURCE	"iterations"
#endif

#endif
