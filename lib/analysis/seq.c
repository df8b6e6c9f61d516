/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * seq.c — RC sequence analysis (IBTA vol. 1 9.7.5 responder, 9.7.4
 * requester; Linux drivers/infiniband/sw/rxe/rxe_resp.c check_psn() for what
 * a responder counts).  See seq.h for the model.
 *
 * The responder's view (check_psn):
 *   diff = PSN - expected
 *   diff > 0: out_of_sequence; the first of a run is an out_of_seq_request
 *             (one PSN-sequence-error NAK), the rest are dropped silently
 *   diff < 0: duplicate_request (re-ACKed, READs/atomics replayed)
 *   diff = 0: taken; the run of out-of-sequence packets ends; the expected
 *             PSN moves on by 1, or by a READ request's response count
 */
#include <string.h>
#include "internal.h"
#include "seq.h"

#define PSN_MASK 0xffffffu

/* state bits */
#define S_HAVE 0x1u        /* epsn/next valid */
#define S_NAK_SENT 0x2u    /* responder is in an out-of-sequence run */
#define S_EPISODE 0x4u     /* a retransmission episode is going on */
#define S_LAST_READ 0x8u   /* the last in-order request was the READ at read_psn */
#define S_IN_READ 0x10u    /* READ responses under way: resp_next is the next */
#define S_HAVE_ACK 0x20u   /* last_ack valid */
#define S_ATOMIC 0x40u     /* the last response was an ATOMIC ACK: resp_next follows it */
#define S_MTU_SHIFT 8      /* 3 bits: current path MTU code */
#define S_SRC_SHIFT 12     /* 2 bits: its source */

/* recovery word: trigger + 1 (4 bits) << 28 | first was a hole fill << 27 |
 * count (3 bits, saturating) << 24 | next PSN of the run */
#define R_TRIG(r) ((int)((r) >> 28) - 1)
#define R_FILL(r) (((r) >> 27) & 1)
#define R_COUNT(r) (((r) >> 24) & 7)

static inline uint32_t padd(uint32_t a, uint32_t n) { return (a + n) & PSN_MASK; }
static inline int32_t pdiff(uint32_t a, uint32_t b) { return roce_psn_diff(a, b); }

static inline unsigned mtu_code(const struct roce_seq_dir *d) { return (d->state >> S_MTU_SHIFT) & 7; }
static inline unsigned mtu_src(const struct roce_seq_dir *d) { return (d->state >> S_SRC_SHIFT) & 3; }

static void set_mtu(struct roce_seq_dir *d, unsigned code, unsigned src)
{
	d->state = (d->state & ~(7u << S_MTU_SHIFT | 3u << S_SRC_SHIFT)) |
		   code << S_MTU_SHIFT | src << S_SRC_SHIFT;
}

/* PSNs a READ of len bytes takes: one per response packet, at least one. */
static uint32_t read_span(uint32_t len, unsigned code)
{
	uint32_t mtu = roce_seq_mtu_bytes(code);
	uint32_t n = mtu ? (uint32_t)(((uint64_t)len + mtu - 1) / mtu) : 1;

	return n ? n : 1;
}

unsigned roce_seq_mtu_code(uint32_t bytes)
{
	/* 256 << (code - 1) */
	if (bytes < 256 || bytes > 4096 || (bytes & (bytes - 1)))
		return 0;
	return (unsigned)__builtin_ctz(bytes) - 7;
}

const char *roce_seq_trigger_name(int t)
{
	static const char *const n[] = { "nak", "implied_nak", "rnr", "timeout", "other" };
	return t >= 0 && t < ROCE_SEQ_TRIG__COUNT ? n[t] : "?";
}

const char *roce_seq_pmtu_src_name(int s)
{
	static const char *const n[] = { "configured", "inferred", "cm", "payload" };
	return s >= 0 && s <= 3 ? n[s] : "?";
}

/* ---- set-up --------------------------------------------------------------------- */

void roce_seq_init(struct roce_seq_dir *d, uint32_t pmtu_default, struct roce_seq_anom *x)
{
	unsigned code = roce_seq_mtu_code(pmtu_default);

	memset(d, 0, sizeof *d);
	set_mtu(d, code ? code : 3, ROCE_SEQ_PMTU_CONFIG);
	if (x) {
		memset(x, 0, sizeof *x);
		d->x = x;
	}
}

void roce_seq_conn_init(struct roce_seq_conn *c, uint32_t pmtu_default)
{
	roce_seq_init(&c->d[0], pmtu_default, NULL);
	roce_seq_init(&c->d[1], pmtu_default, NULL);
}

void roce_seq_set_start(struct roce_seq_dir *d, uint32_t psn)
{
	if (d->requests || (d->state & S_HAVE))
		return;
	d->epsn = d->next = psn & PSN_MASK;
	d->state |= S_HAVE;
}

/* Applies a new MTU; when the last in-order request was a READ whose span
 * the old MTU gave and nothing moved since, its span is corrected. */
static int learn_mtu(struct roce_seq_dir *d, unsigned code, unsigned src)
{
	unsigned old = mtu_code(d);

	if (!code || src < mtu_src(d) || (code == old && src == mtu_src(d)))
		return 0;
	set_mtu(d, code, src);
	if (code != old && (d->state & S_LAST_READ)) {
		uint32_t was = padd(d->read_psn, read_span(d->read_len, old));
		uint32_t now = padd(d->read_psn, read_span(d->read_len, code));

		if (d->epsn == was && d->next == was)
			d->epsn = d->next = now;
	}
	return code != old;
}

