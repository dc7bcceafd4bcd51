/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fuzz target as a plain test: runs LLVMFuzzerTestOneInput() on every file of the directories
 * (or files) given, in name order, in one process, as libFuzzer would. The first directory is the
 * seed corpus and must hold at least one input; the others (regressions/NAME/: crashes found
 * before) may be missing. Any crash fails the test; the name of each input is printed first.
 *
 * usage: fuzz-replay-NAME CORPUS_DIR [DIR|FILE]...
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

#define REPLAY_MAX_INPUT (8u << 20)

static int run_file(const char *path)
{
	struct stat st;
	uint8_t *buf;
	ssize_t n;
	size_t len = 0;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "%s: not a readable regular file\n", path);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if ((uint64_t)st.st_size > REPLAY_MAX_INPUT) {
		fprintf(stderr, "%s: larger than %u bytes\n", path, REPLAY_MAX_INPUT);
		close(fd);
		return -1;
	}
	/* An exact-size buffer, so that ASan sees a read past the input. */
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!buf)
		abort();
	while (len < (size_t)st.st_size && (n = read(fd, buf + len, (size_t)st.st_size - len)) > 0)
		len += (size_t)n;
	close(fd);
	printf("input %s (%zu bytes)\n", path, len);
	fflush(stdout);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Returns the number of inputs run, or -1. */
static int run_dir(const char *dir, bool required)
{
	char **names = NULL, path[4096];
	size_t n = 0, cap = 0, i;
	struct dirent *de;
	int count = 0, r = 0;
	DIR *d = opendir(dir);

	if (!d) {
		if (!required && errno == ENOENT)
			return 0;
		fprintf(stderr, "%s: %m\n", dir);
		return -1;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue; /* ., .., .gitkeep */
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			names = realloc(names, cap * sizeof(*names));
			if (!names)
				abort();
		}
		names[n] = strdup(de->d_name);
		if (!names[n])
			abort();
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (run_file(path) < 0)
			r = -1;
		else
			count++;
		free(names[i]);
	}
	free(names);
	if (required && count == 0) {
		fprintf(stderr, "%s: no seed inputs\n", dir);
		return -1;
	}
	return r < 0 ? -1 : count;
}

int main(int argc, char **argv)
{
	int total = 0, i, r;
	struct stat st;

	if (argc < 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR [DIR|FILE]...\n", argv[0]);
		return 2;
	}
	LLVMFuzzerInitialize(&argc, &argv);
	for (i = 1; i < argc; i++) {
		if (stat(argv[i], &st) == 0 && S_ISREG(st.st_mode))
			r = run_file(argv[i]) < 0 ? -1 : 1;
		else
			r = run_dir(argv[i], i == 1);
		if (r < 0)
			return 1;
		total += r;
	}
	printf("%d inputs replayed, no crash\n", total);
	return 0;
}
