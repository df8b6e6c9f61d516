/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * listing.c — the packet listing.  Text: frame number, time of day in UTC
 * (as the batch report and the terminal view), libroce's one-line summary,
 * then what the flow engine found (" [retransmission]") and the diagnosis's
 * verdicts that name the frame (" [verdict: timeout_mismatch]", vmarks.h).
 * JSON: one object per frame holding every field libroce decoded (repeated
 * keys become arrays), the engine's findings as the plugin's roce.analysis.*
 * names, and rocetop.diagnosis.verdict.  -r A -r B: each frame's file before
 * its number ("A:7"), JSON "rocetop.file".
 *
 * iWARP: on a TCP connection where iWARP was seen, FPDUs are reassembled
 * across segments (iwstream.h) and listed on the frame that completes them,
 * as Wireshark does: the JSON object gets each completed FPDU's fields
 * (roce_mpa_stream_fpdu_fields) instead of the per-segment ones
 * (ROCE_FIELDS_NO_FPDU), plus roce.mpa.event* for what the stream could not
 * account for; the text line gets each FPDU's summary and the events as
 * marks, e.g. " [iwarp gap 1448]".  The stream is the one authority on
 * framing: a frame whose bytes it could not frame (out of sync after a gap,
 * bad length, bad marker or bad header) is flagged " [iwarp out of sync]"
 * / "roce.mpa.out_of_sync": true, and shows no FPDU of its own.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "iwstream.h"
#include "json.h"
#include "listing.h"
#include "seq.h"

#define MAX_FIELDS 1024
#define ARENA 16384              /* bytes of reassembled-FPDU fields kept for one frame */
#define TEXT_FPDUS 4             /* FPDU summaries on one text line; then "(+N more FPDUs)" */

struct collect {
	struct roce_field f[MAX_FIELDS];
	unsigned n;
	unsigned dropped;
	/* copy byte fields (they point into a stream buffer that the next FPDU reuses) */
	int copy;
	size_t used;
	uint8_t arena[ARENA];
};

static void collect_cb(void *ctx, const struct roce_field *f)
{
	struct collect *c = ctx;
	struct roce_field *d;

	if (c->n >= MAX_FIELDS) {
		c->dropped++;
		return;
	}
	d = &c->f[c->n];
	*d = *f;
	if (c->copy && f->b && f->type != ROCE_F_UINT && f->type != ROCE_F_INT &&
	    f->type != ROCE_F_BOOL && f->type != ROCE_F_STR) {
		if (f->len > ARENA - c->used) {
			c->dropped++;
			return;
		}
		memcpy(c->arena + c->used, f->b, f->len);
		d->b = c->arena + c->used;
		c->used += f->len;
	}
	c->n++;
}

static void collect_add(struct collect *c, const char *key, enum roce_ftype type, uint64_t u, const char *s)
{
	struct roce_field f = { key, type, u, s, NULL, 0 };

	collect_cb(c, &f);
}

/* What the iWARP streams said about one frame. */
struct iwframe {
	int json;
	struct collect *c;              /* JSON: the FPDUs' fields and the events */
	char text[1536];                /* text: the FPDUs' summaries */
	size_t tn;
	unsigned shown;                 /* FPDUs summarised in text */
	char marks[256];                /* text: " [iwarp ...]" */
	size_t mn;
	unsigned nfpdu;
	uint64_t skipped;               /* bytes of this frame passed over out of sync */
	uint32_t fseq, flen;            /* this frame's TCP payload in sequence space */
	int unsync;                     /* framing lost or bytes skipped in this frame */
};

static void append(char *buf, size_t cap, size_t *n, const char *s)
{
	size_t k = strlen(s);

	if (*n + 1 >= cap)
		return;
	if (k > cap - 1 - *n)
		k = cap - 1 - *n;
	memcpy(buf + *n, s, k);
	*n += k;
	buf[*n] = 0;
}

/* What the flow engine found of a frame, as Wireshark's plugin marks it
 * (its filter names): retransmissions, reordering, gaps. */
