# Helpers for integration tests: PASS/FAIL/SKIP lines for tests/run-tests.sh.
# shellcheck shell=bash
RINGSIDE=${RINGSIDE:-build/ringside}
RS_ROOT=${RS_ROOT:-$(pwd)}
cd "$RS_ROOT" || exit 1

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
skip() { echo "SKIP $1: $2"; }

# check NAME COMMAND...: PASS when the command succeeds.
check() {
	local name=$1
	shift
	if "$@"; then pass "$name"; else fail "$name" "command failed: $*"; fi
}

# wait_for FILE PATTERN [SECONDS]: until PATTERN shows up in FILE (a tracer's
# "tracing ..." line, printed once every program is attached; a workload's
# "ready"), polling every 50 ms for at most SECONDS (60). Never a guessed sleep.
wait_for() {
	local i n=$(( ${3:-60} * 20 ))
	for ((i = 0; i < n; i++)); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	echo "wait_for: '$2' never appeared in $1" >&2
	return 1
}

# until_gone PID [SECONDS]: wait for a process to exit (60 s at most).
until_gone() {
	local i n=$(( ${2:-60} * 20 ))
	for ((i = 0; i < n; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.05
	done
	return 1
}

# remove_scratch_cgroup DIR: kill what runs in a cgroup this test made, wait
# until it is empty (10 s at most) and remove it.
remove_scratch_cgroup() {
	[ -d "$1" ] || return 0
	while read -r p; do kill -9 "$p" 2>/dev/null; done <"$1/cgroup.procs"
	for _ in $(seq 200); do [ -s "$1/cgroup.procs" ] || break; sleep 0.05; done
	rmdir "$1" 2>/dev/null
}

need_root() {	# name: skip (and return 1) when not root
	if [ "$(id -u)" != 0 ]; then
		skip "$1" "needs root for BPF (CI runs as root)"
		return 1
	fi
}

# Count BPF links/programs that belong to us (the feature probe and collectors use
# program names starting with probe_, gcm_, reclaim_, btrfs_).
our_bpf_progs() {
	bpftool prog show 2>/dev/null | grep -cE ' name (probe_|gcm_|reclaim_|btrfs_)' || true
}
bpf_links() {
	bpftool link show 2>/dev/null | grep -c '^[0-9]' || true
}
# Programs of released links are freed after an RCU grace period (a dead
# process's links once its files are closed): wait for it, 30 s at most.
our_bpf_progs_settled() {
	local n
	for _ in $(seq 600); do
		n=$(our_bpf_progs)
		[ "$n" = 0 ] && break
		sleep 0.05
	done
	echo "$n"
}

# json_lines_valid NAME FILE...: every line of every file is one JSON object,
# parsed strictly (valid UTF-8, no duplicate keys, no NaN); one PASS or FAIL.
json_lines_valid() {
	local name=$1; shift
	python3 - "$name" "$@" <<'PY'
import json, sys
def strict(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError("duplicate key in %s" % keys)
    return dict(pairs)
def no_constant(c):
    raise ValueError("non-finite number " + c)
name, bad, lines = sys.argv[1], [], 0
for path in sys.argv[2:]:
    try:
        data = open(path, "rb").read()
    except OSError:
        continue
    for n, raw in enumerate(data.splitlines(), 1):
        lines += 1
        try:
            obj = json.loads(raw.decode("utf-8"), object_pairs_hook=strict, parse_constant=no_constant)
            if not isinstance(obj, dict) or "type" not in obj:
                raise ValueError("not an object with a type")
        except Exception as e:
            bad.append("%s:%d: %s: %r" % (path.rsplit("/", 1)[-1], n, e, raw[:120]))
print(("PASS %s (%d lines)" % (name, lines)) if lines and not bad else
      "FAIL %s: %s" % (name, "; ".join(bad[:3]) if bad else "no JSON lines"))
PY
}

# memcg_parent: sets memcg_dir to the directory of this test's own memory
# cgroup (v1 memory hierarchy, else cgroup v2 with the memory controller),
# where scratch cgroups go, and memcg_v2=1 on v2; returns 1 when there is none.
memcg_parent() {
	local own root
	memcg_dir=
	own=$(awk -F: '$2 == "memory" {print $3}' /proc/self/cgroup)
	root=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ {print $2; exit}' /proc/mounts)
	memcg_v2=
	if [ -z "$root" ]; then
		own=$(awk -F: '$1 == "0" {print $3}' /proc/self/cgroup)
		root=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts)
		grep -qw memory "$root$own/cgroup.controllers" 2>/dev/null || return 1
		memcg_v2=1
	fi
	memcg_dir=$root$own
}

# free_port: a TCP port on loopback nobody listens on now.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
