// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * registry.c - the workloads, in the order `uspin-bench all` runs them:
 * the cheap and classic ones first, then the ones built to show what a
 * running-state array is for (owners preempted, sleeping or faulting,
 * open-loop arrivals, more threads than CPUs), and the grid of hold times
 * the running state's case turns on.
 */
#include <string.h>

#include "workload.h"

extern const struct bench_workload bench_wl_micro, bench_wl_sweep,
	bench_wl_preempt, bench_wl_sleep_fault, bench_wl_open_loop,
	bench_wl_oversub, bench_wl_kv, bench_wl_holdtime;

const struct bench_workload *const bench_workloads[] = {
	&bench_wl_micro,
	&bench_wl_sweep,
	&bench_wl_preempt,
	&bench_wl_sleep_fault,
	&bench_wl_open_loop,
	&bench_wl_oversub,
	&bench_wl_kv,
	&bench_wl_holdtime,
};
const size_t bench_nr_workloads =
	sizeof(bench_workloads) / sizeof(bench_workloads[0]);

const struct bench_workload *bench_workload_find(const char *name)
{
	size_t i;

	for (i = 0; i < bench_nr_workloads; i++)
		if (strcmp(bench_workloads[i]->name, name) == 0)
			return bench_workloads[i];
	return NULL;
}
