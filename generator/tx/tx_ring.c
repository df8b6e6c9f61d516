/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tx_ring.c — the fast transmit paths on AF_PACKET (Linux packet(7)):
 *
 *   ring  PACKET_TX_RING with TPACKET_V3: a ring of fixed-size slots shared
 *         with the kernel.  Each frame is copied into the next free slot
 *         (tp_len set, tp_status = TP_STATUS_SEND_REQUEST); one blocking
 *         send(fd, NULL, 0, 0) per batch makes the kernel transmit every
 *         requested slot and returns once they have all completed, so the
 *         slots are free again.  TX with V3 needs tp_next_offset = 0 and the
 *         frame data at TPACKET_ALIGN(sizeof(struct tpacket3_hdr)).
 *   mmsg  one sendmmsg() per batch, iovecs pointing at the caller's frames.
 *         The fallback when the ring cannot be set up.
 *
 * When the stack is full (ENOBUFS: a qdisc, or a veth peer's backlog) the
 * frame is lost, as on a NIC whose queue overflows: it is counted in
 * tx_stats.drops.  sendmmsg first retries the frame a few times.
 *
 * Both sockets are bound to the named interface with protocol 0, so they
 * receive nothing and cannot send anywhere else.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include "tx_impl.h"

#define RING_MIN_FRAMES 512
#define MMSG_MAX 256

struct ring_priv {
	int fd;
	uint8_t *map;
	size_t map_len;
	uint32_t frame_size;
	uint32_t frame_nr;
	uint32_t data_off;
	uint32_t head;
};

struct mmsg_priv {
	int fd;
	struct mmsghdr msgs[MMSG_MAX];
	struct iovec iov[MMSG_MAX];
};

/* A raw socket bound to the interface, receiving nothing. */
static int bound_socket(struct tx *t, int *fdp)
{
	int fd;

	if (!if_nametoindex(t->cfg.iface))
		return tx_fail(t, "%s: no such interface", t->cfg.iface);
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return tx_fail(t, "AF_PACKET socket: %s%s", strerror(errno),
			       errno == EPERM || errno == EACCES ? TX_PRIV_HINT : "");
	if (t->cfg.qdisc_bypass) {
		int one = 1;

		if (setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one)))
			fprintf(stderr, "rocegen: warning: PACKET_QDISC_BYPASS: %s\n", strerror(errno));
	}
	*fdp = fd;
	return 0;
}

static int bind_iface(struct tx *t, int fd)
{
	struct sockaddr_ll sll;

	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = 0;
	sll.sll_ifindex = (int)if_nametoindex(t->cfg.iface);
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)))
		return tx_fail(t, "bind to %s: %s", t->cfg.iface, strerror(errno));
	return 0;
}

/* ---- sendmmsg ---------------------------------------------------------------- */

static int mmsg_open(struct tx *t)
{
	struct mmsg_priv *p = calloc(1, sizeof(*p));
	int sndbuf = 4 << 20;

	if (!p)
		return tx_fail(t, "out of memory");
	p->fd = -1;
	if (bound_socket(t, &p->fd) || bind_iface(t, p->fd)) {
		if (p->fd >= 0)
			close(p->fd);
		free(p);
		return -1;
	}
	setsockopt(p->fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	t->priv = p;
	return 0;
}

static int mmsg_send(struct tx *t, const uint8_t *const frames[], const uint32_t lens[], unsigned n)
{
	struct mmsg_priv *p = t->priv;
	unsigned done = 0;
	int retries = 0;

	while (done < n) {
		unsigned k = n - done < MMSG_MAX ? n - done : MMSG_MAX;
		int r;

		for (unsigned i = 0; i < k; i++) {
			p->iov[i].iov_base = (void *)(uintptr_t)frames[done + i];
			p->iov[i].iov_len = lens[done + i];
			memset(&p->msgs[i].msg_hdr, 0, sizeof(p->msgs[i].msg_hdr));
			p->msgs[i].msg_hdr.msg_iov = &p->iov[i];
			p->msgs[i].msg_hdr.msg_iovlen = 1;
		}
		r = sendmmsg(p->fd, p->msgs, k, 0);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS || errno == EAGAIN) {
				/* the stack (or a veth peer's backlog) is full: push
				 * back a little, then count the frame as dropped */
				if (retries++ < 64) {
					sched_yield();
					continue;
				}
				retries = 0;
				t->st.drops++;
				done++;
				continue;
			}
			t->st.errors += n - done;
			return tx_fail(t, "sendmmsg on %s: %s", t->cfg.iface, strerror(errno));
		}
		retries = 0;
		for (int i = 0; i < r; i++) {
			t->st.frames++;
			t->st.bytes += lens[done + (unsigned)i];
		}
		done += (unsigned)r;
	}
	return (int)n;
}

