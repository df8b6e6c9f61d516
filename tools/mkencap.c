/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mkencap — re-encapsulates every frame of an Ethernet capture as a switch
 * mirror would send it, with libroce's roce_build_encap(), so that the
 * analysis of the copy can be held against the analysis of the original.
 *
 *   mkencap [-6] [-v|-q] [-k KEY] [-c] [-p] [-t BYTES] MODE IN.pcap OUT.pcap
 *
 * MODE: erspan1 erspan2 erspan3 erspan3-ip (FT=2: the inner frame without
 * its Ethernet header) gre-teb vxlan vxlan8472.  -6 outer IPv6; -v one
 * outer 802.1Q tag, -q 802.1ad + 802.1Q; -k a GRE key; -c a GRE checksum;
 * -p an ERSPAN III platform sub-header; -t keep only BYTES of each inner
 * frame (ERSPAN: the T bit is set on the copies that were cut).
 * Timestamps are kept; ERSPAN III's timestamp is the capture time in 100 ns
 * units (granularity 1), modulo 2^32.
 */
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "roce.h"

struct opts {
	struct roce_encap_spec s;
	int strip_eth;
	unsigned snap;
};

static int parse_mode(const char *m, struct opts *o)
{
	static const struct { const char *name; enum roce_encap_kind k; } t[] = {
		{ "erspan1", ROCE_ENCAP_ERSPAN1 }, { "erspan2", ROCE_ENCAP_ERSPAN2 },
		{ "erspan3", ROCE_ENCAP_ERSPAN3 }, { "erspan3-ip", ROCE_ENCAP_ERSPAN3 },
		{ "gre-teb", ROCE_ENCAP_GRE_TEB }, { "vxlan", ROCE_ENCAP_VXLAN },
		{ "vxlan8472", ROCE_ENCAP_VXLAN },
	};

	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (!strcmp(m, t[i].name)) {
			o->s.kind = t[i].k;
			o->strip_eth = !strcmp(m, "erspan3-ip");
			o->s.ft = o->strip_eth ? 2 : 0;
			o->s.vxlan_dport = !strcmp(m, "vxlan8472") ? 8472 : 0;
			return 0;
		}
	return -1;
}

/* Where the IP header starts in an Ethernet frame (after tags), or 0. */
static uint32_t ip_start(const uint8_t *d, uint32_t len)
{
	uint32_t off = 12;

	while (off + 2 <= len) {
		uint16_t et = (uint16_t)(d[off] << 8 | d[off + 1]);

		if (et == 0x8100 || et == 0x88a8) {
			off += 4;
			continue;
		}
		return et == 0x0800 || et == 0x86dd ? off + 2 : 0;
	}
	return 0;
}

static void defaults(struct roce_encap_spec *s, int v6)
{
	static const uint8_t dmac[6] = { 0x02, 0x00, 0x00, 0x00, 0x0e, 0x01 };
	static const uint8_t smac[6] = { 0x02, 0x00, 0x00, 0x00, 0x0e, 0x02 };

	memcpy(s->eth.dst, dmac, 6);
	memcpy(s->eth.src, smac, 6);
	s->ip.version = v6 ? 6 : 4;
	if (v6) {
		s->ip.src[0] = 0xfd; s->ip.src[15] = 1;
		s->ip.dst[0] = 0xfd; s->ip.dst[15] = 2;
	} else {
		memcpy(s->ip.src, "\xc0\x00\x02\x01", 4);
		memcpy(s->ip.dst, "\xc0\x00\x02\x02", 4);
	}
	s->session = 77;
	s->vni = 4242;
	s->hwid = 5;
	s->gra = 1;
	s->sgt = 0x1234;
}

