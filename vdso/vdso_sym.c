// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * vdso_sym.c - look a symbol up in the vDSO image through its ELF dynamic
 * section: DT_SYMTAB, DT_STRTAB, DT_HASH or DT_GNU_HASH for the symbol
 * count, DT_VERSYM/DT_VERDEF for versions.  The vDSO is mapped whole, so
 * every address is the load bias plus the ELF virtual address.
 */
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>

#include "vdso_sym.h"

struct vdso_image {
	uintptr_t bias;
	const ElfW(Sym) *symtab;
	const char *strtab;
	const ElfW(Half) *versym;
	const ElfW(Verdef) *verdef;
	uint32_t nsyms;
};

/* Highest symbol index + 1 from a GNU hash table (it has no count). */
static uint32_t gnu_hash_nsyms(const uint32_t *h)
{
	uint32_t nbuckets = h[0], symoffset = h[1], bloom = h[2];
	const uint32_t *buckets =
		(const uint32_t *)((const ElfW(Addr) *)(h + 4) + bloom);
	const uint32_t *chain = buckets + nbuckets;
	uint32_t i, last = 0;

	for (i = 0; i < nbuckets; i++)
		if (buckets[i] > last)
			last = buckets[i];
	if (last < symoffset)
		return symoffset;
	while (!(chain[last - symoffset] & 1))
		last++;
	return last + 1;
}

static int load_image(struct vdso_image *img)
{
	const ElfW(Ehdr) *eh = (const void *)getauxval(AT_SYSINFO_EHDR);
	const ElfW(Phdr) *ph;
	const ElfW(Dyn) *dyn = NULL, *d;
	int i, have_bias = 0;

	memset(img, 0, sizeof(*img));
	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
		return -1;
	ph = (const void *)((const char *)eh + eh->e_phoff);
	for (i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD && !have_bias) {
			img->bias = (uintptr_t)eh + ph[i].p_offset - ph[i].p_vaddr;
			have_bias = 1;
		} else if (ph[i].p_type == PT_DYNAMIC) {
			dyn = (const void *)((const char *)eh + ph[i].p_offset);
		}
	}
	if (!have_bias || !dyn)
		return -1;
	for (d = dyn; d->d_tag != DT_NULL; d++) {
		const void *p = (const void *)(img->bias + d->d_un.d_ptr);

		switch (d->d_tag) {
		case DT_SYMTAB:
			img->symtab = p;
			break;
		case DT_STRTAB:
			img->strtab = p;
			break;
		case DT_HASH:
			img->nsyms = ((const uint32_t *)p)[1];
			break;
		case DT_GNU_HASH:
			if (!img->nsyms)
				img->nsyms = gnu_hash_nsyms(p);
			break;
		case DT_VERSYM:
			img->versym = p;
			break;
		case DT_VERDEF:
			img->verdef = p;
			break;
		}
	}
	return img->symtab && img->strtab && img->nsyms ? 0 : -1;
}

static int version_matches(const struct vdso_image *img, uint32_t sym,
			   const char *version)
{
	const ElfW(Verdef) *vd = img->verdef;
	ElfW(Half) ver;

	if (!version)
		return 1;
	if (!img->versym || !vd)
		return 0;
	ver = img->versym[sym] & 0x7fff;
	for (;;) {
		if (!(vd->vd_flags & VER_FLG_BASE) && vd->vd_ndx == ver) {
			const ElfW(Verdaux) *aux =
				(const void *)((const char *)vd + vd->vd_aux);

			return strcmp(img->strtab + aux->vda_name, version) == 0;
		}
		if (!vd->vd_next)
			return 0;
		vd = (const void *)((const char *)vd + vd->vd_next);
	}
}

void *uspin_vdso_sym(const char *version, const char *name)
{
	struct vdso_image img;
	uint32_t i;

	if (load_image(&img) != 0)
		return NULL;
	for (i = 0; i < img.nsyms; i++) {
		const ElfW(Sym) *s = &img.symtab[i];

		if (ELF64_ST_TYPE(s->st_info) != STT_FUNC ||
		    s->st_shndx == SHN_UNDEF ||
		    strcmp(img.strtab + s->st_name, name) != 0)
			continue;
		if (version_matches(&img, i, version))
			return (void *)(img.bias + s->st_value);
	}
	return NULL;
}
