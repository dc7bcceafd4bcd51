/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small helpers shared by every module: cleanup attributes, array sizes, min/max. */
#pragma once

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define _cleanup_(f)  __attribute__((cleanup(f)))
#define _unused_      __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _always_inline_ inline __attribute__((always_inline))
#define _likely_(x)   __builtin_expect(!!(x), 1)
#define _unlikely_(x) __builtin_expect(!!(x), 0)

#ifndef MIN
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#endif
#ifndef MAX
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#endif

/* Defines func##p(type *p) that calls func(*p) when *p is set; for _cleanup_(). */
#define DEFINE_TRIVIAL_CLEANUP_FUNC(type, func)                                                    \
	static inline void func##p(type *p)                                                        \
	{                                                                                          \
		if (*p)                                                                            \
			func(*p);                                                                  \
	}

static inline void freep(void *p)
{
	free(*(void **)p);
}
#define _cleanup_free_ _cleanup_(freep)

static inline void closep(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;
		close(*fd);
		errno = saved;
	}
}
#define _cleanup_close_ _cleanup_(closep)

/* Hand ownership out of a _cleanup_ variable. */
#define TAKE_PTR(p)                                                                                \
	({                                                                                         \
		typeof(p) _t = (p);                                                                \
		(p) = NULL;                                                                        \
		_t;                                                                                \
	})
#define TAKE_FD(fd)                                                                                \
	({                                                                                         \
		int _t = (fd);                                                                     \
		(fd) = -1;                                                                         \
		_t;                                                                                \
	})
