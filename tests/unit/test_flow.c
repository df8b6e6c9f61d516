/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * analyzer/flow.c: the flow table (hash, LRU eviction at --max-flows, evicted
 * totals), pairing of directions (traffic, CM), where responses and CNPs are
 * counted, per-port PFC time, rates, and the memory per flow.  flow.c is
 * compiled into this test (it is not part of libroce; the test reaches its
 * static functions); the files it calls are linked as rocetop's objects.
 */
#include "testutil.h"
#include "../../analyzer/flow.c"

#define T0 1700000000000000000ull
#define US 1000ull

static uint8_t buf[4096];
static struct roce_pkt P;

/* RoCEv2 frame from 10.0.0.<a> to 10.0.0.<b>, decoded into P. */
static const struct roce_pkt *rocev2(uint8_t a, uint8_t b, uint8_t op, uint32_t dqpn, uint32_t psn,
				     uint8_t syn, uint32_t len, uint8_t ecn)
{
	static const uint8_t zeros[2048];
	struct roce_frame_spec s;
	int n;

	memset(&s, 0, sizeof s);
	s.version = ROCE_VER_V2;
	s.eth.src[5] = a;
	s.eth.dst[5] = b;
	s.ip.version = 4;
	s.ip.src[0] = s.ip.dst[0] = 10;
	s.ip.src[3] = a;
	s.ip.dst[3] = b;
	s.ip.ecn = ecn;
	s.bth.opcode = op;
	s.bth.ackreq = 1;
	s.bth.dqpn = dqpn;
	s.bth.psn = psn;
	s.bth.pad = -1;
	s.ext.syndrome = syn;
	s.ext.dmalen = len;
	s.payload = zeros;
	s.payload_len = op == ROCE_OP_READ_REQUEST ? 0 : len;
	if (op == ROCE_OPCODE_CNP)
		roce_spec_cnp(&s, dqpn);
	n = roce_build(buf, sizeof buf, &s);
	assert_true(n > 0);
	roce_decode(&P, NULL, ROCE_LINK_ETHERNET, buf, (uint32_t)n, (uint32_t)n);
	return &P;
}

static void feed(struct engine *e, const struct roce_pkt *p, uint64_t t)
{
	engine_packet(e, p, t, p->caplen, p->wirelen);
}

static struct flow *find(struct engine *e, uint8_t a, uint8_t b, uint32_t qpn)
{
	uint8_t sa[16] = { [10] = 0xff, [11] = 0xff, [12] = 10, [15] = a };
	uint8_t da[16] = { [10] = 0xff, [11] = 0xff, [12] = 10, [15] = b };

	return flow_find(e, host_id(e, sa), host_id(e, da), qpn, 0);
}

static void init(struct engine *e, uint32_t max_flows)
{
	struct engine_cfg c = { .max_flows = max_flows, .pmtu = 1024, .link_bps = 0, .check_icrc = 1 };

	assert_int_equal(engine_init(e, &c), 0);
}

/* Requests 1 -> 2 (QP 0x20), ACKs 2 -> 1 (QP 0x10): paired from the PSNs;
 * the ACKs and a CNP count on the requests' flow. */
static void test_pair_traffic(void **st)
{
	struct engine e;
	struct flow *req, *rsp;

	(void)st;
	init(&e, 100);
	for (uint32_t p = 500; p < 504; p++) {
		feed(&e, rocev2(1, 2, ROCE_OP_SEND_ONLY, 0x20, p, 0, 100, 2), T0 + p * US);
		feed(&e, rocev2(2, 1, ROCE_OP_ACK, 0x10, p, 0x1f, 0, 0), T0 + p * US + 5 * US);
	}
	feed(&e, rocev2(2, 1, ROCE_OPCODE_CNP, 0x10, 0, 0, 0, 2), T0 + 600 * US);
	req = find(&e, 1, 2, 0x20);
	rsp = find(&e, 2, 1, 0x10);
	assert_non_null(req);
	assert_non_null(rsp);
	assert_ptr_equal(flow_peer(&e, req), rsp);
	assert_ptr_equal(flow_peer(&e, rsp), req);
	assert_int_equal(req->pair_how, FP_TRAFFIC);
	assert_int_equal(req->u.seq.requests, 4);
	assert_int_equal(req->u.seq.acks, 4);
	assert_int_equal(req->u.seq.cnp, 1);
	assert_int_equal(req->u.seq.rtt.n, 4);
	assert_int_equal(req->u.seq.rtt.min_ns, 5000);
	assert_int_equal(rsp->u.seq.acks, 0);
	assert_int_equal(rsp->packets, 5);
	assert_int_equal(req->msgs[OP_SEND], 4);
	assert_int_equal(req->msg_bytes, 400);
	assert_int_equal(e.t.roce_ect, 4 + 1);
	assert_int_equal(e.t.cnp, 1);
	assert_int_equal(e.conns_traffic, 1);
	assert_int_equal(e.t.icrc[ROCE_ICRC_GOOD], 9);
	engine_free(&e);
}

