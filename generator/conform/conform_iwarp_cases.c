/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * conform_iwarp_cases.c — the iWARP catalogue (conform_iwarp.h).  rocegen
 * is the MPA initiator and the RDMAP requester; the peer is judged as MPA
 * responder and as the data sink / source of tagged and untagged messages.
 *
 *   mpa.*    negotiation (RFC 5044 7.1, RFC 6581): plain rev 2, CRC,
 *            markers, markers + CRC, peer-to-peer RTR, rev 1, an unknown
 *            revision, reject
 *   llp.*    FPDU errors: CRC, marker                    → LLP/MPA Terminate
 *   ddp.*    tagged STag/bounds, untagged QN/MSN/length  → DDP Terminate
 *   rdmap.*  Read Request STag/bounds                    → RDMAP Terminate;
 *            a Terminate from us (the peer closes, no Terminate back);
 *            READs beyond the peer's IRD
 *
 * Each fault case expects the Terminate RFC 5040 7.2 / RFC 5041 7.2 /
 * RFC 5044 8 name for it, followed by the peer closing the connection.
 */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include "conform_iwarp.h"

#define L_RDMAP ROCE_TERM_RDMAP
#define L_DDP ROCE_TERM_DDP
#define L_LLP ROCE_TERM_LLP

/* The peer closes fd (after its MPA reject): 1, or 0 in s seconds. */
static int fd_closes(int fd, double s)
{
	uint8_t b[512];

	for (int t = 0; t < (int)(s * 20); t++) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, 50) > 0 && recv(fd, b, sizeof(b), 0) <= 0)
			return 1;
	}
	return 0;
}

/* Connected with the region known: 0.  Else the verdict is set: -1. */
static int up(struct cfi *x, const char *args)
{
	int rc = cfi_connect(x, args);

	if (rc > 0) {
		cf_unsup(x->c, "the peer refused the connection (%s): %s", args[0] ? args : "plain request",
			 x->w.why);
		return -1;
	}
	return rc < 0 || cfi_region(x) ? -1 : 0;
}

/* ---- MPA negotiation ------------------------------------------------------------- */

/* Connected with args and FPDUs both ways: 1.  Else FAIL (or ERROR): 0. */
static int negotiated(struct cfi *x, const char *args, const char *what)
{
	struct iw *w = &x->w;
	int rc = cfi_connect(x, args);

	if (rc > 0) {
		cf_fail(x->c, "%s: the peer refused it: %s", what, w->why);
		return 0;
	}
	if (rc < 0 || cfi_region(x))
		return 0;
	cf_metric(x->c, "peer_ird", w->peer_ird, "");
	cf_metric(x->c, "peer_ord", w->peer_ord, "");
	if (!cfi_alive(x)) {
		cf_fail(x->c, "%s: negotiated (rev %u, CRC %s), but no valid FPDU came back: %s", what, w->rev,
			w->crc ? "on" : "off", w->why[0] ? w->why : "timed out");
		return 0;
	}
	return 1;
}

static void pass_negotiated(struct cfi *x, const char *what)
{
	const struct iw *w = &x->w;

	cf_pass(x->c, "%s: rev %u, CRC %s (reply C=%d), IRD/ORD %u/%u; FPDUs both ways", what, w->rev,
		w->crc ? "on" : "off", !!(w->rep_flags & ROCE_MPA_FLAG_C), w->peer_ird, w->peer_ord);
}

static void mpa_plain(struct cfi *x)
{
	if (negotiated(x, "", "rev 2 request, no CRC, no markers"))
		pass_negotiated(x, "rev 2 request, no CRC, no markers");
}

/* RFC 5044 7.1: CRC is used when either side asks for it. */
static void mpa_crc(struct cfi *x)
{
	if (!negotiated(x, "--crc", "request with C"))
		return;
	if (!x->w.crc)
		cf_fail(x->c, "CRC asked for but not in use");
	else
		pass_negotiated(x, "request with C");
}

static void markers_case(struct cfi *x, const char *args)
{
	struct iw *w = &x->w;
	int rc = cfi_connect(x, args);

	if (rc > 0) {
		cf_unsup(x->c, "the peer refused an MPA request with M (%s): it does not place markers", w->why);
		return;
	}
	if (rc < 0 || cfi_region(x))
		return;
	if (!cfi_alive(x)) {
		cf_fail(x->c, "markers negotiated, but no valid FPDU came back: %s", w->why[0] ? w->why : "timed out");
		return;
	}
	cf_metric(x->c, "markers_rx", (double)w->st.rx_markers, "");
	if (!w->st.rx_markers)
		cf_fail(x->c, "we asked for markers (M), the peer's stream has none");
	else
		cf_pass(x->c, "accepted with markers: %llu good markers received, %s us; CRC %s",
			(unsigned long long)w->st.rx_markers, w->mk_tx ? "markers asked of" : "none asked of",
			w->crc ? "on" : "off");
}

