/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fingerprint.c — `rocegen fingerprint`: a Lumina-style congestion-control
 * fingerprint of an adapter, as responder (DCQCN's notification point) and
 * as requester (its reaction point).
 *
 *   rocegen fingerprint --reference cnp-qp|cnp-ip|cnp-port|no-cc[:US]|good [--json]
 *   rocegen fingerprint -i IF --peer IP --target HOST:PORT --key FILE
 *                       [--device DEV] --source2 IP [--json]
 *
 * The responder phases (solo, mixed, nak) and the rules that decide the
 * pacing scope are fp_probe.c's (shared with the conform cases
 * resp.cnp-scope and resp.cnp-nak).  QPs 0 and 1 come from our address,
 * QP 2 from --source2 (a second address of ours on IF, which the adapter's
 * host must reach: our kernel answers its ARP, so the address must be
 * assigned to IF; the reference uses 192.0.2.3).  The adapter's own
 * counters are read before and after through rocetarget's `counters`:
 * np_cnp_sent and np_ecn_marked_roce_packets (the names stress's
 * counters_vs_wire reads; null when the driver has none) and every counter
 * that moved, by its driver's name.
 *
 * Then the adapter as requester (DCQCN's reaction point): it posts 600
 * WRITEs of 1 KiB on one QP (`load`), rocegen ACKs each at once and sends
 * one CNP after 200 have come: the median gap between requests before
 * against after (past the 32 following the CNP) gives the rate cut (20 %
 * or more, and 20 % more than a control load's — the same 600 WRITEs just
 * before, no CNP — is a reaction), the time from the CNP to the last request
 * before the first gap 1.5 times the old one the reaction time.
 *
 * The reference adapter: stress_ref.c's cnp-* modes (which exist to test
 * the classifier) and `good`, whose CNPs come from lib/qp's responder (per
 * QP, 50 us).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "gen.h"
#include "stress.h"
#include "fp.h"
#include "ctl.h"

int gen_fingerprint_main(int argc, char **argv);

/* ---- the adapter's counters, before and after ---- */

#define FP_CTRS 128

struct fp_ctrs {
	unsigned n;
	char driver[32];
	char name[FP_CTRS][48];
	uint64_t v[FP_CTRS];
};

