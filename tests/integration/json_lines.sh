#!/bin/bash
# Every command's --json output is JSON Lines a strict parser accepts, also
# when what it reports holds what a user or the kernel can put there: a
# process whose name has quotes, a backslash, a control character and a byte
# that is not UTF-8, mapped from a file whose path holds them too. (The
# collector tests check their own JSON the same way, on real traces.)
. "$(dirname "$0")/../lib.sh"
need_root json_lines || exit 0
tmp=$(mktemp -d)
wl=
cleanup() { [ -n "$wl" ] && kill "$wl" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

# The workload under a hostile name: comm and the mapped path carry it.
odd=$'w"q\\b\x01\xff-gcm'
mkdir "$tmp/$odd.d"
cp "$RS_PROGS/gcm_workload" "$tmp/$odd.d/$odd"
"$tmp/$odd.d/$odd" --wait --hold --rounds 1 >"$tmp/wl.out" &
wl=$!
wait_for "$tmp/wl.out" '^ready' || { fail json_lines "workload did not start"; exit 0; }

"$RINGSIDE" features --json >"$tmp/features.json"
"$RINGSIDE" maps "$wl" --json >"$tmp/maps.json"
addr=$(awk '$2 ~ /x/ {split($1, a, "-"); print "0x" a[1]; exit}' "/proc/$wl/maps")
"$RINGSIDE" sym "$wl" "$addr" 0x10 --json >"$tmp/sym.json"
"$RINGSIDE" gcm --json --events --hist -p "$wl" >"$tmp/gcm.json" 2>"$tmp/gcm.err" &
rs=$!
wait_for "$tmp/gcm.err" 'tracing AES-GCM' 120 || fail json_lines_gcm_started "$(tail -2 "$tmp/gcm.err")"
kill -USR1 "$wl"			# run the schedule
wait_for "$tmp/wl.out" '^expect' 120	# every message sealed or opened
kill -USR1 "$wl"; wait "$wl"; wl=
until_gone "$rs" 120			# -p: the trace ends with its target, its ring drained

python3 - "$tmp/gcm.json" "$odd" <<'PY'
import json, sys
rows = [json.loads(l.decode("utf-8")) for l in open(sys.argv[1], "rb")]
# comm holds the name (15 bytes at most); its non-UTF-8 byte comes back as U+FFFD.
want = 'w"q\\b\x01\ufffd-gcm'
comms = {r.get("comm") for r in rows if "comm" in r}
ops = [r for r in rows if r["type"] == "gcm_op"]
ok = ops and comms == {want}
print(("PASS json_lines_hostile_comm_round_trips (%d ops)" % len(ops)) if ok else
      "FAIL json_lines_hostile_comm_round_trips: %s, %d ops" % (comms, len(ops)))
PY
# The mapped file's path comes back escaped, whole, with U+FFFD for its bad byte.
python3 - "$tmp/maps.json" <<'PY'
import json, sys
want = '/w"q\\b\x01\ufffd-gcm.d/w"q\\b\x01\ufffd-gcm'
names = {json.loads(l.decode("utf-8"))["name"] for l in open(sys.argv[1], "rb")}
ok = any(n.endswith(want) for n in names)
print("PASS json_lines_path_round_trips" if ok else "FAIL json_lines_path_round_trips: %s" % sorted(names)[:8])
PY
for f in features maps sym gcm; do
	json_lines_valid "json_lines_valid_$f" "$tmp/$f.json"
done
