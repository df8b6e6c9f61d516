/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * listing.c — the packet listing.  Text: frame number, UTC-or-local time as
 * tcpdump prints it, then libroce's one-line summary.  JSON: one object per
 * frame holding every field libroce decoded (repeated keys become arrays).
 */
#include <inttypes.h>
#include <string.h>
#include <time.h>
#include "json.h"
#include "listing.h"

#define MAX_FIELDS 1024

struct collect {
	struct roce_field f[MAX_FIELDS];
	unsigned n;
	unsigned dropped;
};

static void collect_cb(void *ctx, const struct roce_field *f)
{
	struct collect *c = ctx;

	if (c->n < MAX_FIELDS)
		c->f[c->n++] = *f;
	else
		c->dropped++;
}

static void write_json(struct listing *l, uint64_t no, const struct timeval *ts,
		       const struct roce_pkt *p, uint32_t caplen, uint32_t wirelen)
{
	static struct collect c;
	static unsigned char done[MAX_FIELDS];
	FILE *f = l->out;

	c.n = c.dropped = 0;
	roce_foreach_field(p, collect_cb, &c);
	fprintf(f, "{\"frame.number\":%" PRIu64 ",\"frame.time_epoch\":\"%lld.%0*ld\","
		"\"frame.len\":%u,\"frame.cap_len\":%u", no, (long long)ts->tv_sec,
		l->nsec ? 9 : 6, (long)ts->tv_usec, wirelen, caplen);
	memset(done, 0, c.n);
	for (unsigned i = 0; i < c.n; i++) {
		unsigned count = 0;

		if (done[i])
			continue;
		for (unsigned j = i; j < c.n; j++)
			if (!done[j] && strcmp(c.f[j].key, c.f[i].key) == 0)
				count++;
		fputc(',', f);
		json_string(f, c.f[i].key);
		fputc(':', f);
		if (count == 1) {
			json_field_value(f, &c.f[i]);
			continue;
		}
		fputc('[', f);
		for (unsigned j = i, k = 0; j < c.n; j++) {
			if (done[j] || strcmp(c.f[j].key, c.f[i].key) != 0)
				continue;
			done[j] = 1;
			if (k++)
				fputc(',', f);
			json_field_value(f, &c.f[j]);
		}
		fputc(']', f);
	}
	if (c.dropped)
		fprintf(f, ",\"roce.fields_dropped\":%u", c.dropped);
	fputs("}\n", f);
}

static void write_text(struct listing *l, uint64_t no, const struct timeval *ts,
		       const struct roce_pkt *p)
{
	char line[1024];
	struct tm tm;
	time_t t = ts->tv_sec;

	roce_summary(p, line, sizeof line);
	localtime_r(&t, &tm);
	fprintf(l->out, "%" PRIu64 " %02d:%02d:%02d.%06ld %s\n", no, tm.tm_hour, tm.tm_min, tm.tm_sec,
		(long)(l->nsec ? ts->tv_usec / 1000 : ts->tv_usec), line);
}

void listing_frame(struct listing *l, uint64_t no, const struct timeval *ts,
		   const struct roce_pkt *p, uint32_t caplen, uint32_t wirelen)
{
	l->frames++;
	l->roce[p->version]++;
	if (p->version != ROCE_VER_NONE)
		l->icrc[roce_icrc_verify(p, NULL)]++;
	if (p->truncated)
		l->truncated++;
	if (p->invalid)
		l->invalid++;
	if (!l->out)
		return;
	if (l->json)
		write_json(l, no, ts, p, caplen, wirelen);
	else
		write_text(l, no, ts, p);
}

void listing_totals(const struct listing *l, FILE *f)
{
	fprintf(f, "%" PRIu64 " frames: RoCE v1 %" PRIu64 ", v2 %" PRIu64 ", v2-1021 %" PRIu64
		", v2 other ports %" PRIu64 ", other %" PRIu64 "\n",
		l->frames, l->roce[ROCE_VER_V1], l->roce[ROCE_VER_V2], l->roce[ROCE_VER_V2_1021],
		l->roce[ROCE_VER_V2_PORT], l->roce[ROCE_VER_NONE]);
	fprintf(f, "ICRC: %" PRIu64 " good, %" PRIu64 " bad, %" PRIu64 " unchecked; %" PRIu64
		" truncated, %" PRIu64 " invalid frames\n",
		l->icrc[ROCE_ICRC_GOOD], l->icrc[ROCE_ICRC_BAD], l->icrc[ROCE_ICRC_UNCHECKED],
		l->truncated, l->invalid);
}
