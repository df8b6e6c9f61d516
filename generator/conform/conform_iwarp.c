/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * conform_iwarp.c — `rocegen conform --transport iwarp` (conform_iwarp.h):
 * options, the peer (a remote one, or the reference forked per case), the
 * connection helpers the cases use, evidence pcaps (a capture of the case's
 * TCP port on -i IFACE) and the reports, which are the RoCE catalogue's.
 *
 *   rocegen conform --transport iwarp --peer IP [--app rocegen|rping]
 *                   [--port N] [-i IFACE] [--wait S] [--cases PATTERN]
 *                   [--json] [--junit FILE] [--pcap-dir DIR] [--list] [-v]
 *   rocegen conform --transport iwarp --reference [...]
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "conform_iwarp.h"
#include "session.h"

#define START_STAG 0x00a1b200u
#define START_TO 0x7f0000001000ull
#define RPING_PORT 7174
#define REF_BASE_PORT 21000

struct cfi_opts {
	const char *pat, *junit, *pcap_dir;
	int json, list;
};

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

const char *cfi_term_text(char *buf, size_t cap, uint8_t layer, uint8_t etype, uint8_t code)
{
	const char *l = roce_term_layer_name(layer), *e = roce_term_etype_name(layer, etype);
	const char *k = roce_term_code_name(layer, etype, code);

	snprintf(buf, cap, "%u/%u/0x%02x (%s, %s, %s)", layer, etype, code, l ? l : "?", e ? e : "?",
		 k ? k : "?");
	return buf;
}

/* ---- the reference peer: `rocegen server --transport iwarp`, forked ---------- */

static int split(char *line, char **argv, int max)
{
	int n = 0;

	for (char *save = NULL, *t = strtok_r(line, " ", &save); t && n < max - 1; t = strtok_r(NULL, " ", &save))
		argv[n++] = t;
	argv[n] = NULL;
	return n;
}

/* The server prints "server: ready" once it listens; 0 then, -1 not. */
static int ref_ready(struct cfi *x)
{
	char buf[1024];
	size_t got = 0;
	double end = now_s() + 10;

	while (now_s() < end && got < sizeof(buf) - 1) {
		struct pollfd p = { .fd = x->srv_err, .events = POLLIN };
		ssize_t r;

		if (poll(&p, 1, 100) <= 0)
			continue;
		r = read(x->srv_err, buf + got, sizeof(buf) - 1 - got);
		if (r <= 0)
			return -1;
		got += (size_t)r;
		buf[got] = 0;
		if (strstr(buf, "server: ready"))
			return 0;
	}
	return -1;
}

static int ref_start(struct cfi *x, const struct cfi_case *k)
{
	static int seq;
	static char line[512];
	char *argv[48];
	int p[2];

	x->srv_port = REF_BASE_PORT + (int)(getpid() % 1400) * 8 + seq++ % 8;   /* below the ephemeral ports */
	if (pipe(p))
		return -1;
	fflush(NULL);
	x->srv = fork();
	if (x->srv < 0)
		return -1;
	if (x->srv == 0) {
		int nul = open("/dev/null", O_WRONLY);

		dup2(nul, 1);
		dup2(p[1], 2);
		close(p[0]);
		snprintf(line, sizeof(line),
			 "server --transport iwarp --src 127.0.0.1 --port %d --timeout 20 --size 4096 %s",
			 x->srv_port, k->srv_args ? k->srv_args : "");
		_exit(gen_server_main(split(line, argv, 48), argv));
	}
	close(p[1]);
	x->srv_err = p[0];
	return ref_ready(x);
}

static void ref_stop(struct cfi *x)
{
	int st;

	if (x->srv <= 0)
		return;
	for (int i = 0; i < 50 && waitpid(x->srv, &st, WNOHANG) == 0; i++)
		poll(NULL, 0, 20);
	if (waitpid(x->srv, &st, WNOHANG) == 0) {
		kill(x->srv, SIGKILL);
		waitpid(x->srv, &st, 0);
	}
	close(x->srv_err);
	x->srv = 0;
}

/* ---- the connection ------------------------------------------------------------ */

static void on_send(void *ctx, struct iw *w, uint8_t op, const uint8_t *data, uint32_t len, uint32_t inv)
{
	struct cfi *x = ctx;

	(void)op;
	(void)data;
	(void)len;
	(void)inv;
	x->sends_rx++;
	iw_post_recv(w, x->rq, sizeof(x->rq));
}

