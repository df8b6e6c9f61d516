/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * webtls.c — TLS (OpenSSL) and basic authentication (crypt(3) with
 * bcrypt) for the Prometheus endpoint; see webtls.h.
 *
 * client_auth_type maps onto OpenSSL's verify modes as Go's tls.ClientAuthType
 * is documented: Request and RequireAny ask for a certificate without
 * checking it against client_ca_file; VerifyIfGiven and RequireAndVerify check it.
 */
#include <crypt.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include "webcfg.h"
#include "webtls.h"

struct verified {
	int ok;
	unsigned char sha[32];          /* of the password crypt() accepted */
};

struct webtls {
	struct webcfg *cfg;
	SSL_CTX *ctx;                   /* NULL: plain HTTP */
	struct verified *cache;         /* one per cfg->users[] */
	struct {                        /* wrong passwords lately tried, so that a scraper */
		size_t user;            /* retrying one does not run bcrypt each time */
		unsigned char sha[32];
		int used;
	} wrong[8];
	unsigned nwrong;
	struct crypt_data *cd;
};

struct webconn {
	SSL *ssl;
	int done;
};

static void ssl_err(char *err, size_t errcap, const char *file, const char *what)
{
	char e[256] = "unknown error";
	unsigned long c = ERR_get_error();

	if (c)
		ERR_error_string_n(c, e, sizeof e);
	ERR_clear_error();
	snprintf(err, errcap, "%s: %s: %s", file, what, e);
}

static int accept_any(int ok, X509_STORE_CTX *x)
{
	(void)ok;
	(void)x;
	return 1;
}

static int make_ctx(struct webtls *w, const char *file, char *err, size_t errcap)
{
	static const int ver[] = { TLS1_VERSION, TLS1_1_VERSION, TLS1_2_VERSION, TLS1_3_VERSION };
	const struct webcfg *c = w->cfg;
	int mode = SSL_VERIFY_NONE;
	SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());

	if (!(w->ctx = ctx)) {
		ssl_err(err, errcap, file, "cannot make a TLS context");
		return -1;
	}
	SSL_CTX_set_min_proto_version(ctx, ver[c->min_version - 10]);
	SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION);
	SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	if (SSL_CTX_use_certificate_chain_file(ctx, c->cert_file) != 1) {
		ssl_err(err, errcap, file, c->cert_file);
		return -1;
	}
	if (SSL_CTX_use_PrivateKey_file(ctx, c->key_file, SSL_FILETYPE_PEM) != 1) {
		ssl_err(err, errcap, file, c->key_file);
		return -1;
	}
	if (SSL_CTX_check_private_key(ctx) != 1) {
		ssl_err(err, errcap, file, "key_file does not match cert_file");
		return -1;
	}
	if (c->client_ca_file) {
		STACK_OF(X509_NAME) *names = SSL_load_client_CA_file(c->client_ca_file);

		if (!names || SSL_CTX_load_verify_locations(ctx, c->client_ca_file, NULL) != 1) {
			sk_X509_NAME_pop_free(names, X509_NAME_free);
			ssl_err(err, errcap, file, c->client_ca_file);
			return -1;
		}
		SSL_CTX_set_client_CA_list(ctx, names);
	}
	switch (c->client_auth) {
	case WEB_NO_CLIENT_CERT: break;
	case WEB_REQUEST_CLIENT_CERT: mode = SSL_VERIFY_PEER; break;
	case WEB_REQUIRE_ANY_CLIENT_CERT: mode = SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT; break;
	case WEB_VERIFY_CLIENT_CERT_IF_GIVEN: mode = SSL_VERIFY_PEER; break;
	case WEB_REQUIRE_AND_VERIFY_CLIENT_CERT: mode = SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT; break;
	}
	if (mode != SSL_VERIFY_NONE && !c->client_ca_file &&
	    (c->client_auth == WEB_VERIFY_CLIENT_CERT_IF_GIVEN || c->client_auth == WEB_REQUIRE_AND_VERIFY_CLIENT_CERT)) {
		snprintf(err, errcap, "%s: client_auth_type verifies client certificates: it needs client_ca_file",
			 file);
		return -1;
	}
	SSL_CTX_set_verify(ctx, mode,
			   c->client_auth == WEB_REQUEST_CLIENT_CERT || c->client_auth == WEB_REQUIRE_ANY_CLIENT_CERT
				   ? accept_any : NULL);
	return 0;
}