void roce_seq_set_pmtu(struct roce_seq_dir *d, unsigned code, enum roce_seq_pmtu_src src)
{
	if (code >= 1 && code <= 5)
		learn_mtu(d, code, src);
}

uint32_t roce_seq_pmtu(const struct roce_seq_dir *d) { return roce_seq_mtu_bytes(mtu_code(d)); }
enum roce_seq_pmtu_src roce_seq_pmtu_source(const struct roce_seq_dir *d) { return mtu_src(d); }

/* roce_seq_classify(), with the opcode's entry in *oip (NULL when none):
 * roce_seq_request() classifies and then needs the entry, once per frame. */
static inline enum roce_seq_kind seq_kind(const struct roce_pkt *p, const struct roce_opinfo **oip)
{
	const struct roce_opinfo *oi;
	unsigned tr = p->opcode & 0xe0;

	*oip = NULL;

	if (!p->bth_off || !(p->present & ROCE_LBIT(ROCE_L_BTH)) ||
	    (p->truncated & ROCE_LBIT(ROCE_L_BTH)) || (p->invalid & ROCE_LBIT(ROCE_L_BTH)))
		return ROCE_SEQ_NONE;
	if (roce_opcode_is_cnp(p->opcode))
		return ROCE_SEQ_CNP_PKT;
	if (tr != ROCE_TR_RC && tr != ROCE_TR_XRC)
		return ROCE_SEQ_NONE;
	oi = roce__opinfo(p->opcode);
	*oip = oi;
	if (!oi)
		return ROCE_SEQ_NONE;
	if (oi->is_request)
		return ROCE_SEQ_REQ;
	if (oi->kind == ROCE_OK_ACK || oi->kind == ROCE_OK_READ_RESP || oi->kind == ROCE_OK_ATOMIC_ACK)
		return ROCE_SEQ_RESP;
	return ROCE_SEQ_NONE;
}

enum roce_seq_kind roce_seq_classify(const struct roce_pkt *p)
{
	const struct roce_opinfo *oi;

	return seq_kind(p, &oi);
}

static struct roce_seq_anom *anom(struct roce_seq_dir *d, struct roce_seq_anom **spare)
{
	if (!d->x && spare && *spare) {
		d->x = *spare;
		*spare = NULL;
		memset(d->x, 0, sizeof *d->x);
	}
	return d->x;
}

/* A scratch block for a caller that broke the contract (no spare given):
 * counts land nowhere rather than crash. */
static struct roce_seq_anom *anom_or_sink(struct roce_seq_dir *d, struct roce_seq_anom **spare,
					  struct roce_seq_anom *sink)
{
	struct roce_seq_anom *x = anom(d, spare);

	if (x)
		return x;
	memset(sink, 0, sizeof *sink);
	return sink;
}

/* ---- holes (PSNs skipped on the wire, not yet seen) ----------------------------- */

#define H_PSN(h) ((h) >> 8)
#define H_LEN(h) ((h) & 0xff)

static void hole_close(struct roce_seq_anom *x, unsigned i)
{
	x->missing_closed += H_LEN(x->hole[i]);
	x->hole[i] = 0;
}

/* Index of the free slot, or of the oldest hole (closed to make room). */
static unsigned hole_slot(struct roce_seq_anom *x, uint32_t next)
{
	unsigned old = 0;
	int32_t worst = 0;

	for (unsigned i = 0; i < ROCE_SEQ_HOLES; i++) {
		int32_t age;

		if (!x->hole[i])
			return i;
		age = pdiff(next, H_PSN(x->hole[i]));
		if (age > worst) {
			worst = age;
			old = i;
		}
	}
	hole_close(x, old);
	return old;
}

static void hole_put(struct roce_seq_anom *x, uint32_t psn, uint32_t len, uint32_t next)
{
	unsigned i;

	if (!len)
		return;
	/* a gap longer than 255 PSNs: keep its first 255 (late arrivals come
	 * from its start); the rest is given up on at once */
	if (len > 255) {
		x->missing_closed += len - 255;
		len = 255;
	}
	i = hole_slot(x, next);
	x->hole[i] = psn << 8 | len;
}

/* 1 when psn was in a hole (and is no longer). */
static int hole_fill(struct roce_seq_anom *x, uint32_t psn, uint32_t next)
{
	for (unsigned i = 0; i < ROCE_SEQ_HOLES; i++) {
		uint32_t h = x->hole[i], start = H_PSN(h), len = H_LEN(h);
		int32_t off;

		if (!h)
			continue;
		off = pdiff(psn, start);
		if (off < 0 || (uint32_t)off >= len)
			continue;
		x->hole[i] = 0;
		if (off > 0)
			x->hole[i] = start << 8 | (uint32_t)off;
		if ((uint32_t)off + 1 < len) {
			uint32_t rest = len - (uint32_t)off - 1;

			if (x->hole[i])
				hole_put(x, padd(psn, 1), rest, next);
			else
				x->hole[i] = padd(psn, 1) << 8 | rest;
		}
		return 1;
	}
	return 0;
}