static int peer_port(const struct cfi *x)
{
	if (x->reference)
		return x->srv_port;
	if (x->port >= 0)
		return x->port;
	return x->app == CFI_APP_RPING ? RPING_PORT : IW_DEFAULT_PORT;
}

static int setup(struct cfi *x, const char *args)
{
	static char line[512];
	static char *argv[48];

	snprintf(line, sizeof(line), "client --transport iwarp --peer %s --port %d --timeout %d %s",
		 x->reference ? "127.0.0.1" : x->peer, peer_port(x), (int)(x->wait_s + 1), args ? args : "");
	if (gen_parse(GEN_CLIENT, split(line, argv, 48), argv, &x->o)) {
		cf_error(x->c, "client options '%s' refused", args ? args : "");
		return -1;
	}
	x->have_o = 1;
	if (iw_init(&x->w, &x->o, 0)) {
		cf_error(x->c, "cannot set up the iWARP stream");
		return -1;
	}
	x->have_w = 1;
	x->sink = calloc(1, CFI_SINK_LEN);
	x->msg = calloc(1, CFI_MSG_MAX);
	if (!x->sink || !x->msg) {
		cf_error(x->c, "out of memory");
		return -1;
	}
	x->w.ctx = x;
	x->w.on_send = on_send;
	iw_post_recv(&x->w, x->rq, sizeof(x->rq));
	iw_add_mr(&x->w, START_STAG, START_TO, x->start, sizeof(x->start), 1, 0);
	iw_add_mr(&x->w, CFI_SINK_STAG, CFI_SINK_TO, x->sink, CFI_SINK_LEN, 0, 1);
	return 0;
}

int cfi_connect(struct cfi *x, const char *args)
{
	if (setup(x, args))
		return -1;
	if (iw_connect(&x->w, NULL, 0) == 0) {
		cf_metric(x->c, "mpa_rev", x->w.rev, "");
		cf_metric(x->c, "crc", x->w.crc, "");
		/* siw sends its reply before the QP takes the socket (iw_rping.c);
		 * in peer-to-peer mode it takes it when our RTR comes, and an FPDU
		 * right behind the RTR was seen to stay unread (no Read Request
		 * from rping: mpa.rtr ERROR in one lab run of three) */
		if (x->app == CFI_APP_RPING)
			poll(NULL, 0, 100);
		return 0;
	}
	if (x->w.rejected || strstr(x->w.why, "closed"))
		return 1;
	cf_error(x->c, "connection: %s", x->w.why);
	return -1;
}

static int one_send(struct cfi *x)
{
	return x->sends_rx >= 1;
}

/* rping: {be64 TO, be32 STag, be32 size} of our start buffer; the server
 * READs it (its sink STag is its own buffer's) and SENDs "go ahead". */
static int rping_round(struct cfi *x)
{
	uint8_t m[16];

	snprintf((char *)x->start, sizeof(x->start), "rocegen-conform");
	for (int i = 0; i < 8; i++)
		m[i] = (uint8_t)(START_TO >> (56 - 8 * i));
	for (int i = 0; i < 4; i++) {
		m[8 + i] = (uint8_t)(START_STAG >> (24 - 8 * i));
		m[12 + i] = (uint8_t)(CFI_RPING_SIZE >> (24 - 8 * i));
	}
	if (iw_post_send(&x->w, ROCE_RDMAP_SEND, m, sizeof(m), 0) || cfi_wait(x, one_send, x->wait_s) != 1 ||
	    !x->w.rreq_size) {
		if (x->w.eof && !x->w.term_rx.have) {   /* the peer's doing, not the test's */
			cf_fail(x->c, "the peer closed the connection at rping's first round, without a Terminate "
				"(MPA rev %u, CRC %s)", x->w.rev, x->w.crc ? "on" : "off");
			return -1;
		}
		cf_error(x->c, "rping's first round did not complete: %s",
			 x->w.why[0] ? x->w.why : "no Read Request or SEND from the server");
		return -1;
	}
	x->stag = x->w.rreq_sink_stag;
	x->to = x->w.rreq_sink_to;
	x->rlen = 4096;   /* its buffer is -S bytes: the lab runs -S 64 */
	return 0;
}

int cfi_region(struct cfi *x)
{
	const uint8_t *p = x->w.pd;

	if (x->app == CFI_APP_RPING) {
		if (rping_round(x))
			return -1;
	} else if (x->w.pd_len >= 16) {
		x->stag = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
		x->to = 0;
		for (int i = 4; i < 12; i++)
			x->to = x->to << 8 | p[i];
		x->rlen = (uint32_t)p[12] << 24 | (uint32_t)p[13] << 16 | (uint32_t)p[14] << 8 | p[15];
	} else {
		cf_error(x->c, "the peer's MPA reply names no region (is it `rocegen server`?)");
		return -1;
	}
	x->have_region = 1;
	return 0;
}

