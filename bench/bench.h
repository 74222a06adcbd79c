/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench.h - what the modes of uspin-bench share: the configuration parsed
 * from the command line, the calibration, the output directory.
 */
#ifndef BENCH_BENCH_H
#define BENCH_BENCH_H

#include <stdio.h>

#include "lock.h"
#include "work.h"

#define BENCH_MAX_LIST	16
#define BENCH_MAX_THREADS 256
#define KV_MIN_KEYS	64

struct bench_list {
	long v[BENCH_MAX_LIST];
	int n;
};

struct bench_config {
	const struct bench_lock *locks[64];	/* usable, in run order */
	int nr_locks;
	struct bench_list periods;	/* instructions per iteration */
	struct bench_list duties;	/* percent of the period in the lock */
	struct bench_list threads;
	struct bench_list writers;	/* kv: writer threads */
	int readers;			/* kv: reader threads */
	long keys;			/* kv: keys in the table */
	int repeats;
	double seconds;			/* per point and repeat */
	int sample_shift;		/* sample 1 acquisition in 2^shift */
	long pairs;			/* micro: lock+unlock pairs */
	const char *outdir;
	const char *cmdline;
	struct bench_calibration cal;
};

/* A file in the output directory, opened for writing (exits on error). */
FILE *bench_open_out(const struct bench_config *cfg, const char *name);
double bench_now(void);
/* Display name: the lock's name, plus the provider for user-adaptive. */
const char *bench_lock_label(const struct bench_lock *l);

int bench_sweep(const struct bench_config *cfg);
int bench_kv(const struct bench_config *cfg);
int bench_micro(const struct bench_config *cfg);
/* meta.json: kernel, machine, provider, calibration, locks and skips. */
void bench_write_meta(const struct bench_config *cfg, const char *mode);

#endif /* BENCH_BENCH_H */
