/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * summary.c — one tcpdump-like line per frame:
 *
 *   v2 10.99.0.2.49152 > 10.99.0.1.4791: RC SEND_ONLY qp 0x000011 psn 1234 A len 64 icrc good
 *
 * The caller prefixes the timestamp.  Flags and marks follow the opcode's own
 * values: ECN, FECN/BECN, truncation and invalidity are always shown.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include "internal.h"

/* An address from the frame, only when all its bytes were captured: a layer
 * the decoder saw can still be invalid or truncated ("present" says it was
 * looked at, not that its bytes are there). */
static void addr(const struct roce_pkt *p, uint32_t off, int v6, char *out, size_t cap)
{
	if (roce__avail(p, off) < (v6 ? 16u : 4u) ||
	    !inet_ntop(v6 ? AF_INET6 : AF_INET, p->data + off, out, (socklen_t)cap))
		snprintf(out, cap, "?");
}

/* The IPv4 header checksum verified over the whole captured header (as the
 * JSON's roce.ip.checksum.status). */
static int bad_ipv4_csum(const struct roce_pkt *p)
{
	const uint8_t *b = p->data + p->ip_off;
	uint32_t have = roce__avail(p, p->ip_off), hl;

	if (have < 20)
		return 0;
	hl = (b[0] & 15) * 4u;
	return hl >= 20 && have >= hl && roce_inet_csum(b, hl, 0) != 0;
}

static const char *const ecn_names[4] = { "", " ECT(1)", " ECT(0)", " CE" };

static void ib_part(const struct roce_pkt *p, char *buf, size_t cap, size_t *n)
{
	const struct roce_opinfo *oi;
	uint32_t computed;

	if (!p->bth_off || (p->truncated & ROCE_LBIT(ROCE_L_BTH))) {
		roce__sappend(buf, cap, n, " BTH");
		return;
	}
	oi = roce_opcode_info(p->opcode);
	roce__sappend(buf, cap, n, " %s qp 0x%06x psn %u", roce_opcode_name(p->opcode), p->dqpn,
		      p->psn);
	if (p->ackreq)
		roce__sappend(buf, cap, n, " A");
	if (p->se)
		roce__sappend(buf, cap, n, " SE");
	if (p->fecn)
		roce__sappend(buf, cap, n, " FECN");
	if (p->becn)
		roce__sappend(buf, cap, n, " BECN");
	if (p->pkey != 0xffff)
		roce__sappend(buf, cap, n, " pkey 0x%04x", p->pkey);
	if (p->deth_off)
		roce__sappend(buf, cap, n, " qkey 0x%08x srcqp 0x%06x", roce_deth_qkey(p),
			      roce_deth_srcqp(p));
	if (p->rdeth_off)
		roce__sappend(buf, cap, n, " ee 0x%06x", roce_rdeth_eecnxt(p));
	if (p->xrceth_off)
		roce__sappend(buf, cap, n, " srq 0x%06x", roce_xrceth_srq(p));
	if (p->feth_off)
		roce__sappend(buf, cap, n, " feth 0x%08x", roce_feth_word(p));
	if (p->reth_off)
		roce__sappend(buf, cap, n, " va 0x%llx rkey 0x%08x dlen %u",
			      (unsigned long long)roce_reth_va(p), roce_reth_rkey(p), roce_reth_dmalen(p));
	if (p->atomiceth_off) {
		roce__sappend(buf, cap, n, " va 0x%llx rkey 0x%08x", (unsigned long long)roce_atomiceth_va(p),
			      roce_atomiceth_rkey(p));
		if ((p->opcode & 0x1f) == ROCE_OP_CMP_SWAP)
			roce__sappend(buf, cap, n, " cmp 0x%llx swap 0x%llx",
				      (unsigned long long)roce_atomiceth_cmp(p),
				      (unsigned long long)roce_atomiceth_swap(p));
		else
			roce__sappend(buf, cap, n, " add 0x%llx", (unsigned long long)roce_atomiceth_swap(p));
	}
	if (p->aeth_off) {
		uint8_t syn = roce_aeth_syndrome(p), v = ROCE_AETH_VALUE(syn);

		switch (ROCE_AETH_TYPE(syn)) {
		case ROCE_AETH_ACK:
			roce__sappend(buf, cap, n, " ACK credits %u", v);
			break;
		case ROCE_AETH_RNR_NAK:
			roce__sappend(buf, cap, n, " RNR-NAK timer %u (%u.%02u ms)", v,
				      roce_rnr_timer_us(v) / 1000, roce_rnr_timer_us(v) % 1000 / 10);
			break;
		case ROCE_AETH_NAK:
			roce__sappend(buf, cap, n, " NAK %s", roce_nak_name(v));
			break;
		default:
			roce__sappend(buf, cap, n, " AETH reserved 0x%02x", syn);
		}
		roce__sappend(buf, cap, n, " msn %u", roce_aeth_msn(p));
	}
	if (p->atomicacketh_off)
		roce__sappend(buf, cap, n, " orig 0x%llx", (unsigned long long)roce_atomicacketh_orig(p));
	if (p->immdt_off)
		roce__sappend(buf, cap, n, " imm 0x%08x", roce_immdt(p));
	if (p->ieth_off)
		roce__sappend(buf, cap, n, " inv-rkey 0x%08x", roce_ieth_rkey(p));
	if (oi && (oi->hdrs & ROCE_H_PAYLOAD) && p->payload_off)
		roce__sappend(buf, cap, n, " len %u", p->payload_len);
	if (p->padcnt)
		roce__sappend(buf, cap, n, " pad %u", p->padcnt);
	if (p->mad_off)
		roce__summary_mad(p, buf, cap, n);
	else if (p->mgmt_off)
		roce__summary_mgmt(p, buf, cap, n);
	else if (p->ipoib_off)
		roce__summary_ipoib(p, buf, cap, n);
	roce__sappend(buf, cap, n, " icrc %s", roce_icrc_status_name(roce_icrc_verify(p, &computed)));
}