/* A response flow whose requests were never seen keeps its responses; one
 * that sends requests of its own does not take foreign responses. */
static void test_orphans(void **st)
{
	struct engine e;
	struct flow *f;

	(void)st;
	init(&e, 100);
	feed(&e, rocev2(2, 1, ROCE_OP_ACK, 0x10, 77, 0x1f, 0, 0), T0);
	f = find(&e, 2, 1, 0x10);
	assert_int_equal(f->u.seq.acks, 1);
	feed(&e, rocev2(3, 4, ROCE_OP_SEND_ONLY, 0x40, 9, 0, 10, 0), T0 + US);
	feed(&e, rocev2(3, 4, ROCE_OP_ACK, 0x40, 5000, 0x1f, 0, 0), T0 + 2 * US);
	f = find(&e, 3, 4, 0x40);
	assert_int_equal(f->u.seq.acks, 0);
	assert_int_equal(e.t.orphan_responses, 1);
	engine_free(&e);
}

/* --max-flows 3 with 5 flows: the two least recently seen go; their counts
 * move to the evicted totals; a peer loses its link. */
static void test_lru_eviction(void **st)
{
	struct engine e;

	(void)st;
	init(&e, 3);
	feed(&e, rocev2(1, 2, ROCE_OP_SEND_ONLY, 0x20, 1, 0, 10, 0), T0);
	feed(&e, rocev2(2, 1, ROCE_OP_ACK, 0x10, 1, 0x1f, 0, 0), T0 + US);       /* pairs with the first */
	feed(&e, rocev2(1, 2, ROCE_OP_SEND_ONLY, 0x21, 1, 0, 10, 0), T0 + 2 * US);
	feed(&e, rocev2(1, 2, ROCE_OP_SEND_ONLY, 0x20, 2, 0, 10, 0), T0 + 3 * US); /* 0x20 seen again */
	feed(&e, rocev2(1, 2, ROCE_OP_SEND_ONLY, 0x22, 1, 0, 10, 0), T0 + 4 * US); /* evicts 2->1 (0x10) */
	assert_int_equal(e.nflows, 3);
	assert_int_equal(e.t.evicted, 1);
	assert_null(find(&e, 2, 1, 0x10));
	assert_int_equal(find(&e, 1, 2, 0x20)->peer, 0);
	feed(&e, rocev2(1, 2, ROCE_OP_SEND_ONLY, 0x23, 1, 0, 10, 0), T0 + 5 * US); /* evicts 0x21 */
	assert_int_equal(e.t.evicted, 2);
	assert_null(find(&e, 1, 2, 0x21));
	assert_non_null(find(&e, 1, 2, 0x20));
	assert_non_null(find(&e, 1, 2, 0x22));
	assert_non_null(find(&e, 1, 2, 0x23));
	assert_int_equal(e.ev.packets, 2);
	assert_int_equal(e.ev.acks, 0);   /* the ACK was counted on 0x20's flow, still live */
	assert_int_equal(find(&e, 1, 2, 0x20)->u.seq.acks, 1);
	/* a flow whose anomaly block is released keeps the pool working */
	feed(&e, rocev2(1, 2, ROCE_OP_SEND_ONLY, 0x23, 9, 0, 10, 0), T0 + 6 * US);  /* gap */
	assert_non_null(find(&e, 1, 2, 0x23)->u.seq.x);
	for (uint32_t q = 0x30; q < 0x34; q++)
		feed(&e, rocev2(1, 2, ROCE_OP_SEND_ONLY, q, 1, 0, 10, 0), T0 + 7 * US + q);
	assert_int_equal(e.t.evicted, 6);
	assert_int_equal(e.ev.psn_gaps, 1);
	assert_int_equal(e.ev.missing_psns, 7);   /* PSNs 2..8 */
	/* requests too: evicted plus live is every request fed (10 SENDs) */
	{
		uint64_t live = 0;

		for (uint32_t i = 0; i < e.nflows; i++)
			live += e.flows[i].u.seq.requests;
		assert_true(e.ev.requests > 0);
		assert_int_equal(e.ev.requests + live, 10);
	}
	engine_free(&e);
}

/* CM REQ/REP pair the flows, give each its starting PSN, the path MTU and
 * the upper layer. */
