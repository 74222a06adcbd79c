/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * slow_stats.h - per-thread slow-path counters (stats.c, read by
 * uspin_thread_stats()).
 */
#ifndef USPIN_SLOW_STATS_H
#define USPIN_SLOW_STATS_H

#include "internal.h"

/* ---- stats.c: per-thread slow-path counters (cycles until read) ---- */
struct uspin_stats {
	uint64_t slow_paths, spin_phases, spin_acquired;
	uint64_t spin_cycles_acquired, spin_cycles_wasted;
	uint64_t spin_owner_off, spin_refused, blocks, handoffs;
	uint64_t spin_preempted, spin_budget_ended, passed_to_spinner;
	uint64_t shadow_off_phases, shadow_cycles_off;
	uint64_t spin_cpu_wanted;
};
extern USPIN_TLS struct uspin_stats uspin_stats USPIN_HIDDEN;

#endif
