/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vsniff.h — capture through an RDMA device's own sniffer (`-i mlx5_0`).
 *
 * A NIC that offloads RoCE never hands its RoCE frames to the kernel's
 * network stack, so a packet socket on its netdev sees nothing of them, and
 * Debian's libpcap is built without its RDMA sniffer.  This opens a
 * raw-packet QP with libibverbs, attaches a flow of type
 * IBV_FLOW_ATTR_SNIFFER (every frame the port sends and receives, RoCE
 * included), and hands out the Ethernet frames it receives the way
 * pcap_next_ex() does, so source.c treats it as one more live handle.
 *
 *   vsniff_open(dev) → vsniff_set_filter() → vsniff_fd() in poll() →
 *   vsniff_next() … → vsniff_close()
 *
 * Only mlx4 and mlx5 implement the sniffer flow, on Ethernet (RoCE) ports.
 * rxe and siw put their frames on an ordinary netdev (-i that one); irdma
 * has no sniffer; an InfiniBand port is read with ibdump.  For these
 * vsniff_open() fails with one line saying so, before anything is created.
 * Timestamps are the host clock when the completion is polled (the CQE's
 * hardware clock is not converted).  Needs CAP_NET_RAW.
 */
#ifndef ROCETOP_VSNIFF_H
#define ROCETOP_VSNIFF_H

#include <pcap/pcap.h>
#include <stddef.h>
#include <stdint.h>

struct vsniff;

/* Is name an RDMA device (under SYSFS/class/infiniband) and no netdev? */
int vsniff_is_rdma(const char *name);

/* Opens the sniffer on port 1 of dev ("mlx5_0"), frames up to snaplen.
 * NULL with err[] set (one line, the device's name not included). */
struct vsniff *vsniff_open(const char *dev, int snaplen, char *err, size_t errcap);
/* The BPF filter, compiled for Ethernet frames of the handle's snaplen and
 * run on every frame.  -1 with err[] set. */
int vsniff_set_filter(struct vsniff *v, const char *expr, char *err, size_t errcap);
/* A descriptor that turns readable when completions arrive. */
int vsniff_fd(const struct vsniff *v);
/* Like pcap_next_ex(): 1 and a frame (valid until the next call), 0 when
 * nothing is ready, -1 with vsniff_error() set. */
int vsniff_next(struct vsniff *v, struct pcap_pkthdr **h, const uint8_t **data);
const char *vsniff_error(const struct vsniff *v);
/* Frames received, and completions that came back in error (a frame
 * larger than a buffer, a flushed QP). */
void vsniff_stats(const struct vsniff *v, uint64_t *recv, uint64_t *errors);
/* A pcap handle of no capture, DLT_EN10MB, for -w and link-type names. */
pcap_t *vsniff_pcap(struct vsniff *v);
void vsniff_close(struct vsniff *v);

#endif