static void test_cm(void **st)
{
	struct engine e;
	struct roce_cm cm;
	struct roce_frame_spec s;
	uint8_t mad[ROCE_MAD_LEN];
	struct flow *ab, *ba;
	int n;

	(void)st;
	init(&e, 100);
	for (int k = 0; k < 2; k++) {
		memset(&cm, 0, sizeof cm);
		cm.attr_id = k ? ROCE_CM_REP : ROCE_CM_REQ;
		cm.local_comm_id = k ? 0x22 : 0x11;
		cm.remote_comm_id = k ? 0x11 : 0;
		cm.service_id = 0x0000000001060000ull | 445;
		cm.local_qpn = k ? 0x20 : 0x10;
		cm.start_psn = k ? 1000 : 2000;
		cm.path_mtu = 4;
		n = roce_build_cm(mad, sizeof mad, &cm, NULL, 0);
		assert_int_equal(n, ROCE_MAD_LEN);
		memset(&s, 0, sizeof s);
		s.version = ROCE_VER_V2;
		s.ip.version = 4;
		s.ip.src[0] = s.ip.dst[0] = 10;
		s.ip.src[3] = k ? 2 : 1;
		s.ip.dst[3] = k ? 1 : 2;
		s.bth.opcode = ROCE_TR_UD | ROCE_OP_SEND_ONLY;
		s.bth.dqpn = 1;
		s.bth.pad = -1;
		s.ext.qkey = ROCE_CM_QKEY;
		s.ext.src_qp = 1;
		s.payload = mad;
		s.payload_len = ROCE_MAD_LEN;
		n = roce_build(buf, sizeof buf, &s);
		assert_true(n > 0);
		roce_decode(&P, NULL, ROCE_LINK_ETHERNET, buf, (uint32_t)n, (uint32_t)n);
		feed(&e, &P, T0 + (uint64_t)k * US);
	}
	ab = find(&e, 1, 2, 0x20);
	ba = find(&e, 2, 1, 0x10);
	assert_non_null(ab);
	assert_non_null(ba);
	assert_ptr_equal(flow_peer(&e, ab), ba);
	assert_int_equal(ab->pair_how, FP_CM);
	assert_string_equal(flow_ulp_name(ab), "SMB Direct");
	assert_int_equal(roce_seq_pmtu(&ab->u.seq), 2048);
	assert_int_equal(roce_seq_pmtu_source(&ab->u.seq), ROCE_SEQ_PMTU_CM);
	/* 1 sends from the REP's PSN, 2 from the REQ's */
	feed(&e, rocev2(1, 2, ROCE_OP_SEND_ONLY, 0x20, 1000, 0, 10, 0), T0 + 10 * US);
	feed(&e, rocev2(2, 1, ROCE_OP_SEND_ONLY, 0x10, 2000, 0, 10, 0), T0 + 11 * US);
	assert_null(ab->u.seq.x);
	assert_null(ba->u.seq.x);
	assert_int_equal(e.conns_cm, 1);
	assert_int_equal(e.t.cm_mads, 2);
	engine_free(&e);
}

/* PFC: time paused joins overlapping pauses; quanta at the link speed. */
static void test_pfc_time(void **st)
{
	struct engine e;
	struct engine_cfg c = { .max_flows = 10, .link_bps = 25000000000ull, .check_icrc = 1 };
	struct roce_eth_spec eth;
	uint16_t t[8] = { 0 };
	int n;

	(void)st;
	assert_int_equal(engine_init(&e, &c), 0);
	memset(&eth, 0, sizeof eth);
	eth.src[5] = 9;
	t[5] = 100;                   /* 100 x 20.48 ns = 2048 ns at 25 Gb/s */
	n = roce_build_pfc(buf, sizeof buf, &eth, 0x20, t, 0);
	roce_decode(&P, NULL, ROCE_LINK_ETHERNET, buf, (uint32_t)n, (uint32_t)n);
	feed(&e, &P, T0);
	feed(&e, &P, T0 + 1000);      /* replaces the first: paused 1000 ns so far */
	t[5] = 0;
	n = roce_build_pfc(buf, sizeof buf, &eth, 0x20, t, 0);
	roce_decode(&P, NULL, ROCE_LINK_ETHERNET, buf, (uint32_t)n, (uint32_t)n);
	feed(&e, &P, T0 + 1500);      /* XON: 500 ns more */
	assert_int_equal(e.nports, 1);
	assert_int_equal(e.ports[0].pfc[5].pauses, 2);
	assert_int_equal(e.ports[0].pfc[5].xon, 1);
	assert_int_equal(e.ports[0].pfc[5].quanta, 200);
	assert_int_equal(e.ports[0].pfc[5].paused_ns, 1500);
	assert_int_equal(e.ports[0].pfc_frames, 3);
	assert_int_equal(e.t.pfc_frames, 3);
	assert_int_equal(engine_fabric_mode(&e, NULL, 0), FM_LOSSLESS);
	/* a pause left running ends at its own expiry */
	t[5] = 100;
	n = roce_build_pfc(buf, sizeof buf, &eth, 0x20, t, 0);
	roce_decode(&P, NULL, ROCE_LINK_ETHERNET, buf, (uint32_t)n, (uint32_t)n);
	feed(&e, &P, T0 + 10000);
	feed(&e, &P, T0 + 20000);
	assert_int_equal(e.ports[0].pfc[5].paused_ns, 1500 + 2048);
	engine_free(&e);
}

