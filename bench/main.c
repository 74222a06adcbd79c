// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * main.c - uspin-bench: options, lock selection and the modes.
 *
 * usage: uspin-bench MODE [options]
 *   sweep      period x duty x threads x lock (the 2010 plots, and more)
 *   kv         the rculfhash key-value store with serialised writers
 *   micro      uncontended lock+unlock, running-state query cost
 *   all        micro, sweep and kv into one output directory
 *   calibrate  print the work-unit calibration
 *   work -n N  run N rounds of the work unit (for bench/calibrate.sh)
 *   list       the locks, and why any is skipped on this kernel
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "bench.h"
#include "clock.h"
#include "uspin.h"

/* Skipped locks and why, for list and meta.json. */
const struct bench_lock *bench_skipped[64];
const char *bench_skipped_why[64];
int bench_nr_skipped;

static void usage(FILE *f)
{
	fprintf(f,
"usage: uspin-bench MODE [options]\n"
"modes: sweep kv micro all calibrate list work\n"
"  -l LOCKS     comma-separated lock names (default: every lock this kernel runs)\n"
"  -p PERIODS   instructions per iteration         (default 1000,10000)\n"
"  -d DUTIES    percent of the period in the lock  (default 1,8,32,64)\n"
"  -t THREADS   thread counts                      (default 1,2,4,8,16,32)\n"
"  -w WRITERS   kv writer thread counts            (default 1,2,4,8)\n"
"  -R READERS   kv reader threads                  (default 2)\n"
"  -k KEYS      kv keys                            (default 4096)\n"
"  -r REPEATS   runs per point, 1-64               (default 3)\n"
"  -s SECONDS   length of one run                  (default 0.25)\n"
"  -S SHIFT     sample the latency of 1 in 2^SHIFT acquisitions (default 6)\n"
"  -n PAIRS     micro: pairs per repeat; work: rounds (default 2000000)\n"
"  -o DIR       output directory                   (default .)\n");
}

double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

FILE *bench_open_out(const struct bench_config *cfg, const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", cfg->outdir, name);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "uspin-bench: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	return f;
}

const char *bench_lock_label(const struct bench_lock *l)
{
	static char buf[64];
	struct uspin_info info;

	if (strcmp(l->name, "uspin_user_adaptive") != 0)
		return l->name;
	uspin_query(&info);
	snprintf(buf, sizeof(buf), "%s(%s)", l->name, info.running_state);
	return buf;
}

static int parse_list(const char *arg, struct bench_list *list, long lo,
		      long hi)
{
	char *end;

	list->n = 0;
	while (*arg) {
		if (list->n == BENCH_MAX_LIST)
			return -1;
		list->v[list->n] = strtol(arg, &end, 10);
		if (end == arg || list->v[list->n] < lo || list->v[list->n] > hi)
			return -1;
		list->n++;
		arg = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return -1;
	}
	return list->n ? 0 : -1;
}

static void add_lock(struct bench_config *cfg, const struct bench_lock *l)
{
	const char *why = l->probe ? l->probe() : NULL;

	if (why) {
		bench_skipped[bench_nr_skipped] = l;
		bench_skipped_why[bench_nr_skipped++] = why;
		fprintf(stderr, "skipped: %s: %s\n", l->name, why);
		return;
	}
	cfg->locks[cfg->nr_locks++] = l;
}

static int select_locks(struct bench_config *cfg, const char *arg)
{
	char buf[1024], *tok, *save;
	size_t i;

	if (!arg || strcmp(arg, "all") == 0) {
		for (i = 0; i < bench_nr_locks; i++)
			add_lock(cfg, bench_locks[i]);
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", arg);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		const struct bench_lock *l = bench_lock_find(tok);

		if (!l) {
			fprintf(stderr, "uspin-bench: no lock named %s (see `uspin-bench list`)\n",
				tok);
			return -1;
		}
		add_lock(cfg, l);
	}
	return 0;
}

static char *join_args(int argc, char **argv)
{
	size_t len = 1;
	char *s;
	int i;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = calloc(1, len);
	if (!s)
		exit(1);
	for (i = 0; i < argc; i++) {
		strcat(s, argv[i]);
		if (i + 1 < argc)
			strcat(s, " ");
	}
	return s;
}

static void print_calibration(const struct bench_config *cfg)
{
	fprintf(stderr, "calibration: 1 round = %.2f instructions (%s), %.3f ns here; period 1000 = %lu rounds = %.0f ns of work\n",
		cfg->cal.insn_per_round, cfg->cal.source,
		cfg->cal.ns_per_round, bench_rounds(&cfg->cal, 1000),
		bench_rounds(&cfg->cal, 1000) * cfg->cal.ns_per_round);
}

