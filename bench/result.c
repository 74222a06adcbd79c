// SPDX-License-Identifier: LGPL-2.1-or-later
/* result.c - a fresh point and a fresh result: nothing applies yet. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "result.h"

void bench_result_init(struct bench_result *r)
{
	double *d = (double *)r;
	size_t i;

	memset(r, 0, sizeof(*r));
	/* Every field up to `broken` is a metric column. */
	for (i = 0; i < offsetof(struct bench_result, broken) / sizeof(double); i++)
		d[i] = NAN;
	r->disturbed = 0;
	r->broken = 0;
}

void bench_axes_init(struct bench_axes *ax)
{
	long *v = (long *)ax;
	size_t i;

	for (i = 0; i < sizeof(*ax) / sizeof(long); i++)
		v[i] = -1;
}
