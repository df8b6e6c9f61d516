/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ifinfo.c — interface and neighbour information from the kernel (ifinfo.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <linux/neighbour.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "ifinfo.h"

int ifinfo_get(const char *name, struct ifinfo *ii, char *err, size_t errlen)
{
	struct ifaddrs *ifa, *a;
	struct ifreq ifr;
	int fd;

	memset(ii, 0, sizeof(*ii));
	if (!name || strlen(name) >= IF_NAMESIZE) {
		snprintf(err, errlen, "bad interface name");
		return -1;
	}
	snprintf(ii->name, sizeof(ii->name), "%s", name);
	ii->ifindex = if_nametoindex(name);
	if (!ii->ifindex) {
		snprintf(err, errlen, "%s: no such interface", name);
		return -1;
	}

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (!ioctl(fd, SIOCGIFHWADDR, &ifr)) {
		memcpy(ii->mac, ifr.ifr_hwaddr.sa_data, 6);
		ii->has_mac = 1;
	}
	if (!ioctl(fd, SIOCGIFMTU, &ifr))
		ii->mtu = ifr.ifr_mtu;
	if (!ioctl(fd, SIOCGIFFLAGS, &ifr))
		ii->up = !!(ifr.ifr_flags & IFF_UP);
	close(fd);

	if (getifaddrs(&ifa)) {
		snprintf(err, errlen, "getifaddrs: %s", strerror(errno));
		return -1;
	}
	for (a = ifa; a; a = a->ifa_next) {
		if (!a->ifa_addr || strcmp(a->ifa_name, name))
			continue;
		if (a->ifa_addr->sa_family == AF_INET && !ii->has_v4) {
			memcpy(ii->v4, &((struct sockaddr_in *)(void *)a->ifa_addr)->sin_addr, 4);
			ii->has_v4 = 1;
		} else if (a->ifa_addr->sa_family == AF_INET6) {
			const uint8_t *v6 = ((struct sockaddr_in6 *)(void *)a->ifa_addr)->sin6_addr.s6_addr;
			int ll = v6[0] == 0xfe && (v6[1] & 0xc0) == 0x80;

			if (ll && !ii->has_v6ll) {
				memcpy(ii->v6ll, v6, 16);
				ii->has_v6ll = 1;
			}
			if (!ii->has_v6 || (!ll && ii->v6[0] == 0xfe)) {
				memcpy(ii->v6, v6, 16);
				ii->has_v6 = 1;
			}
		}
	}
	freeifaddrs(ifa);
	return 0;
}

/* ---- neighbour table ---------------------------------------------------------- */

#define NUD_USABLE (NUD_REACHABLE | NUD_STALE | NUD_DELAY | NUD_PROBE | NUD_PERMANENT | NUD_NOARP)

static int nl_lookup(unsigned ifindex, int ipver, const uint8_t *ip, uint8_t mac[6])
{
	struct {
		struct nlmsghdr nh;
		struct ndmsg nd;
	} req;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	unsigned alen = ipver == 4 ? 4 : 16;
	uint8_t buf[16384];
	int fd, found = 0, done = 0;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -1;
	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ndmsg));
	req.nh.nlmsg_type = RTM_GETNEIGH;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.nh.nlmsg_seq = 1;
	req.nd.ndm_family = ipver == 4 ? AF_INET : AF_INET6;
	req.nd.ndm_ifindex = (int)ifindex;
	if (sendto(fd, &req, req.nh.nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return -1;
	}
	while (!done) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&pfd, 1, 1000) <= 0)
			break;
		n = recv(fd, buf, sizeof(buf), 0);
		if (n <= 0)
			break;
		for (struct nlmsghdr *nh = (struct nlmsghdr *)(void *)buf; NLMSG_OK(nh, (unsigned)n);
		     nh = NLMSG_NEXT(nh, n)) {
			struct ndmsg *nd;
			struct rtattr *rta;
			int rlen;
			const uint8_t *dst = NULL, *ll = NULL;
			unsigned dlen = 0, lllen = 0;

			if (nh->nlmsg_type == NLMSG_DONE || nh->nlmsg_type == NLMSG_ERROR) {
				done = 1;
				break;
			}
			if (nh->nlmsg_type != RTM_NEWNEIGH)
				continue;
			nd = NLMSG_DATA(nh);
			if ((unsigned)nd->ndm_ifindex != ifindex || !(nd->ndm_state & NUD_USABLE))
				continue;
			rlen = (int)(nh->nlmsg_len - NLMSG_LENGTH(sizeof(*nd)));
			for (rta = (struct rtattr *)(void *)((char *)nd + NLMSG_ALIGN(sizeof(*nd)));
			     RTA_OK(rta, rlen); rta = RTA_NEXT(rta, rlen)) {
				if (rta->rta_type == NDA_DST) {
					dst = RTA_DATA(rta);
					dlen = (unsigned)RTA_PAYLOAD(rta);
				} else if (rta->rta_type == NDA_LLADDR) {
					ll = RTA_DATA(rta);
					lllen = (unsigned)RTA_PAYLOAD(rta);
				}
			}
			if (dst && ll && dlen == alen && lllen == 6 && !memcmp(dst, ip, alen)) {
				memcpy(mac, ll, 6);
				found = 1;
			}
		}
	}
	close(fd);
	return found;
}

