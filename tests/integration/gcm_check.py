#!/usr/bin/env python3
"""Compare `ringside gcm --json --events` records with gcm_workload's own tally.

usage: gcm_check.py EXPECT_FILE RINGSIDE_JSON PID
Prints PASS/FAIL lines. Workload lines "expect tls ..." are TLS 1.3 records,
which libcrypto seals and opens: they add to the openssl rows, and only their
count and AAD (5 bytes each) are known to the workload.
"""
import collections
import subprocess
import json
import os
import sys

expect_file, json_file, pid = sys.argv[1], sys.argv[2], int(sys.argv[3])
Row = lambda: {"ops": 0, "aad": 0, "payload": 0, "tagfail": 0, "unchecked": 0}
want = collections.defaultdict(Row)
payload_known = collections.defaultdict(lambda: True)
for line in open(expect_file):
    f = line.split()
    if not f or f[0] != "expect":
        continue
    lib, d, bits = f[1], f[2], int(f[3])
    kv = dict(x.split("=") for x in f[4:])
    if lib == "tls":
        lib = "openssl"
        payload_known[(lib, d, bits)] = False
    r = want[(lib, d, bits)]
    for k in r:
        r[k] += int(kv[k])

got = collections.defaultdict(Row)
events, bad_latency, callers = 0, 0, collections.defaultdict(set)
start = None
for line in open(json_file):
    o = json.loads(line)
    if o["type"] == "gcm_start":
        start = o
    if o["type"] not in ("gcm_op", "gcm_tag_failure") or o["pid"] != pid:
        continue
    events += 1
    r = got[(o["lib"], o["dir"], o["key_bits"])]
    r["ops"] += 1
    r["aad"] += o["aad_bytes"]
    r["payload"] += o["payload_bytes"]
    r["tagfail"] += o["result"] == "tag-fail"
    r["unchecked"] += o["result"] == "unchecked"
    # --count-only times nothing in OpenSSL (COUNT_ONLY=1); every other record is timed.
    bad_latency += o["latency_ns"] <= 0 and not (os.environ.get("COUNT_ONLY") and o["lib"] == "openssl")
    callers[o["lib"]].add(o["caller"].split("+")[0])

ok = True
def check(name, cond, why):
    global ok
    print(("PASS %s" % name) if cond else ("FAIL %s: %s" % (name, why)))
    ok = ok and cond

check("gcm_start_record", start is not None and start["libs"], "no gcm_start record with libraries")
check("gcm_saw_events", events > 0, "no records for PID %d" % pid)
for key in sorted(set(want) | set(got)):
    w, g = want.get(key, Row()), got.get(key, Row())
    fields = ["ops", "aad", "tagfail", "unchecked"] + (["payload"] if payload_known[key] else [])
    diff = {k: (w[k], g[k]) for k in fields if w[k] != g[k]}
    check("gcm_%s_%s_%d" % key, not diff, "want vs got %s" % diff)
# The application calls GnuTLS, libgcrypt and nettle directly: their callers
# are functions of the workload binary, resolved while it is alive. A probe
# placed inside a prologue reads the return address from the slot the stack
# pointer moved it to: a wrong slot would name no workload function.
workload = os.path.join(os.environ.get("RS_PROGS", ""), "gcm_workload")
own = set()
if os.path.exists(workload):
    own = {l.split()[2] for l in subprocess.run(["nm", "--defined-only", workload], capture_output=True,
                                                text=True).stdout.splitlines()
           if len(l.split()) == 3 and l.split()[1] in "Tt"}
for lib in ("gnutls", "libgcrypt", "nettle"):
    if lib in callers:
        bad = sorted(c for c in callers[lib] if c.startswith("0x") or (own and c not in own))
        check("gcm_caller_symbolized_" + lib, not bad, "callers outside the workload's functions %s" % bad)
check("gcm_latency_nonzero", bad_latency == 0, "%d records with zero latency" % bad_latency)
# Every handle was made under the trace: nothing may be left unattributed.
unattributed = [o for o in map(json.loads, open(json_file)) if o["type"] == "unattributed" and o["pid"] == pid]
check("gcm_nothing_unattributed", not unattributed, unattributed)
sys.exit(0 if ok else 1)
