/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rx.h — rocegen's receive side: libpcap in immediate mode (every frame is
 * delivered as it arrives, no buffering delay), inbound direction only, with
 * a BPF filter that keeps the peer's frames.  Non-blocking underneath:
 * rx_next() waits with poll() on rx_fd(), so a caller can also put rx_fd()
 * in its own poll set next to timers and TCP sockets.
 */
#ifndef ROCEGEN_RX_H
#define ROCEGEN_RX_H

#include <stddef.h>
#include <stdint.h>
#include <sys/time.h>

#define RX_ERRLEN 512

struct rx_cfg {
	const char *iface;
	int peer_ipver;          /* 4 or 6; 0: frames from anyone */
	uint8_t peer[16];        /* IPv4 in the first four bytes */
	const char *filter;      /* extra BPF expression ANDed in (may be NULL) */
	int snaplen;             /* 0: the interface MTU + 26 */
	int bufsize;             /* kernel buffer bytes; 0: 16 MiB */
	int promisc;             /* also frames not addressed to the interface's MAC */
	int both_directions;     /* 0: inbound only (PCAP_D_IN) */
};

struct rx_frame {
	const uint8_t *data;     /* valid until the next rx_next() / rx_close() */
	uint32_t caplen;
	uint32_t wirelen;
	struct timeval ts;
};

struct rx_stats {
	uint64_t frames;         /* delivered by rx_next() */
	uint64_t kernel_drops;   /* pcap_stats ps_drop */
	uint64_t if_drops;       /* pcap_stats ps_ifdrop */
};

struct rx;

struct rx *rx_open(const struct rx_cfg *cfg, char err[RX_ERRLEN]);
/* 1: a frame in *f; 0: timeout_ms went by (0: do not wait, -1: wait
 * forever); -1: error (rx_error()). */
int rx_next(struct rx *r, struct rx_frame *f, int timeout_ms);
int rx_fd(const struct rx *r);
void rx_get_stats(struct rx *r, struct rx_stats *s);
const char *rx_error(const struct rx *r);
/* The filter rx_open() installs, for logs. */
const char *rx_filter(const struct rx *r);
void rx_close(struct rx *r);

/* Writes the peer filter: "(src host PEER or ether proto 0x8915)", ANDed
 * with extra when given.  Returns 0, or -1 when cap is too small. */
int rx_peer_filter(char *buf, size_t cap, int ipver, const uint8_t *peer, const char *extra);

#endif /* ROCEGEN_RX_H */
