/*
 * kv.c - a workload that is not a CPU hog: a key-value store in a liburcu
 * rculfhash.  Readers look keys up under rcu_read_lock() and never touch
 * the lock; writers serialise through the lock under test, as an
 * application does to keep an invariant across keys.  Hold times are
 * mixed: most writes replace one key, one in twenty replaces a batch of
 * KV_BATCH keys (a long hold), and writers think between writes.
 *
 * Reported per (lock, writers): writes/s (ops_per_s) and reads/s, the
 * writer latency (from asking for the lock to releasing it), CPU per
 * write, and libuspin's counters of the writers.
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <urcu.h>
#include <urcu/rculfhash.h>

#include "clock.h"
#include "locks/lock.h"
#include "stats.h"
#include "thread_stats.h"
#include "workload.h"

#define KV_BATCH		32
#define KV_LONG_PER_1024	51	/* ~5 % of writes hold the lock long */
#define KV_THINK_INSN		2000	/* writer work between writes */
#define KV_LAT_SAMPLES		(1u << 15)
#define KV_MIN_KEYS		64

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
	struct uspin_thread_stats st;
	int st_ok;
	pthread_t thread;
} __attribute__((aligned(128)));

struct kv_run {
	const struct bench_config *cfg;
	const struct bench_lock *lock;
	void *lockmem;
	struct cds_lfht *ht;
	long keys;
	pthread_barrier_t start;
	int stop;
	unsigned long generation;	/* protected: one per write */
};

/* The table lives for the whole process: filled once, by setup(). */
static struct kv_run kv;

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
	long keys = run->keys;
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
		sum += kv_get(run->ht, rng_next(&t->rng) % run->keys);
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
	if (t->writer) {
		if (t->run->lock->thread_stats)
			t->st_ok = bench_thread_stats_reset() == 0;
		writer_loop(t);
		if (t->st_ok)
			t->st_ok = bench_thread_stats_read(&t->st) == 0;
	} else {
		reader_loop(t);
	}
	rcu_unregister_thread();
	return NULL;
}

static double tv_s(struct timeval tv)
{
	return tv.tv_sec + tv.tv_usec * 1e-6;
}

static int points(const struct bench_config *cfg, struct bench_point *pts,
		  int max)
{
	static const struct bench_list def = { { 1, 2, 4, 8 }, 4 };
	static const struct bench_list quick = { { 2, 8 }, 2 };
	const struct bench_list *w = bench_list_or(&cfg->writers,
		cfg->quick ? &quick : &def);
	int i, n = 0;

	for (i = 0; i < w->n && n < max; i++) {
		struct bench_point *pt = &pts[n++];

		bench_axes_init(&pt->ax);
		pt->ax.writers = w->v[i];
		pt->ax.readers = cfg->readers;
		pt->ax.threads = w->v[i] + cfg->readers;
		snprintf(pt->id, sizeof(pt->id), "w%ld-r%d", w->v[i],
			 cfg->readers);
	}
	return n;
}

static int setup(const struct bench_config *cfg)
{
	long key;

	kv.cfg = cfg;
	kv.keys = cfg->keys < KV_MIN_KEYS ? KV_MIN_KEYS : cfg->keys;
	kv.lockmem = aligned_alloc(BENCH_LOCK_ALIGN, BENCH_LOCK_SIZE);
	kv.ht = cds_lfht_new(1024, 1024, 0, CDS_LFHT_AUTO_RESIZE, NULL);
	if (!kv.lockmem || !kv.ht) {
		perror("uspin-bench: kv");
		return -1;
	}
	rcu_register_thread();
	for (key = 0; key < kv.keys; key++)
		kv_put(kv.ht, key, 0);
	return 0;
}

static void teardown(void)
{
	rcu_unregister_thread();
	free(kv.lockmem);
	kv.lockmem = NULL;
}

static int run(const struct bench_config *cfg, const struct bench_point *pt,
	       int round, const struct bench_lock *lock,
	       struct bench_result *res)
{
	struct kv_run *run = &kv;
	int writers = pt->ax.writers, n = writers + cfg->readers, i, err = 0;
	struct kv_thread *t = aligned_alloc(128, n * sizeof(*t));
	unsigned long reads = 0, writes = 0, nlat = 0, per[256], lo = ~0ul, hi = 0;
	struct uspin_thread_stats st;
	struct timespec ts;
	struct rusage r0, r1;
	uint32_t *lat;
	double t0, wall, cpu;
	int st_all = 1;

