#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# prom_tls.sh — `--prometheus ADDR --web-config FILE`: /metrics over TLS
# with basic authentication, the way exporter-toolkit's web config does it.
#
# 1. A test CA, a server and a client certificate it signs (openssl) and a
#    bcrypt hash (htpasswd -nbB), made here; rocetop replays a lab capture
#    with --linger and serves it.
# 2. curl over HTTPS (--cacert): the right user and password get 200 and
#    the exposition (rocetop_frames_total equal to the JSON summary's
#    frames), again and again; a wrong password, an unknown user, no
#    credentials get 401 with WWW-Authenticate: Basic; plain HTTP fails
#    (the TLS handshake refuses it); a half-open client that connected and
#    sent half a ClientHello does not stop the next scrape.  A second
#    rocetop with RequireAndVerifyClientCert (client_ca_file: the test CA)
#    and min_version TLS13: the CA's client certificate gets 200; none, a
#    self-signed one, TLS 1.2 are refused.
# 3. Bad configurations: an unknown key, a missing key_file, a tab, a
#    certificate that is not there, --web-config without --prometheus: exit
#    status 2 and one line on stderr naming the file (and line) and the problem.
# 4. A real Prometheus scrapes it with tls_config (ca_file) and basic_auth:
#    up is 1; a job with a wrong password and one trusting another CA
#    than the test CA have up 0.
# Polls, never sleeps a fixed time; everything it started is stopped and
# its directory removed on exit.
#
#   BUILD=build tests/prom_tls.sh
set -u
BUILD=${BUILD:-build}
cd "$(dirname "$0")/.."
R=$BUILD/bin/rocetop
CAP=captures/lab/roce_write_bw_rdmacm.pcap
if [ ! -x "$R" ]; then
	echo "prom_tls: $R not built" >&2
	exit 2
fi
for t in openssl curl htpasswd python3 prometheus; do
	if ! command -v $t >/dev/null 2>&1; then
		echo "prom_tls: $t not installed (make deps)" >&2
		exit 2
	fi
done
T=$(mktemp -d /tmp/rocetop-prom-tls.$$.XXXXXX)
rpid=
ppid_=
hpid=
mpid=
cleanup() {
	[ -n "$mpid" ] && kill "$mpid" 2>/dev/null && wait "$mpid" 2>/dev/null
	[ -n "$hpid" ] && kill "$hpid" 2>/dev/null && wait "$hpid" 2>/dev/null
	[ -n "$rpid" ] && kill "$rpid" 2>/dev/null && wait "$rpid" 2>/dev/null
	[ -n "$ppid_" ] && kill "$ppid_" 2>/dev/null && wait "$ppid_" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
fails=0
oks=0
ok() { echo "ok    $*"; oks=$((oks + 1)); }
fail() { echo "FAIL  $*"; fails=$((fails + 1)); }

read -r P1 P2 < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')

# ---- 1. a certificate, a hash, rocetop ----------------------------------------------------
# a test CA of the test's own; the server's and the scraper's certificates are signed by it
EC="-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
signed() {   # name, subject, extensions: NAME.key and NAME.crt signed by the test CA
	openssl req $EC -subj "$2" -keyout "$T/$1.key" -out "$T/$1.csr" >>"$T/openssl.log" 2>&1 &&
		printf '%s\n' "$3" >"$T/$1.ext" &&
		openssl x509 -req -in "$T/$1.csr" -CA "$T/ca.crt" -CAkey "$T/ca.key" -CAcreateserial -days 2 \
			-extfile "$T/$1.ext" -out "$T/$1.crt" >>"$T/openssl.log" 2>&1
}
if ! openssl req -x509 $EC -days 2 -subj "/CN=rocetop test CA" \
	-addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
	-keyout "$T/ca.key" -out "$T/ca.crt" >"$T/openssl.log" 2>&1 ||
	! signed server /CN=localhost "subjectAltName=IP:127.0.0.1,DNS:localhost
extendedKeyUsage=serverAuth" || ! signed client /CN=scraper "extendedKeyUsage=clientAuth"; then
	echo "prom_tls: openssl failed: $(cat "$T/openssl.log")" >&2
	exit 1
fi
HASH=$(htpasswd -nbB -C 12 alice 's3cret pass' | cut -d: -f2-)
case $HASH in '$2y$'*) ;; *) echo "prom_tls: htpasswd made no bcrypt hash: $HASH" >&2; exit 1 ;; esac
cat >"$T/web.yml" <<EOF
# rocetop --web-config, exporter-toolkit's keys
tls_server_config:
  cert_file: server.crt        # relative: to this file's directory
  key_file: "$T/server.key"
  min_version: TLS12
