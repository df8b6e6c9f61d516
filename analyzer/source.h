/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * source.h — rocetop's capture sources: one or more live interfaces through
 * libpcap, polled together, or a capture file replayed as fast as possible
 * or paced on its timestamps.  Frames come out one at a time, like
 * pcap_next_ex(), or in batches to a callback (source_batch(): live, read in
 * place in the ring); what was captured can be saved (-w) as it is read.
 *
 *   open (root or CAP_NET_RAW) → drop privileges (-Z) → open the -w file →
 *   shed every capability → source_next() … → source_close()
 *
 * Other descriptors (the Prometheus listener and its clients) can be
 * watched in the same poll(): source_watch() registers them with a callback
 * that source_wait() and source_next() call when they are ready, so a loop
 * written for frames serves them too.  No threads.
 */
#ifndef ROCETOP_SOURCE_H
#define ROCETOP_SOURCE_H

#include <pcap/pcap.h>
#include <stdint.h>
#include <stdio.h>

#define SOURCE_MAX_IFACES 16
#define SOURCE_SNAPLEN 9216           /* live default: a jumbo frame (larger frames: -s) */
#define SOURCE_BUFFER_KIB 32768       /* live default ring, per interface */
#define SOURCE_BUFFER_FRAMES 8192     /* ... made larger if it would hold fewer MTU-sized frames */
#define SOURCE_BUFFER_MAX (2047ull << 20) /* libpcap takes an int */
#define SOURCE_BLOCK_MS 20            /* a ring block is handed over at the latest this long
					 after its first frame */

struct source_cfg {
	const char *file;              /* -r, or NULL */
	const char *files[SOURCE_MAX_IFACES]; /* -r repeated: files[0] is file; their frames are merged
					  in one timeline by timestamp (as mergecap), frame.iface the
					  file's index, frame.no its number in its file */
	unsigned nfiles;
	const char *ifaces[SOURCE_MAX_IFACES]; /* -i, repeatable */
	unsigned nifaces;
	int snaplen;                   /* -s; 0: SOURCE_SNAPLEN */
	int buffer_kib;                /* -B: kernel ring size in KiB; 0: SOURCE_BUFFER_KIB */
	unsigned buffer_frames;        /* --buffer-frames: the ring holds at least that many frames of
					  the interface's MTU (up to the snaplen); 0: SOURCE_BUFFER_FRAMES */
	int no_promisc;
	const char *filter;            /* BPF expression, or NULL */
	double speed;                  /* replay pace: 0 as fast as possible, 1 real time, 2 twice … */
	uint64_t count;                /* -c: stop after that many frames; 0: no limit */
	int timeout_ms;                /* how long source_next() may block when nothing is ready
					  (0: not at all) */
	const char *nic_drop_counters; /* --nic-drop-counters (nicdrop.h); NULL: the default */
};

/* What went wrong, for the caller's message: "rocetop: WHAT: TEXT". */
enum source_err {
	SOURCE_E_OPEN = 1,             /* opening the file or interface */
	SOURCE_E_LINKTYPE,             /* a link type libroce cannot decode */
	SOURCE_E_FILTER,               /* BPF filter did not compile */
	SOURCE_E_DUMP,                 /* -w */
	SOURCE_E_READ,                 /* reading failed (damaged file, interface gone) */
	SOURCE_E_USAGE,                /* options that do not go together */
};

struct source_frame {
	const uint8_t *data;           /* valid until the next source_next() */
	uint32_t caplen, len;
	uint64_t ts_ns;                /* capture time, ns since the epoch */
	struct pcap_pkthdr hdr;        /* hdr.ts in the source's precision (source_nsec()) */
	int linktype;
	unsigned iface;                /* index into cfg.ifaces (0 for a file) */
	uint64_t no;                   /* from 1: a file's own frame number (filtered or not); live, delivered */
};

struct source;

/* Opens every handle, sets the filter.  NULL with *what and err[] set. */
struct source *source_open(const struct source_cfg *cfg, enum source_err *what, char *err, size_t errcap);
void source_close(struct source *s);
/* A source without capture handles: only watched descriptors (the
 * Prometheus server of a --device run without -i or -r). */
struct source *source_open_watcher(const char *name);
/* Saves every frame source_next() returns to a pcap file (all handles must
 * share the link type).  Call after dropping privileges, as tcpdump does. */
int source_dump_open(struct source *s, const char *path, char *err, size_t errcap);
/* Flushes and closes the -w file (if any): -1 with err[] ("-w FILE: why")
 * when any write, the flush or the close failed.  source_next() returns
 * SOURCE_ERR from the frame after a failed write on. */
int source_dump_close(struct source *s, char *err, size_t errcap);
int source_write_failed(const struct source *s); /* source_error() names the -w file */

/* Return values of source_next() */
#define SOURCE_FRAME 1
#define SOURCE_NONE 0                /* nothing ready (live: quiet; replay: not due yet, or paused) */
#define SOURCE_EOF (-1)              /* end of the file, or -c frames returned */
#define SOURCE_ERR (-2)              /* source_error() says why */

