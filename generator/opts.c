/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * opts.c — rocegen's options: one table shared by the commands (each option
 * says which commands take it), address resolution from the interface, and
 * opening the transmit backend the options ask for.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gen.h"
#include "ifinfo.h"
#include "pace.h"

volatile int gen_stop;

static void on_signal(int sig)
{
	(void)sig;
	gen_stop = 1;
}

void gen_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

void gen_usage(FILE *f)
{
	fprintf(f,
"usage: rocegen COMMAND [options]   (rocegen COMMAND --help: the options of that command)\n"
"       rocegen frames KIND [options] (-w FILE | -i IFACE | --dry-run)\n"
"       rocegen flood [KIND] [options] (-i IFACE | -w FILE | --dry-run)\n"
"       rocegen recv -i IFACE [--peer IP] [--count N] [--timeout S] [--filter BPF]\n"
"       rocegen kinds                  list every KIND\n"
"       rocegen client -i IFACE --peer IP --oob pingpong|perftest|cm|none [--port N] --op OP\n"
"                      --size BYTES --iters N [--qd N] [--mtu N] [--json] [--fault SPEC --seed N]\n"
"       rocegen server -i IFACE --peer IP --oob pingpong|perftest|cm|none (the same options)\n"
"       rocegen client|server --transport iwarp [--peer IP] [--port N] [--op send|write|read]\n"
"                      [--crc|--no-crc] [--markers] [--rev 1|2] [--ird N --ord N] [--rtr none|write|read|send]\n"
"                      [--mss N] [--reject] [--fault KIND[@N]] [--json]\n"
"       rocegen conform ...            the conformance catalogue (rocegen conform --help)\n"
"       rocegen stress ...             the RC engine against a target under faults (rocegen stress --help)\n"
"       rocegen search --reference [good|planted] [--seed N] [--budget N] [--json]   anomaly search\n"
"       rocegen fingerprint --reference cnp-qp|cnp-ip|cnp-port|no-cc[:US]|good [--json]   congestion fingerprint\n"
"       rocegen isolation --reference shared|fair [--cases NAME,...] [--threshold R] [--json]   Husky's isolation cases\n"
"       rocegen convert -r IN -w OUT [encapsulation] [--count N]   re-encapsulate a capture\n"
"output:   -w FILE  -i IFACE  --dry-run [--no-hex]  --tx pcap|libnet|ring|mmsg  --qdisc-bypass\n"
"encap:    --erspan 1|2|3 | --gre-teb | --vxlan VNI [--vxlan-port N]  --outer-src IP --outer-dst IP\n"
"          --span-id N --mirror-trunc N  --ib [--ib-grh] [--slid N --dlid N --sl N]  --erf  --snaplen N\n"
"          -v, --verbose (addresses and backend on stderr)  -h, --help\n"
"link:     --smac MAC --dmac MAC --vlan VID[:PCP] (twice: QinQ, outer first)\n"
"network:  --src IP --dst IP --peer IP  --v1 --v2 --1021 --port N  --dscp N --ecn N --ttl N\n"
"          --flow-label N --ip-id N --df --sport N --udp-csum\n"
"BTH:      --qpn N --psn N --psn-step N --pkey N --ackreq --se --fecn --becn --migreq --tver N --pad N\n"
"ext:      --va N --rkey N --len N --imm N --inv-rkey N --syndrome N | --ack [--credits N] |\n"
"          --nak CODE | --rnr TIMER  --msn N --qkey N --src-qp N --swap N (--add N) --cmp N\n"
"          --orig N --eecnxt N --xrc-srq N --feth N\n"
"payload:  --payload HEX | --payload-size N   --bad-icrc --fcs --count N\n"
"DCB:      --prio-mask M --prio P --quanta Q --pfc-times T0,..,T7\n"
"          CNM: --qfb N --cpid N --qoffset N --qdelta N --flow-id N   LLDP: --willing --ets-bw B0,..,B7 --lldp-ttl N\n"
"iWARP:    --markers --crc --no-crc --reject --rev N --ird N --ord N --rdmap-op OP --not-last\n"
"          --qn N --mo N --tcp-seq N --tcp-ack N --stream-pos N --sink-stag N --sink-to N\n"
"CM:       --comm-id N --remote-comm-id N --service-id N --cm-qpn N --start-psn N --tid N\n"
"          --reason N --mtu 256..4096 --no-cma\n"
"RC:       --op send|write|read|cmp_swap|fetch_add --app rping|perftest|ucmatose|raw\n"
"          --qpn N --psn N --remote-qpn N --remote-psn N --rkey N --va N --ack-timeout E\n"
"          --retry N --rnr-retry N --min-rnr-timer N --timeout S --idle S\n"
"          --fault KIND[/MATCH]=P%%|@PSN|@+N[,times=N][,arg=N][,delay-us=N]\n"
"flood:    --pps R | --gbps R | --no-rate-cap   --count N --duration S  --qps N  --size-mix S:W,...\n"
"          --fill count|zero|random  --cnp  --pfc-storm [--prio P --quanta Q --interval-us U]\n"
"Without --pps/--gbps/--no-rate-cap, live sending is capped at %.0f frames/s.\n"
"See rocegen(8).\n", GEN_DEFAULT_PPS_CAP);
}

/* ---- value parsers ------------------------------------------------------------ */

static int bad(const char *opt, const char *val, const char *what)
{
	fprintf(stderr, GEN_NAME ": --%s %s: %s\n", opt, val, what);
	return -1;
}

static int p_u64(const char *opt, const char *s, uint64_t max, uint64_t *v)
{
	char *end;
	unsigned long long x;

	if (!*s || *s == '-')
		return bad(opt, s, "not a number");
	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno || *end)
		return bad(opt, s, "not a number");
	if (x > max) {
		char m[64];

		snprintf(m, sizeof(m), "out of range (0..%llu)", (unsigned long long)max);
		return bad(opt, s, m);
	}
	*v = x;
	return 0;
}

static int p_u32(const char *opt, const char *s, uint64_t max, uint32_t *v)
{
	uint64_t x;

	if (p_u64(opt, s, max, &x))
		return -1;
	*v = (uint32_t)x;
	return 0;
}

static int p_int(const char *opt, const char *s, uint64_t max, int *v)
{
	uint64_t x;

	if (p_u64(opt, s, max, &x))
		return -1;
	*v = (int)x;
	return 0;
}

static int p_sint(const char *opt, const char *s, long lo, long hi, int *v)
{
	char *end;
	long x;

	errno = 0;
	x = strtol(s, &end, 0);
	if (errno || *end || !*s || x < lo || x > hi)
		return bad(opt, s, "not a number in range");
	*v = (int)x;
	return 0;
}

static int p_double(const char *opt, const char *s, double *v)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(s, &end);
	if (errno || *end || !*s || !(x >= 0))
		return bad(opt, s, "not a non-negative number");
	*v = x;
	return 0;
}

static int p_mac(const char *opt, const char *s, uint8_t mac[6])
{
	unsigned m[6];
	char tail;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &m[0], &m[1], &m[2], &m[3], &m[4], &m[5], &tail) != 6)
		return bad(opt, s, "not a MAC address");
	for (int i = 0; i < 6; i++) {
		if (m[i] > 255)
			return bad(opt, s, "not a MAC address");
		mac[i] = (uint8_t)m[i];
	}
	return 0;
}

static int p_ip(const char *opt, const char *s, uint8_t ip[16], int *ver)
{
	memset(ip, 0, 16);
	if (inet_pton(AF_INET, s, ip) == 1) {
		*ver = 4;
		return 0;
	}
	if (inet_pton(AF_INET6, s, ip) == 1) {
		*ver = 6;
		return 0;
	}
	return bad(opt, s, "not an IPv4 or IPv6 address");
}

static int p_hex(const char *opt, const char *s, uint8_t **buf, uint32_t *len)
{
	const char *given = s;
	size_t n = 0, cap = strlen(s) / 2 + 1;
	uint8_t *b = malloc(cap);
	int hi = -1;

	if (!b)
		return bad(opt, "", "out of memory");
	if (!strncmp(s, "0x", 2))
		s += 2;
	for (; *s; s++) {
		int d;

		if (*s == ':' || *s == ' ' || *s == '-' || *s == '.')
			continue;
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if ((*s | 0x20) >= 'a' && (*s | 0x20) <= 'f')
			d = (*s | 0x20) - 'a' + 10;
		else {
			free(b);
			return bad(opt, given, "not hex (e.g. 0xdeadbeef or de:ad:be:ef)");
		}
		if (hi < 0) {
			hi = d;
		} else {
			b[n++] = (uint8_t)(hi << 4 | d);
			hi = -1;
		}
	}
	if (hi >= 0) {
		free(b);
		return bad(opt, given, "odd number of hex digits");
	}
	free(*buf);
	*buf = b;
	*len = (uint32_t)n;
	return 0;
}

