/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_flow — the flow analysis rate against a bare libpcap read loop over
 * the same file, measured in the same run, and the memory per flow.
 *
 *   bench_flow rate FILE.pcap ROCETOP
 *       Times, best of five passes each, over the same (page-cached) file:
 *         bare      pcap_next_ex() touching each frame's first byte
 *         decode    + roce_decode()
 *         icrc      + roce_icrc_verify() of RoCE frames
 *         engine    + the flow engine (analyzer/flow.c), in process
 *         rocetop   `ROCETOP -r FILE` (full analysis and its summary report,
 *                   a child process; output to /dev/null)
 *       and prints frames/s and the rate of each against the bare loop.
 *       Target: rocetop >= 0.7 x the bare loop's rate.
 *   bench_flow mk1m OUT.pcap N [--pairs P] SOURCE.pcap...
 *       Writes the N-frame capture (see mk1m below); with --pairs, frames
 *       go round-robin to P address pairs (1 .. 65535), each replaying the
 *       whole sequence (rocetop --threads splits by address pair).
 *   bench_flow mkqps OUT.pcap N
 *       Writes N RC SEND_ONLY frames, each to its own destination QP (so N
 *       flows), for the memory test.
 *   bench_flow mem FILE.pcap
 *       Feeds FILE to the engine (default --max-flows) and prints the flows,
 *       sizeof(struct flow), the table's bytes per flow (array + hash heads)
 *       and the process's peak RSS growth per flow.  Target <= 256 B.
 *
 * bench/flow.sh runs them all, and tshark on a 100,000-frame prefix.
 */
#include <pcap/pcap.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>
#include "../analyzer/flow.c"
#include "../analyzer/iwstream.c"
#include "../analyzer/ibident.c"
#include "../analyzer/diag.c"
#include "../analyzer/diag_rules.c"
#include "../analyzer/diag_pacing.c"
#include "../analyzer/diag_pacing_view.c"

extern char **environ;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static volatile uint64_t sink;

enum { BARE, DECODE, ICRC, ENGINE, ROCETOP, NPASS };

static double pass(const char *path, int level, long *frames)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *d;
	uint64_t acc = 0;
	long n = 0;
	double t0;
	pcap_t *pc = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, err);
	static struct engine e;
	struct engine_cfg cfg = { .max_flows = 1000000, .pmtu = 1024, .link_bps = 100000000000ull,
				  .check_icrc = 1 };

	if (!pc) {
		fprintf(stderr, "bench_flow: %s: %s\n", path, err);
		exit(2);
	}
	if (level == ENGINE && engine_init(&e, &cfg))
		exit(2);
	t0 = now();
	while (pcap_next_ex(pc, &h, &d) == 1) {
		struct roce_pkt p;

		n++;
		if (level == BARE) {
			acc += h->caplen + d[0];
			continue;
		}
		roce_decode(&p, NULL, pcap_datalink(pc), d, h->caplen, h->len);
		acc += p.psn + p.opcode;
		if (level == ICRC && p.version != ROCE_VER_NONE)
			acc += roce_icrc_verify(&p, NULL);
		if (level == ENGINE)
			engine_packet(&e, &p, (uint64_t)h->ts.tv_sec * 1000000000ull + (uint64_t)h->ts.tv_usec,
				      h->caplen, h->len);
	}
	t0 = now() - t0;
	if (level == ENGINE) {
		acc += e.nflows;
		engine_free(&e);
	}
	pcap_close(pc);
	sink += acc;
	*frames = n;
	return t0;
}

static double run_rocetop(const char *rocetop, const char *path)
{
	char *argv[] = { (char *)rocetop, (char *)"-r", (char *)path, NULL };
	posix_spawn_file_actions_t fa;
	double t0;
	pid_t pid;
	int st;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	t0 = now();
	if (posix_spawn(&pid, rocetop, &fa, NULL, argv, environ)) {
		perror("bench_flow: posix_spawn");
		exit(2);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "bench_flow: %s -r %s failed\n", rocetop, path);
		exit(2);
	}
	t0 = now() - t0;
	posix_spawn_file_actions_destroy(&fa);
	return t0;
}

