/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mkdevrec — writes a --device-replay recording (the layout --device-record
 * writes, devrec.h) of two devices no machine here has, two snapshots 1 s
 * apart, for tests/device_replay.sh:
 *
 *   mlx4_0 (RDMA netlink index 0), ports 1 and 2: the device-level
 *     hw_counters/ (num_cqovf, rq_num_udsdprd: mlx4 keeps them only there),
 *     port 1's hw_counters (rq_num_dup, rq_num_oos); its STAT_GET answered
 *     EOPNOTSUPP.
 *   mlx5_2 (index 1), port 1: sysfs hw_counters (out_of_sequence,
 *     np_cnp_sent) and, only through RDMA netlink STAT_GET for the port (what
 *     `rdma statistic show link mlx5_2/1` asks), the optional counters
 *     cc_rx_ce_pkts, cc_rx_cnp_pkts, cc_tx_cnp_pkts, rdma_{tx,rx}_{packets,bytes}, and in
 *     the STAT_GET_STATUS answer which of them are enabled (all but rdma_tx_bytes).
 *
 * mlx5_2's port 1 has GID 0 ::ffff:10.99.0.1 (RoCE v2) on netdev
 * enp1s0f0np0, MAC 02:00:00:00:00:01 (sys/K/class/net/…/address), whose
 * `ethtool -S` (ethtool/K/enp1s0f0np0) counts PFC at priority 3 and 802.3x
 * pause: rx_prio3_pause 100 -> 108, tx_prio3_pause 20 -> 25,
 * rx_pause_ctrl_phy 0 -> 2, tx_pause_ctrl_phy 0.  With a second
 * argument, mkdevrec also writes the capture of what that port's wire
 * carried while the counters moved (built with libroce), for the NIC vs
 * wire comparisons by meaning:
 *
 *   conversation 1: 10.99.0.2 writes 100 requests to mlx5_2's QP 0x20, 60
 *     of them CE-marked (cc_rx_ce_pkts 100 -> 160); mlx5_2 acknowledges
 *     (QP 0x30) and sends 15 CNPs back (np_cnp_sent 40 -> 55);
 *   conversation 2: mlx5_2 writes 10 requests to 10.99.0.2's QP 0x40,
 *     acknowledged (to QP 0x50), and gets 2 CNPs (cc_rx_cnp_pkts 7 -> 9);
 *   no request repeated or out of sequence (out_of_sequence stays 10);
 *   the switch (02:00:00:00:00:fe) pauses priority 3 of the port 8 times
 *     and sends 2 802.3x pauses; the port pauses priority 3 of the switch
 *     5 times (source 02:00:00:00:00:01);
 *   then 100 more requests of conversation 2 (0.5 s) with nothing to count.
 *
 * The netlink answers are built with libmnl in the kernel's layout (nldev:
 * attributes as fill_nldev_handle / stat_get_doit_default_counter put them,
 * nests without NLA_F_NESTED), and written as the bytes a recv() returns.
 * The values are this tool's (no recording of a real mlx4 or mlx5 exists
 * here); the counter names are the drivers'.
 *
 *   mkdevrec DIR [CAPTURE.pcap]     (DIR must not exist or be empty)
 */
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <roce.h>
#include "fixcap.h"
#include <rdma/rdma_netlink.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *dir;

static void mkdirs(const char *path)
{
	char p[4096];

	snprintf(p, sizeof p, "%s", path);
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = 0;
			if (mkdir(p, 0755) < 0 && errno != EEXIST) {
				fprintf(stderr, "mkdevrec: %s: %s\n", p, strerror(errno));
				exit(1);
			}
			*s = '/';
		}
}

