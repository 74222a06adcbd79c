/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * vdso_sym.h - find a symbol in this process's vDSO, without libdl.
 */
#ifndef USPIN_VDSO_SYM_H
#define USPIN_VDSO_SYM_H

/*
 * Address of @name (with symbol version @version, or any version if NULL)
 * in the vDSO the kernel mapped (getauxval(AT_SYSINFO_EHDR)), or NULL.
 */
void *uspin_vdso_sym(const char *version, const char *name);

#endif