static int p_vlan(const char *opt, const char *s, struct gen_opts *o)
{
	unsigned vid, pcp = 0;
	char tail;
	int n = sscanf(s, "%u:%u%c", &vid, &pcp, &tail);

	if ((n != 1 && n != 2) || vid > 4095 || pcp > 7)
		return bad(opt, s, "want VID[:PCP] (VID 0..4095, PCP 0..7)");
	if (o->n_vlan >= 2)
		return bad(opt, s, "at most two tags");
	o->vlan[o->n_vlan].vid = (uint16_t)vid;
	o->vlan[o->n_vlan].pcp = (uint8_t)pcp;
	o->n_vlan++;
	return 0;
}

/* "a,b,c,…" of exactly n values (n = 0: 1..max values), each <= vmax */
static int p_list(const char *opt, const char *s, unsigned n, uint64_t vmax, uint64_t *out,
		  unsigned *got)
{
	char buf[256], *save = NULL, *tok;
	unsigned k = 0;

	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (k >= (n ? n : GEN_MIX_MAX))
			return bad(opt, s, "too many values");
		if (p_u64(opt, tok, vmax, &out[k]))
			return -1;
		k++;
	}
	if ((n && k != n) || !k)
		return bad(opt, s, "wrong number of values");
	*got = k;
	return 0;
}

static int p_mix(const char *opt, const char *s, struct gen_mix *m)
{
	char buf[512], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", s);
	m->n = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':');
		uint64_t sz, w = 1;

		if (m->n >= GEN_MIX_MAX)
			return bad(opt, s, "too many sizes");
		if (colon)
			*colon = 0;
		if (p_u64(opt, tok, 9000, &sz) || (colon && p_u64(opt, colon + 1, 1000000, &w)))
			return -1;
		if (!w)
			continue;
		m->size[m->n] = (uint32_t)sz;
		m->weight[m->n] = (uint32_t)w;
		m->n++;
	}
	if (!m->n)
		return bad(opt, s, "no sizes");
	return 0;
}

static int p_nak(const char *opt, const char *s, int *code)
{
	static const char *const names[][2] = {
		{ "psn-seq-err", "seq" }, { "invalid-req", "inv-req" }, { "remote-access", "access" },
		{ "remote-op", "op" },   { "invalid-rd-req", "rd" },
	};

	char *end;
	unsigned long v;

	for (int i = 0; i < 5; i++)
		if (!strcmp(s, names[i][0]) || !strcmp(s, names[i][1])) {
			*code = i;
			return 0;
		}
	errno = 0;
	v = *s && *s != '-' ? strtoul(s, &end, 0) : 32;
	if (errno || !*s || *s == '-' || *end || v > 31)
		return bad(opt, s, "want psn-seq-err, invalid-req, remote-access, remote-op, invalid-rd-req "
				   "(or seq, inv-req, access, op, rd) or a code 0..31");
	*code = (int)v;
	return 0;
}

/* ---- the option table ---------------------------------------------------------- */

#define F (1u << GEN_FRAMES)
#define L (1u << GEN_FLOOD)
#define R (1u << GEN_RECV)
#define FL (F | L)
#define CS ((1u << GEN_CLIENT) | (1u << GEN_SERVER))
#define C (1u << GEN_CONVERT)
#define FLC (F | L | C)

enum {
	O_HELP = 'h', O_IFACE = 'i', O_WFILE = 'w', O_COUNT = 'c', O_VERBOSE = 'v',
	O_DRY = 256, O_NOHEX, O_TX, O_QBYPASS,
	O_SMAC, O_DMAC, O_VLAN,
	O_SRC, O_DST, O_PEER, O_V1, O_V2, O_1021, O_PORT, O_DSCP, O_ECN, O_TTL, O_FLOWLABEL, O_IPID,
	O_DF, O_SPORT, O_UDPCSUM,
	O_QPN, O_PSN, O_PSNSTEP, O_PKEY, O_ACKREQ, O_SE, O_FECN, O_BECN, O_MIGREQ, O_TVER, O_PAD,
	O_VA, O_RKEY, O_LEN, O_IMM, O_INVRKEY, O_SYNDROME, O_ACK, O_CREDITS, O_NAK, O_RNR, O_MSN,
	O_QKEY, O_SRCQP, O_SWAP, O_CMP, O_ORIG, O_EECNXT, O_XRCSRQ, O_FETH,
	O_PAYLOAD, O_PSIZE, O_BADICRC, O_FCS,
	O_PRIOMASK, O_PRIO, O_QUANTA, O_PFCTIMES, O_QFB, O_CPID, O_QOFF, O_QDELTA, O_FLOWID,
	O_WILLING, O_ETSBW, O_LLDPTTL,
	O_MARKERS, O_CRC, O_NOCRC, O_REJECT, O_REV, O_IRD, O_ORD, O_RDMAPOP, O_NOTLAST, O_QN, O_MO,
	O_TCPSEQ, O_TCPACK, O_STREAMPOS, O_SINKSTAG, O_SINKTO,
	O_COMMID, O_RCOMMID, O_SVCID, O_CMQPN, O_STARTPSN, O_TID, O_REASON, O_MTU, O_NOCMA,
	O_PPS, O_GBPS, O_NOCAP, O_DURATION, O_QPS, O_MIX, O_FILL, O_CNP, O_PFCSTORM, O_INTERVAL,
	O_SEED, O_TIMEOUT, O_FILTER,
	O_OOB, O_OP, O_APP, O_SIZE, O_ITERS, O_QD, O_JSON, O_FAULT, O_RQPN, O_RPSN, O_ACKTO,
	O_RETRY, O_RNRRETRY, O_MINRNR, O_IDLE, O_TRANSPORT, O_RTR, O_MSS,
	O_READ = 'r',
	O_WRAP = 1024,        /* + enum gen_wrap_opt */
	O__END = O_WRAP + GW__END
};

