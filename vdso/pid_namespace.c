// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * pid_namespace.c - /proc/self/status lists one NSpid per pid namespace
 * level the process belongs to; exactly one means the initial namespace.
 */
#include <stdio.h>
#include <string.h>

#include "pid_namespace.h"

int uspin_in_initial_pid_ns(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	int levels = -1;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *tok, *save;

		if (strncmp(line, "NSpid:", 6) != 0)
			continue;
		levels = 0;
		for (tok = strtok_r(line + 6, " \t\n", &save); tok;
		     tok = strtok_r(NULL, " \t\n", &save))
			levels++;
		break;
	}
	fclose(f);
	return levels == 1;
}