static void mpa_markers(struct cfi *x)
{
	markers_case(x, "--markers");
}

static void mpa_markers_crc(struct cfi *x)
{
	markers_case(x, "--markers --crc");
}

/* RFC 6581 3: peer-to-peer, the responder picks one of the RTRs offered
 * (or none: no peer-to-peer), and takes our RTR before anything else. */
static void mpa_rtr(struct cfi *x)
{
	if (!negotiated(x, "--rtr write,read", "rev 2 peer-to-peer request offering a WRITE or READ RTR"))
		return;
	cf_metric(x->c, "rtr", x->w.rtr, "");
	if (x->w.p2p && !(x->w.rtr & (IW_RTR_WRITE | IW_RTR_READ)))
		cf_fail(x->c, "peer-to-peer, but the reply picked none of the RTRs offered");
	else
		cf_pass(x->c, "peer-to-peer %s, RTR %s, IRD/ORD %u/%u; FPDUs both ways after it",
			x->w.p2p ? "accepted" : "declined", x->w.p2p ? iw_rtr_name(x->w.rtr) : "none", x->w.peer_ird,
			x->w.peer_ord);
}

static void mpa_rev1(struct cfi *x)
{
	if (!negotiated(x, "--rev 1", "rev 1 request"))
		return;
	if (x->w.rev != 1)
		cf_fail(x->c, "rev 1 request answered with rev %u", x->w.rev);
	else
		pass_negotiated(x, "rev 1 request");
}

/* No RFC defines revision 3: the responder refuses (R) or closes, or
 * answers with a revision it knows (RFC 6581 2). */
static void mpa_rev_unknown(struct cfi *x)
{
	struct iw *w = &x->w;
	int rc = cfi_connect(x, "--rev 3");

	if (rc < 0)
		return;
	if (w->rejected)
		cf_pass(x->c, "refused with an MPA reply with R");
	else if (rc > 0)
		cf_pass(x->c, "closed the connection without a reply (%s)", w->why);
	else if (w->rev == 3)
		cf_fail(x->c, "accepted revision 3, which no RFC defines");
	else if (cfi_region(x) == 0 && cfi_alive(x))
		cf_pass(x->c, "answered with revision %u, and the stream works at it", w->rev);
	else
		cf_fail(x->c, "answered with revision %u, but the stream does not work: %s", w->rev, w->why);
}

/* The reply with R, then the responder closes (RFC 5044 7.1.1). */
static void mpa_reject(struct cfi *x)
{
	int rc = cfi_connect(x, "--markers");

	if (rc < 0)
		return;
	if (rc == 0) {
		cf_unsup(x->c, "the peer accepted (a request with M): nothing provoked a reject");
		return;
	}
	if (!x->w.rejected) {
		cf_fail(x->c, "closed without an MPA reply with R: %s", x->w.why);
		return;
	}
	if (fd_closes(x->w.fd, x->wait_s))
		cf_pass(x->c, "MPA reply with R (flags 0x%02x), then the peer closed", x->w.rep_flags);
	else
		cf_fail(x->c, "MPA reply with R, but the connection stayed open %.1f s", x->wait_s);
}

/* ---- FPDU faults (LLP) --------------------------------------------------------------- */

static uint8_t info16[16];

static void llp_bad_crc(struct cfi *x)
{
	if (up(x, "--crc"))
		return;
	if (!x->w.crc) {
		cf_unsup(x->c, "CRC not in use");
		return;
	}
	x->w.fault = IW_F_BAD_CRC;
	x->w.fault_armed = 1;
	iw_post_send(&x->w, ROCE_RDMAP_SEND, info16, sizeof(info16), 0);
	cfi_expect_term(x, L_LLP, 0, 0x02, "RFC 5044 8: CRC error");
}

static void llp_bad_marker(struct cfi *x)
{
	if (up(x, "--markers"))
		return;
	if (!x->w.mk_tx) {
		cf_unsup(x->c, "the peer asked for no markers in its receive stream");
		return;
	}
	x->w.fault = IW_F_BAD_MARKER;
	x->w.fault_armed = 1;
	memset(x->msg, 0x6d, 1024);   /* an FPDU long enough to hold a marker */
	iw_post_write(&x->w, x->stag, x->to, x->msg, x->rlen < 1024 ? x->rlen : 1024);
	cfi_expect_term(x, L_LLP, 0, 0x03, "RFC 5044 8: marker mismatch");
}

/* ---- DDP ------------------------------------------------------------------------------ */

