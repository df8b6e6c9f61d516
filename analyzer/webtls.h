/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * webtls.h — the transport of `--web-config FILE` for prom.c: TLS on the
 * accepted sockets (OpenSSL), and HTTP basic authentication checked
 * against bcrypt hashes with crypt(3) (libcrypt).
 *
 * Everything is non-blocking: the handshake moves on when poll() says the
 * socket is ready (webtls_handshake() tells which event it waits for), so
 * a slow or half-open client never holds up the capture loop; it only
 * keeps one of prom.c's connection slots, the oldest of which goes when
 * they are all taken.
 *
 * A (user, password) that crypt() verified is remembered (as its SHA-256)
 * so that the next scrapes skip bcrypt's deliberate slowness; so are the
 * last 8 wrong ones, so that a scraper set up with a wrong password does not
 * cost a bcrypt run at every scrape.  Each other wrong password does (with
 * the hash's cost, tens to hundreds of ms of the serving loop).
 */
#ifndef ROCETOP_WEBTLS_H
#define ROCETOP_WEBTLS_H

#include <stddef.h>
#include <sys/types.h>

struct webtls;
struct webconn;

/* Reads FILE (webcfg.h) and loads its certificate and key.  NULL with
 * err[] set: one line, naming the file and what is wrong. */
struct webtls *webtls_load(const char *file, char *err, size_t errcap);
void webtls_free(struct webtls *w);

/* A new connection on fd; NULL when w serves no TLS, or *failed is set. */
struct webconn *webtls_accept(struct webtls *w, int fd, int *failed);
/* 1: done; 0: again when fd is ready for *events (POLLIN or POLLOUT); -1: failed. */
int webtls_handshake(struct webconn *c, short *events);
int webtls_done(const struct webconn *c);
/* As recv() and send(): -1 with errno EAGAIN when the socket is not ready. */
ssize_t webtls_recv(struct webconn *c, void *buf, size_t n);
ssize_t webtls_send(struct webconn *c, const void *buf, size_t n);
/* Sends close_notify (without waiting for the peer's) and frees c. */
void webtls_close(struct webconn *c);

/* 1 when the request (its header lines, NUL-terminated) may be answered:
 * no basic_auth_users, or an Authorization: Basic header with a user's
 * right password. */
int webtls_authorized(struct webtls *w, const char *req);

#endif