static const struct mark {
	uint32_t flag, unless;
	const char *text, *key;
} marks[] = {
	{ ROCE_SEQ_V_RETRANS, 0, "retransmission", "roce.analysis.retransmission" },
	{ ROCE_SEQ_V_OUT_OF_ORDER, 0, "out of order", "roce.analysis.out_of_order" },
	{ ROCE_SEQ_V_DUPLICATE, ROCE_SEQ_V_RETRANS, "duplicate", "roce.analysis.duplicate" },
	{ ROCE_SEQ_V_OUT_OF_SEQ, 0, "out of sequence", "roce.analysis.out_of_sequence" },
	{ ROCE_SEQ_V_PSN_GAP, 0, "psn gap", "roce.analysis.psn_gap" },
	{ ROCE_SEQ_V_DUP_ACK, 0, "dup ack", "roce.analysis.dup_ack" },
	{ ROCE_SEQ_V_IMPLIED_NAK, 0, "implied nak", "roce.analysis.implied_nak" },
	{ ROCE_SEQ_V_UNSOLICITED, 0, "unsolicited", "roce.analysis.unsolicited" },
};

static void marks_text(uint32_t v, char *line, size_t cap, size_t *n)
{
	for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++)
		if ((v & marks[i].flag) && !(v & marks[i].unless)) {
			char m[40];

			snprintf(m, sizeof m, " [%s]", marks[i].text);
			append(line, cap, n, m);
		}
}

static void marks_json(uint32_t v, struct collect *c)
{
	for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++)
		if ((v & marks[i].flag) && !(v & marks[i].unless))
			collect_add(c, marks[i].key, ROCE_F_BOOL, 1, NULL);
}

static void mark(struct iwframe *w, const char *what, uint32_t len, int with_len)
{
	char m[64];

	if (with_len)
		snprintf(m, sizeof m, " [iwarp %s %" PRIu32 "]", what, len);
	else
		snprintf(m, sizeof m, " [iwarp %s]", what);
	if (!strstr(w->marks, m))       /* once per line */
		append(w->marks, sizeof w->marks, &w->mn, m);
}

static void iw_fpdu(void *ctx, const struct roce_mpa_stream_fpdu *f)
{
	struct iwframe *w = ctx;
	char s[256];

	w->nfpdu++;
	if (f->view.crc_status == ROCE_MPA_CRC_BAD)
		mark(w, "crc bad", 0, 0);
	if (w->json) {
		roce_mpa_stream_fpdu_fields(f, collect_cb, w->c);
		return;
	}
	if (w->shown >= TEXT_FPDUS)
		return;
	roce_mpa_stream_fpdu_summary(f, s, sizeof s);
	if (strlen(s) + 2 >= sizeof w->text - w->tn)
		return;
	append(w->text, sizeof w->text, &w->tn, w->shown ? "; " : " ");
	append(w->text, sizeof w->text, &w->tn, s);
	w->shown++;
}

static void iw_event(void *ctx, const struct roce_mpa_event *e)
{
	struct iwframe *w = ctx;
	int with_len;

	if (e->type == ROCE_MPA_EV_SKIPPED || e->type == ROCE_MPA_EV_SYNC_LOST)
		w->unsync = 1;
	switch (e->type) {
	case ROCE_MPA_EV_FRAME:
		return;                 /* the frame is in the summary */
	case ROCE_MPA_EV_RESYNC:
		/* how: "marker", "crc" or "heuristic" (a guess: neither negotiated) */
		if (w->json) {
			collect_add(w->c, "roce.mpa.event", ROCE_F_STR, 0, roce_mpa_ev_name(e->type));
			collect_add(w->c, "roce.mpa.event.seq", ROCE_F_UINT, e->seq, NULL);
			collect_add(w->c, "roce.mpa.event.len", ROCE_F_UINT, 0, NULL);
			collect_add(w->c, "roce.mpa.resync", ROCE_F_STR, 0, e->what);
		} else {
			char m[48];

			snprintf(m, sizeof m, "resync %s", e->what);
			mark(w, m, 0, 0);
		}
		return;
	case ROCE_MPA_EV_SKIPPED:
		if (!w->json) {
			/* one mark a line: the frame's own bytes (a failed resync
			 * candidate may have begun in an earlier frame) */
			int64_t lo = (int32_t)(e->seq - w->fseq), hi = lo + e->len;

			if (lo < 0)
				lo = 0;
			if (hi > w->flen)
				hi = w->flen;
			if (hi > lo)
				w->skipped += (uint64_t)(hi - lo);
			return;
		}
		with_len = 1;
		break;
	case ROCE_MPA_EV_GAP:
	case ROCE_MPA_EV_FPDU_LOST:
	case ROCE_MPA_EV_RETRANS:
	case ROCE_MPA_EV_OUT_OF_ORDER:
	case ROCE_MPA_EV_TOO_BIG:
		with_len = 1;
		break;
	default:
		with_len = 0;
	}
	if (w->json) {
		collect_add(w->c, "roce.mpa.event", ROCE_F_STR, 0, roce_mpa_ev_name(e->type));
		collect_add(w->c, "roce.mpa.event.seq", ROCE_F_UINT, e->seq, NULL);
		collect_add(w->c, "roce.mpa.event.len", ROCE_F_UINT, e->len, NULL);
	} else {
		mark(w, roce_mpa_ev_name(e->type), e->len, with_len);
	}
}

