/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ifinfo.h — what rocegen learns from the system about an interface and its
 * peer: the interface's MAC, MTU and IPv4/IPv6 addresses (getifaddrs,
 * SIOCGIFHWADDR / SIOCGIFMTU), and the peer's MAC from the kernel's neighbour
 * table (rtnetlink RTM_GETNEIGH; /proc/net/arp as a fallback for IPv4).
 */
#ifndef ROCEGEN_IFINFO_H
#define ROCEGEN_IFINFO_H

#include <net/if.h>
#include <stddef.h>
#include <stdint.h>

struct ifinfo {
	char name[IF_NAMESIZE];
	unsigned ifindex;
	int mtu;
	int up;
	int has_mac;
	uint8_t mac[6];
	int has_v4;
	uint8_t v4[4];          /* the first IPv4 address */
	int has_v6;
	uint8_t v6[16];         /* a global IPv6 address, else the link-local one */
	int has_v6ll;
	uint8_t v6ll[16];       /* the link-local IPv6 address */
};

/* 0, or -1 with err filled (no such interface, …). */
int ifinfo_get(const char *name, struct ifinfo *ii, char *err, size_t errlen);

/* Looks ip (IPv4 in the first four bytes when ipver is 4) up in the
 * neighbour table of interface ifindex.  1 found (mac filled), 0 not there
 * or incomplete, -1 error. */
int ifinfo_neigh_lookup(unsigned ifindex, int ipver, const uint8_t *ip, uint8_t mac[6]);

/* The peer's MAC: from the neighbour table; when it is not there, asks the
 * kernel to resolve it by sending one empty UDP datagram to port 9 (discard)
 * of the peer through ii (and nowhere else), then polls the table for up to
 * timeout_ms.  0, or -1 with err filled. */
int ifinfo_peer_mac(const struct ifinfo *ii, int ipver, const uint8_t *ip, int timeout_ms,
		    uint8_t mac[6], char *err, size_t errlen);

#endif /* ROCEGEN_IFINFO_H */