static void ddp_bad_stag(struct cfi *x)
{
	if (up(x, ""))
		return;
	iw_post_write(&x->w, x->stag ^ 0x5a5a5a00u, x->to, x->msg, 64);
	cfi_expect_term(x, L_DDP, 1, 0x00, "RFC 5041 7.2: tagged buffer, invalid STag");
}

static void ddp_bad_offset(struct cfi *x)
{
	if (up(x, ""))
		return;
	iw_post_write(&x->w, x->stag, x->to + x->rlen, x->msg, 64);
	cfi_expect_term(x, L_DDP, 1, 0x01, "RFC 5041 7.2: tagged buffer, base or bounds violation");
}

static void untagged_fault(struct cfi *x, int fault, uint32_t len, uint8_t code, const char *rule)
{
	if (up(x, ""))
		return;
	x->w.fault = fault;
	x->w.fault_armed = fault != IW_F_NONE;
	memset(x->msg, 0x55, len);
	/* the peer may close while a long SEND is still going out: its
	 * Terminate is in our receive queue all the same */
	iw_post_send(&x->w, ROCE_RDMAP_SEND, x->msg, len, 0);
	cfi_expect_term(x, L_DDP, 2, code, rule);
}

static void ddp_msn_gap(struct cfi *x)
{
	untagged_fault(x, IW_F_MSN_GAP, 16, 0x03, "RFC 5041 7.2: untagged buffer, MSN range not valid");
}

static void ddp_bad_qn(struct cfi *x)
{
	untagged_fault(x, IW_F_BAD_QN, 16, 0x01, "RFC 5041 7.2: untagged buffer, invalid QN");
}

/* Longer than any receive buffer the peers post (rocegen: --size, rping: 16). */
static void ddp_oversize(struct cfi *x)
{
	untagged_fault(x, IW_F_NONE, 70000, 0x05, "RFC 5041 7.2: untagged buffer, message too long");
}

/* ---- RDMAP ------------------------------------------------------------------------------ */

static void rdmap_read_bad_stag(struct cfi *x)
{
	if (up(x, ""))
		return;
	iw_post_read(&x->w, CFI_SINK_STAG, CFI_SINK_TO, 64, x->stag ^ 0x5a5a5a00u, x->to);
	cfi_expect_term(x, L_RDMAP, 1, 0x00, "RFC 5040 7.2: remote protection, invalid STag");
}

static void rdmap_read_bad_offset(struct cfi *x)
{
	if (up(x, ""))
		return;
	iw_post_read(&x->w, CFI_SINK_STAG, CFI_SINK_TO, 64, x->stag, x->to + x->rlen);
	cfi_expect_term(x, L_RDMAP, 1, 0x01, "RFC 5040 7.2: remote protection, base or bounds violation");
}

/* RFC 5040 5.? / 6.6: a Terminate ends the stream; it is never answered
 * with a Terminate, the peer closes. */
static void rdmap_terminate(struct cfi *x)
{
	char t[160];

	if (up(x, ""))
		return;
	iw_terminate(&x->w, L_RDMAP, 2, 0xff, NULL, NULL, 0);
	if (!cfi_closes(x, x->wait_s))
		cf_fail(x->c, "our Terminate, then the connection stayed open %.1f s", x->wait_s);
	else if (x->w.term_rx.have)
		cf_fail(x->c, "the peer answered our Terminate with one: %s",
			cfi_term_text(t, sizeof(t), x->w.term_rx.layer, x->w.term_rx.etype, x->w.term_rx.code));
	else
		cf_pass(x->c, "our Terminate (RDMAP, remote operation, 0xff): the peer closed, no Terminate back");
}

static int all_answered(struct cfi *x)
{
	return x->w.reads_out == 0 || x->w.term_rx.have;
}

/* The peer idle: one READ answered, and a moment for its transmit side
 * (siw holds a Read Request in its transmit WQE without an IRQ entry when
 * that is free).  0, or -1 with ERROR set. */
static int idle_first(struct cfi *x)
{
	struct iw *w = &x->w;

	if (iw_post_read(w, CFI_SINK_STAG, CFI_SINK_TO, 64, x->stag, x->to) ||
	    cfi_wait(x, all_answered, x->wait_s) != 1 || w->term_rx.have) {
		cf_error(x->c, "a single READ was not answered: %s", w->why[0] ? w->why : "timed out");
		return -1;
	}
	poll(NULL, 0, 200);
	return 0;
}

/* IRD+1 Read Requests at once: the peer has room for IRD (RFC 5040 5.3,
 * RFC 6581 3), so the last one breaks the stream: a Terminate, then close. */
