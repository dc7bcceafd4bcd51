/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hw_modalias_parse() and hw_modalias_lookup(): a kernel's modules.alias (below --root, an
 * image's, so anyone's). Input: the file's bytes, in an exact-size allocation (ASan catches a
 * read past them); its first 16 bytes also make the function looked up. Properties: the parse
 * ends and keeps at most HW_MODALIAS_MAX_ENTRIES aliases; a lookup finds a module name made of
 * letters, digits, '_' and '-' only, NUL-terminated inside the buffer, or nothing ("").
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "hw/modalias.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hw_modalias *m = NULL;
	struct hw_fn fn;
	char *text, mod[32];

	if (size > (4u << 20))
		return -1;
	text = malloc(size ? size : 1);
	if (!text)
		abort();
	if (size)
		memcpy(text, data, size);
	if (hw_modalias_parse(text, size, &m) < 0)
		abort();
	FUZZ_ASSERT(hw_modalias_size(m) <= HW_MODALIAS_MAX_ENTRIES, "entries");
	memset(&fn, 0, sizeof(fn));
	if (size >= 16) {
		fn.vendor = (uint16_t)(data[0] | data[1] << 8);
		fn.device = (uint16_t)(data[2] | data[3] << 8);
		fn.subsys_vendor = (uint16_t)(data[4] | data[5] << 8);
		fn.subsys_device = (uint16_t)(data[6] | data[7] << 8);
		fn.class_code = (uint32_t)(data[8] | data[9] << 8 | data[10] << 16);
	}
	memset(mod, 'x', sizeof(mod));
	if (hw_modalias_lookup(m, &fn, mod, sizeof(mod))) {
		FUZZ_ASSERT(memchr(mod, 0, sizeof(mod)) && mod[0], "module name terminated");
		for (const char *p = mod; *p; p++)
			FUZZ_ASSERT((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
					(*p >= '0' && *p <= '9') || *p == '_' || *p == '-',
				    "module name characters");
	} else {
		FUZZ_ASSERT(mod[0] == 0, "no module: empty");
	}
	hw_modalias_free(m);
	free(text);
	return 0;
}
