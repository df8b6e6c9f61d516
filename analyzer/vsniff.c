/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vsniff.c — the verbs sniffer (vsniff.h): a raw-packet QP whose receive
 * queue a flow of type IBV_FLOW_ATTR_SNIFFER fills with a copy of every
 * frame the port sends and receives (libibverbs, rdma-core: ibv_create_flow(3)).
 *
 * Receive buffers sit in one registered region, VS_NBUF of them, each large
 * enough for the largest frame: a frame longer than its buffer completes in
 * error and is counted, not delivered.  A frame handed out stays valid until
 * the next vsniff_next(), which posts its buffer again.
 */
#include <errno.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "sysfs.h"
#include "vsniff.h"

#define VS_NBUF 512
#define VS_BATCH 32
#define VS_MINBUF 9216                 /* a jumbo frame, as source.h's SOURCE_SNAPLEN */
#define VS_PORT 1

/* vendor_id of devices that never sniff (ibv_query_device) */
#define VENDOR_RXE 0xffffff            /* rdma_rxe, Soft-RoCE */
#define VENDOR_SIW 0x626d74            /* siw, soft-iWARP ("bmt") */
#define VENDOR_INTEL 0x8086            /* irdma (E810, X722), i40iw */

struct vsniff {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_flow *flow;
	struct ibv_mr *mr;
	uint8_t *buf;
	size_t bufsz;
	int snaplen;
	struct ibv_wc wc[VS_BATCH];
	int nwc, iwc;
	int held;                      /* buffer handed out, posted again on the next call */
	unsigned unacked;              /* CQ events not yet acknowledged */
	pcap_t *dead;
	struct bpf_program prog;
	int has_prog;
	struct pcap_pkthdr hdr;
	uint64_t recv, errors;
	char err[256];
};

int vsniff_is_rdma(const char *name)
{
	char path[512];
	struct stat st;

	if (if_nametoindex(name) || strchr(name, '/') || !*name)
		return 0;
	snprintf(path, sizeof path, "%s/class/infiniband/%s", sysfs_root(), name);
	return stat(path, &st) == 0;
}

/* The port's netdev, from its GID table (sysfs); "" when it has none. */
static void port_netdev(const char *dev, char *nd, size_t cap)
{
	struct sysfs_port sp;

	nd[0] = 0;
	if (sysfs_read_port(dev, VS_PORT, 1, &sp) < 0)
		return;
	for (size_t i = 0; i < sp.ngid && !nd[0]; i++)
		snprintf(nd, cap, "%s", sp.gid[i].ndev);
	sysfs_port_free(&sp);
}

/* Devices that cannot sniff, said in one line before anything is created:
 * 1 with err[] set, else 0. */
static int cannot_sniff(struct ibv_context *ctx, const char *dev, char *err, size_t cap)
{
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	char nd[SYSFS_NAME], via[160] = "";

	port_netdev(dev, nd, sizeof nd);
	if (nd[0])
		snprintf(via, sizeof via, "-i %s for the wire (its frames cross that netdev), ", nd);
	memset(&da, 0, sizeof da);
	if (ibv_query_device(ctx, &da) == 0 && da.vendor_id == VENDOR_RXE) {
		snprintf(err, cap, "rxe (Soft-RoCE) has no verbs sniffer: use %s--device %s for what the device counts",
			 via, dev);
		return 1;
	}
	if (ctx->device->transport_type == IBV_TRANSPORT_IWARP || da.vendor_id == VENDOR_SIW) {
		snprintf(err, cap, "an iWARP device (siw, irdma) has no verbs sniffer: use %s--device %s for what "
			 "the device counts", via, dev);
		return 1;
	}
	if (da.vendor_id == VENDOR_INTEL) {
		snprintf(err, cap, "irdma has no verbs sniffer (offloaded RoCE never reaches a netdev): use --device %s "
			 "for what the device counts", dev);
		return 1;
	}
	memset(&pa, 0, sizeof pa);
	if (ibv_query_port(ctx, VS_PORT, &pa) == 0 && pa.link_layer == IBV_LINK_LAYER_INFINIBAND) {
		snprintf(err, cap, "an InfiniBand port: capture it with ibdump (its pcap or ERF file: rocetop -r) "
			 "and use --device %s for what the device counts", dev);
		return 1;
	}
	return 0;
}

/* Why a create failed, with the way out. */
static void failed(struct vsniff *v, const char *what, const char *dev, int e, char *err, size_t cap)
{
	if (e == EPERM || e == EACCES)
		snprintf(err, cap, "%s: %s: the verbs sniffer needs CAP_NET_RAW (root, or setcap cap_net_raw; "
			 "see rocetop(8))", what, strerror(e));
	else
		snprintf(err, cap, "%s: %s: this device cannot sniff (only mlx4 and mlx5 Ethernet ports do); "
			 "use --device %s for what the device counts", what, e ? strerror(e) : "failed", dev);
	vsniff_close(v);
}