struct webtls *webtls_load(const char *file, char *err, size_t errcap)
{
	struct webtls *w = calloc(1, sizeof *w);

	if (!w) {
		snprintf(err, errcap, "out of memory");
		return NULL;
	}
	if (!(w->cfg = webcfg_load(file, err, errcap))) {
		free(w);
		return NULL;
	}
	if (w->cfg->nusers && (!(w->cache = calloc(w->cfg->nusers, sizeof *w->cache)) ||
			       !(w->cd = calloc(1, sizeof *w->cd)))) {
		snprintf(err, errcap, "out of memory");
		webtls_free(w);
		return NULL;
	}
	if (w->cfg->tls && make_ctx(w, file, err, errcap) < 0) {
		webtls_free(w);
		return NULL;
	}
	return w;
}

void webtls_free(struct webtls *w)
{
	if (!w)
		return;
	SSL_CTX_free(w->ctx);
	webcfg_free(w->cfg);
	if (w->cd)
		OPENSSL_cleanse(w->cd, sizeof *w->cd);
	free(w->cd);
	free(w->cache);
	free(w);
}

/* ---- TLS ------------------------------------------------------------------------------------- */

/* OpenSSL writes with write(), not send(MSG_NOSIGNAL): a scraper that went
 * away would kill rocetop with SIGPIPE.  Around each OpenSSL call SIGPIPE is
 * blocked, and one it raised is taken back before it is unblocked. */
struct nopipe {
	sigset_t old;
	int was_pending;
};

static void nopipe_begin(struct nopipe *n)
{
	sigset_t s, p;

	sigemptyset(&s);
	sigaddset(&s, SIGPIPE);
	n->was_pending = sigpending(&p) == 0 && sigismember(&p, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &s, &n->old);
}

static void nopipe_end(struct nopipe *n)
{
	static const struct timespec now = { 0, 0 };
	sigset_t s, p;

	sigemptyset(&s);
	sigaddset(&s, SIGPIPE);
	if (!n->was_pending && sigpending(&p) == 0 && sigismember(&p, SIGPIPE))
		while (sigtimedwait(&s, NULL, &now) < 0 && errno == EINTR)
			;
	pthread_sigmask(SIG_SETMASK, &n->old, NULL);
}

struct webconn *webtls_accept(struct webtls *w, int fd, int *failed)
{
	struct webconn *c;

	*failed = 0;
	if (!w || !w->ctx)
		return NULL;
	if (!(c = calloc(1, sizeof *c)) || !(c->ssl = SSL_new(w->ctx)) || SSL_set_fd(c->ssl, fd) != 1) {
		if (c)
			SSL_free(c->ssl);
		free(c);
		ERR_clear_error();
		*failed = 1;
		return NULL;
	}
	SSL_set_accept_state(c->ssl);
	return c;
}

int webtls_handshake(struct webconn *c, short *events)
{
	struct nopipe np;
	int rc;

	nopipe_begin(&np);
	rc = SSL_do_handshake(c->ssl);
	nopipe_end(&np);

	if (rc == 1) {
		c->done = 1;
		return 1;
	}
	switch (SSL_get_error(c->ssl, rc)) {
	case SSL_ERROR_WANT_READ: *events = POLLIN; return 0;
	case SSL_ERROR_WANT_WRITE: *events = POLLOUT; return 0;
	default: ERR_clear_error(); return -1;   /* plain HTTP, a bad certificate, a reset */
	}
}

int webtls_done(const struct webconn *c)
{
	return c->done;
}

static ssize_t io_result(struct webconn *c, int rc)
{
	switch (SSL_get_error(c->ssl, rc)) {
	case SSL_ERROR_WANT_READ:
	case SSL_ERROR_WANT_WRITE: errno = EAGAIN; return -1;
	case SSL_ERROR_ZERO_RETURN: return 0;
	default: ERR_clear_error(); errno = ECONNRESET; return -1;
	}
}

ssize_t webtls_recv(struct webconn *c, void *buf, size_t n)
{
	size_t got = 0;

	/* all that is decrypted, so that nothing waits in OpenSSL's buffer unseen by poll() */
	while (got < n) {
		struct nopipe np;
		int rc;

		nopipe_begin(&np);   /* SSL_read() may write: a TLS 1.3 key update's answer */
		rc = SSL_read(c->ssl, (char *)buf + got, n - got > 65536 ? 65536 : (int)(n - got));
		nopipe_end(&np);

		if (rc <= 0) {
			if (got)
				return (ssize_t)got;
			return io_result(c, rc);
		}
		got += (size_t)rc;
	}
	return (ssize_t)got;
}

