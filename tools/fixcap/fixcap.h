/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fixcap — what the fixture writers (mkanalysis, mkdiag) share: a pcap
 * being written with its own clock, frames appended from libroce's
 * builders (as Ethernet, or wrapped in ERF type-2 records), and the .expect
 * file written beside each capture.
 */
#ifndef ROCETOP_FIXCAP_H
#define ROCETOP_FIXCAP_H

#include <pcap/pcap.h>
#include <stddef.h>
#include <stdint.h>

struct fixcap {
	pcap_t *dead;
	pcap_dumper_t *d;
	uint64_t t;               /* ns since the base, 1700000000 s */
	const char *name;
	int erf;                  /* write ERF records (DLT_ERF) */
	uint16_t lctr;            /* ERF: loss counter of the next record */
};

/* A host: its MAC, IPv4 address and QP */
struct fixcap_ep {
	uint8_t mac[6];
	uint8_t ip[4];
	uint32_t qpn;
};

struct roce_frame_spec;
struct roce_cm;

/* The writer's name in error lines ("mkdiag: ..."); set by main. */
extern const char *fixcap_prog;

void fixcap_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* DIR/NAME.pcap, nanosecond timestamps; dies when it cannot be created. */
void fixcap_open(struct fixcap *c, const char *dir, const char *name, int erf);
void fixcap_close(struct fixcap *c);
/* One frame of len bytes (a builder's result: negative is its error) at c->t. */
void fixcap_emit(struct fixcap *c, const uint8_t *f, int len);
/* DIR/NAME.expect: a two-line heading saying what the lines are and that
 * tools/PROG.c built NAME.pcap, then the lines.  0, or -1 when it could not
 * be written. */
int fixcap_expect(const char *dir, const char *name, const char *what, const char *const *lines);

/* A RoCEv2 frame from `from` to `to` over IPv4 (DF, UDP source port
 * 0xc123, pad from the payload), everything else zero: the writer fills in
 * the BTH and what follows. */
void fixcap_spec(struct roce_frame_spec *s, const struct fixcap_ep *from, const struct fixcap_ep *to);
/* Builds into f (cap bytes) a frame from `from` to `to`'s QP: opcode (a
 * CNP gets roce_spec_cnp's fixed parts), PSN, the IP header's ECN field and
 * payload_len zero bytes of payload (a WRITE's DMA length too); the
 * builder's result. */
int fixcap_frame(uint8_t *f, size_t cap, const struct fixcap_ep *from, const struct fixcap_ep *to, uint8_t opcode,
		 uint32_t psn, uint8_t ecn, uint32_t payload_len);
/* A CM MAD from `from` to `to`'s QP1 (UD SEND_ONLY, the CM Q_Key). */
void fixcap_cm_mad(struct fixcap *c, const struct fixcap_ep *from, const struct fixcap_ep *to,
		   const struct roce_cm *cm);

/* advance the clock by us microseconds */
static inline void fixcap_at(struct fixcap *c, uint64_t us) { c->t += us * 1000; }

#endif
