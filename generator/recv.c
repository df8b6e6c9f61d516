/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * recv.c — `rocegen recv`: the receive layer (rx.h) on its own.  Prints a
 * summary line per frame from the peer and counts ICRC verdicts; a way to
 * check a link and the receive path before the RC engine uses it.
 */
#include <stdio.h>
#include <string.h>
#include "gen.h"
#include "pace.h"
#include "rx.h"

struct recv_counts {
	uint64_t n, good, bad;
};

/* The receive layer on -i, for frames from --peer through --filter; NULL after saying why. */
static struct rx *recv_open(const struct gen_opts *o)
{
	struct rx_cfg cfg;
	char err[RX_ERRLEN];
	struct rx *r;

	memset(&cfg, 0, sizeof(cfg));
	cfg.iface = o->iface;
	cfg.peer_ipver = o->peer_ver;
	memcpy(cfg.peer, o->peer, 16);
	cfg.filter = o->filter;
	r = rx_open(&cfg, err);
	if (!r)
		fprintf(stderr, GEN_NAME " recv: %s\n", err);
	return r;
}

/* How long the next wait may be, in ms: 200, less before --timeout's end; -1: it is over. */
static int recv_wait_ms(uint64_t t_end)
{
	uint64_t now;

	if (!t_end)
		return 200;
	now = pace_now_ns();
	if (now >= t_end)
		return -1;
	if ((t_end - now) / 1000000 < 200)
		return (int)((t_end - now) / 1000000) + 1;
	return 200;
}

/* One frame: its ICRC verdict counted, its summary line printed. */
static void recv_frame(const struct gen_opts *o, const struct rx_frame *f, struct recv_counts *c)
{
	struct roce_pkt p;
	char line[1024];
	enum roce_icrc_status ic;
	uint32_t crc;

	c->n++;
	roce_decode(&p, NULL, ROCE_LINK_ETHERNET, f->data, f->caplen, f->wirelen);
	ic = roce_icrc_verify(&p, &crc);
	c->good += ic == ROCE_ICRC_GOOD;
	c->bad += ic == ROCE_ICRC_BAD;
	if (!o->no_hex || o->verbose) {
		roce_summary(&p, line, sizeof(line));
		printf("%llu %ld.%06ld %s\n", (unsigned long long)c->n, (long)f->ts.tv_sec, (long)f->ts.tv_usec, line);
	}
}

/* Frames until --count, --timeout or a signal: 0, or 2 when the receive layer failed. */
static int recv_loop(const struct gen_opts *o, struct rx *r, struct recv_counts *c)
{
	uint64_t t_end = o->timeout > 0 ? pace_now_ns() + (uint64_t)(o->timeout * 1e9) : 0;
	struct rx_frame f;

	while (!gen_stop && (!o->count || c->n < o->count)) {
		int wait = recv_wait_ms(t_end), got;

		if (wait < 0)
			break;
		got = rx_next(r, &f, wait);
		if (got < 0) {
			fprintf(stderr, GEN_NAME " recv: %s\n", rx_error(r));
			return 2;
		}
		if (got)
			recv_frame(o, &f, c);
	}
	return 0;
}

int gen_recv_main(int argc, char **argv)
{
	struct recv_counts c = { 0, 0, 0 };
	struct gen_opts o;
	struct rx_stats st;
	struct rx *r;
	int rc;

	rc = gen_parse(GEN_RECV, argc, argv, &o);
	if (rc)
		return gen_parse_exit(rc);
	if (!o.iface) {
		fprintf(stderr, GEN_NAME " recv: -i IFACE is needed\n");
		gen_opts_free(&o);
		return 2;
	}
	r = recv_open(&o);
	if (!r) {
		gen_opts_free(&o);
		return 2;
	}
	if (o.verbose)
		fprintf(stderr, GEN_NAME " recv: %s, filter \"%s\"\n", o.iface, rx_filter(r));
	gen_signals();
	rc = recv_loop(&o, r, &c);
	fflush(stdout);
	rx_get_stats(r, &st);
	fprintf(stderr, GEN_NAME " recv: frames=%llu icrc_good=%llu icrc_bad=%llu kernel_drops=%llu\n",
		(unsigned long long)c.n, (unsigned long long)c.good, (unsigned long long)c.bad,
		(unsigned long long)st.kernel_drops);
	if (!rc && o.count && c.n < o.count)
		rc = 1;
	rx_close(r);
	gen_opts_free(&o);
	return rc;
}
