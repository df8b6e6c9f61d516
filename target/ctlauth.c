/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ctlauth.c — the key file and the challenge-response of ctlauth.h, shared by
 * rocetarget and rocegen's controller side (conform_live.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ctlauth.h"
#include "ctl.h"

int ctl_key_load(const char *path, struct ctl_key *k, char *err, size_t errcap)
{
	struct stat st;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0) {
		snprintf(err, errcap, "key file %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, errcap, "key file %s: not a regular file", path);
		close(fd);
		return -1;
	}
	if (st.st_mode & 077) {
		snprintf(err, errcap, "key file %s: mode %04o lets group or others in; it must be 0600 (chmod 600 %s)",
			 path, (unsigned)(st.st_mode & 07777), path);
		close(fd);
		return -1;
	}
	n = read(fd, k->b, sizeof(k->b));
	if (n >= 0 && (size_t)n == sizeof(k->b)) {
		uint8_t more;

		if (read(fd, &more, 1) > 0)
			n = -2;
	}
	close(fd);
	if (n == -1) {
		snprintf(err, errcap, "key file %s: %s", path, strerror(errno));
		return -1;
	}
	if (n < CTL_AUTH_KEY_MIN || n == -2) {
		snprintf(err, errcap, "key file %s: %s bytes; a key holds %d to %d (e.g. head -c 32 /dev/urandom)",
			 path, n == -2 ? "too many" : n == 0 ? "no" : "too few", CTL_AUTH_KEY_MIN,
			 CTL_AUTH_KEY_MAX);
		return -1;
	}
	k->len = (size_t)n;
	return 0;
}

int ctl_auth_nonce(uint8_t nonce[CTL_AUTH_NONCE])
{
	return getrandom(nonce, CTL_AUTH_NONCE, 0) == CTL_AUTH_NONCE ? 0 : -1;
}

/* 0, or -1 when libcrypto fails (then no answer is accepted) */
static int mac_raw(const struct ctl_key *k, const uint8_t nonce[CTL_AUTH_NONCE], uint8_t out[32])
{
	uint8_t msg[sizeof(CTL_AUTH_LABEL) - 1 + CTL_AUTH_NONCE];
	unsigned olen = 32;

	memcpy(msg, CTL_AUTH_LABEL, sizeof(CTL_AUTH_LABEL) - 1);
	memcpy(msg + sizeof(CTL_AUTH_LABEL) - 1, nonce, CTL_AUTH_NONCE);
	if (!HMAC(EVP_sha256(), k->b, (int)k->len, msg, sizeof(msg), out, &olen) || olen != 32) {
		memset(out, 0, 32);
		return -1;
	}
	return 0;
}

void ctl_auth_mac(const struct ctl_key *k, const uint8_t nonce[CTL_AUTH_NONCE], char hex[CTL_AUTH_HEX])
{
	uint8_t m[32];

	(void)mac_raw(k, nonce, m);   /* on failure, zeros: the target refuses them */
	ctl_hex(m, sizeof(m), hex);
}

int ctl_auth_ok(const struct ctl_key *k, const uint8_t nonce[CTL_AUTH_NONCE], const char *hex)
{
	uint8_t want[32], got[32];

	if (strlen(hex) != 64 || ctl_unhex(hex, got, sizeof(got)) != 32)
		return 0;
	if (mac_raw(k, nonce, want))
		return 0;
	return CRYPTO_memcmp(want, got, sizeof(want)) == 0;
}
