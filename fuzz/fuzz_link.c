/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer harness for ERF records (lib/link/erf.c) and native InfiniBand
 * (lib/link/ib.c): byte 0 picks LINKTYPE_ERF or LINKTYPE_INFINIBAND, byte 1
 * how much counts as captured; the frame is copied into a buffer of
 * exactly that size so any over-read faults.  Every reader then runs:
 * summary, field walker, ICRC and VCRC checks, CM decoder.  The builders
 * are exercised too: an IB packet built from fuzz-chosen values must
 * decode with good ICRC and VCRC, inside an ERF record as well.
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

static void build_back(const uint8_t *d, size_t n)
{
	static uint8_t ib[8192], rec[8300];
	struct roce_frame_spec s;
	struct roce_lrh_spec l = { 0 };
	struct roce_pkt p;
	int len, r;

	if (n < 8)
		return;
	memset(&s, 0, sizeof s);
	s.version = ROCE_VER_V1;
	s.ip.version = 6;
	s.bth.opcode = d[0];
	s.bth.dqpn = (uint32_t)d[1] << 8 | d[2];
	s.bth.psn = d[3];
	s.bth.pad = -1;
	s.payload = d + 8;
	s.payload_len = (uint32_t)(n - 8 > 4096 ? 4096 : n - 8);
	l.grh = d[4] & 1;
	l.sl = d[5] & 15;
	l.dlid = d[6];
	l.slid = d[7];
	if (!roce_opcode_info(d[0]))
		return;
	len = roce_build_ib(ib, sizeof ib, &s, &l);
	if (len < 0)
		return;
	roce_decode(&p, NULL, ROCE_LINK_INFINIBAND, ib, (uint32_t)len, (uint32_t)len);
	if (p.version == ROCE_VER_IB && !p.invalid &&
	    (roce_icrc_verify(&p, NULL) != ROCE_ICRC_GOOD || roce_vcrc_verify(&p, NULL) != ROCE_ICRC_GOOD))
		abort();
	r = roce_build_erf(rec, sizeof rec, 21, 0, 0, ib, (uint32_t)len, (uint32_t)len);
	if (r < 0)
		return;
	roce_decode(&p, NULL, ROCE_LINK_ERF, rec, (uint32_t)r, (uint32_t)r);
	if (p.version == ROCE_VER_IB && !p.invalid && roce_vcrc_verify(&p, NULL) != ROCE_ICRC_GOOD)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct roce_pkt p;
	struct roce_cm cm;
	char line[512];
	unsigned sum = 0;
	uint32_t icrc, caplen, wirelen;
	uint16_t vcrc;
	uint8_t *buf;

	if (size < 2 || size > 65535)
		return 0;
	wirelen = (uint32_t)size - 2;
	caplen = data[1] >= 0xf0 ? wirelen : wirelen * data[1] / 0xf0;
	buf = malloc(caplen ? caplen : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 2, caplen);
	roce_decode(&p, NULL, data[0] & 1 ? ROCE_LINK_ERF : ROCE_LINK_INFINIBAND, buf, caplen, wirelen);
	roce_summary(&p, line, sizeof line);
	roce_foreach_field(&p, touch, &sum);
	roce_icrc_verify(&p, &icrc);
	roce_vcrc_verify(&p, &vcrc);
	if (p.mad_off)
		roce_cm_decode(&p, &cm);
	free(buf);
	build_back(data + 2, size - 2);
	return (int)(sum & 0);
}