uint32_t roce_seq_missing(const struct roce_seq_dir *d)
{
	uint32_t n;

	if (!d->x)
		return 0;
	n = d->x->missing_closed;
	for (unsigned i = 0; i < ROCE_SEQ_HOLES; i++)
		n += H_LEN(d->x->hole[i]);
	return n;
}

/* ---- retransmission episodes and recoveries ------------------------------------- */

/* round(log2(gap / 4.096 us)): the local ACK timeout exponent a gap implies */
static int8_t timeout_exponent(uint32_t gap_us)
{
	double t = 4.096 * 1.4142135623730951;   /* boundary between 0 and 1 */
	int8_t k = 0;

	while (k < 31 && (double)gap_us >= t) {
		t *= 2;
		k++;
	}
	return k;
}

static void recov_score(struct roce_seq_anom *x, uint32_t next_psn_now, int by_new_data)
{
	uint32_t r = x->recov;
	int trig = R_TRIG(r);

	if (!r)
		return;
	if (trig == ROCE_SEQ_TRIG_NAK || trig == ROCE_SEQ_TRIG_IMPLIED) {
		if (R_COUNT(r) >= 2)
			x->go_back_n++;
		else if (by_new_data && R_FILL(r) && (r & PSN_MASK) != x->recov_end)
			x->selective++;   /* resent the hole only, skipped PSNs it had sent */
	}
	(void)next_psn_now;
	x->recov = 0;
}

/* A NAK (or implied NAK, RNR NAK) asks for a resend from psn.  The last two
 * are remembered: the requester may go back to the first of two NAKs that
 * crossed (seen on lab captures under netem reordering). */
static void set_pend(struct roce_seq_anom *x, int kind, uint32_t psn)
{
	uint32_t w = (uint32_t)(kind + 1) << 24 | psn;

	if (x->pend != w) {
		x->pend2 = x->pend;
		x->pend = w;
	}
}

static int pend_matches(const struct roce_seq_anom *x, uint32_t q)
{
	for (int i = 0; i < 2; i++) {
		uint32_t w = i ? x->pend2 : x->pend;
		int32_t off = pdiff(q, w & PSN_MASK);

		if (w && off >= 0 && off <= 2)
			return 1;
	}
	return 0;
}

/* Trigger of a resend of psn q: a pending NAK that points at it wins, then
 * silence, then nothing. */
static int trigger_for(struct roce_seq_dir *d, struct roce_seq_anom *x, uint32_t q, uint32_t us,
		       uint32_t *gap)
{
	*gap = us - d->last_us;
	for (int i = 0; i < 2; i++) {
		uint32_t w = i ? x->pend2 : x->pend;
		int32_t off = pdiff(q, w & PSN_MASK);

		if (w && off >= 0 && off <= 2) {
			x->pend = x->pend2 = 0;
			return (int)(w >> 24) - 1;
		}
	}
	if (*gap >= ROCE_SEQ_TIMEOUT_MIN_US)
		return ROCE_SEQ_TRIG_TIMEOUT;
	return ROCE_SEQ_TRIG_OTHER;
}

/* A request below the highest PSN: a hole fill (fill=1) or a retransmission. */
static void resend(struct roce_seq_dir *d, struct roce_seq_anom *x, uint32_t q, uint32_t span, int fill,
		   uint32_t us, struct roce_seq_verdict *v)
{
	uint32_t r = x->recov, gap = 0;
	int trig;

	if (r && pdiff(q, r & PSN_MASK) >= 0) {
		/* the run goes on (a READ takes its response count of PSNs; a
		 * jump ahead is a resend lost again) */
		uint32_t cnt = R_COUNT(r) < 7 ? R_COUNT(r) + 1 : 7;

		x->recov = (r & 0xf8000000u) | cnt << 24 | padd(q, span);
		trig = R_TRIG(r);
	} else if (r && pdiff(q, x->recov_first) > 0 && !pend_matches(x, q)) {
		/* behind the run but after its start, and no NAK asked for it: a
		 * piece of the run the network reordered, not a new go-back */
		uint32_t cnt = R_COUNT(r) < 7 ? R_COUNT(r) + 1 : 7;

		x->recov = (r & 0xf0ffffffu) | cnt << 24;
		trig = R_TRIG(r);
	} else {
		/* back to or before the run's start (or no run): a new one; when
		 * a run is replaced, its first packet was a late arrival, and the
		 * new run keeps its trigger if nothing else explains it */
		int inherit = r ? R_TRIG(r) : -1;

		trig = trigger_for(d, x, q, us, &gap);
		if (inherit >= 0 && inherit != ROCE_SEQ_TRIG_OTHER && trig == ROCE_SEQ_TRIG_OTHER)
			trig = inherit;      /* same cause: the episode goes on */
		else
			/* the requester went back again, for a reason of its own:
			 * a new episode (a requester that sent everything before
			 * its first loss never sends new data, so "until new
			 * data" would make one episode of them all) */
			d->state &= ~S_EPISODE;
		x->recov = (uint32_t)(trig + 1) << 28 | (uint32_t)(fill ? 1 : 0) << 27 | 1u << 24 | padd(q, span);
		x->recov_first = q;
		x->recov_end = d->next;
		if (trig == ROCE_SEQ_TRIG_TIMEOUT) {
			v->gap_us = gap;
			v->timeout_exp = timeout_exponent(gap);
			if (gap > x->timeout_gap_max_us)
				x->timeout_gap_max_us = gap;
		}
	}
	if (!fill && !(d->state & S_EPISODE)) {
		d->state |= S_EPISODE;
		v->flags |= ROCE_SEQ_V_EPISODE;
		v->trigger = (uint8_t)trig;
		if (trig == ROCE_SEQ_TRIG_TIMEOUT && !v->gap_us) {
			v->gap_us = us - d->last_us;
			v->timeout_exp = timeout_exponent(v->gap_us);
		}
		x->episodes[trig]++;
	}
}

