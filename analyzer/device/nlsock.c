/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nlsock.c — RDMA netlink dumps through libmnl (see nlsock.h).
 *
 * Linux 6.1 answers PORT_GET and the RES_xx_GET dumps with EINVAL unless
 * they name a device (DEV_INDEX): callers dump the devices (CMD_GET) first,
 * then ask per device.
 */
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "devrec.h"
#include "nlparse.h"
#include "nlsock.h"

#define REPLY_MAX (64u << 20)      /* a dump larger than this is refused */
#define DUMP_SIZE 32768            /* per recv(): the kernel sends at most this */

struct nls {
	struct mnl_socket *sk;
	const char *replay;            /* ROCETOP_NETLINK_REPLAY, or NULL */
	unsigned qp_dumps;             /* replay: QP dumps so far (which directory) */
	uint32_t seq, portid;
	uint8_t *buf;                  /* the gathered reply */
	size_t len, cap;
};

struct nls *nls_open(char *err, size_t errcap)
{
	struct nls *s = calloc(1, sizeof *s);
	const char *replay = getenv("ROCETOP_NETLINK_REPLAY");

	if (!s) {
		snprintf(err, errcap, "out of memory");
		return NULL;
	}
	s->seq = (uint32_t)time(NULL);
	if (replay && *replay) {
		s->replay = replay;
		return s;
	}
	s->sk = mnl_socket_open(NETLINK_RDMA);
	if (!s->sk || mnl_socket_bind(s->sk, 0, MNL_SOCKET_AUTOPID) < 0) {
		snprintf(err, errcap, "RDMA netlink (NETLINK_RDMA): %s", strerror(errno));
		if (s->sk)
			mnl_socket_close(s->sk);
		free(s);
		return NULL;
	}
	s->portid = mnl_socket_get_portid(s->sk);
	return s;
}

void nls_close(struct nls *s)
{
	if (!s)
		return;
	if (s->sk)
		mnl_socket_close(s->sk);
	free(s->buf);
	free(s);
}

const char *nls_file_name(uint8_t cmd, uint32_t dev_index, char *buf, size_t cap)
{
	const char *n;

	switch (cmd) {
	case RDMA_NLDEV_CMD_GET: snprintf(buf, cap, "dev"); return buf;
	case RDMA_NLDEV_CMD_PORT_GET: n = "port"; break;
	case RDMA_NLDEV_CMD_RES_QP_GET: n = "qp"; break;
	case RDMA_NLDEV_CMD_RES_CQ_GET: n = "cq"; break;
	case RDMA_NLDEV_CMD_RES_MR_GET: n = "mr"; break;
	case RDMA_NLDEV_CMD_RES_CM_ID_GET: n = "cmid"; break;
	case RDMA_NLDEV_CMD_STAT_GET: n = "qpcnt"; break;
	default: n = "cmd"; break;
	}
	snprintf(buf, cap, "%s-%u", n, dev_index);
	return buf;
}

static int grow(struct nls *s, size_t more)
{
	size_t cap = s->cap ? s->cap : 65536;
	uint8_t *nb;

	if (s->len + more > REPLY_MAX)
		return -EMSGSIZE;
	while (cap < s->len + more)
		cap *= 2;
	if (cap == s->cap)
		return 0;
	if (!(nb = realloc(s->buf, cap)))
		return -ENOMEM;
	s->buf = nb;
	s->cap = cap;
	return 0;
}

/* DIRk/file of the replay list (k from 1; the last directory when k is past it). */
static int replay_file(struct nls *s, unsigned k, const char *file)
{
	char path[4096];
	const char *dir = s->replay, *end;
	FILE *f;
	size_t n;
	int rc = 0;

	for (unsigned i = 1; i < k && strchr(dir, ':'); i++)
		dir = strchr(dir, ':') + 1;
	end = strchr(dir, ':');
	snprintf(path, sizeof path, "%.*s/%s", (int)(end ? (size_t)(end - dir) : strlen(dir)), dir, file);
	if (!(f = fopen(path, "rb")))
		return -ENOENT;
	do {
		if ((rc = grow(s, 65536)) < 0)
			break;
		n = fread(s->buf + s->len, 1, s->cap - s->len, f);
		s->len += n;
	} while (n > 0);
	fclose(f);
	return rc;
}

static int replay_read(struct nls *s, uint8_t cmd, uint32_t dev_index)
{
	char name[32], file[48];

	/* the qp_dumps-th directory of the list (the first before any), or the last */
	snprintf(file, sizeof file, "%s.bin", nls_file_name(cmd, dev_index, name, sizeof name));
	return replay_file(s, s->qp_dumps ? s->qp_dumps : 1, file);
}