static const struct opt {
	struct option lo;
	unsigned cmds;
} opts[] = {
	{ { "help", no_argument, NULL, O_HELP }, F | L | R | CS | C },
	{ { "interface", required_argument, NULL, O_IFACE }, F | L | R | CS },
	{ { "write", required_argument, NULL, O_WFILE }, FLC },
	{ { "read", required_argument, NULL, O_READ }, C },
	{ { "count", required_argument, NULL, O_COUNT }, F | L | R | C },
	{ { "verbose", no_argument, NULL, O_VERBOSE }, F | L | R | CS | C },
	{ { "dry-run", no_argument, NULL, O_DRY }, FL },
	{ { "no-hex", no_argument, NULL, O_NOHEX }, FL | R },
	{ { "tx", required_argument, NULL, O_TX }, FL | CS },
	{ { "qdisc-bypass", no_argument, NULL, O_QBYPASS }, FL | CS },
	{ { "smac", required_argument, NULL, O_SMAC }, FL | CS },
	{ { "dmac", required_argument, NULL, O_DMAC }, FL | CS },
	{ { "vlan", required_argument, NULL, O_VLAN }, FL | CS },
	{ { "src", required_argument, NULL, O_SRC }, FL | CS },
	{ { "dst", required_argument, NULL, O_DST }, F | L | R },
	{ { "peer", required_argument, NULL, O_PEER }, F | L | R | CS },
	{ { "v1", no_argument, NULL, O_V1 }, FL },
	{ { "v2", no_argument, NULL, O_V2 }, FL },
	{ { "1021", no_argument, NULL, O_1021 }, FL },
	{ { "port", required_argument, NULL, O_PORT }, FL | CS },
	{ { "dscp", required_argument, NULL, O_DSCP }, FL | CS },
	{ { "ecn", required_argument, NULL, O_ECN }, FL },
	{ { "ttl", required_argument, NULL, O_TTL }, FL },
	{ { "flow-label", required_argument, NULL, O_FLOWLABEL }, FL },
	{ { "ip-id", required_argument, NULL, O_IPID }, FL },
	{ { "df", no_argument, NULL, O_DF }, FL },
	{ { "sport", required_argument, NULL, O_SPORT }, FL },
	{ { "udp-csum", no_argument, NULL, O_UDPCSUM }, FL },
	{ { "qpn", required_argument, NULL, O_QPN }, FL | CS },
	{ { "psn", required_argument, NULL, O_PSN }, FL | CS },
	{ { "psn-step", required_argument, NULL, O_PSNSTEP }, F },
	{ { "pkey", required_argument, NULL, O_PKEY }, FL },
	{ { "ackreq", no_argument, NULL, O_ACKREQ }, FL },
	{ { "se", no_argument, NULL, O_SE }, FL | CS },
	{ { "fecn", no_argument, NULL, O_FECN }, FL },
	{ { "becn", no_argument, NULL, O_BECN }, FL },
	{ { "migreq", no_argument, NULL, O_MIGREQ }, FL },
	{ { "tver", required_argument, NULL, O_TVER }, FL },
	{ { "pad", required_argument, NULL, O_PAD }, FL },
	{ { "va", required_argument, NULL, O_VA }, FL | CS },
	{ { "rkey", required_argument, NULL, O_RKEY }, FL | CS },
	{ { "len", required_argument, NULL, O_LEN }, FL },
	{ { "imm", required_argument, NULL, O_IMM }, FL },
	{ { "inv-rkey", required_argument, NULL, O_INVRKEY }, FL },
	{ { "syndrome", required_argument, NULL, O_SYNDROME }, FL },
	{ { "ack", no_argument, NULL, O_ACK }, FL },
	{ { "credits", required_argument, NULL, O_CREDITS }, FL },
	{ { "nak", required_argument, NULL, O_NAK }, FL },
	{ { "rnr", required_argument, NULL, O_RNR }, FL },
	{ { "msn", required_argument, NULL, O_MSN }, FL },
	{ { "qkey", required_argument, NULL, O_QKEY }, FL },
	{ { "src-qp", required_argument, NULL, O_SRCQP }, FL },
	{ { "swap", required_argument, NULL, O_SWAP }, FL },
	{ { "add", required_argument, NULL, O_SWAP }, FL },
	{ { "cmp", required_argument, NULL, O_CMP }, FL },
	{ { "orig", required_argument, NULL, O_ORIG }, FL },
	{ { "eecnxt", required_argument, NULL, O_EECNXT }, FL },
	{ { "xrc-srq", required_argument, NULL, O_XRCSRQ }, FL },
	{ { "feth", required_argument, NULL, O_FETH }, FL },
	{ { "payload", required_argument, NULL, O_PAYLOAD }, FL },
	{ { "payload-size", required_argument, NULL, O_PSIZE }, FL },
	{ { "bad-icrc", no_argument, NULL, O_BADICRC }, FL },
	{ { "fcs", no_argument, NULL, O_FCS }, FL },
	{ { "prio-mask", required_argument, NULL, O_PRIOMASK }, FL },
	{ { "prio", required_argument, NULL, O_PRIO }, FL },
	{ { "quanta", required_argument, NULL, O_QUANTA }, FL },
	{ { "pfc-times", required_argument, NULL, O_PFCTIMES }, FL },
	{ { "qfb", required_argument, NULL, O_QFB }, F },
	{ { "cpid", required_argument, NULL, O_CPID }, F },
	{ { "qoffset", required_argument, NULL, O_QOFF }, F },
	{ { "qdelta", required_argument, NULL, O_QDELTA }, F },
	{ { "flow-id", required_argument, NULL, O_FLOWID }, F },
	{ { "willing", no_argument, NULL, O_WILLING }, F },
	{ { "ets-bw", required_argument, NULL, O_ETSBW }, F },
	{ { "lldp-ttl", required_argument, NULL, O_LLDPTTL }, F },
	{ { "markers", no_argument, NULL, O_MARKERS }, F | CS },
	{ { "crc", no_argument, NULL, O_CRC }, F | CS },
	{ { "no-crc", no_argument, NULL, O_NOCRC }, F | CS },
	{ { "reject", no_argument, NULL, O_REJECT }, F | CS },
	{ { "rev", required_argument, NULL, O_REV }, F | CS },
	{ { "ird", required_argument, NULL, O_IRD }, F | CS },
	{ { "ord", required_argument, NULL, O_ORD }, F | CS },
	{ { "rdmap-op", required_argument, NULL, O_RDMAPOP }, F },
	{ { "not-last", no_argument, NULL, O_NOTLAST }, F },
	{ { "qn", required_argument, NULL, O_QN }, F },
	{ { "mo", required_argument, NULL, O_MO }, F },
	{ { "tcp-seq", required_argument, NULL, O_TCPSEQ }, F },
	{ { "tcp-ack", required_argument, NULL, O_TCPACK }, F },
	{ { "stream-pos", required_argument, NULL, O_STREAMPOS }, F },
	{ { "sink-stag", required_argument, NULL, O_SINKSTAG }, F },
	{ { "sink-to", required_argument, NULL, O_SINKTO }, F },
	{ { "comm-id", required_argument, NULL, O_COMMID }, F },
	{ { "remote-comm-id", required_argument, NULL, O_RCOMMID }, F },
	{ { "service-id", required_argument, NULL, O_SVCID }, F },
	{ { "cm-qpn", required_argument, NULL, O_CMQPN }, F },
	{ { "start-psn", required_argument, NULL, O_STARTPSN }, F },
	{ { "tid", required_argument, NULL, O_TID }, F },
	{ { "reason", required_argument, NULL, O_REASON }, F },
	{ { "mtu", required_argument, NULL, O_MTU }, F | CS },
	{ { "no-cma", no_argument, NULL, O_NOCMA }, F },
	{ { "pps", required_argument, NULL, O_PPS }, FL },
	{ { "gbps", required_argument, NULL, O_GBPS }, FL },
	{ { "no-rate-cap", no_argument, NULL, O_NOCAP }, FL },
	{ { "duration", required_argument, NULL, O_DURATION }, L },
	{ { "qps", required_argument, NULL, O_QPS }, L },
	{ { "size-mix", required_argument, NULL, O_MIX }, L },
	{ { "fill", required_argument, NULL, O_FILL }, L },
	{ { "cnp", no_argument, NULL, O_CNP }, L },
	{ { "pfc-storm", no_argument, NULL, O_PFCSTORM }, L },
	{ { "interval-us", required_argument, NULL, O_INTERVAL }, L },
	{ { "seed", required_argument, NULL, O_SEED }, L | CS },
	{ { "timeout", required_argument, NULL, O_TIMEOUT }, R | CS },
	{ { "filter", required_argument, NULL, O_FILTER }, R },
	{ { "oob", required_argument, NULL, O_OOB }, CS },
	{ { "op", required_argument, NULL, O_OP }, CS },
	{ { "app", required_argument, NULL, O_APP }, CS },
	{ { "size", required_argument, NULL, O_SIZE }, CS },
	{ { "iters", required_argument, NULL, O_ITERS }, CS },
	{ { "qd", required_argument, NULL, O_QD }, CS },
	{ { "json", no_argument, NULL, O_JSON }, CS },
	{ { "fault", required_argument, NULL, O_FAULT }, CS },
	{ { "remote-qpn", required_argument, NULL, O_RQPN }, CS },
	{ { "remote-psn", required_argument, NULL, O_RPSN }, CS },
	{ { "ack-timeout", required_argument, NULL, O_ACKTO }, CS },
	{ { "retry", required_argument, NULL, O_RETRY }, CS },
	{ { "rnr-retry", required_argument, NULL, O_RNRRETRY }, CS },
	{ { "min-rnr-timer", required_argument, NULL, O_MINRNR }, CS },
	{ { "idle", required_argument, NULL, O_IDLE }, CS },
	{ { "erspan", required_argument, NULL, O_WRAP + GW_ERSPAN }, FLC },
	{ { "gre-teb", no_argument, NULL, O_WRAP + GW_GRETEB }, FLC },
	{ { "vxlan", required_argument, NULL, O_WRAP + GW_VXLAN }, FLC },
	{ { "vxlan-port", required_argument, NULL, O_WRAP + GW_VXLANPORT }, FLC },
	{ { "outer-src", required_argument, NULL, O_WRAP + GW_OSRC }, FLC },
	{ { "outer-dst", required_argument, NULL, O_WRAP + GW_ODST }, FLC },
	{ { "span-id", required_argument, NULL, O_WRAP + GW_SPANID }, FLC },
	{ { "mirror-trunc", required_argument, NULL, O_WRAP + GW_MTRUNC }, FLC },
	{ { "ib", no_argument, NULL, O_WRAP + GW_IB }, FLC },
	{ { "ib-grh", no_argument, NULL, O_WRAP + GW_IBGRH }, FLC },
	{ { "slid", required_argument, NULL, O_WRAP + GW_SLID }, FLC },
	{ { "dlid", required_argument, NULL, O_WRAP + GW_DLID }, FLC },
	{ { "sl", required_argument, NULL, O_WRAP + GW_SL }, FLC },
	{ { "erf", no_argument, NULL, O_WRAP + GW_ERF }, FLC },
	{ { "snaplen", required_argument, NULL, O_WRAP + GW_SNAPLEN }, FLC },
	{ { "transport", required_argument, NULL, O_TRANSPORT }, CS },
	{ { "rtr", required_argument, NULL, O_RTR }, CS },
	{ { "mss", required_argument, NULL, O_MSS }, CS },
};
#define N_OPTS (sizeof(opts) / sizeof(opts[0]))