/* The next frame.  Waits at most cfg.timeout_ms when nothing is ready. */
int source_next(struct source *s, struct source_frame *f);
/* A batch of frames: fn(ctx, frame) for each, at most max of them, until fn
 * returns nonzero (the frames after that one stay unread).  Live, each
 * interface's ring is read with pcap_dispatch(): the blocks it holds ready,
 * every frame passed where it lies in the ring (pcap_next_ex() must copy each
 * one out, since its block may go back to the kernel before the caller is done
 * with it), the frame valid only during its call of fn; when no block is
 * ready, waits at most cfg.timeout_ms.  A file: source_next() max times.
 * Returns the frames given to fn (> 0), or SOURCE_NONE, SOURCE_EOF or
 * SOURCE_ERR as source_next() does. */
typedef int (*source_frame_fn)(void *ctx, struct source_frame *f);
int source_batch(struct source *s, unsigned max, source_frame_fn fn, void *ctx);
/* Polls the handles and the watched descriptors for at most timeout_ms;
 * calls the watchers that are readable.  Returns 1 when a frame may be
 * ready, 0 otherwise. */
int source_wait(struct source *s, int timeout_ms);
const char *source_error(const struct source *s);
/* rocetop --threads: joins handle i (live) to a PACKET_FANOUT_CBPF group
 * running the classic BPF program prog (len instructions, struct
 * sock_filter's layout).  *group 0: a new group, whose id is stored there
 * for the next member.  0, or -1 with err[] set. */
int source_fanout(struct source *s, unsigned i, unsigned *group, const void *prog, unsigned len, char *err,
		  size_t errcap);
/* rocetop --threads on a fast replay: the file's reader, for threads that
 * read it themselves (threads.h), when nothing here needs to see each frame
 * (a file pcapfile.c reads, no filter, no -w, no pacing, nothing read yet);
 * else NULL.  source_direct_done() then tells the source what they read:
 * it is at the end, the last frame's time is source_now(). */
struct pcapfile;
struct pcapfile *source_direct(struct source *s);
void source_direct_done(struct source *s, uint64_t frames, uint64_t last_ts);
/* Changes cfg.timeout_ms. */
void source_set_timeout(struct source *s, int timeout_ms);

/* Watch fd for events (POLLIN, POLLOUT); cb runs from source_wait() and
 * source_next() with the revents.  Watching a watched fd again replaces its
 * events, callback and context. */
int source_watch(struct source *s, int fd, short events, void (*cb)(void *ctx, int fd, short revents),
		 void *ctx);
void source_unwatch(struct source *s, int fd);

int source_live(const struct source *s);
int source_nsec(const struct source *s);        /* frame hdr.ts holds nanoseconds */
int source_linktype(const struct source *s);    /* of the first handle */
const char *source_name(const struct source *s); /* "FILE" or "eth0,eth1" */
unsigned source_count(const struct source *s);  /* handles */
const char *source_iface(const struct source *s, unsigned i);
FILE *source_file(const struct source *s);      /* the replayed file, for progress; else NULL */
long long source_offset(const struct source *s); /* bytes of it read so far; -1 live */
int source_eof(const struct source *s);         /* the replay ended (or -c reached) */

/* Capture-time "now": live, the clock; a paced replay, its virtual clock
 * (frozen while paused and after the end); a fast replay, the last frame. */
uint64_t source_now(const struct source *s);
/* Replay pacing; speed 0 = as fast as possible.  Paused: no frames. */
void source_set_speed(struct source *s, double speed);
double source_speed(const struct source *s);
void source_pause(struct source *s, int on);
int source_paused(const struct source *s);

struct source_stats {
	int valid;
	/* since the capture opened, in 64 bits: PACKET_STATISTICS tp_packets
	 * (frames the socket saw, dropped ones included), tp_drops (the ring was
	 * full), tp_freeze_q_cnt (times the TPACKET_V3 ring ran out of blocks) */
	uint64_t recv, drop, freeze;
	int ifdrop_valid;
	uint64_t ifdrop;               /* /proc/net/dev rx drop + fifo of the interface */
	int nicdrop_valid;
	uint64_t nicdrop;              /* the NIC's own discards, ethtool -S (nicdrop.h) */
	const char *nicdrop_names;     /* the counters summed, comma-separated */
	uint64_t ring_bytes, ring_frames; /* the ring, and how many of the largest frames it holds */
};
/* Handle i (live only; valid = 0 for files).  Each call reads the kernel's
 * counters, which it resets, into the sums. */
void source_stats(struct source *s, unsigned i, struct source_stats *st);
/* The kernel's counts start again from 0 (rocetop --threads: after the
 * frames that reached every socket before the fanout group was whole). */
void source_stats_restart(struct source *s);
/* Sum over the handles. */
void source_stats_total(struct source *s, struct source_stats *st);

/* -Z: after opening, become user (initgroups, setgid, setuid) and make sure
 * root cannot be regained.  -1 with err[] set: the caller must not go on. */
int source_drop_privileges(const char *user, char *err, size_t errcap);
/* Once every descriptor is open, before the first frame is parsed: clear
 * every capability set, set no_new_privs, and check with capget() that
 * nothing is left.  -1 with err[] set: the caller must not go on. */
int source_shed_capabilities(char *err, size_t errcap);

#endif
