/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * plugin.c — the four symbols Wireshark 4.0 looks for in an epan plugin.
 */
#include <ws_version.h>
#include <ws_symbol_export.h>
#include <epan/proto.h>

#ifndef ROCE_VERSION
#define ROCE_VERSION "0"
#endif

void proto_register_roce(void);
void proto_reg_handoff_roce(void);

WS_DLL_PUBLIC_DEF const char plugin_version[] = ROCE_VERSION;
WS_DLL_PUBLIC_DEF const int plugin_want_major = WIRESHARK_VERSION_MAJOR;
WS_DLL_PUBLIC_DEF const int plugin_want_minor = WIRESHARK_VERSION_MINOR;

WS_DLL_PUBLIC void plugin_register(void);

void plugin_register(void)
{
	static proto_plugin plug;

	plug.register_protoinfo = proto_register_roce;
	plug.register_handoff = proto_reg_handoff_roce;
	proto_register_plugin(&plug);
}