static const char *const cmd_names[] = { "frames", "flood", "recv", "client", "server", "convert" };

static void defaults(struct gen_opts *o, enum gen_cmd cmd)
{
	memset(o, 0, sizeof(*o));
	o->cmd = cmd;
	o->version = ROCE_VER_V2;
	o->port = o->dscp = o->ecn = o->ttl = o->sport = o->pkey = o->pad = -1;
	o->flow_label = 0;
	o->ip_id = 0;
	o->qpn = 0x11;
	o->psn_step = 1;
	o->credits = -1;
	o->payload_size = -1;
	o->prio_mask = o->prio = o->quanta = -1;
	o->qfb = 32;
	o->flow_id = -1;
	o->lldp_ttl = 120;
	o->mpa_rev = 1;
	o->ird = o->ord = -1;
	o->comm_id = 0x1e1e0001;
	o->cm_qpn = 0x11;
	o->start_psn = 0;
	o->tid = 0x1234;
	o->rej_reason = 28;   /* consumer reject */
	o->mtu_enum = 3;      /* 1024 */
	o->qps = 1;
	o->fill = "count";
	o->seed = 1;
	o->ext.qkey = 0;
	o->ack_timeout = o->retry = o->rnr_retry = o->min_rnr_timer = -1;
}

/* ---- parsing: one handler per option group ------------------------------------------ */

/* What a handler sees: the option, its value and the state a later check needs. */
struct pst {
	struct gen_opts *o;
	int c;
	const char *name, *a;
	int ack;
};

#define NOT_MINE 2   /* a handler's "not one of mine"; 0 done, 1 --help, -1 error */

/* Common to the commands: interface, output, count, backend. */
static int opt_run(struct pst *p)
{
	struct gen_opts *o = p->o;
	const char *a = p->a, *name = p->name;

	switch (p->c) {
	case O_HELP: gen_cmd_usage(o->cmd, stdout); return 1;
	case O_IFACE: o->iface = a; break;
	case O_WFILE: o->wfile = a; break;
	case O_READ: o->rfile = a; break;
	case O_COUNT:
		if (p_u64(name, a, UINT64_MAX, &o->count)) return -1;
		if (!o->count)
			return bad(name, a, "want 1 or more (without --count: until stopped, or --duration)");
		break;
	case O_VERBOSE: o->verbose++; break;
	case O_DRY: o->dry_run = 1; break;
	case O_NOHEX: o->no_hex = 1; break;
	case O_TX:
		if (tx_kind_parse(a, &o->tx) || o->tx == TX_DRY)
			return bad(name, a, "want pcap, libnet, ring or mmsg");
		break;
	case O_QBYPASS: o->qdisc_bypass = 1; break;
	default: return NOT_MINE;
	}
	return 0;
}

/* Ethernet, IP and UDP addressing and header fields. */
static int opt_addr(struct pst *p)
{
	struct gen_opts *o = p->o;
	const char *a = p->a, *name = p->name;

	switch (p->c) {
	case O_SMAC: if (p_mac(name, a, o->smac)) return -1; o->have_smac = 1; break;
	case O_DMAC:
		if (p_mac(name, a, o->dmac)) return -1;
		o->have_dmac = o->dmac_given = 1;
		break;
	case O_VLAN: if (p_vlan(name, a, o)) return -1; break;
	case O_SRC: if (p_ip(name, a, o->src, &o->src_ver)) return -1; break;
	case O_DST: if (p_ip(name, a, o->dst, &o->dst_ver)) return -1; break;
	case O_PEER: if (p_ip(name, a, o->peer, &o->peer_ver)) return -1; break;
	case O_V1: o->version = ROCE_VER_V1; break;
	case O_V2: o->version = ROCE_VER_V2; break;
	case O_1021: o->version = ROCE_VER_V2_1021; break;
	case O_PORT: if (p_int(name, a, 65535, &o->port)) return -1; break;
	case O_DSCP: if (p_int(name, a, 63, &o->dscp)) return -1; break;
	case O_ECN: if (p_int(name, a, 3, &o->ecn)) return -1; break;
	case O_TTL: if (p_int(name, a, 255, &o->ttl)) return -1; break;
	case O_FLOWLABEL: if (p_int(name, a, 0xfffff, &o->flow_label)) return -1; break;
	case O_IPID: if (p_int(name, a, 0xffff, &o->ip_id)) return -1; break;
	case O_DF: o->df = 1; break;
	case O_SPORT: if (p_int(name, a, 65535, &o->sport)) return -1; break;
	case O_UDPCSUM: o->udp_csum = 1; break;
	default: return NOT_MINE;
	}
	return 0;
}

/* Base transport header, RETH and the other 32-bit header values. */
static int opt_bth(struct pst *p)
{
	struct gen_opts *o = p->o;
	const char *a = p->a, *name = p->name;

	switch (p->c) {
	case O_QPN: if (p_u32(name, a, 0xffffff, &o->qpn)) return -1; o->have_qpn = 1; break;
	case O_PSN: if (p_u32(name, a, 0xffffff, &o->psn)) return -1; o->have_psn = 1; break;
	case O_PSNSTEP: if (p_u32(name, a, 0xffffff, &o->psn_step)) return -1; break;
	case O_PKEY: if (p_int(name, a, 0xffff, &o->pkey)) return -1; break;
	case O_ACKREQ: o->ackreq = 1; break;
	case O_SE: o->se = 1; break;
	case O_FECN: o->fecn = 1; break;
	case O_BECN: o->becn = 1; break;
	case O_MIGREQ: o->migreq = 1; break;
	case O_TVER: if (p_int(name, a, 15, &o->tver)) return -1; break;
	case O_PAD: if (p_int(name, a, 3, &o->pad)) return -1; break;
	case O_VA: if (p_u64(name, a, UINT64_MAX, &o->ext.va)) return -1; o->have_va = 1; break;
	case O_RKEY: if (p_u32(name, a, UINT32_MAX, &o->ext.rkey)) return -1; o->have_rkey = 1; break;
	case O_LEN: if (p_u32(name, a, UINT32_MAX, &o->ext.dmalen)) return -1; o->have_len = 1; break;
	case O_IMM: if (p_u32(name, a, UINT32_MAX, &o->ext.imm)) return -1; break;
	case O_INVRKEY: if (p_u32(name, a, UINT32_MAX, &o->ext.inv_rkey)) return -1; break;
	default: return NOT_MINE;
	}
	return 0;
}

