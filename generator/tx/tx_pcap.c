/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tx_pcap.c — transmit backend that writes frames to a pcap file
 * (LINKTYPE_ETHERNET or cfg.linktype, records cut to cfg.snaplen when
 * set, microsecond timestamps of the moment each frame was handed over).
 */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include "tx_impl.h"

struct pcap_priv {
	pcap_t *dead;
	pcap_dumper_t *dump;
	int err;        /* the first write error (errno), or 0 */
};

/* pcap_dump() returns nothing: a failed write shows in the stream's error
 * flag (and errno right after it). */
static int write_failed(struct tx *t)
{
	struct pcap_priv *p = t->priv;

	if (!p->err && ferror(pcap_dump_file(p->dump)))
		p->err = errno ? errno : EIO;
	if (p->err)
		tx_fail(t, "%s: %s", t->cfg.file, strerror(p->err));
	return p->err != 0;
}

static int pcap_open_(struct tx *t)
{
	struct pcap_priv *p;

	if (!t->cfg.file)
		return tx_fail(t, "pcap: no file given");
	p = calloc(1, sizeof(*p));
	if (!p)
		return tx_fail(t, "out of memory");
	p->dead = pcap_open_dead(t->cfg.linktype ? t->cfg.linktype : DLT_EN10MB,
				 t->cfg.snaplen ? (int)t->cfg.snaplen : 262144);
	if (!p->dead) {
		free(p);
		return tx_fail(t, "pcap_open_dead failed");
	}
	p->dump = pcap_dump_open(p->dead, t->cfg.file);
	if (!p->dump) {
		tx_fail(t, "%s: %s", t->cfg.file, pcap_geterr(p->dead));
		pcap_close(p->dead);
		free(p);
		return -1;
	}
	t->priv = p;
	return 0;
}

static int pcap_send(struct tx *t, const uint8_t *const frames[], const uint32_t lens[], unsigned n)
{
	struct pcap_priv *p = t->priv;
	struct pcap_pkthdr h;

	gettimeofday(&h.ts, NULL);
	for (unsigned i = 0; i < n; i++) {
		h.caplen = h.len = lens[i];
		if (t->cfg.snaplen && h.caplen > t->cfg.snaplen)
			h.caplen = t->cfg.snaplen;
		errno = 0;
		pcap_dump((u_char *)p->dump, &h, frames[i]);
		if (write_failed(t)) {
			t->st.errors++;
			return TX_EIO;
		}
		t->st.frames++;
		t->st.bytes += lens[i];
	}
	return (int)n;
}

static int pcap_flush_(struct tx *t)
{
	struct pcap_priv *p = t->priv;

	errno = 0;
	if (pcap_dump_flush(p->dump) && !p->err)
		p->err = errno ? errno : EIO;
	return write_failed(t) ? -1 : 0;
}

static void pcap_close_(struct tx *t)
{
	struct pcap_priv *p = t->priv;

	pcap_dump_close(p->dump);
	pcap_close(p->dead);
	free(p);
}

const struct tx_ops tx_pcap_ops = {
	.name = "pcap",
	.open = pcap_open_,
	.send = pcap_send,
	.flush = pcap_flush_,
	.close = pcap_close_,
};
