// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * spin_gaps.c - the gaps a spinning thread sees between two reads of the
 * cycle counter, as libuspin's spin loop reads it (libuspin/spin.c stops
 * a spin at a gap longer than preempt_gap: its CPU was taken).  Spins for
 * SECONDS with nothing else to do, optionally beside HOGS busy threads on
 * the same CPU, and prints how many gaps fell in each band and the
 * longest: the threshold must sit above what an undisturbed spinner sees
 * (interrupts, a hypervisor's hiccups) and below a preemption.
 *
 * usage: bench-spin-gaps [SECONDS [HOGS]]   (defaults 2, 0)
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <urcu/arch.h>

#include "cycles.h"
#include "uspin.h"

static volatile int stop;

static void *hog(void *arg)
{
	while (!stop)
		caa_cpu_relax();
	return arg;
}

/* libuspin's own calibration of the counter (setup.c), not a second one. */
static double cycles_per_us(void)
{
	struct uspin_info info;

	return uspin_query(&info) == 0 ? (double)info.cycles_per_us : 0;
}

int main(int argc, char **argv)
{
	static const double bands_us[] = { 10, 20, 50, 100, 200, 500, 1000, 5000 };
	enum { NB = sizeof(bands_us) / sizeof(bands_us[0]) };
	double seconds = argc > 1 ? atof(argv[1]) : 2, per_us, worst = 0;
	int hogs = argc > 2 ? atoi(argv[2]) : 0, i;
	unsigned long count[NB + 1] = { 0 }, reads = 0;
	pthread_t t[64];
	cpu_set_t one;
	uint64_t prev, now, end;

	per_us = cycles_per_us();
	if (seconds <= 0 || hogs < 0 || hogs > 64 || per_us <= 0) {
		fprintf(stderr, "usage: bench-spin-gaps [SECONDS [HOGS (0-64)]]\n");
		return 2;
	}
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	sched_setaffinity(0, sizeof(one), &one);
	for (i = 0; i < hogs; i++) {
		pthread_create(&t[i], NULL, hog, NULL);
		pthread_setaffinity_np(t[i], sizeof(one), &one);
	}
	prev = uspin_cycles();
	end = prev + (uint64_t)(seconds * 1e6 * per_us);
	for (now = prev; now < end; prev = now) {
		double gap;
		int b;

		for (i = 0; i < 64; i++)	/* the longest backoff step */
			caa_cpu_relax();
		now = uspin_cycles();
		reads++;
		gap = (now - prev) / per_us;
		if (gap > worst)
			worst = gap;
		for (b = NB; b > 0 && gap < bands_us[b - 1]; b--)
			;
		count[b]++;
	}
	stop = 1;
	for (i = 0; i < hogs; i++)
		pthread_join(t[i], NULL);
	printf("spin-gaps: %.1f s, %d hogs on the spinner's CPU, %lu reads, longest gap %.1f us\n",
	       seconds, hogs, reads, worst);
	for (i = 1; i <= NB; i++)
		if (count[i])
			printf("  >= %6.0f us: %lu\n", bands_us[i - 1], count[i]);
	return 0;
}
