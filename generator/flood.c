/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * flood.c — `rocegen flood`: stateless streams, zmap-style.
 *
 * prepare: one template per payload size (roce_tmpl_init: every header
 *          written once, ICRC/UDP checksum/FCS offsets known);
 * per frame: copy the template into a batch slot, patch DestQP (QPN base +
 *          i mod --qps, round robin), the QP's next PSN and the payload
 *          (a frame counter, zeros, or random bytes), refresh the ICRC
 *          (roce_tmpl_refresh);
 * per batch: the token bucket (pace.c) grants up to 64 frames, the
 *          transmit backend (tx.h, default the AF_PACKET ring) sends them.
 *
 * --size-mix picks sizes by smooth weighted round robin, so a 50:30:20 mix
 * is interleaved evenly and the same on every run.  --cnp floods CNPs (one
 * per QP in turn, PSN 0, ICRC fresh); --pfc-storm sends one PFC frame every
 * --interval-us.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gen.h"
#include "pace.h"

#define BATCH 64

struct stream {
	struct gen_kind k;
	unsigned n_tmpl;
	struct roce_tmpl tmpl[GEN_MIX_MAX];
	uint8_t *tbuf;                  /* n_tmpl templates of GEN_MAX_FRAME */
	int cur[GEN_MIX_MAX];           /* smooth WRR state */
	int wsum;
	uint32_t *psn;                  /* next PSN of each QP */
	unsigned qp;                    /* next QP */
	uint64_t seq;                   /* frames built */
	uint64_t rnd;
	int fill;                       /* 0 zero, 1 count, 2 random, 3 fixed (--payload) */
	uint32_t max_len;
};

static unsigned wrr_next(struct stream *s, const struct gen_mix *m)
{
	unsigned best = 0;

	if (s->n_tmpl == 1)
		return 0;
	for (unsigned i = 0; i < s->n_tmpl; i++) {
		s->cur[i] += (int)m->weight[i];
		if (s->cur[i] > s->cur[best])
			best = i;
	}
	s->cur[best] -= s->wsum;
	return best;
}

static uint64_t xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static int prepare(const struct gen_opts *o, struct stream *s, struct gen_mix *m)
{
	const struct roce_opinfo *oi = roce_opcode_info(s->k.opcode);
	int has_payload = oi && (oi->hdrs & ROCE_H_PAYLOAD);
	uint8_t pbuf[GEN_MAX_FRAME];

	if (!m->n) {
		m->n = 1;
		/* an ATOMIC WRITE carries exactly 8 bytes */
		m->size[0] = has_payload ? gen_payload_len(o, oi->kind == ROCE_OK_ATOMIC_WRITE ? 8 : 64) : 0;
		m->weight[0] = 1;
	} else if (o->payload) {
		fprintf(stderr, GEN_NAME " flood: --payload and --size-mix do not go together\n");
		return -1;
	}
	if (!has_payload && (m->n > 1 || m->size[0])) {
		fprintf(stderr, GEN_NAME " flood: %s carries no payload\n", o->kind);
		return -1;
	}
	s->tbuf = malloc((size_t)m->n * GEN_MAX_FRAME);
	if (!s->tbuf)
		return -1;
	s->n_tmpl = m->n;
	s->wsum = 0;
	for (unsigned i = 0; i < m->n; i++) {
		struct roce_frame_spec spec;
		int n;

		s->wsum += (int)m->weight[i];
		if (gen_roce_spec(o, s->k.opcode, &spec, pbuf, sizeof(pbuf), m->size[i]))
			return -1;
		if (s->fill != 1 && s->fill != 3 && spec.payload_len)
			memset(pbuf, 0, spec.payload_len);
		n = roce_tmpl_init(&s->tmpl[i], s->tbuf + (size_t)i * GEN_MAX_FRAME, GEN_MAX_FRAME, &spec);
		if (n < 0) {
			fprintf(stderr, GEN_NAME " flood: cannot build %s with %u payload bytes: %s\n",
				o->kind, m->size[i], roce_strerror(n));
			return -1;
		}
		if ((uint32_t)n > s->max_len)
			s->max_len = (uint32_t)n;
	}
	return 0;
}