static void put(const char *rel, const void *b, size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, rel);
	mkdirs(path);
	if (!(f = fopen(path, "wb")) || fwrite(b, 1, n, f) != n || fclose(f) != 0) {
		fprintf(stderr, "mkdevrec: %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

static void putf(const char *text, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(const char *text, const char *fmt, ...)
{
	char rel[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof rel, fmt, ap);
	va_end(ap);
	put(rel, text, strlen(text));
}

/* sys/K/class/infiniband/DEV/REST holding v */
static void put_u64(uint64_t v, unsigned k, const char *dev, const char *rest)
{
	char t[32], rel[1024];

	snprintf(t, sizeof t, "%llu\n", (unsigned long long)v);
	snprintf(rel, sizeof rel, "sys/%u/class/infiniband/%s/%s", k, dev, rest);
	put(rel, t, strlen(t));
}

/* ---- netlink answers ------------------------------------------------------- */

static uint8_t buf[65536] __attribute__((aligned(4)));
static size_t len;

static struct nlmsghdr *msg(uint16_t type, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf + len);

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = 1;
	return nlh;
}

static void end(struct nlmsghdr *nlh)
{
	len += NLMSG_ALIGN(nlh->nlmsg_len);
}

static void done(void)
{
	struct nlmsghdr *nlh = msg(NLMSG_DONE, NLM_F_MULTI);
	int zero = 0;

	memcpy(mnl_nlmsg_put_extra_header(nlh, sizeof zero), &zero, sizeof zero);
	end(nlh);
}

static void flush(const char *rel)
{
	put(rel, buf, len);
	len = 0;
}

/* the kernel's nla_nest_start_noflag */
static struct nlattr *nest(struct nlmsghdr *nlh, uint16_t type)
{
	struct nlattr *a = mnl_attr_nest_start(nlh, type);

	a->nla_type &= ~NLA_F_NESTED;
	return a;
}

static void handle(struct nlmsghdr *nlh, uint32_t idx, const char *name)
{
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, idx);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, name);
}

#define NL(cmd) RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd)

struct dev {
	const char *name;
	uint32_t nports;
};

static const struct dev devs[] = { { "mlx4_0", 2 }, { "mlx5_2", 1 } };

static void netlink(unsigned k)
{
	char rel[256];

	for (uint32_t i = 0; i < 2; i++) {          /* CMD_GET: every device */
		struct nlmsghdr *nlh = msg(NL(RDMA_NLDEV_CMD_GET), NLM_F_MULTI);

		handle(nlh, i, devs[i].name);
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, devs[i].nports);
		mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_PROTOCOL, "roce");
		end(nlh);
	}
	done();
	snprintf(rel, sizeof rel, "netlink/%u/dev.bin", k);
	flush(rel);
	for (uint32_t i = 0; i < 2; i++) {
		static const char *const empty[] = { "qp", "cq", "mr", "cmid", "qpcnt" };

		for (uint32_t p = 1; p <= devs[i].nports; p++) {   /* PORT_GET */
			struct nlmsghdr *nlh = msg(NL(RDMA_NLDEV_CMD_PORT_GET), NLM_F_MULTI);

			handle(nlh, i, devs[i].name);
			mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, p);
			mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_PORT_STATE, 4);      /* ACTIVE */
			mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_PORT_PHYS_STATE, 5); /* LinkUp */
			end(nlh);
		}
		done();
		snprintf(rel, sizeof rel, "netlink/%u/port-%u.bin", k, i);
		flush(rel);
		for (size_t e = 0; e < sizeof empty / sizeof empty[0]; e++) {   /* no QPs, CQs, … */
			done();
			snprintf(rel, sizeof rel, "netlink/%u/%s-%u.bin", k, empty[e], i);
			flush(rel);
		}
	}
	/* mlx4_0/1: STAT_GET refused (NLMSG_ERROR -EOPNOTSUPP and the request) */
	{
		struct nlmsghdr *nlh = msg(NLMSG_ERROR, 0);
		struct nlmsgerr *e = mnl_nlmsg_put_extra_header(nlh, sizeof *e);

		e->error = -EOPNOTSUPP;
		e->msg.nlmsg_len = sizeof e->msg;
		e->msg.nlmsg_type = NL(RDMA_NLDEV_CMD_STAT_GET);
		e->msg.nlmsg_flags = NLM_F_REQUEST;
		end(nlh);
		snprintf(rel, sizeof rel, "netlink/%u/stat-0-1.bin", k);
		flush(rel);
	}
	/* mlx5_2/1: the port's counters, optional ones enabled */
	{
		static const struct {
			const char *name;
			uint64_t v[2];
		} c[] = {
			{ "out_of_sequence", { 10, 10 } },   /* also in sysfs: shown once */
			{ "np_cnp_sent", { 40, 55 } },
			{ "cc_rx_ce_pkts", { 100, 160 } },
			{ "cc_rx_cnp_pkts", { 7, 9 } },
			{ "cc_tx_cnp_pkts", { 30, 45 } },
			{ "rdma_tx_packets", { 1000, 3000 } },
			{ "rdma_rx_packets", { 900, 2900 } },
			{ "rdma_rx_bytes", { 3686400, 11878400 } },
		};
		struct nlmsghdr *nlh = msg(NL(RDMA_NLDEV_CMD_STAT_GET), 0);
		struct nlattr *t, *e;

		handle(nlh, 1, "mlx5_2");
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
		t = nest(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
		for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
			e = nest(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);
			mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, c[i].name);
			mnl_attr_put_u64(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, c[i].v[k - 1]);
			mnl_attr_nest_end(nlh, e);
		}
		mnl_attr_nest_end(nlh, t);
		end(nlh);
		snprintf(rel, sizeof rel, "netlink/%u/stat-1-1.bin", k);
		flush(rel);
	}
}