static int rate(const char *path, const char *rocetop)
{
	static const char *const names[NPASS] = {
		"bare libpcap read loop", "+ roce_decode", "+ ICRC check", "+ flow engine (in process)",
		"rocetop -r (full analysis)",
	};
	double best[NPASS];
	long frames = 0, n;

	for (int k = 0; k < NPASS; k++)
		best[k] = 1e30;
	pass(path, BARE, &frames);   /* warm the page cache */
	for (int r = 0; r < 5; r++)
		for (int k = 0; k < NPASS; k++) {
			double t = k == ROCETOP ? run_rocetop(rocetop, path) : pass(path, k, &n);

			if (k != ROCETOP && n != frames) {
				fprintf(stderr, "bench_flow: read %ld frames, then %ld\n", frames, n);
				return 2;
			}
			if (t < best[k])
				best[k] = t;
		}
	printf("flow bench: %ld frames, %s (best of 5)\n", frames, path);
	for (int k = 0; k < NPASS; k++)
		printf("  %-30s %7.3f s %8.2f Mframes/s %7.1f ns/frame  %.2fx bare\n", names[k], best[k],
		       frames / best[k] / 1e6, best[k] * 1e9 / frames, best[BARE] / best[k]);
	printf("  rocetop rate / bare loop rate %.3f (target >= 0.7) %s\n", best[BARE] / best[ROCETOP],
	       best[BARE] / best[ROCETOP] >= 0.7 ? "PASS" : "MISS");
	printf("ROCETOP_SECONDS=%.6f FRAMES=%ld\n", best[ROCETOP], frames);
	return best[BARE] / best[ROCETOP] >= 0.7 ? 0 : 1;
}

static int mkqps(const char *path, long n)
{
	struct roce_frame_spec s;
	struct roce_tmpl t;
	uint8_t buf[256], pl[64] = { 0 };
	pcap_t *dead = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 65535, PCAP_TSTAMP_PRECISION_NANO);
	pcap_dumper_t *dp = pcap_dump_open(dead, path);

	if (!dp) {
		fprintf(stderr, "bench_flow: %s: %s\n", path, pcap_geterr(dead));
		return 2;
	}
	memset(&s, 0, sizeof s);
	s.version = ROCE_VER_V2;
	s.eth.src[5] = 1;
	s.eth.dst[5] = 2;
	s.ip.version = 4;
	s.ip.src[0] = s.ip.dst[0] = 10;
	s.ip.src[3] = 1;
	s.ip.dst[3] = 2;
	s.bth.opcode = ROCE_OP_SEND_ONLY;
	s.bth.ackreq = 1;
	s.bth.pad = -1;
	s.payload = pl;
	s.payload_len = sizeof pl;
	if (roce_tmpl_init(&t, buf, sizeof buf, &s) < 0)
		return 2;
	for (long i = 0; i < n; i++) {
		struct pcap_pkthdr h;

		roce_tmpl_set_dqpn(&t, (uint32_t)(0x100 + i));
		roce_tmpl_set_psn(&t, (uint32_t)i & 0xffffff);
		roce_tmpl_refresh(&t);
		memset(&h, 0, sizeof h);
		h.ts.tv_sec = 1700000000 + i / 1000000;
		h.ts.tv_usec = (suseconds_t)(i % 1000000) * 1000;
		h.caplen = h.len = t.len;
		pcap_dump((u_char *)dp, &h, t.frame);
	}
	pcap_dump_close(dp);
	pcap_close(dead);
	return 0;
}

/* ---- the 1,000,000-frame capture ------------------------------------------------------
 * RoCE frames of lab captures cycled as bench_decode does, with one change:
 * in cycle k every RC PSN is advanced by k times the span of its PSN space
 * (the requests of one host and the responses to it, in one source capture),
 * so each connection goes on where the previous cycle stopped instead of
 * replaying its PSNs; the ICRC is recomputed.  The flow analysis then sees
 * the lab's conversations, long, not a storm of duplicates. */
struct src_frame {
	uint8_t *data;
	uint32_t len;
	uint32_t psn_off;        /* BTH PSN offset, 0 when not RC */
	uint32_t span;           /* span of its PSN space */
	uint32_t icrc_off;
};

static uint32_t host_of(const struct roce_pkt *p, int dst)
{
	uint32_t a = 0;

	if (p->ip_version == 4)
		memcpy(&a, p->data + p->ip_off + (dst ? 16 : 12), 4);
	return a;
}

