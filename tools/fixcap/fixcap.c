/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fixcap — the fixture writers' capture and .expect files (fixcap.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "roce.h"
#include "fixcap.h"

#ifndef DLT_ERF
#define DLT_ERF 197
#endif

const char *fixcap_prog = "fixcap";

void fixcap_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "%s: ", fixcap_prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

void fixcap_open(struct fixcap *c, const char *dir, const char *name, int erf)
{
	char path[4096];

	snprintf(path, sizeof path, "%s/%s.pcap", dir, name);
	c->dead = pcap_open_dead_with_tstamp_precision(erf ? DLT_ERF : DLT_EN10MB, 65535,
						       PCAP_TSTAMP_PRECISION_NANO);
	c->d = pcap_dump_open(c->dead, path);
	if (!c->d)
		fixcap_die("%s: %s", path, pcap_geterr(c->dead));
	c->t = 0;
	c->name = name;
	c->erf = erf;
	c->lctr = 0;
}

void fixcap_close(struct fixcap *c)
{
	pcap_dump_close(c->d);
	pcap_close(c->dead);
}

void fixcap_emit(struct fixcap *c, const uint8_t *f, int len)
{
	struct pcap_pkthdr h;
	uint64_t ns = c->t;
	uint8_t rec[9216 + 18];

	if (len < 0)
		fixcap_die("%s: builder error %s", c->name, roce_strerror(len));
	memset(&h, 0, sizeof h);
	h.ts.tv_sec = 1700000000 + (time_t)(ns / 1000000000u);
	h.ts.tv_usec = (suseconds_t)(ns % 1000000000u);   /* nanoseconds in a NANO dumper */
	if (c->erf) {
		/* ERF type 2 (Ethernet): 16-byte header, 2 bytes of pad, the frame */
		uint64_t sec = 1700000000ull + ns / 1000000000u;
		uint64_t ts = sec << 32 | (((ns % 1000000000u) << 32) / 1000000000u);
		uint32_t rlen = 18 + (uint32_t)len;

		if ((size_t)len > sizeof rec - 18)
			fixcap_die("%s: a %d-byte frame is too long for an ERF record here", c->name, len);
		for (int i = 0; i < 8; i++)
			rec[i] = (uint8_t)(ts >> (8 * i));
		rec[8] = 2;
		rec[9] = 0x04;
		rec[10] = (uint8_t)(rlen >> 8);
		rec[11] = (uint8_t)rlen;
		rec[12] = (uint8_t)(c->lctr >> 8);
		rec[13] = (uint8_t)c->lctr;
		rec[14] = (uint8_t)((uint32_t)len >> 8);
		rec[15] = (uint8_t)len;
		rec[16] = rec[17] = 0;
		memcpy(rec + 18, f, (size_t)len);
		c->lctr = 0;
		h.caplen = h.len = rlen;
		pcap_dump((u_char *)c->d, &h, rec);
		return;
	}
	h.caplen = h.len = (uint32_t)len;
	pcap_dump((u_char *)c->d, &h, f);
}

void fixcap_spec(struct roce_frame_spec *s, const struct fixcap_ep *from, const struct fixcap_ep *to)
{
	memset(s, 0, sizeof *s);
	s->version = ROCE_VER_V2;
	memcpy(s->eth.src, from->mac, 6);
	memcpy(s->eth.dst, to->mac, 6);
	s->ip.version = 4;
	memcpy(s->ip.src, from->ip, 4);
	memcpy(s->ip.dst, to->ip, 4);
	s->ip.dont_fragment = 1;
	s->sport = 0xc123;
	s->bth.pad = -1;
}

int fixcap_frame(uint8_t *f, size_t cap, const struct fixcap_ep *from, const struct fixcap_ep *to, uint8_t opcode,
		 uint32_t psn, uint8_t ecn, uint32_t payload_len)
{
	static const uint8_t zeros[4096];
	struct roce_frame_spec s;

	fixcap_spec(&s, from, to);
	if (opcode == ROCE_OPCODE_CNP) {
		roce_spec_cnp(&s, to->qpn);
		return roce_build(f, cap, &s);
	}
	s.bth.opcode = opcode;
	s.bth.dqpn = to->qpn;
	s.bth.psn = psn;
	s.ip.ecn = ecn;
	s.payload = zeros;
	s.payload_len = payload_len < sizeof zeros ? payload_len : sizeof zeros;
	s.ext.dmalen = s.payload_len;
	return roce_build(f, cap, &s);
}

void fixcap_cm_mad(struct fixcap *c, const struct fixcap_ep *from, const struct fixcap_ep *to,
		   const struct roce_cm *cm)
{
	struct roce_frame_spec s;
	uint8_t mad[ROCE_MAD_LEN], f[512];
	struct fixcap_ep qp1_to = *to;
	int n = roce_build_cm(mad, sizeof mad, cm, NULL, 0);

	if (n < 0)
		fixcap_die("cm: %s", roce_strerror(n));
	qp1_to.qpn = 1;
	fixcap_spec(&s, from, &qp1_to);
	s.bth.opcode = ROCE_TR_UD | ROCE_OP_SEND_ONLY;
	s.bth.dqpn = 1;
	s.ext.qkey = ROCE_CM_QKEY;
	s.ext.src_qp = 1;
	s.payload = mad;
	s.payload_len = (uint32_t)n;
	fixcap_emit(c, f, roce_build(f, sizeof f, &s));
}

int fixcap_expect(const char *dir, const char *name, const char *what, const char *const *lines)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s.expect", dir, name);
	f = fopen(path, "w");
	if (!f)
		fixcap_die("%s: %s", path, strerror(errno));
	fprintf(f, "# %s: %s, from how tools/%s.c\n"
		"# built %s.pcap (see the comment above its scenario there).\n", name, what, fixcap_prog, name);
	for (; *lines; lines++)
		fprintf(f, "%s\n", *lines);
	return fclose(f) ? -1 : 0;
}
