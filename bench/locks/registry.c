// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * registry.c - the contenders, in the order outputs list them: the 2010
 * series' set first, then glibc (and its spin-count tunable), then
 * libuspin's policies; and choosing among them for a run.
 */
#include <stdio.h>
#include <string.h>

#include "lock.h"

extern const struct bench_lock bench_lock_futex_wait,
	bench_lock_futex_wait_adaptive, bench_lock_futex_wait_tid, bench_lock_parking_lot,
	bench_lock_futex_lock, bench_lock_futex_lock_adaptive,
	bench_lock_futex_lock_unlock, bench_lock_futex_lock_adaptive_unlock,
	bench_lock_pthread_mutex, bench_lock_pthread_mutex_adaptive,
	bench_lock_pthread_mutex_pi, bench_lock_pthread_mutex_adaptive_spin0,
	bench_lock_pthread_mutex_adaptive_spin1000, bench_lock_uspin_block,
	bench_lock_uspin_spin, bench_lock_uspin_kernel_adaptive,
	bench_lock_uspin_user_adaptive, bench_lock_uspin_user_adaptive_futex_wait,
	bench_lock_uspin_user_adaptive_bounded, bench_lock_uspin_spin_capped,
	bench_lock_uspin_spin_capped_shadow, bench_lock_uspin_blind_2us,
	bench_lock_uspin_blind_10us, bench_lock_uspin_blind_40us,
	bench_lock_uspin_blind_200us, bench_lock_uspin_user_adaptive_areas,
	bench_lock_uspin_block_slice, bench_lock_uspin_spin_slice,
	bench_lock_uspin_user_adaptive_slice;

const struct bench_lock *const bench_locks[] = {
	&bench_lock_futex_wait,
	&bench_lock_futex_wait_adaptive,
	&bench_lock_futex_wait_tid,
	&bench_lock_futex_lock,
	&bench_lock_futex_lock_adaptive,
	&bench_lock_futex_lock_unlock,
	&bench_lock_futex_lock_adaptive_unlock,
	&bench_lock_pthread_mutex,
	&bench_lock_pthread_mutex_adaptive,
	&bench_lock_pthread_mutex_adaptive_spin0,
	&bench_lock_pthread_mutex_adaptive_spin1000,
	&bench_lock_pthread_mutex_pi,
	&bench_lock_parking_lot,
	&bench_lock_uspin_block,
	&bench_lock_uspin_spin,
	&bench_lock_uspin_kernel_adaptive,
	&bench_lock_uspin_user_adaptive,
	&bench_lock_uspin_user_adaptive_futex_wait,
	&bench_lock_uspin_user_adaptive_bounded,
	&bench_lock_uspin_spin_capped,
	&bench_lock_uspin_spin_capped_shadow,
	&bench_lock_uspin_blind_2us,
	&bench_lock_uspin_blind_10us,
	&bench_lock_uspin_blind_40us,
	&bench_lock_uspin_blind_200us,
	&bench_lock_uspin_user_adaptive_areas,
	&bench_lock_uspin_block_slice,
	&bench_lock_uspin_spin_slice,
	&bench_lock_uspin_user_adaptive_slice,
};
const size_t bench_nr_locks = sizeof(bench_locks) / sizeof(bench_locks[0]);

const struct bench_lock *bench_lock_find(const char *name)
{
	size_t i;

	for (i = 0; i < bench_nr_locks; i++)
		if (strcmp(bench_locks[i]->name, name) == 0)
			return bench_locks[i];
	return NULL;
}

struct bench_skip bench_skipped[BENCH_MAX_SKIPS];
int bench_nr_skipped;

static int add(const struct bench_lock *l, const struct bench_lock **out,
	       int n, int max)
{
	const char *why = l->probe ? l->probe() : NULL;
	int i;

	for (i = 0; i < n; i++)
		if (out[i] == l)
			return n;
	if (why) {
		if (bench_nr_skipped < BENCH_MAX_SKIPS) {
			bench_skipped[bench_nr_skipped].lock = l;
			bench_skipped[bench_nr_skipped++].why = why;
		}
		return n;
	}
	if (n < max)
		out[n++] = l;
	return n;
}

int bench_lock_select(const char *names, const struct bench_lock **out,
		      int n, int max)
{
	char buf[1024], *tok, *save;
	size_t i;

	if (!names || strcmp(names, "all") == 0) {
		for (i = 0; i < bench_nr_locks; i++)
			n = add(bench_locks[i], out, n, max);
		return n;
	}
	snprintf(buf, sizeof(buf), "%s", names);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		const struct bench_lock *l = bench_lock_find(tok);

		if (!l) {
			fprintf(stderr, "uspin-bench: no lock named %s (see `uspin-bench list`)\n",
				tok);
			return -1;
		}
		n = add(l, out, n, max);
	}
	return n;
}
