/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nicdrop.c — the NIC's own receive discards of a capture interface (nicdrop.h). */
#include <stdio.h>
#include <string.h>
#include "nicdrop.h"
#include "diag.h"
#include "devmon.h"

/* Is name one of the comma-separated list? */
static int listed(const char *list, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = list; *p;) {
		const char *c = strchr(p, ',');
		size_t l = c ? (size_t)(c - p) : strlen(p);

		if (l == len && !strncmp(p, name, l))
			return 1;
		if (!c)
			break;
		p = c + 1;
	}
	return 0;
}

/* The sum of the listed counters; the names found, when found != NULL. */
static uint64_t listed_sum(const struct nicdrop *n, char *found, size_t cap)
{
	uint64_t sum = 0;
	size_t at = 0;

	for (uint32_t i = 0; i < n->e.n; i++) {
		char name[ETHT_NAME + 1];

		memcpy(name, n->e.names[i], ETHT_NAME);
		name[ETHT_NAME] = 0;
		if (!listed(n->list, name))
			continue;
		sum += n->e.values[i];
		if (found && at < cap) {
			int w = snprintf(found + at, cap - at, "%s%s", at ? "," : "", name);

			at += w > 0 ? (size_t)w : 0;
		}
	}
	return sum;
}

void nicdrop_open(struct nicdrop *n, const char *ifname, const char *list)
{
	memset(n, 0, sizeof *n);
	snprintf(n->list, sizeof n->list, "%s", list ? list : NICDROP_DEFAULT);
	etht_init(&n->e, ifname);
	n->opened = 1;
	if (!n->list[0] || etht_read(&n->e) < 0)
		return;
	n->base = listed_sum(n, n->found, sizeof n->found);
	n->ok = n->found[0] != 0;
}

int nicdrop_read(struct nicdrop *n, uint64_t *since_open)
{
	uint64_t now;

	if (!n->ok || etht_read(&n->e) < 0)
		return -1;
	now = listed_sum(n, NULL, 0);
	*since_open = now >= n->base ? now - n->base : 0;
	return 0;
}

void nicdrop_close(struct nicdrop *n)
{
	if (n->opened)
		etht_free(&n->e);
	n->ok = n->opened = 0;
}

void nicdrop_devices(const struct devmon *m, struct diag_input *in)
{
	static const unsigned meaning[2] = { M_DISCARD, M_OUT_OF_BUFFER };
	size_t at = 0;

	in->dev_valid = 0;
	in->dev_discards = in->dev_out_of_buffer = 0;
	in->dev_counters[0] = in->dev_names[0] = 0;
	for (size_t i = 0; m && i < m->ndevs; i++) {
		const struct dm_dev *d = &m->devs[i];
		int named = 0, rose = 0;

		for (int k = 0; k < 2; k++) {
			struct dm_meaning_sum s;

			if (!devmon_meaning(d, meaning[k], &s))
				continue;
			in->dev_valid = 1;
			*(k ? &in->dev_out_of_buffer : &in->dev_discards) += s.since_first;
			rose |= s.since_first > 0;
			for (size_t j = 0; j < s.n && j < DM_MEANING_NAMES && at < sizeof in->dev_counters; j++) {
				char *o = in->dev_counters + at;
				size_t room = sizeof in->dev_counters - at;
				int w = named ? snprintf(o, room, ",%s", s.names[j]) :
					snprintf(o, room, "%s%s: %s", at ? "; " : "", d->name, s.names[j]);

				at += w > 0 ? (size_t)w : 0;
				named = 1;
			}
		}
		if (rose) {
			size_t l = strlen(in->dev_names);

			snprintf(in->dev_names + l, sizeof in->dev_names - l, "%s%s", l ? ", " : "", d->name);
		}
	}
}
