/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * conform.c — `rocegen conform`: runs the catalogue (conform_cases.c)
 * against an adapter through rocetarget, or against the in-process
 * reference adapter (conform_ref.c), and reports every case as PASS, FAIL
 * (what was expected, what happened), UNSUPPORTED (why) or ERROR (the test
 * itself could not run), with measured values and an evidence pcap.
 *
 *   rocegen conform -i IFACE --peer IP [--target HOST:PORT] [--dev NAME]
 *                   [--gid-index N] [--cases PATTERN] [--json] [--junit FILE]
 *                   [--pcap-dir DIR] [--list] [-v]
 *   rocegen conform --reference [good|nakstorm|retry7] …
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "conform.h"
#include "gen.h"
#include "rx.h"
#include "tx.h"
#include "ctl.h"

const char *cf_verdict_name(enum cf_verdict v)
{
	static const char *const n[] = { "PASS", "FAIL", "UNSUPPORTED", "ERROR" };
	return (unsigned)v < 4 ? n[v] : "?";
}

/* ---- verdicts --------------------------------------------------------------- */

static void verdict(struct cf *c, enum cf_verdict v, const char *fmt, va_list ap)
{
	/* the first non-PASS verdict wins; a later PASS does not hide a FAIL */
	if (c->r.judged && (c->r.v != CF_PASS || v == CF_PASS))
		return;
	c->r.v = v;
	c->r.judged = 1;
	vsnprintf(c->r.detail, sizeof(c->r.detail), fmt, ap);
}

#define VERDICT_FN(fn, v)                                 \
	void fn(struct cf *c, const char *fmt, ...)       \
	{                                                 \
		va_list ap;                               \
		va_start(ap, fmt);                        \
		verdict(c, v, fmt, ap);                   \
		va_end(ap);                               \
	}
VERDICT_FN(cf_pass, CF_PASS)
VERDICT_FN(cf_fail, CF_FAIL)
VERDICT_FN(cf_unsup, CF_UNSUPPORTED)
VERDICT_FN(cf_error, CF_ERROR)

void cf_metric(struct cf *c, const char *name, double value, const char *unit)
{
	struct cf_metric *m;

	if (c->r.n_m >= CF_MAX_METRICS)
		return;
	m = &c->r.m[c->r.n_m++];
	snprintf(m->name, sizeof(m->name), "%s", name);
	snprintf(m->unit, sizeof(m->unit), "%s", unit);
	m->value = value;
}

/* ---- wire helpers ---------------------------------------------------------------- */

uint64_t cf_now(struct cf *c)
{
	return c->io.now(c->io.ctx);
}

static void record(struct cf *c, const uint8_t *f, uint32_t len, uint64_t ts)
{
	struct pcap_pkthdr h;

	if (!c->dump)
		return;
	h.ts.tv_sec = (time_t)(ts / 1000000000u);
	h.ts.tv_usec = (suseconds_t)(ts % 1000000000u / 1000u);
	h.caplen = h.len = len;
	pcap_dump((u_char *)c->dump, &h, f);
}

static int raw_send(struct cf *c, const uint8_t *f, uint32_t len)
{
	record(c, f, len, cf_now(c));
	return c->io.send(c->io.ctx, f, len);
}

static int eng_emit(void *ctx, const uint8_t *f, uint32_t len)
{
	return raw_send(ctx, f, len);
}

void cf_spec(struct cf *c, struct roce_frame_spec *s, uint8_t opcode, uint32_t psn)
{
	roce_qp_frame_spec(c->qp, s);
	s->bth.opcode = opcode;
	s->bth.psn = psn & 0xffffff;
	s->bth.ackreq = 0;
	s->bth.pad = -1;
}

int cf_send(struct cf *c, const struct roce_frame_spec *s)
{
	uint8_t f[ROCE_QP_FRAME_MAX + 64];
	int n = roce_build(f, sizeof(f), s);

	if (n < 0) {
		cf_error(c, "cannot build a frame: %s", roce_strerror(n));
		return -1;
	}
	if (raw_send(c, f, (uint32_t)n) < 0) {
		cf_error(c, "send failed");
		return -1;
	}
	return 0;
}

