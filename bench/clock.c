// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * clock.c - calibrating the timestamp of clock.h against CLOCK_MONOTONIC,
 * and naming what the kernel uses, for the metadata.
 */
#include <stdio.h>
#include <string.h>

#include "clock.h"

double bench_ns_per_tick = 1.0;

static char clock_name[64] = "CLOCK_MONOTONIC";

double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void bench_clock_set(double ns_per_tick)
{
	bench_ns_per_tick = ns_per_tick;
#ifdef BENCH_HAVE_TSC
	snprintf(clock_name, sizeof(clock_name), "tsc (%.3f GHz)",
		 1.0 / bench_ns_per_tick);
#endif
}

void bench_clock_init(double seconds)
{
#ifdef BENCH_HAVE_TSC
	double t0 = bench_now(), t1;
	uint64_t c0 = bench_ticks(), c1;

	do {
		t1 = bench_now();
		c1 = bench_ticks();
	} while (t1 - t0 < seconds);
	bench_clock_set((t1 - t0) * 1e9 / (double)(c1 - c0));
#else
	(void)seconds;
#endif
}

const char *bench_clock_name(void)
{
	return clock_name;
}

const char *bench_clocksource(void)
{
	static char buf[64];
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");

	strcpy(buf, "unknown");
	if (f) {
		if (fgets(buf, sizeof(buf), f))
			buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
	return buf;
}
