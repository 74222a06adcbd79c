// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * kv.c - a workload that is not a CPU hog: a key-value store in a liburcu
 * rculfhash.  Readers look keys up under rcu_read_lock() and never touch
 * the lock; writers serialise through the lock under test, as an
 * application does to keep an invariant across keys.  Hold times are
 * mixed: most writes replace one key, one in twenty replaces a batch of
 * KV_BATCH keys (a long hold), and writers think between writes.
 *
 * Reported per (lock, writers): reads/s and writes/s, the writer latency
 * (from asking for the lock to releasing it), and the CPUs busy.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <urcu.h>
#include <urcu/rculfhash.h>

#include "bench.h"
#include "clock.h"
#include "stats.h"

#define KV_BATCH		32
#define KV_LONG_PER_1024	51	/* ~5 % of writes hold the lock long */
#define KV_THINK_INSN		2000	/* writer work between writes */
#define KV_LAT_SAMPLES		(1u << 15)

struct kv_node {
	struct cds_lfht_node node;
	unsigned long key;
	unsigned long value;
	struct rcu_head rcu;
};

struct kv_thread {
	struct kv_run *run;
	int writer;
	uint64_t rng;
	unsigned long ops;
	uint32_t *lat;			/* writers: clock.h ticks */
	unsigned long nlat;
	pthread_t thread;
} __attribute__((aligned(128)));

struct kv_run {
	const struct bench_config *cfg;
	const struct bench_lock *lock;
	void *lockmem;
	struct cds_lfht *ht;
	pthread_barrier_t start;
	int stop;
	unsigned long generation;	/* protected: one per write */
};

struct kv_result {
	double reads_per_s, writes_per_s, cpus_busy;
	double wlat_p50_us, wlat_p99_us, wlat_p999_us;
};

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static unsigned long kv_hash(unsigned long key)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdUL;
	return key ^ (key >> 33);
}

static int kv_match(struct cds_lfht_node *node, const void *key)
{
	return caa_container_of(node, struct kv_node, node)->key ==
	       *(const unsigned long *)key;
}

static void kv_free(struct rcu_head *head)
{
	free(caa_container_of(head, struct kv_node, rcu));
}

/* Replace (or insert) @key; the old node goes after a grace period. */
static void kv_put(struct cds_lfht *ht, unsigned long key, unsigned long value)
{
	struct kv_node *n = malloc(sizeof(*n));
	struct cds_lfht_node *old;

	if (!n)
		abort();
	n->key = key;
	n->value = value;
	cds_lfht_node_init(&n->node);
	rcu_read_lock();
	old = cds_lfht_add_replace(ht, kv_hash(key), kv_match, &key, &n->node);
	rcu_read_unlock();
	if (old)
		call_rcu(&caa_container_of(old, struct kv_node, node)->rcu,
			 kv_free);
}

static unsigned long kv_get(struct cds_lfht *ht, unsigned long key)
{
	struct cds_lfht_iter it;
	struct cds_lfht_node *node;
	unsigned long v = 0;

	rcu_read_lock();
	cds_lfht_lookup(ht, kv_hash(key), kv_match, &key, &it);
	node = cds_lfht_iter_get_node(&it);
	if (node)
		v = caa_container_of(node, struct kv_node, node)->value;
	rcu_read_unlock();
	return v;
}

static void writer_loop(struct kv_thread *t)
{
	struct kv_run *run = t->run;
	long keys = run->cfg->keys;
	unsigned long think = bench_rounds(&run->cfg->cal, KV_THINK_INSN);
	unsigned long x = t->rng, n, i, k;
	uint64_t t0, dt;

	while (!CMM_LOAD_SHARED(run->stop)) {
		x = bench_work(think, x);
		n = (rng_next(&t->rng) & 1023) < KV_LONG_PER_1024 ? KV_BATCH : 1;
		k = rng_next(&t->rng) % keys;
		t0 = bench_ticks();
		run->lock->lock(run->lockmem);
		for (i = 0; i < n; i++)
			kv_put(run->ht, (k + i) % keys, run->generation);
		run->generation++;
		run->lock->unlock(run->lockmem);
		dt = bench_ticks() - t0;
		if (t->nlat < KV_LAT_SAMPLES)
			t->lat[t->nlat++] = dt > UINT32_MAX ? UINT32_MAX : dt;
		t->ops++;
	}
	if (x == 42)
		fputc('\0', stderr);
}