/* ---- re-judging after an RNR NAK ---------------------------------------------------- */

enum { RC_IN = 0, RC_DUP, RC_OOS, RC_OOS_START };
/* how the last re-judged requests are reported (x->rj_n & 3): from the log,
 * or (not in the log) all out of sequence, the first starting a run or not */
enum { RJ_LOG = 0, RJ_OOS_START, RJ_OOS };

static void rlog_put(struct roce_seq_anom *x, uint32_t psn, uint32_t span, unsigned cls)
{
	x->rlog[x->rlog_head] = psn << 8 | (span > 63 ? 63 : span) << 2 | cls;
	x->rlog_head = (uint8_t)((x->rlog_head + 1) % ROCE_SEQ_RLOG);
	if (x->rlog_n < ROCE_SEQ_RLOG)
		x->rlog_n++;
}

/* The responder sent an RNR NAK for psn: it did not take that request
 * (rxe: no receive WQE; its expected PSN stays).  The requests logged after
 * the in-order one at psn are judged again from there, as the responder
 * did; the counters are corrected.  0 when psn is not in the log. */
static int rnr_rejudge(struct roce_seq_dir *d, struct roce_seq_anom *x, uint32_t psn)
{
	unsigned n = x->rlog_n, start = (x->rlog_head + ROCE_SEQ_RLOG - n) % ROCE_SEQ_RLOG, at = n;
	uint32_t e = psn;
	int nak_sent = 0;

	for (unsigned k = n; k-- > 0;) {
		uint32_t w = x->rlog[(start + k) % ROCE_SEQ_RLOG];

		if ((w >> 8) == psn && (w & 3) == RC_IN) {
			at = k;
			break;
		}
	}
	if (at == n)
		return 0;
	x->rj_id = d->requests - (n - 1 - at) + 1;
	x->rj_n = (n - 1 - at) << 2 | RJ_LOG;
	x->rj_psn = psn;
	for (unsigned k = at + 1; k < n; k++) {
		uint32_t *w = &x->rlog[(start + k) % ROCE_SEQ_RLOG], q = *w >> 8, span = (*w >> 2) & 63;
		unsigned cls;
		int32_t diff = pdiff(q, e);

		/* take the first judgement back */
		switch (*w & 3) {
		case RC_DUP: x->duplicate_request--; break;
		case RC_OOS_START: x->out_of_seq_request--; /* fall through */
		case RC_OOS: x->out_of_sequence--; break;
		default: break;
		}
		if (diff == 0) {
			cls = RC_IN;
			nak_sent = 0;
			e = padd(q, span);
		} else if (diff < 0) {
			cls = RC_DUP;
			x->duplicate_request++;
		} else {
			cls = nak_sent ? RC_OOS : RC_OOS_START;
			x->out_of_sequence++;
			if (!nak_sent)
				x->out_of_seq_request++;
			nak_sent = 1;
		}
		*w = (*w & ~3u) | cls;
	}
	d->epsn = e;
	d->state = nak_sent ? d->state | S_NAK_SENT : d->state & ~S_NAK_SENT;
	return 1;
}

int roce_seq_rejudged(const struct roce_seq_dir *d, unsigned i, struct roce_seq_rejudge *r)
{
	const struct roce_seq_anom *x = d->x;
	uint32_t cnt, back;
	unsigned n, start, at;
	uint32_t e;

	if (!x || i >= (cnt = x->rj_n >> 2))
		return 0;
	r->req_id = x->rj_id + i;
	if ((x->rj_n & 3) != RJ_LOG) {
		r->flags = ROCE_SEQ_V_OUT_OF_SEQ |
			   (i == 0 && (x->rj_n & 3) == RJ_OOS_START ? ROCE_SEQ_V_OOS_START : 0);
		r->expected_psn = x->rj_psn;
		return 1;
	}
	/* the re-judged requests end at the newest logged one, unless
	 * requests came since; the one the RNR NAK named is just before */
	back = d->requests - r->req_id;             /* 0: the newest */
	n = x->rlog_n;
	if (back + i + 1 >= n)                      /* the RNR'd one left the log */
		return 0;
	start = (x->rlog_head + ROCE_SEQ_RLOG - n) % ROCE_SEQ_RLOG;
	at = n - 1 - (unsigned)back - (i + 1);
	e = x->rj_psn;
	for (unsigned k = at + 1;; k++) {
		uint32_t w = x->rlog[(start + k) % ROCE_SEQ_RLOG];

		if (k == n - 1 - back) {
			static const uint32_t cls[4] = {
				ROCE_SEQ_V_IN_ORDER, ROCE_SEQ_V_DUPLICATE, ROCE_SEQ_V_OUT_OF_SEQ,
				ROCE_SEQ_V_OUT_OF_SEQ | ROCE_SEQ_V_OOS_START,
			};

			r->flags = cls[w & 3];
			r->expected_psn = e;
			return 1;
		}
		if ((w & 3) == RC_IN)
			e = padd(w >> 8, (w >> 2) & 63);
	}
}

