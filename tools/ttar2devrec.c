/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ttar2devrec — turns the RDMA part of a ttar archive (the text archive
 * format the Prometheus projects keep their sysfs test fixtures in) into a
 * recording `rocetop --device-replay DIR` plays back:
 *
 *   ttar2devrec IN.ttar OUTDIR
 *
 * Every entry whose path holds "sys/class/infiniband/" is written under
 * OUTDIR/sys/class/infiniband/ (whatever came before "sys/", e.g.
 * "fixtures/", is dropped); everything else in the archive is skipped.
 * Symbolic links are skipped too (a recording holds files only).  OUTDIR
 * must be new or empty.  One line per device written goes to stdout.
 *
 * The ttar format, as the archives use it: "Directory: P" or "Path: P"
 * starts an entry; a file then has "Lines: N" and N lines of content (in
 * which NULLBYTE stands for a 0 byte, a final EOF for "no newline at the
 * end", and a backslash before either for the word itself), a link
 * "SymlinkTo: T"; "Mode: M" and "# ttar - - -" lines close entries.
 *
 * Exit: 0 written; 1 unreadable or malformed input, nothing RDMA in it, or
 * OUTDIR not writable (one line on stderr); 2 usage.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "../analyzer/device/devrec.h"

#define KEY "sys/class/infiniband/"

static const char *in_name;
static unsigned long lineno;

static void die(const char *what)
{
	fprintf(stderr, "ttar2devrec: %s:%lu: %s\n", in_name, lineno, what);
	exit(1);
}

/* One line without its newline, or NULL at the end of the input. */
static char *next_line(FILE *f, char **buf, size_t *cap)
{
	ssize_t n = getline(buf, cap, f);

	if (n < 0)
		return NULL;
	lineno++;
	if (n && (*buf)[n - 1] == '\n')
		(*buf)[n - 1] = 0;
	return *buf;
}

/* The part of an archive path from "sys/class/infiniband/" on, when it
 * has one and no ".." component; NULL otherwise. */
static const char *rdma_part(const char *path)
{
	const char *k = strstr(path, KEY);

	if (!k || (k != path && k[-1] != '/'))
		return NULL;
	for (const char *s = k; (s = strstr(s, "..")); s += 2)
		if ((s == k || s[-1] == '/') && (s[2] == '/' || !s[2]))
			die("a path with a '..' component");
	return k;
}

/* Writes a content line (ttar's escapes undone); last: the file's last. */
static void put_line(FILE *o, const char *l, int last)
{
	size_t n = strlen(l);
	int newline = 1;

	if (last && n >= 3 && !strcmp(l + n - 3, "EOF") && (n == 3 || l[n - 4] != '\\')) {
		n -= 3;
		newline = 0;
	}
	for (size_t i = 0; i < n;) {
		if (l[i] == '\\' && !strncmp(l + i + 1, "NULLBYTE", 8)) {
			fputs("NULLBYTE", o), i += 9;
		} else if (l[i] == '\\' && !strncmp(l + i + 1, "EOF", 3)) {
			fputs("EOF", o), i += 4;
		} else if (!strncmp(l + i, "NULLBYTE", 8)) {
			fputc(0, o), i += 8;
		} else {
			fputc(l[i], o), i++;
		}
	}
	if (newline)
		fputc('\n', o);
}

/* The devices written, for the summary. */
static char devs[64][64];
static unsigned ndevs, nfiles[64];

static void count_file(const char *rel)
{
	const char *d = rel + strlen(KEY), *e = strchr(d, '/');
	size_t len = e ? (size_t)(e - d) : strlen(d);
	unsigned i;

	for (i = 0; i < ndevs; i++)
		if (strlen(devs[i]) == len && !strncmp(devs[i], d, len))
			break;
	if (i == ndevs) {
		if (ndevs == 64 || len >= sizeof devs[0])
			return;
		memcpy(devs[ndevs], d, len);
		devs[ndevs++][len] = 0;
	}
	nfiles[i]++;
}

int main(int argc, char **argv)
{
	char *buf = NULL, path[4096], out[8192];
	size_t cap = 0;
	unsigned long links = 0, written = 0;
	const char *outdir;
	FILE *f;
	DIR *d;

	if (argc != 3 || argv[1][0] == '-') {
		fprintf(stderr, "usage: ttar2devrec IN.ttar OUTDIR\n");
		return 2;
	}
	in_name = argv[1];
	outdir = argv[2];
	if ((d = opendir(outdir))) {
		struct dirent *de;

		while ((de = readdir(d)))
			if (de->d_name[0] != '.') {
				closedir(d);
				fprintf(stderr, "ttar2devrec: %s: not empty (a recording goes into a new directory)\n", outdir);
				return 1;
			}
		closedir(d);
	}
	if (!(f = fopen(in_name, "r"))) {
		fprintf(stderr, "ttar2devrec: %s: %s\n", in_name, strerror(errno));
		return 1;
	}
	path[0] = 0;
	while (next_line(f, &buf, &cap)) {
		const char *rel;

		if (!strncmp(buf, "Directory: ", 11)) {
			if ((rel = rdma_part(buf + 11))) {
				snprintf(out, sizeof out, "%s/%s/", outdir, rel);
				if (devrec_mkdirs(out) < 0)
					die(strerror(errno));
			}
			path[0] = 0;
		} else if (!strncmp(buf, "Path: ", 6)) {
			if (strlen(buf + 6) >= sizeof path)
				die("path too long");
			strcpy(path, buf + 6);
		} else if (!strncmp(buf, "SymlinkTo: ", 11)) {
			if (!path[0])
				die("SymlinkTo: without a Path:");
			links += rdma_part(path) != NULL;
			path[0] = 0;
		} else if (!strncmp(buf, "Lines: ", 7)) {
			char *end;
			unsigned long n = strtoul(buf + 7, &end, 10);
			FILE *o = NULL;

			if (!path[0] || *end || end == buf + 7)
				die("Lines: without a Path: or a number");
			if ((rel = rdma_part(path))) {
				snprintf(out, sizeof out, "%s/%s", outdir, rel);
				if (devrec_mkdirs(out) < 0 || !(o = fopen(out, "wb")))
					die(strerror(errno));
			}
			for (unsigned long i = 0; i < n; i++) {
				if (!next_line(f, &buf, &cap))
					die("the input ends inside a file");
				if (o)
					put_line(o, buf, i + 1 == n);
			}
			if (o) {
				if (fclose(o) != 0)
					die(strerror(errno));
				written++;
				count_file(rel);
			}
			path[0] = 0;
		} else if (buf[0] && strncmp(buf, "Mode: ", 6) && buf[0] != '#') {
			die("not a ttar line");
		}
	}
	free(buf);
	fclose(f);
	if (!written) {
		fprintf(stderr, "ttar2devrec: %s: no file under %s\n", in_name, KEY);
		return 1;
	}
	for (unsigned i = 0; i < ndevs; i++)
		printf("%s: %u files\n", devs[i], nfiles[i]);
	if (links)
		printf("(%lu symbolic links skipped)\n", links);
	return 0;
}
