/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer harness for roce_decode(): the first byte picks the link type,
 * the second how much of the frame counts as captured (the rest is "on the
 * wire" only); then every reader of a decoded packet runs over it: the
 * summary, the field walker (touching every byte a field points at), the
 * ICRC check and the CM decoder.  Built by `make fuzz`; each input is copied
 * into a buffer of exactly its size so any over-read faults.
 */
#include <stdlib.h>
#include <string.h>
#include "roce.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const int links[] = {
	ROCE_LINK_ETHERNET, ROCE_LINK_RAW, ROCE_LINK_LINUX_SLL, ROCE_LINK_LINUX_SLL2,
	ROCE_LINK_IPV4, ROCE_LINK_IPV6,
};

static void touch(void *ctx, const struct roce_field *f)
{
	unsigned *sum = ctx;

	*sum += (unsigned)f->u;
	if (f->s)
		*sum += (unsigned)strlen(f->s);
	for (uint32_t i = 0; f->b && i < f->len; i++)
		*sum += f->b[i];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct roce_cfg cfg = { 0 };
	struct roce_pkt p;
	struct roce_cm cm;
	char line[512];
	unsigned sum = 0;
	uint32_t icrc, caplen, wirelen;
	uint8_t *buf;

	if (size < 2 || size > 65535)
		return 0;
	wirelen = (uint32_t)size - 2;
	caplen = data[1] >= 0xf0 ? wirelen : wirelen * data[1] / 0xf0;
	buf = malloc(caplen ? caplen : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 2, caplen);
	roce_cfg_add_udp_port(&cfg, 5000);
	roce_cfg_add_iwarp_port(&cfg, 4210);
	roce_decode(&p, &cfg, links[data[0] % (sizeof links / sizeof links[0])], buf, caplen, wirelen);
	roce_summary(&p, line, sizeof line);
	roce_foreach_field(&p, touch, &sum);
	roce_icrc_verify(&p, &icrc);
	if (p.mad_off)
		roce_cm_decode(&p, &cm);
	free(buf);
	return (int)(sum & 0);
}
