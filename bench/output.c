// SPDX-License-Identifier: LGPL-2.1-or-later
/* output.c - the output directory and the files in it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "output.h"

int bench_output_dir(const char *dir)
{
	if (mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "uspin-bench: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	return 0;
}

FILE *bench_open_out(const char *dir, const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "uspin-bench: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	return f;
}
