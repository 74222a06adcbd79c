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
	/*
	 * Environment ("NAME=value", NULL-terminated) the lock needs from the
	 * start of its process (glibc tunables, libuspin's setup): a lock with
	 * one runs every repetition in a fresh process (child.c), still
	 * interleaved with the others.  NULL: runs in the harness itself.
	 */
	const char *const *env;
	/* 1: libuspin underneath, so uspin_thread_stats() describes it. */
	int thread_stats;
	int (*init)(void *lock);	/* 0 or an errno value */
	void (*lock)(void *lock);
	void (*unlock)(void *lock);
	void (*destroy)(void *lock);
};

/* The registry (registry.c), in the order the outputs list them. */
extern const struct bench_lock *const bench_locks[];
extern const size_t bench_nr_locks;

const struct bench_lock *bench_lock_find(const char *name);

/* Locks a run asked for that cannot run here, and why. */
struct bench_skip {
	const struct bench_lock *lock;
	const char *why;
};
#define BENCH_MAX_SKIPS	32
extern struct bench_skip bench_skipped[BENCH_MAX_SKIPS];
extern int bench_nr_skipped;

/*
 * Appends the locks named in @names (comma-separated; NULL or "all": the
 * whole registry) that pass their probe to @out, the others to
 * bench_skipped.  Returns the new count, or -1 for an unknown name.
 */
int bench_lock_select(const char *names, const struct bench_lock **out,
		      int n, int max);

#endif /* BENCH_LOCK_H */
