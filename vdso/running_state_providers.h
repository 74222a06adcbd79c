/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * running_state_providers.h - the providers compiled into libuspin.
 * A new provider adds its extern here and its entry to
 * USPIN_RS_PROVIDER_LIST, in AUTO's order of preference.
 */
#ifndef USPIN_RUNNING_STATE_PROVIDERS_H
#define USPIN_RUNNING_STATE_PROVIDERS_H

#include "running_state.h"

extern const struct uspin_rs_provider uspin_rs_provider_none;
extern const struct uspin_rs_provider uspin_rs_provider_vdso;
extern const struct uspin_rs_provider uspin_rs_provider_rseq;
extern const struct uspin_rs_provider uspin_rs_provider_bpf;

#define USPIN_RS_PROVIDER_LIST	\
	&uspin_rs_provider_vdso,	\
	&uspin_rs_provider_rseq,	\
	&uspin_rs_provider_bpf,

#endif
