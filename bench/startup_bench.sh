#!/bin/bash
# Start-up and footprint: time from exec to each command's "tracing" line and
# its RSS (steady, and the peak the kernel recorded), beside bpftrace's time
# to attach an equivalent probe set, in one run. Medians of 5 starts, the
# rows taken in turn.
set -u
OUT=${OUT:-build}
RINGSIDE=${RINGSIDE:-$OUT/ringside}
if [ "$(id -u)" != 0 ]; then echo "startup_bench: needs root"; exit 0; fi
LIB=$(ldconfig -p | awk '/libcrypto.so.3 .*x86-64/ { print $NF; exit }')
# bpftrace's tracepoints are found through tracefs: mounted for the run if
# it is not, and unmounted after.
mounted_tracefs=
if ! mountpoint -q /sys/kernel/tracing && mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null; then
	mounted_tracefs=1
fi
trap '[ -n "$mounted_tracefs" ] && umount /sys/kernel/tracing' EXIT

python3 - "$RINGSIDE" "$LIB" <<'PY'
import os, shutil, signal, socket, subprocess, sys, tempfile, time

ringside, lib = sys.argv[1], sys.argv[2]

def start(cmd, marker, stream, env=None):
    """Seconds to the marker line (ringside: stderr; bpftrace: stdout), steady RSS and peak (kB) a second later
    (the agent's kernel-symbol walk, at its first poll half a second in, is over by then)."""
    t0 = time.monotonic()
    out = subprocess.PIPE if stream == "out" else subprocess.DEVNULL
    err = subprocess.PIPE if stream == "err" else subprocess.DEVNULL
    p = subprocess.Popen(cmd, stdout=out, stderr=err, env=env)
    started = False
    for line in (p.stdout if stream == "out" else p.stderr):
        if marker in line:
            started = True
            break
    t = time.monotonic() - t0 if started else float("nan")
    time.sleep(1.0)
    st = dict(l.split(":", 1) for l in open("/proc/%d/status" % p.pid).read().splitlines() if ":" in l)
    rss, hwm = int(st["VmRSS"].split()[0]), int(st["VmHWM"].split()[0])
    p.send_signal(signal.SIGINT)
    try:
        p.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        # bpftrace 0.17 now and then misses a SIGINT that lands in its epoll_wait.
        p.kill()
        p.communicate()
    # The kernel's side of an exit (links released, each uprobe's after a
    # grace period) runs on after the process is gone: a start at once
    # would meet it. Each start is timed on a settled machine.
    time.sleep(0.3)
    return t, rss, hwm

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]