/* Rates: 1000 bytes every 1/100 tick for 300 ticks reach the steady
 * 100000 bytes per tick in all three averages. */
static void test_rates(void **st)
{
	struct engine e;
	struct flow *f;
	double r[3];
	const uint64_t tick = 1ull << 30, t0 = T0 >> 30 << 30;   /* ticks start at t0 */

	(void)st;
	init(&e, 10);
	for (uint64_t i = 0; i < 30000; i++)
		feed(&e, rocev2(1, 2, ROCE_TR_UD | ROCE_OP_SEND_ONLY, 0x50, (uint32_t)i, 0, 0, 0),
		     t0 + i * (tick / 100));
	f = find(&e, 1, 2, 0x50);
	flow_rates(&e, f, f->last_ns, r);
	for (int i = 0; i < 3; i++)
		assert_in_range((uint64_t)r[i], (uint64_t)(f->bytes / 300.0 * 8 / TICK_S * 0.97),
				(uint64_t)(f->bytes / 300.0 * 8 / TICK_S * 1.03));
	/* 40 s later the 2 s average is gone, the 40 s one is not */
	flow_rates(&e, f, f->last_ns + 40 * tick, r);
	assert_true(r[0] < r[2] / 100);
	engine_free(&e);
}

/* Hosts: IPv4 and IPv6 interned, the index grows. */
static void test_hosts(void **st)
{
	struct engine e;
	char s[64];
	uint8_t a[16] = { 0xfe, 0x80 };

	(void)st;
	init(&e, 10);
	for (int i = 0; i < 1000; i++) {
		a[14] = (uint8_t)(i >> 8);
		a[15] = (uint8_t)i;
		assert_int_equal(host_id(&e, a), (uint32_t)i);
	}
	a[14] = 0;
	a[15] = 7;
	assert_int_equal(host_id(&e, a), 7);
	assert_string_equal(host_str(&e, 7, s, sizeof s), "fe80::7");
	feed(&e, rocev2(1, 2, ROCE_OP_SEND_ONLY, 0x20, 1, 0, 10, 0), T0);
	assert_string_equal(host_str(&e, e.flows[0].src, s, sizeof s), "10.0.0.1");
	engine_free(&e);
}

/* IPv4 hosts through their own index (host_v4): 2000 addresses (the index
 * grows from 256 slots to 4096), each the id host_id() gives its v4-mapped
 * form, the same after the growth, interned once; 0.0.0.0 is an address
 * like the others (an index slot is free only when all zero). */
static void test_hosts_v4(void **st)
{
	struct engine e;
	uint8_t a4[4] = { 10, 1 }, m[16] = { [10] = 0xff, [11] = 0xff, [12] = 10, [13] = 1 };
	uint32_t id[2000];

	(void)st;
	init(&e, 10);
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < 2000; i++) {
			a4[2] = (uint8_t)(i >> 8);
			a4[3] = (uint8_t)i;
			if (!pass)
				id[i] = host_v4(&e, a4);
			else
				assert_int_equal(host_v4(&e, a4), id[i]);
			m[14] = a4[2];
			m[15] = a4[3];
			assert_int_equal(host_id(&e, m), id[i]);
		}
	assert_int_equal(e.nhosts, 2000);
	assert_int_equal(e.nv4, 2000);
	assert_int_equal(e.v4_mask + 1, 4096);
	memset(a4, 0, sizeof a4);
	id[0] = host_v4(&e, a4);
	assert_int_equal(id[0], 2000);
	assert_int_equal(host_v4(&e, a4), 2000);
	assert_int_equal(e.nhosts, 2001);
	engine_free(&e);
}

/* Memory per flow: the struct plus the hash head, 256 bytes at most. */
static void test_flow_size(void **st)
{
	(void)st;
	assert_true(sizeof(struct flow) + sizeof(uint32_t) <= 256);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pair_traffic),
		cmocka_unit_test(test_orphans),
		cmocka_unit_test(test_lru_eviction),
		cmocka_unit_test(test_cm),
		cmocka_unit_test(test_pfc_time),
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_hosts),
		cmocka_unit_test(test_hosts_v4),
		cmocka_unit_test(test_flow_size),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
