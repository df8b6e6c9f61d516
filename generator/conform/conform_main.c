/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * conform_main.c — `rocegen conform`: options, the adapter under test (a real
 * one through conform_live.c, or the in-process reference of conform_ref.c),
 * the case loop, and the reports (conform_report.c).
 *
 *   rocegen conform -i IFACE --peer IP [--target HOST:PORT] [--device NAME]
 *                   [--gid-index N] [--cases PATTERN] [--json] [--junit FILE]
 *                   [--pcap-dir DIR] [--list] [-v]
 *   rocegen conform --reference [good|nakstorm|retry7|cnp-qp|cnp-ip|cnp-port|no-cc] …
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "conform.h"
#include "conform_iwarp.h"
#include "stress.h"
#include "gen.h"
#include "ctl.h"

struct conform_opts {
	struct cf_live_args live;
	const char *pat, *junit, *dev, *pcap_dir, *source2;
	int json, list, ref, gidx, verbose;
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: rocegen conform -i IFACE --peer IP [--target HOST:PORT] --key FILE [--device NAME] [--gid-index N]\n"
"                       [--cases PATTERN[,PATTERN…]] [--json] [--junit FILE] [--pcap-dir DIR]\n"
"                       [--src IP] [--dmac MAC] [--source2 IP] [--list] [-v]\n"
"       rocegen conform --reference [good|nakstorm|retry7|cnp-qp|cnp-ip|cnp-port|no-cc] [--cases …] [--json] …\n"
"       (--transport roce, the default; --transport iwarp below)\n"
"Runs the conformance catalogue against the adapter behind rocetarget (default port %d\n"
"on --peer; --key FILE answers its challenge), or against the in-process reference adapter.  --dev is the old spelling of\n"
"--device (until 0.2).  -i, --interface IFACE; -v, --verbose; -h, --help.  See rocegen(8), CONFORM.\n\n",
		CTL_PORT);
	cfi_usage(f);
}

static int parse_reference(const char *arg)
{
	static const char *const cc[] = { "cnp-qp", "cnp-ip", "cnp-port", "no-cc" };

	if (!arg || !strcmp(arg, "good"))
		return CF_REF_GOOD;
	if (!strcmp(arg, "nakstorm"))
		return CF_REF_NAKSTORM;
	if (!strcmp(arg, "retry7"))
		return CF_REF_RETRY7;
	for (int i = 0; i < 4; i++)
		if (!strcmp(arg, cc[i]))
			return CF_REF_STRESS + ST_REF_CNP_QP + i;
	fprintf(stderr, GEN_NAME " conform: --reference good|nakstorm|retry7|cnp-qp|cnp-ip|cnp-port|no-cc\n");
	return -1;
}

