// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * meta.c - meta.json: everything needed to read the numbers next to it —
 * which kernel and machine, what libuspin found (ops, provider, what AUTO
 * is), the calibration, the command line, and which locks ran or were
 * skipped and why.
 */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "clock.h"
#include "uspin.h"

extern const struct bench_lock *bench_skipped[];
extern const char *bench_skipped_why[];
extern int bench_nr_skipped;

/* JSON string body: the few characters our values can carry. */
static void js_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if ((unsigned char)*s >= 0x20)
			fputc(*s, f);
	}
	fputc('"', f);
}

static void js_list(FILE *f, const char *key, const struct bench_list *l)
{
	int i;

	fprintf(f, "  \"%s\": [", key);
	for (i = 0; i < l->n; i++)
		fprintf(f, "%s%ld", i ? ", " : "", l->v[i]);
	fprintf(f, "],\n");
}

void bench_write_meta(const struct bench_config *cfg, const char *mode)
{
	FILE *f = bench_open_out(cfg, "meta.json");
	struct uspin_info info;
	struct utsname u;
	char date[64];
	time_t now = time(NULL);
	int i;

	uname(&u);
	uspin_query(&info);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	fprintf(f, "{\n  \"mode\": ");
	js_str(f, mode);
	fprintf(f, ",\n  \"command\": ");
	js_str(f, cfg->cmdline);
	fprintf(f, ",\n  \"date\": \"%s\",\n  \"kernel\": ", date);
	js_str(f, u.release);
	fprintf(f, ",\n  \"kernel_version\": ");
	js_str(f, u.version);
	fprintf(f, ",\n  \"machine\": ");
	js_str(f, u.machine);
	fprintf(f, ",\n  \"cpus_online\": %ld,\n", sysconf(_SC_NPROCESSORS_ONLN));
	fprintf(f, "  \"timestamps\": ");
	js_str(f, bench_clock_name());
	fprintf(f, ",\n  \"clocksource\": ");
	js_str(f, bench_clocksource());
	fprintf(f, ",\n");
	fprintf(f, "  \"futex_lock\": %d,\n  \"futex_lock_adaptive\": %d,\n",
		info.futex_lock, info.futex_lock_adaptive);
	fprintf(f, "  \"running_state_provider\": ");
	js_str(f, info.running_state);
	fprintf(f, ",\n  \"auto_policy\": ");
	js_str(f, uspin_policy_name(info.auto_policy));
	fprintf(f, ",\n  \"calibration\": {\"insn_per_round\": %.3f, \"source\": \"%s\", \"ns_per_round\": %.4f},\n",
		cfg->cal.insn_per_round, cfg->cal.source, cfg->cal.ns_per_round);
	js_list(f, "periods", &cfg->periods);
	js_list(f, "duties", &cfg->duties);
	js_list(f, "threads", &cfg->threads);
	js_list(f, "kv_writers", &cfg->writers);
	fprintf(f, "  \"kv_readers\": %d,\n  \"kv_keys\": %ld,\n  \"repeats\": %d,\n  \"seconds\": %.3f,\n  \"latency_sample_one_in\": %d,\n",
		cfg->readers, cfg->keys, cfg->repeats, cfg->seconds,
		1 << cfg->sample_shift);
	fprintf(f, "  \"locks\": [");
	for (i = 0; i < cfg->nr_locks; i++) {
		fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
		js_str(f, cfg->locks[i]->name);
		fprintf(f, ", \"label\": ");
		js_str(f, bench_lock_label(cfg->locks[i]));
		fprintf(f, ", \"note\": ");
		js_str(f, cfg->locks[i]->describe ?
			  cfg->locks[i]->describe() : "");
		fprintf(f, "}");
	}
	fprintf(f, "\n  ],\n  \"skipped\": [");
	for (i = 0; i < bench_nr_skipped; i++) {
		fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
		js_str(f, bench_skipped[i]->name);
		fprintf(f, ", \"reason\": ");
		js_str(f, bench_skipped_why[i]);
		fprintf(f, "}");
	}
	fprintf(f, "\n  ]\n}\n");
	fclose(f);
}
