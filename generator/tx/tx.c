/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tx.c — the transmit interface (tx.h): picks the backend, applies the peer
 * guard to every frame of a live batch, keeps the statistics.
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "roce.h"
#include "tx_impl.h"

static const struct {
	const char *name;
	enum tx_kind kind;
	const struct tx_ops *ops;
} backends[] = {
	{ "pcap", TX_PCAP, &tx_pcap_ops },
	{ "libnet", TX_LIBNET, &tx_libnet_ops },
	{ "ring", TX_RING, &tx_ring_ops },
	{ "mmsg", TX_MMSG, &tx_mmsg_ops },
	{ "dry", TX_DRY, &tx_dry_ops },
};
#define N_BACKENDS (sizeof(backends) / sizeof(backends[0]))

const char *tx_kind_name(enum tx_kind k)
{
	for (unsigned i = 0; i < N_BACKENDS; i++)
		if (backends[i].kind == k)
			return backends[i].name;
	return "auto";
}

int tx_kind_parse(const char *s, enum tx_kind *k)
{
	for (unsigned i = 0; i < N_BACKENDS; i++)
		if (!strcmp(s, backends[i].name)) {
			*k = backends[i].kind;
			return 0;
		}
	return -1;
}

int tx_kind_is_live(enum tx_kind k)
{
	return k == TX_LIBNET || k == TX_RING || k == TX_MMSG;
}

int tx_fail(struct tx *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->err, sizeof(t->err), fmt, ap);
	va_end(ap);
	return -1;
}

/* ---- the guard ------------------------------------------------------------ */

static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

static void fmt_ip(char *buf, size_t len, int ver, const uint8_t *a)
{
	if (!inet_ntop(ver == 4 ? AF_INET : AF_INET6, a, buf, (socklen_t)len))
		snprintf(buf, len, "?");
}

/* Destination address of a 16-byte IPv6 address or GID against the peer. */
static int dst16_ok(const struct tx_guard *g, const uint8_t *d)
{
	if (g->ipver == 6)
		return !memcmp(d, g->ip, 16);
	if (g->ipver == 4)
		return !memcmp(d, v4mapped, 12) && !memcmp(d + 12, g->ip, 4);
	return 0;
}

int tx_guard_check(const struct tx_guard *g, const uint8_t *f, uint32_t len,
		   char *why, size_t whylen)
{
	struct roce_pkt p;
	const uint8_t *s, *d;
	char a[INET6_ADDRSTRLEN];

	if (len < 14) {
		snprintf(why, whylen, "runt frame (%u bytes)", len);
		return 0;
	}
	roce_decode(&p, NULL, ROCE_LINK_ETHERNET, f, len, len);
	if (p.ethertype != ROCE_ETH_IPV4 && p.ethertype != ROCE_ETH_IPV6 && p.ethertype != ROCE_ETH_ROCEV1) {
		if (p.n_vlan < 2 && (p.truncated & ROCE_LBIT(ROCE_L_VLAN))) {
			snprintf(why, whylen, "truncated VLAN tag");
			return 0;
		}
		/* 802.1D/802.1Q link-constrained groups: never forwarded by a bridge */
		if (f[0] == 0x01 && f[1] == 0x80 && f[2] == 0xc2 && f[3] == 0 && f[4] == 0 &&
		    f[5] <= 0x0f)
			return 1;
		if (g->have_mac && !memcmp(f, g->mac, 6))
			return 1;
		snprintf(why, whylen,
			 "ethertype 0x%04x frame to %02x:%02x:%02x:%02x:%02x:%02x: neither the peer's MAC nor a link-local group",
			 p.ethertype, f[0], f[1], f[2], f[3], f[4], f[5]);
		return 0;
	}
	switch (roce_pkt_addrs(&p, &s, &d)) {
	case 4:
		if (g->ipver == 4 && !memcmp(d, g->ip, 4))
			return 1;
		fmt_ip(a, sizeof(a), 4, d);
		break;
	case 16:
		if (dst16_ok(g, d))
			return 1;
		fmt_ip(a, sizeof(a), 6, d);
		break;
	default:
		snprintf(why, whylen, "truncated IP header");
		return 0;
	}
	snprintf(why, whylen, "destination %s is not the peer", a);
	return 0;
}

/* ---- the interface ----------------------------------------------------------- */

struct tx *tx_open(const struct tx_cfg *cfg, char err[TX_ERRLEN])
{
	struct tx *t;
	const struct tx_ops *ops = NULL;