/* mlx5_2/1: which optional counters exist, which are enabled (STAT_GET_STATUS:
 * entries with NAME, INDEX and DYNAMIC = enabled); rdma_tx_bytes is off,
 * so the STAT_GET answer above leaves it out, as the kernel does */
static void optional_status(unsigned k)
{
	static const struct {
		const char *name;
		uint8_t on;
	} o[] = {
		{ "cc_rx_ce_pkts", 1 }, { "cc_rx_cnp_pkts", 1 }, { "cc_tx_cnp_pkts", 1 }, { "rdma_tx_packets", 1 },
		{ "rdma_tx_bytes", 0 }, { "rdma_rx_packets", 1 }, { "rdma_rx_bytes", 1 },
	};
	struct nlmsghdr *nlh = msg(NL(RDMA_NLDEV_CMD_STAT_GET_STATUS), 0);
	struct nlattr *t, *e;
	char rel[256];

	handle(nlh, 1, "mlx5_2");
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	t = nest(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
	for (size_t i = 0; i < sizeof o / sizeof o[0]; i++) {
		e = nest(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);
		mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, o[i].name);
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_INDEX, (uint32_t)(40 + i));
		mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC, o[i].on);
		mnl_attr_nest_end(nlh, e);
	}
	mnl_attr_nest_end(nlh, t);
	end(nlh);
	snprintf(rel, sizeof rel, "netlink/%u/statstatus-1-1.bin", k);
	flush(rel);
}

/* ---- sysfs ------------------------------------------------------------------- */

static void port_files(unsigned k, const char *dev, unsigned port)
{
	putf("4: ACTIVE\n", "sys/%u/class/infiniband/%s/ports/%u/state", k, dev, port);
	putf("5: LinkUp\n", "sys/%u/class/infiniband/%s/ports/%u/phys_state", k, dev, port);
	putf("40 Gb/sec (4X QDR)\n", "sys/%u/class/infiniband/%s/ports/%u/rate", k, dev, port);
	putf("Ethernet\n", "sys/%u/class/infiniband/%s/ports/%u/link_layer", k, dev, port);
}

static void sysfs(unsigned k)
{
	port_files(k, "mlx4_0", 1);
	port_files(k, "mlx4_0", 2);
	put_u64(k == 1 ? 9 : 12, k, "mlx4_0", "hw_counters/num_cqovf");
	put_u64(17, k, "mlx4_0", "hw_counters/rq_num_udsdprd");
	put_u64(5, k, "mlx4_0", "ports/1/hw_counters/rq_num_dup");
	put_u64(k == 1 ? 2 : 4, k, "mlx4_0", "ports/1/hw_counters/rq_num_oos");
	put_u64(0, k, "mlx4_0", "ports/2/hw_counters/rq_num_dup");
	port_files(k, "mlx5_2", 1);
	put_u64(10, k, "mlx5_2", "ports/1/hw_counters/out_of_sequence");
	put_u64(k == 1 ? 40 : 55, k, "mlx5_2", "ports/1/hw_counters/np_cnp_sent");
	putf("0000:0000:0000:0000:0000:ffff:0a63:0001\n", "sys/%u/class/infiniband/mlx5_2/ports/1/gids/0", k);
	putf("RoCE v2\n", "sys/%u/class/infiniband/mlx5_2/ports/1/gid_attrs/types/0", k);
	putf("enp1s0f0np0\n", "sys/%u/class/infiniband/mlx5_2/ports/1/gid_attrs/ndevs/0", k);
	putf("02:00:00:00:00:01\n", "sys/%u/class/net/enp1s0f0np0/address", k);
	/* its netdev's ethtool -S, as `ethtool -S` prints it (mlx5_core names) */
	putf(k == 1 ? "NIC statistics:\n     rx_packets_phy: 5000\n     rx_prio3_pause: 100\n     tx_prio3_pause: 20\n"
		      "     rx_prio3_pause_duration: 900\n     rx_pause_ctrl_phy: 0\n     tx_pause_ctrl_phy: 0\n" :
		      "NIC statistics:\n     rx_packets_phy: 5300\n     rx_prio3_pause: 108\n     tx_prio3_pause: 25\n"
		      "     rx_prio3_pause_duration: 1000\n     rx_pause_ctrl_phy: 2\n     tx_pause_ctrl_phy: 0\n",
	     "ethtool/%u/enp1s0f0np0", k);
}

