// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * provider_none.c - the provider of last resort: knows nothing, so every
 * query answers UNKNOWN and USER_ADAPTIVE degrades to a bounded spin.
 */
#include "running_state_providers.h"

static int none_attach(struct uspin_rs_view *view)
{
	view->base = 0;
	view->nr_entries = 0;
	view->stride = 1;
	return 0;
}

const struct uspin_rs_provider uspin_rs_provider_none = {
	.name = "none",
	.attach = none_attach,
};