/* rocetarget's `counters` reply ("ok driver=D name=value …"); 0, or -1 with f->err */
static int fp_read_ctrs(struct fp *f, struct fp_ctrs *c)
{
	static char rep[CTL_LINE_MAX];
	char *save = NULL, *tok;

	memset(c, 0, sizeof(*c));
	if (fp_ctl(f, rep, sizeof(rep), "counters"))
		return -1;
	ctl_get(rep, "driver", c->driver, sizeof(c->driver));
	for (tok = strtok_r(rep, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(tok, '=');

		if (!eq || eq == tok || c->n == FP_CTRS || !strncmp(tok, "driver=", 7) ||
		    (size_t)(eq - tok) >= sizeof(c->name[0]))
			continue;
		snprintf(c->name[c->n], sizeof(c->name[0]), "%.*s", (int)(eq - tok), tok);
		c->v[c->n++] = strtoull(eq + 1, NULL, 10);
	}
	return 0;
}

/* The advance of counter name from a to b; -1 when either lacks it. */
static int64_t fp_ctr_delta(const struct fp_ctrs *a, const struct fp_ctrs *b, const char *name)
{
	for (unsigned i = 0; i < b->n; i++)
		if (!strcmp(b->name[i], name))
			for (unsigned j = 0; j < a->n; j++)
				if (!strcmp(a->name[j], name))
					return b->v[i] >= a->v[j] ? (int64_t)(b->v[i] - a->v[j]) : -1;
	return -1;
}

/* "name": delta of the counter (null when the adapter lacks it) */
static void fp_json_ctr(const struct fp_ctrs *a, const struct fp_ctrs *b, const char *name)
{
	int64_t d = fp_ctr_delta(a, b, name);

	if (d < 0)
		printf("\"%s\": null", name);
	else
		printf("\"%s\": %lld", name, (long long)d);
}

/* {"name": delta, …} of every counter that moved */
static void fp_json_moved(const struct fp_ctrs *a, const struct fp_ctrs *b)
{
	int first = 1;

	printf("{");
	for (unsigned i = 0; i < b->n; i++) {
		int64_t d = fp_ctr_delta(a, b, b->name[i]);

		if (d > 0) {
			printf("%s\"%s\": %lld", first ? "" : ", ", b->name[i], (long long)d);
			first = 0;
		}
	}
	printf("}");
}

static void fp_text_moved(const struct fp_ctrs *a, const struct fp_ctrs *b)
{
	int first = 1;

	for (unsigned i = 0; i < b->n; i++) {
		int64_t d = fp_ctr_delta(a, b, b->name[i]);

		if (d > 0) {
			printf("%s%s +%lld", first ? "" : ", ", b->name[i], (long long)d);
			first = 0;
		}
	}
	printf("%s\n", first ? "none" : "");
}
/* ---- the adapter as requester: the reaction point ---- */

#define RP_MSGS 600                  /* WRITEs the adapter posts (1 KiB each, one packet) */
#define RP_CNP_AT 200                /* the CNP goes out after this many have arrived */
#define RP_WIDE 1.5                  /* a gap this much over the baseline: the rate was cut */
#define RP_MIN_CUT 0.2               /* the least cut of the rate that counts as a reaction */

struct fp_rp {
	int measured;                    /* the adapter ran its load */
	uint64_t n, t_cnp;
	uint64_t *ts;                    /* arrival of each request */
	double base_ns, after_ns, rate_cut, reaction_us;
	double cut;                      /* 1 - base/after as measured, 0 when not slower */
	double control_cut;              /* the same of the control load, without a CNP */
	int reacted;
};

static double fp_median_gap(const uint64_t *ts, uint64_t from, uint64_t to)
{
	uint64_t g[RP_MSGS];
	size_t n = 0;

	for (uint64_t i = from + 1; i < to; i++)
		g[n++] = ts[i] - ts[i - 1];
	if (!n)
		return 0;
	qsort(g, n, sizeof(*g), fp_u64cmp);
	return (double)g[n / 2];
}

/* ACK of the adapter's request psn (MSN msn), or a CNP to its QP. */
static int fp_send_ack(struct fp *f, uint32_t dqpn, uint32_t psn, uint32_t msn, int cnp)
{
	struct roce_frame_spec s;
	uint8_t b[128];
	int n;

	fp_spec(f, &s, 0);
	if (cnp) {
		roce_spec_cnp(&s, dqpn);
	} else {
		s.ip.ecn = 2;
		s.bth.opcode = ROCE_OP_ACK;
		s.bth.dqpn = dqpn;
		s.bth.psn = psn & 0xffffff;
		s.ext.syndrome = 0x1f;   /* ACK, no credit count */
		s.ext.msn = msn & 0xffffff;
	}
	if ((n = roce_build(b, sizeof(b), &s)) < 0)
		return -1;
	return f->io->send(f->io->ctx, b, (uint32_t)n) < 0 ? -1 : 0;
}

/* The adapter posts RP_MSGS WRITEs of 1 KiB to us on one QP; we ACK each at
 * once and, when cnp, send one CNP after RP_CNP_AT have arrived: the median
 * gap between requests before that point against after it gives the cut
 * (rp->cut; fp_react() decides against the control load's). */
static int fp_reaction(struct fp *f, struct fp_rp *rp, int cnp)
{
	char rep[512];
	unsigned id, mr;
	uint32_t dut_qpn, msn = 0;
	uint64_t deadline;
	uint8_t b[2048];

	memset(rp, 0, sizeof(*rp));
	if (!(rp->ts = calloc(RP_MSGS, sizeof(*rp->ts))))
		return -1;
	if (fp_ctl(f, rep, sizeof(rep), "reset") || fp_ctl(f, rep, sizeof(rep), "mr len=65536 access=w"))
		return -1;
	mr = (unsigned)ctl_u64(rep, "mr", 0);
	if (fp_ctl(f, rep, sizeof(rep), "qp"))
		return -1;
	id = (unsigned)ctl_u64(rep, "qp", 0);
	dut_qpn = (uint32_t)ctl_u64(rep, "qpn", 0);
	if (fp_ctl(f, rep, sizeof(rep), "connect qp=%u rqpn=0x%x psn=0 rpsn=0 mtu=1024 timeout=14 rgid=%u.%u.%u.%u", id,
		   FP_QPN0, f->q[0].src[0], f->q[0].src[1], f->q[0].src[2], f->q[0].src[3]) ||
	    fp_ctl(f, rep, sizeof(rep), "load qp=%u mr=%u rva=0x10000 rkey=0x77 n=%u qd=16 ops=%u min=1024 max=1024 seed=1 idx=0",
		   id, mr, RP_MSGS, CTL_WL_WRITE))
		return -1;
	deadline = f->io->now(f->io->ctx) + f->tm->load_ns;
	while (rp->n < RP_MSGS) {
		struct roce_pkt p;
		uint32_t len;
		uint64_t ts;
		int rc = f->io->recv(f->io->ctx, b, sizeof(b), &len, &ts, deadline);

		if (rc < 0)
			return -1;
		if (!rc)
			break;
		roce_decode(&p, NULL, ROCE_LINK_ETHERNET, b, len, len);
		if (!p.bth_off || p.dqpn != FP_QPN0 || p.opcode != ROCE_OP_WRITE_ONLY)
			continue;
		rp->ts[rp->n++] = ts;
		if (fp_send_ack(f, dut_qpn, p.psn, ++msn, 0))
			return -1;
		if (cnp && rp->n == RP_CNP_AT) {
			rp->t_cnp = f->io->now(f->io->ctx);
			if (fp_send_ack(f, dut_qpn, 0, 0, 1))
				return -1;
		}
	}
	rp->measured = rp->n == RP_MSGS;
	if (!rp->measured)
		return 0;
	/* the medians before and well after the CNP (past a window of 16 already
	 * posted): a cut of RP_MIN_CUT or more is a reaction */
	rp->base_ns = fp_median_gap(rp->ts, RP_CNP_AT / 4, RP_CNP_AT);
	rp->after_ns = fp_median_gap(rp->ts, RP_CNP_AT + 32, rp->n);
	rp->cut = rp->after_ns > 0 && rp->after_ns > rp->base_ns ? 1.0 - rp->base_ns / rp->after_ns : 0;
	return 0;
}

/* The cut after the CNP is a reaction when it is RP_MIN_CUT or more and
 * exceeds the control load's (the same load, no CNP: an adapter whose rate
 * drifts by itself, as rxe's under TCG, slows there as much) by as much; the
 * reaction time from the CNP to the last request before the first gap
 * RP_WIDE times the baseline. */
static void fp_react(struct fp_rp *rp, const struct fp_rp *control)
{
	rp->control_cut = control->measured ? control->cut : 0;
	rp->reacted = rp->cut >= RP_MIN_CUT && rp->cut - rp->control_cut >= RP_MIN_CUT;
	rp->rate_cut = rp->reacted ? rp->cut : 0;
	for (uint64_t i = RP_CNP_AT; rp->reacted && i < rp->n; i++)
		if ((double)(rp->ts[i] - rp->ts[i - 1]) >= RP_WIDE * rp->base_ns) {
			rp->reaction_us = rp->ts[i - 1] > rp->t_cnp ? (double)(rp->ts[i - 1] - rp->t_cnp) / 1e3 : 0;
			break;
		}
}

static double us(uint64_t ns)
{
	return (double)ns / 1000.0;
}

struct fp_out {
	const char *adapter;             /* "reference cnp-qp", "rxe0 (rocetarget 10.99.0.1:7562)" */
	const struct fp_ctrs *c0, *c1;   /* around the responder phases */
	const struct fp_ctrs *r0, *r1;   /* around the requester phase */
};

static void fp_report_json(const struct fp *f, const struct fp_verdict *v, const struct fp_rp *rp,
			   const struct fp_out *o)
{
	printf("{\"adapter\": ");
	cf_json_str(stdout, o->adapter);
	printf(", \"verdict\": \"%s\", \"why\": \"%s\", \"cnp\": {\"sent\": %llu, \"pacing\": ", v->verdict,
	       v->why ? v->why : "", (unsigned long long)v->sent);
	if (v->pacing)
		printf("\"%s\"", v->pacing);
	else
		printf("null");
	if (v->min_ns)
		printf(", \"min_interval_us\": %.3f, \"p50_interval_us\": %.3f", us(v->min_ns), us(v->p50_ns));
	else
		printf(", \"min_interval_us\": null, \"p50_interval_us\": null");
	printf(", \"with_nak\": %s}, ", v->with_nak ? "true" : "false");
	if (!rp->measured)
		printf("\"reaction\": {\"rate_cut\": null, \"reaction_us\": null, \"measured\": false, \"requests\": %llu",
		       (unsigned long long)rp->n);
	else if (!rp->reacted)
		printf("\"reaction\": {\"rate_cut\": 0, \"reaction_us\": null, \"measured\": true, \"requests\": %llu, "
		       "\"gap_before_ns\": %.0f, \"gap_after_ns\": %.0f",
		       (unsigned long long)rp->n, rp->base_ns, rp->after_ns);
	else
		printf("\"reaction\": {\"rate_cut\": %.3f, \"reaction_us\": %.3f, \"measured\": true, \"requests\": %llu, "
		       "\"gap_before_ns\": %.0f, \"gap_after_ns\": %.0f",
		       rp->rate_cut, rp->reaction_us, (unsigned long long)rp->n, rp->base_ns, rp->after_ns);
	if (rp->measured)   /* the cuts as measured, below the threshold too */
		printf(", \"cut_measured\": %.3f, \"control_cut\": %.3f", rp->cut, rp->control_cut);
	printf(", \"counters_moved\": ");
	fp_json_moved(o->r0, o->r1);
	printf("}, \"evidence\": {\"request_gap_us\": %.3f, \"phase_us\": %.0f, \"quiet_us\": %.0f, \"scope_ratio\": %.1f, "
	       "\"phases\": {", us(f->tm->gap_ns), us(f->tm->phase_ns), us(f->tm->quiet_ns), FP_SCOPE_RATIO);
	for (int ph = 0; ph < FP_PH_N; ph++) {
		printf("%s\"%s\": {\"requests\": %llu, \"ce_marked\": %llu, \"naks\": %llu, \"cnp_per_qp\": [",
		       ph ? ", " : "", fp_phase_names[ph], (unsigned long long)f->sent[ph], (unsigned long long)f->ce[ph],
		       (unsigned long long)f->naks[ph]);
		for (int i = 0; i < FP_QPS; i++)
			printf("%s%llu", i ? ", " : "", (unsigned long long)f->cnp[ph][i]);
		printf("], \"acks_per_qp\": [");
		for (int i = 0; i < FP_QPS; i++)
			printf("%s%llu", i ? ", " : "", (unsigned long long)f->acks[ph][i]);
		printf("], \"min_interval_us_per_qp\": [");
		for (int i = 0; i < FP_QPS; i++)
			if (f->q[i].min_gap[ph])
				printf("%s%.3f", i ? ", " : "", us(f->q[i].min_gap[ph]));
			else
				printf("%snull", i ? ", " : "");
		printf("]");
		if (ph == FP_PH_MIXED)
			printf(", \"cnp_per_pair\": {\"%u.%u.%u.%u\": %llu, \"%u.%u.%u.%u\": %llu}",
			       f->q[0].src[0], f->q[0].src[1], f->q[0].src[2], f->q[0].src[3], (unsigned long long)v->pair_a,
			       f->q[2].src[0], f->q[2].src[1], f->q[2].src[2], f->q[2].src[3], (unsigned long long)v->pair_b);
		printf("}");
	}
	printf("}, \"counters\": {\"driver\": ");
	cf_json_str(stdout, o->c1->driver);
	printf(", ");
	fp_json_ctr(o->c0, o->c1, "np_cnp_sent");
	printf(", ");
	fp_json_ctr(o->c0, o->c1, "np_ecn_marked_roce_packets");
	printf(", \"moved\": ");
	fp_json_moved(o->c0, o->c1);
	printf("}}}\n");
}

static void fp_report_text(const struct fp *f, const struct fp_verdict *v, const struct fp_rp *rp,
			   const struct fp_out *o)
{
	int64_t dcnp = fp_ctr_delta(o->c0, o->c1, "np_cnp_sent"), decn = fp_ctr_delta(o->c0, o->c1, "np_ecn_marked_roce_packets");

	printf("congestion fingerprint of %s: %s\n", o->adapter, v->verdict);
	if (v->pacing)
		printf("  CNP pacing     per %s, least interval %.1f us (median %.1f us)\n",
		       !strcmp(v->pacing, "ip_pair") ? "IP pair" : v->pacing, us(v->min_ns), us(v->p50_ns));
	else
		printf("  CNP pacing     none\n");
	printf("  why            %s\n", v->why ? v->why : "");
	printf("  CNP with NAK   %s (%llu CNPs beside %llu sequence NAKs, no request marked)\n",
	       v->with_nak ? "yes" : "no", (unsigned long long)f->cnp[FP_PH_NAK][0], (unsigned long long)f->naks[FP_PH_NAK]);
	printf("  solo           QP 0: %llu CNPs for %llu CE-marked requests in %.0f us\n",
	       (unsigned long long)f->cnp[FP_PH_SOLO][0], (unsigned long long)f->ce[FP_PH_SOLO], us(f->tm->phase_ns));
	printf("  mixed          QP 0 %llu, QP 1 %llu (pair %u.%u.%u.%u: %llu), QP 2 %llu (pair %u.%u.%u.%u: %llu) for %llu CE-marked\n",
	       (unsigned long long)f->cnp[FP_PH_MIXED][0], (unsigned long long)f->cnp[FP_PH_MIXED][1],
	       f->q[0].src[0], f->q[0].src[1], f->q[0].src[2], f->q[0].src[3], (unsigned long long)v->pair_a,
	       (unsigned long long)f->cnp[FP_PH_MIXED][2],
	       f->q[2].src[0], f->q[2].src[1], f->q[2].src[2], f->q[2].src[3], (unsigned long long)v->pair_b,
	       (unsigned long long)f->ce[FP_PH_MIXED]);
	printf("  counters       np_cnp_sent ");
	dcnp < 0 ? printf("none") : printf("+%lld", (long long)dcnp);
	printf(", np_ecn_marked_roce_packets ");
	decn < 0 ? printf("none") : printf("+%lld", (long long)decn);
	printf(" (wire: %llu CNPs, %llu marked)\n", (unsigned long long)v->sent,
	       (unsigned long long)(f->ce[FP_PH_SOLO] + f->ce[FP_PH_MIXED]));
	printf("  moved          ");
	fp_text_moved(o->c0, o->c1);
	if (!rp->measured)
		printf("  reaction       not measured (%llu of %d requests came)\n", (unsigned long long)rp->n, RP_MSGS);
	else if (!rp->reacted)
		printf("  reaction       none: one CNP after %d of %d WRITEs, the gap between requests %.0f ns before, %.0f after "
		       "(cut %.0f %%; the control load without a CNP %.0f %%)\n",
		       RP_CNP_AT, RP_MSGS, rp->base_ns, rp->after_ns, 100 * rp->cut, 100 * rp->control_cut);
	else
		printf("  reaction       rate cut %.0f %% %.2f us after one CNP (the gap between requests %.0f ns before, %.0f after)\n",
		       100 * rp->rate_cut, rp->reaction_us, rp->base_ns, rp->after_ns);
}

static void fp_usage(FILE *out)
{
	fprintf(out, "usage: " GEN_NAME " fingerprint --reference cnp-qp|cnp-ip|cnp-port|no-cc[:US]|good [--json]\n"
		     "       " GEN_NAME " fingerprint -i IF --peer IP --target HOST:PORT --key FILE [--device DEV]\n"
		     "                          --source2 IP [--json]\n"
		     "  CE-marked requests in exact patterns, three QPs over two IP pairs (--source2: a second\n"
		     "  address of ours on IF): does the adapter send CNPs, their least interval, whether it\n"
		     "  paces them per QP, per IP pair or per port, whether a CNP accompanies a sequence NAK;\n"
		     "  then its rate after one CNP.  -i, --interface IF; -h, --help: this text.  See rocegen(8).\n");
}

static int fp_parse_ref(const char *arg, int *mode, uint64_t *gap)
{
	static const char *const names[] = { "cnp-qp", "cnp-ip", "cnp-port", "no-cc" };
	const char *colon = strchr(arg, ':');
	size_t n = colon ? (size_t)(colon - arg) : strlen(arg);

	*mode = -1;
	*gap = 0;
	if (!strcmp(arg, "good")) {   /* lib/qp's own notification point: per QP, 50 us */
		*mode = ST_REF_GOOD;
		return 0;
	}
	for (int i = 0; i < 4; i++)
		if (strlen(names[i]) == n && !strncmp(arg, names[i], n))
			*mode = ST_REF_CNP_QP + i;
	if (*mode < 0 || (colon && *mode == ST_REF_NO_CC))
		return -1;
	*gap = 0;
	if (colon) {
		char *end;
		unsigned long long v;

		errno = 0;
		v = strtoull(colon + 1, &end, 10);
		if (!colon[1] || *end || errno || !v || v > 1000000 || colon[1] == '-')
			return -1;
		*gap = v * 1000;
	}
	return 0;
}

struct fp_cli {
	int mode, json;
	uint64_t gap;
	const char *name, *device, *source2;
	struct cf_live_args live;
};

static int fp_opts(int argc, char **argv, struct fp_cli *c)
{
	enum { O_REF = 256, O_JSON, O_PEER, O_TARGET, O_KEY, O_DEV, O_SRC2 };
	static const struct option lo[] = {
		{ "reference", required_argument, NULL, O_REF }, { "json", no_argument, NULL, O_JSON },
		{ "interface", required_argument, NULL, 'i' },   { "peer", required_argument, NULL, O_PEER },
		{ "target", required_argument, NULL, O_TARGET }, { "key", required_argument, NULL, O_KEY },
		{ "device", required_argument, NULL, O_DEV },    { "source2", required_argument, NULL, O_SRC2 },
		{ "help", no_argument, NULL, 'h' },              { NULL, 0, NULL, 0 }
	};
	int ch;

	memset(c, 0, sizeof(*c));
	c->mode = -1;
	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":hi:", lo, NULL)) != -1) {
		switch (ch) {
		case O_REF:
			if (fp_parse_ref(optarg, &c->mode, &c->gap)) {
				fprintf(stderr, GEN_NAME " fingerprint: bad --reference '%s' (cnp-qp|cnp-ip|cnp-port|no-cc|good, cnp-*:US)\n",
					optarg);
				return 2;
			}
			c->name = optarg;
			break;
		case O_JSON: c->json = 1; break;
		case 'i': c->live.iface = optarg; break;
		case O_PEER: c->live.peer = optarg; break;
		case O_TARGET: c->live.target = optarg; break;
		case O_KEY: c->live.key = optarg; break;
		case O_DEV: c->device = optarg; break;
		case O_SRC2: c->source2 = optarg; break;
		case 'h': fp_usage(stdout); return 0;
		case ':':
			fprintf(stderr, GEN_NAME " fingerprint: option '%s' needs a value\n", argv[optind - 1]);
			return 2;
		default:
			fprintf(stderr, GEN_NAME " fingerprint: unknown option '%s' (see " GEN_NAME " fingerprint --help)\n",
				argv[optind - 1]);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, GEN_NAME " fingerprint: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (c->mode >= 0 && (c->live.iface || c->live.peer || c->live.target || c->live.key || c->device || c->source2)) {
		fprintf(stderr, GEN_NAME " fingerprint: --reference takes none of -i, --peer, --target, --key, --device, --source2\n");
		return 2;
	}
	if (c->mode < 0 && (!c->live.iface || !c->live.peer || !c->source2)) {
		fprintf(stderr, GEN_NAME " fingerprint: give --reference MODE, or -i IF --peer IP --source2 IP (and --target, --key)\n");
		return 2;
	}
	return -1;
}