size_t roce_summary(const struct roce_pkt *p, char *buf, size_t cap)
{
	return roce_summary_flags(p, 0, buf, cap);
}

/* Native InfiniBand: the LRH's LIDs, SL and VL, the transport, the VCRC. */
static void lrh_part(const struct roce_pkt *p, char *buf, size_t cap, size_t *n)
{
	if (p->ib_link)
		roce__sappend(buf, cap, n, "IB link packet");
	else
		roce__sappend(buf, cap, n, "ib lid %u > lid %u sl %u vl %u%s:", p->slid, p->dlid, p->sl, p->vl,
			      p->grh_off ? " GRH" : p->lnh < 2 ? " raw" : "");
	if (p->version == ROCE_VER_IB)
		ib_part(p, buf, cap, n);
	if (p->vcrc_off && roce_vcrc_verify(p, NULL) != ROCE_ICRC_UNCHECKED)
		roce__sappend(buf, cap, n, " vcrc %s", roce_icrc_status_name(roce_vcrc_verify(p, NULL)));
}

/* RoCEv1: the GRH's GIDs, then the transport. */
static void v1_part(const struct roce_pkt *p, char *buf, size_t cap, size_t *n)
{
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];

	if (p->grh_off && roce__avail(p, p->grh_off) >= ROCE_GRH_LEN) {
		addr(p, p->grh_off + 8, 1, a, sizeof a);
		addr(p, p->grh_off + 24, 1, b, sizeof b);
		roce__sappend(buf, cap, n, "v1 %s > %s:", a, b);
	} else {
		roce__sappend(buf, cap, n, "v1 GRH:");
	}
	if (p->dscp || p->ecn)
		roce__sappend(buf, cap, n, " dscp %u%s", p->dscp, ecn_names[p->ecn]);
	ib_part(p, buf, cap, n);
}