static void reader_loop(struct kv_thread *t)
{
	struct kv_run *run = t->run;
	unsigned long sum = 0;

	while (!CMM_LOAD_SHARED(run->stop)) {
		sum += kv_get(run->ht, rng_next(&t->rng) % run->cfg->keys);
		t->ops++;
	}
	if (sum == 42)
		fputc('\0', stderr);
}

static void *kv_thread_main(void *arg)
{
	struct kv_thread *t = arg;

	rcu_register_thread();
	pthread_barrier_wait(&t->run->start);
	if (t->writer)
		writer_loop(t);
	else
		reader_loop(t);
	rcu_unregister_thread();
	return NULL;
}

static double tv_s(struct timeval tv)
{
	return tv.tv_sec + tv.tv_usec * 1e-6;
}

static int kv_point(struct kv_run *run, int writers, struct kv_result *res)
{
	int n = writers + run->cfg->readers, i, err = 0;
	struct kv_thread *t = aligned_alloc(128, n * sizeof(*t));
	unsigned long reads = 0, writes = 0, nlat = 0;
	struct timespec ts;
	struct rusage r0, r1;
	uint32_t *lat;
	double t0, wall;

	if (!t)
		abort();
	memset(t, 0, n * sizeof(*t));
	memset(run->lockmem, 0, BENCH_LOCK_SIZE);
	run->lock->init(run->lockmem);
	run->stop = 0;
	run->generation = 0;
	pthread_barrier_init(&run->start, NULL, n + 1);
	for (i = 0; i < n; i++) {
		t[i].run = run;
		t[i].writer = i < writers;
		t[i].rng = 0x9e3779b97f4a7c15ull * (i + 1);
		t[i].lat = t[i].writer ? malloc(KV_LAT_SAMPLES * 4) : NULL;
		if ((t[i].writer && !t[i].lat) ||
		    pthread_create(&t[i].thread, NULL, kv_thread_main, &t[i]))
			abort();
	}
	pthread_barrier_wait(&run->start);
	getrusage(RUSAGE_SELF, &r0);
	t0 = bench_now();
	ts.tv_sec = (time_t)run->cfg->seconds;
	ts.tv_nsec = (long)((run->cfg->seconds - ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts))
		;
	CMM_STORE_SHARED(run->stop, 1);
	for (i = 0; i < n; i++)
		pthread_join(t[i].thread, NULL);
	wall = bench_now() - t0;
	getrusage(RUSAGE_SELF, &r1);
	pthread_barrier_destroy(&run->start);
	run->lock->destroy(run->lockmem);

	for (i = 0; i < n; i++) {
		if (t[i].writer) {
			writes += t[i].ops;
			nlat += t[i].nlat;
		} else {
			reads += t[i].ops;
		}
	}
	if (run->generation != writes) {
		fprintf(stderr, "uspin-bench: kv: %s broke mutual exclusion\n",
			run->lock->name);
		err = -1;
	}
	lat = malloc((nlat ? nlat : 1) * 4);
	if (!lat)
		abort();
	for (i = 0, nlat = 0; i < n; i++) {
		if (t[i].writer)
			memcpy(lat + nlat, t[i].lat, t[i].nlat * 4);
		nlat += t[i].writer ? t[i].nlat : 0;
		free(t[i].lat);
	}
	res->reads_per_s = reads / wall;
	res->writes_per_s = writes / wall;
	res->cpus_busy = (tv_s(r1.ru_utime) - tv_s(r0.ru_utime) +
			  tv_s(r1.ru_stime) - tv_s(r0.ru_stime)) / wall;
	res->wlat_p50_us = bench_percentile_u32(lat, nlat, 0.50) *
			   bench_ns_per_tick / 1e3;
	res->wlat_p99_us = bench_percentile_u32(lat, nlat, 0.99) *
			   bench_ns_per_tick / 1e3;
	res->wlat_p999_us = bench_percentile_u32(lat, nlat, 0.999) *
			    bench_ns_per_tick / 1e3;
	free(lat);
	free(t);
	return err;
}