static int send_request(struct nls *s, uint8_t cmd, uint32_t dev_index)
{
	uint8_t req[256] __attribute__((aligned(4)));
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(req);

	nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd);
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_DUMP;
	nlh->nlmsg_seq = ++s->seq;
	if (dev_index != NLS_NO_DEV)
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, dev_index);
	if (cmd == RDMA_NLDEV_CMD_STAT_GET)   /* the counters QPs are bound to */
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_RES, RDMA_NLDEV_ATTR_RES_QP);
	if (mnl_socket_sendto(s->sk, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	return 0;
}

/* Gathers datagrams until one ends the dump. */
static int gather(struct nls *s)
{
	for (;;) {
		ssize_t n;
		int st;

		if ((st = grow(s, DUMP_SIZE)) < 0)
			return st;
		n = mnl_socket_recvfrom(s->sk, s->buf + s->len, DUMP_SIZE);
		if (n < 0)
			return errno == EINTR ? -EINTR : -errno;
		if (n == 0)
			return -EIO;
		st = nlp_status(s->buf + s->len, (size_t)n);
		s->len += (size_t)n;
		if (st == NLP_DONE)
			return 0;
		if (st <= NLP_KERNEL_ERR(0))
			return -(NLP_KERNEL_ERR(0) - st);
		if (st < 0)
			return -EPROTO;
	}
}

int nls_dump(struct nls *s, uint8_t cmd, uint32_t dev_index, const uint8_t **buf, size_t *len)
{
	int rc;

	s->len = 0;
	if (cmd == RDMA_NLDEV_CMD_RES_QP_GET)
		s->qp_dumps++;
	if (s->replay)
		rc = replay_read(s, cmd, dev_index);
	else if ((rc = send_request(s, cmd, dev_index)) == 0)
		rc = gather(s);
	/* --device-record: the reply as it came (an error answer too), into the
	 * directory a replay of the same calls reads it from (devrec.h) */
	if (s->len && devrec_dir()) {
		char name[32], rel[48];

		snprintf(rel, sizeof rel, "%s.bin", nls_file_name(cmd, dev_index, name, sizeof name));
		devrec_write("netlink", s->qp_dumps ? s->qp_dumps : 1, rel, s->buf, s->len);
	}
	*buf = s->buf;
	*len = s->len;
	return rc;
}

size_t nls_port_query_request(void *buf, uint8_t cmd, uint32_t seq, uint32_t dev_index, uint32_t port)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);

	nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd);
	nlh->nlmsg_flags = NLM_F_REQUEST;     /* one answer (or an error), no ACK after it */
	nlh->nlmsg_seq = seq;
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, dev_index);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, port);
	return nlh->nlmsg_len;
}

size_t nls_port_stat_request(void *buf, uint32_t seq, uint32_t dev_index, uint32_t port)
{
	return nls_port_query_request(buf, RDMA_NLDEV_CMD_STAT_GET, seq, dev_index, port);
}

int nls_port_query(struct nls *s, uint8_t cmd, uint32_t dev_index, uint32_t port, unsigned snap,
		   const uint8_t **buf, size_t *len)
{
	uint8_t req[256] __attribute__((aligned(4)));
	char file[64];
	int rc;

	snprintf(file, sizeof file, "%s-%u-%u.bin", cmd == RDMA_NLDEV_CMD_STAT_GET ? "stat" : "statstatus", dev_index,
		 port);
	s->len = 0;
	if (s->replay) {
		rc = replay_file(s, snap, file);
	} else {
		size_t n = nls_port_query_request(req, cmd, ++s->seq, dev_index, port);

		rc = mnl_socket_sendto(s->sk, req, n) < 0 ? -errno : gather(s);
	}
	if (s->len && devrec_dir())
		devrec_write("netlink", snap, file, s->buf, s->len);
	*buf = s->buf;
	*len = s->len;
	return rc;
}

int nls_port_stat(struct nls *s, uint32_t dev_index, uint32_t port, unsigned snap, const uint8_t **buf,
		  size_t *len)
{
	return nls_port_query(s, RDMA_NLDEV_CMD_STAT_GET, dev_index, port, snap, buf, len);
}

size_t nls_bind_request(void *buf, uint32_t seq, uint32_t dev_index, uint32_t port)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);

	nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_STAT_SET);
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = seq;
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, dev_index);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, port);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_RES, RDMA_NLDEV_ATTR_RES_QP);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_MODE, RDMA_COUNTER_MODE_AUTO);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_AUTO_MODE_MASK, RDMA_COUNTER_MASK_QP_TYPE);
	return nlh->nlmsg_len;
}

int nls_bind_qp_auto(struct nls *s, uint32_t dev_index, uint32_t port)
{
	uint8_t req[256] __attribute__((aligned(4)));
	size_t n;

	if (s->replay)
		return -EOPNOTSUPP;
	n = nls_bind_request(req, ++s->seq, dev_index, port);
	if (mnl_socket_sendto(s->sk, req, n) < 0)
		return -errno;
	s->len = 0;
	return gather(s);     /* the ACK (NLMSG_ERROR 0) or the error */
}

size_t nls_optional_request(void *buf, size_t cap, uint32_t seq, uint32_t dev_index, uint32_t port,
			    const uint32_t *idx, size_t n)
{
	struct nlmsghdr *nlh;
	struct nlattr *t;

	/* header, DEV_INDEX, PORT_INDEX, the nest's header and 8 bytes a counter */
	if (cap < MNL_NLMSG_HDRLEN + 3 * MNL_ATTR_HDRLEN + 8 + 8 * n)
		return 0;
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_STAT_SET);
	nlh->nlmsg_flags = NLM_F_REQUEST;
	nlh->nlmsg_seq = seq;
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, dev_index);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, port);
	t = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
	for (size_t i = 0; i < n; i++)
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_INDEX, idx[i]);
	mnl_attr_nest_end(nlh, t);
	return nlh->nlmsg_len;
}

int nls_set_optional(struct nls *s, uint32_t dev_index, uint32_t port, const uint32_t *idx, size_t n)
{
	uint8_t req[4096] __attribute__((aligned(4)));
	size_t len;

	if (s->replay)
		return -EOPNOTSUPP;
	if (!(len = nls_optional_request(req, sizeof req, ++s->seq, dev_index, port, idx, n)))
		return -EMSGSIZE;
	if (mnl_socket_sendto(s->sk, req, len) < 0)
		return -errno;
	s->len = 0;
	return gather(s);     /* the STAT_SET answer, or the error */
}
