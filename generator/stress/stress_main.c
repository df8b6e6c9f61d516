/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stress_main.c — `rocegen stress`: options, the adapter (the in-process
 * reference of stress_ref.c), the run (stress.c) and its verdicts
 * (stress_report.c).
 *
 *   rocegen stress -i IFACE --peer IP [--target HOST:PORT] [--device NAME] …
 *   rocegen stress --reference [good|nakstorm|bitflip|…] [--qps N] [--ops send,write,read,atomic]
 *                  [--sizes A-B] [--qd N] [--duration S | --messages N]
 *                  [--seed N] [--mtu N] [--faults SPEC] [--event SPEC]…
 *                  [--json] [--junit FILE] [--pcap-dir DIR] [-v]
 */
#include <arpa/inet.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "stress.h"
#include "gen.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: rocegen stress -i IFACE --peer IP [--target HOST:PORT] --key FILE [--device NAME]\n"
"                      [--gid-index N] [--src IP] [--dmac MAC] [options]\n"
"       rocegen stress --reference [good|nakstorm|bitflip|planted|pathloss|norecv|qpcache:N] [options]\n"
"       (either with --role requester [--rnr-timer N]: the adapter posts, rocegen responds)\n"
"options: [--qps N] [--ops send,write,read,atomic] [--sizes A-B]\n"
"                      [--qd N] [--duration S | --messages N] [--seed N] [--mtu N]\n"
"                      [--faults 'drop=P%%,dup=P%%,reorder=P%%,corrupt=P%%,ce=P%%,delay=P%%,rnr=P%%,lose=P%%']\n"
"                      [--delay-us N] [--event qp=Q,psn=OFF,iter=K,kind=drop|dup]…\n"
"                      [--ack-timeout E] [--rnr-timer N] [--rnr-retry N] [--time-limit S]\n"
"                      [--victim] [--interval S]\n"
"                      [--cnp-gap-us N] [--json] [--junit FILE] [--pcap-dir DIR] [--progress] [-v]\n"
"                      [--sweep-qps N,N,...]  (one run per QP count: messages/s, latency, the knee)\n"
"Many RC QPs against an adapter (the adapter as responder), a seeded fault mix on the\n"
"frames rocegen sends, every byte checked, the adapter's reaction times.\n"
"--ack-timeout E is the local ACK timeout exponent (4.096 us x 2^E, default 14); --timeout\n"
"and --dev are the old spellings of --ack-timeout and --device (until 0.2).\n"
"-i, --interface IFACE; -v, --verbose; -h, --help.  See rocegen(8).\n");
}

static int bad(const char *what, const char *arg)
{
	fprintf(stderr, GEN_NAME " stress: bad %s '%s' (see " GEN_NAME " stress --help)\n", what, arg);
	return 2;
}

static int parse_size(const char *s, uint32_t *v)
{
	char *e;
	unsigned long long x = strtoull(s, &e, 10);

	if (e == s)
		return -1;
	if (*e == 'k' || *e == 'K')
		x <<= 10, e++;
	else if (*e == 'm' || *e == 'M')
		x <<= 20, e++;
	if (*e || !x || x > (1u << 20))
		return -1;
	*v = (uint32_t)x;
	return 0;
}

static int parse_sizes(const char *arg, struct st_opts *o)
{
	char a[32], *dash;

	snprintf(a, sizeof(a), "%s", arg);
	if ((dash = strchr(a, '-')))
		*dash++ = 0;
	if (parse_size(a, &o->size_min) || parse_size(dash ? dash : a, &o->size_max) ||
	    o->size_min > o->size_max)
		return -1;
	return 0;
}