/* Builds the next frame of the stream into dst; returns its length. */
static uint32_t next_frame(const struct gen_opts *o, struct stream *s, unsigned which, uint8_t *dst)
{
	struct roce_tmpl t = s->tmpl[which];
	unsigned q = s->qp;
	uint32_t plen;

	memcpy(dst, t.frame, t.len);
	t.frame = dst;
	roce_tmpl_set_dqpn(&t, (o->qpn + q) & 0xffffff);
	if (!roce_opcode_is_cnp(s->k.opcode)) {
		roce_tmpl_set_psn(&t, s->psn[q]);
		s->psn[q] = (s->psn[q] + 1) & 0xffffff;
	}
	plen = t.icrc_off - t.payload_off - ((dst[t.bth_off + 1] >> 4) & 3);
	if (plen && s->fill == 1) {
		/* the frame number, big-endian, at the start of the payload */
		uint8_t c[8];
		uint64_t v = s->seq;

		for (int i = 7; i >= 0; i--, v >>= 8)
			c[i] = (uint8_t)v;
		memcpy(dst + t.payload_off, c, plen < 8 ? plen : 8);
	} else if (plen && s->fill == 2) {
		for (uint32_t i = 0; i < plen; i += 8) {
			uint64_t r = xorshift(&s->rnd);

			memcpy(dst + t.payload_off + i, &r, plen - i < 8 ? plen - i : 8);
		}
	}
	roce_tmpl_refresh(&t);
	s->qp = q + 1 == o->qps ? 0 : q + 1;
	s->seq++;
	return t.len;
}

/* One flood run: the options, the stream and what sends it. */
struct flood {
	struct gen_opts o;
	struct stream s;
	struct tx *t;
	struct pace pace;
	uint8_t *slots, storm[256];
	uint32_t storm_len;
	int storm_mode;                 /* a PFC/pause storm: one fixed frame */
	uint64_t count;
	double pps, bps;
	unsigned bmax;
};

/* KIND, --cnp or --pfc-storm; addresses; how many frames; the payload fill. */
static int flood_kind(struct flood *f)
{
	struct gen_opts *o = &f->o;
	struct stream *s = &f->s;

	if (o->pfc_storm + o->cnp + !!o->kind > 1) {
		fprintf(stderr, GEN_NAME " flood: give one of KIND, --cnp or --pfc-storm\n");
		return -1;
	}
	if (o->pfc_storm)
		o->kind = "pfc";
	else if (o->cnp)
		o->kind = "cnp";
	else if (!o->kind)
		o->kind = "rc-send-only";
	if (gen_kind_parse(o->kind, &s->k) ||
	    (s->k.cls != GK_ROCE && s->k.cls != GK_PFC && s->k.cls != GK_PAUSE)) {
		fprintf(stderr, GEN_NAME " flood: '%s': flood sends a RoCE opcode, cnp, pfc or pause\n",
			o->kind);
		return -1;
	}
	f->storm_mode = s->k.cls != GK_ROCE;
	if (f->storm_mode && o->wrap && o->wrap->ib) {
		fprintf(stderr, GEN_NAME " flood: --ib carries RoCE frames, not %s\n", o->kind);
		return -1;
	}
	if (gen_resolve(o, !f->storm_mode, !f->storm_mode))
		return -1;
	if (!f->storm_mode && o->version != ROCE_VER_V1 && o->src_ver != o->dst_ver) {
		fprintf(stderr, GEN_NAME ": --src and --dst are of different families\n");
		return -1;
	}
	f->count = o->count;
	if (!f->count && !o->duration) {
		if (o->dry_run) {
			f->count = 8;
		} else if (o->wfile) {
			fprintf(stderr, GEN_NAME " flood: -w needs --count or --duration\n");
			return -1;
		}
	}
	s->fill = o->payload ? 3 : !strcmp(o->fill, "zero") ? 0 : !strcmp(o->fill, "random") ? 2 : 1;
	s->rnd = o->seed ? o->seed : 1;
	return 0;
}

/* The storm frame or the stream's templates, the batch slots, the backend. */
static int flood_open(struct flood *f)
{
	struct gen_opts *o = &f->o;
	struct stream *s = &f->s;
	int n;

	if (f->storm_mode) {
		n = gen_build_frame(o, &s->k, 0, f->storm, sizeof(f->storm));
		if (n < 0) {
			fprintf(stderr, GEN_NAME " flood: cannot build %s: %s\n", o->kind, roce_strerror(n));
			return -1;
		}
		f->storm_len = (uint32_t)n;
		s->max_len = f->storm_len;
	} else {
		s->psn = malloc(sizeof(*s->psn) * o->qps);
		if (!s->psn)
			return -1;
		for (unsigned q = 0; q < o->qps; q++)
			s->psn[q] = o->psn;
		if (prepare(o, s, &o->mix))
			return -1;
	}
	f->slots = malloc((size_t)BATCH * (s->max_len ? s->max_len : 64));
	if (!f->slots)
		return -1;
	f->t = gen_open_tx(o, TX_RING, s->max_len);
	return f->t ? 0 : -1;
}

