/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ctl.h — the control protocol between `rocegen conform` and `rocetarget`
 * (the agent that owns the adapter's queue pairs on the adapter's host).
 *
 * TCP, one line per request and one line per reply, ASCII, '\n'-terminated,
 * at most CTL_LINE_MAX bytes.  A request is a command word followed by
 * key=value words; a reply is "ok" followed by key=value words, or "err "
 * and a reason.  Numbers are decimal or 0x-hex.  Objects are small integer
 * ids the target hands out; `reset` destroys all of them.
 *
 *   hello                                   ok proto=1 impl=NAME
 *   open [dev=NAME] [gid_index=N]           ok dev= gid= gid_index= active_mtu=
 *   mr len=N [access=wra]                   ok mr= rkey= va=        (w remote write,
 *                                                                    r remote read, a atomic)
 *   qp [depth=N]                            ok qp= qpn=             (RC, own CQ, RESET)
 *   connect qp= rqpn= rpsn= rgid=IP [psn= mtu= timeout= retry= rnr_retry= min_rnr=
 *           max_rd= max_dest_rd= gid_index= hop=]
 *                                           ok state=rts            (INIT, RTR, RTS by hand)
 *   recv qp= mr= len= [off= n= wr= sink=1]  ok                      (n receives of len bytes;
 *                                                                    sink=1: rocetarget posts each
 *                                                                    again as it completes, itself,
 *                                                                    between control lines — at
 *                                                                    most n held, never polled for;
 *                                                                    one sink per QP; the reference
 *                                                                    adapter of stress_ref.c has none)
 *   post qp= op=send|write|read|cmp_swap|fetch_add mr= len= [off= rva= rkey= cmp= swap=
 *           wr= imm= n=]                    ok      (n: the same request n times)
 *   poll qp= [max=]                         ok n= wc=WR,STATUS,OP,LEN ...   (never waits)
 *   rd mr= off= len=                        ok hex=...              (len <= CTL_RD_MAX)
 *   wr mr= off= hex=                        ok
 *   sum mr= off= len=                       ok sum=0x…              (ctl_sum of the bytes)
 *   state qp=                               ok state=reset|init|rtr|rts|sqd|sqe|err
 *   counters                                ok driver= NAME=VALUE … (hw_counters of port 1)
 *   multi REQ ; REQ …                       REPLY ; REPLY …         (each in turn; one round
 *                                                                    trip for several requests)
 *   load qp= mr= rva= rkey= n= qd= ops= min= max= seed= idx= [dur_ms=]
 *                                           ok      (the target's own workload on qp: the
 *                                                    adapter as requester, see below)
 *   lstat [qp=]                             ok running= posted= completed= errors=
 *                                              [fold= rfold= afold= rbad= rbad_k= rbad_off=
 *                                               err=STATUS]  (without qp=: all loads)
 *   reset                                   ok
 *   quit                                    (closes)
 *
 * STATUS are the names of roce_wc_status_name() ("success", "retry-exceeded",
 * "flushed", …), OP the names of roce_wr_op_name() ("send", "recv", …), so
 * the reference target built on lib/qp (tests) and the real one answer alike.
 */
#ifndef ROCE_CTL_H
#define ROCE_CTL_H

/*
 * The workload of `load` (the adapter as requester): message k (0, 1, …) of
 * QP index idx gets the op and length of ctl_wl_op()/ctl_wl_len(), at most qd
 * in flight, n in all (0: until dur_ms has passed).  ops is a mask of
 * 1 send, 2 write, 4 read, 8 fetch_add.  The remote memory at rva (rkey) is
 *   [0, S)             read area (S = max rounded up to 8); READ k reads
 *                      ctl_wl_len bytes at ctl_wl_roff
 *   [S, S + qd·S)      WRITE k goes to slot k % qd
 *   [S + qd·S, +8)     the word FETCH_ADD k adds ctl_wl_add to
 * The local MR mr holds qd slots of S bytes: SEND and WRITE k send slot k % qd
 * filled with ctl_wl_fill(); READ k lands there.  Each READ completion folds
 * ctl_sum of the bytes read into fold, each FETCH_ADD its original value:
 * fold = ctl_mix(fold ^ v), in completion (= posting) order, from fold 0;
 * rfold and afold are the same over READs only and FETCH_ADDs only.  The
 * target also holds each READ against the read area's pattern (ctl_wl_fill of
 * message UINT64_MAX): rbad READs differed, the first message rbad_k at byte
 * rbad_off.
 */
