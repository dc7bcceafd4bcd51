/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <unistd.h>

#include "common/macro.h"
#include "elfsym.h"

#define VERSYM_HIDDEN 0x8000 /* a non-default version (name@VER, not name@@VER) */

static int vaddr_to_offset(Elf *elf, uint64_t addr, uint64_t *off)
{
	size_t n;

	if (elf_getphdrnum(elf, &n) < 0)
		return -EBADMSG;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		if (addr >= ph.p_vaddr && addr < ph.p_vaddr + ph.p_memsz) {
			*off = addr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -ENOENT;
}

int elf_func_offset(const char *path, const char *name, uint64_t *ret_off)
{
	_cleanup_close_ int fd = -1;
	Elf *elf = NULL;
	Elf_Scn *scn = NULL;
	Elf_Data *syms = NULL, *versyms = NULL;
	size_t strndx = 0, nsyms = 0;
	uint64_t best = 0;
	int found = 0, r = -ENOENT;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf)
		return -EBADMSG;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_DYNSYM) {
			syms = elf_getdata(scn, NULL);
			strndx = sh.sh_link;
			nsyms = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
		} else if (sh.sh_type == SHT_GNU_versym) {
			versyms = elf_getdata(scn, NULL);
		}
	}
	for (size_t i = 0; syms && i < nsyms; i++) {
		GElf_Sym sym;
		GElf_Versym vs = 0;
		const char *sname;

		if (!gelf_getsym(syms, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF)
			continue;
		sname = elf_strptr(elf, strndx, sym.st_name);
		if (!sname || strcmp(sname, name) != 0)
			continue;
		if (versyms)
			(void)gelf_getversym(versyms, (int)i, &vs);
		if (!found || !(vs & VERSYM_HIDDEN)) {
			best = sym.st_value;
			found = (vs & VERSYM_HIDDEN) ? 1 : 2;
		}
		if (found == 2)
			break;
	}
	if (found)
		r = vaddr_to_offset(elf, best, ret_off);
	elf_end(elf);
	return r;
}