/* The rate and the token bucket: frames/s, or bits/s at the mix's average L1 size. */
static void flood_pace(struct flood *f)
{
	const struct gen_opts *o = &f->o;
	const struct stream *s = &f->s;
	int live = tx_kind_is_live(tx_backend(f->t)), storm_mode = f->storm_mode;
	double pps, bps, avg = 0;

	gen_rate(o, live, &pps, &bps);
	if (!live && !o->pps && !o->gbps && !o->interval_us)
		pps = bps = 0;     /* files and dry runs go as fast as they can */
	for (unsigned i = 0; i < (storm_mode ? 1 : s->n_tmpl); i++)
		avg += (double)(storm_mode ? f->storm_len : s->tmpl[i].len) *
		       (storm_mode ? 1 : o->mix.weight[i]) / (storm_mode ? 1 : s->wsum);
	/* L1 bits: frame + FCS (unless the frame has one) + preamble/SFD + IFG */
	avg = 8.0 * (avg + (o->fcs ? 0 : 4) + 20);
	/* a storm keeps its interval frame by frame (a pause must be renewed
	 * before it runs out); streams go in batches of up to ~1 ms */
	f->bmax = storm_mode && (pps > 0 || bps > 0) ? 1 : BATCH;
	pace_init(&f->pace, pps ? pps : bps,
		  pps ? pace_batch_for(pps, f->bmax) : pace_batch_for(bps / avg, f->bmax) * avg);
	if (o->verbose)
		fprintf(stderr, GEN_NAME " flood: %s, %u template(s), max frame %u, rate %s%.0f %s\n",
			o->kind, storm_mode ? 1 : s->n_tmpl, s->max_len, pps || bps ? "" : "unlimited ",
			pps ? pps : bps, pps ? "frames/s" : "bits/s");
	f->pps = pps;
	f->bps = bps;
}

/* Up to want frames the bucket grants: their templates picked, built and sent.
 * The number sent, 0 when the bucket (or a signal) stops us, -1 on a send error. */
static int flood_batch(struct flood *f, unsigned want)
{
	struct stream *s = &f->s;
	const uint8_t *fr[BATCH];
	uint32_t lens[BATCH];
	unsigned which[BATCH], got;
	int cur0[GEN_MIX_MAX];
	double costs[BATCH];

	memcpy(cur0, s->cur, sizeof(cur0));
	for (unsigned j = 0; j < want; j++) {
		which[j] = f->storm_mode ? 0 : wrr_next(s, &f->o.mix);
		costs[j] = f->pps ? 1.0
				  : 8.0 * ((f->storm_mode ? f->storm_len : s->tmpl[which[j]].len) +
					   (f->o.fcs ? 0 : 4) + 20);
	}
	got = pace_grant(&f->pace, want, costs, &gen_stop);
	if (!got)
		return 0;
	if (!f->storm_mode && got < want) {
		/* sizes not granted go back to the round robin: replay got steps */
		memcpy(s->cur, cur0, sizeof(cur0));
		for (unsigned j = 0; j < got; j++)
			wrr_next(s, &f->o.mix);
	}
	for (unsigned j = 0; j < got; j++) {
		if (f->storm_mode) {
			fr[j] = f->storm;
			lens[j] = f->storm_len;
		} else {
			uint8_t *d = f->slots + (size_t)j * s->max_len;

			lens[j] = next_frame(&f->o, s, which[j], d);
			fr[j] = d;
		}
	}
	if (tx_send_batch(f->t, fr, lens, got) < 0) {
		fprintf(stderr, GEN_NAME " flood: %s\n", tx_error(f->t));
		return -1;
	}
	return (int)got;
}

/* Batches until --count, --duration or a signal; then the report. */
static int flood_run(struct flood *f)
{
	uint64_t sent = 0, t0, deadline = 0;
	int got;

	gen_signals();
	t0 = pace_now_ns();
	if (f->o.duration > 0)
		deadline = t0 + (uint64_t)(f->o.duration * 1e9);
	while (!gen_stop && (!f->count || sent < f->count)) {
		unsigned want = f->bmax;

		if (f->count && f->count - sent < want)
			want = (unsigned)(f->count - sent);
		if (deadline && pace_now_ns() >= deadline)
			break;
		got = flood_batch(f, want);
		if (got < 0)
			return -1;
		if (!got)
			break;
		sent += (unsigned)got;
	}
	if (tx_flush(f->t)) {
		fprintf(stderr, GEN_NAME " flood: %s\n", tx_error(f->t));
		return -1;
	}
	gen_report("flood", f->t, t0, pace_now_ns());
	return 0;
}

int gen_flood_main(int argc, char **argv)
{
	struct flood f;
	int rc = 2, n;

	memset(&f, 0, sizeof(f));
	n = gen_parse(GEN_FLOOD, argc, argv, &f.o);
	if (n)
		return gen_parse_exit(n);
	if (!flood_kind(&f) && !flood_open(&f)) {
		flood_pace(&f);
		if (!flood_run(&f))
			rc = 0;
	}
	tx_close(f.t);
	free(f.slots);
	free(f.s.tbuf);
	free(f.s.psn);
	gen_opts_free(&f.o);
	return rc;
}
