/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lock.h - the one interface every lock under comparison implements.
 *
 * Each contender lives in its own file under bench/locks/ and exports a
 * struct bench_lock.  The harness only ever calls through these pointers, so
 * every lock pays the same indirect call and nothing else differs between
 * them but the lock itself.
 */
#ifndef BENCH_LOCK_H
#define BENCH_LOCK_H

#include <stddef.h>

/* Storage handed to init(): big and aligned enough for every contender. */
#define BENCH_LOCK_SIZE		64
#define BENCH_LOCK_ALIGN	64

struct bench_lock {
	const char *name;	/* as it appears in every output */
	/*
	 * NULL when the lock can run on this kernel, else why not (written to
	 * the output as "skipped: <reason>", never replaced by a stand-in).
	 */
	const char *(*probe)(void);
	/* Extra words for the output metadata (provider, fallback), or NULL. */
	const char *(*describe)(void);
	int (*init)(void *lock);	/* 0 or an errno value */
	void (*lock)(void *lock);
	void (*unlock)(void *lock);
	void (*destroy)(void *lock);
};

/* The registry (locks.c), in the order the outputs list them. */
extern const struct bench_lock *const bench_locks[];
extern const size_t bench_nr_locks;

const struct bench_lock *bench_lock_find(const char *name);

#endif /* BENCH_LOCK_H */
