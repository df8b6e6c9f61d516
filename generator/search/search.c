/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * search.c — `rocegen search`: a Collie-style anomaly search over the
 * workload space (QPs, queue depth, MTU, message size, operation mix) by
 * seeded simulated annealing, steered by what each run measures.
 *
 *   rocegen search --reference [good|planted] [--seed N] [--budget N] [--json]
 *
 * Each evaluation is a short `rocegen stress` run (stress.c) against the
 * in-process reference adapter with no faults injected, so every NAK,
 * retransmission, error completion or integrity error is the adapter's.
 * The objective is a weighted score of them; a workload with a score above
 * zero is an anomaly.  The first one found is shrunk (each parameter made
 * smaller while the anomaly stays) and reported with its evidence and the
 * `rocegen stress` line that replays it.
 *
 * A real adapter: -i IFACE --peer IP [--target HOST:PORT] --key FILE
 * [--device NAME], each evaluation a stress run through rocetarget (its own
 * connection), rocegen's local ACK timeout 2^18 x 4.096 us (SR_LIVE_TIMEOUT:
 * a slow adapter's answers are not rocegen's retransmissions).  Before the
 * first evaluation rocetarget is asked for the adapter's active MTU, and the
 * MTUs above it are left out of the space (their frames would not cross the
 * adapter's link: loss of the setup, not of the adapter).  An evaluation whose
 * control channel failed (rocetarget unreachable, no reply within 10 s,
 * closed) or whose setup rocetarget refused is no anomaly: it is run again on
 * a new connection after 2 s and 6 s, and after SR_TRIES failures the search
 * stops, says why ("stopped") and exits 1 with what it has.  --time-limit S
 * stops it (exit 0) once S seconds have passed, also said.  One evaluation
 * lasts at most SR_LIVE_LIMIT_S; one not done by then is an anomaly.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ctl.h"
#include "gen.h"
#include "session.h"
#include "stress.h"

int gen_search_main(int argc, char **argv);

#define SR_MSGS 4   /* messages per QP in one evaluation */
#define SR_LIVE (-2)          /* mode: a real adapter behind rocetarget */
#define SR_LIVE_TIMEOUT 18
/* An evaluation against a real adapter not done after this many seconds
 * fails (its score +100): an RNR storm from rxe (1.8 M RNR NAKs over 600 s,
 * lab, 7 Dec 2026, when rocegen retried RNR NAKs without end) held one
 * evaluation, and so the search, without end. */
#define SR_LIVE_LIMIT_S 60
/* The RNR retry count of every evaluation's QPs (rocegen's and the
 * adapter's), and of its reproduce line: 6, the largest finite one (7 is
 * "without end"), so an RNR storm ends the QP in error (an anomaly, scored as
 * one) after 7 RNR NAKs in a row rather than only at SR_LIVE_LIMIT_S, and the
 * replay ends as the evaluation did. */
#define SR_RNR_RETRY 6
#define SR_STR2(x) #x
#define SR_STR(x) SR_STR2(x)
#define SR_TRIES 3            /* a live evaluation whose control channel failed: tries in all */

static struct cf_live_args sr_live;
static const char *sr_dev;
static char sr_why[768];      /* why the last live evaluation could not be made */
static char sr_stop[800];     /* why the search stopped before its budget ("": it did not) */
static int sr_mtu_hi = 4;     /* the largest index of sr_mtus in the space (live: the active MTU) */

static const unsigned sr_mtus[] = { 256, 512, 1024, 2048, 4096 };

/* the workload space: each parameter an integer in [lo, hi] */
enum { P_QPS = 0, P_QD, P_MTU, P_SIZE, P_OPS, P_N };
static const struct { const char *name; int lo, hi; } sr_space[P_N] = {
	{ "qps", 1, 32 }, { "qd", 1, 16 }, { "mtu", 0, 4 }, { "size_log2", 6, 14 }, { "ops", 1, 15 },
};

static int sr_hi(int p)
{
	return p == P_MTU ? sr_mtu_hi : sr_space[p].hi;
}

struct sr_eval {
	double score;
	uint64_t retx, naks, errors, integrity;
	unsigned completed;
};

static uint64_t sr_rng(uint64_t *s)   /* splitmix64 */
{
	uint64_t x = (*s += 0x9e3779b97f4a7c15ull);

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static double sr_unit(uint64_t *s)
{
	return (double)(sr_rng(s) >> 11) / 9007199254740992.0;
}

static void sr_opts(const int *w, uint64_t seed, struct st_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->qps = (unsigned)w[P_QPS];
	o->qd = (unsigned)w[P_QD];
	o->mtu = sr_mtus[w[P_MTU]];
	o->ops = (unsigned)w[P_OPS];
	o->size_max = 1u << w[P_SIZE];
	o->size_min = o->size_max / 2;
	o->messages = SR_MSGS;
	o->seed = seed;
	o->timeout = 14;
	o->delay_ns = 50000;
	o->gid_index = 1;
	o->min_rnr = 12;
	o->rnr_retry = SR_RNR_RETRY;
}

static const char *sr_target(void)
{
	static char t[300];

	return cf_live_target(&sr_live, t, sizeof(t));
}

/* rocetarget's health and the adapter's active MTU: a connection, hello, open;
 * 0 (sr_mtu_hi set), -1 after st_live_open said why, or -2 with sr_why */
static int sr_probe(void)
{
	struct st_opts o;
	struct cf_io io;
	struct cf_live *l;
	char rep[256], req[128];
	unsigned mtu;

	memset(&o, 0, sizeof(o));
	if (!(l = st_live_open(&sr_live, &o, &io)))
		return -1;
	snprintf(req, sizeof(req), "open%s%.64s gid_index=1", sr_dev ? " dev=" : "", sr_dev ? sr_dev : "");
	if (io.ctl(io.ctx, "hello", rep, sizeof(rep)) || io.ctl(io.ctx, req, rep, sizeof(rep))) {
		snprintf(sr_why, sizeof(sr_why), "rocetarget at %s: %.200s", sr_target(), rep);
		cf_live_close(l);
		return -2;
	}
	cf_live_close(l);
	mtu = (unsigned)ctl_u64(rep, "active_mtu", 0);
	for (sr_mtu_hi = 0; sr_mtu_hi < 4 && sr_mtus[sr_mtu_hi + 1] <= mtu; sr_mtu_hi++)
		;
	if (mtu < sr_mtus[0])
		return snprintf(sr_why, sizeof(sr_why), "rocetarget at %s: no active MTU in its open reply (%.200s)",
				sr_target(), rep), -2;
	return 0;
}

/* One evaluation: 0, -1 without memory, -2 when the live adapter could not be
 * reached or its control channel failed (sr_why) — no measurement then. */
static int sr_run(int mode, const int *w, uint64_t seed, struct sr_eval *e)
{
	struct st_opts o;
	struct st_result res;
	struct cf_io io;
	struct st_ref *r = NULL;
	struct cf_live *l = NULL;
	int rc;

	sr_opts(w, seed, &o);
	if (mode == SR_LIVE) {
		o.is_ref = 0;
		o.dev = sr_dev;
		o.timeout = SR_LIVE_TIMEOUT;
		o.limit_ns = SR_LIVE_LIMIT_S * 1000000000ull;
		if (!(l = st_live_open(&sr_live, &o, &io)))
			return snprintf(sr_why, sizeof(sr_why), "cannot reach rocetarget at %s", sr_target()), -2;
	} else if (!(r = st_ref_open(mode, &o, &io))) {
		return -1;
	}
	memset(&res, 0, sizeof(res));
	rc = st_run(&o, &io, &res, NULL);
	st_ref_free(r);
	if (l && (cf_live_broken(l) || (rc && !res.messages && !strncmp(res.first_error, "control", 7)))) {
		snprintf(sr_why, sizeof(sr_why), "rocetarget at %s: %.300s", sr_target(),
			 res.first_error[0] ? res.first_error : "control channel failed");
		cf_live_close(l);
		st_result_free(&res);
		return -2;
	}
	cf_live_close(l);
	memset(e, 0, sizeof(*e));
	for (int i = 0; i < ROCE_RETX__COUNT; i++)
		e->retx += res.retx_episodes[i];
	e->naks = res.adapter[STC_NAK] > res.wire[STC_NAK] ? res.adapter[STC_NAK] : res.wire[STC_NAK];
	e->errors = res.qps_error;
	e->integrity = res.integrity_errors;
	e->completed = res.qps_completed;
	/* the weights: a broken QP or wrong bytes outweigh any number of recoveries */
	e->score = (double)e->retx + 0.5 * (double)e->naks + 20.0 * (double)e->errors +
		   50.0 * (double)e->integrity + (rc ? 100.0 : 0.0);
	st_result_free(&res);
	return 0;
}

/* sr_run, and for a live adapter SR_TRIES tries on a new connection each,
 * 2 s and 6 s apart; after the last one sr_stop says why */
static int sr_evaluate(int mode, const int *w, uint64_t seed, struct sr_eval *e)
{
	unsigned wait = 2;
	int rc;

	for (int t = 1;; t++) {
		if ((rc = sr_run(mode, w, seed, e)) != -2)
			return rc;
		if (t == SR_TRIES)
			break;
		fprintf(stderr, GEN_NAME " search: %s; trying again in %u s (%d of %d)\n", sr_why, wait, t + 1,
			SR_TRIES);
		sleep(wait);
		wait *= 3;
	}
	snprintf(sr_stop, sizeof(sr_stop), "%.760s (%d tries)", sr_why, SR_TRIES);
	return -2;
}

static void sr_ops_text(unsigned ops, char *b, size_t cap)
{
	size_t n = 0;

	b[0] = 0;
	for (int i = 0; i < ST_N_OPS; i++)
		if (ops & (1u << i))
			n += (size_t)snprintf(b + n, n < cap ? cap - n : 0, "%s%s", n ? "," : "", st_op_names[i]);
}

static void sr_usage(FILE *f)
{
	fprintf(f, "usage: " GEN_NAME " search --reference [good|planted] [--seed N] [--budget N] [--json]\n"
		   "       " GEN_NAME " search -i IFACE --peer IP [--target HOST:PORT] --key FILE [--device NAME]\n"
		   "                      [--src IP] [--dmac MAC] [--seed N] [--budget N] [--time-limit S] [--json]\n"
		   "                      (through rocetarget)\n"
		   "  simulated annealing over QPs, queue depth, MTU, message size and operation mix;\n"
		   "  reports the first anomaly found, shrunk, with its evidence and a stress command line\n"
		   "  -i, --interface IFACE; -h, --help: this text\n");
}

int gen_search_main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "reference", optional_argument, NULL, 'r' }, { "seed", required_argument, NULL, 's' },
		{ "budget", required_argument, NULL, 'b' },    { "json", no_argument, NULL, 'j' },
		{ "interface", required_argument, NULL, 'i' }, { "peer", required_argument, NULL, 'P' },
		{ "target", required_argument, NULL, 'T' },    { "key", required_argument, NULL, 'K' },
		{ "device", required_argument, NULL, 'D' },    { "src", required_argument, NULL, 'S' },
		{ "dmac", required_argument, NULL, 'M' },      { "time-limit", required_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },            { NULL, 0, NULL, 0 }
	};
	int mode = -1, json = 0, ch, cur[P_N], best[P_N], cand[P_N], found = 0;
	unsigned long long seed = 1, budget = 400, limit = 0;
	unsigned evals = 0, shrink_evals = 0;
	struct sr_eval ce, be, ne;
	uint64_t rng;
	char *end;
	double t = 2.0, t0 = (double)sess_now() / 1e9;
	int rc;

	optind = 1;
	opterr = 0;
	memset(&sr_live, 0, sizeof(sr_live));
	sr_live.cmd = "search";
	sr_stop[0] = 0;
	sr_mtu_hi = 4;
	while ((ch = getopt_long(argc, argv, ":hi:", lo, NULL)) != -1) {
		if (cf_live_opt(&sr_live, &sr_dev, ch, optarg))
			continue;
		switch (ch) {
		case 'r':
			if (!optarg && optind < argc && argv[optind][0] != '-')
				optarg = argv[optind++];
			if (!optarg || !strcmp(optarg, "good"))
				mode = ST_REF_GOOD;
			else if (!strcmp(optarg, "planted"))
				mode = ST_REF_PLANTED;
			else {
				fprintf(stderr, GEN_NAME " search: bad --reference '%s' (good|planted)\n", optarg);
				return 2;
			}
			break;
		case 's':
		case 'b':
		case 'L':
			errno = 0;
			if (ch == 's')
				seed = strtoull(optarg, &end, 0);
			else if (ch == 'b')
				budget = strtoull(optarg, &end, 0);
			else
				limit = strtoull(optarg, &end, 0);
			if (*optarg == '-' || *end || errno || (ch == 'b' && (!budget || budget > 100000)) ||
			    (ch == 'L' && (!limit || limit > 604800))) {
				fprintf(stderr, GEN_NAME " search: bad --%s '%s'\n",
					ch == 's' ? "seed" : ch == 'b' ? "budget" : "time-limit", optarg);
				return 2;
			}
			break;
		case 'j': json = 1; break;
		case 'h': sr_usage(stdout); return 0;
		case ':':
			fprintf(stderr, GEN_NAME " search: option '%s' needs a value (see " GEN_NAME " search --help)\n",
				argv[optind - 1]);
			return 2;
		default:
			fprintf(stderr, GEN_NAME " search: unknown option '%s' (see " GEN_NAME " search --help)\n", argv[optind - 1]);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, GEN_NAME " search: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (mode < 0 && !sr_live.iface) {
		fprintf(stderr, GEN_NAME " search: give --reference, or -i IFACE --peer IP --key FILE (an adapter behind rocetarget)\n");
		return 2;
	}
	if (mode >= 0 && sr_live.iface) {
		fprintf(stderr, GEN_NAME " search: --reference or -i IFACE, not both\n");
		return 2;
	}
	if (mode < 0) {
		if (gen_iface_missing("search", sr_live.iface))
			return 1;
		mode = SR_LIVE;
		if ((rc = sr_probe())) {
			if (rc == -2)
				fprintf(stderr, GEN_NAME " search: %s\n", sr_why);
			return 1;
		}
	}
	rng = seed;
	for (int i = 0; i < P_N; i++)
		cur[i] = sr_space[i].lo + (int)(sr_rng(&rng) % (uint64_t)(sr_hi(i) - sr_space[i].lo + 1));
	memcpy(best, cur, sizeof(best));
	memset(&be, 0, sizeof(be));
	if ((rc = sr_evaluate(mode, cur, seed, &ce)) == -2)
		goto report;
	if (rc)
		goto fail;
	evals = 1;
	be = ce;
	found = be.score > 0;
	/* annealing: a neighbour changes one or two parameters, a step scaled by the temperature */
	while (!found && evals < budget) {
		if (limit && (double)sess_now() / 1e9 - t0 >= (double)limit) {
			snprintf(sr_stop, sizeof(sr_stop), "time limit of %llu s reached", limit);
			break;
		}
		memcpy(cand, cur, sizeof(cand));
		if (sr_unit(&rng) < 0.3) {   /* a restart: anywhere in the space */
			for (int i = 0; i < P_N; i++)
				cand[i] = sr_space[i].lo + (int)(sr_rng(&rng) % (uint64_t)(sr_hi(i) - sr_space[i].lo + 1));
		} else for (int k = 0, nk = 1 + (int)(sr_rng(&rng) % 2); k < nk; k++) {
			int p = (int)(sr_rng(&rng) % P_N), span = sr_space[p].hi - sr_space[p].lo;
			int step = 1 + (int)(sr_unit(&rng) * t * span / 2.0);

			if (p == P_OPS)
				cand[p] = 1 + (int)(sr_rng(&rng) % 15);
			else
				cand[p] += sr_rng(&rng) & 1 ? step : -step;
			if (cand[p] < sr_space[p].lo)
				cand[p] = sr_space[p].lo;
			if (cand[p] > sr_hi(p))
				cand[p] = sr_hi(p);
		}
		if ((rc = sr_evaluate(mode, cand, seed, &ne)) == -2)
			break;
		if (rc)
			goto fail;
		evals++;
		if (ne.score >= ce.score || sr_unit(&rng) < exp((ne.score - ce.score) / (t > 0.05 ? t : 0.05))) {
			memcpy(cur, cand, sizeof(cur));
			ce = ne;
		}
		if (ne.score > be.score) {
			memcpy(best, cand, sizeof(best));
			be = ne;
			found = 1;
		}
		t *= 0.99;
		if (t < 0.1)
			t = 2.0;   /* reheat: a plateau of zeros is searched wide again */
	}
	if (found) {
		/* shrink: each parameter as small as it goes while the anomaly stays */
		for (int changed = 1; changed && !sr_stop[0];) {
			changed = 0;
			for (int p = 0; p < P_N && !sr_stop[0]; p++) {
				if (p == P_MTU)
					continue;   /* the MTU is a choice, not a size */
				for (;;) {
					memcpy(cand, best, sizeof(cand));
					if (p == P_OPS) {
						int lowest = cand[p] & -cand[p];

						if (cand[p] == lowest)
							break;
						cand[p] = lowest;
					} else if (cand[p] > sr_space[p].lo) {
						cand[p] = p == P_QPS ? cand[p] - (cand[p] + 7) / 8 : cand[p] - 1;
					} else {
						break;
					}
					if ((rc = sr_evaluate(mode, cand, seed, &ne)) == -2)
						break;   /* the anomaly stays as shrunk so far */
					if (rc)
						goto fail;
					shrink_evals++;
					if (ne.score <= 0)
						break;
					memcpy(best, cand, sizeof(best));
					be = ne;
					changed = 1;
				}
			}
		}
	}
report:
	{
		char ops[64], repro[640];
		struct st_opts o;
		double secs = (double)sess_now() / 1e9 - t0;

		sr_opts(best, seed, &o);
		sr_ops_text(o.ops, ops, sizeof(ops));
		char where[400];

		if (mode == SR_LIVE)
			snprintf(where, sizeof(where), "-i %.40s --peer %.60s%s%.80s --key %.120s%s%.40s --ack-timeout %d",
				 sr_live.iface, sr_live.peer ? sr_live.peer : "?", sr_live.target ? " --target " : "",
				 sr_live.target ? sr_live.target : "", sr_live.key ? sr_live.key : "FILE",
				 sr_dev ? " --device " : "", sr_dev ? sr_dev : "", SR_LIVE_TIMEOUT);
		else
			snprintf(where, sizeof(where), "--reference %s", mode == ST_REF_PLANTED ? "planted" : "good");
		snprintf(repro, sizeof(repro),
			 GEN_NAME " stress %s --qps %u --qd %u --mtu %u --sizes %u-%u --ops %s --messages %d --seed %llu"
			 " --rnr-retry %d%s",   /* as the evaluation ran: finite RNR retries; live, its time limit */
			 where, o.qps, o.qd, o.mtu, o.size_min, o.size_max, ops, SR_MSGS, seed, SR_RNR_RETRY,
			 mode == SR_LIVE ? " --time-limit " SR_STR(SR_LIVE_LIMIT_S) : "");
		if (json) {
			printf("{\"evaluations\": %u, \"shrink_evaluations\": %u, \"method\": \"simulated-annealing\", "
			       "\"budget\": %llu, \"seconds\": %.1f, \"stopped\": ", evals, shrink_evals, budget, secs);
			if (sr_stop[0])
				cf_json_str(stdout, sr_stop);
			else
				fputs("null", stdout);
			printf(", \"anomalies\": [");
			if (found)
				printf("{\"workload\": {\"qps\": %u, \"qd\": %u, \"mtu\": %u, \"size_min\": %u, \"size_max\": %u, \"ops\": \"%s\", \"messages\": %d}, "
				       "\"score\": %.1f, \"evidence\": {\"retransmission_episodes\": %llu, \"naks\": %llu, \"qps_error\": %llu, "
				       "\"integrity_errors\": %llu, \"qps_completed\": %u}, \"reproduce\": \"%s\"}",
				       o.qps, o.qd, o.mtu, o.size_min, o.size_max, ops, SR_MSGS, be.score,
				       (unsigned long long)be.retx, (unsigned long long)be.naks,
				       (unsigned long long)be.errors, (unsigned long long)be.integrity, be.completed, repro);
			printf("]}\n");
		} else if (found) {
			printf("anomaly after %u evaluations (%u more to shrink it): score %.1f\n"
			       "  workload  qps %u qd %u mtu %u sizes %u-%u ops %s\n"
			       "  evidence  %llu retransmission episodes, %llu NAKs, %llu QPs in error, %llu integrity errors\n"
			       "  reproduce %s\n",
			       evals, shrink_evals, be.score, o.qps, o.qd, o.mtu, o.size_min, o.size_max, ops,
			       (unsigned long long)be.retx, (unsigned long long)be.naks,
			       (unsigned long long)be.errors, (unsigned long long)be.integrity, repro);
		} else {
			printf("no anomaly in %u evaluations (%.0f s)\n", evals, secs);
		}
		if (sr_stop[0] && !json)
			printf("search stopped after %u evaluations (%.0f s): %s\n", evals + shrink_evals, secs, sr_stop);
	}
	/* stopped by the time limit: as asked; by rocetarget: the search is not done */
	return sr_stop[0] && strncmp(sr_stop, "time limit", 10) ? 1 : 0;
fail:
	if (mode != SR_LIVE)
		fprintf(stderr, GEN_NAME " search: no memory\n");   /* (a real adapter's failure was said) */
	return 1;
}
