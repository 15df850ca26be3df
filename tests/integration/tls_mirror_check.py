#!/usr/bin/env python3
"""Check that two TLS peers' AES-GCM counts mirror each other.

usage: tls_mirror_check.py PREFIX CASES TRACE SIDE LIB PEER_LIB

Every record one peer seals the other opens, so ringside's rows for the two
processes must match in records, payload and AAD bytes, in both directions,
with 5 AAD bytes a record on TLS 1.3 and 13 on TLS 1.2. CASES has one line
per fetch: "NAME VERSION BITS CLIENT_PID SERVER_PID" (BITS "chacha": no GCM,
so nothing may be counted). TRACE is the `ringside gcm --json` output, with
{name} standing for the case's name when each case has its own. SIDE
(client or server) is the process under test, traced in LIB; its peer is
traced in PEER_LIB. Prints PASS/FAIL lines named PREFIX_NAME_...
"""
import json
import sys

prefix, cases, trace, side_name, lib, peer_lib = sys.argv[1:7]


def check(name, cond, why):
    print(("PASS %s" % name) if cond else ("FAIL %s: %s" % (name, why)))


def totals(summ, pid, lib, d, bits):
    got = [r for r in summ if r["pid"] == pid and r["lib"] == lib and r["dir"] == d and r["key_bits"] == bits]
    return tuple(sum(r[k] for r in got) for k in ("ops", "payload_bytes", "aad_bytes"))


for line in open(cases):
    name, vers, bits, client, server = line.split()
    me, peer = (int(client), int(server)) if side_name == "client" else (int(server), int(client))
    rows = [json.loads(l) for l in open(trace.format(name=name))]
    summ = [r for r in rows if r["type"] == "gcm_summary"]
    mine = [r for r in summ if r["pid"] == me]
    n = "%s_%s" % (prefix, name)
    if bits == "chacha":
        check(n + "_no_gcm_counted", not mine, mine)
        continue
    bits = int(bits)
    aad = 5 if vers == "1.3" else 13
    seal, peer_open = totals(summ, me, lib, "seal", bits), totals(summ, peer, peer_lib, "open", bits)
    opened, peer_seal = totals(summ, me, lib, "open", bits), totals(summ, peer, peer_lib, "seal", bits)
    # The 1 MiB file went one way, the request the other: both seen, whole.
    big_file = max(seal[1], opened[1]) >= 1048576 and min(seal[0], opened[0]) > 0
    check(n + "_%s_seals_equal_%s_opens (%d records, %d bytes)" % (lib, peer_lib, seal[0], seal[1]),
          seal == peer_open and big_file, "%s seals %s, %s opens %s" % (lib, seal, peer_lib, peer_open))
    check(n + "_%s_opens_equal_%s_seals (%d records, %d bytes)" % (lib, peer_lib, opened[0], opened[1]),
          opened == peer_seal and big_file, "%s opens %s, %s seals %s" % (lib, opened, peer_lib, peer_seal))
    check(n + "_aad_%d_bytes_a_record" % aad, seal[2] == aad * seal[0] and opened[2] == aad * opened[0],
          "seals %s opens %s" % (seal, opened))
    others = [r for r in mine if r["lib"] != lib or r["key_bits"] != bits]
    check(n + "_only_%s_rows" % lib, not others, others)
    un = [r for r in rows if r["type"] == "unattributed" and r["pid"] == me]
    check(n + "_nothing_unattributed", not un, un)
