/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rx.c — receive through libpcap in immediate mode with a peer BPF filter
 * (rx.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "rx.h"
#include "tx.h"

struct rx {
	pcap_t *pc;
	int fd;
	struct rx_stats st;
	char filter[1024];
	char err[RX_ERRLEN];
};

int rx_peer_filter(char *buf, size_t cap, int ipver, const uint8_t *peer, const char *extra)
{
	char a[INET6_ADDRSTRLEN];
	int n;

	if (ipver == 4 || ipver == 6) {
		if (!inet_ntop(ipver == 4 ? AF_INET : AF_INET6, peer, a, sizeof(a)))
			return -1;
		if (extra && *extra)
			n = snprintf(buf, cap, "(src host %s or ether proto 0x8915) and (%s)", a, extra);
		else
			n = snprintf(buf, cap, "(src host %s or ether proto 0x8915)", a);
	} else {
		n = snprintf(buf, cap, "%s", extra ? extra : "");
	}
	return n < 0 || (size_t)n >= cap ? -1 : 0;
}

static struct rx *fail(struct rx *r, char err[RX_ERRLEN], const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static struct rx *fail(struct rx *r, char err[RX_ERRLEN], const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, RX_ERRLEN, fmt, ap);
	va_end(ap);
	if (r) {
		if (r->pc)
			pcap_close(r->pc);
		free(r);
	}
	return NULL;
}

/* libpcap's immediate mode uses TPACKET_V2 rings whose slots are as large
 * as the snapshot length, so a 64 KiB snaplen would leave a few dozen slots:
 * take the interface MTU (+ Ethernet, two tags, FCS) instead. */
static int mtu_snaplen(const char *iface)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), len = 9216 + 26;

	if (fd < 0)
		return len;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", iface);
	if (!ioctl(fd, SIOCGIFMTU, &ifr) && ifr.ifr_mtu > 0 && ifr.ifr_mtu < 65000)
		len = ifr.ifr_mtu + 26;
	close(fd);
	return len;
}

struct rx *rx_open(const struct rx_cfg *cfg, char err[RX_ERRLEN])
{
	char eb[PCAP_ERRBUF_SIZE];
	struct bpf_program prog;
	struct rx *r;
	int rc;

	if (!cfg->iface)
		return fail(NULL, err, "rx: no interface");
	r = calloc(1, sizeof(*r));
	if (!r)
		return fail(NULL, err, "out of memory");
	if (rx_peer_filter(r->filter, sizeof(r->filter), cfg->peer_ipver, cfg->peer, cfg->filter))
		return fail(r, err, "rx: filter too long");
	eb[0] = 0;
	r->pc = pcap_create(cfg->iface, eb);
	if (!r->pc)
		return fail(r, err, "%s: %s", cfg->iface, eb);
	pcap_set_snaplen(r->pc, cfg->snaplen > 0 ? cfg->snaplen : mtu_snaplen(cfg->iface));
	pcap_set_promisc(r->pc, cfg->promisc ? 1 : 0);
	pcap_set_immediate_mode(r->pc, 1);
	pcap_set_buffer_size(r->pc, cfg->bufsize > 0 ? cfg->bufsize : 16 << 20);
	rc = pcap_activate(r->pc);
	if (rc < 0)
		return fail(r, err, "%s: %s%s", cfg->iface, pcap_geterr(r->pc),
			    rc == PCAP_ERROR_PERM_DENIED ? TX_PRIV_HINT : "");
	if (pcap_datalink(r->pc) != DLT_EN10MB)
		return fail(r, err, "%s: not an Ethernet interface", cfg->iface);
	if (!cfg->both_directions && pcap_setdirection(r->pc, PCAP_D_IN))
		return fail(r, err, "%s: pcap_setdirection: %s", cfg->iface, pcap_geterr(r->pc));
	if (r->filter[0]) {
		if (pcap_compile(r->pc, &prog, r->filter, 1, PCAP_NETMASK_UNKNOWN))
			return fail(r, err, "filter \"%s\": %s", r->filter, pcap_geterr(r->pc));
		rc = pcap_setfilter(r->pc, &prog);
		pcap_freecode(&prog);
		if (rc)
			return fail(r, err, "filter: %s", pcap_geterr(r->pc));
	}
	if (pcap_setnonblock(r->pc, 1, eb))
		return fail(r, err, "%s: %s", cfg->iface, eb);
	r->fd = pcap_get_selectable_fd(r->pc);
	if (r->fd < 0)
		return fail(r, err, "%s: no selectable descriptor", cfg->iface);
	return r;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int rx_next(struct rx *r, struct rx_frame *f, int timeout_ms)
{
	int64_t deadline = timeout_ms >= 0 ? now_ms() + timeout_ms : 0;

	for (;;) {
		struct pcap_pkthdr *h;
		const u_char *d;
		struct pollfd pfd = { .fd = r->fd, .events = POLLIN };
		int rc = pcap_next_ex(r->pc, &h, &d), left;

		if (rc == 1) {
			f->data = d;
			f->caplen = h->caplen;
			f->wirelen = h->len;
			f->ts = h->ts;
			r->st.frames++;
			return 1;
		}
		if (rc < 0) {
			snprintf(r->err, sizeof(r->err), "%s", pcap_geterr(r->pc));
			return -1;
		}
		if (timeout_ms < 0) {
			left = -1;
		} else {
			int64_t l = deadline - now_ms();

			if (l <= 0)
				return 0;
			left = (int)l;
		}
		if (poll(&pfd, 1, left) < 0 && errno != EINTR) {
			snprintf(r->err, sizeof(r->err), "poll: %s", strerror(errno));
			return -1;
		}
	}
}

int rx_fd(const struct rx *r)
{
	return r->fd;
}

void rx_get_stats(struct rx *r, struct rx_stats *s)
{
	struct pcap_stat ps;

	if (!pcap_stats(r->pc, &ps)) {
		r->st.kernel_drops = ps.ps_drop;
		r->st.if_drops = ps.ps_ifdrop;
	}
	*s = r->st;
}

const char *rx_error(const struct rx *r)
{
	return r->err;
}

const char *rx_filter(const struct rx *r)
{
	return r->filter;
}

void rx_close(struct rx *r)
{
	if (!r)
		return;
	pcap_close(r->pc);
	free(r);
}