/* ---- requests ---------------------------------------------------------------------- */

static uint32_t ts_us(uint64_t ts_ns) { return (uint32_t)(ts_ns / 1000); }

/* The PSN after an in-order READ tells how many PSNs it took, when
 * nothing better than a guess gave the MTU.  Only fewer PSNs than the
 * guess are believed: more can also mean lost requests (checked on a
 * lab capture of ib_read_bw under 3% loss, where a lost READ of the
 * same size looked exactly like half the MTU).  *span: this request's,
 * again from the MTU learnt. */
static void req_after_read(struct roce_seq_dir *d, uint32_t q, int is_read, uint32_t dmalen, uint32_t *span,
			   struct roce_seq_verdict *v)
{
	int32_t n;
	uint32_t est;

	d->state &= ~S_LAST_READ;
	if (mtu_src(d) >= ROCE_SEQ_PMTU_CM)
		return;
	n = pdiff(q, d->read_psn);
	est = read_span(d->read_len, mtu_code(d));
	if (n >= 1 && (uint32_t)n < est && d->epsn == padd(d->read_psn, est) && d->next == d->epsn)
		for (unsigned c = 5; c >= 1; c--)
			if (read_span(d->read_len, c) == (uint32_t)n) {
				set_mtu(d, c, ROCE_SEQ_PMTU_INFERRED);
				d->epsn = d->next = padd(d->read_psn, (uint32_t)n);
				v->flags |= ROCE_SEQ_V_PMTU;
				break;
			}
	if (is_read && dmalen)
		*span = read_span(dmalen, mtu_code(d));
}

/* the responder's view: in order, out of sequence (the first of a run
 * draws a PSN-sequence-error NAK), or a duplicate */
static void req_responder(struct roce_seq_dir *d, uint32_t q, uint32_t span, int is_read, uint32_t dmalen,
			  struct roce_seq_anom **spare, struct roce_seq_anom *sink, struct roce_seq_verdict *v)
{
	int32_t diff = pdiff(q, d->epsn);
	struct roce_seq_anom *x;

	v->expected_psn = d->epsn;
	if (d->x)
		rlog_put(d->x, q, span, diff == 0 ? RC_IN : diff < 0 ? RC_DUP :
			 (d->state & S_NAK_SENT) ? RC_OOS : RC_OOS_START);
	if (diff == 0) {
		v->flags |= ROCE_SEQ_V_IN_ORDER;
		d->state &= ~S_NAK_SENT;
		d->epsn = padd(q, span);
		if (is_read) {
			d->state |= S_LAST_READ;
			d->read_psn = q;
			d->read_len = dmalen;
		}
		return;
	}
	x = anom_or_sink(d, spare, sink);
	if (diff > 0) {
		v->flags |= ROCE_SEQ_V_OUT_OF_SEQ;
		x->out_of_sequence++;
		if (!(d->state & S_NAK_SENT)) {
			d->state |= S_NAK_SENT;
			x->out_of_seq_request++;
			v->flags |= ROCE_SEQ_V_OOS_START;
		}
	} else {
		v->flags |= ROCE_SEQ_V_DUPLICATE;
		x->duplicate_request++;
	}
}

/* the wire's view: new PSNs (after a gap, or not), or ones sent before:
 * filling a hole (out of order) or retransmitted */
static void req_wire(struct roce_seq_dir *d, uint32_t q, uint32_t span, uint32_t us, struct roce_seq_anom **spare,
		     struct roce_seq_anom *sink, struct roce_seq_verdict *v)
{
	int32_t nd = pdiff(q, d->next);
	struct roce_seq_anom *x;
	int fill;

	if (nd >= 0) {
		if (nd > 0) {
			x = anom_or_sink(d, spare, sink);
			v->flags |= ROCE_SEQ_V_PSN_GAP;
			v->missing = (uint32_t)nd;
			x->psn_gaps++;
			hole_put(x, d->next, (uint32_t)nd, q);
		}
		d->next = padd(q, span);
		d->state &= ~S_EPISODE;
		if (d->x && d->x->recov)
			recov_score(d->x, d->next, 1);
		return;
	}
	x = anom_or_sink(d, spare, sink);
	fill = hole_fill(x, q, d->next);
	if (fill) {
		v->flags |= ROCE_SEQ_V_OUT_OF_ORDER;
		x->out_of_order++;
	} else {
		v->flags |= ROCE_SEQ_V_RETRANS;
		x->retransmissions++;
	}
	resend(d, x, q, span, fill, us, v);
}

int roce_seq_request(struct roce_seq_dir *d, const struct roce_pkt *p, uint64_t ts_ns, unsigned in,
		     struct roce_seq_anom **spare, struct roce_seq_verdict *v)
{
	struct roce_seq_anom sink;
	const struct roce_opinfo *oi;
	uint32_t q = p->psn & PSN_MASK, span = 1, us = ts_us(ts_ns), dmalen = 0;
	int is_read;

