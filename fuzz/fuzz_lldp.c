/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer harness for the DCB decoders, mostly LLDP.  Input: one control
 * byte, then everything after the ethertype.  Control bits 0-1 pick the
 * ethertype (0, 1: LLDP 0x88CC; 2: MAC control 0x8808; 3: 802.1Qau 0x22E9),
 * bits 2-7 how much of the frame counts as captured (63: all of it).  The
 * frame gets a fixed 14-byte Ethernet header and is copied into a buffer of
 * exactly its captured size, so any over-read faults.
 *
 * Then every reader runs: roce_decode, the summary, the field walker, the
 * LLDP iterator (which must end: a bound on the number of steps is checked)
 * with each DCBX decoder, the PFC/CNM accessors; DCBX values that decode
 * are rebuilt with roce_build_lldp_dcbx and must decode back unchanged.
 * Seeds: fuzz/seeds/lldp_*.
 */
#include <stdlib.h>
#include <string.h>
#include "roce.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void touch(void *ctx, const struct roce_field *f)
{
	unsigned *sum = ctx;

	*sum += (unsigned)f->u;
	if (f->s)
		*sum += (unsigned)strlen(f->s);
	for (uint32_t i = 0; f->b && i < f->len; i++)
		*sum += f->b[i];
}

/* Finds the first TLV of (oui, subtype) in a decoded packet. */
static int find(const struct roce_pkt *p, uint32_t oui, uint8_t subtype, struct roce_lldp_tlv *t)
{
	struct roce_lldp_iter it = { 0 };

	while (roce_lldp_next(p, &it, t) == 1)
		if (t->has_oui && t->oui == oui && t->subtype == subtype)
			return 1;
	return 0;
}

static uint8_t frame2[2048];

