/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ctlauth.h — how rocetarget knows its controller: a shared key file and a
 * challenge-response with HMAC-SHA256 (OpenSSL's libcrypto) before any
 * command of ctl.h.
 *
 *   target → controller   auth hmac-sha256 nonce=HEX64        (32 fresh random bytes)
 *   controller → target   auth mac=HEX64                      HMAC-SHA256(key, CTL_AUTH_LABEL nonce)
 *   target → controller   ok auth                             then the commands of ctl.h
 *                     or  err authentication failed: …        and the connection is closed
 *
 * The key is every byte of the key file (16 to 4096 bytes); the file must be
 * a regular file that neither group nor others may read or write (mode 0600
 * or 0400), else it is refused.  Nothing after the exchange is protected: the
 * control lines and the RDMA traffic go in clear (rocetarget(8), SECURITY).
 */
#ifndef ROCE_CTLAUTH_H
#define ROCE_CTLAUTH_H

#include <stddef.h>
#include <stdint.h>

#define CTL_AUTH_NONCE 32
#define CTL_AUTH_KEY_MIN 16
#define CTL_AUTH_KEY_MAX 4096
#define CTL_AUTH_HEX 65          /* 32 bytes as hex and the NUL */
#define CTL_AUTH_LABEL "rocetarget auth 1 "
#define CTL_AUTH_TIMEOUT_MS 10000 /* for the controller's answer, and for the challenge */

struct ctl_key {
	uint8_t b[CTL_AUTH_KEY_MAX];
	size_t len;
};

/* Reads the key file path into k; 0, or -1 with one line of reason in err. */
int ctl_key_load(const char *path, struct ctl_key *k, char *err, size_t errcap);

/* A fresh nonce (getrandom); 0, or -1. */
int ctl_auth_nonce(uint8_t nonce[CTL_AUTH_NONCE]);

/* The controller's answer to nonce under k, as 64 hex digits. */
void ctl_auth_mac(const struct ctl_key *k, const uint8_t nonce[CTL_AUTH_NONCE],
		  char hex[CTL_AUTH_HEX]);

/* 1 when hex (64 hex digits) is the answer to nonce under k; compared in
 * constant time. */
int ctl_auth_ok(const struct ctl_key *k, const uint8_t nonce[CTL_AUTH_NONCE], const char *hex);

#endif /* ROCE_CTLAUTH_H */
