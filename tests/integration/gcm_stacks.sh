#!/bin/bash
# --stacks against a known call chain: chain_outer -> chain_middle ->
# chain_inner -> one AES-GCM seal in each library (tests/progs/gcm_chain.c,
# built without frame pointers, like Debian's crypto libraries). With
# --stacks=dwarf the copied stack is unwound with the files' .eh_frame: the
# three functions must appear, innermost first, each named with its file,
# and every frame must be code of a mapped file (never a raw stack slot).
# With --stacks (frame pointers) the walk stops early but prints no garbage.
. "$(dirname "$0")/../lib.sh"
need_root gcm_stacks || exit 0
tmp=$(mktemp -d)
cp= rs=
cleanup() { exec 9>&- 2>/dev/null; kill $cp $rs 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

# stack_case LIB MODE: the chain's one traced seal, its record in $tmp/LIB.MODE.json
stack_case() {
	local lib=$1 mode=$2 out="$tmp/$1.$2" i
	rm -f "$tmp/fifo"; mkfifo "$tmp/fifo"
	"$RS_PROGS/gcm_chain" "$lib" <"$tmp/fifo" >"$out.chain" & cp=$!
	exec 9>"$tmp/fifo"
	wait_for "$out.chain" '^ready' || { fail "gcm_stacks_${mode}_$lib" "gcm_chain did not start"; return; }
	"$RINGSIDE" gcm -p "$cp" --json --events --stacks="$mode" >"$out.json" 2>"$out.err" 9>&- & rs=$!
	wait_for "$out.err" 'tracing AES-GCM' || { fail "gcm_stacks_${mode}_$lib" "ringside did not start: $(tail -2 "$out.err")"; return; }
	echo go >&9
	# The record is printed (and its stack resolved) while the chain still lives.
	wait_for "$out.json" '"type":"gcm_op"' || fail "gcm_stacks_${mode}_$lib" "no record: $(tail -2 "$out.err")"
	exec 9>&-
	wait "$cp"; cp=
	until_gone "$rs"; wait "$rs"; rs=
}

for lib in openssl gnutls libgcrypt nettle; do
	stack_case "$lib" dwarf
	python3 - "$tmp/$lib.dwarf.json" "$lib" <<'PY' && pass "gcm_stacks_dwarf_$lib" || fail "gcm_stacks_dwarf_$lib" "$(cat "$tmp/check")"
import json, re, sys
ops = [json.loads(l) for l in open(sys.argv[1]) if '"gcm_op"' in l]
try:
    assert len(ops) == 1 and ops[0]["lib"] == sys.argv[2], "want one %s record, got %s" % (sys.argv[2], ops)
    st = ops[0].get("stack", [])
    names = [f.split("+")[0] for f in st]
    idx = [names.index(n) if n in names else -1 for n in ("chain_inner", "chain_middle", "chain_outer", "main")]
    assert -1 not in idx and idx == sorted(idx), "chain not found in order: %s" % st
    assert all(re.match(r"^\S+\+0x[0-9a-f]+( \(\S+\))?$", f) and not f.startswith("0x") for f in st), st
    assert all(f.endswith("(gcm_chain)") for f in st if f.split("+")[0].startswith("chain_")), st
except AssertionError as e:
    open(sys.argv[1].rsplit("/", 1)[0] + "/check", "w").write(str(e))
    sys.exit(1)
PY
done
stack_case libgcrypt fp
python3 - "$tmp/libgcrypt.fp.json" <<'PY' && pass gcm_stacks_fp_only_code || fail gcm_stacks_fp_only_code "$(cat "$tmp/check")"
import json, sys
ops = [json.loads(l) for l in open(sys.argv[1]) if '"gcm_op"' in l]
try:
    assert len(ops) == 1, ops
    st = ops[0].get("stack", [])
    assert st and not any(f.startswith("0x") for f in st), st
except AssertionError as e:
    open(sys.argv[1].rsplit("/", 1)[0] + "/check", "w").write(str(e))
    sys.exit(1)
PY
json_lines_valid gcm_stacks_json_lines_valid "$tmp"/*.json