static int reads_done(struct cfi *x)
{
	return x->w.reads_out == 0;
}

int cfi_alive(struct cfi *x)
{
	if (x->app == CFI_APP_RPING)   /* its Read Request and SEND came, our response went */
		return x->have_region && !x->w.dead && !x->w.st.rx_crc_bad && !x->w.st.rx_marker_bad;
	if (iw_post_read(&x->w, CFI_SINK_STAG, CFI_SINK_TO, x->rlen < 64 ? x->rlen : 64, x->stag, x->to))
		return 0;
	return cfi_wait(x, reads_done, x->wait_s) == 1 && !x->w.dead && !x->w.st.rx_crc_bad &&
	       !x->w.st.rx_marker_bad;
}

int cfi_wait(struct cfi *x, int (*cond)(struct cfi *), double s)
{
	double end = now_s() + s;

	for (;;) {
		if (cond(x))
			return 1;
		if (now_s() >= end)
			return 0;
		if (iw_pump(&x->w, 50) < 0)
			return cond(x) ? 1 : -1;
	}
}

static int eof(struct cfi *x)
{
	return x->w.eof;
}

int cfi_closes(struct cfi *x, double s)
{
	return cfi_wait(x, eof, s) != 0 && x->w.eof;
}

static int term_in(struct cfi *x)
{
	return x->w.term_rx.have || x->w.eof;
}

void cfi_expect_term(struct cfi *x, uint8_t layer, uint8_t etype, uint8_t code, const char *rule)
{
	const struct iw_term *t = &x->w.term_rx;
	char want[160], got[160];
	int closed;

	cfi_term_text(want, sizeof(want), layer, etype, code);
	cfi_wait(x, term_in, x->wait_s);
	closed = cfi_closes(x, x->wait_s);
	if (!t->have) {
		if (closed)
			cf_fail(x->c, "the peer closed the connection without a Terminate; want %s (%s)", want, rule);
		else
			cf_fail(x->c, "no Terminate and no close in %.1f s; want %s (%s)", x->wait_s, want, rule);
		return;
	}
	cf_metric(x->c, "term_layer", t->layer, "");
	cf_metric(x->c, "term_etype", t->etype, "");
	cf_metric(x->c, "term_code", t->code, "");
	cfi_term_text(got, sizeof(got), t->layer, t->etype, t->code);
	if (t->layer == etype && t->etype == layer && t->code == code && layer != etype)
		cf_fail(x->c, "Terminate %s on the wire: its Layer and EType nibbles are swapped (read the "
			"other way round it is the %s that %s names)", got, want, rule);
	else if (t->layer != layer || t->etype != etype || t->code != code)
		cf_fail(x->c, "Terminate %s; want %s (%s)", got, want, rule);
	else if (!closed)
		cf_fail(x->c, "Terminate %s as %s says, but the connection stayed open", got, rule);
	else
		cf_pass(x->c, "Terminate %s (%s), then the peer closed", got, rule);
}

static void conn_free(struct cfi *x)
{
	if (x->have_w)
		iw_free(&x->w);
	if (x->have_o)
		gen_opts_free(&x->o);
	free(x->sink);
	free(x->msg);
	x->sink = x->msg = NULL;
	x->have_w = x->have_o = x->have_region = 0;
	x->sends_rx = 0;
	memset(&x->w, 0, sizeof(x->w));
}


/* ---- evidence: the case's TCP port captured on -i IFACE --------------------------- */

static pcap_t *ev_open(struct cfi *x, const char *dir, const char *name, pcap_dumper_t **dump, char *path,
		       size_t cap)
{
	char err[PCAP_ERRBUF_SIZE], filt[64];
	struct bpf_program bp;
	pcap_t *p;

	snprintf(path, cap, "%s/%s.pcap", dir, name);
	p = pcap_create(x->iface ? x->iface : x->reference ? "lo" : "any", err);
	if (!p || pcap_set_snaplen(p, 65535) || pcap_set_immediate_mode(p, 1) || pcap_set_timeout(p, 10) ||
	    pcap_activate(p) < 0) {
		fprintf(stderr, GEN_NAME " conform: evidence: %s\n", p ? pcap_geterr(p) : err);
		if (p)
			pcap_close(p);
		return NULL;
	}
	snprintf(filt, sizeof(filt), "tcp port %d", peer_port(x));
	if (pcap_compile(p, &bp, filt, 1, PCAP_NETMASK_UNKNOWN) == 0) {
		pcap_setfilter(p, &bp);
		pcap_freecode(&bp);
	}
	pcap_setnonblock(p, 1, err);
	*dump = pcap_dump_open(p, path);
	if (!*dump) {
		fprintf(stderr, GEN_NAME " conform: %s\n", pcap_geterr(p));
		pcap_close(p);
		return NULL;
	}
	return p;
}

