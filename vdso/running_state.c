// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * running_state.c - pick the running-state provider once per process.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "running_state.h"
#include "running_state_providers.h"

struct uspin_rs_view uspin_rs_view;	/* zero: no provider, all UNKNOWN */
const uint32_t uspin_rs_always_alive = 1;	/* TID part 1: never dies */

/*
 * Preference order for AUTO: the kernel's own array, then its per-thread
 * areas, then BPF, then none.
 */
static const struct uspin_rs_provider *const providers[] = {
	USPIN_RS_PROVIDER_LIST
	&uspin_rs_provider_none,
};

static const char *active = "none";
static const struct uspin_rs_provider *active_provider = &uspin_rs_provider_none;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static int try_attach(const struct uspin_rs_provider *p)
{
	struct uspin_rs_view view = { 0 };

	if (p->attach(&view) != 0)
		return 0;
	/* Publish base and stride before nr_entries makes them reachable. */
	uspin_rs_view.base = view.base;
	uspin_rs_view.ptrs = view.ptrs;
	uspin_rs_view.alive = view.alive ? view.alive : &uspin_rs_always_alive;
	uspin_rs_view.stride = view.stride ? view.stride : 1;
	uspin_rs_view.line_shift = view.line_shift;
	uspin_rs_view.block_shift = view.block_shift;
	uspin_rs_view.has_cpu = view.has_cpu;
	uspin_rs_view.own_process = view.own_process;
	uspin_rs_view.rq = view.rq;
	uspin_rs_view.nr_rq = view.nr_rq;
	__atomic_store_n(&uspin_rs_view.nr_entries, view.nr_entries,
			 __ATOMIC_RELEASE);
	active = p->name;
	active_provider = p;
	return 1;
}

static void choose_provider(void)
{
	const char *want = getenv("USPIN_RS_PROVIDER");
	size_t i, n = sizeof(providers) / sizeof(providers[0]);

	if (want && *want && strcmp(want, "auto") != 0) {
		for (i = 0; i < n; i++)
			if (strcmp(providers[i]->name, want) == 0)
				break;
		if (i == n) {
			fprintf(stderr,
				"uspin: USPIN_RS_PROVIDER=%s: unknown provider, using none\n",
				want);
			return;
		}
		if (!try_attach(providers[i]))
			fprintf(stderr,
				"uspin: USPIN_RS_PROVIDER=%s: not available here, using none\n",
				want);
		return;
	}
	for (i = 0; i < n; i++)
		if (try_attach(providers[i]))
			return;
}

const char *uspin_running_state_init(void)
{
	pthread_once(&init_once, choose_provider);
	return active;
}

const char *uspin_running_state_provider(void)
{
	return uspin_running_state_init();
}

const struct uspin_rs_provider *uspin_running_state_active(void)
{
	return active_provider;
}

/*
 * A line for uspin-info: the active provider's own, or, with none active,
 * the first provider that can say why it is not (and how to opt in).
 */
const char *uspin_running_state_describe(void)
{
	size_t i, n = sizeof(providers) / sizeof(providers[0]);
	const char *line;

	if (active_provider->describe)
		return active_provider->describe();
	for (i = 0; i < n; i++)
		if (providers[i]->describe && (line = providers[i]->describe()))
			return line;
	return NULL;
}