#define CTL_WL_SEND 1u
#define CTL_WL_WRITE 2u
#define CTL_WL_READ 4u
#define CTL_WL_FADD 8u

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CTL_PORT 7471
#define CTL_LINE_MAX 16384
#define CTL_RD_MAX 4096
#define CTL_PROTO 1

/* Copies the value of key= in line into buf; 1 when found, else 0. */
static inline int ctl_get(const char *line, const char *key, char *buf, size_t cap)
{
	size_t kl = strlen(key);
	const char *p = line;

	while ((p = strstr(p, key)) != NULL) {
		if ((p == line || p[-1] == ' ') && p[kl] == '=') {
			const char *v = p + kl + 1;
			size_t n = strcspn(v, " \r\n");

			if (n >= cap)
				n = cap - 1;
			memcpy(buf, v, n);
			buf[n] = 0;
			return 1;
		}
		p += kl;
	}
	return 0;
}

/* The number of key= (decimal or 0x-hex), or dflt when absent or bad. */
static inline uint64_t ctl_u64(const char *line, const char *key, uint64_t dflt)
{
	char b[64], *end;
	unsigned long long v;

	if (!ctl_get(line, key, b, sizeof(b)) || !b[0])
		return dflt;
	v = strtoull(b, &end, 0);
	return *end ? dflt : (uint64_t)v;
}

static inline int ctl_has(const char *line, const char *key)
{
	char b[2];

	return ctl_get(line, key, b, sizeof(b));
}

static inline int ctl_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Hex text to bytes; the number of bytes, or -1. */
static inline long ctl_unhex(const char *s, uint8_t *out, size_t cap)
{
	size_t n = 0;

	while (s[0] && s[0] != ' ' && s[0] != '\n') {
		int h = ctl_hexval(s[0]), l = s[1] ? ctl_hexval(s[1]) : -1;

		if (h < 0 || l < 0 || n >= cap)
			return -1;
		out[n++] = (uint8_t)(h << 4 | l);
		s += 2;
	}
	return (long)n;
}

static inline void ctl_hex(const uint8_t *b, size_t n, char *out)
{
	static const char d[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = d[b[i] >> 4];
		out[2 * i + 1] = d[b[i] & 15];
	}
	out[2 * n] = 0;
}

/* The checksum `sum` answers: FNV-1a, 64 bits. */
static inline uint64_t ctl_sum(const uint8_t *b, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

static inline uint64_t ctl_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static inline uint64_t ctl_wl_key(uint64_t seed, unsigned idx, uint64_t k, unsigned what)
{
	return ctl_mix(ctl_mix(seed ^ ((uint64_t)idx << 40)) ^ (k * 4 + what));
}

/* the op of message k: one CTL_WL_* bit of ops */
static inline unsigned ctl_wl_op(uint64_t seed, unsigned idx, uint64_t k, unsigned ops)
{
	unsigned n = 0, list[4];

	for (unsigned b = 0; b < 4; b++)
		if (ops & (1u << b))
			list[n++] = 1u << b;
	return n ? list[ctl_wl_key(seed, idx, k, 0) % n] : CTL_WL_SEND;
}

static inline uint32_t ctl_wl_len(uint64_t seed, unsigned idx, uint64_t k, unsigned ops,
				  uint32_t min, uint32_t max)
{
	if (ctl_wl_op(seed, idx, k, ops) == CTL_WL_FADD)
		return 8;
	return min + (uint32_t)(ctl_wl_key(seed, idx, k, 1) % (max - min + 1));
}

static inline uint64_t ctl_wl_roff(uint64_t seed, unsigned idx, uint64_t k, uint32_t slot,
				   uint32_t len)
{
	return ctl_wl_key(seed, idx, k, 2) % (slot - len + 1);
}

static inline uint64_t ctl_wl_add(uint64_t seed, unsigned idx, uint64_t k)
{
	return ctl_wl_key(seed, idx, k, 3) >> 16;
}

/* the bytes of message k (k = UINT64_MAX: the read area), from byte offset from */
static inline void ctl_wl_fill(uint64_t seed, unsigned idx, uint64_t k, uint64_t from, uint8_t *b,
			       uint32_t len)
{
	uint64_t base = ctl_mix(seed ^ ((uint64_t)idx << 32) ^ ctl_mix(k));

	for (uint32_t j = 0; j < len; j++) {
		uint64_t o = from + j;

		b[j] = (uint8_t)(ctl_mix(base + o / 8) >> (8 * (o % 8)));
	}
}

#endif /* ROCE_CTL_H */
