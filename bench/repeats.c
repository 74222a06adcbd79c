// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * repeats.c - the repeats.csv format: identity, axes, metrics, guard.
 * Empty cell: the value does not apply (an axis of another workload, a
 * metric this lock cannot report).
 */
#include <math.h>
#include <stddef.h>

#include "repeats.h"

static const struct {
	const char *name;
	size_t off;
} axes[] = {
#define A(f) { #f, offsetof(struct bench_axes, f) }
	A(threads), A(period), A(duty), A(cs_insn), A(out_insn), A(hogs),
	A(sleep_permille), A(sleep_us), A(fault_permille), A(load_pct),
	A(writers), A(readers), A(hold_us), A(tpc10), A(preempt_ppm),
	A(preempt_us), A(long_ppm), A(long_us),
#undef A
};

static const struct {
	const char *name;
	size_t off;
} metrics[] = {
#define M(f) { #f, offsetof(struct bench_result, f) }
	M(ops), M(wall_s), M(ops_per_s), M(cpu_us_per_op), M(user_us_per_op),
	M(sys_us_per_op), M(cpus_busy), M(vcsw_per_kop), M(ivcsw_per_kop),
	M(jain), M(min_max), M(lat_p50_ns), M(lat_p99_ns), M(lat_p999_ns),
	M(lat_samples), M(holder_preempted_per_kop), M(holder_late_us_per_op),
	M(spin_acquired_us_per_op), M(spin_wasted_us_per_op),
	M(spin_phases_per_kop), M(spin_owner_off_per_kop),
	M(spin_refused_per_kop), M(blocks_per_kop), M(handoffs_per_kop),
	M(spin_preempted_per_kop), M(spin_budget_per_kop),
	M(passed_to_spinner_per_kop), M(slice_requests_per_kop),
	M(slice_granted_per_kop), M(shadow_off_per_kop), M(shadow_off_us_per_op),
	M(reads_per_s), M(offered_per_s), M(wake_late_p99_us), M(ns_per_op),
	M(hog_cpus), M(preempt_kicks_per_kop), M(preempt_served_per_kop),
	M(preempt_us_per_op), M(preempt_rt),
	M(load1), M(steal_pct), M(busy_cpus), M(foreign_cpus),
	M(cpus_allowed), M(disturbed),
#undef M
};

#define NR(a) (sizeof(a) / sizeof((a)[0]))

void bench_repeats_header(FILE *f)
{
	size_t i;

	fprintf(f, "workload,point,lock,rep,attempt,order,kept,child");
	for (i = 0; i < NR(axes); i++)
		fprintf(f, ",%s", axes[i].name);
	for (i = 0; i < NR(metrics); i++)
		fprintf(f, ",%s", metrics[i].name);
	fprintf(f, ",disturbed_why\n");
	fflush(f);
}

void bench_repeats_row(FILE *f, const struct bench_row_id *id,
		       const struct bench_point *pt,
		       const struct bench_result *r)
{
	size_t i;

	fprintf(f, "%s,%s,%s,%d,%d,%d,%d,%d", id->workload, pt->id, id->lock,
		id->rep, id->attempt, id->order, id->kept, id->child);
	for (i = 0; i < NR(axes); i++) {
		long v = *(const long *)((const char *)&pt->ax + axes[i].off);

		if (v >= 0)
			fprintf(f, ",%ld", v);
		else
			fputc(',', f);
	}
	for (i = 0; i < NR(metrics); i++) {
		double v = *(const double *)((const char *)r + metrics[i].off);

		if (isnan(v))
			fputc(',', f);
		else
			fprintf(f, ",%.6g", v);
	}
	/* The reasons are words joined by '+': no comma, no quoting. */
	fprintf(f, ",%s\n", r->disturbed_why);
	fflush(f);
}
