/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sysfs.c — ports, counters and GIDs from /sys/class/infiniband (sysfs.h).
 *
 *   class/infiniband/DEV/ports/N/state          "4: ACTIVE"
 *                                 /phys_state     "5: LinkUp"
 *                                 /rate           "10 Gb/sec (1X QDR)"
 *                                 /link_layer     "Ethernet"
 *                                 /hw_counters/NAME  one u64 each (+ lifespan, ms)
 *                                 /counters/NAME     PMA counters, saturating
 *                                 /gids/I         "fe80:0000:…"
 *                                 /gid_attrs/types/I  "RoCE v2"
 *                                 /gid_attrs/ndevs/I  "eth0"
 *   class/infiniband/DEV/hw_counters/NAME        device-level (mlx4), one u64 each
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "devrec.h"
#include "sysfs.h"

#define GID_MAX 4096

/* strlcpy: as much of src as fits, always terminated */
static void scopy(char *dst, size_t cap, const char *src)
{
	size_t n = strnlen(src, cap - 1);

	memcpy(dst, src, n);
	dst[n] = 0;
}

static unsigned snapshot;     /* the poll (from 0): which root of a list, which recording */

void sysfs_set_snapshot(unsigned k)
{
	snapshot = k;
}

const char *sysfs_root(void)
{
	static char one[4096];
	const char *r = getenv("ROCETOP_SYSFS_ROOT"), *s, *c;
	unsigned k = snapshot;

	if (!r || !*r)
		return "/sys";
	if (!strchr(r, ':'))
		return r;
	/* ROOT1:ROOT2:…: the snapshot-th, the last once they run out */
	for (s = r; k-- && (c = strchr(s, ':')) && c[1];)
		s = c + 1;
	c = strchr(s, ':');
	snprintf(one, sizeof one, "%.*s", (int)(c ? (size_t)(c - s) : strlen(s)), s);
	return one;
}

/* --device-record (devrec.h): path, under the root, into DIR/sys/K/. */
static void record(const char *path, const char *line)
{
	const char *root = sysfs_root();
	size_t n = strlen(root), len = strlen(line);
	char buf[4200];

	if (!devrec_dir() || strncmp(path, root, n) || path[n] != '/' || len + 2 > sizeof buf)
		return;
	memcpy(buf, line, len);
	buf[len++] = '\n';
	devrec_write("sys", snapshot + 1, path + n + 1, buf, len);
}

/* The first line of a small file, without its newline; -1 if unreadable. */
static int read_line(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	if (!fgets(buf, (int)cap, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	n = strcspn(buf, "\n");
	buf[n] = 0;
	record(path, buf);
	return 0;
}

static int read_u64(const char *path, uint64_t *v)
{
	char b[64], *end;

	if (read_line(path, b, sizeof b) < 0)
		return -1;
	errno = 0;
	*v = strtoull(b, &end, 10);   /* base 10: a leading 0 is not octal */
	return errno || end == b ? -1 : 0;
}

int sysfs_netdev_mac(const char *netdev, uint8_t mac[6])
{
	char path[4200], b[64];
	unsigned x[6];
	char end;

	if (!netdev[0] || strchr(netdev, '/'))
		return -1;
	snprintf(path, sizeof path, "%s/class/net/%s/address", sysfs_root(), netdev);
	if (read_line(path, b, sizeof b) < 0 ||
	    sscanf(b, "%2x:%2x:%2x:%2x:%2x:%2x%c", &x[0], &x[1], &x[2], &x[3], &x[4], &x[5], &end) != 6)
		return -1;
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)x[i];
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

char (*sysfs_devices(size_t *n))[SYSFS_NAME]
{
	char path[4096], (*v)[SYSFS_NAME] = NULL;
	size_t cap = 0;
	struct dirent *de;
	DIR *d;

	*n = 0;
	snprintf(path, sizeof path, "%s/class/infiniband", sysfs_root());
	if (!(d = opendir(path)))
		return NULL;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || strlen(de->d_name) >= SYSFS_NAME)
			continue;
		if (*n == cap) {
			void *nv = realloc(v, (cap = cap ? cap * 2 : 8) * SYSFS_NAME);

			if (!nv)
				break;
			v = nv;
		}
		scopy(v[(*n)++], SYSFS_NAME, de->d_name);
		if (devrec_dir()) {     /* the device, even if none of its files is read */
			char rel[4096];

			snprintf(rel, sizeof rel, "%s/sys/%u/class/infiniband/%s/", devrec_dir(), snapshot + 1, de->d_name);
			devrec_mkdirs(rel);
		}
	}
	closedir(d);
	if (v)
		qsort(v, *n, SYSFS_NAME, by_name);
	return v;
}

static int by_uint(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

size_t sysfs_ports(const char *dev, unsigned *out, size_t cap)
{
	char path[4096], *end;
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	snprintf(path, sizeof path, "%s/class/infiniband/%s/ports", sysfs_root(), dev);
	if (!(d = opendir(path)))
		return 0;
	/* every port first, sorted, then the lowest cap of them (a switchdev
	 * mlx5 has a port per representor; numbers past 255 exist) */
	while ((de = readdir(d))) {
		unsigned long v = strtoul(de->d_name, &end, 10);

		if (de->d_name[0] < '0' || de->d_name[0] > '9' || *end || v == 0 || v > UINT32_MAX)
			continue;
		if (n < cap) {
			out[n++] = (unsigned)v;
			if (n == cap)
				qsort(out, n, sizeof *out, by_uint);
		} else if (v < out[cap - 1]) {   /* replaces the largest kept */
			size_t k = cap - 1;

			while (k > 0 && out[k - 1] > v) {
				out[k] = out[k - 1];
				k--;
			}
			out[k] = (unsigned)v;
		}
	}
	closedir(d);
	qsort(out, n, sizeof *out, by_uint);
	return n;
}

static int add_counters(const char *dir, enum sysfs_group g, struct sysfs_port *p)
{
	char path[4096];
	struct dirent *de;
	DIR *d = opendir(dir);
	size_t cap = p->nctr;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		struct sysfs_counter *c;
		uint64_t v;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, "lifespan") || strlen(de->d_name) >= SYSFS_NAME)
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		if (read_u64(path, &v) < 0)
			continue;
		if (p->nctr == cap) {
			void *nv = realloc(p->ctr, (cap = cap ? cap * 2 : 32) * sizeof *p->ctr);

			if (!nv) {
				closedir(d);
				return -1;
			}
			p->ctr = nv;
		}
		c = &p->ctr[p->nctr++];
		scopy(c->name, sizeof c->name, de->d_name);
		c->value = v;
		c->group = g;
	}
	closedir(d);
	return 0;
}