int bench_kv(const struct bench_config *cfg)
{
	int nl = cfg->nr_locks, nw = cfg->writers.n, reps = cfg->repeats;
	struct kv_result *all = calloc((size_t)nl * nw * reps + 1, sizeof(*all));
	FILE *f = bench_open_out(cfg, "kv.csv");
	struct kv_run run = { .cfg = cfg };
	int l, w, r, k, broken = 0, done = 0;
	double v[5][64];
	long key;

	run.lockmem = aligned_alloc(BENCH_LOCK_ALIGN, BENCH_LOCK_SIZE);
	run.ht = cds_lfht_new(1024, 1024, 0, CDS_LFHT_AUTO_RESIZE, NULL);
	if (!all || !run.lockmem || !run.ht) {
		perror("uspin-bench: kv");
		return 1;
	}
	rcu_register_thread();
	for (key = 0; key < cfg->keys; key++)
		kv_put(run.ht, key, 0);
	fprintf(stderr, "kv: %ld keys, %d readers, %d locks x %d writer counts x %d repeats of %.2f s\n",
		cfg->keys, cfg->readers, nl, nw, reps, cfg->seconds);
	for (w = 0; w < nw; w++)
	for (r = 0; r < reps; r++)
	for (k = 0; k < nl; k++) {
		struct kv_result *res;

		l = (k + r) % nl;
		run.lock = cfg->locks[l];
		res = &all[((size_t)l * nw + w) * reps + r];
		if (kv_point(&run, cfg->writers.v[w], res))
			broken = 1;
		fprintf(stderr, "[%4d/%d] kv writers %2ld rep %d  %-26s %9.1f kreads/s %8.1f kwrites/s  wlat p99 %8.1f us\n",
			++done, nl * nw * reps, cfg->writers.v[w], r,
			bench_lock_label(run.lock), res->reads_per_s / 1e3,
			res->writes_per_s / 1e3, res->wlat_p99_us);
	}
	fprintf(f, "lock,readers,writers,repeats,reads_per_s_med,reads_per_s_min,reads_per_s_max,writes_per_s_med,writes_per_s_min,writes_per_s_max,wlat_p50_us_med,wlat_p99_us_med,wlat_p99_us_min,wlat_p99_us_max,wlat_p999_us_med,cpus_busy_med\n");
	for (l = 0; l < nl; l++)
	for (w = 0; w < nw; w++) {
		struct kv_result *base = &all[((size_t)l * nw + w) * reps];
		struct bench_spread s[6];

		for (r = 0; r < reps; r++) {
			v[0][r] = base[r].reads_per_s;
			v[1][r] = base[r].writes_per_s;
			v[2][r] = base[r].wlat_p50_us;
			v[3][r] = base[r].wlat_p99_us;
			v[4][r] = base[r].wlat_p999_us;
		}
		for (k = 0; k < 5; k++)
			s[k] = bench_spread_of(v[k], reps);
		for (r = 0; r < reps; r++)
			v[0][r] = base[r].cpus_busy;
		s[5] = bench_spread_of(v[0], reps);
		fprintf(f, "%s,%d,%ld,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.4g\n",
			bench_lock_label(cfg->locks[l]), cfg->readers,
			cfg->writers.v[w], reps, s[0].median, s[0].min,
			s[0].max, s[1].median, s[1].min, s[1].max,
			s[2].median, s[3].median, s[3].min, s[3].max,
			s[4].median, s[5].median);
	}
	fclose(f);
	rcu_unregister_thread();
	free(run.lockmem);
	free(all);
	return broken;
}
