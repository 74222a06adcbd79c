// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * micro.c - the two costs that no sweep shows directly:
 * - an uncontended lock+unlock of every contender, against a bare cmpxchg
 *   pair (the floor: what any lock on a word must do), all through the
 *   same indirect call;
 * - one running-state query (uspin_rs_query() of a TID), on whatever
 *   provider this process attached, and the answer it gave for the
 *   caller itself (a running thread must read "on CPU").
 * bench/uncontended.c is the narrower, PLT-call version of the first.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <urcu/uatomic.h>

#include "bench.h"
#include "clock.h"
#include "futex_sys.h"
#include "running_state.h"
#include "stats.h"

static int bare_init(void *l)
{
	*(uint32_t *)l = 0;
	return 0;
}

static void bare_lock(void *l)
{
	uatomic_cmpxchg((uint32_t *)l, 0, 1);
}

static void bare_unlock(void *l)
{
	uatomic_cmpxchg((uint32_t *)l, 1, 0);
}

static void bare_destroy(void *l)
{
}

static const struct bench_lock bare_pair = {
	.name = "cmpxchg_pair",
	.init = bare_init,
	.lock = bare_lock,
	.unlock = bare_unlock,
	.destroy = bare_destroy,
};

static double pair_ns(const struct bench_lock *l, void *mem, long pairs)
{
	uint64_t t0 = bench_ticks();
	long i;

	for (i = 0; i < pairs; i++) {
		l->lock(mem);
		l->unlock(mem);
	}
	return (bench_ticks() - t0) * bench_ns_per_tick / pairs;
}

/* The query as a spinner issues it: inline, one load per call. */
static double query_ns(uint32_t tid, long n, long *on)
{
	uint64_t t0 = bench_ticks();
	long i, yes = 0;

	for (i = 0; i < n; i++)
		yes += uspin_rs_query(tid) == USPIN_RS_ON;
	*on = yes;
	return (bench_ticks() - t0) * bench_ns_per_tick / n;
}

static double ratio(double a, double b)
{
	return b > 0 ? a / b : 0;
}

int bench_micro(const struct bench_config *cfg)
{
	const struct bench_lock *subj[65];
	int ns = 0, i, r, reps = cfg->repeats;
	double v[65][64], q[64];
	void *mem = aligned_alloc(BENCH_LOCK_ALIGN, BENCH_LOCK_SIZE);
	FILE *f = bench_open_out(cfg, "micro.csv");
	struct bench_spread base, s;
	const char *provider = uspin_running_state_init();
	long on = 0;

	subj[ns++] = &bare_pair;
	for (i = 0; i < cfg->nr_locks; i++)
		subj[ns++] = cfg->locks[i];
	fprintf(stderr, "micro: uncontended lock+unlock, %ld pairs x %d repeats\n",
		cfg->pairs, reps);
	for (r = 0; r < reps; r++) {
		for (i = 0; i < ns; i++) {
			memset(mem, 0, BENCH_LOCK_SIZE);
			subj[i]->init(mem);
			/* Warm: TID caches, probes, first faults. */
			pair_ns(subj[i], mem, 1000);
			v[i][r] = pair_ns(subj[i], mem, cfg->pairs);
			subj[i]->destroy(mem);
		}
		q[r] = query_ns(bench_tid(), cfg->pairs, &on);
	}
	fprintf(f, "subject,ns_med,ns_min,ns_max,vs_cmpxchg_pair,note\n");
	base = bench_spread_of(v[0], reps);
	for (i = 0; i < ns; i++) {
		s = bench_spread_of(v[i], reps);
		fprintf(f, "%s,%.3f,%.3f,%.3f,%.2f,uncontended lock+unlock\n",
			i ? bench_lock_label(subj[i]) : subj[i]->name,
			s.median, s.min, s.max, ratio(s.median, base.median));
		fprintf(stderr, "micro: %-28s %8.2f ns  (%.2fx cmpxchg pair)\n",
			i ? bench_lock_label(subj[i]) : subj[i]->name,
			s.median, ratio(s.median, base.median));
	}
	s = bench_spread_of(q, reps);
	fprintf(f, "rs_query(%s),%.3f,%.3f,%.3f,%.2f,provider %s; self read on-CPU in %.1f%% of queries\n",
		provider, s.median, s.min, s.max, ratio(s.median, base.median),
		provider, 100.0 * on / cfg->pairs);
	fprintf(stderr, "micro: rs_query(%s) %8.2f ns  (self on-CPU %.1f%%)\n",
		provider, s.median, 100.0 * on / cfg->pairs);
	fclose(f);
	free(mem);
	return 0;
}
