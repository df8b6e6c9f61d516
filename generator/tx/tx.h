/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tx.h — rocegen's transmit layer: one small interface over several backends.
 *
 *   pcap    write the frames to a pcap file (pcap_dump); "-" is stdout
 *   libnet  libnet link-layer injection (LIBNET_LINK_ADV, libnet_adv_write_link)
 *   ring    AF_PACKET TPACKET_V3 TX ring: frames copied into mmap'ed slots,
 *           one send() per batch (the fast path)
 *   mmsg    AF_PACKET raw socket, one sendmmsg() per batch
 *   dry     print each frame (rocetop-style summary + hex dump), send nothing
 *
 * Building a frame and sending it are separate: callers hand finished frames
 * to tx_send_batch().  Frames are copied (or written) before it returns, so
 * the caller may reuse its buffers at once.
 *
 * Safety (live backends only): a tx opened on an interface sends only on
 * that interface (the socket is bound to it), and with cfg.guard set it
 * refuses every batch that holds a frame not addressed to the peer:
 *   - IPv4 / IPv6 / RoCEv1 (GRH) frames: destination address == guard.ip;
 *   - other frames: destination MAC is a link-constrained group address
 *     (01-80-C2-00-00-00..0F: PAUSE, PFC, LLDP) or guard.mac when set.
 * A refused batch sends nothing and tx_send_batch() returns TX_EREFUSED.
 */
#ifndef ROCEGEN_TX_H
#define ROCEGEN_TX_H

#include <stdint.h>
#include <stdio.h>

#define TX_ERRLEN 256
/* Appended to a permission error of a raw socket or capture (as rocetop's). */
#define TX_PRIV_HINT "; run as root or give the binary cap_net_raw,cap_net_admin (see rocegen(8))"

enum tx_kind {
	TX_AUTO = 0,   /* let the caller's default decide */
	TX_PCAP,
	TX_LIBNET,
	TX_RING,
	TX_MMSG,
	TX_DRY,
};

/* tx_send_batch() errors (negative) */
#define TX_EIO      (-1)   /* the backend failed: tx_error() says why */
#define TX_EREFUSED (-2)   /* the guard refused a frame: tx_error() says which */

/* Who the frames may go to (see above). */
struct tx_guard {
	uint8_t ipver;         /* 4 or 6; 0: no IP peer (only link-local frames pass) */
	uint8_t ip[16];        /* IPv4 in the first four bytes */
	uint8_t have_mac;
	uint8_t mac[6];
};

struct tx_cfg {
	enum tx_kind kind;
	const char *iface;         /* libnet, ring, mmsg */
	const char *file;          /* pcap: path or "-" */
	FILE *out;                 /* dry: where to print (NULL: stdout) */
	int dry_hex;               /* dry: also print a hex dump (default on: set -1 for off) */
	struct tx_guard guard;
	int use_guard;             /* must be 1 for live backends */
	uint32_t max_frame;        /* largest frame that will be sent (ring slot size); 0: 9216 */
	int qdisc_bypass;          /* ring/mmsg: PACKET_QDISC_BYPASS */
	int linktype;              /* pcap, dry: the frames' link type (0: Ethernet) */
	uint32_t snaplen;          /* pcap: keep at most this many bytes of a frame (0: all) */
	/* pcap, dry: applied to every frame before it is written: writes the
	 * frame to write into out (cap bytes); returns its length, 0 to leave
	 * the frame out, or a negative value (the frame cannot be made) */
	int (*xform)(void *ctx, const uint8_t *in, uint32_t len, uint8_t *out, size_t cap);
	void *xform_ctx;
	uint32_t xform_cap;        /* the largest frame xform writes */
};

struct tx_stats {
	uint64_t frames;           /* handed to the kernel / written */
	uint64_t bytes;
	uint64_t batches;
	uint64_t errors;           /* frames the backend failed to send */
	uint64_t drops;            /* frames the kernel dropped (ENOBUFS) */
	uint64_t refused;          /* frames the guard refused */
	uint64_t left_out;         /* frames the transform left out */
};

struct tx;

/* Opens a backend.  NULL with err filled on failure.  Live backends without
 * cfg->use_guard are refused. */
struct tx *tx_open(const struct tx_cfg *cfg, char err[TX_ERRLEN]);
/* Sends n frames.  Returns n, or TX_EIO / TX_EREFUSED (nothing of a refused
 * batch is sent; after TX_EIO some frames may have gone: see tx_stats). */
int tx_send_batch(struct tx *t, const uint8_t *const frames[], const uint32_t lens[], unsigned n);
/* Waits until every frame handed over has left (ring), flushes files. */
int tx_flush(struct tx *t);
void tx_get_stats(const struct tx *t, struct tx_stats *s);
const char *tx_error(const struct tx *t);
/* The backend actually used (the ring backend may fall back to mmsg). */
enum tx_kind tx_backend(const struct tx *t);
void tx_close(struct tx *t);

const char *tx_kind_name(enum tx_kind k);
/* "pcap", "libnet", "ring", "mmsg", "dry"; -1 when unknown. */
int tx_kind_parse(const char *s, enum tx_kind *k);
int tx_kind_is_live(enum tx_kind k);

/* The guard's check of one frame: 1 when it may go, else 0 and why. */
int tx_guard_check(const struct tx_guard *g, const uint8_t *frame, uint32_t len,
		   char *why, size_t whylen);

#endif /* ROCEGEN_TX_H */
