#!/bin/bash
# Bad input, as a table: every case gets exactly one line naming the problem
# (a long argument cut), a non-zero exit, no sanitizer report (it would add
# lines), and nothing left behind: no BPF program of ours, no new mount.
. "$(dirname "$0")/../lib.sh"
need_root bad_input || exit 0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
long=$(head -c 100000 /dev/zero | tr '\0' x)
mounts_before=$(wc -l </proc/mounts)
: >"$tmp/empty.so"
mkdir "$tmp/dir.so"
# A 32-bit ELF header (ELFCLASS32, i386) and an x86-64 one for another machine.
python3 - "$tmp" <<'PY'
import struct, sys
def elf(cls, machine):
    h = bytearray(64); h[0:4] = b"\x7fELF"; h[4] = cls; h[5] = 1; h[6] = 1
    struct.pack_into("<HH", h, 16, 3, machine)
    return bytes(h)
open(sys.argv[1] + "/elf32.so", "wb").write(elf(1, 3))
open(sys.argv[1] + "/aarch64.so", "wb").write(elf(2, 183))
PY
nopid=$(( $(cat /proc/sys/kernel/pid_max) + 1 ))
own=$(awk -F: '$2 == "memory" {print $3}' /proc/self/cgroup)
memroot=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ {print $2; exit}' /proc/mounts)
pidsroot=$(awk '$3 == "cgroup" && $4 ~ /(^|,)pids(,|$)/ {print $2; exit}' /proc/mounts)

n=0
row() {	# name, regex, args...
	local name=$1 re=$2 out rc; shift 2
	n=$((n + 1))
	out=$("$RINGSIDE" "$@" 2>&1 </dev/null); rc=$?
	if [ "$rc" != 0 ] && [ "$(wc -l <<<"$out")" = 1 ] && [ "${#out}" -lt 400 ] && grep -qE -- "$re" <<<"$out"; then
		pass "bad_input_$name"
	else
		fail "bad_input_$name" "rc=$rc, $(wc -l <<<"$out") lines: ${out:0:300}"
	fi
}

# PIDs
row pid_zero "'0' is not a process id" gcm -p 0
row pid_negative "'-1' is not a process id" gcm -p -1
row pid_huge "'99999999999' is not a process id" gcm -p 99999999999
row pid_junk "'12ab' is not a process id" gcm -p 12ab
row pid_none "no such process: $nopid" gcm -p "$nopid"
row pid_kernel_thread "is a kernel thread" gcm -p 2
row pid_long "\\(100000 bytes\\)' is not a process id" gcm -p "$long"
row tid_zero "thread '0' is not a process id" gcm --tid 0
row maps_pid_none "no such process" maps "$nopid"
row sym_pid_kernel_thread "is a kernel thread" sym 2 1000
# Libraries
row lib_directory "not a regular file" gcm --lib "$tmp/dir.so"
row lib_empty "not an ELF file" gcm --lib "$tmp/empty.so"
row lib_not_elf "not an ELF file" gcm --lib /etc/passwd
row lib_elf32 "a 32-bit ELF file" gcm --lib "$tmp/elf32.so"
row lib_other_machine "for another machine \\(e_machine 183\\)" gcm --lib "$tmp/aarch64.so"
row lib_missing "No such file or directory" gcm --lib "$tmp/nonexistent.so"
row lib_no_gcm "no AES-GCM entry points" gcm --lib /bin/true
row lib_long "\\(100000 bytes\\): File name too long" gcm --lib "$long"
# Cgroups
row cgroup_missing "--cgroup $tmp/nope: No such file" gcm --cgroup "$tmp/nope" -d 1
row cgroup_regular_file "--cgroup /etc/passwd: not a cgroup directory" gcm --cgroup /etc/passwd -d 1
row cgroup_not_cgroupfs "--cgroup $tmp: not a cgroup directory" reclaim --cgroup "$tmp" -d 1
row cgroup_long "\\(100000 bytes\\)" gcm --cgroup "$long" -d 1
[ -n "$pidsroot" ] && row reclaim_cgroup_wrong_hierarchy "not in the memory controller's hierarchy" \
	reclaim --target-cgroup "$pidsroot" -d 1
row reclaim_target_cgroup_missing "target cgroup $tmp/nope: No such file" reclaim --target-cgroup "$tmp/nope" -d 1
[ -n "$memroot" ] && row profile_cgroup_root "is the root memory cgroup" reclaim profile --cgroup "$memroot"
# btrfs
row fs_not_btrfs "is not on a btrfs filesystem" btrfs --fs /proc -d 1
row fs_missing "No such file or directory" btrfs --fs "$tmp/nope" -d 1
row threshold_not_btrfs "not on a btrfs" btrfs threshold /proc
# Common values
for v in 0 3 5000 4G abc; do row "ringbuf_size_$v" "--ringbuf-size '$v' must be a power of two" gcm --ringbuf-size "$v"; done
row duration_negative "--duration '-1' is not a positive number" gcm -d -1
row duration_junk "--duration 'abc' is not a positive number" gcm -d abc
row duration_zero "--duration '0' is not a positive number" reclaim -d 0
row interval_zero "--interval '0' is not a number of seconds >= 0.01" btrfs --interval 0
row comm_long "longer than the kernel's 15-byte comm" gcm --comm "$long"
# Options and commands
row unknown_option "unknown option '--bogus'" gcm --bogus
row missing_value "unknown option '--pid' or a missing value|'-p' or a missing value" gcm --pid
row unknown_command "unknown command 'bogus'" bogus
row unknown_command_long "unknown command" "$long"
row cleanup_argument "cleanup takes no arguments" cleanup extra
row stacks_without_events "add --events" gcm --stacks
row stacks_bad_mode "the mode is fp" gcm --events --stacks=frames
row stack_window_too_small "give bytes from 4096" gcm --events --stacks=dwarf --stack-window 100
row count_only_with_hist "--hist includes latency, which --count-only does not measure" gcm --count-only --hist
row kernel_with_lib "--lib/--binary is for user-space libraries, not --kernel" gcm --kernel --lib /x.so
# This host has neither fentry (ftrace locked) nor kprobes: one line saying so.
if ! "$RINGSIDE" features | grep -qE '^(fentry|kprobe) +yes'; then
	row kernel_without_fentry_or_kprobes "gcm --kernel needs fentry/fexit or kprobes, and this kernel allows neither" gcm --kernel
fi
row stack_window_without_dwarf "add --stacks=dwarf" gcm --events --stacks --stack-window 8192
# Profile values
row profile_swappiness_999 "bad --swappiness '999'" reclaim profile --cgroup /sys --swappiness 999
row profile_swappiness_list "bad --swappiness '0,-1,abc'" reclaim profile --cgroup /sys --swappiness 0,-1,abc
row profile_rounds_huge "bad --rounds '858993460'" reclaim profile --cgroup /sys --rounds 858993460
row profile_amount_zero "bad size '0' for --amount" reclaim profile --cgroup /sys --amount 0
row profile_svg_dir "directory /nonexistent does not exist" reclaim profile --cgroup /sys --svg /nonexistent/x.svg
row profile_svg_is_dir "is a directory" reclaim profile --cgroup /sys --svg /tmp

[ "$(our_bpf_progs_settled)" = 0 ] && [ "$(wc -l </proc/mounts)" -le "$mounts_before" ] &&
	pass "bad_input_nothing_left_behind ($n cases)" ||
	fail bad_input_nothing_left_behind "programs $(our_bpf_progs_settled), mounts $(wc -l </proc/mounts) (before $mounts_before)"
