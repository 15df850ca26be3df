#!/bin/bash
# `ringside features` against the running kernel: facts checked independently.
. "$(dirname "$0")/../lib.sh"
need_root features || exit 0

links_before=$(bpf_links)
json=$("$RINGSIDE" features --json) || { fail features_runs "exit $?"; exit 0; }
pass features_runs
val() { python3 -c 'import json,sys
for l in sys.stdin:
    o=json.loads(l)
    if o.get("name")==sys.argv[1]: print("yes" if o["present"] else "no")' "$1" <<<"$json"; }

n=$(grep -c '"type":"feature"' <<<"$json")
[ "$n" = 20 ] && pass features_json_lines || fail features_json_lines "$n lines"
python3 -c 'import json,sys; [json.loads(l) for l in sys.stdin]' <<<"$json" &&
	pass features_json_valid || fail features_json_valid "not JSON Lines"

# ringside cannot work without these; CI's kernel has them.
for f in btf ringbuf tp_btf raw_tracepoint uprobe; do
	[ "$(val $f)" = yes ] && pass "feature_$f" || fail "feature_$f" "$(grep "\"$f\"" <<<"$json")"
done

# Cross-check against what the kernel exposes by other means.
kver=$(uname -r | awk -F. '{print $1*1000+$2}')
want=no; [ "$kver" -ge 6011 ] && [ "$(uname -m)" = x86_64 ] && want=yes
[ "$(val uretprobe_syscall)" = $want ] && pass feature_uretprobe_syscall_vs_version ||
	fail feature_uretprobe_syscall_vs_version "kernel $(uname -r) expects $want"
want=no; [ "$kver" -ge 6011 ] && want=yes
[ "$(val procmap_query)" = $want ] && pass feature_procmap_query_vs_version ||
	fail feature_procmap_query_vs_version "kernel $(uname -r) expects $want"
want=no; [ -d /sys/bus/event_source/devices/kprobe ] && want=yes
[ "$(val kprobe)" = $want ] && pass feature_kprobe_vs_pmu || fail feature_kprobe_vs_pmu "expects $want"
want=no; grep -q '^cgroup2 .* cgroup2' /proc/mounts 2>/dev/null; grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null && want=yes
[ -f /sys/fs/cgroup/unified/cgroup.controllers ] && grep -qw memory /sys/fs/cgroup/unified/cgroup.controllers && want=yes
[ "$(val memcg_v2)" = $want ] && pass feature_memcg_v2_vs_controllers || fail feature_memcg_v2_vs_controllers "expects $want"
want=no; awk '$3=="cgroup" && $4 ~ /(^|,)memory(,|$)/' /proc/mounts | grep -q . && want=yes
[ "$(val memcg_v1)" = $want ] && pass feature_memcg_v1_vs_mounts || fail feature_memcg_v1_vs_mounts "expects $want"

want=no; [ "$kver" -ge 6006 ] && want=yes
[ "$(val uprobe_multi)" = $want ] && pass feature_uprobe_multi_vs_version ||
	fail feature_uprobe_multi_vs_version "kernel $(uname -r) expects $want"
want=no; [ "$kver" -ge 6013 ] && want=yes
[ "$(val uprobe_session)" = $want ] && pass feature_uprobe_session_vs_version ||
	fail feature_uprobe_session_vs_version "kernel $(uname -r) expects $want"
want=no; [ -e /sys/kernel/tracing/events/syscalls/sys_exit_write ] || [ -e /sys/kernel/debug/tracing/events/syscalls/sys_exit_write ] && want=yes
[ "$(val syscall_exit_tracepoint)" = $want ] && pass feature_syscall_exit_tracepoint_vs_tracefs ||
	fail feature_syscall_exit_tracepoint_vs_tracefs "expects $want"

# Text mode: the same lines, aligned, with yes/no.
txt=$("$RINGSIDE" features)
[ "$(grep -cE '^[a-z_0-9]+ +(yes|no) ' <<<"$txt")" = 20 ] && pass features_table || fail features_table "$txt"

# Each collector's variants: what features names is what a session attaches.
# The programs attached are read from the tracer's own link fds (fdinfo's
# prog_id), their names from bpftool (the kernel keeps 15 characters).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "$json" >"$tmp/features.json"
variants_attached() {	# COLLECTOR ARGS...: ringside COLLECTOR ARGS runs while it is checked
	local col=$1 rs; shift
	"$RINGSIDE" "$col" "$@" >/dev/null 2>"$tmp/$col.err" & rs=$!
	if wait_for "$tmp/$col.err" "^ringside: tracing" 120; then
		python3 - "$rs" "$col" "$tmp/features.json" <<'PY'
import glob, json, subprocess, sys
pid, col, features = sys.argv[1], sys.argv[2], sys.argv[3]
links = set()
for f in glob.glob("/proc/%s/fdinfo/*" % pid):
    try:
        info = dict(l.split(":", 1) for l in open(f) if ":" in l)
    except OSError:
        continue
    if "link_type" in info and "prog_id" in info:
        links.add((int(info["prog_id"]), info["link_type"].strip()))
def name_of(i):
    out = subprocess.run(["bpftool", "-j", "prog", "show", "id", str(i)], capture_output=True, text=True).stdout
    return json.loads(out)["name"] if out.strip() else ""
# The feature probes' links are released on threads after start-up: not the collector's.
named = [(name_of(i), t) for i, t in links]
named = [(n, t) for n, t in named if n and not n.startswith("probe_")]
names = [n for n, _ in named]
link_types = {t for _, t in named}
rows = [o for o in map(json.loads, open(features)) if o["type"] == "variant" and o["collector"] == col]
def hits(prefixes):
    return [n for n in names for p in prefixes.split() if n.startswith(p[:15])]
for r in rows:
    part = r["part"].replace(" ", "_")
    want, other = r["programs"], r["other_programs"]
    ok = all(hits(p) for p in want.split()) and not hits(other) and r["variant"]
    # gcm's uprobes differ in the link, not the program: the kernel names its type.
    if r["part"] == "uprobes":
        ok = ok and (("uprobe_multi" in link_types) == (r["variant"] == "uprobe_multi"))
    print(("PASS features_variant_attached_%s_%s (%s)" % (col, part, r["variant"])) if ok else
          "FAIL features_variant_attached_%s_%s: chose %s (programs %r, others %r), attached %s, links %s" %
          (col, part, r["variant"], want, other, sorted(names), sorted(link_types)))
print(("PASS" if rows else "FAIL") + " features_variants_listed_%s" % col)
PY
	else
		fail "features_variant_attached_$col" "did not start: $(tail -2 "$tmp/$col.err")"
	fi
	kill -INT "$rs" 2>/dev/null; wait "$rs" 2>/dev/null
}
variants_attached gcm
variants_attached reclaim
variants_attached btrfs

