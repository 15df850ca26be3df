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
    if o["name"]==sys.argv[1]: print("yes" if o["present"] else "no")' "$1" <<<"$json"; }

n=$(grep -c '"type":"feature"' <<<"$json")
[ "$n" = 17 ] && pass features_json_lines || fail features_json_lines "$n lines"
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

# Text mode: the same lines, aligned, with yes/no.
txt=$("$RINGSIDE" features)
[ "$(grep -cE '^[a-z_0-9]+ +(yes|no) ' <<<"$txt")" = 17 ] && pass features_table || fail features_table "$txt"

# The probe leaves nothing behind.
[ "$(bpf_links)" = "$links_before" ] && [ "$(our_bpf_progs_settled)" = 0 ] && pass features_leaves_nothing ||
	fail features_leaves_nothing "links $links_before -> $(bpf_links), progs $(our_bpf_progs_settled)"
