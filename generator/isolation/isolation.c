/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * isolation.c — `rocegen isolation`: Husky's performance-isolation classes
 * as named cases, each an attacker set against one victim flow.
 *
 *   rocegen isolation --reference shared|fair [--cases NAME,…] [--threshold R]
 *                     [--duration-us N] [--seed N] [--json]
 *   rocegen isolation -i IFACE --peer IP [--target HOST:PORT] --key FILE
 *                     [--device NAME] [--src IP] [--dmac MAC] [options]
 *
 * A case is one `rocegen stress --victim` run (stress_tput.c): the victim,
 * QP 0 (WRITEs of 4 KiB, one in flight), runs alone for the first half, then
 * beside the case's attackers.  Its throughput and its median message latency
 * beside them are held against its own solo half: the case PASSes when the
 * throughput ratio (beside / alone) is at least R and the latency ratio
 * (beside / alone) at most 1/R.  The p99 latency ratio is reported too.
 *
 * The cases (the attackers' workload; Husky, NSDI 2023, §3):
 *   bandwidth  8 QPs of 64 KiB WRITEs, 8 in flight: the adapter's bandwidth
 *   rnr        8 QPs of 1 KiB SENDs, 4 in flight, half of them answered with
 *              an RNR NAK (receivers that post too few receives)
 *   cache      255 QPs of 64-byte WRITEs, one in flight each: more QP
 *              contexts than the adapter's cache holds (QPC/MTT thrashing)
 *   flood      8 QPs of 1..64-byte WRITEs, 16 in flight: small-message
 *              packet rate (the PCIe/doorbell path)
 *   mr         (a real adapter only) 8 QPs of 64-byte WRITEs, 4 in flight,
 *              spread over 4096 MRs of 4 KiB: more MTT/MPT entries than a
 *              NIC caches
 *
 * The in-process reference adapter (iso-shared breaks isolation, iso-fair
 * holds it; stress_refiso.c) or a real one behind rocetarget, each case on a
 * connection of its own.  Against a real adapter the run is scaled for rxe
 * under emulation (ISO_LIVE_*): 4 s per case (2 alone, 2 beside), MTU 1024, the
 * ACK timeout 2^18 x 4.096 us, bandwidth at depth 2; the rnr attackers' adapter
 * QPs hold 2 receives that rocetarget posts again itself as they complete
 * (`recv … sink=1`), so their SENDs beyond 2 get RNR NAKs with a 0.01 ms timer;
 * and no message is checked byte for byte (a control round trip per message
 * would be what the victim waits for: `rocegen stress` checks them).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gen.h"
#include "stress.h"

int gen_isolation_main(int argc, char **argv);

#define ISO_VICTIM_SIZE 4096
#define ISO_LIVE_DUR_US 4000000ull   /* against a real adapter: 2 s alone, 2 s beside */
#define ISO_LIVE_MTU 1024
#define ISO_LIVE_TIMEOUT 18          /* 1.07 s: rxe under TCG answers in ms, not us */
#define ISO_LIVE_LIMIT_S 60          /* a case not done by then (an endless RNR loop) fails */

static const struct iso_case {
	const char *name, *what, *live_what;
	unsigned attackers, qd, ops;
	uint32_t size_min, size_max;
	uint32_t rnr_ppm;           /* reference: the attackers' SENDs answered with an RNR NAK */
	unsigned live_qd;           /* a real adapter: the attackers' depth */
	unsigned sink;              /* a real adapter: receives per attacker QP (rocetarget's sink) */
	unsigned xmrs;              /* a real adapter: 4 KiB MRs per attacker QP (mr) */
	int live_only;
} iso_cases[] = {
	{ "bandwidth", "64 KiB WRITEs, 8 in flight", "64 KiB WRITEs, 2 in flight", 8, 8, 1u << ST_WRITE,
	  65536, 65536, 0, 2, 0, 0, 0 },
	{ "rnr", "1 KiB SENDs, 4 in flight, half answered RNR", "1 KiB SENDs, 4 in flight, 2 receives posted",
	  8, 4, 1u << ST_SEND, 1024, 1024, 500000, 4, 2, 0, 0 },
	{ "cache", "64 B WRITEs on more QPs than the context cache", "64 B WRITEs on more QPs than the context cache",
	  255, 1, 1u << ST_WRITE, 64, 64, 0, 1, 0, 0, 0 },
	{ "flood", "1-64 B WRITEs, 16 in flight", "1-64 B WRITEs, 16 in flight", 8, 16, 1u << ST_WRITE, 1, 64, 0,
	  16, 0, 0, 0 },
	{ "mr", "", "64 B WRITEs, 4 in flight, over 4096 MRs of 4 KiB", 8, 4, 1u << ST_WRITE, 64, 64, 0, 4, 0,
	  512, 1 },
};
#define ISO_N (sizeof(iso_cases) / sizeof(iso_cases[0]))

struct iso_res {
	const struct iso_case *c;
	double alone_Bps, beside_Bps, tput_ratio;
	struct st_summary lat[2];
	double lat_ratio, p99_ratio;
	uint64_t att_msgs, rnr, tmo;   /* the attackers' messages; rocegen's RNR and timeout retries */
	int pass, ran;
	char err[320];
};

/* a real adapter behind rocetarget (NULL iface: the reference) */
static struct cf_live_args iso_live;
static const char *iso_dev;

static void iso_usage(FILE *f)
{
	fprintf(f, "usage: " GEN_NAME " isolation --reference shared|fair [--cases NAME,...] [--threshold R]\n"
		   "                          [--duration-us N] [--seed N] [--json]\n"
		   "       " GEN_NAME " isolation -i IFACE --peer IP [--target HOST:PORT] --key FILE [--device NAME]\n"
		   "                          [--src IP] [--dmac MAC] [--cases ...] [--threshold R] [--duration-us N]\n"
		   "                          [--seed N] [--json]   (a real adapter through rocetarget)\n"
		   "Husky's isolation classes: a victim flow alone, then beside each case's attackers;\n"
		   "its throughput and latency ratios against the solo run, PASS at >= R (default 0.8).\n"
		   "Cases: bandwidth, rnr, cache, flood, and mr (a real adapter only).\n"
		   "-i, --interface IFACE; -h, --help.  See rocegen(8), ISOLATION.\n");
}

/* The victim's figures from a run; 0, or -1 with out->err. */
static int iso_result(struct st_result *res, int rc, struct iso_res *out)
{
	if (rc || res->victim_alone <= 0 || !res->vlat[0].n || !res->vlat[1].n) {
		snprintf(out->err, sizeof(out->err), "the run failed%s%.200s (victim messages alone %zu, beside %zu)",
			 res->first_error[0] ? ": " : "", res->first_error, res->vlat[0].n, res->vlat[1].n);
		return -1;
	}
	out->ran = 1;
	out->alone_Bps = res->victim_alone;
	out->beside_Bps = res->victim_shared;
	out->tput_ratio = res->victim_shared / res->victim_alone;
	st_summarize(&res->vlat[0], &out->lat[0]);
	st_summarize(&res->vlat[1], &out->lat[1]);
	out->lat_ratio = out->lat[0].p50 ? (double)out->lat[1].p50 / (double)out->lat[0].p50 : 0;
	out->p99_ratio = out->lat[0].p99 ? (double)out->lat[1].p99 / (double)out->lat[0].p99 : 0;
	out->att_msgs = res->messages - res->vlat[0].n - res->vlat[1].n;
	out->rnr = res->retx_episodes[ROCE_RETX_RNR];
	out->tmo = res->retx_episodes[ROCE_RETX_TIMEOUT];
	return 0;
}

/* One case; 0, -1 (out->err: the case FAILs), or -2 when rocetarget could not
 * be reached (said, out->err empty) or its control channel failed (out->err):
 * the suite stops. */
static int iso_run(int mode, const struct iso_case *c, uint64_t dur_ns, uint64_t seed, struct iso_res *out)
{
	struct st_opts o;
	struct st_result res;
	struct cf_io io;
	struct st_ref *r = NULL;
	struct cf_live *l = NULL;
	int rc;

	memset(&o, 0, sizeof(o));
	memset(out, 0, sizeof(*out));
	out->c = c;
	o.qps = 1 + c->attackers;
	o.qd = c->qd;
	o.ops = c->ops;
	o.size_min = c->size_min;
	o.size_max = c->size_max;
	o.victim = 1;
	o.victim_qd = 1;
	o.victim_ops = 1u << ST_WRITE;
	o.victim_size = ISO_VICTIM_SIZE;
	o.duration_ns = dur_ns;
	o.mtu = 4096;
	o.seed = seed;
	o.timeout = 14;
	o.delay_ns = 50000;
	o.gid_index = 1;
	o.min_rnr = 1;   /* 0.01 ms: RNR retries come quickly */
	o.rnr_retry = 7; /* and without end: the RNR attackers keep their load */
	if (iso_live.iface) {
		o.qd = c->live_qd;
		o.mtu = ISO_LIVE_MTU;
		o.timeout = ISO_LIVE_TIMEOUT;
		o.limit_ns = ISO_LIVE_LIMIT_S * 1000000000ull;
		o.dev = iso_dev;
		o.nocheck = 1;
		o.sink_recvs = c->sink;
		o.xmrs = c->xmrs;
		if (!(l = st_live_open(&iso_live, &o, &io)))
			return -2;   /* it said why (out->err stays empty) */
	} else if ((r = st_ref_open(mode, &o, &io))) {
		st_ref_set_iso_rnr(r, c->rnr_ppm);
	} else {
		snprintf(out->err, sizeof(out->err), "no memory");
		return -1;
	}
	memset(&res, 0, sizeof(res));
	rc = st_run(&o, &io, &res, NULL);
	st_ref_free(r);
	if (l && (cf_live_broken(l) || (rc && !res.messages && !strncmp(res.first_error, "control", 7)))) {
		snprintf(out->err, sizeof(out->err), "%.300s", res.first_error[0] ? res.first_error :
			 "the control channel failed");
		rc = -2;
	} else {
		rc = iso_result(&res, rc, out);
	}
	cf_live_close(l);
	st_result_free(&res);
	return rc;
}

static int selected(const char *name, const char *list)
{
	size_t n = strlen(name);

	for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, name, n) && (p[n] == ',' || !p[n]))
			return 1;
	return !list;
}