static struct iwstream *exit_iw;        /* freed at exit unless listing_close() ran */

static void free_at_exit(void)
{
	iwstream_free(exit_iw);
	exit_iw = NULL;
}

void listing_close(struct listing *l)
{
	if (l->iw == exit_iw)
		exit_iw = NULL;
	iwstream_free(l->iw);
	l->iw = NULL;
}

/* Feeds the frame to its connection's MPA streams; 1 when the connection is
 * tracked (the segment's own FPDU fields are then left out). */
static int iw_feed(struct listing *l, const struct roce_pkt *p, struct iwframe *w, struct iwstream_res *r)
{
	static int registered;
	struct iwstream_cb cb = { iw_fpdu, iw_event, w };

	if (!(p->present & ROCE_LBIT(ROCE_L_TCP)))
		return 0;
	if (!l->iw) {
		if (!p->mpa_off)
			return 0;
		l->iw = iwstream_new(IWSTREAM_DEFAULT_CONNS);
		if (!l->iw)
			return 0;       /* out of memory: per-segment FPDUs only */
		if (!exit_iw) {
			exit_iw = l->iw;
			if (!registered)
				registered = atexit(free_at_exit) == 0;
		}
	}
	return iwstream_packet(l->iw, p, &cb, r);
}

static void write_json(struct listing *l, uint64_t no, const struct timeval *ts,
		       const struct roce_pkt *p, uint32_t caplen, uint32_t wirelen)
{
	static struct collect c, sc;
	static unsigned char done[MAX_FIELDS];
	static struct iwframe w;
	struct iwstream_res r;
	FILE *f = l->out;
	int tracked;

	sc.n = sc.dropped = 0;
	sc.used = 0;
	sc.copy = 1;
	w.json = 1;
	w.c = &sc;
	w.nfpdu = 0;
	w.mn = 0;
	w.marks[0] = 0;
	w.skipped = 0;
	w.unsync = 0;
	tracked = iw_feed(l, p, &w, &r);
	if (w.unsync)
		collect_add(&sc, "roce.mpa.out_of_sync", ROCE_F_BOOL, 1, NULL);
	marks_json(l->verdict, &sc);
	for (unsigned i = 0; i < l->nv; i++)
		collect_add(&sc, "rocetop.diagnosis.verdict", ROCE_F_STR, 0, l->vnames[i]);

	c.n = c.dropped = 0;
	roce_foreach_field_flags(p, tracked ? ROCE_FIELDS_NO_FPDU : 0, collect_cb, &c);
	for (unsigned i = 0; i < sc.n; i++)
		collect_cb(&c, &sc.f[i]);       /* sc's bytes stay in sc.arena */
	c.dropped += sc.dropped;
	if (p->erf.present && !(p->truncated & ROCE_LBIT(ROCE_L_ERF))) {
		/* as Wireshark: the record's own time and lengths (ERF header out) */
		uint64_t fr = (p->erf.ts & 0xffffffffu) * 1000000000u;
		uint32_t rec = caplen < p->erf.rlen ? caplen : p->erf.rlen;

		fr += (fr & 0x80000000u) << 1;
		fprintf(f, "{\"frame.number\":%" PRIu64 ",\"frame.time_epoch\":\"%llu.%09u\","
			"\"frame.len\":%u,\"frame.cap_len\":%u", no, (unsigned long long)(p->erf.ts >> 32),
			(unsigned)(fr >> 32), p->erf.wlen, rec - p->erf.hdr_len);
	} else {
		fprintf(f, "{\"frame.number\":%" PRIu64 ",\"frame.time_epoch\":\"%lld.%0*ld\","
			"\"frame.len\":%u,\"frame.cap_len\":%u", no, (long long)ts->tv_sec,
			l->nsec ? 9 : 6, (long)ts->tv_usec, wirelen, caplen);
	}
	if (l->file) {
		fputs(",\"rocetop.file\":", f);
		json_string(f, l->file);
	}
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
	static struct iwframe w;
	char line[2560];
	struct iwstream_res r;
	struct tm tm;
	time_t t = ts->tv_sec;
	size_t n;

	w.json = 0;
	w.c = NULL;
	w.nfpdu = w.shown = 0;
	w.tn = w.mn = 0;
	w.text[0] = w.marks[0] = 0;
	w.skipped = 0;
	w.unsync = 0;
	w.fseq = p->tcp_seq;
	w.flen = p->tcp_payload_len;
	if (iw_feed(l, p, &w, &r)) {
		/* the stream's FPDUs replace the ones found in this segment */
		n = roce_summary_flags(p, ROCE_FIELDS_NO_FPDU, line, sizeof line);
		append(line, sizeof line, &n, w.text);
		if (w.nfpdu > w.shown) {
			char more[48];

			snprintf(more, sizeof more, " (+%u more FPDU%s)", w.nfpdu - w.shown,
				 w.nfpdu - w.shown > 1 ? "s" : "");
			append(line, sizeof line, &n, more);
		}
		if (r.partial) {
			char part[96];

			if (r.partial_need)
				snprintf(part, sizeof part, " iWARP FPDU part (%" PRIu32 " of %" PRIu32 " bytes)",
					 r.partial_have, r.partial_need);
			else
				snprintf(part, sizeof part, " iWARP FPDU part");
			append(line, sizeof line, &n, part);
		}
		if (w.skipped) {
			char sk[48];

			snprintf(sk, sizeof sk, " [iwarp skipped %" PRIu64 "]", w.skipped);
			append(w.marks, sizeof w.marks, &w.mn, sk);
		}
		if (w.unsync)
			append(w.marks, sizeof w.marks, &w.mn, " [iwarp out of sync]");
		append(line, sizeof line, &n, w.marks);
	} else {
		n = roce_summary(p, line, sizeof line);
	}
	marks_text(l->verdict, line, sizeof line, &n);
	for (unsigned i = 0; i < l->nv; i++) {
		char m[64];

		snprintf(m, sizeof m, " [verdict: %s]", l->vnames[i]);
		append(line, sizeof line, &n, m);
	}
	/* UTC, as the batch report and the terminal view */
	gmtime_r(&t, &tm);
	if (l->file)
		fprintf(l->out, "%s:", l->file);
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
	uint64_t iw = l->iwarp < l->roce[ROCE_VER_NONE] ? l->iwarp : l->roce[ROCE_VER_NONE];

	fprintf(f, "%" PRIu64 " %s: RoCE v1 %" PRIu64 ", v2 %" PRIu64 ", v2-1021 %" PRIu64
		", v2 other ports %" PRIu64, l->frames, l->frames == 1 ? "frame" : "frames", l->roce[ROCE_VER_V1],
		l->roce[ROCE_VER_V2], l->roce[ROCE_VER_V2_1021], l->roce[ROCE_VER_V2_PORT]);
	/* as the terminal view: iWARP frames are not "other" */
	if (iw)
		fprintf(f, ", iWARP %" PRIu64, iw);
	fprintf(f, ", other %" PRIu64 "\n", l->roce[ROCE_VER_NONE] - iw);
	if (l->roce[ROCE_VER_IB])
		fprintf(f, "native InfiniBand %" PRIu64 " frames\n", l->roce[ROCE_VER_IB]);
	fprintf(f, "ICRC: %" PRIu64 " good, %" PRIu64 " bad, %" PRIu64 " unchecked; %" PRIu64
		" truncated, %" PRIu64 " invalid frames\n",
		l->icrc[ROCE_ICRC_GOOD], l->icrc[ROCE_ICRC_BAD], l->icrc[ROCE_ICRC_UNCHECKED],
		l->truncated, l->invalid);
}