/* ---- the wire (second argument) -------------------------------------------- */

static struct fixcap cap;

/* One RoCEv2 frame from 10.99.0.a to 10.99.0.b's QP dqpn, 5 ms after the last. */
static void frame(int a, int b, uint8_t opcode, uint32_t dqpn, uint32_t psn, uint8_t ecn)
{
	struct fixcap_ep from = { { 2, 0, 0, 0, 0, (uint8_t)a }, { 10, 99, 0, (uint8_t)a }, 0 };
	struct fixcap_ep to = { { 2, 0, 0, 0, 0, (uint8_t)b }, { 10, 99, 0, (uint8_t)b }, dqpn };
	uint8_t f[512];

	fixcap_at(&cap, 5000);
	fixcap_emit(&cap, f, fixcap_frame(f, sizeof f, &from, &to, opcode, psn, ecn,
					  opcode == (ROCE_TR_RC | ROCE_OP_WRITE_ONLY) ? 256 : 0));
}

/* A PFC frame from mac pausing priority prio, or (prio 8) an 802.3x pause. */
static void pause_frame(uint8_t last, unsigned prio)
{
	struct roce_eth_spec e;
	uint16_t times[8] = { 0 };
	uint8_t f[128];

	memset(&e, 0, sizeof e);
	memcpy(e.src, (const uint8_t[6]){ 2, 0, 0, 0, 0, last }, 6);
	fixcap_at(&cap, 5000);
	if (prio == 8) {
		fixcap_emit(&cap, f, roce_build_pause(f, sizeof f, &e, 0xffff, 0));
		return;
	}
	times[prio] = 0xffff;
	fixcap_emit(&cap, f, roce_build_pfc(f, sizeof f, &e, (uint8_t)(1u << prio), times, 0));
}

static void wire(const char *path)
{
	char d[4096], *slash, *dot;
	uint32_t i;

	snprintf(d, sizeof d, "%s", path);          /* DIR/NAME.pcap: fixcap writes DIR, NAME */
	if (!(dot = strrchr(d, '.')) || strcmp(dot, ".pcap")) {
		fprintf(stderr, "mkdevrec: %s: not a NAME.pcap\n", path);
		exit(2);
	}
	*dot = 0;
	slash = strrchr(d, '/');
	if (slash)
		*slash = 0;
	fixcap_prog = "mkdevrec";
	fixcap_open(&cap, slash ? d : ".", slash ? slash + 1 : d, 0);
	for (i = 0; i < 100; i++)                                   /* 60 of 100 CE-marked */
		frame(2, 1, ROCE_TR_RC | ROCE_OP_WRITE_ONLY, 0x20, i, i % 5 < 3 ? 3 : 2);
	frame(1, 2, ROCE_TR_RC | ROCE_OP_ACK, 0x30, 99, 0);
	for (i = 0; i < 15; i++)
		frame(1, 2, ROCE_OPCODE_CNP, 0x30, 0, 0);
	for (i = 0; i < 10; i++)
		frame(1, 2, ROCE_TR_RC | ROCE_OP_WRITE_ONLY, 0x40, i, 2);
	frame(2, 1, ROCE_TR_RC | ROCE_OP_ACK, 0x50, 9, 0);
	for (i = 0; i < 2; i++)
		frame(2, 1, ROCE_OPCODE_CNP, 0x50, 0, 0);
	for (i = 0; i < 8; i++)                                     /* the switch pauses the port */
		pause_frame(0xfe, 3);
	for (i = 0; i < 5; i++)                                     /* the port pauses the switch */
		pause_frame(0x01, 3);
	for (i = 0; i < 2; i++)
		pause_frame(0xfe, 8);
	/* then 0.5 s of conversation 2 without events: a paced replay's
	 * snapshots see everything above */
	for (i = 10; i < 110; i++)
		frame(1, 2, ROCE_TR_RC | ROCE_OP_WRITE_ONLY, 0x40, i, 2);
	frame(2, 1, ROCE_TR_RC | ROCE_OP_ACK, 0x50, 109, 0);
	fixcap_close(&cap);
}

int main(int argc, char **argv)
{
	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: mkdevrec DIR [CAPTURE.pcap]\n");
		return 2;
	}
	dir = argv[1];
	for (unsigned k = 1; k <= 2; k++) {
		sysfs(k);
		netlink(k);
		optional_status(k);
	}
	putf("0\n1000000000\n", "times");
	if (argc == 3)
		wire(argv[2]);
	return 0;
}
