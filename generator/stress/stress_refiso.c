/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stress_refiso.c — the reference adapter's iso-shared and iso-fair modes
 * (stress.h), for `rocegen isolation`: request processing that costs time.
 *
 * Each request packet costs REF_ISO_PKT_NS plus its bytes at REF_ISO_BPNS,
 * a QP context missing from the REF_ISO_QPC-context LRU costs REF_QPC_MISS_NS
 * more, and each RNR NAK the adapter sends holds the stage REF_ISO_RNR_NS.
 * An answer leaves when the stage that processed its request is done.
 *   iso-shared  one stage (r->busy) and one context cache for every QP: the
 *               attackers' packets, bytes, misses and RNR stalls delay the
 *               victim's answers (the isolation Husky found broken)
 *   iso-fair    the victim (QP 0) has a stage of its own (q->busy) and is
 *               outside the shared context cache (a partition of its own);
 *               the attackers share the other stage and cache, so their load
 *               delays only themselves (a NIC that reserves the victim's share)
 */
#include <string.h>
#include "stress.h"
#include "stress_ref_int.h"

int refiso_mode(const struct st_ref *r)
{
	return r->mode == ST_REF_ISO_SHARED || r->mode == ST_REF_ISO_FAIR;
}

/* the victim's own stage in iso-fair */
static int own_stage(const struct st_ref *r, const struct ref_qp *q)
{
	return r->mode == ST_REF_ISO_FAIR && q->qpn == REF_QPN0;
}

static uint64_t *stage(struct st_ref *r, struct ref_qp *q)
{
	return own_stage(r, q) ? &q->busy : &r->busy;
}

static void hold(struct st_ref *r, struct ref_qp *q, uint64_t ns)
{
	uint64_t *b = stage(r, q);

	*b = (*b > r->now ? *b : r->now) + ns;
}

void refiso_in(struct st_ref *r, struct ref_qp *q, uint32_t len)
{
	uint64_t ns = REF_ISO_PKT_NS + (uint64_t)((double)len / REF_ISO_BPNS);

	if (!own_stage(r, q) && ref_qpc_use(r, (int)(q->qpn - REF_QPN0)))
		ns += REF_QPC_MISS_NS;
	hold(r, q, ns);
}

uint64_t refiso_ready(const struct st_ref *r, const struct ref_qp *q)
{
	uint64_t t = own_stage(r, q) ? q->busy : r->busy;

	return t > r->now ? t : r->now;
}

void refiso_out(struct st_ref *r, struct ref_qp *q, const uint8_t *f, uint32_t len)
{
	struct roce_pkt p;

	roce_decode(&p, NULL, ROCE_LINK_ETHERNET, f, len, len);
	if (p.opcode == ROCE_OP_ACK && p.aeth_off && ROCE_AETH_TYPE(roce_aeth_syndrome(&p)) == ROCE_AETH_RNR_NAK)
		hold(r, q, REF_ISO_RNR_NS);
}

void refiso_connect(struct st_ref *r, struct ref_qp *q)
{
	if (q->qpn != REF_QPN0 && r->iso_rule.ppm)
		roce_qp_set_faults(q->qp, &r->iso_faults);
}

void refiso_init(struct st_ref *r)
{
	r->qpc_cap = REF_ISO_QPC;
	memset(&r->iso_rule, 0, sizeof(r->iso_rule));
	r->iso_rule.kind = ROCE_QPF_RNR;
	r->iso_rule.match = ROCE_QPF_REQ;
	r->iso_rule.opcode = -1;
	r->iso_faults.seed = 7;
	r->iso_faults.rules = &r->iso_rule;
	r->iso_faults.n_rules = 1;
}

void st_ref_set_iso_rnr(struct st_ref *r, uint32_t rnr_ppm)
{
	r->iso_rule.ppm = rnr_ppm;
}