static int post_one(struct vsniff *v, int i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(v->buf + (size_t)i * v->bufsz),
		.length = (uint32_t)v->bufsz,
		.lkey = v->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = (uint64_t)i, .sg_list = &sge, .num_sge = 1 }, *bad;

	return ibv_post_recv(v->qp, &wr, &bad);
}

/* The raw-packet QP in INIT on the port, the sniffer flow, then RTR. */
static int make_qp(struct vsniff *v, const char **what)
{
	struct ibv_qp_init_attr qi = {
		.send_cq = v->cq, .recv_cq = v->cq, .qp_type = IBV_QPT_RAW_PACKET,
		.cap = { .max_send_wr = 1, .max_recv_wr = VS_NBUF, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_INIT, .port_num = VS_PORT };
	struct ibv_flow_attr fa = {
		.type = IBV_FLOW_ATTR_SNIFFER, .size = sizeof fa, .num_of_specs = 0, .port = VS_PORT,
	};

	*what = "raw-packet QP";
	if (!(v->qp = ibv_create_qp(v->pd, &qi)))
		return errno ? errno : EINVAL;
	*what = "QP to INIT";
	if ((errno = ibv_modify_qp(v->qp, &qa, IBV_QP_STATE | IBV_QP_PORT)))
		return errno;
	*what = "sniffer flow (ibv_create_flow)";
	if (!(v->flow = ibv_create_flow(v->qp, &fa)))
		return errno ? errno : EOPNOTSUPP;
	memset(&qa, 0, sizeof qa);
	qa.qp_state = IBV_QPS_RTR;
	*what = "QP to RTR";
	return ibv_modify_qp(v->qp, &qa, IBV_QP_STATE);
}

/* Protection domain, completion channel and queue, buffers, QP, flow. */
static int make_all(struct vsniff *v, const char **what)
{
	int e;

	*what = "protection domain";
	if (!(v->pd = ibv_alloc_pd(v->ctx)))
		return errno;
	*what = "completion channel";
	if (!(v->ch = ibv_create_comp_channel(v->ctx)) ||
	    fcntl(v->ch->fd, F_SETFL, fcntl(v->ch->fd, F_GETFL) | O_NONBLOCK) < 0)
		return errno;
	*what = "completion queue";
	if (!(v->cq = ibv_create_cq(v->ctx, VS_NBUF + 1, NULL, v->ch, 0)))
		return errno;
	if ((e = make_qp(v, what)))
		return e;
	*what = "receive buffers";
	if (posix_memalign((void **)&v->buf, 4096, VS_NBUF * v->bufsz))
		return ENOMEM;
	if (!(v->mr = ibv_reg_mr(v->pd, v->buf, VS_NBUF * v->bufsz, IBV_ACCESS_LOCAL_WRITE)))
		return errno;
	for (int i = 0; i < VS_NBUF; i++)
		if ((e = post_one(v, i)))
			return e;
	*what = "completion notification";
	return ibv_req_notify_cq(v->cq, 0);
}

static struct ibv_context *open_ctx(const char *dev, int *e)
{
	int n = 0;
	struct ibv_device **l = ibv_get_device_list(&n);
	struct ibv_context *ctx = NULL;

	*e = l ? ENODEV : errno;
	for (int i = 0; l && i < n && !ctx; i++)
		if (!strcmp(ibv_get_device_name(l[i]), dev)) {
			ctx = ibv_open_device(l[i]);
			*e = ctx ? 0 : errno;
		}
	if (l)
		ibv_free_device_list(l);
	return ctx;
}

struct vsniff *vsniff_open(const char *dev, int snaplen, char *err, size_t errcap)
{
	struct vsniff *v = calloc(1, sizeof *v);
	const char *what = "";
	int e;

	if (!v) {
		snprintf(err, errcap, "out of memory");
		return NULL;
	}
	v->snaplen = snaplen;
	v->bufsz = ((size_t)(snaplen > VS_MINBUF ? snaplen : VS_MINBUF) + 64 + 63) & ~(size_t)63;
	v->held = -1;
	if (!(v->ctx = open_ctx(dev, &e))) {
		snprintf(err, errcap, "libibverbs cannot open this RDMA device (%s; is its provider in "
			 "ibverbs-providers, /dev/infiniband readable?); use --device %s for what it counts",
			 strerror(e), dev);
		vsniff_close(v);
		return NULL;
	}
	if (cannot_sniff(v->ctx, dev, err, errcap)) {
		vsniff_close(v);
		return NULL;
	}
	if ((e = make_all(v, &what))) {
		failed(v, what, dev, e, err, errcap);
		return NULL;
	}
	if (!(v->dead = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, snaplen, PCAP_TSTAMP_PRECISION_NANO))) {
		snprintf(err, errcap, "out of memory");
		vsniff_close(v);
		return NULL;
	}
	return v;
}