int cf_next(struct cf *c, uint64_t deadline)
{
	for (;;) {
		struct cf_frame *x = &c->rx;
		int got = c->io.recv(c->io.ctx, x->d, sizeof(x->d), &x->len, &x->ts, deadline);

		if (got <= 0) {
			if (got < 0)
				cf_error(c, "receive failed");
			return got;
		}
		record(c, x->d, x->len, x->ts);
		roce_decode(&x->p, NULL, ROCE_LINK_ETHERNET, x->d, x->len, x->len);
		if (x->p.version == ROCE_VER_NONE || !x->p.bth_off || x->p.dqpn != c->our_qpn)
			continue;
		if (x->p.opcode != ROCE_OPCODE_CNP && (x->p.opcode & 0xe0) != ROCE_TR_RC)
			continue;
		return 1;
	}
}

/* ---- control helpers ---------------------------------------------------------------- */

int cf_ctl(struct cf *c, char *rep, size_t cap, const char *fmt, ...)
{
	char req[CTL_LINE_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(req, sizeof(req), fmt, ap);
	va_end(ap);
	if (c->verbose > 1)
		fprintf(stderr, "ctl> %.200s\n", req);
	if (c->io.ctl(c->io.ctx, req, rep, cap) < 0) {
		cf_error(c, "control request '%.60s' failed: %.200s", req, rep);
		return -1;
	}
	if (c->verbose > 1)
		fprintf(stderr, "ctl< %.200s\n", rep);
	return 0;
}

int cf_rd(struct cf *c, uint32_t off, uint8_t *buf, uint32_t len)
{
	static char rep[CTL_LINE_MAX];
	char *h;

	if (cf_ctl(c, rep, sizeof(rep), "rd mr=%u off=%u len=%u", c->dut_mr, off, len))
		return -1;
	h = strstr(rep, "hex=");
	if (!h || ctl_unhex(h + 4, buf, len) != (long)len) {
		cf_error(c, "bad rd reply");
		return -1;
	}
	return 0;
}

int cf_wr(struct cf *c, uint32_t off, const uint8_t *buf, uint32_t len)
{
	static char req[CTL_LINE_MAX];
	char rep[256];

	if (len > CTL_RD_MAX)
		return -1;
	ctl_hex(buf, len, req);
	return cf_ctl(c, rep, sizeof(rep), "wr mr=%u off=%u hex=%s", c->dut_mr, off, req);
}

int cf_poll(struct cf *c, struct cf_wc *wc, int max)
{
	static char rep[CTL_LINE_MAX];
	const char *p;
	int n = 0;

	if (cf_ctl(c, rep, sizeof(rep), "poll qp=%u max=%d", c->dut_qp, max))
		return -1;
	for (p = strstr(rep, " wc="); p && n < max; p = strstr(p + 1, " wc=")) {
		unsigned long long wr;
		unsigned len;

		if (sscanf(p + 4, "%llu,%31[^,],%15[^,],%u", &wr, wc[n].status, wc[n].op, &len) == 4) {
			wc[n].wr = wr;
			wc[n].len = len;
			n++;
		}
	}
	return n;
}

int cf_state(struct cf *c, char *buf, size_t cap)
{
	char rep[256];

	if (cf_ctl(c, rep, sizeof(rep), "state qp=%u", c->dut_qp))
		return -1;
	if (!ctl_get(rep, "state", buf, cap))
		return -1;
	return 0;
}

static void free_engine(struct cf *c)
{
	free(c->qp_mem);
	c->qp_mem = NULL;
	c->qp = NULL;
}

int cf_connect(struct cf *c, const struct cf_conn *k)
{
	static uint32_t qpn_seq;
	char rep[512];
	struct roce_qp_attr a;
	struct roce_qp_ops ops = { eng_emit, NULL, NULL, c };
	size_t sz;

	free_engine(c);
	c->mtu = k->mtu ? k->mtu : (uint16_t)(c->dut_mtu < 1024 ? c->dut_mtu : 1024);
	if (cf_ctl(c, rep, sizeof(rep), "reset") ||
	    cf_ctl(c, rep, sizeof(rep), "mr len=%u access=%s", CF_MR_LEN, k->access ? k->access : "wra"))
		return -1;
	c->dut_mr = (unsigned)ctl_u64(rep, "mr", 0);
	c->rkey = (uint32_t)ctl_u64(rep, "rkey", 0);
	c->va = ctl_u64(rep, "va", 0);
	if (cf_ctl(c, rep, sizeof(rep), "qp depth=64"))
		return -1;
	c->dut_qp = (unsigned)ctl_u64(rep, "qp", 0);
	c->dut_qpn = (uint32_t)ctl_u64(rep, "qpn", 0);
	c->our_qpn = 0xc0000 | (++qpn_seq & 0xffff);

	roce_qp_attr_default(&a);
	a.qpn = c->our_qpn;
	a.remote_qpn = c->dut_qpn;
	a.sq_psn = k->our_psn;
	a.rq_psn = k->dut_psn;
	a.mtu = c->mtu;
	a.eth = c->eth;
	a.ip = c->ip;
	a.timeout = 0;   /* our engine never retransmits on its own */
	sz = roce_qp_mem_size(&a);
	if (!sz || !(c->qp_mem = malloc(sz)) || roce_qp_init(&c->qp, c->qp_mem, sz, &a, &ops)) {
		free_engine(c);
		cf_error(c, "cannot set up our QP");
		return -1;
	}
	if (cf_ctl(c, rep, sizeof(rep),
		   "connect qp=%u rqpn=0x%x rpsn=%u rgid=%s psn=%u mtu=%u timeout=%u retry=%u rnr_retry=%u min_rnr=%u gid_index=%d",
		   c->dut_qp, c->our_qpn, k->our_psn, c->our_gid, k->dut_psn, c->mtu, k->timeout,
		   k->retry, k->rnr_retry, k->min_rnr, c->gid_index))
		return -1;
	if (k->n_recv &&
	    cf_ctl(c, rep, sizeof(rep), "recv qp=%u mr=%u off=%u len=%u n=%u wr=1000", c->dut_qp,
		   c->dut_mr, CF_OFF_RECV, k->recv_len ? k->recv_len : 4096, k->n_recv))
		return -1;
	return 0;
}

/* ---- the live wire and control channel ------------------------------------------------ */

struct live {
	struct tx *tx;
	struct rx *rx;
	int udp;
	int fd;
	char buf[CTL_LINE_MAX];
	size_t have;
};

static uint64_t live_now(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_REALTIME, &ts);   /* the clock of pcap timestamps */
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int live_send(void *ctx, const uint8_t *f, uint32_t len)
{
	struct live *l = ctx;
	const uint8_t *fr[1] = { f };
	uint32_t ln[1] = { len };

	return tx_send_batch(l->tx, fr, ln, 1) == 1 ? 0 : -1;
}

static int live_recv(void *ctx, uint8_t *buf, uint32_t cap, uint32_t *len, uint64_t *ts,
		     uint64_t deadline)
{
	struct live *l = ctx;
	struct rx_frame f;

	for (;;) {
		uint64_t now = live_now(NULL);
		int ms, got;

		if (now >= deadline)
			ms = 0;
		else
			ms = (int)((deadline - now + 999999) / 1000000);
		got = rx_next(l->rx, &f, ms);
		if (got <= 0)
			return got;
		*len = f.caplen < cap ? f.caplen : cap;
		memcpy(buf, f.data, *len);
		*ts = (uint64_t)f.ts.tv_sec * 1000000000u + (uint64_t)f.ts.tv_usec * 1000u;
		return 1;
	}
}

static int live_ctl(void *ctx, const char *req, char *rep, size_t cap)
{
	struct live *l = ctx;
	size_t n = strlen(req);
	uint64_t end = live_now(NULL) + 10000000000ull;

	if (write(l->fd, req, n) != (ssize_t)n || write(l->fd, "\n", 1) != 1) {
		snprintf(rep, cap, "control channel: %s", strerror(errno));
		return -1;
	}
	for (;;) {
		char *nl = memchr(l->buf, '\n', l->have);
		struct pollfd p = { l->fd, POLLIN, 0 };
		ssize_t r;

		if (nl) {
			size_t ln = (size_t)(nl - l->buf);

			snprintf(rep, cap, "%.*s", (int)ln, l->buf);
			memmove(l->buf, nl + 1, l->have - ln - 1);
			l->have -= ln + 1;
			return strncmp(rep, "ok", 2) ? -1 : 0;
		}
		if (l->have >= sizeof(l->buf) || live_now(NULL) > end ||
		    poll(&p, 1, 1000) < 0) {
			snprintf(rep, cap, "control channel: no reply");
			return -1;
		}
		if (!p.revents)
			continue;
		r = read(l->fd, l->buf + l->have, sizeof(l->buf) - l->have);
		if (r <= 0) {
			snprintf(rep, cap, "control channel closed");
			return -1;
		}
		l->have += (size_t)r;
	}
}

static int tcp_connect(const char *hostport)
{
	char host[256], *colon;
	const char *port = "7471";
	struct addrinfo hints, *ai, *a;
	int fd = -1, one = 1;

	snprintf(host, sizeof(host), "%.255s", hostport);
	colon = strrchr(host, ':');
	if (colon && !strchr(colon + 1, ']') && strchr(host, ':') == colon) {
		*colon = 0;
		port = colon + 1;
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(host, port, &hints, &ai))
		return -1;
	for (a = ai; a; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
		if (fd >= 0 && !connect(fd, a->ai_addr, a->ai_addrlen))
			break;
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd >= 0)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/* ---- reports ------------------------------------------------------------------------------- */

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void xml_str(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

static void metrics_text(const struct cf_result *r, char *buf, size_t cap)
{
	size_t o = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < r->n_m && o < cap; i++)
		o += (size_t)snprintf(buf + o, cap - o, "%s%s=%.6g%s", i ? " " : "", r->m[i].name,
				      r->m[i].value, r->m[i].unit);
}

/* ---- main ------------------------------------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
"usage: rocegen conform -i IFACE --peer IP [--target HOST:PORT] [--dev NAME] [--gid-index N]\n"
"                       [--cases PATTERN[,PATTERN…]] [--json] [--junit FILE] [--pcap-dir DIR]\n"
"                       [--src IP] [--dmac MAC] [--list] [-v]\n"
"       rocegen conform --reference [good|nakstorm|retry7] [--cases …] [--json] …\n"
"Runs the conformance catalogue against the adapter behind rocetarget (default port %d\n"
"on --peer), or against the in-process reference adapter.  See rocegen(8), CONFORM.\n",
		CTL_PORT);
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

static int mac_parse(const char *s, uint8_t m[6])
{
	unsigned v[6];

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]) != 6)
		return -1;
	for (int i = 0; i < 6; i++)
		m[i] = (uint8_t)v[i];
	return 0;
}

int gen_conform_main(int argc, char **argv)
{
	enum { O_PEER = 256, O_TARGET, O_CASES, O_JSON, O_JUNIT, O_PCAPDIR, O_REF, O_LIST, O_DEV,
	       O_GIDX, O_SRC, O_DMAC };
	static const struct option lo[] = {
		{ "interface", required_argument, NULL, 'i' }, { "peer", required_argument, NULL, O_PEER },
		{ "target", required_argument, NULL, O_TARGET }, { "cases", required_argument, NULL, O_CASES },
		{ "json", no_argument, NULL, O_JSON },           { "junit", required_argument, NULL, O_JUNIT },
		{ "pcap-dir", required_argument, NULL, O_PCAPDIR },
		{ "reference", optional_argument, NULL, O_REF }, { "list", no_argument, NULL, O_LIST },
		{ "dev", required_argument, NULL, O_DEV },       { "gid-index", required_argument, NULL, O_GIDX },
		{ "src", required_argument, NULL, O_SRC },       { "dmac", required_argument, NULL, O_DMAC },
		{ "verbose", no_argument, NULL, 'v' },           { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *iface = NULL, *peer = NULL, *target = NULL, *pat = NULL, *junit = NULL;
	const char *dev = NULL, *src = NULL, *dmac = NULL;
	int json = 0, list = 0, ref = -1, gidx = 1, ch, rc = 0;
	static struct cf c;
	static struct live lv;
	struct cf_ref *rf = NULL;
	char rep[1024], tgt_open[300];
	unsigned n_run = 0, cnt[4] = { 0 };
	static struct cf_result res[64];
	const struct cf_case *ran[64];

	memset(&c, 0, sizeof(c));
	optind = 1;
	while ((ch = getopt_long(argc, argv, "i:vh", lo, NULL)) != -1) {
		switch (ch) {
		case 'i': iface = optarg; break;
		case O_PEER: peer = optarg; break;
		case O_TARGET: target = optarg; break;
		case O_CASES: pat = optarg; break;
		case O_JSON: json = 1; break;
		case O_JUNIT: junit = optarg; break;
		case O_PCAPDIR: c.pcap_dir = optarg; break;
		case O_LIST: list = 1; break;
		case O_DEV: dev = optarg; break;
		case O_GIDX: gidx = atoi(optarg); break;
		case O_SRC: src = optarg; break;
		case O_DMAC: dmac = optarg; break;
		case 'v': c.verbose++; break;
		case O_REF:
			if (!optarg && optind < argc && argv[optind][0] != '-')
				optarg = argv[optind++];
			if (!optarg || !strcmp(optarg, "good"))
				ref = CF_REF_GOOD;
			else if (!strcmp(optarg, "nakstorm"))
				ref = CF_REF_NAKSTORM;
			else if (!strcmp(optarg, "retry7"))
				ref = CF_REF_RETRY7;
			else {
				fprintf(stderr, GEN_NAME " conform: --reference good|nakstorm|retry7\n");
				return 2;
			}
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, GEN_NAME " conform: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (list) {
		for (unsigned i = 0; i < cf_n_cases; i++)
			printf("%-24s %-9s %s\n", cf_cases[i].name, cf_cases[i].role, cf_cases[i].summary);
		return 0;
	}

	if (ref >= 0) {
		static const uint8_t us_mac[6] = { 2, 0, 0, 0, 0, 1 }, dut_mac[6] = { 2, 0, 0, 0, 0, 2 };
		static const uint8_t us_ip[4] = { 192, 0, 2, 1 }, dut_ip[4] = { 192, 0, 2, 2 };

		rf = cf_ref_new((enum cf_ref_mode)ref, dut_mac, dut_ip, us_mac, us_ip);
		if (!rf)
			return 2;
		cf_ref_io(rf, &c.io);
		c.is_reference = 1;
		memcpy(c.eth.src, us_mac, 6);
		memcpy(c.eth.dst, dut_mac, 6);
		c.ip.version = 4;
		memcpy(c.ip.src, us_ip, 4);
		memcpy(c.ip.dst, dut_ip, 4);
	} else {
		struct gen_opts o;
		struct tx_cfg tc;
		struct rx_cfg rc_;
		char err[RX_ERRLEN], tgt[300];
		struct sockaddr_in sa;

		if (!iface || !peer) {
			fprintf(stderr, GEN_NAME " conform: -i IFACE and --peer IP are needed (or --reference)\n");
			return 2;
		}
		memset(&o, 0, sizeof(o));
		o.iface = iface;
		if (inet_pton(AF_INET, peer, o.dst) != 1) {
			fprintf(stderr, GEN_NAME " conform: --peer %s: IPv4 only\n", peer);
			return 2;
		}
		o.dst_ver = o.peer_ver = 4;
		memcpy(o.peer, o.dst, 16);
		if (src) {
			if (inet_pton(AF_INET, src, o.src) != 1)
				return 2;
			o.src_ver = 4;
		}
		if (dmac) {
			if (mac_parse(dmac, o.dmac))
				return 2;
			o.have_dmac = 1;
		}
		o.verbose = c.verbose;
		if (gen_resolve(&o, 1, 1))
			return 2;
		memcpy(c.eth.src, o.smac, 6);
		memcpy(c.eth.dst, o.dmac, 6);
		c.ip.version = 4;
		memcpy(c.ip.src, o.src, 4);
		memcpy(c.ip.dst, o.dst, 4);

		memset(&tc, 0, sizeof(tc));
		tc.kind = TX_MMSG;
		tc.iface = iface;
		tc.use_guard = 1;
		tc.guard.ipver = 4;
		memcpy(tc.guard.ip, o.dst, 4);
		tc.max_frame = 9216;
		if (!(lv.tx = tx_open(&tc, err))) {
			fprintf(stderr, GEN_NAME " conform: %s\n", err);
			return 2;
		}
		memset(&rc_, 0, sizeof(rc_));
		rc_.iface = iface;
		rc_.peer_ipver = 4;
		memcpy(rc_.peer, o.dst, 4);
		rc_.filter = "udp dst port 4791";
		if (!(lv.rx = rx_open(&rc_, err))) {
			fprintf(stderr, GEN_NAME " conform: %s\n", err);
			return 2;
		}
		/* without a socket on 4791 our kernel answers the DUT's frames with
		 * ICMP port unreachable */
		lv.udp = socket(AF_INET, SOCK_DGRAM, 0);
		memset(&sa, 0, sizeof(sa));
		sa.sin_family = AF_INET;
		sa.sin_port = htons(ROCE_UDP_PORT);
		memcpy(&sa.sin_addr, o.src, 4);
		if (lv.udp < 0 || bind(lv.udp, (struct sockaddr *)&sa, sizeof(sa)))
			fprintf(stderr, GEN_NAME " conform: warning: cannot bind UDP 4791 (%s)\n",
				strerror(errno));
		if (target)
			snprintf(tgt, sizeof(tgt), "%s", target);
		else
			snprintf(tgt, sizeof(tgt), "%.200s:%d", peer, CTL_PORT);
		if ((lv.fd = tcp_connect(tgt)) < 0) {
			fprintf(stderr, GEN_NAME " conform: cannot reach rocetarget at %s\n", tgt);
			return 2;
		}
		c.io.now = live_now;
		c.io.send = live_send;
		c.io.recv = live_recv;
		c.io.ctl = live_ctl;
		c.io.ctx = &lv;
	}
	inet_ntop(AF_INET, c.ip.src, c.our_gid, sizeof(c.our_gid));
	c.gid_index = gidx;
	snprintf(tgt_open, sizeof(tgt_open), "open %s%.200s gid_index=%d", dev ? "dev=" : "",
		 dev ? dev : "", gidx);
	if (c.io.ctl(c.io.ctx, "hello", rep, sizeof(rep)) ||
	    c.io.ctl(c.io.ctx, tgt_open, rep, sizeof(rep))) {
		fprintf(stderr, GEN_NAME " conform: target: %s\n", rep);
		return 2;
	}
	ctl_get(rep, "dev", c.dev, sizeof(c.dev));
	c.dut_mtu = (int)ctl_u64(rep, "active_mtu", 1024);
	if (c.verbose)
		fprintf(stderr, GEN_NAME " conform: target %s\n", rep);
	if (c.pcap_dir)
		mkdir(c.pcap_dir, 0755);

	for (unsigned i = 0; i < cf_n_cases && n_run < 64; i++) {
		const struct cf_case *k = &cf_cases[i];
		uint64_t t0;
		char m[256];

		if (!case_selected(k->name, pat))
			continue;
		memset(&c.r, 0, sizeof(c.r));
		c.case_name = k->name;
		if (c.pcap_dir) {
			snprintf(c.r.pcap, sizeof(c.r.pcap), "%s/%s.pcap", c.pcap_dir, k->name);
			c.pd = pcap_open_dead(DLT_EN10MB, 65535);
			c.dump = c.pd ? pcap_dump_open(c.pd, c.r.pcap) : NULL;
			if (!c.dump) {
				fprintf(stderr, GEN_NAME " conform: %s: %s\n", c.r.pcap,
					c.pd ? pcap_geterr(c.pd) : "out of memory");
				rc = 3;
			}
		}
		t0 = cf_now(&c);
		k->run(&c);
		if (!c.r.judged)
			cf_error(&c, "the case reached no verdict");
		c.r.dur_ns = cf_now(&c) - t0;
		c.io.ctl(c.io.ctx, "reset", rep, sizeof(rep));
		free_engine(&c);
		if (c.dump) {
			/* pcap_dump() reports nothing: check the stream */
			errno = 0;
			if (pcap_dump_flush(c.dump) || ferror(pcap_dump_file(c.dump))) {
				fprintf(stderr, GEN_NAME " conform: %s: %s\n", c.r.pcap,
					strerror(errno ? errno : EIO));
				rc = 3;
			}
			pcap_dump_close(c.dump);
		}
		if (c.pd)
			pcap_close(c.pd);
		c.dump = NULL;
		c.pd = NULL;
		res[n_run] = c.r;
		ran[n_run++] = k;
		cnt[c.r.v]++;
		if (!json) {
			metrics_text(&c.r, m, sizeof(m));
			printf("%-24s %-9s %-11s %s%s%s\n", k->name, k->role, cf_verdict_name(c.r.v),
			       c.r.detail, m[0] ? " | " : "", m);
			fflush(stdout);
		}
	}
	if (json) {
		printf("{\"target\":");
		json_str(stdout, c.is_reference ? "reference" : c.dev);
		printf(",\"cases\":[");
		for (unsigned i = 0; i < n_run; i++) {
			printf("%s\n{\"name\":", i ? "," : "");
			json_str(stdout, ran[i]->name);
			printf(",\"role\":\"%s\",\"verdict\":\"%s\",\"detail\":", ran[i]->role,
			       cf_verdict_name(res[i].v));
			json_str(stdout, res[i].detail);
			printf(",\"seconds\":%.6f,\"metrics\":{", (double)res[i].dur_ns / 1e9);
			for (unsigned j = 0; j < res[i].n_m; j++) {
				printf("%s", j ? "," : "");
				json_str(stdout, res[i].m[j].name);
				printf(":{\"value\":%.9g,\"unit\":", res[i].m[j].value);
				json_str(stdout, res[i].m[j].unit);
				printf("}");
			}
			printf("}");
			if (res[i].pcap[0]) {
				printf(",\"pcap\":");
				json_str(stdout, res[i].pcap);
			}
			printf("}");
		}
		printf("\n],\"pass\":%u,\"fail\":%u,\"unsupported\":%u,\"error\":%u}\n", cnt[0], cnt[1],
		       cnt[2], cnt[3]);
	} else {
		printf("%u cases: %u pass, %u fail, %u unsupported, %u error\n", n_run, cnt[0], cnt[1],
		       cnt[2], cnt[3]);
	}
	if (junit) {
		FILE *f = fopen(junit, "w");

		if (!f) {
			fprintf(stderr, GEN_NAME " conform: %s: %s\n", junit, strerror(errno));
			rc = 3;
		} else {
			fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
				   "<testsuite name=\"rocegen-conform\" tests=\"%u\" failures=\"%u\" errors=\"%u\" skipped=\"%u\">\n",
				n_run, cnt[1], cnt[3], cnt[2]);
			for (unsigned i = 0; i < n_run; i++) {
				char m[256];

				metrics_text(&res[i], m, sizeof(m));
				fprintf(f, "  <testcase classname=\"conform.%s\" name=\"%s\" time=\"%.6f\">",
					ran[i]->role, ran[i]->name, (double)res[i].dur_ns / 1e9);
				if (res[i].v != CF_PASS) {
					static const char *const el[] = { "", "failure", "skipped", "error" };

					fprintf(f, "\n    <%s message=\"", el[res[i].v]);
					xml_str(f, res[i].detail);
					fprintf(f, "\"/>\n  ");
				}
				fprintf(f, "<system-out>");
				xml_str(f, res[i].detail);
				if (m[0]) {
					fputs(" | ", f);
					xml_str(f, m);
				}
				fprintf(f, "</system-out></testcase>\n");
			}
			fprintf(f, "</testsuite>\n");
			errno = 0;
			if (ferror(f) | fclose(f)) {
				fprintf(stderr, GEN_NAME " conform: %s: %s\n", junit, strerror(errno ? errno : EIO));
				rc = 3;
			}
		}
	}
	if (rf)
		cf_ref_free(rf);
	if (lv.fd > 0) {
		if (write(lv.fd, "quit\n", 5) < 0)
			rc = rc ? rc : 0;
		close(lv.fd);
	}
	if (lv.tx)
		tx_close(lv.tx);
	if (lv.rx)
		rx_close(lv.rx);
	if (lv.udp > 0)
		close(lv.udp);
	if (!rc)
		rc = cnt[CF_ERROR] ? 3 : cnt[CF_FAIL] ? 1 : 0;
	return rc;
}
