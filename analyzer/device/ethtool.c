/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ethtool.c — `ethtool -S` through SIOCETHTOOL (see ethtool.h). */
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include "devrec.h"
#include "ethtool.h"

#define ETHT_MAX 65536    /* more statistics than this: refused */

void etht_init(struct etht *e, const char *ifname)
{
	memset(e, 0, sizeof *e);
	e->fd = -1;
	snprintf(e->ifname, sizeof e->ifname, "%s", ifname);
}

static int ioc(struct etht *e, void *data)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof ifr);
	if (strlen(e->ifname) >= sizeof ifr.ifr_name)
		return -ENODEV;
	memcpy(ifr.ifr_name, e->ifname, strlen(e->ifname));
	ifr.ifr_data = data;
	return ioctl(e->fd, SIOCETHTOOL, &ifr) < 0 ? -errno : 0;
}

static int set_count(struct etht *e, uint32_t *n)
{
	struct {
		struct ethtool_sset_info hdr;
		uint32_t len;
	} s;
	int rc;

	memset(&s, 0, sizeof s);
	s.hdr.cmd = ETHTOOL_GSSET_INFO;
	s.hdr.sset_mask = 1ull << ETH_SS_STATS;
	if ((rc = ioc(e, &s)) < 0)
		return rc;
	*n = s.hdr.sset_mask & (1ull << ETH_SS_STATS) ? s.len : 0;
	return *n > ETHT_MAX ? -E2BIG : 0;
}

static int read_strings(struct etht *e, uint32_t n)
{
	struct ethtool_gstrings *g = calloc(1, sizeof *g + (size_t)n * ETH_GSTRING_LEN);
	void *names = calloc(n ? n : 1, ETHT_NAME), *values = calloc(n ? n : 1, sizeof(uint64_t));
	int rc;

	if (!g || !names || !values) {
		free(g), free(names), free(values);
		return -ENOMEM;
	}
	g->cmd = ETHTOOL_GSTRINGS;
	g->string_set = ETH_SS_STATS;
	g->len = n;
	if ((rc = ioc(e, g)) < 0) {
		free(g), free(names), free(values);
		return rc;
	}
	for (uint32_t i = 0; i < n; i++) {
		char *dst = (char *)names + (size_t)i * ETHT_NAME;

		memcpy(dst, g->data + (size_t)i * ETH_GSTRING_LEN, ETHT_NAME);
		dst[ETHT_NAME - 1] = 0;
	}
	free(g);
	free(e->names);
	free(e->values);
	e->names = names;
	e->values = values;
	e->n = n;
	e->reread++;
	return 0;
}

/* The k-th directory of a colon-separated list (the last when k is past it). */
static void replay_dir(const char *list, unsigned k, char *out, size_t cap)
{
	const char *s = list, *c;

	while (k-- && (c = strchr(s, ':')) && c[1])
		s = c + 1;
	c = strchr(s, ':');
	snprintf(out, cap, "%.*s", (int)(c ? (size_t)(c - s) : strlen(s)), s);
}

/* A recorded `ethtool -S` text: "NIC statistics:", then "  NAME: VALUE". */
static int replay_read(struct etht *e, const char *list)
{
	char dir[4096], path[4200], line[256];
	uint32_t n = 0, cap = 0;
	char (*names)[ETHT_NAME] = NULL;
	uint64_t *values = NULL;
	FILE *f;

	replay_dir(list, e->reads, dir, sizeof dir);
	snprintf(path, sizeof path, "%s/%s", dir, e->ifname);
	if (strchr(e->ifname, '/') || !(f = fopen(path, "r")))
		return -ENODEV;
	while (fgets(line, sizeof line, f)) {
		char *colon = strrchr(line, ':'), *name = line, *end;
		unsigned long long v;

		if (!colon)
			continue;
		*colon = 0;
		while (*name == ' ' || *name == '\t')
			name++;
		v = strtoull(colon + 1, &end, 10);
		if (end == colon + 1 || !*name || strlen(name) >= ETHT_NAME)
			continue;           /* the heading, or not a statistic */
		if (n == cap) {
			void *nn = realloc(names, (cap = cap ? cap * 2 : 64) * ETHT_NAME);
			void *nv = nn ? realloc(values, cap * sizeof *values) : NULL;

			if (nn)
				names = nn;
			if (!nv) {
				fclose(f);
				free(names);
				free(values);
				return -ENOMEM;
			}
			values = nv;
		}
		memcpy(names[n], name, strlen(name) + 1);     /* < ETHT_NAME, checked above */
		values[n++] = v;
	}
	fclose(f);
	if (e->n != n || !e->names)
		e->reread++;
	free(e->names);
	free(e->values);
	e->names = names;
	e->values = values;
	e->n = n;
	return 0;
}

/* --device-record (devrec.h): the statistics as `ethtool -S` prints them,
 * into DIR/ethtool/K/IFNAME for the K-th read. */
static void record(const struct etht *e)
{
	size_t cap = 32 + (size_t)e->n * (ETHT_NAME + 32), len;
	char *t;

	if (!devrec_dir() || strchr(e->ifname, '/') || !(t = malloc(cap)))
		return;
	len = (size_t)snprintf(t, cap, "NIC statistics:\n");
	for (uint32_t i = 0; i < e->n && len < cap; i++)
		len += (size_t)snprintf(t + len, cap - len, "     %s: %llu\n", e->names[i],
					(unsigned long long)e->values[i]);
	if (len < cap)
		devrec_write("ethtool", e->reads, e->ifname, t, len);
	free(t);
}

int etht_read(struct etht *e)
{
	const char *replay = getenv("ROCETOP_ETHTOOL_REPLAY");
	struct ethtool_stats *st;
	uint32_t n;
	int rc;

	if (replay && *replay) {
		rc = replay_read(e, replay);
		e->reads++;
		if (rc == 0)
			record(e);
		return rc;
	}
	e->reads++;
	if (e->fd < 0 && (e->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		return -errno;
	if ((rc = set_count(e, &n)) < 0)
		return rc;
	if ((n != e->n || !e->names) && (rc = read_strings(e, n)) < 0)
		return rc;
	if (!(st = calloc(1, sizeof *st + (size_t)n * sizeof(uint64_t))))
		return -ENOMEM;
	st->cmd = ETHTOOL_GSTATS;
	st->n_stats = n;
	if ((rc = ioc(e, st)) == 0) {
		if (st->n_stats != n)     /* the set changed in between: names next time */
			e->n = UINT32_MAX;
		else {
			memcpy(e->values, st->data, (size_t)n * sizeof(uint64_t));
			record(e);
		}
	}
	free(st);
	return rc;
}

void etht_free(struct etht *e)
{
	if (e->fd >= 0)
		close(e->fd);
	free(e->names);
	free(e->values);
	e->fd = -1;
	e->names = NULL;
	e->values = NULL;
	e->n = 0;
}