	memset(v, 0, sizeof *v);
	if (seq_kind(p, &oi) != ROCE_SEQ_REQ)
		return -1;
	v->flags = ROCE_SEQ_V_REQUEST;
	if (in & ROCE_SEQ_IN_ICRC_BAD) {
		/* the responder drops it: nothing else of it counts */
		d->icrc_bad++;
		v->flags |= ROCE_SEQ_V_ICRC_BAD;
		return 0;
	}
	if (roce_pkt_ce(p)) {
		d->ecn_ce++;
		v->flags |= ROCE_SEQ_V_ECN_CE;
	}
	d->requests++;
	v->req_id = d->requests;
	is_read = oi->kind == ROCE_OK_READ_REQ;
	if (is_read && p->reth_off && !(p->truncated & ROCE_LBIT(ROCE_L_EXT))) {
		dmalen = roce_reth_dmalen(p);
		span = read_span(dmalen, mtu_code(d));
	}
	if (!(d->state & S_HAVE)) {
		d->epsn = d->next = q;
		d->state |= S_HAVE;
	}
	/* a FIRST or MIDDLE packet carries exactly one path MTU */
	if ((oi->seg == ROCE_SEG_FIRST || oi->seg == ROCE_SEG_MIDDLE) &&
	    learn_mtu(d, roce_seq_mtu_code(p->payload_len), ROCE_SEQ_PMTU_PAYLOAD))
		v->flags |= ROCE_SEQ_V_PMTU;
	if (d->state & S_LAST_READ)
		req_after_read(d, q, is_read, dmalen, &span, v);
	req_responder(d, q, span, is_read, dmalen, spare, &sink, v);
	req_wire(d, q, span, us, spare, &sink, v);
	d->last_us = us;
	return 0;
}

/* ---- responses --------------------------------------------------------------------- */

/* A response after a gap in the PSNs a READ's responses or in-order ATOMIC
 * ACKs should follow: the ones between were lost, which the requester takes
 * as an implied NAK (IBTA C9-151; rxe's completer retries). */
static void rsp_implied_nak(struct roce_seq_dir *d, uint32_t psn, struct roce_seq_anom **spare,
			    struct roce_seq_anom *sink, struct roce_seq_verdict *v)
{
	int32_t g = pdiff(psn, d->resp_next);
	struct roce_seq_anom *x;

	if (g <= 0)
		return;
	x = anom_or_sink(d, spare, sink);
	x->implied_nak++;
	v->flags |= ROCE_SEQ_V_IMPLIED_NAK;
	v->missing = (uint32_t)g;
	set_pend(x, ROCE_SEQ_TRIG_IMPLIED, d->resp_next);
}

/* An RNR NAK for a request that rnr_rejudge() did not find in the log: the
 * requests after it were taken in order (1 PSN each), so they were out of
 * sequence; they are the latest ones. */
static void rsp_rnr_oos(struct roce_seq_dir *d, struct roce_seq_anom *x, uint32_t psn, struct roce_seq_verdict *v)
{
	int32_t extra = pdiff(d->epsn, psn) - 1;

	if (extra > 0) {
		uint32_t n = (uint32_t)extra;

		x->out_of_sequence += n;
		x->rj_n = RJ_OOS;
		if (!(d->state & S_NAK_SENT)) {
			x->out_of_seq_request++;
			d->state |= S_NAK_SENT;
			x->rj_n = RJ_OOS_START;
		}
		if (n > d->requests)
			n = d->requests;
		x->rj_id = d->requests - n + 1;
		x->rj_n |= n << 2;
		x->rj_psn = psn;
		if (n)
			v->flags |= ROCE_SEQ_V_REJUDGED;
	}
	d->epsn = psn;
}

static void rsp_rnr_nak(struct roce_seq_dir *d, uint32_t psn, uint8_t syn, struct roce_seq_anom **spare,
			struct roce_seq_anom *sink, struct roce_seq_verdict *v)
{
	struct roce_seq_anom *x = anom_or_sink(d, spare, sink);

	x->rnr_nak++;
	v->flags |= ROCE_SEQ_V_RNR_NAK;
	v->rnr_timer = ROCE_AETH_VALUE(syn);
	v->rnr_us = roce_rnr_timer_us(v->rnr_timer);
	x->rnr_timers |= 1u << v->rnr_timer;
	set_pend(x, ROCE_SEQ_TRIG_RNR, psn);
	/* The responder did not take that request: it expects it
	 * again.  The requests after it that this model took in
	 * order were, for the responder, out of sequence: the first
	 * of them started a run (and drew a PSN-sequence-error NAK).
	 * Counted now, when the RNR NAK shows it (checked against
	 * rxe's counters on a lab ib_send_bw with one receive WQE). */
	if (!(d->state & S_HAVE) || pdiff(psn, d->epsn) >= 0)
		return;
	if (rnr_rejudge(d, x, psn)) {
		if (x->rj_n >> 2)
			v->flags |= ROCE_SEQ_V_REJUDGED;
	} else {
		rsp_rnr_oos(d, x, psn, v);
	}
}

/* A NAK other than RNR, counted by its code (all but PSN sequence errors saturate at 65535). */
static void rsp_nak(struct roce_seq_anom *x, int type, uint8_t syn, uint32_t psn, struct roce_seq_verdict *v)
{
	v->flags |= ROCE_SEQ_V_NAK;
	v->nak_code = ROCE_AETH_VALUE(syn);
	switch (type == ROCE_AETH_NAK ? v->nak_code : 0xff) {
	case ROCE_NAK_PSN_SEQ_ERR:
		x->nak_seq_err++;
		set_pend(x, ROCE_SEQ_TRIG_NAK, psn);
		break;
	case ROCE_NAK_INVALID_REQ:
		if (x->nak_invalid_request < UINT16_MAX)
			x->nak_invalid_request++;
		break;
	case ROCE_NAK_REMOTE_ACCESS:
		if (x->nak_remote_access < UINT16_MAX)
			x->nak_remote_access++;
		break;
	case ROCE_NAK_REMOTE_OP:
		if (x->nak_remote_op < UINT16_MAX)
			x->nak_remote_op++;
		break;
	default:
		if (x->nak_other < UINT16_MAX)
			x->nak_other++;
		break;
	}
}

