// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * provider_vdso.c - the running-state array of the patched kernel, found
 * through its vDSO function (running_state_abi.h).
 *
 * The array is indexed by the TIDs the kernel publishes; a process in a
 * child pid namespace refuses it unless the kernel says the array speaks
 * its namespace (see NOTES.md), so it never answers "yes" about the wrong
 * thread.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pid_namespace.h"
#include "running_state_abi.h"
#include "running_state_providers.h"
#include "vdso_sym.h"

static int vdso_attach(struct uspin_rs_view *view)
{
	uspin_vdso_rs_fn fn = (uspin_vdso_rs_fn)uspin_vdso_sym(
		USPIN_VDSO_RS_VERSION, USPIN_VDSO_RS_SYMBOL);
	struct uspin_vdso_running_state rs;

	if (!fn)
		return ENOENT;		/* stock kernel */
	memset(&rs, 0, sizeof(rs));
	if (fn(&rs, sizeof(rs)) != 0)
		return ENODEV;
	if (rs.version != USPIN_RS_LAYOUT_V1 || rs.entry_size != 4 ||
	    !rs.base || !rs.nr_entries)
		return ENOTSUP;		/* a layout this library cannot read */
	if (!uspin_in_initial_pid_ns())
		return ENOTSUP;		/* the array speaks global TIDs */
	view->base = (const volatile uint32_t *)(uintptr_t)rs.base;
	view->nr_entries = rs.nr_entries;
	view->stride = 1;
	return 0;
}

const struct uspin_rs_provider uspin_rs_provider_vdso = {
	.name = "vdso",
	.attach = vdso_attach,
};