/* IPv4 or IPv6 (whole header captured): addresses and ports, DSCP/ECN, then RoCE, TCP or UDP. */
static void ip_part(const struct roce_pkt *p, unsigned flags, char *buf, size_t cap, size_t *n)
{
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];
	int v6 = p->ip_version == 6;
	const char *ver = p->version != ROCE_VER_NONE ? roce_version_name(p->version) : "IP";

	addr(p, p->ip_off + (v6 ? 8 : 12), v6, a, sizeof a);
	addr(p, p->ip_off + (v6 ? 24 : 16), v6, b, sizeof b);
	if (p->l4_off && roce__avail(p, p->l4_off) >= 4 && (p->ip_proto == 17 || p->ip_proto == 6))
		roce__sappend(buf, cap, n, "%s %s.%u > %s.%u:", ver, a, p->sport, b, p->dport);
	else
		roce__sappend(buf, cap, n, "%s %s > %s: proto %u", ver, a, b, p->ip_proto);
	if (p->dscp || p->ecn)
		roce__sappend(buf, cap, n, " dscp %u%s", p->dscp, ecn_names[p->ecn]);
	if (p->ip_frag)
		roce__sappend(buf, cap, n, " frag");
	if (p->version != ROCE_VER_NONE)
		ib_part(p, buf, cap, n);
	else if (p->ip_proto == 6 && (p->present & ROCE_LBIT(ROCE_L_TCP)))
		roce__summary_tcp(p, flags, buf, cap, n);
	else if (p->ip_proto == 17 && (p->present & ROCE_LBIT(ROCE_L_UDP)) && p->udp_len >= 8)
		roce__sappend(buf, cap, n, " UDP len %u", p->udp_len - 8u);
}

/* What is wrong with the frame: the IPv4 checksum, the first truncated layer, the invalid one. */
static void verdict_part(const struct roce_pkt *p, char *buf, size_t cap, size_t *n)
{
	if (p->ip_version == 4 && p->ip_off && bad_ipv4_csum(p))
		roce__sappend(buf, cap, n, " [bad IPv4 header checksum]");
	if (p->truncated)
		for (int l = 0; l < ROCE_L__COUNT; l++)
			if (p->truncated & ROCE_LBIT(l)) {
				roce__sappend(buf, cap, n, " [truncated %s]", roce_layer_name((enum roce_layer)l));
				break;
			}
	if (p->invalid)
		roce__sappend(buf, cap, n, " [invalid %s: %s]", roce_layer_name(p->why_layer),
			      p->why ? p->why : "?");
}

size_t roce_summary_flags(const struct roce_pkt *p, unsigned flags, char *buf, size_t cap)
{
	size_t n = 0;

	if (!cap)
		return 0;
	buf[0] = 0;
	if (p->encap.kind && p->encap.inner_off)
		roce__summary_encap(p, buf, cap, &n);
	for (unsigned i = 0; i < p->n_vlan; i++)
		roce__sappend(buf, cap, &n, "vlan %u p%u ", p->vlan[i].vid, p->vlan[i].pcp);

	if (p->present & ROCE_LBIT(ROCE_L_LRH)) {
		lrh_part(p, buf, cap, &n);
	} else if (p->version == ROCE_VER_V1) {
		v1_part(p, buf, cap, &n);
	} else if (p->ip_version && roce__avail(p, p->ip_off) >= (p->ip_version == 4 ? 20u : 40u)) {
		ip_part(p, flags, buf, cap, &n);
	} else if (p->ip_version) {
		roce__sappend(buf, cap, &n, "IPv%u", p->ip_version);
	} else if (p->macctrl_off || p->cnm_off || p->lldp_off) {
		size_t n0 = n;

		roce__summary_l2(p, buf, cap, &n);
		if (n > n0 && buf[n0] == ' ') {     /* the hooks append " PFC …" */
			memmove(buf + n0, buf + n0 + 1, n - n0);
			n--;
		}
	} else if (p->present & ROCE_LBIT(ROCE_L_LINK)) {
		roce__sappend(buf, cap, &n, "ethertype 0x%04x len %u", p->ethertype, p->wirelen);
	} else {
		roce__sappend(buf, cap, &n, "link");
	}
	if (p->fcs_off)
		roce__sappend(buf, cap, &n, " fcs good");
	verdict_part(p, buf, cap, &n);
	return n;
}