static size_t load_frames(char **files, int nf, struct src_frame **out)
{
	size_t cnt = 0, cap = 0;
	char err[PCAP_ERRBUF_SIZE];

	for (int i = 0; i < nf; i++) {
		struct pcap_pkthdr *h;
		const u_char *d;
		pcap_t *pc = pcap_open_offline(files[i], err);
		size_t first = cnt;
		struct { uint32_t host, lo, hi; int have; } sp[8];
		int nsp = 0;

		if (!pc) {
			fprintf(stderr, "bench_flow: %s: %s\n", files[i], err);
			exit(2);
		}
		memset(sp, 0, sizeof sp);
		while (pcap_next_ex(pc, &h, &d) == 1) {
			struct roce_pkt p;
			struct src_frame *f;
			enum roce_seq_kind k;

			if (pcap_datalink(pc) != DLT_EN10MB || h->caplen != h->len)
				continue;
			roce_decode(&p, NULL, ROCE_LINK_ETHERNET, d, h->caplen, h->len);
			if (p.version == ROCE_VER_NONE)
				continue;
			if (cnt == cap) {
				cap = cap ? cap * 2 : 1024;
				*out = realloc(*out, cap * sizeof **out);
				if (!*out)
					exit(2);
			}
			f = &(*out)[cnt++];
			f->data = malloc(h->caplen);
			if (!f->data)
				exit(2);
			memcpy(f->data, d, h->caplen);
			f->len = h->caplen;
			f->psn_off = 0;
			f->span = 0;
			f->icrc_off = p.icrc_off;
			k = roce_seq_classify(&p);
			if ((k == ROCE_SEQ_REQ || k == ROCE_SEQ_RESP) && p.ip_version == 4) {
				/* the space: the requester's address */
				uint32_t host = host_of(&p, k == ROCE_SEQ_RESP);
				int j;

				for (j = 0; j < nsp && sp[j].host != host; j++)
					;
				if (j == nsp && nsp < 8)
					sp[nsp++].host = host;
				if (j < 8) {
					if (!sp[j].have || roce_psn_before(p.psn, sp[j].lo))
						sp[j].lo = p.psn;
					if (!sp[j].have || roce_psn_before(sp[j].hi, p.psn))
						sp[j].hi = p.psn;
					sp[j].have = 1;
				}
				f->psn_off = p.bth_off + 9;
				f->span = host;   /* resolved below */
			}
		}
		for (size_t n = first; n < cnt; n++) {
			struct src_frame *f = &(*out)[n];

			if (!f->psn_off)
				continue;
			for (int j = 0; j < nsp; j++)
				if (sp[j].host == f->span) {
					f->span = ((sp[j].hi - sp[j].lo) & 0xffffff) + 1;
					break;
				}
		}
		pcap_close(pc);
	}
	return cnt;
}

/* Pair j of --pairs (1 .. 65535): the second and third bytes of both IPv4
 * addresses carry j, so each pair is its own two hosts, as a mirror port of
 * a busy fabric sees them; the header checksum made again (the ICRC is, by
 * the caller). */