basic_auth_users:
  alice: '$HASH'
EOF
"$R" -r $CAP --json --prometheus 127.0.0.1:$P1 --web-config "$T/web.yml" --linger >"$T/sum.json" 2>"$T/rocetop.err" &
rpid=$!
code() { curl -s -o "$T/body" -D "$T/hdr" -w '%{http_code}' --max-time 10 "$@"; }
URL=https://127.0.0.1:$P1/metrics
got=
for _ in $(seq 600); do
	grep -q '"type":"summary"' "$T/sum.json" 2>/dev/null &&
		got=$(code --cacert "$T/ca.crt" -u 'alice:s3cret pass' $URL) && [ "$got" = 200 ] && break
	kill -0 "$rpid" 2>/dev/null || break
	sleep 0.1
done
frames=$(python3 -c 'import json,sys; print([json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")][-1]["frames"])' "$T/sum.json" 2>/dev/null)
if [ "$got" = 200 ] && [ -n "$frames" ] && grep -qx "rocetop_frames_total $frames" "$T/body"; then
	ok "https with the right password: 200, rocetop_frames_total $frames as in the JSON summary"
else
	fail "https with the right password: status '$got', frames '$frames'; $(head -c 300 "$T/rocetop.err")"
fi
n=0
for _ in 1 2 3 4 5; do
	[ "$(code --cacert "$T/ca.crt" -u 'alice:s3cret pass' $URL)" = 200 ] && n=$((n + 1))
done
[ $n = 5 ] && ok "5 more scrapes with the right password (the verified password is cached): 200 each" ||
	fail "only $n of 5 scrapes with the right password got 200"

# the cache: a verified password skips bcrypt (cost 12: a good part of a
# second), a wrong one never seen before does not
tmin() {   # the shortest of three requests, in ms; $1 gets a counter appended
	local best= t pw=$1
	shift
	for i in 1 2 3; do
		t=$(curl -s -o /dev/null -w '%{time_total}' --max-time 20 --cacert "$T/ca.crt" -u "$pw${pw:+$i}" "$@" $URL)
		t=$(python3 -c 'import sys; print(int(float(sys.argv[1]) * 1000))' "$t")
		[ -z "$best" ] || [ "$t" -lt "$best" ] && best=$t
	done
	echo "$best"
}
right=$(tmin "" -u 'alice:s3cret pass')
wrong=$(tmin "alice:wrong")
[ "$right" -lt "$wrong" ] && ok "cached: a scrape with the verified password takes $right ms, one with a new wrong password $wrong ms (bcrypt)" ||
	fail "no cache seen: the verified password takes $right ms, a new wrong one $wrong ms"

