#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""counter_deltas.py DIR: the counter deltas of both lab guests over a capture window.

DIR holds vma.before, vma.after, vmb.before and vmb.after, each the output of
`lab counters GUEST` (name=value lines) read after tcpdump started and before it
stopped.  Prints GUEST.NAME=after-before for every integer counter, sorted by
name: the NAME.counters file that goes with a lab capture.  Used by the
record_*.sh scripts of this folder.
"""
import os
import sys


def kv(path):
    r = {}
    for line in open(path):
        if '=' in line:
            k, v = line.strip().split('=', 1)
            r[k] = v
    return r


d = sys.argv[1]
for vm in ('vma', 'vmb'):
    a, b = kv(os.path.join(d, vm + '.before')), kv(os.path.join(d, vm + '.after'))
    for k in sorted(b):
        try:
            print('%s.%s=%d' % (vm, k, int(b[k]) - int(a.get(k, 0))))
        except ValueError:
            pass
