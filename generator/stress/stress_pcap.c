/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stress_pcap.c — evidence of `rocegen stress --pcap-dir DIR`: every frame
 * of the run goes to DIR/.stress-all.pcap while it runs; at the end the
 * frames of each failing QP are copied to DIR/qpN.pcap and the full capture
 * is removed.  Passing QPs leave nothing behind.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "stress.h"
#include "stress_int.h"

int st_pcap_open(struct st_run *s)
{
	if (!s->pcap_dir)
		return 0;
	snprintf(s->all_pcap, sizeof(s->all_pcap), "%s/.stress-all.pcap", s->pcap_dir);
	s->pd = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 65535, PCAP_TSTAMP_PRECISION_NANO);
	if (!s->pd || !(s->dump = pcap_dump_open(s->pd, s->all_pcap))) {
		snprintf(s->res->first_error, sizeof(s->res->first_error), "cannot write %.150s: %.80s",
			 s->all_pcap, s->pd ? pcap_geterr(s->pd) : "pcap");
		if (s->pd)
			pcap_close(s->pd);
		s->pd = NULL;
		return -1;
	}
	return 0;
}

void st_pcap(struct st_run *s, const uint8_t *f, uint32_t len, uint64_t ts)
{
	struct pcap_pkthdr h;

	if (!s->dump)
		return;
	h.ts.tv_sec = (time_t)(ts / 1000000000ull);
	h.ts.tv_usec = (suseconds_t)(ts % 1000000000ull);   /* nanoseconds: a nano pcap */
	h.caplen = h.len = len;
	pcap_dump((u_char *)s->dump, &h, f);
}

/* the failing QP a frame belongs to (index into failing_qp), or -1 */
static int owner(const struct st_run *s, const u_char *d, uint32_t len)
{
	struct roce_pkt p;

	roce_decode(&p, NULL, ROCE_LINK_ETHERNET, d, len, len);
	if (!p.bth_off)
		return -1;
	for (unsigned k = 0; k < s->res->n_failing; k++) {
		const struct st_qp *q = &s->qp[s->res->failing_qp[k]];

		if (p.dqpn == q->qpn || p.dqpn == q->dut_qpn)
			return (int)k;
	}
	return -1;
}

void st_pcap_finish(struct st_run *s)
{
	pcap_dumper_t *out[64] = { 0 };
	char err[PCAP_ERRBUF_SIZE], path[600];
	struct pcap_pkthdr *h;
	const u_char *d;
	pcap_t *in;

	if (!s->dump)
		return;
	pcap_dump_close(s->dump);
	s->dump = NULL;
	in = s->res->n_failing ?
	     pcap_open_offline_with_tstamp_precision(s->all_pcap, PCAP_TSTAMP_PRECISION_NANO, err) : NULL;
	for (unsigned k = 0; in && k < s->res->n_failing; k++) {
		snprintf(path, sizeof(path), "%s/qp%u.pcap", s->pcap_dir, s->res->failing_qp[k]);
		out[k] = pcap_dump_open(s->pd, path);
	}
	while (in && pcap_next_ex(in, &h, &d) == 1) {
		int k = owner(s, d, h->caplen);

		if (k >= 0 && out[k])
			pcap_dump((u_char *)out[k], h, d);
	}
	for (unsigned k = 0; k < 64; k++)
		if (out[k])
			pcap_dump_close(out[k]);
	if (in)
		pcap_close(in);
	pcap_close(s->pd);
	s->pd = NULL;
	unlink(s->all_pcap);
}