static void mmsg_close(struct tx *t)
{
	struct mmsg_priv *p = t->priv;

	close(p->fd);
	free(p);
}

const struct tx_ops tx_mmsg_ops = {
	.name = "mmsg",
	.open = mmsg_open,
	.send = mmsg_send,
	.flush = NULL,
	.close = mmsg_close,
};

/* ---- TPACKET_V3 TX ring ------------------------------------------------------------ */

static uint32_t pow2_at_least(uint32_t v)
{
	uint32_t p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

static int ring_setup(struct tx *t, struct ring_priv *p)
{
	struct tpacket_req3 req;
	int ver = TPACKET_V3;
	long page = sysconf(_SC_PAGESIZE);
	uint32_t block;

	if (page <= 0)
		page = 4096;
	p->data_off = TPACKET_ALIGN(sizeof(struct tpacket3_hdr));
	p->frame_size = pow2_at_least(p->data_off + t->cfg.max_frame);
	if (p->frame_size < 2048)
		p->frame_size = 2048;
	block = p->frame_size > 65536 ? p->frame_size : 65536;
	if (block < (uint32_t)page)
		block = (uint32_t)page;
	memset(&req, 0, sizeof(req));
	req.tp_block_size = block;
	req.tp_frame_size = p->frame_size;
	req.tp_block_nr = (RING_MIN_FRAMES * p->frame_size + block - 1) / block;
	req.tp_frame_nr = req.tp_block_nr * (block / p->frame_size);
	p->frame_nr = req.tp_frame_nr;

	if (setsockopt(p->fd, SOL_PACKET, PACKET_VERSION, &ver, sizeof(ver)))
		return tx_fail(t, "PACKET_VERSION V3: %s", strerror(errno));
	if (setsockopt(p->fd, SOL_PACKET, PACKET_TX_RING, &req, sizeof(req)))
		return tx_fail(t, "PACKET_TX_RING: %s", strerror(errno));
	p->map_len = (size_t)req.tp_block_size * req.tp_block_nr;
	p->map = mmap(NULL, p->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, p->fd, 0);
	if (p->map == MAP_FAILED) {
		p->map = NULL;
		return tx_fail(t, "mmap of the TX ring: %s", strerror(errno));
	}
	return bind_iface(t, p->fd);
}

static int ring_open(struct tx *t)
{
	struct ring_priv *p = calloc(1, sizeof(*p));

	if (!p)
		return tx_fail(t, "out of memory");
	p->fd = -1;
	if (bound_socket(t, &p->fd)) {
		free(p);
		return -1;
	}
	if (ring_setup(t, p)) {
		/* no ring (old kernel, restricted sandbox): use sendmmsg */
		fprintf(stderr, "rocegen: warning: %s; falling back to sendmmsg\n", t->err);
		if (p->map)
			munmap(p->map, p->map_len);
		close(p->fd);
		free(p);
		t->ops = &tx_mmsg_ops;
		t->kind = TX_MMSG;
		return t->ops->open(t);
	}
	t->priv = p;
	return 0;
}

static struct tpacket3_hdr *slot(struct ring_priv *p, uint32_t i)
{
	return (struct tpacket3_hdr *)(void *)(p->map + (size_t)i * p->frame_size);
}

static uint32_t slot_status(struct tpacket3_hdr *h)
{
	return __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE);
}