static void set_pair(uint8_t *buf, uint32_t len, uint32_t j)
{
	struct roce_pkt p;
	uint32_t sum = 0, ihl;
	uint8_t *ip;

	roce_decode(&p, NULL, ROCE_LINK_ETHERNET, buf, len, len);
	if (p.ip_version != 4)
		return;
	ip = buf + p.ip_off;
	ihl = (ip[0] & 15u) * 4;
	ip[14] = ip[18] = (uint8_t)j;
	ip[13] = (uint8_t)(ip[13] + (j >> 8));
	ip[17] = (uint8_t)(ip[17] + (j >> 8));
	ip[10] = ip[11] = 0;
	for (uint32_t k = 0; k + 1 < ihl; k += 2)
		sum += (uint32_t)ip[k] << 8 | ip[k + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	ip[10] = (uint8_t)(~sum >> 8);
	ip[11] = (uint8_t)~sum;
}

static int mk1m(const char *path, long frames, long pairs, char **files, int nf)
{
	struct src_frame *src = NULL;
	size_t nsrc = load_frames(files, nf, &src);
	pcap_t *dead = pcap_open_dead(DLT_EN10MB, 65535);
	pcap_dumper_t *dp = pcap_dump_open(dead, path);
	uint8_t buf[10000];
	uint64_t bytes = 0;

	if (!nsrc || !dp) {
		fprintf(stderr, "bench_flow: no RoCE frames, or %s: %s\n", path, pcap_geterr(dead));
		return 2;
	}
	for (long i = 0; i < frames; i++) {
		/* with --pairs, frame i belongs to pair i % pairs, each pair replaying the whole sequence */
		size_t seq = (size_t)(i / pairs);
		const struct src_frame *f = &src[seq % nsrc];
		uint32_t cycle = (uint32_t)(seq / nsrc);
		struct pcap_pkthdr h = { .caplen = f->len, .len = f->len };

		memcpy(buf, f->data, f->len);
		if (pairs > 1)
			set_pair(buf, f->len, (uint32_t)(i % pairs) + 1);
		if ((f->psn_off && cycle) || pairs > 1) {
			uint8_t *b = buf + f->psn_off;
			uint32_t psn = ((uint32_t)b[0] << 16 | (uint32_t)b[1] << 8 | b[2]) + cycle * f->span;
			struct roce_pkt p;
			uint32_t icrc;

			b[0] = (uint8_t)(psn >> 16);
			b[1] = (uint8_t)(psn >> 8);
			b[2] = (uint8_t)psn;
			roce_decode(&p, NULL, ROCE_LINK_ETHERNET, buf, f->len, f->len);
			if (roce_icrc_compute(&p, &icrc) == ROCE_OK)
				for (int k = 0; k < 4; k++)
					buf[f->icrc_off + (uint32_t)k] = (uint8_t)(icrc >> (8 * k));
		}
		h.ts.tv_sec = 1700000000 + i / 1000000;
		h.ts.tv_usec = i % 1000000;
		pcap_dump((u_char *)dp, &h, buf);
		bytes += f->len;
	}
	pcap_dump_close(dp);
	pcap_close(dead);
	printf("flow bench capture: %ld frames (%zu distinct lab frames cycled, PSNs carried on), %.1f MB, %s\n",
	       frames, nsrc, (double)bytes / 1e6, path);
	for (size_t i = 0; i < nsrc; i++)
		free(src[i].data);
	free(src);
	return 0;
}

static long rss_kib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static int mem(const char *path)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *d;
	struct engine e;
	struct engine_cfg cfg = { .max_flows = 1000000, .pmtu = 1024, .link_bps = 100000000000ull,
				  .check_icrc = 1 };
	pcap_t *pc = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, err);
	long before, after;
	double per, tab;

	if (!pc || engine_init(&e, &cfg)) {
		fprintf(stderr, "bench_flow: %s: %s\n", path, err);
		return 2;
	}
	before = rss_kib();
	while (pcap_next_ex(pc, &h, &d) == 1) {
		struct roce_pkt p;

		roce_decode(&p, NULL, pcap_datalink(pc), d, h->caplen, h->len);
		engine_packet(&e, &p, (uint64_t)h->ts.tv_sec * 1000000000ull + (uint64_t)h->ts.tv_usec, h->caplen,
			      h->len);
	}
	after = rss_kib();
	per = e.nflows ? (double)(after - before) * 1024 / e.nflows : 0;
	printf("memory: %u live flows (%llu evicted), sizeof(struct flow) %zu B, table %.1f B per flow "
	       "(flow array + hash heads), peak RSS growth %.1f B per flow (%ld KiB)\n",
	       e.nflows, (unsigned long long)e.t.evicted, sizeof(struct flow), engine_bytes_per_flow(&e), per,
	       after - before);
	printf("  anomaly blocks attached: %llu (%zu B each, only for flows with anomalies)\n",
	       (unsigned long long)e.anom_live, sizeof(struct roce_seq_anom));
	tab = engine_bytes_per_flow(&e);
	printf("  table bytes per flow %.1f (target <= 256) %s\n", tab, tab <= 256 ? "PASS" : "MISS");
	engine_free(&e);
	pcap_close(pc);
	return tab <= 256 ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "rate"))
		return rate(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "mkqps"))
		return mkqps(argv[2], strtol(argv[3], NULL, 10));
	if (argc == 3 && !strcmp(argv[1], "mem"))
		return mem(argv[2]);
	if (argc >= 7 && !strcmp(argv[1], "mk1m") && !strcmp(argv[4], "--pairs"))
		return mk1m(argv[2], strtol(argv[3], NULL, 10), strtol(argv[5], NULL, 10), argv + 6, argc - 6);
	if (argc >= 5 && !strcmp(argv[1], "mk1m"))
		return mk1m(argv[2], strtol(argv[3], NULL, 10), 1, argv + 4, argc - 4);
	fprintf(stderr, "usage: bench_flow mk1m OUT.pcap N [--pairs P] SOURCE.pcap... | rate FILE.pcap ROCETOP |\n"
			"       bench_flow mkqps OUT.pcap N | mem FILE.pcap\n");
	return 2;
}