# Where gcm probes. Each point features lists is checked on its own bytes:
# objdump's instruction there is one the kernel emulates (push, jmp, call,
# jcc) exactly when features says "emulated".
python3 - "$tmp/features.json" <<'PY'
import json, struct, subprocess, sys
pts = [o for o in map(json.loads, open(sys.argv[1])) if o["type"] == "gcm_probe_point"]
print(("PASS" if any(p["lib"] == "openssl" for p in pts) else "FAIL") + " features_gcm_points_listed")
def vaddr(path, off):
    with open(path, "rb") as f:
        h = f.read(64)
        phoff, phentsize, phnum = struct.unpack_from("<Q", h, 32)[0], *struct.unpack_from("<HH", h, 54)
        for i in range(phnum):
            f.seek(phoff + i * phentsize)
            typ, flags, o, va, pa, fsz = struct.unpack("<IIQQQQ", f.read(40))
            if typ == 1 and o <= off < o + fsz:
                return va + off - o
bad = []
for p in pts:
    va = vaddr(p["path"], int(p["file_offset"], 16))
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "--start-address=%d" % va,
                          "--stop-address=%d" % (va + 16), p["path"]], capture_output=True, text=True).stdout
    insn = [l.split("\t")[1].split()[0] for l in out.splitlines() if l.strip().startswith("%x:" % va)]
    emul = bool(insn) and (insn[0] in ("push", "jmp", "call") or insn[0].startswith("j"))
    if not insn or emul != p["emulated"]:
        bad.append((p["function"], p["file_offset"], insn, p["emulated"]))
print("PASS features_gcm_points_emulated_as_decoded (%d points)" % len(pts) if not bad else
      "FAIL features_gcm_points_emulated_as_decoded: %s" % bad[:5])
PY

# ... and a running `ringside gcm` attaches at exactly the points listed for
# its mode, as its own uprobe_multi links tell the kernel (their fdinfo).
points_attached() {	# MODE ARGS...
	local mode=$1 rs; shift
	"$RINGSIDE" gcm "$@" >/dev/null 2>"$tmp/points.err" & rs=$!
	if wait_for "$tmp/points.err" "^ringside: tracing" 120; then
		python3 - "$rs" "$mode" "$tmp/features.json" <<'PY'
import glob, json, os, sys
pid, mode, features = sys.argv[1], sys.argv[2], sys.argv[3]
listed = {(os.path.realpath(o["path"]), int(o["file_offset"], 16))
          for o in map(json.loads, open(features))
          if o["type"] == "gcm_probe_point" and o["mode"] in ("both", mode)}
paths = {p for p, _ in listed}
attached = set()
for f in glob.glob("/proc/%s/fdinfo/*" % pid):
    try:
        lines = open(f).read().splitlines()
    except OSError:
        continue
    info = dict(l.split(":", 1) for l in lines if ":" in l)
    if info.get("link_type", "").strip() != "uprobe_multi":
        continue
    path = os.path.realpath(info["path"].strip())
    for l in lines:
        w = l.split()
        if len(w) == 3 and w[0].isdigit() and w[1].startswith("0x"):	# cookie offset ref_ctr_offset
            if path in paths:
                attached.add((path, int(w[1], 16)))
ok = attached == listed
print(("PASS features_gcm_points_attached_%s (%d)" % (mode, len(listed))) if ok else
      "FAIL features_gcm_points_attached_%s: listed only %s, attached only %s" %
      (mode, sorted(listed - attached)[:4], sorted(attached - listed)[:4]))
PY
	else
		fail "features_gcm_points_attached_$mode" "did not start: $(tail -2 "$tmp/points.err")"
	fi
	kill -INT "$rs" 2>/dev/null; wait "$rs" 2>/dev/null
}
points_attached timing
points_attached counting --count-only

# The probe leaves nothing behind.
[ "$(bpf_links)" = "$links_before" ] && [ "$(our_bpf_progs_settled)" = 0 ] && pass features_leaves_nothing ||
	fail features_leaves_nothing "links $links_before -> $(bpf_links), progs $(our_bpf_progs_settled)"
