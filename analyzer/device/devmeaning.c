/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devmeaning.c — a device's counters looked up by meaning (devmon.h
 * devmon_meaning): what a diagnosis asks ("did the NIC drop or see
 * duplicates?") without knowing any driver's names.
 */
#include <string.h>
#include "devmon.h"

int dm_port_has(const char *name, const void *port)
{
	const struct dm_port *p = port;

	for (size_t i = 0; i < p->sp.nctr; i++)
		if (!strcmp(p->sp.ctr[i].name, name))
			return 1;
	return 0;
}

int devmon_meaning(const struct dm_dev *d, unsigned meaning, struct dm_meaning_sum *out)
{
	return devmon_meaning_side(d, meaning, -1, out);
}

int devmon_meaning_side(const struct dm_dev *d, unsigned meaning, int side, struct dm_meaning_sum *out)
{
	memset(out, 0, sizeof *out);
	for (size_t j = 0; j < d->nports; j++) {
		const struct dm_port *p = &d->ports[j];

		for (size_t i = 0; p->sysfs_ok && i < p->sp.nctr; i++) {
			const struct sysfs_counter *c = &p->sp.ctr[i];
			const struct ctr_entry *e = ctr_lookup(d->driver, c->name);
			uint64_t moved;

			if (!e || e->meaning != meaning || (side >= 0 && e->side != side) ||
			    !ctr_counts_in_sum(e, dm_port_has, p))
				continue;
			if (out->n < DM_MEANING_NAMES)
				out->names[out->n] = e->name;
			out->n++;
			out->total += ctr_units(e, c->value);
			if (p->rate && p->rate[i].valid) {
				out->rate += p->rate[i].v * (e->scale > 1 ? e->scale : 1);
				out->have_rate = 1;
			}
			for (size_t k = 0; k < p->nbase; k++)
				if (p->base[k].group == c->group && !strcmp(p->base[k].name, c->name) &&
				    ctr_delta(e, p->base[k].value, c->value, &moved) == 0) {
					out->since_first += ctr_units(e, moved);
					out->nmoved++;
				}
		}
	}
	return (int)out->n;
}