/* ACKs and ATOMIC ACKs: the in-order ATOMIC chain, then ACK, RNR NAK or NAK. */
static void rsp_ack(struct roce_seq_dir *d, uint32_t psn, uint8_t op, int has_aeth, uint8_t syn,
		    struct roce_seq_anom **spare, struct roce_seq_anom *sink, struct roce_seq_verdict *v)
{
	int type = has_aeth ? ROCE_AETH_TYPE(syn) : ROCE_AETH_ACK;
	struct roce_seq_anom *x;

	/* Atomics are answered one by one, in order */
	if (op == ROCE_OP_ATOMIC_ACK && (d->state & S_ATOMIC))
		rsp_implied_nak(d, psn, spare, sink, v);
	if (op == ROCE_OP_ATOMIC_ACK && type == ROCE_AETH_ACK) {
		d->state |= S_ATOMIC;
		d->resp_next = padd(psn, 1);
	} else {
		d->state &= ~S_ATOMIC;
	}
	if (type == ROCE_AETH_RNR_NAK) {
		rsp_rnr_nak(d, psn, syn, spare, sink, v);
	} else if (type != ROCE_AETH_ACK) {
		rsp_nak(anom_or_sink(d, spare, sink), type, syn, psn, v);
	} else {
		d->acks++;
		v->flags |= ROCE_SEQ_V_ACK;
		if ((d->state & S_HAVE_ACK) && pdiff(psn, d->last_ack) <= 0 && op == ROCE_OP_ACK) {
			x = anom_or_sink(d, spare, sink);
			x->dup_acks++;
			v->flags |= ROCE_SEQ_V_DUP_ACK;
		} else {
			d->last_ack = psn;
			d->state |= S_HAVE_ACK;
		}
	}
}

/* READ responses: each follows the one before; the last (or only) one acknowledges. */
static void rsp_read(struct roce_seq_dir *d, uint32_t psn, uint8_t op, struct roce_seq_anom **spare,
		     struct roce_seq_anom *sink, struct roce_seq_verdict *v)
{
	d->state &= ~S_ATOMIC;
	if (d->state & S_IN_READ)
		rsp_implied_nak(d, psn, spare, sink, v);
	d->resp_next = padd(psn, 1);
	if (op == ROCE_OP_READ_RESP_FIRST || op == ROCE_OP_READ_RESP_MIDDLE) {
		d->state |= S_IN_READ;
	} else {
		d->state &= ~S_IN_READ;
		if (!(d->state & S_HAVE_ACK) || pdiff(psn, d->last_ack) > 0) {
			d->last_ack = psn;
			d->state |= S_HAVE_ACK;
		}
	}
}

int roce_seq_response(struct roce_seq_dir *d, const struct roce_pkt *p, uint64_t ts_ns, unsigned in,
		      struct roce_seq_anom **spare, struct roce_seq_verdict *v)
{
	struct roce_seq_anom sink, *x;
	enum roce_seq_kind k = roce_seq_classify(p);
	uint32_t psn = p->psn & PSN_MASK, us = ts_us(ts_ns);
	uint8_t op = p->opcode & 0x1f, syn = 0;
	int has_aeth = p->aeth_off && !(p->truncated & ROCE_LBIT(ROCE_L_EXT));

	memset(v, 0, sizeof *v);
	if (k != ROCE_SEQ_RESP && k != ROCE_SEQ_CNP_PKT)
		return -1;
	v->flags = k == ROCE_SEQ_CNP_PKT ? ROCE_SEQ_V_CNP : ROCE_SEQ_V_RESPONSE;
	if (in & ROCE_SEQ_IN_ICRC_BAD) {
		/* the receiver drops it (a corrupt CNP slows no one) */
		d->icrc_bad++;
		v->flags |= ROCE_SEQ_V_ICRC_BAD;
		return 0;
	}
	if (k == ROCE_SEQ_CNP_PKT) {
		d->cnp++;
		return 0;
	}
	if (roce_pkt_ce(p)) {
		d->ecn_ce++;
		v->flags |= ROCE_SEQ_V_ECN_CE;
	}
	d->responses++;
	if (has_aeth) {
		syn = roce_aeth_syndrome(p);
		d->msn = roce_aeth_msn(p);
	}
	if ((op == ROCE_OP_READ_RESP_FIRST || op == ROCE_OP_READ_RESP_MIDDLE) &&
	    learn_mtu(d, roce_seq_mtu_code(p->payload_len), ROCE_SEQ_PMTU_PAYLOAD))
		v->flags |= ROCE_SEQ_V_PMTU;
	if ((d->state & S_HAVE) && pdiff(psn, d->next) >= 0) {
		x = anom_or_sink(d, spare, &sink);
		x->unsolicited++;
		v->flags |= ROCE_SEQ_V_UNSOLICITED;
	}
	if (op == ROCE_OP_ACK || op == ROCE_OP_ATOMIC_ACK)
		rsp_ack(d, psn, op, has_aeth, syn, spare, &sink, v);
	else
		rsp_read(d, psn, op, spare, &sink, v);
	d->last_us = us;
	return 0;
}