static int parse_ops(const char *arg, struct st_opts *o)
{
	char b[128], *save = NULL, *t;

	o->ops = 0;
	snprintf(b, sizeof(b), "%s", arg);
	for (t = strtok_r(b, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int k;

		for (k = 0; k < ST_N_OPS && strcmp(t, st_op_names[k]); k++)
			;
		if (k == ST_N_OPS)
			return -1;
		o->ops |= 1u << k;
	}
	return o->ops ? 0 : -1;
}

/* 'drop=0.5%,dup=0.25%' → parts per million */
static int parse_faults(const char *arg, struct st_opts *o)
{
	char b[256], *save = NULL, *t;

	snprintf(b, sizeof(b), "%s", arg);
	for (t = strtok_r(b, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(t, '='), *e;
		double pct;
		int k;

		if (!eq)
			return -1;
		*eq = 0;
		for (k = 0; k < STF_EXACT && strcmp(t, st_fault_names[k]); k++)
			;
		pct = strtod(eq + 1, &e);
		if (k == STF_EXACT || e == eq + 1 || strcmp(e, "%") || pct < 0 || pct > 100)
			return -1;
		o->ppm[k] = (uint32_t)(pct * 10000 + 0.5);
	}
	return 0;
}

/* 'qp=3,psn=5,iter=1,kind=drop' */
static int parse_event(const char *arg, struct st_opts *o)
{
	struct st_event *e = &o->ev[o->n_ev];
	char b[128], *save = NULL, *t;

	if (o->n_ev >= ST_MAX_EVENTS)
		return -1;
	memset(e, 0, sizeof(*e));
	e->iter = 1;
	e->kind = STF_DROP;
	snprintf(b, sizeof(b), "%s", arg);
	for (t = strtok_r(b, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(t, '=');

		if (!eq)
			return -1;
		*eq++ = 0;
		if (!strcmp(t, "qp"))
			e->qp = (unsigned)strtoul(eq, NULL, 0);
		else if (!strcmp(t, "psn"))
			e->psn_off = (uint32_t)strtoul(eq, NULL, 0) & 0xffffff;
		else if (!strcmp(t, "iter"))
			e->iter = (unsigned)strtoul(eq, NULL, 0);
		else if (!strcmp(t, "kind") && (!strcmp(eq, "drop") || !strcmp(eq, "dup")))
			e->kind = !strcmp(eq, "drop") ? STF_DROP : STF_DUP;
		else
			return -1;
	}
	if (!e->iter || e->qp >= o->qps)
		return -1;
	o->n_ev++;
	return 0;
}

#define SWEEP_MAX 32
#define SWEEP_KNEE 0.8   /* the knee: the first point past the peak below 80 % of it */

struct cli {
	struct st_opts o;
	struct cf_live_args live;
	const char *junit;
	int json, ref;
	unsigned qpcache;            /* --reference qpcache:N */
	unsigned sweep[SWEEP_MAX], n_sweep;   /* --sweep-qps */
};

static void defaults(struct cli *c)
{
	memset(c, 0, sizeof(*c));
	c->o.qps = 16;
	c->o.qd = 4;
	c->o.mtu = 1024;
	c->o.ops = (1u << ST_N_OPS) - 1;
	c->o.size_min = 1;
	c->o.size_max = 4096;
	c->o.messages = 100;
	c->o.seed = 1;
	c->o.timeout = 14;
	c->o.delay_ns = 50000;
	c->o.gid_index = 1;
	c->o.min_rnr = 12;
	c->o.rnr_retry = 7;
}

enum { O_REF = 256, O_QPS, O_OPS, O_SIZES, O_QD, O_DUR, O_MSGS, O_SEED, O_MTU, O_FAULTS, O_DELAY,
       O_EVENT, O_TIMEOUT, O_JSON, O_JUNIT, O_PCAP, O_PROGRESS, O_PEER, O_TARGET, O_KEY, O_DEV, O_GIDX,
       O_SRC, O_DMAC, O_ROLE, O_RNR, O_VICTIM, O_INTERVAL, O_CNPGAP, O_SWEEP, O_ACKTO, O_DEV_OLD,
       O_RNRRETRY, O_LIMIT };

/* Seconds (a decimal above 0, at most max) → ns; 0, or -1 when bad. */
static int secs_ns(const char *arg, double max, uint64_t *ns)
{
	char *e;
	double d = strtod(arg, &e);

	if (e == arg || *e || d <= 0 || d > max)
		return -1;
	*ns = (uint64_t)(d * 1e9);
	return 0;
}

/* The numeric options: 0 when taken, 2 when bad, 1 when ch is not one of them. */
static int opt_number(int ch, const char *arg, struct cli *c)
{
	char *e = NULL;
	unsigned long long v = arg ? strtoull(arg, &e, 0) : 0;
	int num_ok = arg && e != arg && !*e;

	switch (ch) {
	case O_QPS:
		if (!num_ok || !v || v > ST_MAX_QPS)
			return bad("--qps", arg);
		c->o.qps = (unsigned)v;
		return 0;
	case O_QD:
		if (!num_ok || !v || v > 32)
			return bad("--qd (1..32)", arg);
		c->o.qd = (unsigned)v;
		return 0;
	case O_DUR: return secs_ns(arg, 86400, &c->o.duration_ns) ? bad("--duration", arg) : 0;
	case O_MSGS: if (!num_ok || !v) return bad("--messages", arg); c->o.messages = v; return 0;
	case O_SEED: if (!num_ok) return bad("--seed", arg); c->o.seed = v; return 0;
	case O_MTU:
		if (!num_ok || (v != 256 && v != 512 && v != 1024 && v != 2048 && v != 4096))
			return bad("--mtu", arg);
		c->o.mtu = (unsigned)v;
		return 0;
	case O_DELAY: if (!num_ok) return bad("--delay-us", arg); c->o.delay_ns = v * 1000; return 0;
	case O_INTERVAL: return secs_ns(arg, 3600, &c->o.interval_ns) ? bad("--interval", arg) : 0;
	case O_CNPGAP: if (!num_ok) return bad("--cnp-gap-us", arg); c->o.cnp_gap_ns = v * 1000; return 0;
	case O_RNRRETRY:
		if (!num_ok || v > 7)
			return bad("--rnr-retry (0..7, 7: without end)", arg);
		c->o.rnr_retry = (uint8_t)v;
		return 0;
	case O_LIMIT: return secs_ns(arg, 86400, &c->o.limit_ns) ? bad("--time-limit", arg) : 0;
	case O_RNR:
		if (!num_ok || v > 31)
			return bad("--rnr-timer (0..31)", arg);
		c->o.min_rnr = (uint8_t)v;
		return 0;
	case O_TIMEOUT:
		/* the ACK timeout exponent, not seconds as recv's and client's --timeout */
		fprintf(stderr, GEN_NAME " stress: note: --timeout is the old spelling of --ack-timeout (until 0.2)\n");
		/* fall through */
	case O_ACKTO:
		if (!num_ok || !v || v > 31)
			return bad("--ack-timeout (1..31)", arg);
		c->o.timeout = (uint8_t)v;
		return 0;
	default:
		return 1;
	}
}

static int parse_ref(const char *arg, struct cli *c)
{
	if (!arg || !strcmp(arg, "good"))
		c->ref = 1 + ST_REF_GOOD;
	else if (!strcmp(arg, "nakstorm"))
		c->ref = 1 + ST_REF_NAKSTORM;
	else if (!strcmp(arg, "bitflip"))
		c->ref = 1 + ST_REF_BITFLIP;
	else if (!strcmp(arg, "planted"))
		c->ref = 1 + ST_REF_PLANTED;
	else if (!strcmp(arg, "pathloss"))
		c->ref = 1 + ST_REF_PATHLOSS;
	else if (!strcmp(arg, "norecv"))
		c->ref = 1 + ST_REF_NORECV;
	else if (!strncmp(arg, "qpcache:", 8)) {
		char *e;
		unsigned long v = strtoul(arg + 8, &e, 10);

		if (arg[8] < '0' || arg[8] > '9' || *e || !v || v > ST_MAX_QPS)
			return -1;
		c->ref = 1 + ST_REF_QPCACHE;
		c->qpcache = (unsigned)v;
	} else
		return -1;
	return 0;
}

/* '1,16,256' → ascending QP counts */
static int parse_sweep(const char *arg, struct cli *c)
{
	char b[256], *save = NULL, *t;

	c->n_sweep = 0;
	if (strlen(arg) >= sizeof(b) || arg[0] == ',' || strstr(arg, ",,") || arg[strlen(arg) - 1] == ',')
		return -1;
	snprintf(b, sizeof(b), "%s", arg);
	for (t = strtok_r(b, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *e;
		unsigned long v = strtoul(t, &e, 10);

		if (*t < '0' || *t > '9' || *e || !v || v > ST_MAX_QPS || c->n_sweep == SWEEP_MAX ||
		    (c->n_sweep && v <= c->sweep[c->n_sweep - 1]))
			return -1;
		c->sweep[c->n_sweep++] = (unsigned)v;
	}
	return c->n_sweep ? 0 : -1;
}

/* What the options say together; -1 to go on, or the exit status. */
static int combination(struct cli *c, const char *const *events, unsigned n_events)
{
	if (c->o.requester ? n_events > 0 || c->ref == 1 + ST_REF_NAKSTORM : c->o.ppm[STF_RNR] || c->o.ppm[STF_LOSE])
		return bad("combination: rnr= and lose= need --role requester, which takes neither --event nor nakstorm",
			   c->o.requester ? "--role requester" : "--faults");
	if (c->n_sweep && (c->o.requester || c->o.victim || n_events || c->junit))
		return bad("--sweep-qps (the adapter as responder, without --victim, --event or --junit)", "--sweep-qps");
	if (c->o.victim && (c->o.requester || !c->o.duration_ns || c->o.qps < 2))
		return bad("--victim (needs --duration, 2 QPs or more, the adapter as responder)", "--victim");
	for (unsigned i = 0; i < n_events; i++)   /* after --qps, whatever the order */
		if (parse_event(events[i], &c->o))
			return bad("--event", events[i]);
	return -1;
}

/* -1 to go on, or the exit status. */
static int parse_opts(int argc, char **argv, struct cli *c)
{
	static const struct option lo[] = {
		{ "reference", optional_argument, NULL, O_REF },  { "qps", required_argument, NULL, O_QPS },
		{ "ops", required_argument, NULL, O_OPS },   { "sizes", required_argument, NULL, O_SIZES },
		{ "qd", required_argument, NULL, O_QD },     { "duration", required_argument, NULL, O_DUR },
		{ "messages", required_argument, NULL, O_MSGS }, { "seed", required_argument, NULL, O_SEED },
		{ "mtu", required_argument, NULL, O_MTU },   { "faults", required_argument, NULL, O_FAULTS },
		{ "delay-us", required_argument, NULL, O_DELAY }, { "event", required_argument, NULL, O_EVENT },
		{ "ack-timeout", required_argument, NULL, O_ACKTO }, { "json", no_argument, NULL, O_JSON },
		{ "timeout", required_argument, NULL, O_TIMEOUT },   /* the old spelling */
		{ "junit", required_argument, NULL, O_JUNIT }, { "pcap-dir", required_argument, NULL, O_PCAP },
		{ "progress", no_argument, NULL, O_PROGRESS }, { "verbose", no_argument, NULL, 'v' },
		{ "interface", required_argument, NULL, 'i' }, { "peer", required_argument, NULL, O_PEER },
		{ "target", required_argument, NULL, O_TARGET }, { "device", required_argument, NULL, O_DEV },
		{ "key", required_argument, NULL, O_KEY },
		{ "dev", required_argument, NULL, O_DEV_OLD },     /* the old spelling */
		{ "gid-index", required_argument, NULL, O_GIDX }, { "src", required_argument, NULL, O_SRC },
		{ "dmac", required_argument, NULL, O_DMAC }, { "role", required_argument, NULL, O_ROLE },
		{ "rnr-timer", required_argument, NULL, O_RNR }, { "victim", no_argument, NULL, O_VICTIM },
		{ "rnr-retry", required_argument, NULL, O_RNRRETRY },
		{ "time-limit", required_argument, NULL, O_LIMIT },
		{ "interval", required_argument, NULL, O_INTERVAL },
		{ "cnp-gap-us", required_argument, NULL, O_CNPGAP },
		{ "sweep-qps", required_argument, NULL, O_SWEEP },
		{ "help", no_argument, NULL, 'h' },          { NULL, 0, NULL, 0 }
	};
	const char *events[ST_MAX_EVENTS];
	unsigned n_events = 0;
	int ch;

	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":i:vh", lo, NULL)) != -1) {
		int r = opt_number(ch, optarg, c);

		if (r != 1) {
			if (r)
				return r;
			continue;
		}
		switch (ch) {
		case O_REF:
			if (!optarg && optind < argc && argv[optind][0] != '-')
				optarg = argv[optind++];
			if (parse_ref(optarg, c))
				return bad("--reference (good|nakstorm|bitflip|planted|pathloss|norecv|qpcache:N)", optarg);
			break;
		case O_OPS: if (parse_ops(optarg, &c->o)) return bad("--ops", optarg); break;
		case O_SIZES: if (parse_sizes(optarg, &c->o)) return bad("--sizes", optarg); break;
		case O_FAULTS: if (parse_faults(optarg, &c->o)) return bad("--faults", optarg); break;
		case O_EVENT:
			if (n_events >= ST_MAX_EVENTS)
				return bad("--event (too many)", optarg);
			events[n_events++] = optarg;
			break;
		case O_JSON: c->json = 1; break;
		case O_SWEEP: if (parse_sweep(optarg, c)) return bad("--sweep-qps (ascending counts 1..16384)", optarg); break;
		case O_VICTIM: c->o.victim = 1; break;
		case O_JUNIT: c->junit = optarg; break;
		case O_PCAP: c->o.pcap_dir = optarg; break;
		case O_PROGRESS: c->o.progress = 1; break;
		case 'v': c->o.verbose++; break;
		case 'i': c->live.iface = optarg; break;
		case O_PEER: c->live.peer = optarg; break;
		case O_TARGET: c->live.target = optarg; break;
		case O_KEY: c->live.key = optarg; break;
		case O_DEV_OLD:
			fprintf(stderr, GEN_NAME " stress: note: --dev is the old spelling of --device (until 0.2)\n");
			/* fall through */
		case O_DEV: c->o.dev = optarg; break;
		case O_GIDX: c->o.gid_index = atoi(optarg); break;
		case O_SRC: c->live.src = optarg; break;
		case O_DMAC: c->live.dmac = optarg; break;
		case O_ROLE:
			if (strcmp(optarg, "requester") && strcmp(optarg, "responder"))
				return bad("--role (responder|requester)", optarg);
			c->o.requester = !strcmp(optarg, "requester");
			break;
		case 'h': usage(stdout); return 0;
		default:
			return gen_bad_opt("stress", ch, argv[optind - 1]);
		}
	}
	if (optind < argc)
		return bad("argument", argv[optind]);
	return combination(c, events, n_events);
}

struct cf_live *st_live_open(const struct cf_live_args *a, struct st_opts *o, struct cf_io *io)
{
	struct cf *cf = calloc(1, sizeof(*cf));
	struct cf_live *l;

	if (!cf)
		return NULL;
	if ((l = cf_live_open(cf, a))) {
		*io = cf->io;
		o->eth = cf->eth;
		o->ip = cf->ip;
		inet_ntop(AF_INET, cf->ip.src, o->our_gid, sizeof(o->our_gid));
	}
	free(cf);
	return l;
}

static struct cf_live *open_live(struct cli *c, struct cf_io *io)
{
	c->live.verbose = c->o.verbose;
	c->live.cmd = "stress";
	return st_live_open(&c->live, &c->o, io);
}

static int too_big(const struct st_opts *o)
{
	if ((uint64_t)o->qps * (o->size_max + 8) * (2 * o->qd + 1) * 2 > (3ull << 30)) {
		fprintf(stderr, GEN_NAME " stress: --qps × --qd × the largest size need over 3 GiB\n");
		return 1;
	}
	return 0;
}

/* The adapter (reference or live) for one run; 0, or the exit status. */
static int open_adapter(struct cli *c, struct cf_io *io, struct st_ref **ref, struct cf_live **live)
{
	*ref = NULL;
	*live = NULL;
	if (c->ref) {
		*ref = st_ref_open(c->ref - 1, &c->o, io);
		if (*ref && c->qpcache)
			st_ref_set_qpcache(*ref, c->qpcache);
	} else {
		*live = open_live(c, io);
	}
	if (!*ref && !*live) {
		fprintf(stderr, GEN_NAME " stress: %s\n", c->ref ? "no memory" : "no adapter (see above)");
		return c->ref ? 1 : 2;
	}
	return 0;
}

struct sweep_pt {
	unsigned qps, completed, error;
	uint64_t messages, integrity;
	double mps, sim_s;
	struct st_summary lat;
	int failed;
};

/* --sweep-qps: one run per QP count (a fresh adapter each), messages per
 * second of the io clock (simulated for the reference, monotonic for a real
 * adapter) and the latency of every operation; the knee is the first count
 * past the peak whose rate falls below SWEEP_KNEE of the peak. */
static int run_sweep(struct cli *c)
{
	struct sweep_pt pt[SWEEP_MAX];
	unsigned n = 0, ipk = 0;
	int knee = -1, any_failed = 0;
	FILE *t = c->json ? stderr : stdout;

	for (unsigned k = 0; k < c->n_sweep; k++) {
		struct st_ref *ref;
		struct cf_live *live;
		struct st_result res;
		struct st_dist all = { 0 };
		struct cf_io io;
		struct sweep_pt *p = &pt[n];
		int rc;

		c->o.qps = c->sweep[k];
		if (too_big(&c->o))
			return 2;
		if ((rc = open_adapter(c, &io, &ref, &live)))
			return rc;
		memset(&res, 0, sizeof(res));
		rc = st_run(&c->o, &io, &res, c->o.progress ? stderr : NULL);
		st_ref_free(ref);
		cf_live_close(live);
		st_checks(&c->o, &res, rc);
		memset(p, 0, sizeof(*p));
		p->qps = c->o.qps;
		p->messages = res.messages;
		p->completed = res.qps_completed;
		p->error = res.qps_error;
		p->integrity = res.integrity_errors;
		p->sim_s = (double)res.sim_ns / 1e9;
		p->mps = res.sim_ns ? (double)res.messages * 1e9 / (double)res.sim_ns : 0;
		for (int m = STM_LAT_SEND; m <= STM_LAT_ATOMIC; m++)
			for (size_t i = 0; i < res.m[m].n; i++)
				st_dist_add(&all, res.m[m].v[i]);
		st_summarize(&all, &p->lat);
		free(all.v);
		p->failed = rc || st_any_failed(&res);
		if (p->failed) {
			fprintf(stderr, GEN_NAME " stress: sweep at %u QPs:\n", p->qps);
			st_report_table(stderr, &c->o, &res);
		}
		any_failed |= p->failed;
		st_result_free(&res);
		if (p->mps > pt[ipk].mps)
			ipk = n;
		n++;
		if (c->o.verbose || c->o.progress)
			fprintf(stderr, "sweep: %u QPs, %.0f messages/s\n", p->qps, p->mps);
	}
	for (unsigned i = ipk + 1; i < n && knee < 0; i++)
		if (pt[i].mps < SWEEP_KNEE * pt[ipk].mps)
			knee = (int)i;
	fprintf(t, "%-8s %14s %10s %10s %10s %9s %s\n", "qps", "messages/s", "p50_us", "p99_us", "messages", "completed", "checks");
	for (unsigned i = 0; i < n; i++)
		fprintf(t, "%-8u %14.0f %10.2f %10.2f %10llu %9u %s%s\n", pt[i].qps, pt[i].mps, (double)pt[i].lat.p50 / 1e3,
			(double)pt[i].lat.p99 / 1e3, (unsigned long long)pt[i].messages, pt[i].completed,
			pt[i].failed ? "FAIL" : "PASS", i == ipk ? "  peak" : (int)i == knee ? "  knee" : "");
	if (knee >= 0)
		fprintf(t, "knee at %u QPs: %.0f messages/s, %.0f %% of the peak (%.0f at %u QPs; the rule: the first point past the peak below %.0f %% of it)\n",
			pt[knee].qps, pt[knee].mps, 100 * pt[knee].mps / pt[ipk].mps, pt[ipk].mps, pt[ipk].qps,
			100 * SWEEP_KNEE);
	else
		fprintf(t, "no knee: no point past the peak (%.0f messages/s at %u QPs) falls below %.0f %% of it\n",
			pt[ipk].mps, pt[ipk].qps, 100 * SWEEP_KNEE);
	if (c->json) {
		printf("{\"adapter\": \"%s\", \"clock\": \"%s\", \"qd\": %u, \"messages_per_qp\": %llu, \"sweep\": [",
		       c->ref ? "reference" : "live", c->ref ? "simulated" : "monotonic", c->o.qd,
		       (unsigned long long)c->o.messages);
		for (unsigned i = 0; i < n; i++)
			printf("%s{\"qps\": %u, \"messages_per_s\": %.0f, \"p50_us\": %.3f, \"p99_us\": %.3f, \"messages\": %llu, "
			       "\"qps_completed\": %u, \"qps_error\": %u, \"integrity_errors\": %llu, \"sim_s\": %.6f, \"verdict\": \"%s\"}",
			       i ? ", " : "", pt[i].qps, pt[i].mps, (double)pt[i].lat.p50 / 1e3, (double)pt[i].lat.p99 / 1e3,
			       (unsigned long long)pt[i].messages, pt[i].completed, pt[i].error,
			       (unsigned long long)pt[i].integrity, pt[i].sim_s, pt[i].failed ? "FAIL" : "PASS");
		printf("], \"peak_qps\": %u, \"peak_messages_per_s\": %.0f, \"knee_qps\": ", pt[ipk].qps, pt[ipk].mps);
		if (knee >= 0)
			printf("%u", pt[knee].qps);
		else
			printf("null");
		printf(", \"knee_rule\": \"the first point past the peak below %.0f %% of the peak\"}\n", 100 * SWEEP_KNEE);
	}
	return any_failed ? 1 : 0;
}

int gen_stress_main(int argc, char **argv)
{
	struct cli c;
	struct cf_io io;
	struct st_result res;
	struct st_ref *ref = NULL;
	struct cf_live *live = NULL;
	int rc;

	defaults(&c);
	if ((rc = parse_opts(argc, argv, &c)) >= 0)
		return rc;
	if (!c.ref && gen_iface_missing("stress", c.live.iface))
		return 1;   /* as rocetop's and every rocegen command's */
	if (c.n_sweep)
		return run_sweep(&c);
	if (too_big(&c.o))
		return 2;
	if ((rc = open_adapter(&c, &io, &ref, &live)))
		return rc;
	memset(&res, 0, sizeof(res));
	rc = st_run(&c.o, &io, &res, c.o.progress || isatty(2) ? stderr : NULL);
	if (c.ref == 1 + ST_REF_PATHLOSS && ref)   /* the truth, to hold path_loss against */
		fprintf(stderr, "reference pathloss: %llu request packets lost on the path (rocegen was not told)\n",
			(unsigned long long)st_ref_path_dropped(ref));
	st_ref_free(ref);
	cf_live_close(live);
	st_checks(&c.o, &res, rc);
	/* --json: stdout holds the JSON alone (as client's and conform's), the table goes to stderr */
	st_report_table(c.json ? stderr : stdout, &c.o, &res);
	if (c.json)
		st_report_json(stdout, &c.o, &res);
	if (c.junit && st_report_junit(c.junit, &res))
		rc = -1;
	rc = rc || st_any_failed(&res) ? 1 : 0;
	st_result_free(&res);
	return rc;
}