/* /proc/net/arp: "IP address  HW type  Flags  HW address  Mask  Device" */
static int arp_lookup(const char *ifname, const uint8_t *ip, uint8_t mac[6])
{
	FILE *f = fopen("/proc/net/arp", "r");
	char line[256], want[INET_ADDRSTRLEN];
	int found = 0;

	if (!f)
		return -1;
	inet_ntop(AF_INET, ip, want, sizeof(want));
	while (fgets(line, sizeof(line), f)) {
		char a[64], hw[64], dev[64];
		unsigned type, flags, m[6];

		if (sscanf(line, "%63s 0x%x 0x%x %63s %*s %63s", a, &type, &flags, hw, dev) != 5)
			continue;
		if (strcmp(a, want) || strcmp(dev, ifname) || !(flags & 0x2))
			continue;
		if (sscanf(hw, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3], &m[4], &m[5]) != 6)
			continue;
		for (int i = 0; i < 6; i++)
			mac[i] = (uint8_t)m[i];
		found = 1;
	}
	fclose(f);
	return found;
}

int ifinfo_neigh_lookup(unsigned ifindex, int ipver, const uint8_t *ip, uint8_t mac[6])
{
	char name[IF_NAMESIZE];
	int r = nl_lookup(ifindex, ipver, ip, mac);

	if (r != 0 || ipver != 4 || !if_indextoname(ifindex, name))
		return r;
	return arp_lookup(name, ip, mac);
}

/* One empty UDP datagram to the peer's discard port, through ii only: the
 * kernel resolves the peer's MAC to send it. */
static void nudge(const struct ifinfo *ii, int ipver, const uint8_t *ip)
{
	int fd = socket(ipver == 4 ? AF_INET : AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return;
	if (setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, ii->name, (socklen_t)strlen(ii->name)) == 0) {
		if (ipver == 4) {
			struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(9) };

			memcpy(&sin.sin_addr, ip, 4);
			sendto(fd, "", 0, 0, (struct sockaddr *)&sin, sizeof(sin));
		} else {
			struct sockaddr_in6 s6 = { .sin6_family = AF_INET6, .sin6_port = htons(9) };

			memcpy(&s6.sin6_addr, ip, 16);
			if (ip[0] == 0xfe && (ip[1] & 0xc0) == 0x80)
				s6.sin6_scope_id = ii->ifindex;
			sendto(fd, "", 0, 0, (struct sockaddr *)&s6, sizeof(s6));
		}
	}
	close(fd);
}

int ifinfo_peer_mac(const struct ifinfo *ii, int ipver, const uint8_t *ip, int timeout_ms,
		    uint8_t mac[6], char *err, size_t errlen)
{
	char a[INET6_ADDRSTRLEN];
	int waited = 0;

	if (ifinfo_neigh_lookup(ii->ifindex, ipver, ip, mac) == 1)
		return 0;
	nudge(ii, ipver, ip);
	while (waited < timeout_ms) {
		struct timespec ts = { 0, 20 * 1000000L };

		nanosleep(&ts, NULL);
		waited += 20;
		if (ifinfo_neigh_lookup(ii->ifindex, ipver, ip, mac) == 1)
			return 0;
	}
	inet_ntop(ipver == 4 ? AF_INET : AF_INET6, ip, a, sizeof(a));
	snprintf(err, errlen,
		 "%s: no neighbour entry for %s (is it on the link?); give its MAC with --dmac",
		 ii->name, a);
	return -1;
}