/* Rebuilds what decoded and checks it decodes to the same values. */
static void round_trip(const struct roce_lldp_dcbx_spec *s, const struct roce_dcbx_app *app,
		       const struct roce_cee *cee)
{
	static struct roce_dcbx_app a2;
	static struct roce_cee c2;
	struct roce_pkt q;
	struct roce_lldp_tlv t;
	struct roce_dcbx_ets e;
	struct roce_dcbx_pfc f;
	struct roce_dcbx_cn c;
	int n = roce_build_lldp_dcbx(frame2, sizeof frame2, NULL, s, 0);

	if (n < 0)
		abort();
	if (roce_decode(&q, NULL, ROCE_LINK_ETHERNET, frame2, (uint32_t)n, (uint32_t)n) != ROCE_OK)
		abort();
	if (s->has_ets && (!find(&q, ROCE_OUI_IEEE_8021, ROCE_DCBX_ETS_CFG, &t) ||
			   roce_dcbx_ets(&t, &e) != ROCE_OK || memcmp(&e, &s->ets, sizeof e)))
		abort();
	if (s->has_pfc && (!find(&q, ROCE_OUI_IEEE_8021, ROCE_DCBX_PFC, &t) ||
			   roce_dcbx_pfc(&t, &f) != ROCE_OK || memcmp(&f, &s->pfc, sizeof f)))
		abort();
	if (s->has_cn && (!find(&q, ROCE_OUI_IEEE_8021, ROCE_DCBX_CN, &t) ||
			  roce_dcbx_cn(&t, &c) != ROCE_OK || memcmp(&c, &s->cn, sizeof c)))
		abort();
	if (s->has_app) {
		if (!find(&q, ROCE_OUI_IEEE_8021, ROCE_DCBX_APP, &t) ||
		    roce_dcbx_app(&t, &a2) != ROCE_OK || a2.n != app->n)
			abort();
		for (unsigned i = 0; i < app->n; i++)
			if (a2.e[i].prio != app->e[i].prio || a2.e[i].sel != app->e[i].sel ||
			    a2.e[i].reserved != app->e[i].reserved || a2.e[i].proto != app->e[i].proto)
				abort();
	}
	if (cee) {
		if (!find(&q, ROCE_OUI_CEE, 2, &t) || roce_dcbx_cee(&t, &c2) != ROCE_OK)
			abort();
		if (memcmp(&c2.pg, &cee->pg, sizeof c2.pg) || memcmp(&c2.pfc, &cee->pfc, sizeof c2.pfc) ||
		    memcmp(&c2.app, &cee->app, sizeof c2.app) || c2.n_app != cee->n_app ||
		    c2.pfc_enable != cee->pfc_enable || memcmp(c2.pgid, cee->pgid, 8) ||
		    memcmp(c2.pg_pct, cee->pg_pct, 8) || c2.seq != cee->seq || c2.ack != cee->ack)
			abort();
		for (unsigned i = 0; i < cee->n_app; i++)
			if (c2.app_e[i].proto != cee->app_e[i].proto || c2.app_e[i].sel != cee->app_e[i].sel ||
			    c2.app_e[i].oui != cee->app_e[i].oui ||
			    c2.app_e[i].prio_map != cee->app_e[i].prio_map)
				abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint16_t types[4] = { ROCE_ETH_LLDP, ROCE_ETH_LLDP, ROCE_ETH_MACCTL, ROCE_ETH_CNM };
	static struct roce_dcbx_app app;
	static struct roce_cee cee;
	struct roce_lldp_dcbx_spec spec;
	struct roce_lldp_iter it = { 0 };
	struct roce_lldp_tlv t;
	struct roce_pkt p;
	struct roce_pfc pf;
	struct roce_cnm cn;
	char line[512];
	unsigned sum = 0, steps = 0, fraction;
	uint32_t wirelen, caplen;
	uint8_t *buf;
	int rc, have_cee = 0;

	if (size < 1 || size > 4096)
		return 0;
	wirelen = (uint32_t)(14 + size - 1);
	fraction = data[0] >> 2;
	caplen = fraction == 63 ? wirelen : wirelen * fraction / 63;
	buf = malloc(caplen ? caplen : 1);
	if (!buf)
		return 0;
	{
		uint8_t full[14 + 4096];

		memcpy(full, "\x01\x80\xc2\x00\x00\x0e\x02\x00\x00\x00\x00\x01", 12);
		full[12] = (uint8_t)(types[data[0] & 3] >> 8);
		full[13] = (uint8_t)types[data[0] & 3];
		memcpy(full + 14, data + 1, size - 1);
		memcpy(buf, full, caplen);
	}

	roce_decode(&p, NULL, ROCE_LINK_ETHERNET, buf, caplen, wirelen);
	roce_summary(&p, line, sizeof line);
	roce_summary(&p, line, 7);
	roce_foreach_field(&p, touch, &sum);
	(void)roce_pfc_get(&p, &pf);
	(void)roce_cnm_get(&p, &cn);

	memset(&spec, 0, sizeof spec);
	spec.ttl = 120;
	while ((rc = roce_lldp_next(&p, &it, &t)) == 1) {
		struct roce_dcbx_ets e;
		struct roce_dcbx_pfc f;
		struct roce_dcbx_cn c;

		/* every step moves forward by at least two bytes */
		if (++steps > wirelen / 2 + 1)
			abort();
		if (t.caplen > t.len || (t.caplen && t.off + t.caplen > caplen))
			abort();
		if (roce_dcbx_ets(&t, &e) == ROCE_OK && t.subtype == ROCE_DCBX_ETS_CFG && !spec.has_ets) {
			spec.has_ets = 1;
			spec.ets = e;
		}
		if (roce_dcbx_pfc(&t, &f) == ROCE_OK && !spec.has_pfc) {
			spec.has_pfc = 1;
			spec.pfc = f;
		}
		if (roce_dcbx_cn(&t, &c) == ROCE_OK && !spec.has_cn) {
			spec.has_cn = 1;
			spec.cn = c;
		}
		if (!spec.has_app && roce_dcbx_app(&t, &app) == ROCE_OK) {
			spec.has_app = 1;
			spec.app = app.e;
			spec.n_app = app.n;
		}
		if (!have_cee && roce_dcbx_cee(&t, &cee) == ROCE_OK)
			have_cee = 1;
	}
	if (roce_lldp_next(&p, &it, &t) != rc)
		abort();
	/* the rebuilt CEE TLV must fit its 9-bit length */
	if (have_cee && 4 + 12 + (cee.pg.present ? 19 : 0) + (cee.pfc.present ? 8 : 0) +
			(cee.app.present ? 6 + 6 * cee.n_app : 0) > 511)
		have_cee = 0;
	if (have_cee) {
		/* the builder writes minimal sub-TLVs and always the control one */
		cee.has_control = 1;
		cee.oper_version = cee.max_version = 0;
		spec.cee = &cee;
	}
	if (spec.has_ets || spec.has_pfc || spec.has_cn || spec.has_app || have_cee)
		round_trip(&spec, &app, have_cee ? &cee : NULL);
	free(buf);
	return (int)(sum & 0);
}