# ---- 2. what is refused -------------------------------------------------------------------
refused() {   # name, curl's arguments
	local name=$1 got
	shift
	got=$(code --cacert "$T/ca.crt" "$@" $URL)
	if [ "$got" = 401 ] && grep -qi '^WWW-Authenticate: Basic' "$T/hdr" && ! grep -q rocetop_frames_total "$T/body"; then
		ok "$name: 401 with WWW-Authenticate: Basic, no metrics"
	else
		fail "$name: status '$got'; $(tr -d '\r' <"$T/hdr" | head -3)"
	fi
}
refused "wrong password" -u 'alice:s3cret'
refused "unknown user" -u 'bob:s3cret pass'
refused "no credentials"
refused "not Basic" -H 'Authorization: Bearer abc'
got=$(curl -s -o "$T/body" -w '%{http_code}' --max-time 10 -u 'alice:s3cret pass' http://127.0.0.1:$P1/metrics)
rc=$?
if [ $rc -ne 0 ] && [ "$got" = 000 ]; then
	ok "plain HTTP refused (curl exit $rc, no HTTP answer)"
else
	fail "plain HTTP answered: status '$got', curl exit $rc"
fi
got=$(code -u 'alice:s3cret pass' $URL)
[ "$got" = 000 ] && ok "https without the CA certificate: curl refuses a server signed by a CA it does not know" ||
	fail "https without --cacert: status '$got'"
# a client that connects and sends half a ClientHello, then nothing
python3 - "$P1" "$T/half" <<'EOF' &
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(bytes.fromhex("160301020001"))     # a record header and a ClientHello's first byte
open(sys.argv[2], "w").write("connected\n")
time.sleep(60)
EOF
hpid=$!
for _ in $(seq 100); do [ -s "$T/half" ] && break; sleep 0.1; done
start=$(date +%s%N)
got=$(code --cacert "$T/ca.crt" -u 'alice:s3cret pass' $URL)
ms=$((($(date +%s%N) - start) / 1000000))
if [ -s "$T/half" ] && [ "$got" = 200 ] && kill -0 "$hpid" 2>/dev/null; then
	ok "a half-open TLS client does not hold up the server: the next scrape got 200 in $ms ms"
else
	fail "with a half-open TLS client connected: status '$got' after $ms ms"
fi
kill "$hpid" 2>/dev/null
wait "$hpid" 2>/dev/null
hpid=

# client certificates: RequireAndVerifyClientCert against the test CA, no basic auth
read -r P3 < <(python3 -c '
import socket
x = socket.socket(); x.bind(("127.0.0.1", 0)); print(x.getsockname()[1])')
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=other \
	-keyout "$T/other.key" -out "$T/other.crt" >>"$T/openssl.log" 2>&1
printf '%s\n' "tls_server_config:" "  cert_file: server.crt" "  key_file: server.key" \
	"  client_ca_file: ca.crt" "  client_auth_type: RequireAndVerifyClientCert" "  min_version: TLS13" >"$T/mtls.yml"
"$R" -r $CAP -b --prometheus 127.0.0.1:$P3 --web-config "$T/mtls.yml" --linger >/dev/null 2>"$T/mtls.err" &
mpid=$!
MURL=https://127.0.0.1:$P3/metrics
got=
for _ in $(seq 300); do
	got=$(curl -s -o "$T/body" -w '%{http_code}' --max-time 10 --cacert "$T/ca.crt" \
		--cert "$T/client.crt" --key "$T/client.key" $MURL) && [ "$got" = 200 ] && break
	kill -0 "$mpid" 2>/dev/null || break
	sleep 0.1
done
nocert=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 --cacert "$T/ca.crt" $MURL)
other=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 --cacert "$T/ca.crt" \
	--cert "$T/other.crt" --key "$T/other.key" $MURL)
tls12=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 --cacert "$T/ca.crt" --tls-max 1.2 \
	--cert "$T/client.crt" --key "$T/client.key" $MURL)
if [ "$got" = 200 ] && grep -q '^rocetop_frames_total ' "$T/body" && [ "$nocert" != 200 ] && [ "$other" != 200 ] &&
	[ "$tls12" != 200 ]; then
	ok "RequireAndVerifyClientCert: the test CA's client gets 200; none, a self-signed one, TLS 1.2 under min_version TLS13: refused"
else
	fail "client certificates: right $got, none $nocert, other $other, TLS 1.2 $tls12; $(head -c 300 "$T/mtls.err")"
fi
kill "$mpid" 2>/dev/null
wait "$mpid" 2>/dev/null
mpid=

# ---- 3. bad configurations ----------------------------------------------------------------
bad_cfg() {   # name, expected text in the message, then the file's lines
	local name=$1 want=$2 rc
	shift 2
	printf '%s\n' "$@" >"$T/bad.yml"
	"$R" -r $CAP -b --prometheus 127.0.0.1:0 --web-config "$T/bad.yml" >/dev/null 2>"$T/bad.err"
	rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l <"$T/bad.err")" -eq 1 ] && grep -qF -- "$want" "$T/bad.err"; then
		ok "$name: exit 2, one line: $(cat "$T/bad.err")"
	else
		fail "$name: exit $rc, wanted one line with '$want': $(cat "$T/bad.err")"
	fi
}
bad_cfg "unknown key" "bad.yml:3: tls_server_config: unknown key 'cert_flie'" \
	"tls_server_config:" "  key_file: $T/server.key" "  cert_flie: $T/server.crt"
