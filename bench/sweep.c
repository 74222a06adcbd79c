// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sweep.c - the side-by-side sweep: period x duty x threads x lock, each
 * point repeated.  Locks are interleaved inside each repeat (and their
 * order rotated between repeats) so slow drifts of the machine — another
 * guest, a thermal step — spread over every lock instead of landing on one.
 *
 * Outputs: repeats.csv (every run, written as it happens, so a cut-short
 * sweep still leaves data), points.csv and points.json (median, min and
 * max over the repeats, per point).
 */
#include <stddef.h>
#include <stdlib.h>

#include "bench.h"
#include "point.h"
#include "stats.h"

static const struct {
	const char *name;
	size_t off;
} metrics[] = {
#define M(f) { #f, offsetof(struct bench_point_result, f) }
	M(iters_per_s), M(user_us_per_iter), M(sys_us_per_iter),
	M(cpus_busy), M(vcsw_per_k), M(ivcsw_per_k), M(jain), M(min_max),
	M(lat_p50_ns), M(lat_p99_ns), M(lat_p999_ns),
#undef M
};
#define NR_METRICS (sizeof(metrics) / sizeof(metrics[0]))

static double metric(const struct bench_point_result *r, size_t m)
{
	return *(const double *)((const char *)r + metrics[m].off);
}

static void write_repeat(FILE *f, const char *label, long period, long duty,
			 int threads, int rep, const struct bench_point_spec *s,
			 const struct bench_calibration *cal,
			 const struct bench_point_result *r)
{
	size_t m;

	fprintf(f, "%s,%ld,%ld,%d,%d,%.0f,%.0f,%lu,%.4f", label, period, duty,
		threads, rep, s->in_rounds * cal->insn_per_round,
		s->out_rounds * cal->insn_per_round, r->iters, r->wall_s);
	for (m = 0; m < NR_METRICS; m++)
		fprintf(f, ",%.6g", metric(r, m));
	fprintf(f, ",%lu\n", r->lat_samples);
	fflush(f);
}

static void write_points(const struct bench_config *cfg,
			 struct bench_point_result *all)
{
	FILE *csv = bench_open_out(cfg, "points.csv");
	FILE *js = bench_open_out(cfg, "points.json");
	int l, p, d, t, r, first = 1;
	double v[64];
	size_t m;

	fprintf(csv, "lock,period,duty,threads,repeats");
	for (m = 0; m < NR_METRICS; m++)
		fprintf(csv, ",%s_med,%s_min,%s_max", metrics[m].name,
			metrics[m].name, metrics[m].name);
	fprintf(csv, "\n");
	fprintf(js, "[\n");
	for (p = 0; p < cfg->periods.n; p++)
	for (d = 0; d < cfg->duties.n; d++)
	for (l = 0; l < cfg->nr_locks; l++)
	for (t = 0; t < cfg->threads.n; t++) {
		struct bench_point_result *base = all +
			((((size_t)l * cfg->periods.n + p) * cfg->duties.n + d) *
			 cfg->threads.n + t) * cfg->repeats;
		const char *label = bench_lock_label(cfg->locks[l]);

		fprintf(csv, "%s,%ld,%ld,%ld,%d", label, cfg->periods.v[p],
			cfg->duties.v[d], cfg->threads.v[t], cfg->repeats);
		fprintf(js, "%s  {\"lock\": \"%s\", \"period\": %ld, \"duty\": %ld, \"threads\": %ld, \"repeats\": %d",
			first ? "" : ",\n", label, cfg->periods.v[p],
			cfg->duties.v[d], cfg->threads.v[t], cfg->repeats);
		first = 0;
		for (m = 0; m < NR_METRICS; m++) {
			struct bench_spread s;

			for (r = 0; r < cfg->repeats; r++)
				v[r] = metric(&base[r], m);
			s = bench_spread_of(v, cfg->repeats);
			fprintf(csv, ",%.6g,%.6g,%.6g", s.median, s.min, s.max);
			fprintf(js, ", \"%s\": {\"median\": %.6g, \"min\": %.6g, \"max\": %.6g}",
				metrics[m].name, s.median, s.min, s.max);
		}
		fprintf(csv, "\n");
		fprintf(js, "}");
	}
	fprintf(js, "\n]\n");
	fclose(csv);
	fclose(js);
}

int bench_sweep(const struct bench_config *cfg)
{
	size_t n = (size_t)cfg->nr_locks * cfg->periods.n * cfg->duties.n *
		   cfg->threads.n * cfg->repeats, done = 0;
	struct bench_point_result *all = calloc(n ? n : 1, sizeof(*all));
	FILE *rep = bench_open_out(cfg, "repeats.csv");
	int l, p, d, t, r, k, broken = 0;
	size_t m;

	if (!all) {
		perror("uspin-bench");
		return 1;
	}
	fprintf(stderr, "sweep: %zu runs of %.2f s (%d locks x %d periods x %d duties x %d thread counts x %d repeats), about %.0f s\n",
		n, cfg->seconds, cfg->nr_locks, cfg->periods.n, cfg->duties.n,
		cfg->threads.n, cfg->repeats, n * (cfg->seconds + 0.01));
	fprintf(rep, "lock,period,duty,threads,repeat,in_insn,out_insn,iters,wall_s");
	for (m = 0; m < NR_METRICS; m++)
		fprintf(rep, ",%s", metrics[m].name);
	fprintf(rep, ",lat_samples\n");

	for (p = 0; p < cfg->periods.n; p++)
	for (d = 0; d < cfg->duties.n; d++)
	for (t = 0; t < cfg->threads.n; t++)
	for (r = 0; r < cfg->repeats; r++)
	for (k = 0; k < cfg->nr_locks; k++) {
		long period = cfg->periods.v[p], duty = cfg->duties.v[d];
		struct bench_point_spec s = {
			.threads = cfg->threads.v[t],
			.seconds = cfg->seconds,
			.sample_shift = cfg->sample_shift,
		};
		struct bench_point_result *res;

		l = (k + r) % cfg->nr_locks;
		s.lock = cfg->locks[l];
		s.in_rounds = bench_rounds(&cfg->cal, period * duty / 100.0);
		s.out_rounds = bench_rounds(&cfg->cal,
					    period * (100 - duty) / 100.0);
		res = all + ((((size_t)l * cfg->periods.n + p) * cfg->duties.n +
			      d) * cfg->threads.n + t) * cfg->repeats + r;
		if (bench_run_point(&s, res))
			broken = 1;
		write_repeat(rep, bench_lock_label(s.lock), period, duty,
			     s.threads, r, &s, &cfg->cal, res);
		done++;
		fprintf(stderr, "[%4zu/%zu] period %5ld duty %2ld%% threads %2d rep %d  %-26s %10.1f kit/s  cpu %7.3f us/it  p99 %8.0f ns\n",
			done, n, period, duty, s.threads, r,
			bench_lock_label(s.lock), res->iters_per_s / 1e3,
			res->user_us_per_iter + res->sys_us_per_iter,
			res->lat_p99_ns);
	}
	fclose(rep);
	write_points(cfg, all);
	free(all);
	return broken;
}
