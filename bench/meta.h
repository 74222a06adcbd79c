/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* meta.h - meta.json, the description of a run (meta.c). */
#ifndef BENCH_META_H
#define BENCH_META_H

#include "config.h"

/* What the run did, for the final version of meta.json. */
struct bench_meta_tally {
	int rows, disturbed, reruns, broken;
};

/* @tally NULL: the version written at the start ("finished": false). */
void bench_write_meta(const struct bench_config *cfg, const char *mode,
		      const struct bench_meta_tally *tally);

#endif /* BENCH_META_H */
