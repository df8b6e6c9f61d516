/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer harness for the mirror decapsulation (lib/link/encap.c): the
 * input is placed inside a well-formed outer frame so that the fuzzer
 * spends its time in GRE / ERSPAN / VXLAN and the inner frame.  Byte 0
 * picks the wrapper (GRE over IPv4 or IPv6, VXLAN over IPv4 on 4789 or a
 * configured port), byte 1 how much counts as captured; the rest is the
 * GRE header onwards (or the VXLAN header onwards).  Every reader of the
 * decoded packet then runs: summary, field walker, ICRC check, CM decoder.
 * The builder is exercised as well: the fuzz bytes wrapped by
 * roce_build_encap() must decode back to the same inner length.
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

static uint32_t outer(uint8_t *w, unsigned mode, uint32_t plen)
{
	static const uint8_t eth[14] = { 2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 0x08, 0x00 };
	uint32_t n = 14;

	memcpy(w, eth, 14);
	if (mode == 1) {      /* GRE over IPv6 */
		w[12] = 0x86; w[13] = 0xdd;
		memset(w + n, 0, 40);
		w[n] = 0x60;
		w[n + 4] = (uint8_t)(plen >> 8); w[n + 5] = (uint8_t)plen;
		w[n + 6] = 47; w[n + 7] = 64;
		return n + 40;
	}
	memset(w + n, 0, 20);
	w[n] = 0x45;
	w[n + 2] = (uint8_t)((plen + 20 + (mode >= 2 ? 8 : 0)) >> 8);
	w[n + 3] = (uint8_t)(plen + 20 + (mode >= 2 ? 8 : 0));
	w[n + 8] = 64;
	w[n + 9] = mode >= 2 ? 17 : 47;
	n += 20;
	if (mode >= 2) {      /* UDP to a VXLAN port */
		uint16_t port = mode == 2 ? 4789 : 9999;

		memset(w + n, 0, 8);
		w[n + 2] = (uint8_t)(port >> 8); w[n + 3] = (uint8_t)port;
		w[n + 4] = (uint8_t)((plen + 8) >> 8); w[n + 5] = (uint8_t)(plen + 8);
		n += 8;
	}
	return n;
}

static void build_back(const uint8_t *d, uint32_t n, unsigned sel)
{
	static uint8_t out[70000];
	struct roce_encap_spec s = { 0 };
	struct roce_pkt p;
	int len;

	s.kind = (enum roce_encap_kind)(1 + sel % 5);
	s.ip.version = sel & 8 ? 6 : 4;
	s.gre_key_present = !!(sel & 16);
	s.gre_csum_present = !!(sel & 32);
	s.platform_present = !!(sel & 64);
	s.eth.n_vlan = (sel >> 7) & 1;
	len = roce_build_encap(out, sizeof out, &s, d, n);
	if (len < 0)
		return;
	roce_decode(&p, NULL, ROCE_LINK_ETHERNET, out, (uint32_t)len, (uint32_t)len);
	if (p.encap.kind != s.kind || !p.encap.inner_off || p.encap.outer_caplen - p.encap.inner_off != n)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct roce_cfg cfg = { 0 };
	struct roce_pkt p;
	struct roce_cm cm;
	char line[512];
	unsigned sum = 0, mode;
	uint32_t icrc, caplen, wirelen, hl;
	uint8_t *buf, *frame;

	if (size < 2 || size > 60000)
		return 0;
	mode = data[0] & 3;
	buf = malloc(size + 96);
	if (!buf)
		return 0;
	hl = outer(buf, mode, (uint32_t)size - 2);
	memcpy(buf + hl, data + 2, size - 2);
	wirelen = hl + (uint32_t)size - 2;
	caplen = data[1] >= 0xf0 ? wirelen : wirelen * data[1] / 0xf0;
	/* exactly caplen bytes, so that any read beyond them faults */
	frame = malloc(caplen ? caplen : 1);
	if (!frame) {
		free(buf);
		return 0;
	}
	memcpy(frame, buf, caplen);
	roce_cfg_add_vxlan_port(&cfg, 9999);
	roce_decode(&p, &cfg, ROCE_LINK_ETHERNET, frame, caplen, wirelen);
	roce_summary(&p, line, sizeof line);
	roce_foreach_field(&p, touch, &sum);
	roce_icrc_verify(&p, &icrc);
	if (p.mad_off)
		roce_cm_decode(&p, &cm);
	build_back(data + 2, (uint32_t)size - 2, data[0]);
	free(frame);
	free(buf);
	return (int)(sum & 0);
}
