/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tx_dry.c — the --dry-run backend: decodes each frame with libroce and
 * prints a rocetop-style line (MACs + roce_summary()) and a hex dump,
 * instead of sending it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "roce.h"
#include "tx_impl.h"

static int dry_open(struct tx *t)
{
	t->priv = t->cfg.out ? t->cfg.out : stdout;
	return 0;
}

static void hexdump(FILE *f, const uint8_t *b, uint32_t len)
{
	for (uint32_t o = 0; o < len; o += 16) {
		char asc[17];
		uint32_t i;

		fprintf(f, "  %04x ", o);
		for (i = 0; i < 16; i++) {
			if (o + i < len) {
				fprintf(f, "%s%02x", i == 8 ? "  " : " ", b[o + i]);
				asc[i] = b[o + i] >= 0x20 && b[o + i] < 0x7f ? (char)b[o + i] : '.';
			} else {
				fprintf(f, "%s  ", i == 8 ? "   " : " ");
				asc[i] = ' ';
			}
		}
		asc[16] = 0;
		fprintf(f, "  %s\n", asc);
	}
}

static int dry_send(struct tx *t, const uint8_t *const frames[], const uint32_t lens[], unsigned n)
{
	FILE *f = t->priv;

	for (unsigned i = 0; i < n; i++) {
		const uint8_t *b = frames[i];
		struct roce_pkt p;
		char line[1024];

		roce_decode(&p, NULL, t->cfg.linktype ? t->cfg.linktype : ROCE_LINK_ETHERNET, b, lens[i], lens[i]);
		roce_summary(&p, line, sizeof(line));
		t->st.frames++;
		t->st.bytes += lens[i];
		if (t->cfg.linktype > ROCE_LINK_ETHERNET)
			fprintf(f, "%llu len %u: %s\n", (unsigned long long)t->st.frames, lens[i], line);
		else
			fprintf(f, "%llu %02x:%02x:%02x:%02x:%02x:%02x > %02x:%02x:%02x:%02x:%02x:%02x len %u: %s\n",
				(unsigned long long)t->st.frames, b[6], b[7], b[8], b[9], b[10], b[11], b[0],
				b[1], b[2], b[3], b[4], b[5], lens[i], line);
		if (t->cfg.dry_hex >= 0)
			hexdump(f, b, lens[i]);
	}
	return (int)n;
}

static int dry_flush(struct tx *t)
{
	errno = 0;
	if ((fflush(t->priv) != 0) | ferror((FILE *)t->priv))
		return tx_fail(t, "dry run: writing output: %s", strerror(errno ? errno : EIO));
	return 0;
}

static void dry_close(struct tx *t)
{
	(void)t;
}

const struct tx_ops tx_dry_ops = {
	.name = "dry",
	.open = dry_open,
	.send = dry_send,
	.flush = dry_flush,
	.close = dry_close,
};