/* AETH: --syndrome, --ack [--credits], --nak, --rnr, --msn. */
static int opt_aeth(struct pst *p)
{
	struct gen_opts *o = p->o;
	const char *a = p->a, *name = p->name;
	uint64_t v;
	int code;

	switch (p->c) {
	case O_SYNDROME:
		if (p_u64(name, a, 255, &v)) return -1;
		o->ext.syndrome = (uint8_t)v;
		o->have_syndrome = 1;
		break;
	case O_ACK: p->ack = 1; break;
	case O_CREDITS: if (p_int(name, a, 31, &o->credits)) return -1; break;
	case O_NAK:
		if (p_nak(name, a, &code)) return -1;
		o->ext.syndrome = (uint8_t)(ROCE_AETH_NAK << 5 | code);
		o->have_syndrome = 1;
		break;
	case O_RNR:
		if (p_u64(name, a, 31, &v)) return -1;
		o->ext.syndrome = (uint8_t)(ROCE_AETH_RNR_NAK << 5 | v);
		o->have_syndrome = 1;
		break;
	case O_MSN: if (p_u32(name, a, 0xffffff, &o->ext.msn)) return -1; break;
	default: return NOT_MINE;
	}
	return 0;
}

/* The other extended headers and the payload. */
static int opt_ext(struct pst *p)
{
	struct gen_opts *o = p->o;
	const char *a = p->a, *name = p->name;

	switch (p->c) {
	case O_QKEY: if (p_u32(name, a, UINT32_MAX, &o->ext.qkey)) return -1; break;
	case O_SRCQP: if (p_u32(name, a, 0xffffff, &o->ext.src_qp)) return -1; break;
	case O_SWAP: if (p_u64(name, a, UINT64_MAX, &o->ext.swap_add)) return -1; break;
	case O_CMP: if (p_u64(name, a, UINT64_MAX, &o->ext.compare)) return -1; break;
	case O_ORIG: if (p_u64(name, a, UINT64_MAX, &o->ext.orig)) return -1; break;
	case O_EECNXT: if (p_u32(name, a, 0xffffff, &o->ext.eecnxt)) return -1; break;
	case O_XRCSRQ: if (p_u32(name, a, 0xffffff, &o->ext.xrc_srq)) return -1; break;
	case O_FETH: if (p_u32(name, a, UINT32_MAX, &o->ext.feth)) return -1; break;
	case O_PAYLOAD: if (p_hex(name, a, &o->payload, &o->payload_len)) return -1; break;
	case O_PSIZE: if (p_int(name, a, 9000, &o->payload_size)) return -1; break;
	case O_BADICRC: o->bad_icrc = 1; break;
	case O_FCS: o->fcs = 1; break;
	default: return NOT_MINE;
	}
	return 0;
}

/* Data-centre bridging: PFC, CNM, DCBX. */
static int opt_dcb(struct pst *p)
{
	struct gen_opts *o = p->o;
	const char *a = p->a, *name = p->name;
	uint64_t list[GEN_MIX_MAX];
	unsigned got;

	switch (p->c) {
	case O_PRIOMASK: if (p_int(name, a, 255, &o->prio_mask)) return -1; break;
	case O_PRIO: if (p_int(name, a, 7, &o->prio)) return -1; break;
	case O_QUANTA: if (p_int(name, a, 65535, &o->quanta)) return -1; break;
	case O_PFCTIMES:
		if (p_list(name, a, 8, 65535, list, &got)) return -1;
		for (int i = 0; i < 8; i++)
			o->times[i] = (uint16_t)list[i];
		o->have_times = 1;
		break;
	case O_QFB: if (p_int(name, a, 63, &o->qfb)) return -1; break;
	case O_CPID: if (p_u64(name, a, UINT64_MAX, &o->cpid)) return -1; break;
	case O_QOFF: if (p_sint(name, a, -32768, 32767, &o->cnm_qoffset)) return -1; break;
	case O_QDELTA: if (p_sint(name, a, -32768, 32767, &o->cnm_qdelta)) return -1; break;
	case O_FLOWID: if (p_int(name, a, 65535, &o->flow_id)) return -1; break;
	case O_WILLING: o->willing = 1; break;
	case O_ETSBW:
		if (p_list(name, a, 8, 100, list, &got)) return -1;
		for (int i = 0; i < 8; i++)
			o->ets_bw[i] = (uint8_t)list[i];
		o->have_ets_bw = 1;
		break;
	case O_LLDPTTL: if (p_int(name, a, 65535, &o->lldp_ttl)) return -1; break;
	default: return NOT_MINE;
	}
	return 0;
}

/* iWARP: MPA, DDP, RDMAP, TCP. */
static int opt_iwarp(struct pst *p)
{
	struct gen_opts *o = p->o;
	const char *a = p->a, *name = p->name;

	switch (p->c) {
	case O_MARKERS: o->mpa_markers = 1; break;
	case O_CRC: o->mpa_crc = 1; break;
	case O_NOCRC: o->no_crc = 1; break;
	case O_REJECT: o->mpa_reject = 1; break;
	case O_REV: if (p_int(name, a, 255, &o->mpa_rev)) return -1; o->have_rev = 1; break;
	case O_TRANSPORT:
		if (strcmp(a, "roce") && strcmp(a, "iwarp"))
			return bad(name, a, "want roce or iwarp");
		o->iwarp = !strcmp(a, "iwarp");
		break;
	case O_RTR:
		if (strspn(a, "nonewritereadsend,") != strlen(a))
			return bad(name, a, "want none or write, read, send (a comma list)");
		o->rtr = a;
		break;
	case O_MSS: if (p_int(name, a, 65535, &o->mss)) return -1; break;
	case O_IRD: if (p_int(name, a, 0x3fff, &o->ird)) return -1; break;
	case O_ORD: if (p_int(name, a, 0x3fff, &o->ord)) return -1; break;
	case O_RDMAPOP: o->rdmap_op = a; break;
	case O_NOTLAST: o->not_last = 1; break;
	case O_QN: if (p_u32(name, a, UINT32_MAX, &o->qn)) return -1; o->have_qn = 1; break;
	case O_MO: if (p_u32(name, a, UINT32_MAX, &o->mo)) return -1; break;
	case O_TCPSEQ: if (p_u32(name, a, UINT32_MAX, &o->tcp_seq)) return -1; break;
	case O_TCPACK: if (p_u32(name, a, UINT32_MAX, &o->tcp_ack)) return -1; break;
	case O_STREAMPOS: if (p_u32(name, a, UINT32_MAX, &o->stream_pos)) return -1; break;
	case O_SINKSTAG: if (p_u32(name, a, UINT32_MAX, &o->sink_stag)) return -1; break;
	case O_SINKTO: if (p_u64(name, a, UINT64_MAX, &o->sink_to)) return -1; break;
	default: return NOT_MINE;
	}
	return 0;
}

/* Communication management MADs and the path MTU. */
static int opt_cm(struct pst *p)
{
	struct gen_opts *o = p->o;
	const char *a = p->a, *name = p->name;
	int m, e = 0;

	switch (p->c) {
	case O_COMMID: if (p_u32(name, a, UINT32_MAX, &o->comm_id)) return -1; break;
	case O_RCOMMID: if (p_u32(name, a, UINT32_MAX, &o->remote_comm_id)) return -1; break;
	case O_SVCID:
		if (p_u64(name, a, UINT64_MAX, &o->service_id)) return -1;
		o->have_service_id = 1;
		break;
	case O_CMQPN: if (p_u32(name, a, 0xffffff, &o->cm_qpn)) return -1; break;
	case O_STARTPSN: if (p_u32(name, a, 0xffffff, &o->start_psn)) return -1; break;
	case O_TID: if (p_u64(name, a, UINT64_MAX, &o->tid)) return -1; break;
	case O_REASON: if (p_int(name, a, 65535, &o->rej_reason)) return -1; break;
	case O_MTU:
		if (p_int(name, a, 4096, &m)) return -1;
		for (int k = 1; k <= 5; k++)
			if (m == 128 << k)
				e = k;
		if (!e)
			return bad(name, a, "want 256, 512, 1024, 2048 or 4096");
		o->mtu_enum = e;
		o->have_mtu = 1;
		break;
	case O_NOCMA: o->no_cma = 1; break;
	default: return NOT_MINE;
	}
	return 0;
}