/* Everything captured so far into the file, which is closed: 0 or -1. */
static int ev_close(pcap_t *p, pcap_dumper_t *d)
{
	int rc = 0;

	if (!p)
		return 0;
	poll(NULL, 0, 50);
	while (pcap_dispatch(p, -1, pcap_dump, (u_char *)d) > 0)
		;
	if (pcap_dump_flush(d) || ferror(pcap_dump_file(d)))
		rc = -1;
	pcap_dump_close(d);
	pcap_close(p);
	return rc;
}

/* ---- the run ------------------------------------------------------------------------ */

static double clock_ns(void)
{
	return now_s() * 1e9;
}

/* One case: its reference peer, evidence, the case, the clean-up.  0, or -1
 * when its evidence could not be written. */
static int run_case(struct cfi *x, const struct cfi_case *k, const struct cfi_opts *o)
{
	pcap_dumper_t *dump = NULL;
	pcap_t *cap = NULL;
	double t0 = clock_ns();
	int rc = 0;

	memset(&x->c->r, 0, sizeof(x->c->r));
	x->c->case_name = k->name;
	if (x->reference && ref_start(x, k)) {
		cf_error(x->c, "the reference peer did not start");
		ref_stop(x);
		return 0;
	}
	if (o->pcap_dir) {
		cap = ev_open(x, o->pcap_dir, k->name, &dump, x->c->r.pcap, sizeof(x->c->r.pcap));
		rc = cap ? 0 : -1;
	}
	k->run(x);
	if (!x->c->r.judged)
		cf_error(x->c, "the case reached no verdict");
	if (x->have_w && !x->w.dead && !x->w.eof) {
		shutdown(x->w.fd, SHUT_WR);
		cfi_closes(x, 1);
	}
	conn_free(x);
	ref_stop(x);
	x->c->r.dur_ns = (uint64_t)(clock_ns() - t0);
	if (ev_close(cap, dump))
		rc = -1;
	return rc;
}

static int case_selected(const char *name, const char *pat)
{
	char buf[512], *save = NULL, *tok;

	if (!pat)
		return 1;
	snprintf(buf, sizeof(buf), "%s", pat);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char g[300];

		snprintf(g, sizeof(g), "%s*", tok);   /* a prefix selects a group: "mpa." */
		if (!fnmatch(tok, name, 0) || !fnmatch(g, name, 0))
			return 1;
	}
	return 0;
}

static int run_all(struct cfi *x, const struct cfi_opts *o, struct cf_run *run)
{
	static struct cf_case as_cf[CF_MAX_RUN];

	if (o->pcap_dir && mkdir(o->pcap_dir, 0755) && errno != EEXIST) {
		fprintf(stderr, GEN_NAME " conform: %s: %s\n", o->pcap_dir, strerror(errno));
		return 2;
	}
	for (unsigned i = 0; i < cfi_n_cases && run->n < CF_MAX_RUN; i++) {
		const struct cfi_case *k = &cfi_cases[i];

		if (!case_selected(k->name, o->pat) || gen_stop)
			continue;
		as_cf[i] = (struct cf_case){ k->name, "responder", k->summary, NULL };
		if (run_case(x, k, o))
			run->write_errors++;
		run->res[run->n] = x->c->r;
		run->ran[run->n++] = &as_cf[i];
		run->cnt[x->c->r.v]++;
		if (!o->json)
			cf_report_line(stdout, &as_cf[i], &x->c->r);
	}
	if (o->json)
		cf_report_json(stdout, x->reference ? "reference" : x->app == CFI_APP_RPING ? "rping" : "rocegen",
			       run);
	else
		cf_report_totals(stdout, run);
	if ((o->junit && cf_report_junit(o->junit, run)) || run->write_errors)
		return 3;
	return run->cnt[CF_ERROR] ? 3 : run->cnt[CF_FAIL] ? 1 : 0;
}