/* -1 to go on, or the exit status. */
static int parse_opts(int argc, char **argv, struct conform_opts *o)
{
	enum { O_PEER = 256, O_TARGET, O_CASES, O_JSON, O_JUNIT, O_PCAPDIR, O_REF, O_LIST, O_DEV,
	       O_GIDX, O_SRC, O_DMAC, O_DEV_OLD, O_TR, O_KEY, O_SRC2 };
	static const struct option lo[] = {
		{ "interface", required_argument, NULL, 'i' }, { "peer", required_argument, NULL, O_PEER },
		{ "target", required_argument, NULL, O_TARGET }, { "cases", required_argument, NULL, O_CASES },
		{ "key", required_argument, NULL, O_KEY },
		{ "json", no_argument, NULL, O_JSON },           { "junit", required_argument, NULL, O_JUNIT },
		{ "pcap-dir", required_argument, NULL, O_PCAPDIR },
		{ "reference", optional_argument, NULL, O_REF }, { "list", no_argument, NULL, O_LIST },
		{ "device", required_argument, NULL, O_DEV },    { "gid-index", required_argument, NULL, O_GIDX },
		{ "dev", required_argument, NULL, O_DEV_OLD },   /* the old spelling, until 0.2 */
		{ "src", required_argument, NULL, O_SRC },       { "dmac", required_argument, NULL, O_DMAC },
		{ "source2", required_argument, NULL, O_SRC2 },
		{ "transport", required_argument, NULL, O_TR },
		{ "verbose", no_argument, NULL, 'v' },           { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int ch;

	memset(o, 0, sizeof(*o));
	o->ref = -1;
	o->gidx = 1;
	optind = 1;
	opterr = 0;   /* one line of our own, naming the command */
	while ((ch = getopt_long(argc, argv, ":i:vh", lo, NULL)) != -1) {
		switch (ch) {
		case 'i': o->live.iface = optarg; break;
		case O_PEER: o->live.peer = optarg; break;
		case O_TARGET: o->live.target = optarg; break;
		case O_KEY: o->live.key = optarg; break;
		case O_CASES: o->pat = optarg; break;
		case O_JSON: o->json = 1; break;
		case O_JUNIT: o->junit = optarg; break;
		case O_PCAPDIR: o->pcap_dir = optarg; break;
		case O_LIST: o->list = 1; break;
		case O_DEV_OLD:
			fprintf(stderr, GEN_NAME " conform: note: --dev is the old spelling of --device (until 0.2)\n");
			/* fall through */
		case O_DEV: o->dev = optarg; break;
		case O_GIDX: o->gidx = atoi(optarg); break;
		case O_SRC: o->live.src = optarg; break;
		case O_DMAC: o->live.dmac = optarg; break;
		case O_SRC2: o->source2 = optarg; break;
		case 'v': o->verbose++; break;
		case O_TR:   /* iwarp went to conform_iwarp.c */
			if (strcmp(optarg, "roce")) {
				fprintf(stderr, GEN_NAME " conform: --transport roce|iwarp, not '%s'\n", optarg);
				return 2;
			}
			break;
		case O_REF:
			if (!optarg && optind < argc && argv[optind][0] != '-')
				optarg = argv[optind++];
			if ((o->ref = parse_reference(optarg)) < 0)
				return 2;
			break;
		case 'h': usage(stdout); return 0;
		default:
			return gen_bad_opt("conform", ch, argv[optind - 1]);
		}
	}
	if (optind < argc) {
		fprintf(stderr, GEN_NAME " conform: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	o->live.verbose = o->verbose;
	o->live.cmd = "conform";
	return -1;
}

static int case_selected(const char *name, const char *pat)
{
	char buf[512], *save = NULL, *tok;

	if (!pat)
		return 1;
	snprintf(buf, sizeof(buf), "%s", pat);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char g[300];

		if (!fnmatch(tok, name, 0))
			return 1;
		snprintf(g, sizeof(g), "%s*", tok);   /* a prefix selects a group: "resp." */
		if (!fnmatch(g, name, 0))
			return 1;
	}
	return 0;
}

/* The in-process reference adapter at 192.0.2.2, us at 192.0.2.1 and
 * 192.0.2.3 (the second address); conform_ref.c's, or for the cnp-* and
 * no-cc modes stress_ref.c's (*sr). */
static struct cf_ref *open_reference(struct cf *c, int mode, struct st_ref **sr)
{
	static const uint8_t us_mac[6] = { 2, 0, 0, 0, 0, 1 }, dut_mac[6] = { 2, 0, 0, 0, 0, 2 };
	static const uint8_t us_ip[4] = { 192, 0, 2, 1 }, dut_ip[4] = { 192, 0, 2, 2 }, us_ip2[4] = { 192, 0, 2, 3 };
	struct cf_ref *rf = NULL;

	*sr = NULL;
	if (mode >= CF_REF_STRESS) {
		if (!(*sr = st_ref_new((enum st_ref_mode)(mode - CF_REF_STRESS), dut_mac, dut_ip, us_mac, us_ip)))
			return NULL;
		st_ref_io(*sr, &c->io);
	} else {
		if (!(rf = cf_ref_new((enum cf_ref_mode)mode, dut_mac, dut_ip, us_mac, us_ip)))
			return NULL;
		cf_ref_io(rf, &c->io);
	}
	c->is_reference = 1;
	memcpy(c->eth.src, us_mac, 6);
	memcpy(c->eth.dst, dut_mac, 6);
	c->ip.version = 4;
	memcpy(c->ip.src, us_ip, 4);
	memcpy(c->ip.dst, dut_ip, 4);
	memcpy(c->src2, us_ip2, 4);
	c->have_src2 = 1;
	return rf;
}

/* hello + open on the control channel; 0, or -1 after saying why. */
static int open_target(struct cf *c, const struct conform_opts *o)
{
	char rep[1024], req[300];

	inet_ntop(AF_INET, c->ip.src, c->our_gid, sizeof(c->our_gid));
	c->gid_index = o->gidx;
	snprintf(req, sizeof(req), "open %s%.200s gid_index=%d", o->dev ? "dev=" : "",
		 o->dev ? o->dev : "", o->gidx);
	if (c->io.ctl(c->io.ctx, "hello", rep, sizeof(rep)) ||
	    c->io.ctl(c->io.ctx, req, rep, sizeof(rep))) {
		fprintf(stderr, GEN_NAME " conform: target: %s\n", rep);
		return -1;
	}
	ctl_get(rep, "dev", c->dev, sizeof(c->dev));
	c->dut_mtu = (int)ctl_u64(rep, "active_mtu", 1024);
	if (c->verbose)
		fprintf(stderr, GEN_NAME " conform: target %s\n", rep);
	return 0;
}

/* The evidence pcap is complete on disk: 0, or -1 after saying why
 * (pcap_dump() reports nothing, so the stream is checked). */
static int close_evidence(struct cf *c)
{
	int rc = 0;

	if (c->dump) {
		errno = 0;
		if (pcap_dump_flush(c->dump) || ferror(pcap_dump_file(c->dump))) {
			fprintf(stderr, GEN_NAME " conform: %s: %s\n", c->r.pcap,
				strerror(errno ? errno : EIO));
			rc = -1;
		}
		pcap_dump_close(c->dump);
	}
	if (c->pd)
		pcap_close(c->pd);
	c->dump = NULL;
	c->pd = NULL;
	return rc;
}

/* One case, with its evidence pcap when asked; the result in c->r.
 * 0, or -1 when the evidence could not be written. */
static int run_case(struct cf *c, const struct cf_case *k)
{
	char rep[1024];
	uint64_t t0;
	int rc = 0;

	memset(&c->r, 0, sizeof(c->r));
	c->case_name = k->name;
	if (c->pcap_dir) {
		snprintf(c->r.pcap, sizeof(c->r.pcap), "%s/%s.pcap", c->pcap_dir, k->name);
		c->pd = pcap_open_dead(DLT_EN10MB, 65535);
		c->dump = c->pd ? pcap_dump_open(c->pd, c->r.pcap) : NULL;
		if (!c->dump) {
			if (c->pd)   /* libpcap's message names the file */
				fprintf(stderr, GEN_NAME " conform: %s\n", pcap_geterr(c->pd));
			else
				fprintf(stderr, GEN_NAME " conform: %s: out of memory\n", c->r.pcap);
			rc = -1;
		}
	}
	t0 = cf_now(c);
	k->run(c);
	if (!c->r.judged)
		cf_error(c, "the case reached no verdict");
	c->r.dur_ns = cf_now(c) - t0;
	c->io.ctl(c->io.ctx, "reset", rep, sizeof(rep));
	cf_free_engine(c);
	if (close_evidence(c))
		rc = -1;
	return rc;
}

/* 0, or -1 when the evidence folder cannot be made (said why). */
static int run_cases(struct cf *c, const struct conform_opts *o, struct cf_run *run)
{
	if (c->pcap_dir && mkdir(c->pcap_dir, 0755) && errno != EEXIST) {
		fprintf(stderr, GEN_NAME " conform: %s: %s\n", c->pcap_dir, strerror(errno));
		return -1;
	}
	for (unsigned i = 0; i < cf_n_cases && run->n < CF_MAX_RUN; i++) {
		const struct cf_case *k = &cf_cases[i];

		if (!case_selected(k->name, o->pat))
			continue;
		if (run_case(c, k))
			run->write_errors++;
		run->res[run->n] = c->r;
		run->ran[run->n++] = k;
		run->cnt[c->r.v]++;
		if (!o->json)
			cf_report_line(stdout, k, &c->r);
	}
	return 0;
}

static int report(const struct cf *c, const struct conform_opts *o, const struct cf_run *run)
{
	if (o->json)
		cf_report_json(stdout, c->is_reference ? "reference" : c->dev, run);
	else
		cf_report_totals(stdout, run);
	if (o->junit && cf_report_junit(o->junit, run))
		return 3;
	if (run->write_errors)
		return 3;
	return run->cnt[CF_ERROR] ? 3 : run->cnt[CF_FAIL] ? 1 : 0;
}

int gen_conform_main(int argc, char **argv)
{
	static struct cf c;
	static struct cf_run run;
	struct conform_opts o;
	struct cf_ref *rf = NULL;
	struct st_ref *sr = NULL;
	struct cf_live *lv = NULL;
	int rc;

	for (int i = 1; i + 1 < argc; i++)   /* the iWARP catalogue: conform_iwarp.c */
		if (!strcmp(argv[i], "--transport") && !strcmp(argv[i + 1], "iwarp"))
			return gen_conform_iwarp_main(argc, argv);
	rc = parse_opts(argc, argv, &o);
	if (rc >= 0)
		return rc;
	if (o.list) {
		for (unsigned i = 0; i < cf_n_cases; i++)
			printf("%-24s %-9s %s\n", cf_cases[i].name, cf_cases[i].role, cf_cases[i].summary);
		return 0;
	}
	if (o.ref < 0 && gen_iface_missing("conform", o.live.iface))
		return 1;   /* as rocetop's and every rocegen command's */
	memset(&c, 0, sizeof(c));
	memset(&run, 0, sizeof(run));
	c.verbose = o.verbose;
	c.pcap_dir = o.pcap_dir;
	if (o.source2) {
		if (o.ref >= 0 || inet_pton(AF_INET, o.source2, c.src2) != 1) {
			fprintf(stderr, GEN_NAME " conform: --source2 %s: %s\n", o.source2,
				o.ref >= 0 ? "not with --reference (it has its own)" : "not an IPv4 address");
			return 2;
		}
		c.have_src2 = 1;
	}
	if (o.ref >= 0)
		rf = open_reference(&c, o.ref, &sr);
	else
		lv = cf_live_open(&c, &o.live);
	if (!rf && !sr && !lv)
		return 2;
	if (open_target(&c, &o) || run_cases(&c, &o, &run))
		rc = 2;
	else
		rc = report(&c, &o, &run);
	if (rf)
		cf_ref_free(rf);
	st_ref_free(sr);
	cf_live_close(lv);
	return rc;
}
