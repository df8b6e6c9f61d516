// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_verbsport.c — the port MTUs of the device view (analyzer/device/
 * verbsport.c): enum ibv_mtu in bytes, the answers when libibverbs has no
 * such device, and the views (devout.c) of a port whose MTUs are known and
 * of one whose are not: text, JSON and Prometheus.  Where libibverbs lists a
 * device (rxe, hardware), its first port's MTUs are queried too; elsewhere
 * that test is skipped.
 */
#include "testutil.h"
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include "../../analyzer/device/verbsport.h"
#include "../../analyzer/flow.h"
#include "../../analyzer/iwstream.h"
#include "../../analyzer/ibident.h"
#include "../../analyzer/diag.h"
#include "../../analyzer/json.h"
#include "../../analyzer/qpjoin.h"
#include "../../analyzer/pfcjoin.h"
#include "../../analyzer/device/nlparse.h"
#include "../../analyzer/device/pfc.h"

static void test_mtu_bytes(void **state)
{
	(void)state;
	assert_int_equal(vport_mtu_bytes(IBV_MTU_256), 256);
	assert_int_equal(vport_mtu_bytes(IBV_MTU_512), 512);
	assert_int_equal(vport_mtu_bytes(IBV_MTU_1024), 1024);
	assert_int_equal(vport_mtu_bytes(IBV_MTU_2048), 2048);
	assert_int_equal(vport_mtu_bytes(IBV_MTU_4096), 4096);
	/* the numbers ibv_devinfo prints in brackets ("active_mtu: 1024 (3)") */
	assert_int_equal(vport_mtu_bytes(3), 1024);
	assert_int_equal(vport_mtu_bytes(5), 4096);
	/* anything else is unknown, never a made-up size */
	assert_int_equal(vport_mtu_bytes(0), 0);
	assert_int_equal(vport_mtu_bytes(6), 0);
	assert_int_equal(vport_mtu_bytes(-1), 0);
}

static void test_no_device(void **state)
{
	unsigned a = 7, m = 7;

	(void)state;
	assert_null(vport_open("rocetop-no-such-device"));
	assert_null(vport_open(""));
	assert_null(vport_open(NULL));
	assert_int_equal(vport_query(NULL, 1, &a, &m), -ENODEV);
	assert_int_equal(a, 0);
	assert_int_equal(m, 0);
	vport_close(NULL);
}

static void test_real_device(void **state)
{
	struct ibv_device **list;
	struct ibv_context *ctx;
	unsigned a = 0, m = 0;
	char name[64];
	int n = 0;

	(void)state;
	list = ibv_get_device_list(&n);
	if (!list || n == 0) {
		if (list)
			ibv_free_device_list(list);
		skip();   /* no RDMA device here */
	}
	snprintf(name, sizeof name, "%s", ibv_get_device_name(list[0]));
	ibv_free_device_list(list);
	if (!(ctx = vport_open(name)))
		skip();   /* listed, but not ours to open (uverbs access) */
	assert_int_equal(vport_query(ctx, 1, &a, &m), 0);
	assert_true(a == 256 || a == 512 || a == 1024 || a == 2048 || a == 4096);
	assert_true(m >= a && m <= 4096);
	assert_int_equal(vport_query(ctx, 256, &a, &m), -EINVAL);
	assert_int_equal(a, 0);
	vport_close(ctx);
}

/* One device, port 1 with the MTUs ibv_query_port gave, port 2 without. */
static char *view(void (*fn)(FILE *, const struct devmon *))
{
	static struct dm_port ports[2];
	static struct dm_dev dev;
	static struct devmon m;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	memset(ports, 0, sizeof ports);
	memset(&dev, 0, sizeof dev);
	memset(&m, 0, sizeof m);
	for (unsigned i = 0; i < 2; i++) {
		ports[i].port = i + 1;
		ports[i].sysfs_ok = 1;
		snprintf(ports[i].sp.state, sizeof ports[i].sp.state, "ACTIVE");
		snprintf(ports[i].sp.link_layer, sizeof ports[i].sp.link_layer, "Ethernet");
		snprintf(ports[i].netdev, sizeof ports[i].netdev, "eth%u", i);
	}
	ports[0].active_mtu = 1024;
	ports[0].max_mtu = 4096;
	snprintf(dev.name, sizeof dev.name, "mlx5_0");
	dev.ports = ports;
	dev.nports = 2;
	m.devs = &dev;
	m.ndevs = 1;
	snprintf(m.nl_err, sizeof m.nl_err, "test");
	assert_non_null(f = open_memstream(&text, &len));
	fn(f, &m);
	fclose(f);
	return text;
}

static void test_views(void **state)
{
	char *t;

	(void)state;
	t = view(devmon_text);
	assert_non_null(strstr(t, "device mlx5_0 port 1: ACTIVE, Ethernet, active MTU 1024 (max 4096), netdev eth0\n"));
	assert_non_null(strstr(t, "device mlx5_0 port 2: ACTIVE, Ethernet, netdev eth1\n"));
	assert_null(strstr(t, "MTU 0"));
	free(t);
	t = view(devmon_json);
	assert_non_null(strstr(t, "\"port\":1,\"netdev\":\"eth0\"") );
	assert_non_null(strstr(t, "\"link_layer\":\"Ethernet\",\"active_mtu\":1024,\"max_mtu\":4096,"));
	assert_non_null(strstr(t, "\"link_layer\":\"Ethernet\",\"active_mtu\":null,\"max_mtu\":null,"));
	free(t);
	t = view(devmon_prom);
	assert_non_null(strstr(t, "# TYPE rocetop_rdma_port_active_mtu_bytes gauge\n"));
	assert_non_null(strstr(t, "\nrocetop_rdma_port_active_mtu_bytes{device=\"mlx5_0\",port=\"1\"} 1024\n"));
	assert_null(strstr(t, "rocetop_rdma_port_active_mtu_bytes{device=\"mlx5_0\",port=\"2\"}"));
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mtu_bytes),
		cmocka_unit_test(test_no_device),
		cmocka_unit_test(test_real_device),
		cmocka_unit_test(test_views),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
