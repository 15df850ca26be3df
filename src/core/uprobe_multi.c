// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* rs_uprobe_multi_link(): BPF_LINK_CREATE for uprobe_multi, by hand. */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>

#include "uprobe_multi.h"

#define RS_BPF_F_UPROBE_MULTI_RETURN 1

/* union bpf_attr's link_create as the kernel (6.6+) lays it out for uprobe_multi. */
struct rs_link_create_uprobe_multi {
	__u32 prog_fd;
	__u32 target_fd;
	__u32 attach_type;
	__u32 flags;
	__u64 path;
	__u64 offsets;
	__u64 ref_ctr_offsets;
	__u64 cookies;
	__u32 cnt;
	__u32 um_flags;
	__u32 pid;
	__u32 pad;
};

static int link_create(unsigned int attach_type, int prog_fd, const char *path,
		       const uint64_t *offsets, const uint64_t *cookies, unsigned int cnt, pid_t pid,
		       bool ret)
{
	struct rs_link_create_uprobe_multi attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.prog_fd = (__u32)prog_fd;
	attr.attach_type = attach_type;
	attr.path = (__u64)(uintptr_t)path;
	attr.offsets = (__u64)(uintptr_t)offsets;
	attr.cookies = (__u64)(uintptr_t)cookies;
	attr.cnt = cnt;
	attr.um_flags = ret ? RS_BPF_F_UPROBE_MULTI_RETURN : 0;
	attr.pid = (__u32)pid;
	fd = (int)syscall(SYS_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	return fd < 0 ? -errno : fd;
}

int rs_uprobe_multi_link(int prog_fd, const char *path, const uint64_t *offsets,
			 const uint64_t *cookies, unsigned int cnt, pid_t pid, bool ret)
{
	return link_create(RS_BPF_TRACE_UPROBE_MULTI, prog_fd, path, offsets, cookies, cnt, pid, ret);
}

int rs_uprobe_session_link(int prog_fd, const char *path, const uint64_t *offsets,
			   const uint64_t *cookies, unsigned int cnt, pid_t pid)
{
	return link_create(RS_BPF_TRACE_UPROBE_SESSION, prog_fd, path, offsets, cookies, cnt, pid,
			   false);
}

int rs_uprobe_noop_prog(unsigned int attach_type)
{
	const struct bpf_insn ret0[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = attach_type);
	int fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "probe_noop", "GPL", ret0, 2, &opts);

	return fd < 0 ? -errno : fd;
}
