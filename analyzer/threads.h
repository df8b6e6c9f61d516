/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * threads.h — rocetop --threads N: the flow analysis on N threads, each
 * with its own engine (flow table) holding the conversations of its address
 * pairs (roce_flow_key(): both directions of a connection on one thread).
 *
 *   live (-i):  N capture sockets per interface in one PACKET_FANOUT_CBPF
 *               group whose classic BPF program computes that key; each
 *               thread reads its sockets, decodes and counts (no queue, no
 *               lock per frame: a thread holds its engine's lock per batch
 *               of frames, so a snapshot sees whole frames).
 *   replay (-r): as fast as it goes, without a filter or -w (workers_direct):
 *               each thread reads the whole file itself, through its own
 *               reader of the same chunks (pcapfile_clone(): each chunk read
 *               once), and analyses the frames of its key; nothing is
 *               handed over.  Otherwise the main thread reads the file and
 *               hands each frame to the thread of its key through a ring of
 *               bytes (copied; the reader waits when a ring is full: nothing
 *               is dropped).
 *
 * Snapshots and the summary read a merged view (engmerge.h) made while the
 * engines are held still.
 */
#ifndef ROCETOP_THREADS_H
#define ROCETOP_THREADS_H

#include "flow.h"
#include "roce.h"
#include "source.h"

#define WORKERS_MAX 64

struct workers;

/* n engines (n >= 2) and, for a replay, their rings.  NULL: out of memory. */
struct workers *workers_new(unsigned n, const struct engine_cfg *ecfg, const struct roce_cfg *rcfg,
			    uint64_t count);
/* Live: opens n - 1 more sources like src (thread 0 reads src) and joins
 * each interface's sockets in a fanout group.  Call while privileged.
 * 0, or -1 with err[] set. */
int workers_add_live(struct workers *w, struct source *src, const struct source_cfg *cfg, char *err,
		     size_t errcap);
/* Starts the threads (after the capabilities are shed: threads inherit
 * the calling thread's).  0, or -1 with err[] set. */
int workers_start(struct workers *w, char *err, size_t errcap);
/* Replay: the threads read the file themselves, pf (source_direct())
 * for thread 0 and clones of it for the others; call before
 * workers_start().  workers_done() then says when every thread is at the
 * end (or -c, or damage: workers_error()).  0, or -1 out of memory. */
struct pcapfile;
int workers_direct(struct workers *w, struct pcapfile *pf);
int workers_is_direct(const struct workers *w);
/* Direct: waits at most ms for every thread to be at the end; workers_done(). */
int workers_wait(struct workers *w, int ms);
/* Direct: the records read (up to the damage, if any), the last one's
 * time, and how far into the file thread 0 is (updated now and then). */
uint64_t workers_read(const struct workers *w, uint64_t *last_ts, uint64_t *bytes);
/* -r A -r B (before workers_start()): the engines note which files each
 * flow was seen in (engine.file_names, JSON "files"; the merged view ORs
 * them), and frames are numbered by their place in the merged timeline. */
void workers_files(struct workers *w, const char *const *names, unsigned n);
/* Replay: one frame to the thread of its key. */
void workers_push(struct workers *w, const struct source_frame *f);
/* The merged view, every frame handed over so far counted (replay) or the
 * engines held still (live) until workers_release().  NULL: out of memory. */
const struct engine *workers_view(struct workers *w);
void workers_release(struct workers *w);
/* Live: 1 once a thread stopped (-c reached, or a read failed: then
 * workers_error() says why). */
int workers_done(const struct workers *w);
const char *workers_error(const struct workers *w);
/* Frames the threads analysed, and (when per is not NULL) each thread's
 * in per[0 .. n-1]; n is workers_count(). */
uint64_t workers_frames(const struct workers *w, uint64_t *per);
unsigned workers_count(const struct workers *w);
/* Live: interface i's capture statistics, summed over the threads' sockets. */
void workers_stats(struct workers *w, unsigned i, struct source_stats *st);
/* Ends the threads (a replay's once its rings are empty). */
void workers_stop(struct workers *w);
/* workers_stop(), then frees all (NULL: nothing). */
void workers_free(struct workers *w);

/* --threads' default: live, the online CPUs, at most the receive queues of
 * the interface with the fewest; on replay 1. */
unsigned workers_default(const struct source_cfg *cfg);

#endif
