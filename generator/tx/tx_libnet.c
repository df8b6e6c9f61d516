/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tx_libnet.c — transmit backend on libnet's link-layer injection:
 * libnet_init(LIBNET_LINK_ADV, iface) and one libnet_adv_write_link() per
 * frame.  Simple and portable; the ring backend is the fast one.
 */
#include <libnet.h>
#include "tx_impl.h"

static int ln_open(struct tx *t)
{
	char eb[LIBNET_ERRBUF_SIZE];
	libnet_t *l;

	eb[0] = 0;
	l = libnet_init(LIBNET_LINK_ADV, t->cfg.iface, eb);
	if (!l)
		return tx_fail(t, "libnet on %s: %s", t->cfg.iface, eb);
	t->priv = l;
	return 0;
}

static int ln_send(struct tx *t, const uint8_t *const frames[], const uint32_t lens[], unsigned n)
{
	libnet_t *l = t->priv;

	for (unsigned i = 0; i < n; i++) {
		int w = libnet_adv_write_link(l, frames[i], lens[i]);

		if (w < 0 || (uint32_t)w != lens[i]) {
			t->st.errors++;
			return tx_fail(t, "libnet on %s: %s", t->cfg.iface, libnet_geterror(l));
		}
		t->st.frames++;
		t->st.bytes += lens[i];
	}
	return (int)n;
}

static void ln_close(struct tx *t)
{
	libnet_destroy(t->priv);
}

const struct tx_ops tx_libnet_ops = {
	.name = "libnet",
	.open = ln_open,
	.send = ln_send,
	.flush = NULL,
	.close = ln_close,
};