ssize_t webtls_send(struct webconn *c, const void *buf, size_t n)
{
	struct nopipe np;
	int rc, e;

	nopipe_begin(&np);
	rc = SSL_write(c->ssl, buf, n > 65536 ? 65536 : (int)n);
	e = errno;
	nopipe_end(&np);
	errno = e;
	return rc > 0 ? rc : io_result(c, rc);
}

void webtls_close(struct webconn *c)
{
	if (!c)
		return;
	if (c->done) {
		struct nopipe np;

		nopipe_begin(&np);
		SSL_shutdown(c->ssl);
		nopipe_end(&np);
	}
	ERR_clear_error();
	SSL_free(c->ssl);
	free(c);
}

/* ---- basic authentication -------------------------------------------------------------------- */

static int b64val(int ch)
{
	if (ch >= 'A' && ch <= 'Z')
		return ch - 'A';
	if (ch >= 'a' && ch <= 'z')
		return ch - 'a' + 26;
	if (ch >= '0' && ch <= '9')
		return ch - '0' + 52;
	return ch == '+' ? 62 : ch == '/' ? 63 : -1;
}

/* RFC 4648 base64 of s[0..n) into out (cap bytes, NUL-terminated); its length or -1. */
static int b64decode(const char *s, size_t n, char *out, size_t cap)
{
	size_t o = 0, pad = 0;
	unsigned acc = 0, bits = 0;

	while (n && s[n - 1] == '=' && pad < 2)
		n--, pad++;
	for (size_t i = 0; i < n; i++) {
		int v = b64val((unsigned char)s[i]);

		if (v < 0)
			return -1;
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (o + 1 >= cap)
				return -1;
			out[o++] = (char)((acc >> bits) & 0xff);
		}
	}
	out[o] = 0;
	return (int)o;
}

/* The Authorization header's Basic credentials into buf ("user:password"). */
static int credentials(const char *req, char *buf, size_t cap)
{
	static const char h[] = "authorization:";
	const char *l = strchr(req, '\n');

	for (; l; l = strchr(l, '\n')) {
		const char *v, *e;

		l++;
		if (strncasecmp(l, h, sizeof h - 1))
			continue;
		v = l + sizeof h - 1;
		v += strspn(v, " \t");
		if (strncasecmp(v, "Basic", 5) || (v[5] != ' ' && v[5] != '\t'))
			return -1;
		v += 5;
		v += strspn(v, " \t");
		e = v + strcspn(v, " \t\r\n");
		return b64decode(v, (size_t)(e - v), buf, cap);
	}
	return -1;
}

int webtls_authorized(struct webtls *w, const char *req)
{
	char cred[1024], *pw;
	unsigned char sha[32];
	int n, ok = 0;

	if (!w || !w->cfg->auth)
		return 1;
	if ((n = credentials(req, cred, sizeof cred)) < 0 || !(pw = memchr(cred, ':', (size_t)n)))
		goto out;
	*pw++ = 0;
	for (size_t i = 0; i < w->cfg->nusers; i++) {
		const struct webcfg_user *u = &w->cfg->users[i];
		struct verified *v = &w->cache[i];
		const char *h;

		if (strcmp(u->name, cred))
			continue;
		if (EVP_Digest(pw, strlen(pw), sha, NULL, EVP_sha256(), NULL) != 1)
			break;
		if (v->ok && !CRYPTO_memcmp(v->sha, sha, sizeof sha)) {
			ok = 1;
			break;
		}
		for (unsigned k = 0; k < sizeof w->wrong / sizeof w->wrong[0]; k++)
			if (w->wrong[k].used && w->wrong[k].user == i && !CRYPTO_memcmp(w->wrong[k].sha, sha, sizeof sha))
				goto out;
		h = crypt_r(pw, u->hash, w->cd);
		if (h && strlen(h) == strlen(u->hash) && !CRYPTO_memcmp(h, u->hash, strlen(h))) {
			memcpy(v->sha, sha, sizeof sha);
			v->ok = ok = 1;
		} else {
			unsigned k = w->nwrong++ % (sizeof w->wrong / sizeof w->wrong[0]);

			w->wrong[k].user = i;
			w->wrong[k].used = 1;
			memcpy(w->wrong[k].sha, sha, sizeof sha);
		}
		break;
	}
out:
	OPENSSL_cleanse(cred, sizeof cred);
	return ok;
}
