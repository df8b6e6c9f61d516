/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * convert.c — `rocegen convert -r IN -w OUT [encapsulation]`: every frame
 * of an Ethernet capture (pcap or pcapng) through wrap.c, with its own
 * timestamp (nanoseconds kept: OUT is a nanosecond pcap), so that a
 * capture can be had as a switch mirror, an ERF file, native InfiniBand or
 * a truncated copy of itself:
 *
 *   rocegen convert -r in.pcap -w out.pcap --erspan 3
 *   rocegen convert -r in.pcap -w out.pcap --ib --erf --snaplen 128
 *
 * Frames that were truncated in IN stay truncated (the lengths on the wire
 * are kept).  --count N stops after N frames.
 */
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gen.h"

struct conv {
	struct gen_opts o;
	pcap_t *in, *dead;
	pcap_dumper_t *dump;
	uint8_t *out;
	uint64_t n_in, n_out;
};

static int conv_open(struct conv *c)
{
	char err[PCAP_ERRBUF_SIZE];
	const struct gen_opts *o = &c->o;

	if (!o->rfile || !o->wfile) {
		fprintf(stderr, GEN_NAME " convert: give -r IN and -w OUT\n");
		return -1;
	}
	c->in = pcap_open_offline_with_tstamp_precision(o->rfile, PCAP_TSTAMP_PRECISION_NANO, err);
	if (!c->in) {
		fprintf(stderr, GEN_NAME " convert: %s\n", err);
		return -1;
	}
	if (pcap_datalink(c->in) != DLT_EN10MB) {
		fprintf(stderr, GEN_NAME " convert: %s: link type %s; convert reads Ethernet captures\n",
			o->rfile, pcap_datalink_val_to_name(pcap_datalink(c->in)));
		return -1;
	}
	c->dead = pcap_open_dead_with_tstamp_precision(gen_wrap_dlt(o->wrap), 262144,
						       PCAP_TSTAMP_PRECISION_NANO);
	c->dump = c->dead ? pcap_dump_open(c->dead, o->wfile) : NULL;
	if (!c->dump) {
		fprintf(stderr, GEN_NAME " convert: %s: %s\n", o->wfile, c->dead ? pcap_geterr(c->dead) : "pcap");
		return -1;
	}
	c->out = malloc(GEN_WRAP_MAX);
	return c->out ? 0 : -1;
}

/* One frame: 0 written or left out, -1 error (said). */
static int conv_frame(struct conv *c, struct gen_wrap *w, const struct pcap_pkthdr *h, const uint8_t *d)
{
	struct pcap_pkthdr oh = *h;
	uint64_t ns = (uint64_t)h->ts.tv_sec * 1000000000u + (uint64_t)h->ts.tv_usec;   /* nanosecond file */
	uint32_t wire;
	int n = gen_wrap_frame(w, d, h->caplen, h->len, ns, c->out, GEN_WRAP_MAX, &wire);

	if (n < 0) {
		fprintf(stderr, GEN_NAME " convert: %s: frame %llu: %s\n", c->o.rfile,
			(unsigned long long)c->n_in, roce_strerror(n));
		return -1;
	}
	if (!n)
		return 0;
	oh.caplen = (uint32_t)n;
	oh.len = wire;
	if (!w->erf && w->snaplen && oh.caplen > w->snaplen)
		oh.caplen = w->snaplen;
	pcap_dump((u_char *)c->dump, &oh, c->out);
	c->n_out++;
	return 0;
}

static int conv_run(struct conv *c)
{
	static struct gen_wrap none;     /* no option: a plain copy */
	struct gen_wrap *w = c->o.wrap ? c->o.wrap : &none;
	struct pcap_pkthdr *h;
	const uint8_t *d;
	int rc = 1;

	while ((!c->o.count || c->n_in < c->o.count) && (rc = pcap_next_ex(c->in, &h, &d)) == 1) {
		c->n_in++;
		if (conv_frame(c, w, h, d))
			return -1;
	}
	if (rc == -1) {
		fprintf(stderr, GEN_NAME " convert: %s: %s\n", c->o.rfile, pcap_geterr(c->in));
		return -1;
	}
	if (pcap_dump_flush(c->dump) || ferror(pcap_dump_file(c->dump))) {
		fprintf(stderr, GEN_NAME " convert: %s: write error\n", c->o.wfile);
		return -1;
	}
	if (c->o.verbose || w->left_out)
		fprintf(stderr, GEN_NAME " convert: %llu frames read, %llu written, %llu left out%s\n",
			(unsigned long long)c->n_in, (unsigned long long)c->n_out,
			(unsigned long long)w->left_out, w->left_out ? " (--ib carries RoCE frames only)" : "");
	return 0;
}

int gen_convert_main(int argc, char **argv)
{
	struct conv c;
	int rc = 2, n;

	memset(&c, 0, sizeof(c));
	n = gen_parse(GEN_CONVERT, argc, argv, &c.o);
	if (n)
		return gen_parse_exit(n);
	if (c.o.kind)
		fprintf(stderr, GEN_NAME " convert: unexpected argument '%s'\n", c.o.kind);
	else if (!conv_open(&c))
		rc = conv_run(&c) ? 1 : 0;
	if (c.dump)
		pcap_dump_close(c.dump);
	if (c.dead)
		pcap_close(c.dead);
	if (c.in)
		pcap_close(c.in);
	free(c.out);
	gen_opts_free(&c.o);
	return rc;
}
