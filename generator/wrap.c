/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wrap.c — the encapsulations of wrap.h: options, and one frame through
 * the stages native IB -> mirror -> ERF.  Each stage reads a frame of
 * which `cap` bytes are there out of `len` on the wire; a stage that needs
 * the whole frame (the mirror's and ERF's length fields, ERF's FCS) gets
 * the missing tail as zeros, and its output is cut back to what was there.
 *
 * LIDs for --ib: --slid/--dlid when given, else one per IP address or GID
 * in the order they first appear (1, 2, ...), so that each host keeps its
 * LID and flows keep their identity.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "gen.h"
#include "wrap.h"

static const char *const opt_names[GW__END] = {
	"erspan", "gre-teb", "vxlan", "vxlan-port", "outer-src", "outer-dst", "span-id", "mirror-trunc",
	"ib", "ib-grh", "slid", "dlid", "sl", "erf", "snaplen",
};

static int num(const char *name, const char *s, unsigned long lo, unsigned long hi, uint32_t *v)
{
	char *end;
	unsigned long x;

	errno = 0;
	x = *s && *s != '-' ? strtoul(s, &end, 0) : 0;
	if (!*s || *s == '-' || errno || *end || x < lo || x > hi) {
		fprintf(stderr, GEN_NAME ": --%s %s: want a number %lu..%lu\n", name, s, lo, hi);
		return -1;
	}
	*v = (uint32_t)x;
	return 0;
}

static int addr(const char *name, const char *s, struct roce_ip_spec *ip, int dst)
{
	uint8_t a[16] = { 0 };
	int v = inet_pton(AF_INET, s, a) == 1 ? 4 : inet_pton(AF_INET6, s, a) == 1 ? 6 : 0;

	if (!v) {
		fprintf(stderr, GEN_NAME ": --%s %s: not an IPv4 or IPv6 address\n", name, s);
		return -1;
	}
	if (ip->version != v) {         /* a family change: the other end's default follows */
		static const uint8_t d4[2][4] = { { 198, 51, 100, 1 }, { 198, 51, 100, 2 } };
		uint8_t *o = dst ? ip->src : ip->dst;

		memset(o, 0, 16);
		if (v == 4)
			memcpy(o, d4[!dst], 4);
		else
			inet_pton(AF_INET6, dst ? "2001:db8:e::1" : "2001:db8:e::2", o);
		ip->version = (uint8_t)v;
	}
	memcpy(dst ? ip->dst : ip->src, a, 16);
	return 0;
}

static struct gen_wrap *wrap_new(void)
{
	static const uint8_t smac[6] = { 0x02, 0, 0, 0, 0x0e, 0x01 }, dmac[6] = { 0x02, 0, 0, 0, 0x0e, 0x02 };
	struct gen_wrap *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	memcpy(w->spec.eth.src, smac, 6);
	memcpy(w->spec.eth.dst, dmac, 6);
	w->spec.ip.version = 4;
	memcpy(w->spec.ip.src, "\xc6\x33\x64\x01", 4);     /* 198.51.100.1 > .2 */
	memcpy(w->spec.ip.dst, "\xc6\x33\x64\x02", 4);
	w->spec.session = 1;
	w->spec.gra = 1;                                   /* ERSPAN III timestamps in 100 ns */
	return w;
}

static int set_mirror(struct gen_wrap *w, enum roce_encap_kind k, const char *name)
{
	if (w->spec.kind && w->spec.kind != k) {
		fprintf(stderr, GEN_NAME ": --%s: one mirror encapsulation at a time\n", name);
		return -1;
	}
	w->spec.kind = k;
	return 0;
}

int gen_wrap_opt(struct gen_wrap **wp, int what, const char *name, const char *a)
{
	struct gen_wrap *w = *wp ? *wp : (*wp = wrap_new());
	uint32_t v;

	if (!w)
		return -1;
	name = what >= 0 && what < GW__END ? opt_names[what] : name;
	switch (what) {
	case GW_ERSPAN:
		if (num(name, a, 1, 3, &v)) return -1;
		return set_mirror(w, v == 1 ? ROCE_ENCAP_ERSPAN1 : v == 2 ? ROCE_ENCAP_ERSPAN2
								       : ROCE_ENCAP_ERSPAN3, name);
	case GW_GRETEB: return set_mirror(w, ROCE_ENCAP_GRE_TEB, name);
	case GW_VXLAN:
		if (num(name, a, 0, 0xffffff, &w->spec.vni)) return -1;
		return set_mirror(w, ROCE_ENCAP_VXLAN, name);
	case GW_VXLANPORT:
		if (num(name, a, 1, 65535, &v)) return -1;
		w->spec.vxlan_dport = (uint16_t)v;
		break;
	case GW_OSRC: return addr(name, a, &w->spec.ip, 0);
	case GW_ODST: return addr(name, a, &w->spec.ip, 1);
	case GW_SPANID: if (num(name, a, 0, 1023, &v)) return -1; w->spec.session = (uint16_t)v; break;
	case GW_MTRUNC: if (num(name, a, 14, 65535, &w->mirror_trunc)) return -1; break;
	case GW_IB: w->ib = 1; break;
	case GW_IBGRH: w->ib = 1; w->lrh.grh = 1; break;
	case GW_SLID: if (num(name, a, 1, 0xfffe, &v)) return -1; w->lrh.slid = (uint16_t)v; w->have_slid = 1; break;
	case GW_DLID: if (num(name, a, 1, 0xffff, &v)) return -1; w->lrh.dlid = (uint16_t)v; w->have_dlid = 1; break;
	case GW_SL: if (num(name, a, 0, 15, &v)) return -1; w->lrh.sl = (uint8_t)v; break;
	case GW_ERF: w->erf = 1; break;
	case GW_SNAPLEN: if (num(name, a, 16, 262144, &w->snaplen)) return -1; break;
	default: return -1;
	}
	return 0;
}

int gen_wrap_check(const struct gen_wrap *w)
{
	if (!w)
		return 0;
	if (w->ib && w->spec.kind) {
		fprintf(stderr, GEN_NAME ": --ib and a mirror encapsulation do not go together "
				"(a mirror carries Ethernet frames)\n");
		return -1;
	}
	if (!w->ib && (w->have_slid || w->have_dlid || w->lrh.sl)) {
		fprintf(stderr, GEN_NAME ": --slid, --dlid and --sl go with --ib\n");
		return -1;
	}
	if (!w->spec.kind && (w->mirror_trunc || w->spec.vxlan_dport)) {
		fprintf(stderr, GEN_NAME ": --mirror-trunc and --vxlan-port go with a mirror encapsulation\n");
		return -1;
	}
	return 0;
}

int gen_wrap_dlt(const struct gen_wrap *w)
{
	if (w && w->erf)
		return ROCE_LINK_ERF;
	return w && w->ib ? ROCE_LINK_INFINIBAND : ROCE_LINK_ETHERNET;
}

/* ---- one frame ---------------------------------------------------------------------- */

struct stage {
	const uint8_t *d;
	uint32_t cap, len;     /* bytes there, bytes on the wire */
};

static uint8_t *other_buf(struct gen_wrap *w, const uint8_t *d)
{
	return d == w->buf[0] ? w->buf[1] : w->buf[0];
}

/* The whole frame: the missing tail as zeros (in a buffer of ours). */
static int pad(struct gen_wrap *w, struct stage *s)
{
	uint8_t *b;

	if (s->cap >= s->len)
		return 0;
	if (s->len > GEN_WRAP_MAX)
		return ROCE_ENOSPC;
	b = s->d == w->buf[0] || s->d == w->buf[1] ? (uint8_t *)s->d : other_buf(w, s->d);
	if (b != s->d)
		memcpy(b, s->d, s->cap);
	memset(b + s->cap, 0, s->len - s->cap);
	s->d = b;
	return 0;
}

/* LID of an address (4: IPv4, 16: IPv6 or GID); 0 when the table is full. */
static uint16_t lid_of(struct gen_wrap *w, const uint8_t *a, int alen)
{
	uint8_t k[16] = { 0 };

	if (alen == 4) {
		k[10] = k[11] = 0xff;
		memcpy(k + 12, a, 4);
	} else {
		memcpy(k, a, 16);
	}
	for (unsigned i = 0; i < w->n_lid; i++)
		if (!memcmp(w->lid_addr[i], k, 16))
			return (uint16_t)(i + 1);
	if (w->n_lid == GEN_WRAP_LIDS)
		return 0;
	memcpy(w->lid_addr[w->n_lid++], k, 16);
	return (uint16_t)w->n_lid;
}

/* RoCE -> native IB; 0 done, 1 left out (not RoCE), or a roce_err. */
static int stage_ib(struct gen_wrap *w, struct stage *s)
{
	struct roce_pkt p;
	struct roce_lrh_spec l = w->lrh;
	const uint8_t *sa, *da;
	uint8_t *b = other_buf(w, s->d);
	int k, n;

	roce_decode(&p, NULL, ROCE_LINK_ETHERNET, s->d, s->cap, s->len);
	k = roce_pkt_addrs(&p, &sa, &da);
	if (k != 4 && k != 16)
		return 1;
	if (!w->have_slid)
		l.slid = lid_of(w, sa, k);
	if (!w->have_dlid)
		l.dlid = lid_of(w, da, k);
	if (!l.slid || !l.dlid)
		return ROCE_ENOSPC;      /* more hosts than LIDs we hand out */
	n = roce_build_ib_from(b, GEN_WRAP_MAX, &p, &l, &s->len);
	if (n == ROCE_EINVAL)
		return 1;
	if (n < 0)
		return n;
	s->d = b;
	s->cap = (uint32_t)n;
	return 0;
}

static int stage_mirror(struct gen_wrap *w, struct stage *s, uint64_t ts_ns)
{
	struct roce_encap_spec *e = &w->spec;
	uint32_t cap = s->cap, n = s->len;
	uint8_t *b;
	int r = pad(w, s);

	if (r)
		return r;
	if (w->mirror_trunc && n > w->mirror_trunc)
		n = w->mirror_trunc;
	e->gre_seq = w->seq;
	e->index = w->seq & 0xfffff;
	w->seq++;
	e->trunc = n < s->len;
	e->timestamp = (uint32_t)(ts_ns / 100);
	b = other_buf(w, s->d);
	r = roce_build_encap(b, GEN_WRAP_MAX, e, s->d, n);
	if (r < 0)
		return r;
	s->d = b;
	s->len = (uint32_t)r;
	s->cap = (uint32_t)r - n + (cap < n ? cap : n);
	return 0;
}

static int stage_erf(struct gen_wrap *w, struct stage *s, uint64_t ts_ns)
{
	/* ERF time: seconds << 32 | binary fraction, rounded up so that it
	 * reads back as the same nanosecond */
	uint64_t sec = ts_ns / 1000000000u, frac = ((ts_ns % 1000000000u << 32) + 999999999u) / 1000000000u;
	uint32_t cap = s->cap < s->len ? s->cap : UINT32_MAX;
	uint8_t *b;
	int r;

	if (!w->ib && s->cap == s->len && s->len < 60)
		s->len = 60;          /* on the wire (where a DAG card sees it) a frame is padded */
	r = pad(w, s);
	if (r)
		return r;
	if (w->snaplen && cap > w->snaplen)
		cap = w->snaplen;
	b = other_buf(w, s->d);
	r = roce_build_erf(b, GEN_WRAP_MAX, w->ib ? 21 : 2, sec << 32 | frac, 0, s->d, s->len, cap);
	if (r < 0)
		return r;
	s->d = b;
	s->cap = s->len = (uint32_t)r;
	return 0;
}

int gen_wrap_frame(struct gen_wrap *w, const uint8_t *in, uint32_t caplen, uint32_t len,
		   uint64_t ts_ns, uint8_t *out, size_t cap, uint32_t *wire)
{
	struct stage s = { in, caplen < len ? caplen : len, len };
	int r = 0;

	if (w->ib)
		r = stage_ib(w, &s);
	if (r == 1) {
		w->left_out++;
		return 0;
	}
	if (!r && w->spec.kind)
		r = stage_mirror(w, &s, ts_ns);
	if (!r && w->erf)
		r = stage_erf(w, &s, ts_ns);
	if (r)
		return r;
	if (cap < s.cap)
		return ROCE_ENOSPC;
	memcpy(out, s.d, s.cap);
	*wire = s.len;
	return (int)s.cap;
}

int gen_wrap_xform(void *ctx, const uint8_t *in, uint32_t len, uint8_t *out, size_t cap)
{
	struct timespec ts;
	uint32_t wire;

	clock_gettime(CLOCK_REALTIME, &ts);
	return gen_wrap_frame(ctx, in, len, len, (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec,
			      out, cap, &wire);
}
