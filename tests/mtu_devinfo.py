#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""mtu_devinfo.py JSON DEVINFO LABEL [--or-sizes]: the first port's active_mtu and
max_mtu in rocetop's last --device JSON snapshot against `ibv_devinfo -i 1`'s
("active_mtu:\t\t1024 (3)", "max_mtu:\t\t4096 (5)").  Prints one ok/FAIL line;
exit 1 on FAIL.  --or-sizes: with no ibv_devinfo output to compare, MTU sizes
that can be (active <= max) pass.  Used by tests/device.sh (host rxe) and
tests/interop_device.sh (the lab's rxe)."""
import json
import re
import sys

path, info_path, label = sys.argv[1:4]
or_sizes = "--or-sizes" in sys.argv[4:]
snaps = [json.loads(l) for l in open(path) if l.startswith("{")]
if not snaps:
    print("FAIL %s: no JSON snapshot in %s to read the MTUs of" % (label, path))
    sys.exit(1)
p = snaps[-1]["devices"][0]["ports"][0]
got = (p.get("active_mtu"), p.get("max_mtu"))
info = open(info_path).read()
want = tuple(int(m.group(1)) if m else None for m in
             (re.search(r"^\s*%s:\s*(\d+)\s*\(\d+\)" % k, info, re.M) for k in ("active_mtu", "max_mtu")))
if None in want and or_sizes:
    sizes = (256, 512, 1024, 2048, 4096)
    good = got[0] in sizes and got[1] in sizes and got[0] <= got[1]
    print(("ok   " if good else "FAIL ") + "%s: active_mtu %s, max_mtu %s (no ibv_devinfo to compare)" % ((label,) + got))
else:
    good = None not in want and got == want
    print(("ok   " if good else "FAIL ") + "%s: rocetop's active_mtu, max_mtu %s; ibv_devinfo's %s" % (label, got, want))
sys.exit(0 if good else 1)
