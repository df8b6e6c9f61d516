#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""examples.py — every example command of README.md and of the man pages'
EXAMPLES sections, run as written, so the docs stay true (issue 25).

The commands are read from the documents each run (README.md's ```sh blocks,
the .EX/.nf blocks under .SH EXAMPLES), never copied here.  Each runs in a
shell in its own folder with only these substitutions, which a reader makes
too:
  - a capture name (capture.pcap, cap.pcap, rping.pcap, netem.pcap, lab.pcap,
    cap.pcapng) stands for a shipped capture of that kind;
  - eth0, eth1 and veth0 are veth interfaces of a network namespace the test
    makes, whose peers in a second namespace hold 10.0.0.2 and 192.168.1.2
    (the documents' peer addresses) and send a little RoCE traffic;
  - `--device NAME` runs on a recorded device tree (--device-replay);
  - /etc/rocetop/web.yml is a basic-auth web config written for the test;
  - a client example gets its server (and a server example its client) in
    the peer namespace, with the same transport, OOB, op, size and count;
  - a long run is cut to one that shows the same thing in less time (SHORTER
    below: make check's CPU, issue 26): a flood's `--count 1000000` at
    100,000 frames/s to 150,000 (still 1.5 s of pacing), a flood's
    `--duration 10` or `5` to 2 s (still many thousands of frames at the
    asked rate, with the same options), the 16,384-QP sweep's last point
    dropped (1 to 4,096 QPs still spans the 1,024-QP cache's knee: below,
    at and four times past it); each such run says so in its line.
A command fails the test when it exits non-zero (a live command stopped by
the test's timeout excepted) or prints nothing on stdout or into the file it
writes.  Commands that cannot run here are listed as skipped, each with the
test that covers it; the count of run commands must not fall below a floor.
Needs root (network namespaces); without it only the offline examples run.
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import queue
import concurrent.futures

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
BUILD = os.environ.get("BUILD", "build")
if not os.path.isabs(BUILD):
    BUILD = os.path.join(ROOT, BUILD)
BIN = os.path.join(BUILD, "bin")
IS_ROOT = os.geteuid() == 0
# Examples run WORKERS at a time, each worker in its own pair of namespaces
# (so ports and interfaces never collide); _ns holds the current pair.
WORKERS = 4
PAIRS = [("rtex-a%d-%d" % (os.getpid(), k), "rtex-b%d-%d" % (os.getpid(), k)) for k in range(WORKERS)]
_ns = threading.local()
CAP = {
    "capture.pcap": "captures/lab/roce_send_bw_netem.pcap",
    "cap.pcap": "captures/lab/roce_send_bw_netem.pcap",
    "netem.pcap": "captures/lab/roce_send_bw_netem.pcap",
    "rping.pcap": "captures/lab/roce_rping.pcap",
    "lab.pcap": "captures/lab/roce_write_bw.pcap",
}
DEVICE_REPLAY = "tests/fixtures/device/vma"    # rxe0 recorded in a lab guest
PROGS = ("rocetop", "rocegen", "rocetarget", "tshark", "curl", "make", "sudo", "cp", "lab")
# each has its own test, which says what it checks
SKIP = [
    (r"^make check\b", "the test command itself"),
    (r"^sudo ", "package installation and its setup: make check-deb (tests/deb.sh) installs, checks and purges the packages"),
    (r"rocegen conform --transport iwarp", "needs an iWARP peer (siw's rping): make interop (tests/conform_iwarp_lab.sh)"),
    (r"^(cp |lab )", "needs the soft-RoCE lab: make interop (tests/conform.sh)"),
    (r"\brocetarget\b|--target ", "needs rocetarget on an RDMA device: make interop (tests/conform.sh, stress_lab.sh)"),
    ("\u2026", "a fragment of a command line, not a command"),
    (r"-Z nobody", "drops to user nobody, who cannot write the test's folders (tests/live.sh checks -Z)"),
]
out_lines = []
fails = []


def say(s):
    print(s, flush=True)


def sh(cmd, timeout=60, ns=None, cwd=None, env=None):
    argv = ["bash", "-o", "pipefail", "-c", cmd]
    if ns:
        argv = ["ip", "netns", "exec", ns] + argv
    p = spawn(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        out, err = p.communicate(timeout=timeout)
        return p.returncode, out, err
    except subprocess.TimeoutExpired:
        out, err = stop(p)
        return 124, out or "", err or ""


def spawn(argv, **kw):
    """A process in its own session, so that stop() ends it and its children."""
    return subprocess.Popen(argv, start_new_session=True, text=True, errors="replace", **kw)


def ours_in_group(pgid):
    """rocetop and rocegen processes of a process group."""
    pids = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            st = open("/proc/%s/stat" % d).read()
        except OSError:
            continue
        comm, rest = st[st.index("(") + 1:st.rindex(")")], st[st.rindex(")") + 2:].split()
        if comm in ("rocetop", "rocegen") and int(rest[2]) == pgid:
            pids.append(int(d))
    return pids


def stop(p, timeout=0):
    """Waits up to timeout s, then stops our programs in p's process group
    as `kill -INT` would (they print their report and close their output, so
    a pipeline's gzip finishes its file), then the whole group: SIGINT,
    SIGTERM, SIGKILL; (out, err)."""
    try:
        return p.communicate(timeout=timeout) if timeout else p.communicate(timeout=0.01)
    except subprocess.TimeoutExpired:
        pass
    for pid in ours_in_group(p.pid):
        try:
            os.kill(pid, 2)
        except OSError:
            pass
    try:
        return p.communicate(timeout=3)
    except subprocess.TimeoutExpired:
        pass
    for sig, wait in ((2, 2), (15, 1), (9, None)):
        try:
            os.killpg(p.pid, sig)
        except OSError:
            pass
        try:
            return p.communicate(timeout=wait)
        except subprocess.TimeoutExpired:
            continue
    return p.communicate()


# ---- reading the documents ------------------------------------------------------------------------

def strip_comment(line):
    """Drops a trailing `# comment` outside quotes."""
    q = None
    for i, c in enumerate(line):
        if q:
            if c == q:
                q = None
        elif c in "'\"":
            q = c
        elif c == "#" and (i == 0 or line[i - 1] in " \t"):
            return line[:i].rstrip()
    return line.rstrip()


def join_continued(lines):
    cmds, cur = [], ""
    for l in lines:
        if cur:
            cur += " " + l.strip()
        else:
            cur = l.strip()
        if cur.endswith("\\"):
            cur = cur[:-1].rstrip()
            continue
        if cur:
            cmds.append(cur)
        cur = ""
    if cur:
        cmds.append(cur)
    return cmds


def readme_examples():
    lines, inblock = [], False
    for l in open(os.path.join(ROOT, "README.md")):
        if l.startswith("```"):
            inblock = l.strip() == "```sh"
            continue
        if inblock:
            lines.append(("README.md", l.rstrip("\n")))
    out, cur = [], []
    for src, l in lines:
        s = l.strip()
        if not s or s.startswith("#"):
            continue
        cur.append(strip_comment(l))
    return [("README.md", c) for c in join_continued(cur)]


def unroff(s):
    s = s.replace("\\-", "-").replace("\\e", "\\").replace("\\(aq", "'").replace("\\(dq", '"')
    return s.replace("\\&", "").replace("\\ ", " ")


def man_examples():
    res = []
    mandir = os.path.join(ROOT, "man")
    for name in sorted(os.listdir(mandir)):
        sec, inblock, lines = False, False, []
        for l in open(os.path.join(mandir, name)):
            l = l.rstrip("\n")
            if l.startswith(".SH"):
                sec = l.strip() == ".SH EXAMPLES"
                continue
            if not sec:
                continue
            if l.startswith((".EX", ".nf")):
                inblock = True
                continue
            if l.startswith((".EE", ".fi")):
                inblock = False
                continue
            if inblock and not l.startswith("."):
                lines.append(unroff(l))
        res += [(name, c) for c in join_continued(lines)]
    return res


# ---- the test's hosts -----------------------------------------------------------------------------

def netns_up(NSA, NSB):
    cmds = ["ip netns add %s" % NSA, "ip netns add %s" % NSB]
    addrs = {"eth0": ("10.0.0.1/24", "10.0.0.2/24"), "eth1": ("192.168.1.1/24", "192.168.1.2/24"),
             "veth0": ("10.0.1.1/24", "10.0.1.2/24")}
    for i, (ifa, (a, b)) in enumerate(addrs.items()):
        peer = "rtexp%d" % i
        cmds += ["ip link add %s netns %s type veth peer name %s netns %s" % (ifa, NSA, peer, NSB),
                 "ip -n %s addr add %s dev %s" % (NSA, a, ifa),
                 "ip -n %s addr add %s dev %s" % (NSB, b, peer),
                 "ip -n %s link set %s up" % (NSA, ifa), "ip -n %s link set %s up" % (NSB, peer)]
    # flood's --peer 10.0.0.2 is also reached through veth0
    cmds += ["ip -n %s addr add 10.0.0.2/32 dev rtexp2" % NSB,
             "ip -n %s route add 10.0.0.2/32 dev veth0 metric 50" % NSA]
    for ns in (NSA, NSB):
        cmds.append("ip -n %s link set lo up" % ns)
    for c in cmds:
        rc, _, err = sh(c)
        if rc != 0:
            raise SystemExit("examples.py: %s: %s" % (c, err.strip()))


def netns_down(NSA, NSB):
    for ns in (NSA, NSB):
        subprocess.run(["ip", "netns", "pids", ns], capture_output=True)
        pids = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True).stdout.split()
        for p in pids:
            try:
                os.kill(int(p), 9)
            except (OSError, ValueError):
                pass
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def background_traffic():
    """RoCE frames from the peers to eth0 and eth1 while a live example runs."""
    g = os.path.join(BIN, "rocegen")
    ps = []
    for ifb, dst in (("rtexp0", "10.0.0.1"), ("rtexp1", "192.168.1.1")):
        ps.append(spawn(["ip", "netns", "exec", _ns.b, g, "flood", "-i", ifb, "--dst", dst,
                         "--qps", "4", "--pps", "2000", "--duration", "30"],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    return ps


# ---- one example ----------------------------------------------------------------------------------

# (pattern, replacement, note): long runs cut (see the docstring)
SHORTER = [
    (r"(rocegen flood .*--pps 100000 .*)--count 1000000\b", r"\g<1>--count 150000",
     "--count 150000 for 1000000 (1.5 s at 100,000/s)"),
    (r"(rocegen flood .*)--duration (10|5)\b", r"\g<1>--duration 2", "--duration 2 for the example's"),
    (r"(--sweep-qps 1,16,256,1024,4096),16384\b", r"\g<1>", "the sweep to 4,096 QPs, not 16,384"),
]


def rewrite(cmd, work):
    """The reader's substitutions; returns (command, notes)."""
    notes = []
    for pat, rep, note in SHORTER:
        cmd, k = re.subn(pat, rep, cmd)
        if k:
            notes.append(note)
    caps = dict(CAP)
    if "host 10.0.0.1" in cmd:          # a filter for the documents' own addresses
        caps["capture.pcap"] = "captures/gen/opcodes_v2_ipv4.pcap"
    for name, path in caps.items():
        if re.search(r"(?<![\w/.-])%s(?![\w.])" % re.escape(name), cmd):
            dst = os.path.join(work, name)
            if not os.path.exists(dst):
                shutil.copy(os.path.join(ROOT, path), dst)
    if "cap.pcapng" in cmd:             # the lab capture with one bad ICRC, as pcapng
        subprocess.run([sys.executable, os.path.join(ROOT, "tests/mkpcapng.py"),
                        os.path.join(work, "cap.pcapng"), os.path.join(ROOT, "captures/lab/roce_host_inject.pcap")],
                       capture_output=True)
    if "/var/tmp/roce.pcap" in cmd:
        cmd = cmd.replace("/var/tmp/roce.pcap", os.path.join(work, "roce.pcap"))
        os.chmod(work, 0o777)
        notes.append("-w into the test's folder")
    if "--device" in cmd and "--device-replay" not in cmd:
        cmd = re.sub(r"(^|\s)(rocetop)(\s)", r"\1\2 --device-replay %s\3" % os.path.join(ROOT, DEVICE_REPLAY),
                      cmd, count=1)
        cmd = re.sub(r"--device all", "--device all", cmd)
        notes.append("on a recorded rxe0 (--device-replay)")
    if "/etc/rocetop/web.yml" in cmd:
        cmd = cmd.replace("/etc/rocetop/web.yml", os.path.join(work, "web.yml"))
        notes.append("basic-auth web config")
    for prog in ("rocetop", "rocegen", "rocetarget"):
        cmd = re.sub(r"(^|[|;&(]\s*|sudo\s+)%s(?=\s|$)" % prog, r"\g<1>%s" % os.path.join(BIN, prog), cmd)
    return cmd, notes


def is_live(cmd):
    """Runs until stopped: a live capture, a device view or a flood without -n,
    --count or --duration."""
    if re.search(r"(^|\s)(-n|--count|--duration)\s", cmd):
        return False
    return bool(re.search(r"(^|\s)-i\s", cmd) and "rocetop" in cmd) or "--device" in cmd \
        or cmd.startswith("rocegen flood")


def counterpart(cmd):
    """The peer's half of a client or server example: the same transport,
    OOB, op, size and count, toward this side's address."""
    try:
        w = shlex.split(cmd)
    except ValueError:
        return None
    if len(w) < 2 or not w[0].endswith("rocegen") or w[1] not in ("client", "server"):
        return None
    keep = {"--transport", "--oob", "--app", "--op", "--size", "--iters", "--crc", "--markers", "--rtr"}
    flags_only = {"--crc", "--markers"}
    peer = None
    args = []
    i = 2
    while i < len(w):
        a = w[i]
        if a == "--peer" and i + 1 < len(w):
            peer = w[i + 1]
            i += 2
            continue
        if a in keep:
            if a in flags_only:
                args.append(a)
                i += 1
            else:
                args += [a, w[i + 1]]
                i += 2
            continue
        if a.startswith("-") and i + 1 < len(w) and not w[i + 1].startswith("-") and a not in ("--json",):
            i += 2
            continue
        i += 1
    side = "server" if w[1] == "client" else "client"
    iwarp = "iwarp" in args
    here = {"10.0.0.2": "10.0.0.1", "192.168.1.2": "192.168.1.1"}.get(peer or "10.0.0.2", "10.0.0.1")
    base = [w[0], side]
    if not iwarp:
        base += ["-i", "rtexp0"]
    if side == "client" or not iwarp:
        base += ["--peer", here]
    return base + args + ["--timeout", "30"]


def run_one(src, raw, work):
    for pat, why in SKIP:
        if re.search(pat, raw):
            return "skip", why
    words = raw.split()
    if not words:
        return "skip", "empty"
    prog = words[0]
    if os.environ.get("SAN") == "1" and (prog == "tshark" or src.startswith("rocetop-wireshark")):
        return "skip", "SAN=1: tshark cannot load a plugin linked with a sanitized libroce (the normal build runs it)"
    if prog not in PROGS:
        # a Wireshark display filter (rocetop-wireshark.7): it must compile
        if src.startswith("rocetop-wireshark"):
            return run_filter(raw, work)
        if src.startswith("libroce"):
            return "skip", "C code, a fragment of a program (tests/exports.sh builds against libroce.h)"
        return "skip", "not a command (%s)" % prog
    if prog == "curl":
        return run_curl(raw, work)
    live = is_live(raw) or "--prometheus" in raw or (re.search(r"(^|\s)-i\s", raw) and prog == "rocetop")
    if live and not IS_ROOT:
        return "skip", "live: needs root for the test's network namespaces"
    cmd, notes = rewrite(raw, work)
    env = dict(os.environ)
    env.pop("TERM", None)           # no terminal here: the TUI falls back to -b and says so
    env["TZ"] = "UTC"
    if prog == "tshark":
        return run_tshark(cmd, work)
    if prog == "make":
        cmd = cmd.replace("make run", "make --no-print-directory -C %s run BUILD=%s SAN=%s"
                          % (ROOT, BUILD, os.environ.get("SAN", "")))
    files_before = set(os.listdir(work))
    peer = None
    if prog == "rocegen" and words[1:2] and words[1] in ("client", "server"):
        if not IS_ROOT:
            return "skip", "needs root for the test's network namespaces"
        cp = counterpart(cmd)
        if cp is None:
            return "skip", "no counterpart"
        notes.append("peer: %s" % " ".join(os.path.basename(cp[0]) if i == 0 else a for i, a in enumerate(cp)))
        if words[1] == "client":
            peer = spawn(["ip", "netns", "exec", _ns.b] + cp, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            time.sleep(1.0)
        else:
            # the server here first, the client there once it is ready
            pass
    traffic = background_traffic() if IS_ROOT and (is_live(raw) or "--prometheus" in raw) else []
    try:
        if prog == "rocegen" and words[1:2] == ["server"]:
            srv = spawn(["ip", "netns", "exec", _ns.a, "bash", "-c", cmd], cwd=work, env=env,
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            time.sleep(1.0)
            cp = counterpart(cmd)
            crc, _, cerr = sh(" ".join(shlex.quote(a) for a in cp), timeout=60, ns=_ns.b)
            out, err = stop(srv, 40)
            rc = srv.returncode if srv.returncode is not None else 124
            if crc != 0:
                return "fail", "its client (%s) exited %d: %s" % (" ".join(cp[1:]), crc, cerr.strip()[-200:])
        elif "--prometheus" in raw and "--linger" in raw or ("--prometheus" in raw and is_live(raw)):
            return run_exporter(cmd, raw, work, env, notes)
        else:
            # a finite example gets 120 s, 300 s under the sanitizers: the
            # README's 16,384-QP sweep took ~25 s of CPU there (4,096 QPs now,
            # SHORTER), and a loaded machine stretched it past 120 s of wall time
            work_s = 300 if os.environ.get("SAN") == "1" else 120
            timeout = 4 if live or (re.search(r"(^|\s)-i\s", raw) and prog == "rocetop") else work_s
            rc, out, err = sh(cmd, timeout=timeout, ns=_ns.a if IS_ROOT else None, cwd=work, env=env)
            if live and rc == 124:
                rc = 0
                notes.append("live, stopped after %d s" % timeout)
    finally:
        for p in traffic:
            stop(p)
    if peer is not None:
        pout, perr = stop(peer, 40)
        if peer.returncode != 0 and "--fault" not in raw:
            return "fail", "its peer exited %s: %s" % (peer.returncode, perr.strip()[-200:])
        if peer.returncode != 0:
            notes.append("its peer exited %d, as the fault makes it" % peer.returncode)
    new = [f for f in set(os.listdir(work)) - files_before
           if os.path.getsize(os.path.join(work, f)) > 0]
    fired = re.search(r"faults fired: \S+ [1-9]", out + err)
    if rc == 1 and "--fault" in raw and fired:
        notes.append("exit 1, as the fault makes it (%s)" % (out.strip().splitlines() or [""])[-2].strip()[:120])
        rc = 0
    if rc != 0:
        return "fail", "exit %d: %s" % (rc, (err.strip().splitlines() or [""])[-1][:200])
    sent = re.search(r"\bframes=([1-9]\d*)", err) if prog == "rocegen" else None
    if not out.strip() and not new and not sent:
        return "fail", "no output (stderr: %s)" % (err.strip().splitlines() or ["(none)"])[-1][:200]
    if re.search(r"-r \S+ .*-b -d ", raw):
        snaps = len(re.findall(r"^rocetop \d+ - ", out, re.M))
        if snaps < 2:
            return "fail", "a replay with -b -d printed %d snapshot(s): the interval does not fit the capture" % snaps
        notes.append("%d snapshots" % snaps)
    what = "%d lines" % len(out.splitlines()) if out.strip() else \
        "wrote %s" % ", ".join(sorted(new)) if new else "sent %s frames (its report on stderr)" % sent.group(1)
    return "ok", what + ("; " + "; ".join(notes) if notes else "")


def run_exporter(cmd, raw, work, env, notes):
    """An exporter example: served /metrics must carry rocetop's series."""
    m = re.search(r"--prometheus\s+([\d.]+):(\d+)", raw)
    host, port = m.group(1), m.group(2)
    if host == "0.0.0.0":
        host = "127.0.0.1"
    if "| grep" not in cmd and ">" not in cmd:
        cmd += " > /dev/null"
    p = spawn(["ip", "netns", "exec", _ns.a, "bash", "-c", cmd], cwd=work, env=env,
              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    auth = ""
    if "web.yml" in cmd:
        auth = "-u example:example-password"
    body = ""
    for _ in range(60):
        time.sleep(0.25)
        rc, body, _ = sh("curl -sf -m 2 %s http://%s:%s/metrics" % (auth, host, port), timeout=10, ns=_ns.a)
        if rc == 0 and "rocetop_" in body:
            break
        if p.poll() is not None:
            break
    alive = p.poll() is None
    _, err = stop(p)
    if "rocetop_" not in body:
        return "fail", "no rocetop_ series served at %s:%s (%s)" % (host, port,
                                                                  (err.strip().splitlines() or ["alive" if alive else "exited"])[-1][:200])
    n = sum(1 for l in body.splitlines() if l.startswith("rocetop_"))
    return "ok", "served %d rocetop_ samples%s" % (n, "; " + "; ".join(notes) if notes else "")


def run_curl(raw, work):
    """A scrape example: against a replay of the lossy lab capture served on
    the example's port."""
    m = re.search(r"http://([\d.]+):(\d+)/", raw)
    shutil.copy(os.path.join(ROOT, CAP["netem.pcap"]), os.path.join(work, "netem.pcap"))
    exp = spawn(["ip", "netns", "exec", _ns.a, os.path.join(BIN, "rocetop"), "-r", "netem.pcap",
                 "--prometheus", "%s:%s" % (m.group(1), m.group(2)), "--linger"], cwd=work,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(40):
            time.sleep(0.25)
            rc, out, err = sh(raw, timeout=10, ns=_ns.a, cwd=work)
            if rc == 0 and out.strip():
                return "ok", "%d lines, from a replay of roce_send_bw_netem served there" % len(out.splitlines())
        return "fail", "exit %d, %d bytes: %s" % (rc, len(out), err.strip()[-200:])
    finally:
        stop(exp)


_tshark_ver = []
_tshark_lock = threading.Lock()


def tshark_version():
    """"MAJOR.MINOR" of tshark, asked once (a tshark start is ~0.5 s of CPU)."""
    with _tshark_lock:
        if not _tshark_ver:
            ver = subprocess.run(["tshark", "--version"], capture_output=True, text=True).stdout
            mm = re.search(r"TShark \(Wireshark\) (\d+)\.(\d+)", ver)
            _tshark_ver.append("%s.%s" % (mm.group(1), mm.group(2)))
        return _tshark_ver[0]


def tshark_env(work):
    home = os.path.join(work, "home")
    pdir = os.path.join(home, ".local/lib/wireshark/plugins")
    if not os.path.isdir(home):
        d = os.path.join(pdir, tshark_version(), "epan")
        os.makedirs(d)
        shutil.copy(os.path.join(BUILD, "plugin/roce.so"), d)
        subprocess.run(["chmod", "-R", "a+rX", work])
    return home


def as_nobody(cmd, work):
    # tshark as root ignores plugins in ~/.local: run it as nobody
    home = tshark_env(work)
    pre = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"] if IS_ROOT else []
    r = subprocess.run(pre + ["env", "HOME=" + home, "bash", "-o", "pipefail", "-c", cmd], cwd=work,
                       capture_output=True, text=True, timeout=120)
    return r.returncode, r.stdout, r.stderr


def run_tshark(cmd, work):
    if not os.path.exists(os.path.join(BUILD, "plugin/roce.so")):
        return "fail", "the plugin is not built"
    rc, out, err = as_nobody(cmd, work)
    if rc != 0:
        return "fail", "exit %d: %s" % (rc, (err.strip().splitlines() or [""])[-1][:200])
    if not out.strip():
        return "fail", "no output"
    return "ok", "%d lines" % len(out.splitlines())


def run_filter(flt, work):
    shutil.copy(os.path.join(ROOT, CAP["cap.pcap"]), os.path.join(work, "f.pcap"))
    rc, out, err = as_nobody("tshark -2 --disable-protocol rpcordma -r f.pcap -Y %s -T fields -e frame.number"
                             % shlex.quote(flt), work)
    if rc != 0:
        return "fail", "display filter does not compile: %s" % (err.strip().splitlines() or [""])[-1][:200]
    return "ok", "display filter: %d frames of roce_send_bw_netem" % len(out.split())


def main():
    ex = readme_examples() + man_examples()
    top = tempfile.mkdtemp(prefix="examples.")
    subprocess.run(["chmod", "755", top])
    counts = {"ok": 0, "fail": 0, "skip": 0}
    free = queue.Queue()
    for pair in PAIRS:
        free.put(pair)

    def one(n, src, raw):
        work = os.path.join(top, "%02d" % n)
        os.makedirs(work)
        if "web.yml" in raw:
            h = subprocess.run(["htpasswd", "-nbB", "example", "example-password"],
                               capture_output=True, text=True).stdout.strip()
            with open(os.path.join(work, "web.yml"), "w") as f:
                f.write("basic_auth_users:\n  %s: '%s'\n" % tuple(h.split(":", 1)))
        _ns.a, _ns.b = pair = free.get()
        t0 = time.time()
        try:
            return run_one(src, raw, work) + (time.time() - t0,)
        except subprocess.TimeoutExpired:
            return "fail", "timed out", time.time() - t0
        finally:
            free.put(pair)

    try:
        if IS_ROOT:
            for pair in PAIRS:
                netns_up(*pair)
        with concurrent.futures.ThreadPoolExecutor(WORKERS) as pool:
            futs = [pool.submit(one, n, src, raw) for n, (src, raw) in enumerate(ex)]
            for (src, raw), fut in zip(ex, futs):     # reported in the documents' order
                res, why, secs = fut.result()
                counts[res] += 1
                say("%-4s %-18s %s\n     %s%s" % (res, src, raw, why, " (%.1f s)" % secs if res != "skip" else ""))
                if res == "fail":
                    fails.append(raw)
    finally:
        if IS_ROOT:
            for pair in PAIRS:
                netns_down(*pair)
        if not os.environ.get("KEEP"):
            shutil.rmtree(top, ignore_errors=True)
    floor = (30 if IS_ROOT else 12) - (7 if os.environ.get("SAN") == "1" else 0)
    say("examples: %d run ok, %d failed, %d skipped (of %d in README.md and the man pages' EXAMPLES)"
        % (counts["ok"], counts["fail"], counts["skip"], len(ex)))
    if counts["ok"] < floor:
        say("examples: FAIL: only %d examples ran (floor %d): did the documents' layout change?"
            % (counts["ok"], floor))
        return 1
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