int roce_seq_update(struct roce_seq_conn *c, int side, const struct roce_pkt *p, uint64_t ts_ns,
		    unsigned in, struct roce_seq_anom **spare, struct roce_seq_verdict *v)
{
	side = side ? 1 : 0;
	switch (roce_seq_classify(p)) {
	case ROCE_SEQ_REQ:
		return roce_seq_request(&c->d[side], p, ts_ns, in, spare, v);
	case ROCE_SEQ_RESP:
	case ROCE_SEQ_CNP_PKT:
		return roce_seq_response(&c->d[!side], p, ts_ns, in, spare, v);
	default:
		memset(v, 0, sizeof *v);
		return -1;
	}
}

int roce_seq_covers(const struct roce_seq_dir *d, uint32_t psn)
{
	int32_t off;

	if (!(d->state & S_HAVE) || !d->requests)
		return 0;
	off = pdiff(psn & PSN_MASK, d->next);
	return off < 0 && off >= -65536;
}

int roce_seq_continues(const struct roce_seq_dir *d, uint32_t psn)
{
	int32_t off;

	if (!(d->state & S_HAVE))
		return 0;
	off = pdiff(psn & PSN_MASK, d->next);
	if (!d->requests)
		return off >= 0 && off <= ROCE_SEQ_CONTINUE_WINDOW;   /* from the CM's starting PSN */
	return off >= -ROCE_SEQ_CONTINUE_WINDOW && off <= ROCE_SEQ_CONTINUE_WINDOW;
}

/* ---- verdicts ------------------------------------------------------------------------ */

enum roce_seq_scheme roce_seq_scheme(const struct roce_seq_dir *d)
{
	const struct roce_seq_anom *x = d->x;

	if (!x)
		return ROCE_SEQ_SCHEME_NONE;
	if (x->go_back_n && x->selective)
		return ROCE_SEQ_SCHEME_MIXED;
	if (x->go_back_n || x->episodes[ROCE_SEQ_TRIG_NAK] || x->episodes[ROCE_SEQ_TRIG_IMPLIED])
		return x->selective ? ROCE_SEQ_SCHEME_MIXED : ROCE_SEQ_SCHEME_GO_BACK_N;
	if (x->selective)
		return ROCE_SEQ_SCHEME_SELECTIVE;
	if (x->episodes[ROCE_SEQ_TRIG_TIMEOUT])
		return ROCE_SEQ_SCHEME_TIMEOUT_ONLY;
	if (x->episodes[ROCE_SEQ_TRIG_OTHER])
		return ROCE_SEQ_SCHEME_DUPLICATES;
	return ROCE_SEQ_SCHEME_NONE;
}

const char *roce_seq_scheme_name(enum roce_seq_scheme s)
{
	static const char *const n[] = { "none", "go-back-N", "selective-repeat", "timeout-only",
					 "mixed", "duplicates-only" };
	return (unsigned)s < sizeof n / sizeof n[0] ? n[s] : "?";
}

enum roce_seq_scheme roce_seq_scheme_join(enum roce_seq_scheme a, enum roce_seq_scheme b)
{
	/* most informative first */
	static const enum roce_seq_scheme rank[] = {
		ROCE_SEQ_SCHEME_MIXED, ROCE_SEQ_SCHEME_GO_BACK_N, ROCE_SEQ_SCHEME_SELECTIVE,
		ROCE_SEQ_SCHEME_TIMEOUT_ONLY, ROCE_SEQ_SCHEME_DUPLICATES, ROCE_SEQ_SCHEME_NONE,
	};

	if ((a == ROCE_SEQ_SCHEME_GO_BACK_N && b == ROCE_SEQ_SCHEME_SELECTIVE) ||
	    (b == ROCE_SEQ_SCHEME_GO_BACK_N && a == ROCE_SEQ_SCHEME_SELECTIVE))
		return ROCE_SEQ_SCHEME_MIXED;
	for (unsigned i = 0; i < sizeof rank / sizeof rank[0]; i++)
		if (a == rank[i] || b == rank[i])
			return rank[i];
	return ROCE_SEQ_SCHEME_NONE;
}

const char *roce_seq_ulp_name(uint64_t sid)
{
	static const struct { uint16_t port; const char *name; } tab[] = {
		{ 4420, "NVMe-oF" }, { 445, "SMB Direct" }, { 5445, "SMB Direct" },
		{ 20049, "NFS/RDMA" }, { 3260, "iSER" }, { 7174, "rping" }, { 7471, "ucmatose" },
		{ 18515, "perftest" }, { 6789, "Ceph" }, { 3300, "Ceph" },
	};
	uint64_t ps = sid >> 16;

	/* rdma_cm: 0x0000000001PP0000 | port, PP = RDMA_PS_TCP/UDP/IB/IPOIB */
	if ((ps >> 8) != 0x1 || (sid >> 32))
		return NULL;
	for (unsigned i = 0; i < sizeof tab / sizeof tab[0]; i++)
		if (tab[i].port == (uint16_t)sid)
			return tab[i].name;
	return NULL;
}