int main(int argc, char **argv)
{
	static struct bench_config cfg = {
		.readers = 2, .keys = 4096, .repeats = 3, .seconds = 0.25,
		.sample_shift = 6, .pairs = 2000000, .outdir = ".",
	};
	const char *mode, *locks = NULL;
	int opt, rc = 0, i;

	parse_list("1000,10000", &cfg.periods, 1, 100000000);
	parse_list("1,8,32,64", &cfg.duties, 0, 100);
	parse_list("1,2,4,8,16,32", &cfg.threads, 1, BENCH_MAX_THREADS);
	parse_list("1,2,4,8", &cfg.writers, 1, BENCH_MAX_THREADS);
	cfg.cmdline = join_args(argc, argv);
	if (argc < 2 || argv[1][0] == '-') {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	mode = argv[1];
	optind = 2;
	while ((opt = getopt(argc, argv, "l:p:d:t:w:R:k:r:s:S:n:o:h")) != -1) {
		int bad = 0;

		switch (opt) {
		case 'l': locks = optarg; break;
		case 'p': bad = parse_list(optarg, &cfg.periods, 1, 100000000); break;
		case 'd': bad = parse_list(optarg, &cfg.duties, 0, 100); break;
		case 't': bad = parse_list(optarg, &cfg.threads, 1, BENCH_MAX_THREADS); break;
		case 'w': bad = parse_list(optarg, &cfg.writers, 1, BENCH_MAX_THREADS); break;
		case 'R': cfg.readers = atoi(optarg); bad = cfg.readers < 0 || cfg.readers > 64; break;
		case 'k': cfg.keys = atol(optarg); bad = cfg.keys < KV_MIN_KEYS; break;
		case 'r': cfg.repeats = atoi(optarg); bad = cfg.repeats < 1 || cfg.repeats > 64; break;
		case 's': cfg.seconds = atof(optarg); bad = !(cfg.seconds > 0); break;
		case 'S': cfg.sample_shift = atoi(optarg); bad = cfg.sample_shift < 0 || cfg.sample_shift > 20; break;
		case 'n': cfg.pairs = atol(optarg); bad = cfg.pairs < 1; break;
		case 'o': cfg.outdir = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
		if (bad) {
			fprintf(stderr, "uspin-bench: bad value for -%c: %s\n",
				opt, optarg);
			return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}
	if (strcmp(mode, "work") == 0) {
		volatile unsigned long sink = bench_work(cfg.pairs, 1);

		(void)sink;
		return 0;
	}
	if (select_locks(&cfg, locks))
		return 2;
	if (strcmp(mode, "list") == 0) {
		for (i = 0; i < cfg.nr_locks; i++)
			printf("%-24s runs   %s\n", bench_lock_label(cfg.locks[i]),
			       cfg.locks[i]->describe ?
			       cfg.locks[i]->describe() : "");
		for (i = 0; i < bench_nr_skipped; i++)
			printf("%-24s skips  %s\n", bench_skipped[i]->name,
			       bench_skipped_why[i]);
		return 0;
	}
	/* 0.2 s: a 4 ms jiffies clocksource is then 2 % off at worst. */
	bench_clock_init(0.2);
	/* After the clock: its timing must not depend on a coarse clocksource. */
	bench_calibrate(&cfg.cal);
	print_calibration(&cfg);
	fprintf(stderr, "timestamps: %s; kernel clocksource %s\n",
		bench_clock_name(), bench_clocksource());
	if (strcmp(mode, "calibrate") == 0)
		return 0;
	if (mkdir(cfg.outdir, 0755) && errno != EEXIST) {
		fprintf(stderr, "uspin-bench: %s: %s\n", cfg.outdir,
			strerror(errno));
		return 1;
	}
	if (strcmp(mode, "sweep") && strcmp(mode, "kv") &&
	    strcmp(mode, "micro") && strcmp(mode, "all")) {
		usage(stderr);
		return 2;
	}
	bench_write_meta(&cfg, mode);
	if (!strcmp(mode, "micro") || !strcmp(mode, "all"))
		rc |= bench_micro(&cfg);
	if (!strcmp(mode, "sweep") || !strcmp(mode, "all"))
		rc |= bench_sweep(&cfg);
	if (!strcmp(mode, "kv") || !strcmp(mode, "all"))
		rc |= bench_kv(&cfg);
	fprintf(stderr, "uspin-bench: %s done, results in %s%s\n", mode,
		cfg.outdir, rc ? " (A LOCK BROKE MUTUAL EXCLUSION)" : "");
	return rc;
}