/* The live adapter: the wire and rocetarget (conform_live.c), hello and
 * open, and a UDP socket on --source2:4791 (without one our kernel answers
 * the adapter's frames to it with ICMP port unreachable; binding also proves
 * the address is ours).  0, or the exit status after one line. */
static int fp_open_live(struct fp_cli *c, struct fp *f, struct cf_io *io, struct cf_live **lv, int *udp,
			char *adapter, size_t cap)
{
	struct cf *cf = calloc(1, sizeof(*cf));
	struct sockaddr_in sa;
	char rep[512], req[128], dev[64] = "";
	uint8_t s2[4];

	*udp = -1;
	if (!cf)
		return fprintf(stderr, GEN_NAME " fingerprint: no memory\n"), 1;
	if (inet_pton(AF_INET, c->source2, s2) != 1) {
		free(cf);
		return fprintf(stderr, GEN_NAME " fingerprint: --source2 %s: not an IPv4 address\n", c->source2), 2;
	}
	if (gen_iface_missing("fingerprint", c->live.iface)) {
		free(cf);
		return 1;
	}
	c->live.cmd = "fingerprint";
	if (!(*lv = cf_live_open(cf, &c->live))) {
		free(cf);
		return 1;
	}
	*io = cf->io;
	memcpy(f->us_mac, cf->eth.src, 6);
	memcpy(f->dut_mac, cf->eth.dst, 6);
	memcpy(f->dut_ip, cf->ip.dst, 4);
	memcpy(f->q[0].src, cf->ip.src, 4);
	memcpy(f->q[1].src, cf->ip.src, 4);
	memcpy(f->q[2].src, s2, 4);
	free(cf);
	if (!memcmp(s2, f->q[0].src, 4))
		return fprintf(stderr, GEN_NAME " fingerprint: --source2 %s is our first address: give another\n",
			       c->source2), 2;
	*udp = socket(AF_INET, SOCK_DGRAM, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons(ROCE_UDP_PORT);
	memcpy(&sa.sin_addr, s2, 4);
	if (*udp < 0 || bind(*udp, (struct sockaddr *)&sa, sizeof(sa)))
		return fprintf(stderr, GEN_NAME " fingerprint: --source2 %s: cannot bind UDP %d there (%s): add it to %s\n",
			       c->source2, ROCE_UDP_PORT, strerror(errno), c->live.iface), 1;
	snprintf(req, sizeof(req), "open%s%.64s gid_index=1", c->device ? " dev=" : "", c->device ? c->device : "");
	if (io->ctl(io->ctx, "hello", rep, sizeof(rep)) || io->ctl(io->ctx, req, rep, sizeof(rep)))
		return fprintf(stderr, GEN_NAME " fingerprint: rocetarget: %s\n", rep), 1;
	ctl_get(rep, "dev", dev, sizeof(dev));
	snprintf(adapter, cap, "%s (rocetarget %s)", dev[0] ? dev : "?", c->live.target ? c->live.target : c->live.peer);
	return 0;
}

int gen_fingerprint_main(int argc, char **argv)
{
	static const uint8_t us_mac[6] = { 2, 0, 0, 0, 0, 1 }, dut_mac[6] = { 2, 0, 0, 0, 0, 2 };
	static const uint8_t us_ip[4] = { 192, 0, 2, 1 }, us_ip2[4] = { 192, 0, 2, 3 }, dut_ip[4] = { 192, 0, 2, 2 };
	static struct fp_ctrs c0, c1, r0, r1;
	int rc, udp = -1;
	char adapter[160];
	struct st_ref *r = NULL;
	struct cf_live *lv = NULL;
	struct cf_io io;
	struct fp f;
	struct fp_verdict v;
	struct fp_rp rp, ctl;
	struct fp_cli c;
	struct fp_out o = { adapter, &c0, &c1, &r0, &r1 };

	if ((rc = fp_opts(argc, argv, &c)) >= 0)
		return rc;
	memset(&f, 0, sizeof(f));
	memset(&rp, 0, sizeof(rp));
	memset(&ctl, 0, sizeof(ctl));
	f.io = &io;
	if (c.mode >= 0) {
		if (!(r = st_ref_new((enum st_ref_mode)c.mode, dut_mac, dut_ip, us_mac, us_ip))) {
			fprintf(stderr, GEN_NAME " fingerprint: no memory\n");
			return 1;
		}
		st_ref_set_cnp_gap(r, c.gap);
		st_ref_io(r, &io);
		f.tm = &fp_timing_reference;
		memcpy(f.us_mac, us_mac, 6);
		memcpy(f.dut_mac, dut_mac, 6);
		memcpy(f.dut_ip, dut_ip, 4);
		memcpy(f.q[0].src, us_ip, 4);
		memcpy(f.q[1].src, us_ip, 4);
		memcpy(f.q[2].src, us_ip2, 4);
		snprintf(adapter, sizeof(adapter), "reference %s", c.name);
	} else {
		f.tm = &fp_timing_live;
		if ((rc = fp_open_live(&c, &f, &io, &lv, &udp, adapter, sizeof(adapter))))
			goto out;
	}
	if (fp_setup(&f) || fp_read_ctrs(&f, &c0) || fp_probe(&f) || fp_read_ctrs(&f, &c1) ||
	    fp_read_ctrs(&f, &r0) || fp_reaction(&f, &ctl, 0) || fp_reaction(&f, &rp, 1) || fp_read_ctrs(&f, &r1)) {
		fprintf(stderr, GEN_NAME " fingerprint: the probe failed: %s\n", f.err[0] ? f.err : "the wire failed");
		rc = 1;
	} else {
		fp_react(&rp, &ctl);
		fp_decide(&f, &v);
		if (c.json)
			fp_report_json(&f, &v, &rp, &o);
		else
			fp_report_text(&f, &v, &rp, &o);
		rc = !strcmp(v.verdict, "FAIL");
	}
out:
	if (lv) {
		char rep[64];

		io.ctl(io.ctx, "reset", rep, sizeof(rep));
	}
	fp_free(&f);
	free(rp.ts);
	free(ctl.ts);
	st_ref_free(r);
	cf_live_close(lv);
	if (udp >= 0)
		close(udp);
	return rc;
}