/* every name of list is a case; else the first that is not, or NULL */
static int list_ok(const char *list, char *bad, size_t cap)
{
	char b[256], *save = NULL, *t;

	snprintf(b, sizeof(b), "%s", list);
	for (t = strtok_r(b, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int found = 0;

		for (size_t i = 0; i < ISO_N; i++)
			found |= !strcmp(t, iso_cases[i].name);
		if (!found) {
			snprintf(bad, cap, "%s", t);
			return 0;
		}
	}
	return list[0] && list[strlen(list) - 1] != ',';
}

static const char *iso_what(const struct iso_case *c)
{
	return iso_live.iface ? c->live_what : c->what;
}

/* the error text for a JSON string: quotes and backslashes made plain */
static const char *iso_plain(const char *e)
{
	static char b[sizeof(((struct iso_res *)0)->err)];
	size_t i;

	for (i = 0; e[i] && i < sizeof(b) - 1; i++)
		b[i] = e[i] == '"' || e[i] == '\\' || (unsigned char)e[i] < 0x20 ? '\'' : e[i];
	b[i] = 0;
	return b;
}

static void iso_report(const struct iso_res *r, size_t n, double thr, int json, const char *mode)
{
	if (json) {
		if (iso_live.iface)
			printf("{\"adapter\":\"live\",\"device\":\"%s\",\"threshold\":%.3f,\"cases\":[",
			       iso_plain(iso_dev ? iso_dev : "(the first)"), thr);
		else
			printf("{\"adapter\":\"reference\",\"reference\":\"%s\",\"threshold\":%.3f,\"cases\":[", mode,
			       thr);
		for (size_t i = 0; i < n; i++) {
			const struct iso_res *x = &r[i];

			printf("%s{\"name\":\"%s\",\"attackers\":%u,\"verdict\":\"%s\"", i ? "," : "", x->c->name,
			       x->c->attackers, x->pass ? "PASS" : "FAIL");
			if (x->ran)
				printf(",\"throughput_ratio\":%.4f,\"latency_ratio\":%.4f,\"latency_p99_ratio\":%.4f,"
				       "\"alone\":{\"Bps\":%.0f,\"p50_us\":%.3f,\"p99_us\":%.3f,\"messages\":%llu},"
				       "\"beside\":{\"Bps\":%.0f,\"p50_us\":%.3f,\"p99_us\":%.3f,\"messages\":%llu},"
				       "\"attacker_messages\":%llu,\"rnr_retries\":%llu,\"timeout_retries\":%llu",
				       x->tput_ratio, x->lat_ratio, x->p99_ratio, x->alone_Bps, (double)x->lat[0].p50 / 1e3,
				       (double)x->lat[0].p99 / 1e3, (unsigned long long)x->lat[0].n, x->beside_Bps,
				       (double)x->lat[1].p50 / 1e3, (double)x->lat[1].p99 / 1e3,
				       (unsigned long long)x->lat[1].n, (unsigned long long)x->att_msgs,
				       (unsigned long long)x->rnr, (unsigned long long)x->tmo);
			else
				printf(",\"error\":\"%s\"", iso_plain(x->err));
			printf("}");
		}
		printf("]}\n");
		return;
	}
	if (iso_live.iface)
		printf("isolation: the adapter %s behind rocetarget, victim QP 0 (4 KiB WRITEs, one in flight); PASS: "
		       "throughput ratio >= %.2f and latency ratio <= %.2f\n", iso_dev ? iso_dev : "(the first)", thr,
		       1 / thr);
	else
		printf("isolation: the reference adapter (%s), victim QP 0 (4 KiB WRITEs, one in flight); PASS: "
		       "throughput ratio >= %.2f and latency ratio <= %.2f\n", mode, thr, 1 / thr);
	printf("%-10s %-9s %-48s %9s %9s %7s %9s %9s %7s %7s  %s\n", "case", "attackers", "attack", "alone MB/s",
	       "beside", "ratio", "p50 us", "beside", "ratio", "p99 rt", "verdict");
	for (size_t i = 0; i < n; i++) {
		const struct iso_res *x = &r[i];

		if (!x->ran) {
			printf("%-10s %-9u %-48s %s  FAIL\n", x->c->name, x->c->attackers, iso_what(x->c), x->err);
			continue;
		}
		printf("%-10s %-9u %-48s %10.3f %9.3f %7.3f %9.3f %9.3f %7.3f %7.3f  %s\n", x->c->name,
		       x->c->attackers, iso_what(x->c), x->alone_Bps / 1e6, x->beside_Bps / 1e6, x->tput_ratio,
		       (double)x->lat[0].p50 / 1e3, (double)x->lat[1].p50 / 1e3, x->lat_ratio, x->p99_ratio,
		       x->pass ? "PASS" : "FAIL");
	}
}

int gen_isolation_main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "reference", required_argument, NULL, 'r' }, { "cases", required_argument, NULL, 'c' },
		{ "threshold", required_argument, NULL, 't' }, { "duration-us", required_argument, NULL, 'd' },
		{ "seed", required_argument, NULL, 's' },      { "json", no_argument, NULL, 'j' },
		{ "interface", required_argument, NULL, 'i' }, { "peer", required_argument, NULL, 'P' },
		{ "target", required_argument, NULL, 'T' },    { "key", required_argument, NULL, 'K' },
		{ "device", required_argument, NULL, 'D' },    { "src", required_argument, NULL, 'S' },
		{ "dmac", required_argument, NULL, 'M' },      { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *cases = NULL, *mode_name = NULL;
	struct iso_res res[ISO_N];
	double thr = 0.8;
	unsigned long long dur_us = 0, seed = 1;
	int mode = -1, json = 0, ch, fails = 0;
	size_t n = 0;
	char *end, bad[64];

	optind = 1;
	opterr = 0;
	memset(&iso_live, 0, sizeof(iso_live));
	iso_live.cmd = "isolation";
	iso_dev = NULL;
	while ((ch = getopt_long(argc, argv, ":hi:", lo, NULL)) != -1) {
		if (cf_live_opt(&iso_live, &iso_dev, ch, optarg))
			continue;
		switch (ch) {
		case 'r':
			mode_name = optarg;
			if (!strcmp(optarg, "shared"))
				mode = ST_REF_ISO_SHARED;
			else if (!strcmp(optarg, "fair"))
				mode = ST_REF_ISO_FAIR;
			else {
				fprintf(stderr, GEN_NAME " isolation: --reference shared|fair, not '%s'\n", optarg);
				return 2;
			}
			break;
		case 'c':
			if (!list_ok(optarg, bad, sizeof(bad))) {
				fprintf(stderr, GEN_NAME " isolation: --cases: no case '%s' (bandwidth, rnr, cache, flood, mr)\n",
					bad[0] && strcmp(bad, optarg) ? bad : optarg);
				return 2;
			}
			cases = optarg;
			break;
		case 't':
			thr = strtod(optarg, &end);
			if (*end || end == optarg || !(thr > 0 && thr <= 1)) {
				fprintf(stderr, GEN_NAME " isolation: --threshold R: a ratio in (0, 1], not '%s'\n", optarg);
				return 2;
			}
			break;
		case 'd':
		case 's':
			if (optarg[0] < '0' || optarg[0] > '9')
				end = optarg;
			else if (ch == 'd')
				dur_us = strtoull(optarg, &end, 0);
			else
				seed = strtoull(optarg, &end, 0);
			if (end == optarg || *end || (ch == 'd' && (dur_us < 100 || dur_us > 10000000))) {
				fprintf(stderr, GEN_NAME " isolation: bad --%s '%s'%s\n", ch == 'd' ? "duration-us" : "seed",
					optarg, ch == 'd' ? " (100 to 10000000)" : "");
				return 2;
			}
			break;
		case 'j': json = 1; break;
		case 'h': iso_usage(stdout); return 0;
		default:
			return gen_bad_opt("isolation", ch, argv[optind - 1]);
		}
	}
	if (optind < argc) {
		fprintf(stderr, GEN_NAME " isolation: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if ((mode < 0) == !iso_live.iface) {
		fprintf(stderr, GEN_NAME " isolation: %s\n", mode < 0 ?
			"give --reference shared|fair, or -i IFACE --peer IP --key FILE (an adapter behind rocetarget)" :
			"--reference or -i IFACE, not both");
		return 2;
	}
	if (iso_live.iface && !iso_live.peer) {
		fprintf(stderr, GEN_NAME " isolation: -i IFACE needs --peer IP (the adapter's address)\n");
		return 2;
	}
	if (mode >= 0 && cases && selected("mr", cases)) {
		fprintf(stderr, GEN_NAME " isolation: the mr case needs a real adapter (the reference models no MR cache)\n");
		return 2;
	}
	if (iso_live.iface && gen_iface_missing("isolation", iso_live.iface))
		return 1;
	if (!dur_us)
		dur_us = iso_live.iface ? ISO_LIVE_DUR_US : 2000;
	for (size_t i = 0; i < ISO_N; i++) {
		struct iso_res *x = &res[n];
		int rc;

		if (!selected(iso_cases[i].name, cases) || (!cases && mode >= 0 && iso_cases[i].live_only))
			continue;
		n++;
		if ((rc = iso_run(mode, &iso_cases[i], dur_us * 1000, seed, x)) == -2) {
			/* rocetarget's reachability, not the adapter's isolation: nothing to report */
			char t[300];

			if (x->err[0])
				fprintf(stderr, GEN_NAME " isolation: rocetarget at %s: %s (case %s)\n",
					cf_live_target(&iso_live, t, sizeof(t)), x->err, iso_cases[i].name);
			return 1;
		}
		if (rc == 0)
			x->pass = x->tput_ratio >= thr && x->lat_ratio <= 1 / thr;
		fails += !x->pass;
	}
	iso_report(res, n, thr, json, mode_name);
	return fails ? 1 : 0;
}