static int by_counter(const void *a, const void *b)
{
	const struct sysfs_counter *x = a, *y = b;

	return x->group != y->group ? (int)x->group - (int)y->group : strcmp(x->name, y->name);
}

static int zero_gid(const char *g)
{
	for (; *g; g++)
		if (*g != '0' && *g != ':')
			return 0;
	return 1;
}

static void read_gids(const char *base, struct sysfs_port *p)
{
	char path[4200], g[64];
	size_t cap = 0;

	for (unsigned i = 0; i < GID_MAX; i++) {
		struct sysfs_gid *e;

		snprintf(path, sizeof path, "%s/gids/%u", base, i);
		if (read_line(path, g, sizeof g) < 0) {
			if (errno == ENOENT)
				break;
			continue;
		}
		if (zero_gid(g))
			continue;
		if (p->ngid == cap) {
			void *nv = realloc(p->gid, (cap = cap ? cap * 2 : 4) * sizeof *p->gid);

			if (!nv)
				return;
			p->gid = nv;
		}
		e = &p->gid[p->ngid++];
		memset(e, 0, sizeof *e);
		e->index = i;
		scopy(e->gid, sizeof e->gid, g);
		snprintf(path, sizeof path, "%s/gid_attrs/types/%u", base, i);
		if (read_line(path, e->type, sizeof e->type) < 0)
			e->type[0] = 0;
		snprintf(path, sizeof path, "%s/gid_attrs/ndevs/%u", base, i);
		if (read_line(path, e->ndev, sizeof e->ndev) < 0)
			e->ndev[0] = 0;
	}
}

/* "4: ACTIVE" → "ACTIVE" */
static void strip_number(char *s)
{
	char *c = strstr(s, ": ");

	if (c)
		memmove(s, c + 2, strlen(c + 2) + 1);
}

int sysfs_read_port(const char *dev, unsigned port, int gids, struct sysfs_port *p)
{
	char base[4000], path[4200];

	memset(p, 0, sizeof *p);
	snprintf(base, sizeof base, "%s/class/infiniband/%s/ports/%u", sysfs_root(), dev, port);
	snprintf(path, sizeof path, "%s/state", base);
	if (read_line(path, p->state, sizeof p->state) < 0)
		return -1;
	strip_number(p->state);
	snprintf(path, sizeof path, "%s/phys_state", base);
	if (read_line(path, p->phys_state, sizeof p->phys_state) == 0)
		strip_number(p->phys_state);
	snprintf(path, sizeof path, "%s/rate", base);
	read_line(path, p->rate, sizeof p->rate);
	snprintf(path, sizeof path, "%s/link_layer", base);
	read_line(path, p->link_layer, sizeof p->link_layer);
	snprintf(path, sizeof path, "%s/hw_counters/lifespan", base);
	p->have_lifespan = read_u64(path, &p->lifespan) == 0;
	snprintf(path, sizeof path, "%s/hw_counters", base);
	if (add_counters(path, SYSFS_HW, p) < 0)
		return -1;
	snprintf(path, sizeof path, "%s/counters", base);
	if (add_counters(path, SYSFS_PMA, p) < 0)
		return -1;
	snprintf(path, sizeof path, "%s/counters_ext", base);
	if (add_counters(path, SYSFS_EXT, p) < 0)
		return -1;
	if (p->nctr)
		qsort(p->ctr, p->nctr, sizeof *p->ctr, by_counter);
	if (gids)
		read_gids(base, p);
	return 0;
}

int sysfs_add_dev_counters(const char *dev, struct sysfs_port *p)
{
	char path[4200];

	snprintf(path, sizeof path, "%s/class/infiniband/%s/hw_counters", sysfs_root(), dev);
	if (add_counters(path, SYSFS_DEV, p) < 0)
		return -1;
	if (p->nctr)
		qsort(p->ctr, p->nctr, sizeof *p->ctr, by_counter);
	return 0;
}

int sysfs_add_counter(struct sysfs_port *p, const char *name, uint64_t v, enum sysfs_group g)
{
	struct sysfs_counter *nc = realloc(p->ctr, (p->nctr + 1) * sizeof *p->ctr);

	if (!nc)
		return -1;
	p->ctr = nc;
	nc = &p->ctr[p->nctr++];
	scopy(nc->name, sizeof nc->name, name);
	nc->value = v;
	nc->group = g;
	return 0;
}

void sysfs_sort_counters(struct sysfs_port *p)
{
	if (p->nctr)
		qsort(p->ctr, p->nctr, sizeof *p->ctr, by_counter);
}

void sysfs_port_free(struct sysfs_port *p)
{
	free(p->ctr);
	free(p->gid);
	p->ctr = NULL;
	p->gid = NULL;
	p->nctr = p->ngid = 0;
}
