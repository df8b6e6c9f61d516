/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wrap.h — what rocegen writes around its frames (frames, flood) and
 * around the frames of a capture (convert), in this order:
 *
 *   --ib [--ib-grh]   a RoCE frame becomes the native InfiniBand packet
 *                     (libroce's roce_build_ib_from: LRH, GRH, ICRC, VCRC);
 *                     frames that are not RoCE are left out
 *   --erspan 1|2|3, --gre-teb, --vxlan VNI
 *                     the frame as a switch mirror sends it
 *                     (roce_build_encap; outer --outer-src/--outer-dst)
 *   --erf             an ERF record (type 2 Ethernet, 21 InfiniBand) in a
 *                     LINKTYPE_ERF file, else LINKTYPE_ETHERNET or (--ib)
 *                     LINKTYPE_INFINIBAND
 *   --snaplen N       each record cut to N bytes (ERF: inside the record,
 *                     with its truncated flag)
 */
#ifndef ROCEGEN_WRAP_H
#define ROCEGEN_WRAP_H

#include <stdint.h>
#include "roce.h"

#define GEN_WRAP_MAX (65536 + 1024)
#define GEN_WRAP_LIDS 1024

/* Option numbers (getopt values O_WRAP + these, see opts.c). */
enum gen_wrap_opt {
	GW_ERSPAN, GW_GRETEB, GW_VXLAN, GW_VXLANPORT, GW_OSRC, GW_ODST, GW_SPANID, GW_MTRUNC,
	GW_IB, GW_IBGRH, GW_SLID, GW_DLID, GW_SL, GW_ERF, GW_SNAPLEN,
	GW__END
};

struct gen_wrap {
	int ib, erf;
	struct roce_encap_spec spec;    /* kind NONE: no mirror */
	uint32_t mirror_trunc;          /* 0: whole inner frames */
	uint32_t snaplen;               /* 0: whole records */
	struct roce_lrh_spec lrh;
	int have_slid, have_dlid;
	/* state */
	uint32_t seq;
	unsigned n_lid;
	uint8_t lid_addr[GEN_WRAP_LIDS][16];   /* LID i + 1 */
	uint64_t left_out;              /* frames --ib could not carry */
	uint8_t buf[2][GEN_WRAP_MAX];
};

/* One wrap option (what = enum gen_wrap_opt) into *w (allocated on first
 * use).  0, or -1 after printing why. */
int gen_wrap_opt(struct gen_wrap **w, int what, const char *name, const char *arg);
/* Checks what does not go together.  0, or -1 after printing why. */
int gen_wrap_check(const struct gen_wrap *w);
/* The pcap link type of what gen_wrap_frame() writes (w may be NULL). */
int gen_wrap_dlt(const struct gen_wrap *w);

/* Wraps one frame (caplen of its len bytes captured; ts_ns its time) into
 * out.  Returns the bytes written, with *wire the length on the wire (more
 * when the frame was cut: the input already, or --mirror-trunc, or ERF
 * with --snaplen); 0 when the frame is left out (--ib: not RoCE); a
 * negative roce_err when it cannot be built.  --snaplen is applied here
 * only for ERF: the caller cuts other records itself. */
int gen_wrap_frame(struct gen_wrap *w, const uint8_t *in, uint32_t caplen, uint32_t len,
		   uint64_t ts_ns, uint8_t *out, size_t cap, uint32_t *wire);

/* The transmit layer's transform (tx_cfg.xform; ctx: the struct gen_wrap):
 * gen_wrap_frame() of a whole frame at the current time. */
int gen_wrap_xform(void *ctx, const uint8_t *in, uint32_t len, uint8_t *out, size_t cap);

#endif /* ROCEGEN_WRAP_H */