/* Makes the kernel transmit every requested slot; returns once they completed
 * (blocking send on a TX ring waits for its pending frames). */
static int ring_kick(struct tx *t, struct ring_priv *p)
{
	for (int tries = 0; tries < 1000; tries++) {
		ssize_t r = send(p->fd, NULL, 0, 0);

		if (r >= 0)
			return 0;
		if (errno == EINTR)
			continue;
		if (errno == ENOBUFS) {
			/* a frame was dropped (its slot is free again); go on
			 * with the slots still requested */
			t->st.drops++;
			sched_yield();
			continue;
		}
		if (errno == EAGAIN) {
			struct pollfd pfd = { .fd = p->fd, .events = POLLOUT };

			poll(&pfd, 1, 1);
			continue;
		}
		return tx_fail(t, "send on the TX ring of %s: %s", t->cfg.iface, strerror(errno));
	}
	return tx_fail(t, "TX ring of %s: the kernel keeps refusing frames", t->cfg.iface);
}

/* Waits until slot i is free; a slot the kernel rejected is counted and freed. */
static int ring_wait_slot(struct tx *t, struct ring_priv *p, uint32_t i)
{
	struct tpacket3_hdr *h = slot(p, i);

	for (int tries = 0; tries < 1000; tries++) {
		uint32_t s = slot_status(h);

		if (s == TP_STATUS_AVAILABLE)
			return 0;
		if (s & TP_STATUS_WRONG_FORMAT) {
			t->st.errors++;
			__atomic_store_n(&h->tp_status, TP_STATUS_AVAILABLE, __ATOMIC_RELEASE);
			return 0;
		}
		if (ring_kick(t, p))
			return -1;
	}
	return tx_fail(t, "TX ring of %s: slot %u stays busy", t->cfg.iface, i);
}

static int ring_send(struct tx *t, const uint8_t *const frames[], const uint32_t lens[], unsigned n)
{
	struct ring_priv *p = t->priv;
	uint32_t first = p->head;
	unsigned done = 0;

	while (done < n) {
		/* at most a ring's worth per kick */
		unsigned k = n - done < p->frame_nr ? n - done : p->frame_nr;

		first = p->head;
		for (unsigned j = 0; j < k; j++) {
			uint32_t i = p->head;
			struct tpacket3_hdr *h = slot(p, i);
			uint32_t len = lens[done + j];

			if (ring_wait_slot(t, p, i))
				return TX_EIO;
			memcpy((uint8_t *)h + p->data_off, frames[done + j], len);
			h->tp_len = len;
			h->tp_snaplen = len;
			h->tp_next_offset = 0;
			__atomic_store_n(&h->tp_status, TP_STATUS_SEND_REQUEST, __ATOMIC_RELEASE);
			p->head = i + 1 == p->frame_nr ? 0 : i + 1;
		}
		if (ring_kick(t, p))
			return TX_EIO;
		/* count what the kernel took; a rejected slot is freed and counted */
		for (unsigned j = 0; j < k; j++) {
			uint32_t i = (first + j) % p->frame_nr;
			struct tpacket3_hdr *h = slot(p, i);
			uint32_t s = slot_status(h);

			if (s & TP_STATUS_WRONG_FORMAT) {
				t->st.errors++;
				__atomic_store_n(&h->tp_status, TP_STATUS_AVAILABLE, __ATOMIC_RELEASE);
				continue;
			}
			t->st.frames++;
			t->st.bytes += lens[done + j];
		}
		done += k;
	}
	return (int)n;
}

static int ring_flush(struct tx *t)
{
	return ring_kick(t, t->priv);
}

static void ring_close(struct tx *t)
{
	struct ring_priv *p = t->priv;

	munmap(p->map, p->map_len);
	close(p->fd);
	free(p);
}

const struct tx_ops tx_ring_ops = {
	.name = "ring",
	.open = ring_open,
	.send = ring_send,
	.flush = ring_flush,
	.close = ring_close,
};