static int wrap(pcap_dumper_t *dump, struct opts *o, const struct pcap_pkthdr *h,
		const uint8_t *d, uint32_t seq)
{
	static uint8_t out[65536 + 256];
	struct pcap_pkthdr oh = *h;
	const uint8_t *inner = d;
	uint32_t len = h->caplen, trunc = 0;
	int n;

	if (o->strip_eth) {
		uint32_t ip = ip_start(d, len);

		if (!ip)
			return 0;       /* not IP: FT=2 cannot carry it */
		inner += ip;
		len -= ip;
	}
	if (o->snap && len > o->snap) {
		len = o->snap;
		trunc = 1;
	}
	o->s.gre_seq = seq;
	o->s.index = seq & 0xfffff;
	o->s.trunc = (uint8_t)trunc;
	o->s.timestamp = (uint32_t)((uint64_t)h->ts.tv_sec * 10000000u + (uint64_t)h->ts.tv_usec * 10u);
	n = roce_build_encap(out, sizeof out, &o->s, inner, len);
	if (n < 0) {
		fprintf(stderr, "mkencap: frame %u: %s\n", seq + 1, roce_strerror(n));
		return -1;
	}
	oh.caplen = oh.len = (uint32_t)n;
	pcap_dump((u_char *)dump, &oh, out);
	return 0;
}

int main(int argc, char **argv)
{
	char err[PCAP_ERRBUF_SIZE];
	struct opts o = { 0 };
	struct pcap_pkthdr *h;
	const uint8_t *d;
	pcap_dumper_t *dump;
	pcap_t *in, *dead;
	uint32_t seq = 0;
	int c, v6 = 0, rc;

	while ((c = getopt(argc, argv, "6vqk:cpt:")) != -1) {
		switch (c) {
		case '6': v6 = 1; break;
		case 'v': o.s.eth.n_vlan = 1; o.s.eth.vlan[0].vid = 100; break;
		case 'q': o.s.eth.n_vlan = 2; o.s.eth.vlan[0].vid = 200; o.s.eth.vlan[1].vid = 100; break;
		case 'k': o.s.gre_key_present = 1; o.s.gre_key = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'c': o.s.gre_csum_present = 1; break;
		case 'p':
			o.s.platform_present = 1;
			memcpy(o.s.platform, "\x0c\x00\x00\x00\x00\x00\x00\x2a", 8); /* platform ID 3 */
			break;
		case 't': o.snap = (unsigned)strtoul(optarg, NULL, 0); break;
		default: goto usage;
		}
	}
	if (argc - optind != 3 || parse_mode(argv[optind], &o))
		goto usage;
	{
		struct roce_encap_spec keep = o.s;

		defaults(&o.s, v6);
		o.s.eth.n_vlan = keep.eth.n_vlan;
		memcpy(o.s.eth.vlan, keep.eth.vlan, sizeof keep.eth.vlan);
	}
	in = pcap_open_offline_with_tstamp_precision(argv[optind + 1], PCAP_TSTAMP_PRECISION_MICRO, err);
	if (!in) {
		fprintf(stderr, "mkencap: %s\n", err);
		return 1;
	}
	if (pcap_datalink(in) != DLT_EN10MB) {
		fprintf(stderr, "mkencap: %s: not an Ethernet capture\n", argv[optind + 1]);
		return 1;
	}
	dead = pcap_open_dead(DLT_EN10MB, 65535);
	dump = dead ? pcap_dump_open(dead, argv[optind + 2]) : NULL;
	if (!dump) {
		fprintf(stderr, "mkencap: %s: %s\n", argv[optind + 2], dead ? pcap_geterr(dead) : "pcap");
		return 1;
	}
	while ((rc = pcap_next_ex(in, &h, &d)) == 1)
		if (wrap(dump, &o, h, d, seq++))
			return 1;
	if (rc == -1) {
		fprintf(stderr, "mkencap: %s: %s\n", argv[optind + 1], pcap_geterr(in));
		return 1;
	}
	pcap_dump_close(dump);
	pcap_close(dead);
	pcap_close(in);
	return 0;
usage:
	fprintf(stderr, "usage: mkencap [-6] [-v|-q] [-k KEY] [-c] [-p] [-t BYTES] "
		"erspan1|erspan2|erspan3|erspan3-ip|gre-teb|vxlan|vxlan8472 IN.pcap OUT.pcap\n");
	return 2;
}
