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

int gen_recv_main(int argc, char **argv)
{
	struct gen_opts o;
	struct rx_cfg cfg;
	struct rx_frame f;
	struct rx_stats st;
	struct rx *r;
	char err[RX_ERRLEN];
	uint64_t n = 0, good = 0, bad = 0, t_end = 0;
	int rc;

	rc = gen_parse(GEN_RECV, argc, argv, &o);
	if (rc)
		return rc > 0 ? 0 : 2;
	if (!o.iface) {
		fprintf(stderr, GEN_NAME " recv: -i IFACE is needed\n");
		gen_opts_free(&o);
		return 2;
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.iface = o.iface;
	cfg.peer_ipver = o.peer_ver;
	memcpy(cfg.peer, o.peer, 16);
	cfg.filter = o.filter;
	r = rx_open(&cfg, err);
	if (!r) {
		fprintf(stderr, GEN_NAME " recv: %s\n", err);
		gen_opts_free(&o);
		return 2;
	}
	if (o.verbose)
		fprintf(stderr, GEN_NAME " recv: %s, filter \"%s\"\n", o.iface, rx_filter(r));
	gen_signals();
	if (o.timeout > 0)
		t_end = pace_now_ns() + (uint64_t)(o.timeout * 1e9);
	rc = 0;
	while (!gen_stop && (!o.count || n < o.count)) {
		int wait = 200, got;

		if (t_end) {
			uint64_t now = pace_now_ns();

			if (now >= t_end)
				break;
			if ((t_end - now) / 1000000 < (uint64_t)wait)
				wait = (int)((t_end - now) / 1000000) + 1;
		}
		got = rx_next(r, &f, wait);
		if (got < 0) {
			fprintf(stderr, GEN_NAME " recv: %s\n", rx_error(r));
			rc = 2;
			break;
		}
		if (!got)
			continue;
		{
			struct roce_pkt p;
			char line[1024];
			enum roce_icrc_status ic;
			uint32_t c;

			n++;
			roce_decode(&p, NULL, ROCE_LINK_ETHERNET, f.data, f.caplen, f.wirelen);
			ic = roce_icrc_verify(&p, &c);
			good += ic == ROCE_ICRC_GOOD;
			bad += ic == ROCE_ICRC_BAD;
			if (!o.no_hex || o.verbose) {
				roce_summary(&p, line, sizeof(line));
				printf("%llu %ld.%06ld %s\n", (unsigned long long)n, (long)f.ts.tv_sec,
				       (long)f.ts.tv_usec, line);
			}
		}
	}
	fflush(stdout);
	rx_get_stats(r, &st);
	fprintf(stderr, GEN_NAME " recv: frames=%llu icrc_good=%llu icrc_bad=%llu kernel_drops=%llu\n",
		(unsigned long long)n, (unsigned long long)good, (unsigned long long)bad,
		(unsigned long long)st.kernel_drops);
	if (!rc && o.count && n < o.count)
		rc = 1;
	rx_close(r);
	gen_opts_free(&o);
	return rc;
}
