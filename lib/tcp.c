/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tcp.c — the TCP header (RFC 9293 3.1) and, on iWARP connections, the
 * MPA/DDP/RDMAP layers above it (issue 3).
 *
 *  0                   1                   2                   3
 *  |          Source Port          |       Destination Port        |
 *  |                        Sequence Number                        |
 *  |                    Acknowledgment Number                      |
 *  |  Data |       |C|E|U|A|P|R|S|F|                               |
 *  | Offset| Rsrvd |W|C|R|C|S|S|Y|I|            Window             |
 *  |           Checksum            |         Urgent Pointer        |
 */
#include "internal.h"

void roce__decode_tcp(struct roce_pkt *p, const struct roce_cfg *cfg, uint32_t off, uint32_t end)
{
	const uint8_t *b = p->data + off;
	uint32_t hlen;

	(void)cfg;
	p->l4_off = off;
	if (roce__avail(p, off) < 20 || end - off < 20) {
		if (end - off < 20 && roce__avail(p, off) >= end - off)
			roce__invalid(p, ROCE_L_TCP, "TCP header longer than the IP payload");
		else
			roce__trunc(p, ROCE_L_TCP);
		if (roce__avail(p, off) >= 4) {
			p->sport = rd16(b);
			p->dport = rd16(b + 2);
		}
		return;
	}
	roce__seen(p, ROCE_L_TCP);
	p->sport = rd16(b);
	p->dport = rd16(b + 2);
	p->tcp_seq = rd32(b + 4);
	p->tcp_ack = rd32(b + 8);
	p->tcp_flags = b[13];
	hlen = (uint32_t)(b[12] >> 4) * 4;
	if (hlen < 20 || hlen > end - off) {
		roce__invalid(p, ROCE_L_TCP, "bad TCP data offset");
		return;
	}
	p->tcp_payload_off = off + hlen;
	p->tcp_payload_len = end - off - hlen;
	if (roce__avail(p, off) < hlen)
		roce__trunc(p, ROCE_L_TCP);
}

void roce__fields_tcp(const struct roce_pkt *p, roce_field_cb cb, void *ctx)
{
	if (!(p->present & ROCE_LBIT(ROCE_L_TCP)) || roce__avail(p, p->l4_off) < 4)
		return;
	EMIT_U("tcp.srcport", p->sport);
	EMIT_U("tcp.dstport", p->dport);
	if (roce__avail(p, p->l4_off) < 20)
		return;
	EMIT_U("tcp.seq_raw", p->tcp_seq);
	EMIT_U("tcp.ack_raw", p->tcp_ack);
	EMIT_U("tcp.flags", p->tcp_flags);
	EMIT_U("tcp.len", p->tcp_payload_len);
}

void roce__summary_tcp(const struct roce_pkt *p, char *buf, size_t cap, size_t *n)
{
	static const char fl[] = "FSRPAUEC";
	char f[9];
	int k = 0;

	if (roce__avail(p, p->l4_off) < 20) {
		roce__sappend(buf, cap, n, " TCP");
		return;
	}
	for (int i = 0; i < 8; i++)
		if (p->tcp_flags & (1u << i))
			f[k++] = fl[i];
	f[k] = 0;
	roce__sappend(buf, cap, n, " TCP [%s] seq %u ack %u len %u", f, p->tcp_seq, p->tcp_ack,
		      p->tcp_payload_len);
}
