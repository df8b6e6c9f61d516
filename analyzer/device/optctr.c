/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * optctr.c — --device-enable-optional (see optctr.h).
 */
#include <ctype.h>
#include <errno.h>
#include <rdma/rdma_netlink.h>
#include <stdio.h>
#include <string.h>
#include "nlparse.h"
#include "nlsock.h"
#include "optctr.h"

int optctr_check_list(const char *list, char *err, size_t errcap)
{
	size_t len = 0;

	for (const char *c = list;; c++) {
		if (*c == ',' || !*c) {
			if (!len || len >= NLP_CNT_NAME) {
				snprintf(err, errcap, "--device-enable-optional %s: %s", list,
					 len ? "a counter name longer than 47 characters" : "an empty counter name");
				return -1;
			}
			if (!*c)
				return 0;
			len = 0;
		} else if (!isalnum((unsigned char)*c) && *c != '_') {
			snprintf(err, errcap, "--device-enable-optional %s: '%c' in a counter name (names: letters, digits, _)",
				 list, *c);
			return -1;
		} else {
			len++;
		}
	}
}

/* The index of the optional counter name[0..len) in ps, or -1. */
static int find(const struct nlp_portstat *ps, const char *name, size_t len)
{
	for (uint32_t k = 0; k < ps->nctr; k++)
		if (strlen(ps->name[k]) == len && !strncmp(ps->name[k], name, len) && ps->index[k] != UINT32_MAX)
			return (int)k;
	return -1;
}

static void refuse(const struct nlp_portstat *ps, const char *name, size_t len, const char *dev, uint32_t port,
		   char *err, size_t errcap)
{
	size_t o = (size_t)snprintf(err, errcap, "--device-enable-optional %.*s: not an optional counter of %s/%u (%s",
				    (int)len, name, dev, port, ps && ps->nctr ? "its optional counters:" : "it has none");

	for (uint32_t k = 0; ps && k < ps->nctr && o < errcap; k++)
		o += (size_t)snprintf(err + o, errcap - o, " %s", ps->name[k]);
	if (o < errcap)
		snprintf(err + o, errcap - o, ")");
}

int optctr_enable(struct nls *nl, uint32_t dev_index, const char *dev, uint32_t port, const char *list,
		  char *err, size_t errcap)
{
	const struct nlp_portstat *ps = NULL;
	uint32_t idx[NLP_PS_CTRS];
	size_t n = 0, before;
	struct nlp_vec v;
	const uint8_t *b;
	size_t blen;
	int rc;

	rc = nls_port_query(nl, RDMA_NLDEV_CMD_STAT_GET_STATUS, dev_index, port, 1, &b, &blen);
	if (rc < 0 && rc != -EOPNOTSUPP && rc != -EINVAL) {
		snprintf(err, errcap, "--device-enable-optional %s/%u: the optional counters unknown (STAT_GET_STATUS: %s)",
			 dev, port, strerror(-rc));
		return -1;
	}
	nlp_vec_init(&v, NLP_OPTSTATUS);
	if (rc == 0 && nlp_parse(NLP_OPTSTATUS, b, blen, &v) >= 0)
		for (size_t i = 0; i < v.n && !ps; i++) {
			const struct nlp_portstat *e = NLP_AT(&v, struct nlp_portstat, i);

			if (!(e->have & NLP_HAVE_PORT) || e->port == port)
				ps = e;
		}
	/* those on stay on: the kernel disables every optional counter not listed */
	for (uint32_t k = 0; ps && k < ps->nctr; k++)
		if (ps->value[k] && ps->index[k] != UINT32_MAX)
			idx[n++] = ps->index[k];
	before = n;
	for (const char *c = list; *c;) {
		size_t len = strcspn(c, ",");
		int k = ps ? find(ps, c, len) : -1;
		size_t j = 0;

		if (k < 0) {
			refuse(ps, c, len, dev, port, err, errcap);
			nlp_vec_free(&v);
			return -1;
		}
		while (j < n && idx[j] != ps->index[k])
			j++;
		if (j == n && n < NLP_PS_CTRS)
			idx[n++] = ps->index[k];
		c += len + (c[len] == ',');
	}
	nlp_vec_free(&v);
	if (n == before)
		return 0;            /* all on already: nothing to change */
	if ((rc = nls_set_optional(nl, dev_index, port, idx, n)) < 0) {
		snprintf(err, errcap, "--device-enable-optional %s/%u: STAT_SET refused: %s", dev, port, strerror(-rc));
		return -1;
	}
	return 0;
}