static void rdmap_read_ird(struct cfi *x)
{
	struct iw *w = &x->w;
	uint64_t base, answered;
	unsigned n;
	char t[160];

	if (up(x, ""))
		return;
	if (!w->enhanced || !w->peer_ird) {
		cf_unsup(x->c, "the peer announced no IRD (no RFC 6581 private data)");
		return;
	}
	if (idle_first(x))
		return;
	base = w->st.reads_done;
	n = w->peer_ird + 1u;
	if (n > CFI_SINK_LEN / 64) {
		cf_unsup(x->c, "the peer's IRD %u is larger than this case sends", w->peer_ird);
		return;
	}
	/* corked: the burst leaves in as few segments as TCP can, so that the
	 * peer finds all of it at once rather than one request per read */
	setsockopt(w->fd, IPPROTO_TCP, TCP_CORK, &(int){ 1 }, sizeof(int));
	for (unsigned k = 0; k < n; k++)
		if (iw_post_read(w, CFI_SINK_STAG, CFI_SINK_TO + 64u * k, 64, x->stag, x->to)) {
			cf_error(x->c, "cannot send: %s", w->why);
			return;
		}
	setsockopt(w->fd, IPPROTO_TCP, TCP_CORK, &(int){ 0 }, sizeof(int));
	cfi_wait(x, all_answered, x->wait_s);
	cf_metric(x->c, "peer_ird", w->peer_ird, "");
	cf_metric(x->c, "reads_sent", n, "");
	answered = w->st.reads_done - base;
	cf_metric(x->c, "reads_answered", (double)answered, "");
	if (w->term_rx.have)
		cf_pass(x->c, "%u Read Requests against IRD %u: %llu answered, then Terminate %s", n, w->peer_ird,
			(unsigned long long)answered,
			cfi_term_text(t, sizeof(t), w->term_rx.layer, w->term_rx.etype, w->term_rx.code));
	else if (w->reads_out == 0)
		cf_fail(x->c, "%u Read Requests against IRD %u: all answered, the IRD not enforced", n, w->peer_ird);
	else
		cf_fail(x->c, "%u Read Requests against IRD %u: %llu answered, then nothing for %.1f s", n,
			w->peer_ird, (unsigned long long)answered, x->wait_s);
}

const struct cfi_case cfi_cases[] = {
	{ "mpa.plain", "MPA rev 2 request without CRC or markers: accepted, FPDUs both ways", NULL, mpa_plain },
	{ "mpa.crc", "request with C: CRC-32c in use both ways", NULL, mpa_crc },
	{ "mpa.markers", "request with M: markers in the peer's stream (or UNSUPPORTED: reject)", "--markers",
	  mpa_markers },
	{ "mpa.markers-crc", "request with M and C: markers and CRC", "--markers", mpa_markers_crc },
	{ "mpa.rtr", "peer-to-peer request offering WRITE/READ RTR: one picked, stream works after it", NULL,
	  mpa_rtr },
	{ "mpa.rev1", "MPA revision 1 request: answered with rev 1, FPDUs both ways", NULL, mpa_rev1 },
	{ "mpa.rev-unknown", "revision 3 request: refused, closed, or answered with a known revision", NULL,
	  mpa_rev_unknown },
	{ "mpa.reject", "a request the peer refuses: MPA reply with R, then close", "--reject", mpa_reject },
	{ "llp.bad-crc", "an FPDU with a wrong CRC: Terminate LLP/MPA/CRC error", NULL, llp_bad_crc },
	{ "llp.bad-marker", "a wrong marker: Terminate LLP/MPA/marker mismatch", "--markers", llp_bad_marker },
	{ "ddp.bad-stag", "WRITE to an unknown STag: Terminate DDP/tagged/invalid STag", NULL, ddp_bad_stag },
	{ "ddp.bad-offset", "WRITE past the region: Terminate DDP/tagged/base or bounds", NULL, ddp_bad_offset },
	{ "ddp.msn-gap", "SEND skipping an MSN: Terminate DDP/untagged/MSN range", NULL, ddp_msn_gap },
	{ "ddp.bad-qn", "SEND to queue 7: Terminate DDP/untagged/invalid QN", NULL, ddp_bad_qn },
	{ "ddp.oversize", "SEND longer than the receive buffer: Terminate DDP/untagged/too long", NULL,
	  ddp_oversize },
	{ "rdmap.read-bad-stag", "Read Request for an unknown STag: Terminate RDMAP/protection/invalid STag",
	  NULL, rdmap_read_bad_stag },
	{ "rdmap.read-bad-offset", "Read Request past the region: Terminate RDMAP/protection/base or bounds",
	  NULL, rdmap_read_bad_offset },
	{ "rdmap.terminate", "a Terminate from us mid-stream: the peer closes, sends none back", NULL,
	  rdmap_terminate },
	{ "rdmap.read-ird", "IRD+1 Read Requests at once: Terminate, then close", NULL, rdmap_read_ird },
};
const unsigned cfi_n_cases = sizeof(cfi_cases) / sizeof(cfi_cases[0]);
