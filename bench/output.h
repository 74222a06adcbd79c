/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* output.h - the output directory and the files in it. */
#ifndef BENCH_OUTPUT_H
#define BENCH_OUTPUT_H

#include <stdio.h>

/* Creates @dir if needed; 0, or -1 with a message. */
int bench_output_dir(const char *dir);
/* @dir/@name opened for writing; exits with a message on error. */
FILE *bench_open_out(const char *dir, const char *name);

#endif /* BENCH_OUTPUT_H */