bad_cfg "unknown top-level key" "bad.yml:1: unknown key 'basic_auth'" "basic_auth:" "  alice: '$HASH'"
bad_cfg "missing key_file" "tls_server_config needs cert_file and key_file" \
	"tls_server_config:" "  cert_file: $T/server.crt"
bad_cfg "a tab" "bad.yml:2: a tab" "basic_auth_users:" "	alice: '$HASH'"
bad_cfg "not a bcrypt hash" "bad.yml:2: basic_auth_users: user 'alice': not a bcrypt hash" \
	"basic_auth_users:" "  alice: plaintext"
bad_cfg "bad client_auth_type" "bad.yml:4: client_auth_type 'Yes'" \
	"tls_server_config:" "  cert_file: $T/server.crt" "  key_file: $T/server.key" "  client_auth_type: Yes"
bad_cfg "a certificate that is not there" "$T/nothere.crt" \
	"tls_server_config:" "  cert_file: $T/nothere.crt" "  key_file: $T/server.key"
"$R" -r $CAP -b --web-config "$T/web.yml" >/dev/null 2>"$T/bad.err"
rc=$?
[ $rc -eq 2 ] && grep -q -- "--web-config needs --prometheus" "$T/bad.err" &&
	ok "--web-config without --prometheus: exit 2" || fail "--web-config without --prometheus: exit $rc: $(cat "$T/bad.err")"
"$R" -r $CAP -b --prometheus 127.0.0.1:0 --web-config "$T/none.yml" >/dev/null 2>"$T/bad.err"
rc=$?
[ $rc -eq 2 ] && grep -q "none.yml: No such file" "$T/bad.err" &&
	ok "a --web-config file that is not there: exit 2" || fail "missing --web-config file: exit $rc: $(cat "$T/bad.err")"

# ---- 4. a real Prometheus, over TLS with basic auth ---------------------------------------
cat >"$T/prometheus.yml" <<EOF
global:
  scrape_interval: 300ms
  scrape_timeout: 250ms
scrape_configs:
  - job_name: rocetop
    scheme: https
    tls_config:
      ca_file: $T/ca.crt
    basic_auth:
      username: alice
      password: 's3cret pass'
    static_configs:
      - targets: ['127.0.0.1:$P1']
  - job_name: wrongpass
    scheme: https
    tls_config:
      ca_file: $T/ca.crt
    basic_auth:
      username: alice
      password: wrong
    static_configs:
      - targets: ['127.0.0.1:$P1']
  - job_name: otherca
    scheme: https
    tls_config:
      ca_file: $T/other.crt
    basic_auth:
      username: alice
      password: 's3cret pass'
    static_configs:
      - targets: ['127.0.0.1:$P1']
EOF
prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/data" \
	--web.listen-address=127.0.0.1:$P2 --log.level=warn >"$T/prometheus.log" 2>&1 &
ppid_=$!
if python3 - "$P2" "$frames" <<'EOF'; then ok "Prometheus over TLS (the test CA) + basic auth: up 1 and the frames; a wrong password: up 0; trusting another CA: up 0"; else fail "Prometheus scraping over TLS (see above)"; fi
import json, sys, time, urllib.parse, urllib.request
api = "http://127.0.0.1:%s/api/v1/query?query=" % sys.argv[1]
def q(expr):
    try:
        r = json.load(urllib.request.urlopen(api + urllib.parse.quote(expr), timeout=5))
    except OSError:
        return None
    res = r["data"]["result"] if r.get("status") == "success" else []
    return float(res[0]["value"][1]) if res else None
want = {'up{job="rocetop"}': 1.0, 'up{job="wrongpass"}': 0.0, 'up{job="otherca"}': 0.0,
        'rocetop_frames_total{job="rocetop"}': float(sys.argv[2] or -1)}
got = {}
deadline = time.time() + 60
while time.time() < deadline and got != want:
    got = {k: q(k) for k in want}
    time.sleep(0.2)
for k in want:
    if got.get(k) != want[k]:
        print("prom_tls: %s = %s, want %s" % (k, got.get(k), want[k]))
sys.exit(0 if got == want else 1)
EOF

kill -TERM "$rpid"
wait "$rpid"
rc=$?
rpid=
[ $rc -eq 0 ] && ok "SIGTERM ends it with status 0" || fail "status $rc after SIGTERM"
echo "prom_tls: $oks ok, $fails failed"
[ "$fails" -eq 0 ]
