// SPDX-License-Identifier: LGPL-2.1-or-later
/* runner.c - see runner.h. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <termios.h>
#include <unistd.h>

#include "child.h"
#include "locks/lock.h"
#include "repeats.h"
#include "runner.h"
#include "workload.h"

struct slot {
	const struct bench_lock *lock;
	int order, child;
	struct bench_result res;
};

static void one(struct bench_runner *r, const struct bench_workload *wl,
		int idx, const struct bench_point *pt, int round, struct slot *s)
{
	const struct bench_config *cfg = r->cfg;
	struct bench_guard_snap g;
	int err;

	bench_result_init(&s->res);
	s->child = cfg->isolate || s->lock->env;
	bench_guard_begin(&g);
	if (s->child)
		err = bench_child_run(cfg, wl, idx, pt, round, s->lock,
				      &s->res);
	else
		err = wl->run(cfg, pt, round, s->lock, &s->res);
	bench_guard_end(&g, &r->limits, &s->res);
	if (err)
		r->broken = 1;
}

/*
 * Progress goes to stderr.  On a serial console (the guest) every byte is
 * emulated I/O that the guard would see as foreign load landing on the
 * next repetition: wait until it is out (tcdrain), and with -q write one
 * short line per round instead of one per repetition.
 */
static void drain(void)
{
	if (isatty(STDERR_FILENO))
		tcdrain(STDERR_FILENO);
}

static void progress_round(const struct bench_workload *wl,
			   const struct bench_point *pt, int rep, int attempt,
			   int disturbed, long done, long total)
{
	fprintf(stderr, "[%5ld/%ld] %s %s round %d%s%s\n", done, total,
		wl->name, pt->id, rep, attempt ? " (rerun)" : "",
		disturbed ? " DISTURBED" : "");
	drain();
}

static void progress(const struct bench_runner *r,
		     const struct bench_workload *wl,
		     const struct bench_point *pt, int rep, int attempt,
		     const struct slot *s, long done, long total)
{
	const struct bench_result *res = &s->res;

	if (r->cfg->quiet)
		return;
	fprintf(stderr, "[%5ld/%ld] %-9s %-16s r%d%s %-32s %10.1f kop/s  cpu %7.3f us/op  p99 %9.0f ns%s%s\n",
		done, total, wl->name, pt->id, rep, attempt ? "*" : " ",
		s->lock->name, res->ops_per_s / 1e3, res->cpu_us_per_op,
		isnan(res->lat_p99_ns) ? 0 : res->lat_p99_ns,
		res->disturbed ? "  DISTURBED " : "",
		res->disturbed ? res->disturbed_why : "");
	drain();
}

/* splitmix64: a small, well-mixed stream for the shuffles below. */
static uint64_t mix(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/*
 * The order the locks run in, in one round: shuffled (Fisher-Yates) from
 * the run's seed, the workload, the point, the round and the attempt, so
 * that no lock always follows the same neighbour (a rotation would) and a
 * run with the same seed repeats its orders.  repeats.csv's order column
 * records each lock's place.
 */
static void round_order(const struct bench_config *cfg, const char *wl,
			int point, int rep, int attempt, int *perm, int n)
{
	uint64_t state = cfg->order_seed;
	int i;

	for (; *wl; wl++)
		state = state * 131 + (unsigned char)*wl;
	state ^= (uint64_t)point << 40 ^ (uint64_t)rep << 20 ^ (uint64_t)attempt;
	for (i = 0; i < n; i++)
		perm[i] = i;
	for (i = n - 1; i > 0; i--) {
		int j = (int)(mix(&state) % (uint64_t)(i + 1)), t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
}

int bench_runner_workload(struct bench_runner *r,
			  const struct bench_workload *wl)
{
	const struct bench_config *cfg = r->cfg;
	static struct bench_point pts[BENCH_MAX_POINTS];
	struct slot slots[BENCH_MAX_LOCKS];
	int perm[BENCH_MAX_LOCKS];
	int npts, p, rep, attempt, k, nl = cfg->nr_locks, any, broken = 0;
	long total, done = 0;

	npts = wl->points(cfg, pts, BENCH_MAX_POINTS);
	total = (long)npts * cfg->repeats * nl;
	fprintf(stderr, "%s: %s\n%s: %d points x %d locks x %d rounds = %ld repetitions of %.2f s, about %.0f s\n",
		wl->name, wl->summary, wl->name, npts, nl, cfg->repeats, total,
		cfg->seconds, total * (cfg->seconds + 0.03));
	if (wl->setup && wl->setup(cfg))
		return 1;
	for (p = 0; p < npts; p++)
	for (rep = 0; rep < cfg->repeats; rep++)
	for (attempt = 0; attempt <= cfg->reruns; attempt++) {
		any = 0;
		round_order(cfg, wl->name, p, rep, attempt, perm, nl);
		for (k = 0; k < nl; k++) {
			struct slot *s = &slots[k];

			s->lock = cfg->locks[perm[k]];
			s->order = k;
			one(r, wl, p, &pts[p], rep, s);
			any |= s->res.disturbed != 0;
			broken |= s->res.broken != 0;
			progress(r, wl, &pts[p], rep, attempt, s,
				 ++done, total);
		}
		if (cfg->quiet)
			progress_round(wl, &pts[p], rep, attempt, any, done,
				       total);
		/* The round's rows, kept unless it is about to be rerun. */
		for (k = 0; k < nl; k++) {
			struct bench_row_id id = {
				.workload = wl->name,
				.lock = slots[k].lock->name,
				.rep = rep,
				.attempt = attempt,
				.order = slots[k].order,
				.kept = !(any && attempt < cfg->reruns),
				.child = slots[k].child,
			};

			bench_repeats_row(r->repeats, &id, &pts[p],
					  &slots[k].res);
			r->rows++;
			r->disturbed += slots[k].res.disturbed != 0;
		}
		if (!any || attempt == cfg->reruns)
			break;
		r->reruns++;
		total += nl;
		fprintf(stderr, "%s: %s round %d disturbed: running it again\n",
			wl->name, pts[p].id, rep);
	}
	if (wl->teardown)
		wl->teardown();
	return broken;
}