	for (unsigned i = 0; i < N_BACKENDS; i++)
		if (backends[i].kind == cfg->kind)
			ops = backends[i].ops;
	if (!ops) {
		snprintf(err, TX_ERRLEN, "no transmit backend chosen");
		return NULL;
	}
	if (tx_kind_is_live(cfg->kind)) {
		if (!cfg->iface || !*cfg->iface) {
			snprintf(err, TX_ERRLEN, "%s: an interface is needed", ops->name);
			return NULL;
		}
		if (!cfg->use_guard) {
			snprintf(err, TX_ERRLEN, "%s: refusing to send without a peer guard", ops->name);
			return NULL;
		}
		if (cfg->xform || cfg->linktype > 1) {
			snprintf(err, TX_ERRLEN, "%s: encapsulations are written to files (-w), not sent", ops->name);
			return NULL;
		}
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		snprintf(err, TX_ERRLEN, "out of memory");
		return NULL;
	}
	t->ops = ops;
	t->kind = cfg->kind;
	t->cfg = *cfg;
	if (!t->cfg.max_frame)
		t->cfg.max_frame = 9216;
	if (ops->open(t)) {
		snprintf(err, TX_ERRLEN, "%s", t->err);
		free(t);
		return NULL;
	}
	return t;
}

/* The transform of every frame of a batch, then the backend's send. */
static int xform_batch(struct tx *t, const uint8_t *const frames[], const uint32_t lens[], unsigned n)
{
	const uint8_t *fr[64];
	uint32_t ln[64];
	size_t slot = t->cfg.xform_cap;
	unsigned k = 0;
	int rc;

	if (n > 64) {
		for (unsigned i = 0; i < n; i += 64)
			if ((rc = xform_batch(t, frames + i, lens + i, n - i < 64 ? n - i : 64)) < 0)
				return rc;
		return (int)n;
	}
	if (t->xslots < n) {
		free(t->xbuf);
		t->xbuf = malloc(slot * n);
		t->xslots = t->xbuf ? n : 0;
		if (!t->xbuf)
			return tx_fail(t, "out of memory");
	}
	for (unsigned i = 0; i < n; i++) {
		int m = t->cfg.xform(t->cfg.xform_ctx, frames[i], lens[i], t->xbuf + slot * k, slot);

		if (m < 0) {
			t->st.errors++;
			return tx_fail(t, "frame of %u bytes: cannot encapsulate it: %s", lens[i], roce_strerror(m));
		}
		if (!m) {
			t->st.left_out++;
			continue;
		}
		fr[k] = t->xbuf + slot * k;
		ln[k++] = (uint32_t)m;
	}
	rc = k ? t->ops->send(t, fr, ln, k) : 0;
	if (rc < 0)
		return rc;
	t->st.batches++;
	return (int)n;
}

int tx_send_batch(struct tx *t, const uint8_t *const frames[], const uint32_t lens[], unsigned n)
{
	int rc;

	if (!n)
		return 0;
	if (t->cfg.xform)
		return xform_batch(t, frames, lens, n);
	if (tx_kind_is_live(t->kind)) {
		for (unsigned i = 0; i < n; i++) {
			char why[160];

			if (lens[i] > t->cfg.max_frame) {
				t->st.errors++;
				tx_fail(t, "frame of %u bytes is larger than the %u announced", lens[i],
					t->cfg.max_frame);
				return TX_EIO;
			}
			if (!tx_guard_check(&t->cfg.guard, frames[i], lens[i], why, sizeof(why))) {
				t->st.refused += n;
				tx_fail(t, "refusing to send on %s: %s", t->cfg.iface, why);
				return TX_EREFUSED;
			}
		}
	}
	rc = t->ops->send(t, frames, lens, n);
	if (rc >= 0)
		t->st.batches++;
	return rc;
}

int tx_flush(struct tx *t)
{
	return t->ops->flush ? t->ops->flush(t) : 0;
}

void tx_get_stats(const struct tx *t, struct tx_stats *s)
{
	*s = t->st;
}

const char *tx_error(const struct tx *t)
{
	return t->err;
}

enum tx_kind tx_backend(const struct tx *t)
{
	return t->kind;
}

void tx_close(struct tx *t)
{
	if (!t)
		return;
	tx_flush(t);
	t->ops->close(t);
	free(t->xbuf);
	free(t);
}