int vsniff_set_filter(struct vsniff *v, const char *expr, char *err, size_t errcap)
{
	if (!expr)
		return 0;
	if (pcap_compile(v->dead, &v->prog, expr, 1, PCAP_NETMASK_UNKNOWN) < 0) {
		snprintf(err, errcap, "%s", pcap_geterr(v->dead));
		return -1;
	}
	v->has_prog = 1;
	return 0;
}

int vsniff_fd(const struct vsniff *v)
{
	return v->ch->fd;
}

/* Takes the channel's events and arms the queue again (then polls once
 * more: a completion may have come in between). */
static int rearm(struct vsniff *v)
{
	struct ibv_cq *cq;
	void *cctx;

	while (ibv_get_cq_event(v->ch, &cq, &cctx) == 0)
		v->unacked++;
	if (v->unacked) {
		ibv_ack_cq_events(v->cq, v->unacked);
		v->unacked = 0;
	}
	return ibv_req_notify_cq(v->cq, 0);
}

static int fill(struct vsniff *v)
{
	int n = ibv_poll_cq(v->cq, VS_BATCH, v->wc);

	if (n == 0) {
		if (rearm(v)) {
			snprintf(v->err, sizeof v->err, "arming the completion queue failed");
			return -1;
		}
		n = ibv_poll_cq(v->cq, VS_BATCH, v->wc);
	}
	if (n < 0) {
		snprintf(v->err, sizeof v->err, "polling the completion queue failed");
		return -1;
	}
	v->nwc = n > 0 ? n : 0;
	v->iwc = 0;
	return n;
}

int vsniff_next(struct vsniff *v, struct pcap_pkthdr **h, const uint8_t **data)
{
	struct timespec ts;

	if (v->held >= 0 && post_one(v, v->held)) {
		snprintf(v->err, sizeof v->err, "posting a receive buffer failed");
		return -1;
	}
	v->held = -1;
	for (;;) {
		const struct ibv_wc *wc;
		const uint8_t *p;

		if (v->iwc == v->nwc) {
			int n = fill(v);

			if (n <= 0)
				return n;
		}
		wc = &v->wc[v->iwc++];
		if (wc->status != IBV_WC_SUCCESS || wc->byte_len > v->bufsz) {
			v->errors++;
			if (wc->status != IBV_WC_WR_FLUSH_ERR && post_one(v, (int)wc->wr_id))
				return -1;
			continue;
		}
		p = v->buf + (size_t)wc->wr_id * v->bufsz;
		clock_gettime(CLOCK_REALTIME, &ts);
		v->hdr.ts.tv_sec = ts.tv_sec;
		v->hdr.ts.tv_usec = ts.tv_nsec;   /* nanoseconds: the handle's precision */
		v->hdr.len = wc->byte_len;
		v->hdr.caplen = wc->byte_len < (uint32_t)v->snaplen ? wc->byte_len : (uint32_t)v->snaplen;
		v->held = (int)wc->wr_id;
		if (v->has_prog && !pcap_offline_filter(&v->prog, &v->hdr, p)) {
			post_one(v, v->held);
			v->held = -1;
			continue;
		}
		v->recv++;
		*h = &v->hdr;
		*data = p;
		return 1;
	}
}

const char *vsniff_error(const struct vsniff *v)
{
	return v->err;
}

void vsniff_stats(const struct vsniff *v, uint64_t *recv, uint64_t *errors)
{
	*recv = v->recv;
	*errors = v->errors;
}

pcap_t *vsniff_pcap(struct vsniff *v)
{
	return v->dead;
}

void vsniff_close(struct vsniff *v)
{
	if (!v)
		return;
	if (v->flow)
		ibv_destroy_flow(v->flow);
	if (v->qp)
		ibv_destroy_qp(v->qp);
	if (v->mr)
		ibv_dereg_mr(v->mr);
	if (v->cq) {
		if (v->unacked)
			ibv_ack_cq_events(v->cq, v->unacked);
		ibv_destroy_cq(v->cq);
	}
	if (v->ch)
		ibv_destroy_comp_channel(v->ch);
	if (v->pd)
		ibv_dealloc_pd(v->pd);
	if (v->ctx)
		ibv_close_device(v->ctx);
	if (v->has_prog)
		pcap_freecode(&v->prog);
	if (v->dead)
		pcap_close(v->dead);
	free(v->buf);
	free(v);
}