/* ---- options ------------------------------------------------------------------------ */

void cfi_usage(FILE *f)
{
	fprintf(f,
"usage: rocegen conform --transport iwarp --peer IP [--app rocegen|rping] [--port N]\n"
"                       [-i IFACE] [--wait S] [--cases PATTERN[,PATTERN…]] [--json]\n"
"                       [--junit FILE] [--pcap-dir DIR] [--list] [-v]\n"
"       rocegen conform --transport iwarp --reference [...]\n"
"Runs the iWARP catalogue (MPA negotiation, DDP/RDMAP errors, READ ordering) against\n"
"`rocegen server --transport iwarp`, an `rping -s -P` server, or rocegen's own\n"
"responder forked for each case (--reference).  See rocegen(8), CONFORM.\n");
}

/* -1 to go on, or the exit status. */
static int parse_opts(int argc, char **argv, struct cfi *x, struct cfi_opts *o)
{
	enum { O_PEER = 256, O_PORT, O_APP, O_REF, O_WAIT, O_CASES, O_JSON, O_JUNIT, O_PCAPDIR, O_LIST, O_TR };
	static const struct option lo[] = {
		{ "interface", required_argument, NULL, 'i' }, { "peer", required_argument, NULL, O_PEER },
		{ "port", required_argument, NULL, O_PORT },   { "app", required_argument, NULL, O_APP },
		{ "reference", no_argument, NULL, O_REF },     { "wait", required_argument, NULL, O_WAIT },
		{ "cases", required_argument, NULL, O_CASES }, { "json", no_argument, NULL, O_JSON },
		{ "junit", required_argument, NULL, O_JUNIT }, { "pcap-dir", required_argument, NULL, O_PCAPDIR },
		{ "list", no_argument, NULL, O_LIST },         { "transport", required_argument, NULL, O_TR },
		{ "verbose", no_argument, NULL, 'v' },         { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int ch;

	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":i:vh", lo, NULL)) != -1) {
		switch (ch) {
		case 'i': x->iface = optarg; break;
		case O_PEER: x->peer = optarg; break;
		case O_PORT: x->port = atoi(optarg); break;
		case O_REF: x->reference = 1; break;
		case O_WAIT: x->wait_s = atof(optarg); break;
		case O_CASES: o->pat = optarg; break;
		case O_JSON: o->json = 1; break;
		case O_JUNIT: o->junit = optarg; break;
		case O_PCAPDIR: o->pcap_dir = optarg; break;
		case O_LIST: o->list = 1; break;
		case O_TR: break;   /* iwarp: how we got here */
		case 'v': x->verbose++; break;
		case O_APP:
			if (strcmp(optarg, "rocegen") && strcmp(optarg, "rping")) {
				fprintf(stderr, GEN_NAME " conform: --app rocegen|rping\n");
				return 2;
			}
			x->app = strcmp(optarg, "rping") ? CFI_APP_ROCEGEN : CFI_APP_RPING;
			break;
		case 'h': cfi_usage(stdout); return 0;
		default:
			return gen_bad_opt("conform", ch, argv[optind - 1]);
		}
	}
	if (optind < argc) {
		fprintf(stderr, GEN_NAME " conform: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (!o->list && !x->peer && !x->reference) {
		fprintf(stderr, GEN_NAME " conform: --transport iwarp needs --peer IP or --reference\n");
		return 2;
	}
	if (x->reference)
		x->app = CFI_APP_ROCEGEN;
	if (gen_iface_missing("conform", x->iface))
		return 1;   /* as rocetop's and every rocegen command's */
	return -1;
}

int gen_conform_iwarp_main(int argc, char **argv)
{
	static struct cf c;
	static struct cfi x;
	static struct cf_run run;
	struct cfi_opts o;
	int rc;

	memset(&x, 0, sizeof(x));
	memset(&c, 0, sizeof(c));
	memset(&run, 0, sizeof(run));
	memset(&o, 0, sizeof(o));
	x.c = &c;
	x.port = -1;
	x.wait_s = 5;
	rc = parse_opts(argc, argv, &x, &o);
	if (rc >= 0)
		return rc;
	if (o.list) {
		for (unsigned i = 0; i < cfi_n_cases; i++)
			printf("%-24s %-9s %s\n", cfi_cases[i].name, "responder", cfi_cases[i].summary);
		return 0;
	}
	c.verbose = x.verbose;
	signal(SIGPIPE, SIG_IGN);
	return run_all(&x, &o, &run);
}