def median(xs):
    return sorted(xs)[len(xs) // 2]

READY = 'BEGIN { printf("ready\\n"); } '
# GnuTLS's backend calibration is kept across runs (src/gcm/gnutls_cache.h),
# and each object's CO-RE cut of the kernel's BTF for the boot
# (src/core/btf_cache.h): here in the bench's own folder, filled by one
# start of each command before the timed ones, and timed without it too for
# gcm and the agent (an empty RINGSIDE_CACHE_DIR keeps nothing: a first
# start after boot, and a first calibration).
cache = tempfile.mkdtemp(prefix="ringside-bench-cache-")
kept = dict(os.environ, RINGSIDE_CACHE_DIR=cache)
nothing_kept = dict(os.environ, RINGSIDE_CACHE_DIR="")
for warm in (["gcm"], ["reclaim"], ["btrfs"]):
    start([ringside] + warm, b"tracing", "err", kept)
# A folder with GnuTLS's calibration only, its kept cuts removed before each start that uses it.
boot_cache = tempfile.mkdtemp(prefix="ringside-bench-boot-")
for f in os.listdir(cache):
    if f.startswith("gnutls-"):
        shutil.copy(os.path.join(cache, f), boot_cache)
boot_fresh = dict(os.environ, RINGSIDE_CACHE_DIR=boot_cache)
start([ringside, "agent", "--web.listen-address", "127.0.0.1:%d" % free_port()], b"serving", "err", kept)
rows = [
    ("ringside gcm", [ringside, "gcm"], b"tracing", "err", kept),
    ("ringside gcm, GnuTLS calibrated at start (nothing kept)", [ringside, "gcm"], b"tracing", "err",
     nothing_kept),
    ("ringside gcm --count-only", [ringside, "gcm", "--count-only"], b"tracing", "err", kept),
    # The probe set of the bpftrace row below: OpenSSL's libcrypto alone.
    ("ringside gcm -l libcrypto", [ringside, "gcm", "-l", lib], b"tracing", "err", kept),
    ("ringside reclaim", [ringside, "reclaim"], b"tracing", "err", kept),
    ("ringside btrfs", [ringside, "btrfs"], b"tracing", "err", kept),
    # The agent's "serving" line comes once every collector this kernel
    # allows is up (here: gcm, reclaim, btrfs; kernel-gcm has no kprobe or
    # fentry on this machine), on a port free at the time.
    ("ringside agent (every collector)", [ringside, "agent", "--web.listen-address",
     "127.0.0.1:%d" % free_port()], b"serving", "err", kept),
    # The first start after a boot: the CO-RE cuts are made again (the
    # boot's are removed before each start), GnuTLS's calibration is kept.
    ("ringside agent, first start after a boot", [ringside, "agent", "--web.listen-address",
     "127.0.0.1:%d" % free_port()], b"serving", "err", boot_fresh),
    ("ringside agent, nothing kept", [ringside, "agent", "--web.listen-address",
     "127.0.0.1:%d" % free_port()], b"serving", "err", nothing_kept),
    # The same OpenSSL functions ringside gcm probes there, entry and return.
    # bpftrace prints "Attaching N probes..." before it loads or attaches
    # any (strace: the first uprobe's perf_event_open comes after it); its
    # BEGIN probe fires once every probe is attached, the moment ringside's
    # "tracing" line marks. The BEGIN probe is one more, tiny, program.
    ("bpftrace, OpenSSL GCM probes", ["bpftrace", "-e", READY +
        "uprobe:%s:CRYPTO_gcm128_setiv, uprobe:%s:CRYPTO_gcm128_finish, "
        "uretprobe:%s:CRYPTO_gcm128_finish { @[probe] = count(); }" % (lib, lib, lib)], b"ready", "out", None),
    # ringside reclaim's tracepoints: seven vmscan ones and write()'s exit.
    ("bpftrace, vmscan tracepoints", ["bpftrace", "-e", READY +
        "tracepoint:vmscan:mm_vmscan_memcg_reclaim_begin, tracepoint:vmscan:mm_vmscan_memcg_reclaim_end, "
        "tracepoint:vmscan:mm_vmscan_direct_reclaim_begin, tracepoint:vmscan:mm_vmscan_direct_reclaim_end, "
        "tracepoint:vmscan:mm_vmscan_lru_shrink_inactive, tracepoint:vmscan:mm_vmscan_lru_shrink_active, "
        "tracepoint:vmscan:mm_vmscan_kswapd_sleep, tracepoint:syscalls:sys_exit_write { @[probe] = count(); }"],
        b"ready", "out", None),
]
print("| command | to the tracing line (median of 5) | steady RSS | peak RSS |")
print("|---|---|---|---|")
medians = {}
# Round-robin, five rounds: a drift of the machine's speed within the run
# falls on every row alike, not on whichever rows ran while it lasted.
runs = {name: [] for name, *_ in rows}
for _ in range(5):
    for name, cmd, marker, stream, env in rows:
        if env is boot_fresh:
            for f in os.listdir(boot_cache):
                if f.startswith("kbtf-"):
                    os.unlink(os.path.join(boot_cache, f))
        runs[name].append(start(cmd, marker, stream, env))
for name, *_ in rows:
    medians[name] = median([r[0] for r in runs[name]])
    print("| %s | %.0f ms | %.1f MB | %.1f MB |" % (name, medians[name] * 1000,
          median([r[1] for r in runs[name]]) / 1024, median([r[2] for r in runs[name]]) / 1024))
# The goal: at most a third of bpftrace's time on the same probes.
print()
for ours, theirs in (("ringside gcm -l libcrypto", "bpftrace, OpenSSL GCM probes"),
                     ("ringside reclaim", "bpftrace, vmscan tracepoints")):
    print("%s / %s: %.2f (goal <= 0.33)" % (ours, theirs, medians[ours] / medians[theirs]))
shutil.rmtree(cache, ignore_errors=True)
shutil.rmtree(boot_cache, ignore_errors=True)
PY