/* Rates, durations and the flood's traffic shape; recv's filter. */
static int opt_rate(struct pst *p)
{
	struct gen_opts *o = p->o;
	const char *a = p->a, *name = p->name;
	double *r = p->c == O_PPS ? &o->pps : &o->gbps;
	uint64_t v;

	switch (p->c) {
	case O_PPS:
	case O_GBPS:
		if (p_double(name, a, r)) return -1;
		if (!(*r > 0))
			return bad(name, a, "want a rate above 0 (--no-rate-cap for as fast as possible)");
		break;
	case O_NOCAP: o->no_rate_cap = 1; break;
	case O_DURATION: if (p_double(name, a, &o->duration)) return -1; break;
	case O_QPS:
		if (p_u64(name, a, 1u << 20, &v) || !v)
			return bad(name, a, "want 1..1048576");
		o->qps = (unsigned)v;
		break;
	case O_MIX: if (p_mix(name, a, &o->mix)) return -1; break;
	case O_FILL:
		if (strcmp(a, "count") && strcmp(a, "zero") && strcmp(a, "random"))
			return bad(name, a, "want count, zero or random");
		o->fill = a;
		break;
	case O_CNP: o->cnp = 1; break;
	case O_PFCSTORM: o->pfc_storm = 1; break;
	case O_INTERVAL:
		if (p_double(name, a, &o->interval_us) || o->interval_us <= 0)
			return bad(name, a, "want a positive number of microseconds");
		break;
	case O_SEED: if (p_u64(name, a, UINT64_MAX, &o->seed)) return -1; o->have_seed = 1; break;
	case O_TIMEOUT: if (p_double(name, a, &o->timeout)) return -1; break;
	case O_FILTER: o->filter = a; break;
	default: return NOT_MINE;
	}
	return 0;
}

/* client/server: the conversation (out-of-band setup, operation, sizes). */
static int opt_conv(struct pst *p)
{
	struct gen_opts *o = p->o;
	const char *a = p->a, *name = p->name;
	uint64_t v;

	switch (p->c) {
	case O_OOB:
		if (strcmp(a, "pingpong") && strcmp(a, "perftest") && strcmp(a, "cm") && strcmp(a, "none"))
			return bad(name, a, "want pingpong, perftest, cm or none");
		o->oob = a;
		break;
	case O_OP:
		if (strcmp(a, "send") && strcmp(a, "write") && strcmp(a, "read") &&
		    strcmp(a, "cmp_swap") && strcmp(a, "fetch_add"))
			return bad(name, a, "want send, write, read, cmp_swap or fetch_add");
		o->op = a;
		break;
	case O_APP:
		if (strcmp(a, "rping") && strcmp(a, "perftest") && strcmp(a, "ucmatose") && strcmp(a, "raw"))
			return bad(name, a, "want rping, perftest, ucmatose or raw");
		o->app = a;
		break;
	case O_SIZE:
		if (p_u64(name, a, 1u << 30, &o->size)) return -1;
		o->have_size = 1;
		break;
	case O_ITERS:
		if (p_u64(name, a, UINT32_MAX, &o->iters) || !o->iters)
			return bad(name, a, "want 1..4294967295");
		o->have_iters = 1;
		break;
	case O_QD:
		if (p_u64(name, a, 4096, &v) || !v)
			return bad(name, a, "want 1..4096");
		o->qd = (unsigned)v;
		break;
	case O_JSON: o->json = 1; break;
	default: return NOT_MINE;
	}
	return 0;
}

/* client/server: the queue pair's peer, timers and injected faults. */
static int opt_qp(struct pst *p)
{
	struct gen_opts *o = p->o;
	const char *a = p->a, *name = p->name;

	switch (p->c) {
	case O_FAULT:
		if (o->n_fault >= GEN_MAX_FAULTS)
			return bad(name, a, "too many --fault rules");
		o->fault[o->n_fault++] = a;
		break;
	case O_RQPN:
		if (p_u32(name, a, 0xffffff, &o->remote_qpn)) return -1;
		o->have_remote_qpn = 1;
		break;
	case O_RPSN:
		if (p_u32(name, a, 0xffffff, &o->remote_psn)) return -1;
		o->have_remote_psn = 1;
		break;
	case O_ACKTO: if (p_int(name, a, 31, &o->ack_timeout)) return -1; break;
	case O_RETRY: if (p_int(name, a, 7, &o->retry)) return -1; break;
	case O_RNRRETRY: if (p_int(name, a, 7, &o->rnr_retry)) return -1; break;
	case O_MINRNR: if (p_int(name, a, 31, &o->min_rnr_timer)) return -1; break;
	case O_IDLE: if (p_double(name, a, &o->idle)) return -1; break;
	default: return NOT_MINE;
	}
	return 0;
}

/* Encapsulations: wrap.c parses them. */
static int opt_wrap(struct pst *p)
{
	if (p->c < O_WRAP || p->c >= O__END)
		return NOT_MINE;
	return gen_wrap_opt(&p->o->wrap, p->c - O_WRAP, p->name, p->a);
}

static int (*const groups[])(struct pst *) = {
	opt_run, opt_addr, opt_bth, opt_aeth, opt_ext, opt_dcb, opt_iwarp, opt_cm, opt_rate, opt_conv,
	opt_qp, opt_wrap,
};

/* The option's long name for messages; -1 (said why) when the command does not take it. */
static int opt_name(enum gen_cmd cmd, int c, const char **name)
{
	*name = NULL;
	for (unsigned i = 0; i < N_OPTS; i++)
		if (opts[i].lo.val == c) {
			*name = opts[i].lo.name;
			if (!(opts[i].cmds & (1u << cmd))) {
				fprintf(stderr, GEN_NAME " %s: --%s does not apply (see " GEN_NAME " %s --help)\n",
					cmd_names[cmd], *name, cmd_names[cmd]);
				return -1;
			}
			break;
		}
	return 0;
}

/* One option: 0 taken, 1 --help done, -1 error (said). */
static int one_opt(enum gen_cmd cmd, int c, char **argv, struct pst *p)
{
	int r = NOT_MINE;

	if (c == '?' || c == ':') {
		fprintf(stderr, GEN_NAME " %s: %s '%s' (see " GEN_NAME " %s --help)\n", cmd_names[cmd],
			c == ':' ? "option needs a value:" : "unknown option", argv[optind - 1], cmd_names[cmd]);
		return -1;
	}
	if (opt_name(cmd, c, &p->name))
		return -1;
	p->c = c;
	p->a = optarg;
	for (unsigned k = 0; k < sizeof(groups) / sizeof(groups[0]) && r == NOT_MINE; k++)
		r = groups[k](p);
	return r == NOT_MINE ? -1 : r;
}

/* Options that go together or exclude each other. */
static int check_combos(struct gen_opts *o, int ack)
{
	if (ack) {
		o->ext.syndrome = (uint8_t)(o->credits >= 0 ? o->credits : 0x1f);
		o->have_syndrome = 1;
	} else if (o->credits >= 0) {
		fprintf(stderr, GEN_NAME ": --credits goes with --ack\n");
		return -1;
	}
	if (o->pps && o->gbps) {
		fprintf(stderr, GEN_NAME ": give --pps or --gbps, not both\n");
		return -1;
	}
	if (o->payload && o->payload_size >= 0) {
		fprintf(stderr, GEN_NAME ": give --payload or --payload-size, not both\n");
		return -1;
	}
	if (o->wrap && o->iface && !o->wfile && !o->dry_run) {
		fprintf(stderr, GEN_NAME ": encapsulations are written to files: give -w FILE (or --dry-run)\n");
		return -1;
	}
	return gen_wrap_check(o->wrap);
}

/* Defaults that depend on other options. */
static void derive(struct gen_opts *o, enum gen_cmd cmd)
{
	/* --dst is where frames are addressed, --peer who they may go to; each
	 * defaults to the other */
	if (!o->dst_ver && o->peer_ver) {
		memcpy(o->dst, o->peer, 16);
		o->dst_ver = o->peer_ver;
	} else if (!o->peer_ver && o->dst_ver) {
		memcpy(o->peer, o->dst, 16);
		o->peer_ver = o->dst_ver;
	}
	/* iWARP conversations: MPA revision 2 unless told */
	if ((cmd == GEN_CLIENT || cmd == GEN_SERVER) && o->iwarp && !o->have_rev)
		o->mpa_rev = 2;
	/* client/server: --port is the out-of-band TCP / rdma_cm port */
	if (o->port >= 0 && o->version == ROCE_VER_V2 && cmd != GEN_CLIENT && cmd != GEN_SERVER)
		o->version = ROCE_VER_V2_PORT;
}

