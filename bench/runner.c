// SPDX-License-Identifier: LGPL-2.1-or-later
/* runner.c - see runner.h. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* Do @a and @b differ only in their offered load? */
static int same_but_load(const struct bench_point *a,
			 const struct bench_point *b)
{
	struct bench_axes x = a->ax, y = b->ax;

	x.load_pct = y.load_pct = 0;
	return memcmp(&x, &y, sizeof(x)) == 0;
}

/*
 * An open-loop point's capacity, measured rather than derived from the
 * calibrated critical section (which ignores hand-over and, under TCG,
 * the emulator's own cost): every lock of the run once at the point as a
 * closed loop, the same threads and work, in a shuffled order.  The best
 * rate is what the lock layer can serve there; every lock is offered the
 * same load_pct of it, so a lock that cannot keep up queues.  Points that
 * differ only in load_pct share one measurement.  Returns the capacity,
 * or 0 if no lock completed a closed loop; a lock that broke exclusion
 * sets *@broken and does not count.
 */
static double measure_capacity(struct bench_runner *r,
			       const struct bench_workload *wl, int idx,
			       const struct bench_point *pt, int *broken)
{
	const struct bench_config *cfg = r->cfg;
	struct bench_point closed = *pt;
	int perm[BENCH_MAX_LOCKS], k, nl = cfg->nr_locks, disturbed = 0;
	const char *best_lock = "none";
	double best = 0;
	struct slot s;

	closed.arrivals_per_s = 0;
	round_order(cfg, wl->name, idx, cfg->repeats, 0, perm, nl);
	for (k = 0; k < nl; k++) {
		s.lock = cfg->locks[perm[k]];
		one(r, wl, idx, &closed, cfg->repeats, &s);
		*broken |= s.res.broken != 0;
		disturbed += s.res.disturbed != 0;
		if (!s.res.broken && s.res.ops_per_s > best) {
			best = s.res.ops_per_s;
			best_lock = s.lock->name;
		}
		if (!cfg->quiet)
			fprintf(stderr, "%s: %s capacity: %-32s %10.1f kop/s closed loop%s\n",
				wl->name, pt->id, s.lock->name,
				s.res.ops_per_s / 1e3,
				s.res.disturbed ? "  DISTURBED" : "");
	}
	/* A disturbed closed loop may read low: said, not rerun. */
	fprintf(stderr, "%s: %s capacity %.1f kop/s (%s, the best of %d locks' closed loops; %d disturbed)\n",
		wl->name, pt->id, best / 1e3, best_lock, nl, disturbed);
	drain();
	return best;
}

/*
 * Every round of point @p: the locks in a shuffled order, a round rerun
 * while the guard saw it disturbed (up to cfg->reruns).  Returns non-zero
 * if a lock broke exclusion.
 */
static int run_point(struct bench_runner *r, const struct bench_workload *wl,
		     int p, const struct bench_point *pt, long *done,
		     long *total)
{
	const struct bench_config *cfg = r->cfg;
	struct slot slots[BENCH_MAX_LOCKS];
	int perm[BENCH_MAX_LOCKS];
	int rep, attempt, k, nl = cfg->nr_locks, any, broken = 0;

	for (rep = 0; rep < cfg->repeats; rep++)
	for (attempt = 0; attempt <= cfg->reruns; attempt++) {
		any = 0;
		round_order(cfg, wl->name, p, rep, attempt, perm, nl);
		for (k = 0; k < nl; k++) {
			struct slot *s = &slots[k];

			s->lock = cfg->locks[perm[k]];
			s->order = k;
			one(r, wl, p, pt, rep, s);
			any |= s->res.disturbed != 0;
			broken |= s->res.broken != 0;
			progress(r, wl, pt, rep, attempt, s, ++*done, *total);
		}
		if (cfg->quiet)
			progress_round(wl, pt, rep, attempt, any, *done,
				       *total);
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

			bench_repeats_row(r->repeats, &id, pt, &slots[k].res);
			r->rows++;
			r->disturbed += slots[k].res.disturbed != 0;
		}
		if (!any || attempt == cfg->reruns)
			break;
		r->reruns++;
		*total += nl;
		fprintf(stderr, "%s: %s round %d disturbed: running it again\n",
			wl->name, pt->id, rep);
	}
	return broken;
}

int bench_runner_workload(struct bench_runner *r,
			  const struct bench_workload *wl)
{
	const struct bench_config *cfg = r->cfg;
	static struct bench_point pts[BENCH_MAX_POINTS];
	int npts, p, nl = cfg->nr_locks, broken = 0;
	double capacity = 0;
	long total, done = 0;

	memset(pts, 0, sizeof(pts));	/* no offered rate left from before */
	npts = wl->points(cfg, pts, BENCH_MAX_POINTS);
	total = (long)npts * cfg->repeats * nl;
	fprintf(stderr, "%s: %s\n%s: %d points x %d locks x %d rounds = %ld repetitions of %.2f s, about %.0f s\n",
		wl->name, wl->summary, wl->name, npts, nl, cfg->repeats, total,
		cfg->seconds, total * (cfg->seconds + 0.03));
	if (wl->setup && wl->setup(cfg))
		return 1;
	for (p = 0; p < npts; p++) {
		if (wl->measures_capacity) {
			if (p == 0 || !same_but_load(&pts[p], &pts[p - 1]))
				capacity = measure_capacity(r, wl, p, &pts[p],
							    &broken);
			if (capacity <= 0) {
				fprintf(stderr, "%s: %s: no lock completed a closed loop\n",
					wl->name, pts[p].id);
				broken = 1;
				break;
			}
			pts[p].arrivals_per_s = pts[p].ax.load_pct / 100.0 *
						capacity;
		}
		broken |= run_point(r, wl, p, &pts[p], &done, &total);
	}
	if (wl->teardown)
		wl->teardown();
	return broken;
}