	if (!t || writers > 256)
		abort();
	memset(t, 0, n * sizeof(*t));
	memset(&st, 0, sizeof(st));
	run->lock = lock;
	memset(run->lockmem, 0, BENCH_LOCK_SIZE);
	lock->init(run->lockmem);
	run->stop = 0;
	run->generation = 0;
	pthread_barrier_init(&run->start, NULL, n + 1);
	for (i = 0; i < n; i++) {
		t[i].run = run;
		t[i].writer = i < writers;
		t[i].rng = 0x9e3779b97f4a7c15ull * (i + 1) +
			   0xbf58476d1ce4e5b9ull * round + 1;
		t[i].lat = t[i].writer ? malloc(KV_LAT_SAMPLES * 4) : NULL;
		if ((t[i].writer && !t[i].lat) ||
		    pthread_create(&t[i].thread, NULL, kv_thread_main, &t[i]))
			abort();
	}
	getrusage(RUSAGE_SELF, &r0);
	t0 = bench_now();
	pthread_barrier_wait(&run->start);
	ts.tv_sec = (time_t)cfg->seconds;
	ts.tv_nsec = (long)((cfg->seconds - ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts))
		;
	CMM_STORE_SHARED(run->stop, 1);
	for (i = 0; i < n; i++)
		pthread_join(t[i].thread, NULL);
	wall = bench_now() - t0;
	getrusage(RUSAGE_SELF, &r1);
	pthread_barrier_destroy(&run->start);
	lock->destroy(run->lockmem);

	for (i = 0; i < n; i++) {
		if (t[i].writer) {
			writes += t[i].ops;
			nlat += t[i].nlat;
			per[i] = t[i].ops;
			lo = per[i] < lo ? per[i] : lo;
			hi = per[i] > hi ? per[i] : hi;
			st_all &= t[i].st_ok;
			bench_thread_stats_add(&st, &t[i].st);
		} else {
			reads += t[i].ops;
		}
	}
	if (run->generation != writes) {
		fprintf(stderr, "uspin-bench: kv: %s broke mutual exclusion\n",
			lock->name);
		err = -1;
		res->broken = 1;
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
	res->ops = writes;
	res->wall_s = wall;
	res->ops_per_s = writes / wall;
	res->reads_per_s = reads / wall;
	cpu = tv_s(r1.ru_utime) - tv_s(r0.ru_utime) +
	      tv_s(r1.ru_stime) - tv_s(r0.ru_stime);
	res->cpus_busy = cpu / wall;
	if (writes) {
		res->user_us_per_op = (tv_s(r1.ru_utime) - tv_s(r0.ru_utime)) * 1e6 / writes;
		res->sys_us_per_op = (tv_s(r1.ru_stime) - tv_s(r0.ru_stime)) * 1e6 / writes;
		res->cpu_us_per_op = cpu * 1e6 / writes;
		res->vcsw_per_kop = (r1.ru_nvcsw - r0.ru_nvcsw) * 1e3 / writes;
		res->ivcsw_per_kop = (r1.ru_nivcsw - r0.ru_nivcsw) * 1e3 / writes;
	}
	res->jain = bench_jain(per, writers);
	res->min_max = hi ? (double)lo / hi : 0;
	res->lat_p50_ns = bench_percentile_u32(lat, nlat, 0.50) * bench_ns_per_tick;
	res->lat_p99_ns = bench_percentile_u32(lat, nlat, 0.99) * bench_ns_per_tick;
	res->lat_p999_ns = bench_percentile_u32(lat, nlat, 0.999) * bench_ns_per_tick;
	res->lat_samples = nlat;
	if (lock->thread_stats && st_all)
		bench_thread_stats_fill(res, &st, writes);
	free(lat);
	free(t);
	return err;
}

const struct bench_workload bench_wl_kv = {
	.name = "kv",
	.summary = "rculfhash store: readers under RCU, writers serialised by the lock, 5 % long holds",
	.x_axis = "writers",
	.latency = "writer: lock() call to unlock (the whole write), every write",
	.points = points,
	.setup = setup,
	.teardown = teardown,
	.run = run,
};
