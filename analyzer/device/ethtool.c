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

int etht_read(struct etht *e)
{
	struct ethtool_stats *st;
	uint32_t n;
	int rc;

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
		else
			memcpy(e->values, st->data, (size_t)n * sizeof(uint64_t));
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