static int parse_all(enum gen_cmd cmd, int argc, char **argv, struct gen_opts *o)
{
	struct option lo[N_OPTS + 1];
	struct pst p = { .o = o };
	int c, r;

	defaults(o, cmd);
	for (unsigned i = 0; i < N_OPTS; i++)
		lo[i] = opts[i].lo;
	memset(&lo[N_OPTS], 0, sizeof(lo[N_OPTS]));
	optind = 1;
	opterr = 0;   /* our own line, naming the command */
	while ((c = getopt_long(argc, argv, cmd == GEN_CONVERT ? ":hw:r:c:v" : ":hi:w:c:v", lo, NULL)) != -1)
		if ((r = one_opt(cmd, c, argv, &p)))
			return r;
	if (check_combos(o, p.ack))
		return -1;
	derive(o, cmd);
	if (optind < argc)
		o->kind = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, GEN_NAME ": unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	return 0;
}

/* Whatever the options allocated is freed when it fails (or --help ends
 * it): only a 0 leaves the caller a gen_opts_free() to do. */
int gen_parse(enum gen_cmd cmd, int argc, char **argv, struct gen_opts *o)
{
	int r = parse_all(cmd, argc, argv, o);

	if (!r && gen_iface_missing(cmd_names[cmd], o->iface))
		r = GEN_PARSE_NOIFACE;
	if (r)
		gen_opts_free(o);
	return r;
}

int gen_iface_missing(const char *cmd, const char *iface)
{
	if (!iface || if_nametoindex(iface))
		return 0;
	fprintf(stderr, GEN_NAME " %s: %s: no such interface (see ip link)\n", cmd, iface);
	return 1;
}

/* ---- per-command help: the options of the table the command takes ------------------ */

/* The value an option takes, as the usage spells it; "N" unless named here. */
static const char *metavar(const char *name)
{
	static const char *const mv[][2] = {
		{ "interface", "IFACE" }, { "write", "FILE" }, { "read", "FILE" },
		{ "tx", "pcap|libnet|ring|mmsg" }, { "smac", "MAC" }, { "dmac", "MAC" },
		{ "vlan", "VID[:PCP]" }, { "src", "IP" }, { "dst", "IP" }, { "peer", "IP" },
		{ "outer-src", "IP" }, { "outer-dst", "IP" }, { "payload", "HEX" }, { "nak", "CODE" },
		{ "rnr", "TIMER" }, { "prio-mask", "M" }, { "prio", "P" }, { "quanta", "Q" },
		{ "pfc-times", "T0,..,T7" }, { "ets-bw", "B0,..,B7" }, { "rdmap-op", "OP" },
		{ "mtu", "256..4096" }, { "pps", "R" }, { "gbps", "R" }, { "duration", "S" },
		{ "size-mix", "S:W,..." }, { "fill", "count|zero|random" }, { "interval-us", "U" },
		{ "timeout", "S" }, { "idle", "S" }, { "filter", "BPF" },
		{ "oob", "pingpong|perftest|cm|none" }, { "op", "send|write|read|cmp_swap|fetch_add" },
		{ "app", "rping|perftest|ucmatose|raw" }, { "size", "BYTES" },
		{ "fault", "KIND[/MATCH]=P%|@PSN|@+N[,...]" }, { "ack-timeout", "E" },
		{ "erspan", "1|2|3" }, { "vxlan", "VNI" }, { "transport", "roce|iwarp" },
		{ "rtr", "none|write|read|send" }, { "rev", "1|2" },
	};

	for (unsigned i = 0; i < sizeof(mv) / sizeof(mv[0]); i++)
		if (!strcmp(mv[i][0], name))
			return mv[i][1];
	return "N";
}

/* Where each group of the table begins (the table is in this order). */
static const char *section(const char *name)
{
	static const char *const sec[][2] = {
		{ "help", "run" }, { "smac", "link" }, { "src", "network" }, { "qpn", "BTH" },
		{ "va", "ext" }, { "payload", "payload" }, { "prio-mask", "DCB" }, { "markers", "iWARP" },
		{ "comm-id", "CM" }, { "pps", "rate" }, { "seed", "misc" }, { "oob", "RC" },
		{ "erspan", "encap" }, { "transport", "iWARP" },
	};

	for (unsigned i = 0; i < sizeof(sec) / sizeof(sec[0]); i++)
		if (!strcmp(sec[i][0], name))
			return sec[i][1];
	return NULL;
}

void gen_cmd_usage(enum gen_cmd cmd, FILE *f)
{
	static const char *const synopsis[] = {
		[GEN_FRAMES] = "frames KIND [options] (-w FILE | -i IFACE | --dry-run)\n"
			       "  one kind of frame (rocegen kinds lists them), every field from options",
		[GEN_FLOOD] = "flood [KIND] [options] (-i IFACE | -w FILE | --dry-run)\n"
			      "  stateless streams: a template patched per frame, at a rate",
		[GEN_RECV] = "recv -i IFACE [--peer IP] [--count N] [--timeout S] [--filter BPF]\n"
			     "  the receive path on its own: counts (and lists) what arrives",
		[GEN_CLIENT] = "client -i IFACE --peer IP --oob pingpong|perftest|cm|none --op OP --size BYTES\n"
			       "                      --iters N [options]\n"
			       "       rocegen client --transport iwarp --peer IP [options]\n"
			       "  an RC conversation with a real peer (rocegen server, ibv_rc_pingpong, perftest)",
		[GEN_SERVER] = "server -i IFACE --peer IP --oob pingpong|perftest|cm|none [options]\n"
			       "       rocegen server --transport iwarp [--port N] [options]\n"
			       "  the responder side of an RC conversation",
		[GEN_CONVERT] = "convert -r IN -w OUT [encapsulation] [--count N]\n"
				"  a capture re-encapsulated (mirror copies, native InfiniBand, ERF)",
	};
	const char *sec = NULL;
	int col = 0;

	fprintf(f, "usage: " GEN_NAME " %s\noptions of " GEN_NAME " %s:", synopsis[cmd], cmd_names[cmd]);
	for (unsigned i = 0; i < N_OPTS; i++) {
		const struct option *lo = &opts[i].lo;
		const char *s = section(lo->name);
		char one[96];
		int n;

		if (s)
			sec = s;
		if (!(opts[i].cmds & (1u << cmd)))
			continue;
		if (lo->val < 128)   /* a short option too */
			n = snprintf(one, sizeof(one), "-%c, --%s%s%s", lo->val, lo->name,
				     lo->has_arg ? " " : "", lo->has_arg ? metavar(lo->name) : "");
		else
			n = snprintf(one, sizeof(one), "--%s%s%s", lo->name, lo->has_arg ? " " : "",
				     lo->has_arg ? metavar(lo->name) : "");
		if (sec) {
			fprintf(f, "\n  %-8s", sec);
			col = 10;
			sec = NULL;
		} else if (col + 2 + n > 79) {
			fprintf(f, "\n  %-8s", "");
			col = 10;
		}
		fprintf(f, " %s", one);
		col += 1 + n;
	}
	fprintf(f, "\nSee rocegen(8) for what each option means to %s.\n", cmd_names[cmd]);
}

void gen_opts_free(struct gen_opts *o)
{
	free(o->payload);
	o->payload = NULL;
	free(o->wrap);
	o->wrap = NULL;
}

/* ---- addresses --------------------------------------------------------------------- */

static const uint8_t doc_smac[6] = { 0x02, 0, 0, 0, 0, 0x01 };
static const uint8_t doc_dmac[6] = { 0x02, 0, 0, 0, 0, 0x02 };

/* Without -i: documentation addresses (RFC 5737, RFC 3849, locally administered MACs) for what
 * is not given. */
static void resolve_doc(struct gen_opts *o)
{
	if (!o->have_smac)
		memcpy(o->smac, doc_smac, 6);
	if (!o->have_dmac)
		memcpy(o->dmac, doc_dmac, 6);
	o->have_smac = o->have_dmac = 1;
	if (!o->dst_ver) {
		static const uint8_t d4[4] = { 192, 0, 2, 2 };

		if (o->src_ver == 6)
			inet_pton(AF_INET6, "2001:db8::2", o->dst);
		else
			memcpy(o->dst, d4, 4);
		o->dst_ver = o->src_ver == 6 ? 6 : 4;
	}
	if (!o->src_ver) {
		static const uint8_t s4[4] = { 192, 0, 2, 1 };

		if (o->dst_ver == 6)
			inet_pton(AF_INET6, "2001:db8::1", o->src);
		else
			memcpy(o->src, s4, 4);
		o->src_ver = o->dst_ver;
	}
}

