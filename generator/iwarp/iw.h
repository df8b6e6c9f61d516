/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iw.h — `rocegen client|server --transport iwarp`: an iWARP stream over a
 * kernel TCP socket.
 *
 *   iw_conn.c    socket, MPA request/reply (rev 1, rev 2 with IRD/ORD and
 *                the RTR), FPDUs out (lib builders; markers, CRC, MULPDU from
 *                TCP_MAXSEG) and in (lib's struct roce_mpa_stream)
 *   iw_rx.c      the receiver's DDP/RDMAP checks and placement: each error
 *                answered with the Terminate RFC 5040/5041/5044 names
 *   iw_client.c  the requester: SEND, WRITE, READ, faults, the report
 *   iw_server.c  the responder: its region, SENDs received, READs served
 *   iw_report.c  perftest-like text and --json
 *   iw_rping.c   rping's client protocol (--oob cm --app rping)
 *
 * Every frame comes from lib/'s builders, every parse from lib/'s decoders.
 */
#ifndef ROCEGEN_IW_H
#define ROCEGEN_IW_H

#include <stdint.h>
#include <stdio.h>
#include "gen.h"

#define IW_DEFAULT_PORT 5044        /* rocegen's own (--oob mpa) */
#define IW_DEFAULT_IRD 16
#define IW_DEFAULT_ORD 16
#define IW_MAX_MR 4
#define IW_NQ 3                     /* untagged queues: send, read request, terminate */
#define IW_IRQ_MAX 128              /* Read Requests held for their responses at once */
#define IW_STALL_MS 2000            /* zero-window: how long the server stops reading */
/* an FPDU of the largest ULPDU with its markers */
#define IW_TBUF_CAP (ROCE_MPA_FPDU_MAX + 4 * (ROCE_MPA_FPDU_MAX / ROCE_MPA_MARKER_INTERVAL + 2))

enum iw_rtr { IW_RTR_NONE = 0, IW_RTR_WRITE = 1, IW_RTR_READ = 2, IW_RTR_SEND = 4 };

/* A fault the sender applies to one outgoing FPDU or message. */
enum iw_fault {
	IW_F_NONE = 0,
	IW_F_BAD_CRC,        /* CRC field flipped                      → LLP/MPA/CRC error */
	IW_F_BAD_MARKER,     /* a marker's FPDU pointer wrong          → LLP/MPA/marker mismatch */
	IW_F_BAD_STAG,       /* WRITE / READ to an STag never given    → DDP tagged / RDMAP invalid STag */
	IW_F_BAD_OFFSET,     /* TO past the region                     → base or bounds violation */
	IW_F_MSN_GAP,        /* SEND skips an MSN                      → DDP untagged invalid MSN range */
	IW_F_BAD_QN,         /* untagged segment to queue 7            → DDP untagged invalid QN */
	IW_F_OVERSIZE,       /* SEND longer than the receive buffer    → DDP untagged message too long */
	IW_F_TERMINATE,      /* Terminate sent mid-stream, then close  → the peer closes */
	IW_F_TCP_RST,        /* half an FPDU mid-message, then a TCP RST → the peer drops it, reports the reset */
	IW_F_ZERO_WINDOW,    /* server: stops reading, its window closes → the sender holds its data, resumes */
	IW_F_TCP_LOSS,       /* either: drops P % of the segments it receives → the peer's TCP retransmits them */
	IW_F__COUNT
};
const char *iw_fault_name(int f);
const char *iw_rtr_name(int rtr);
/* KIND[@N] (at: N, or UINT64_MAX); tcp-loss=P% (at: P in parts per million).  0 or -1. */
int iw_fault_parse(const char *spec, int *kind, uint64_t *at);

struct iw_mr {
	uint32_t stag;
	uint64_t to;
	uint8_t *buf;
	uint64_t len;
	int rd, wr;                 /* remote access */
};

struct iw_term {
	int have;
	uint8_t layer, etype, code, hdrct;
};

/* A Read Request accepted, its response not yet sent (iw_rx.c's IRQ). */
struct iw_rresp {
	uint32_t stag;
	uint64_t to;
	const uint8_t *src;
	uint32_t len;
};

/* The TCP level (iw_tcp.c): its faults and figures. */
struct iw_tcp {
	uint64_t retrans;           /* TCP_INFO's total retransmissions (kept when the socket closes) */
	uint64_t stall_ms;          /* zero-window: how long we did not read */
	uint64_t max_block_ms;      /* the longest single send() (a closed window holds it) */
	uint32_t cut_bytes;         /* tcp-rst: the bytes of the cut FPDU that went out */
	uint32_t partial_bytes;     /* a reset came: bytes of an unfinished FPDU dropped */
	int rst_tx, reset_rx;
	uint32_t loss_ppm;          /* tcp-loss: the part of received segments with payload dropped */
};

struct iw;
/* A whole untagged message (SEND*) received: data, length, opcode. */
typedef void (*iw_send_fn)(void *ctx, struct iw *w, uint8_t op, const uint8_t *data, uint32_t len,
			   uint32_t inv_stag);
/* The last segment of a Read Response was placed (id counts Read Requests). */
typedef void (*iw_read_fn)(void *ctx, struct iw *w);

struct iw_stats {
	uint64_t tx_fpdu, tx_bytes, tx_msgs[16];
	uint64_t rx_fpdu, rx_bytes, rx_msgs[16];
	uint64_t rx_crc_bad, rx_marker_bad, rx_markers, tx_markers;
	uint64_t read_served, reads_done, rtr_tx, rtr_rx;
	uint64_t faults[IW_F__COUNT];
	uint64_t mulpdu_changes;
};

struct iw {
	int fd;
	int server;
	const struct gen_opts *o;
	/* negotiated */
	uint8_t rev, crc, mk_tx, mk_rx, enhanced, p2p, rtr;
	uint16_t ird, ord;          /* reads we serve at once / may have outstanding */
	uint16_t peer_ird, peer_ord;
	uint8_t req_flags, rep_flags;
	uint8_t pd[ROCE_MPA_PD_MAX];
	uint16_t pd_len;            /* the peer's private data after its RTR word */
	int rejected;               /* the reply had R */
	/* transmit */
	uint32_t tx_pos;            /* bytes of our FPDU stream so far */
	uint32_t tx_msn[IW_NQ];
	uint32_t mss, mulpdu;
	uint32_t tx_seg, tx_nseg;   /* the FPDU being sent: its index in its message, of how many */
	uint8_t *tbuf;
	/* receive */
	struct roce_mpa_stream rs;
	uint8_t *rbuf;
	uint32_t rx_pos;
	uint32_t rx_msn[IW_NQ];     /* next expected */
	struct iw_mr mr[IW_MAX_MR];
	unsigned n_mr;
	uint8_t *rq;                /* the posted receive buffer */
	uint32_t rq_cap, rq_len;
	int await_rtr;              /* server, peer-to-peer: the RTR is still due */
	int rtr_delay_ms;           /* client: a pause between the MPA reply and our RTR */
	uint32_t reads_out;         /* our Read Requests not yet answered */
	uint32_t reads_in;          /* Read Requests in irq: received in this pump, not answered yet */
	struct iw_rresp irq[IW_IRQ_MAX];
	uint32_t rreq_sink_stag;    /* the last Read Request's sink (conform: a peer's STag) */
	uint64_t rreq_sink_to;
	uint32_t rreq_size;
	iw_send_fn on_send;
	iw_read_fn on_read;
	void *ctx;
	/* the layer above the connection (iw_rx.c, set by iw_init): iw_conn.c
	 * calls it only through these, so it needs nothing of iw_rx.c */
	int (*rtr_out)(struct iw *w);   /* sends our RTR (peer-to-peer initiator) */
	int (*rx_done)(struct iw *w);   /* after each read of the socket: answers what it held */
	/* end */
	struct iw_term term_rx, term_tx;
	int eof;                    /* the peer closed */
	int dead;                   /* we terminated or the stream broke */
	char why[160];
	/* faults on our side: the kind and the message index it hits */
	int fault;
	uint64_t fault_at;
	int fault_armed;            /* applies to the next FPDU built */
	struct iw_stats st;
	struct iw_tcp tcp;
};

/* ---- iw_conn.c ------------------------------------------------------------- */
void iw_free(struct iw *w);
/* Client: connect to --peer:--port, MPA request, reply, RTR.  Server: accept
 * one connection on --port, request, reply (or reject), RTR.  pd/pd_len: our
 * private data (after the RTR word).  0, or -1 with w->why. */
int iw_connect(struct iw *w, const uint8_t *pd, uint16_t pd_len);
int iw_accept(struct iw *w, const uint8_t *pd, uint16_t pd_len);
/* Re-reads TCP_MAXSEG and derives MULPDU (RFC 5044 4.1). */
void iw_update_mulpdu(struct iw *w);
/* Frames one ULPDU into an FPDU (markers, CRC as negotiated; the armed
 * fault) and writes it.  0 or -1. */
int iw_send_ulpdu(struct iw *w, const uint8_t *ulpdu, uint32_t len);
/* Reads what is there (waits up to timeout_ms) and processes it.  1 data
 * processed, 0 timeout, -1 end of stream or error. */
int iw_pump(struct iw *w, int timeout_ms);

/* ---- iw_tcp.c ---------------------------------------------------------------- */
/* Socket options a fault needs before listen/connect (zero-window: SO_RCVBUF;
 * tcp-loss: the socket filter).  0, or -1 with why. */
int iw_tcp_prepare(struct iw *w, int fd);
/* tcp-rst: the first half of this FPDU, then the RST; always -1 (why set). */
int iw_tcp_cut(struct iw *w, const uint8_t *fpdu, uint32_t n);
/* zero-window: IW_STALL_MS without reading. */
void iw_tcp_stall(struct iw *w);
/* recv() said ECONNRESET: the figures and why. */
void iw_tcp_reset_rx(struct iw *w);
uint64_t iw_tcp_retrans(const struct iw *w);

/* ---- iw_tcploss.c ------------------------------------------------------------- */
/* "P%" → parts per million (0 < P <= 50).  0 or -1. */
int iw_tcp_loss_parse(const char *arg, uint64_t *ppm);
/* A parsed tcp-loss fault becomes the stream's loss_ppm (kind and at cleared:
 * it spoils no message). */
void iw_tcp_loss_take(struct iw *w, int *kind, uint64_t *at);
/* The dropping socket filter on fd (before connect or listen).  0, or -1 with why. */
int iw_tcp_loss_attach(struct iw *w, int fd);
/* TCP_INFO's segments received out of order on our socket (0 once closed). */
uint64_t iw_tcp_ooo(const struct iw *w);

/* ---- iw_rx.c (and the message senders) ------------------------------------- */
/* The stream before its connection: buffers, MSNs, the MPA receiver feeding
 * iw_rx.c's checks, the hooks iw_conn.c calls up through.  0, or -1. */
int iw_init(struct iw *w, const struct gen_opts *o, int server);
int iw_add_mr(struct iw *w, uint32_t stag, uint64_t to, uint8_t *buf, uint64_t len, int rd, int wr);
/* Messages, segmented at MULPDU.  0 or -1. */
int iw_post_send(struct iw *w, uint8_t op, const uint8_t *data, uint32_t len, uint32_t inv_stag);
int iw_post_write(struct iw *w, uint32_t stag, uint64_t to, const uint8_t *data, uint32_t len);
int iw_post_read(struct iw *w, uint32_t sink_stag, uint64_t sink_to, uint32_t size, uint32_t src_stag,
		 uint64_t src_to);
/* Sends a Terminate (copying hdr's DDP/RDMAP headers when given), marks the
 * stream dead and shuts down our side. */
void iw_terminate(struct iw *w, uint8_t layer, uint8_t etype, uint8_t code, const struct roce_iwarp_msg *hdr,
		  const uint8_t *ulpdu, uint32_t ulpdu_len);
/* Sends the responses of the Read Requests held (iw_pump does at its end).  0 or -1. */
int iw_irq_flush(struct iw *w);
/* Posts a receive buffer for the next untagged SEND message. */
void iw_post_recv(struct iw *w, uint8_t *buf, uint32_t cap);

/* ---- iw_report.c -------------------------------------------------------------- */
struct iw_report {
	const char *role, *op, *oob;
	uint64_t size, iters, completed;
	uint64_t t_start, t_end;
	int ok;
	const char *why;
	int have_crc;
	uint32_t crc;
	uint64_t mismatches;
	int verified;
	const struct iw *w;
};
void iw_report_print(const struct iw_report *r, int json);

int iw_client_main(struct gen_opts *o);
int iw_rping_client(struct gen_opts *o);   /* iw_rping.c */
int iw_rping_server(struct gen_opts *o);
int iw_server_main(struct gen_opts *o);

#endif /* ROCEGEN_IW_H */