/* Our source address from the interface, of the peer's family (link-local for a link-local peer). */
static int resolve_src(struct gen_opts *o, const struct ifinfo *ii)
{
	int ll = o->dst_ver == 6 && o->dst[0] == 0xfe && (o->dst[1] & 0xc0) == 0x80;

	if (o->dst_ver == 4 && ii->has_v4) {
		memcpy(o->src, ii->v4, 4);
		o->src_ver = 4;
	} else if (o->dst_ver == 6 && (ll ? ii->has_v6ll : ii->has_v6)) {
		memcpy(o->src, ll ? ii->v6ll : ii->v6, 16);
		o->src_ver = 6;
	} else {
		fprintf(stderr, GEN_NAME ": %s has no IPv%d address; give --src\n", o->iface, o->dst_ver);
		return -1;
	}
	return 0;
}

/* -v: the addresses we send with. */
static void resolve_print(const struct gen_opts *o, const struct ifinfo *ii)
{
	char s[INET6_ADDRSTRLEN] = "-", d[INET6_ADDRSTRLEN] = "-";

	if (o->src_ver)
		inet_ntop(o->src_ver == 4 ? AF_INET : AF_INET6, o->src, s, sizeof(s));
	if (o->dst_ver)
		inet_ntop(o->dst_ver == 4 ? AF_INET : AF_INET6, o->dst, d, sizeof(d));
	fprintf(stderr,
		GEN_NAME ": %s: %02x:%02x:%02x:%02x:%02x:%02x %s > %02x:%02x:%02x:%02x:%02x:%02x %s (mtu %d)\n",
		o->iface, o->smac[0], o->smac[1], o->smac[2], o->smac[3], o->smac[4], o->smac[5], s,
		o->dmac[0], o->dmac[1], o->dmac[2], o->dmac[3], o->dmac[4], o->dmac[5], d, ii->mtu);
}

int gen_resolve(struct gen_opts *o, int need_ip, int need_dmac)
{
	struct ifinfo ii;
	char err[256];

	if (!o->iface) {
		resolve_doc(o);
		return 0;
	}
	if (ifinfo_get(o->iface, &ii, err, sizeof(err))) {
		fprintf(stderr, GEN_NAME ": %s\n", err);
		return -1;
	}
	if (!o->have_smac) {
		if (!ii.has_mac) {
			fprintf(stderr, GEN_NAME ": %s has no MAC address; give --smac\n", o->iface);
			return -1;
		}
		memcpy(o->smac, ii.mac, 6);
		o->have_smac = 1;
	}
	if (need_ip && !o->dst_ver) {
		fprintf(stderr, GEN_NAME ": sending on %s needs the peer: --dst IP\n", o->iface);
		return -1;
	}
	if (need_ip && !o->src_ver && resolve_src(o, &ii))
		return -1;
	if (need_dmac && !o->have_dmac) {
		if (!o->dst_ver) {
			fprintf(stderr, GEN_NAME ": give --dmac (or --dst to look it up)\n");
			return -1;
		}
		if (ifinfo_peer_mac(&ii, o->peer_ver, o->peer, 1000, o->dmac, err, sizeof(err))) {
			fprintf(stderr, GEN_NAME ": %s\n", err);
			return -1;
		}
		o->have_dmac = 1;
	}
	if (o->verbose)
		resolve_print(o, &ii);
	return 0;
}

/* ---- transmit --------------------------------------------------------------------------- */

struct tx *gen_open_tx(const struct gen_opts *o, enum tx_kind dflt, uint32_t max_frame)
{
	struct tx_cfg cfg;
	char err[TX_ERRLEN];
	struct tx *t;

	/* -i with -w or --dry-run: addresses from the interface, nothing sent */
	if ((!!o->wfile + !!o->dry_run) > 1 || (!o->wfile && !o->dry_run && !o->iface)) {
		fprintf(stderr, GEN_NAME ": give one of -w FILE, -i IFACE or --dry-run\n");
		return NULL;
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.max_frame = max_frame;
	cfg.qdisc_bypass = o->qdisc_bypass;
	if (o->wrap) {
		cfg.linktype = gen_wrap_dlt(o->wrap);
		cfg.snaplen = o->wrap->erf ? 0 : o->wrap->snaplen;
		cfg.xform = gen_wrap_xform;
		cfg.xform_ctx = o->wrap;
		cfg.xform_cap = GEN_WRAP_MAX;
	}
	if (o->dry_run) {
		cfg.kind = TX_DRY;
		cfg.dry_hex = o->no_hex ? -1 : 1;
	} else if (o->wfile) {
		if (o->tx && o->tx != TX_PCAP) {
			fprintf(stderr, GEN_NAME ": -w writes a pcap; --tx %s needs -i\n", tx_kind_name(o->tx));
			return NULL;
		}
		cfg.kind = TX_PCAP;
		cfg.file = o->wfile;
	} else {
		struct ifinfo ii;

		memset(&ii, 0, sizeof(ii));
		cfg.kind = o->tx ? o->tx : dflt;
		if (cfg.kind == TX_PCAP) {
			fprintf(stderr, GEN_NAME ": --tx pcap needs -w FILE\n");
			return NULL;
		}
		cfg.iface = o->iface;
		cfg.use_guard = 1;
		cfg.guard.ipver = (uint8_t)o->peer_ver;
		memcpy(cfg.guard.ip, o->peer, 16);
		/* The peer's MAC, for frames without an IP header: the neighbour
		 * entry of the IP peer when there is one (so --dmac cannot point
		 * non-IP frames at someone else), else the --dmac given. */
		if (!ifinfo_get(o->iface, &ii, err, sizeof(err)) && o->peer_ver) {
			if (!ifinfo_peer_mac(&ii, o->peer_ver, o->peer, 1000, cfg.guard.mac, err, sizeof(err)))
				cfg.guard.have_mac = 1;
		} else if (o->have_dmac) {
			cfg.guard.have_mac = 1;
			memcpy(cfg.guard.mac, o->dmac, 6);
		}
		if (ii.ifindex && ii.mtu > 0 &&
		    max_frame > (uint32_t)ii.mtu + 14 + 4 * o->n_vlan + (o->fcs ? 4 : 0)) {
			fprintf(stderr, GEN_NAME ": frames of up to %u bytes do not fit the MTU %d of %s\n",
				max_frame, ii.mtu, o->iface);
			return NULL;
		}
	}
	t = tx_open(&cfg, err);
	if (!t)
		fprintf(stderr, GEN_NAME ": %s\n", err);
	else if (o->verbose)
		fprintf(stderr, GEN_NAME ": transmit backend %s\n", tx_kind_name(tx_backend(t)));
	return t;
}

void gen_rate(const struct gen_opts *o, int live, double *pps, double *bps)
{
	*pps = *bps = 0;
	if (o->pps > 0)
		*pps = o->pps;
	else if (o->gbps > 0)
		*bps = o->gbps * 1e9;
	else if (o->interval_us > 0)
		*pps = 1e6 / o->interval_us;
	else if (live && !o->no_rate_cap)
		*pps = GEN_DEFAULT_PPS_CAP;
}

void gen_report(const char *what, struct tx *t, uint64_t t0, uint64_t t1)
{
	struct tx_stats s;
	double sec = (double)(t1 - t0) / 1e9;

	tx_get_stats(t, &s);
	if (sec <= 0)
		sec = 1e-9;
	fprintf(stderr,
		GEN_NAME ": %s: frames=%llu bytes=%llu seconds=%.6f pps=%.0f gbps=%.4f l1_gbps=%.4f backend=%s batches=%llu errors=%llu drops=%llu refused=%llu\n",
		what, (unsigned long long)s.frames, (unsigned long long)s.bytes, sec,
		(double)s.frames / sec, (double)s.bytes * 8 / sec / 1e9,
		((double)s.bytes + 24.0 * (double)s.frames) * 8 / sec / 1e9, tx_kind_name(tx_backend(t)),
		(unsigned long long)s.batches, (unsigned long long)s.errors,
		(unsigned long long)s.drops, (unsigned long long)s.refused);
	if (s.left_out)
		fprintf(stderr, GEN_NAME ": %s: %llu frames left out (--ib carries RoCE frames only)\n", what,
			(unsigned long long)s.left_out);
}
