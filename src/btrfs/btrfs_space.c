// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* btrfs filesystems, space_info inputs, and the reclaim threshold. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/btrfs.h>
#include <linux/btrfs_tree.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "ringside/btrfs.h"
#include "memcg_io.h"
#include "mountinfo.h"

/* Target of unallocated space, in data chunks (fs/btrfs/space-info.c). */
#define UNALLOC_TARGET_CHUNKS 10ULL
#define SZ_1G (1ULL << 30)

static uint64_t mult_perc(uint64_t v, unsigned int pct)
{
	return v / 100 * pct + v % 100 * pct / 100;
}

/* 100 * x / y without overflow, as the kernel's calc_pct_ratio does it. */
static uint64_t pct_ratio(uint64_t x, uint64_t y)
{
	if (!y)
		return 0;
	while (x > UINT64_MAX / 100) {
		x >>= 10;
		y >>= 10;
		if (!y)
			y = 1;
	}
	return 100 * x / y;
}

static void human(uint64_t v, char *out, size_t len)
{
	if (v >= SZ_1G)
		snprintf(out, len, "%.1fGiB", (double)v / SZ_1G);
	else
		snprintf(out, len, "%.0fMiB", (double)v / (1 << 20));
}

void ringside_btrfs_threshold(const struct rs_btrfs_space *in, struct ringside_btrfs_threshold *out)
{
	uint64_t used = in->bytes_used + in->bytes_reserved + in->bytes_pinned +
			in->bytes_readonly + in->bytes_zone_unusable;
	uint64_t want;
	char a[32], b[32], c[32];

	memset(out, 0, sizeof(*out));
	out->unallocated = in->free_chunk_space;
	out->unused = in->total_bytes > used ? in->total_bytes - used : 0;
	if (!in->dynamic_reclaim) {
		out->pct = in->bg_reclaim_threshold;
		snprintf(out->why, sizeof(out->why), "fixed bg_reclaim_threshold %d%%%s", out->pct,
			 out->pct ? "" : " (reclaim off)");
		return;
	}
	out->dynamic = true;
	/*
	 * Chunks are cut to at most 10% of the devices and 1 GiB (zoned: the
	 * zone-sized chunk as is), whatever the space_info's chunk_size says.
	 */
	if (in->zone_size) {
		out->chunk_size = in->data_chunk_size;
	} else {
		out->chunk_size = in->data_chunk_size < mult_perc(in->total_rw_bytes, 10) ?
				  in->data_chunk_size : mult_perc(in->total_rw_bytes, 10);
		if (out->chunk_size > SZ_1G)
			out->chunk_size = SZ_1G;
	}
	out->target = UNALLOC_TARGET_CHUNKS * out->chunk_size;
	want = out->target > out->unallocated ? out->target - out->unallocated : 0;
	human(out->unallocated, a, sizeof(a));
	human(out->target, b, sizeof(b));
	human(out->unused, c, sizeof(c));
	/* Relocation needs room in the space_info itself: no chunk unused, no reclaim. */
	if (out->unused < out->chunk_size) {
		out->pct = 0;
		snprintf(out->why, sizeof(out->why),
			 "dynamic: unused %s below one chunk (%" PRIu64 " MiB): 0%%", c,
			 out->chunk_size >> 20);
		return;
	}
	out->pct = (int)pct_ratio(want, out->target);
	snprintf(out->why, sizeof(out->why), "dynamic: unalloc %s of target %s (10 x %" PRIu64
		 " MiB chunks) -> %d%%", a, b, out->chunk_size >> 20, out->pct);
}

/* ---- filesystems ------------------------------------------------------------ */

static void fsid_str(const uint8_t *f, char out[37])
{
	snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9], f[10], f[11], f[12],
		 f[13], f[14], f[15]);
}

static int fs_info_of(const char *path, struct btrfs_ioctl_fs_info_args *fi)
{
	struct statfs sfs;
	int fd, err = 0;

	if (statfs(path, &sfs))
		return -errno;
	if (sfs.f_type != BTRFS_SUPER_MAGIC)
		return -RINGSIDE_ERR_NOTBTRFS;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	memset(fi, 0, sizeof(*fi));
	if (ioctl(fd, BTRFS_IOC_FS_INFO, fi))
		err = -errno;
	close(fd);
	return err;
}

static void read_label(struct ringside_btrfs_fs *fs)
{
	char dir[128];

	snprintf(dir, sizeof(dir), "/sys/fs/btrfs/%s", fs->uuid);
	if (rs_read_file(dir, "label", fs->label, sizeof(fs->label)) < 0)
		fs->label[0] = '\0';
	fs->label[strcspn(fs->label, "\n")] = '\0';
}

typedef int (*mount_fn)(void *ctx, const char *mountpoint);

struct btrfs_mounts {
	mount_fn fn;
	void *ctx;
};

static int btrfs_mount_only(void *ctx, const struct rs_mount_entry *m)
{
	struct btrfs_mounts *w = ctx;

	return strcmp(m->fstype, "btrfs") ? 0 : w->fn(w->ctx, m->mp);
}

static int foreach_btrfs_mount(mount_fn fn, void *ctx)
{
	struct btrfs_mounts w = { fn, ctx };

	return rs_mountinfo_foreach(btrfs_mount_only, &w);
}

int ringside_btrfs_fs_of_path(const char *path, struct ringside_btrfs_fs *out)
{
	struct btrfs_ioctl_fs_info_args fi;
	int err = fs_info_of(path, &fi);

	memset(out, 0, sizeof(*out));
	if (err)
		return err;
	memcpy(out->fsid, fi.fsid, 16);
	fsid_str(out->fsid, out->uuid);
	snprintf(out->mountpoint, sizeof(out->mountpoint), "%s", path);
	read_label(out);
	return 0;
}

struct fsid_find {
	const uint8_t *fsid;
	struct ringside_btrfs_fs *out;
};

static int match_fsid(void *ctx, const char *mnt)
{
	struct fsid_find *ff = ctx;
	struct btrfs_ioctl_fs_info_args fi;

	if (fs_info_of(mnt, &fi) || memcmp(fi.fsid, ff->fsid, 16))
		return 0;
	ringside_btrfs_fs_of_path(mnt, ff->out);
	return 1;
}

int ringside_btrfs_fs_of_fsid(const uint8_t fsid[16], struct ringside_btrfs_fs *out)
{
	struct fsid_find ff = { fsid, out };
	int ret = foreach_btrfs_mount(match_fsid, &ff);

	if (ret < 0)
		return ret;
	if (!ret) {
		memset(out, 0, sizeof(*out));
		memcpy(out->fsid, fsid, 16);
		fsid_str(fsid, out->uuid);
		return -ENOENT;
	}
	return 0;
}

/* ---- space_info inputs -------------------------------------------------------- */

static int read_u64(const char *dir, const char *name, __u64 *v)
{
	char buf[64];
	int n = rs_read_file(dir, name, buf, sizeof(buf));

	if (n < 0)
		return n;
	*v = strtoull(buf, NULL, 10);
	return 0;
}

/* free_chunk_space and total_rw_bytes as the kernel keeps them, per device. */
static int device_space(const char *mountpoint, __u64 *unalloc, __u64 *total)
{
	struct btrfs_ioctl_fs_info_args fi;
	struct btrfs_ioctl_dev_info_args *di;
	int fd, err = 0;

	fd = open(mountpoint, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	di = calloc(1, sizeof(*di));
	if (!di) {
		close(fd);
		return -ENOMEM;
	}
	*unalloc = *total = 0;
	if (ioctl(fd, BTRFS_IOC_FS_INFO, &fi)) {
		err = -errno;
		goto out;
	}
	for (uint64_t id = 1; id <= fi.max_id; id++) {
		memset(di, 0, sizeof(*di));
		di->devid = id;
		if (ioctl(fd, BTRFS_IOC_DEV_INFO, di)) {
			if (errno == ENODEV)
				continue;	/* a removed device leaves a gap in the ids */
			err = -errno;
			goto out;
		}
		*total += di->total_bytes;
		if (di->total_bytes > di->bytes_used)
			*unalloc += di->total_bytes - di->bytes_used;
	}
out:
	free(di);
	close(fd);
	return err;
}

const char *ringside_btrfs_type_name(enum ringside_btrfs_type type)
{
	static const char *const names[] = { "data", "metadata", "system" };

	return (unsigned int)type <= RINGSIDE_BTRFS_SYSTEM ? names[type] : "?";
}

int ringside_btrfs_space_read(const struct ringside_btrfs_fs *fs, enum ringside_btrfs_type type,
			      struct rs_btrfs_space *out, struct ringside_btrfs_counters *counters)
{
	char dir[256], datadir[256], zoned[256];
	__u64 v = 0;
	int err;

	memset(out, 0, sizeof(*out));
	if ((unsigned int)type > RINGSIDE_BTRFS_SYSTEM)
		return -EINVAL;
	snprintf(dir, sizeof(dir), "/sys/fs/btrfs/%s/allocation/%s", fs->uuid,
		 ringside_btrfs_type_name(type));
	snprintf(datadir, sizeof(datadir), "/sys/fs/btrfs/%s/allocation/data", fs->uuid);
	if (access(dir, F_OK))
		return -ENOENT;
	err = read_u64(dir, "total_bytes", &out->total_bytes);
	if (err)
		return err;
	read_u64(dir, "bytes_used", &out->bytes_used);
	read_u64(dir, "bytes_reserved", &out->bytes_reserved);
	read_u64(dir, "bytes_pinned", &out->bytes_pinned);
	read_u64(dir, "bytes_readonly", &out->bytes_readonly);
	read_u64(dir, "bytes_zone_unusable", &out->bytes_zone_unusable);
	read_u64(datadir, "chunk_size", &out->data_chunk_size);
	if (!read_u64(dir, "dynamic_reclaim", &v)) {
		out->has_dynamic = 1;
		out->dynamic_reclaim = v != 0;
	}
	if (!read_u64(dir, "periodic_reclaim", &v))
		out->periodic_reclaim = v != 0;
	/* With dynamic_reclaim on, sysfs shows the computed value instead. */
	if (!read_u64(dir, "bg_reclaim_threshold", &v))
		out->bg_reclaim_threshold = (int32_t)v;
	snprintf(zoned, sizeof(zoned), "/sys/fs/btrfs/%s/features/zoned", fs->uuid);
	out->zone_size = access(zoned, F_OK) ? 0 : 1;
	err = device_space(fs->mountpoint, &out->free_chunk_space, &out->total_rw_bytes);
	if (err)
		return err;
	if (counters) {
		memset(counters, 0, sizeof(*counters));
		read_u64(dir, "reclaim_count", &counters->reclaim_count);
		read_u64(dir, "reclaim_bytes", &counters->reclaim_bytes);
		read_u64(dir, "reclaim_errors", &counters->reclaim_errors);
		counters->fixed_threshold = out->bg_reclaim_threshold;
	}
	return 0;
}

void ringside_btrfs_flags_str(uint64_t flags, char *out, size_t len)
{
	static const struct {
		uint64_t bit;
		const char *name;
	} profiles[] = {
		{ BTRFS_BLOCK_GROUP_RAID0, "RAID0" },	{ BTRFS_BLOCK_GROUP_RAID1, "RAID1" },
		{ BTRFS_BLOCK_GROUP_DUP, "DUP" },	{ BTRFS_BLOCK_GROUP_RAID10, "RAID10" },
		{ BTRFS_BLOCK_GROUP_RAID5, "RAID5" },	{ BTRFS_BLOCK_GROUP_RAID6, "RAID6" },
		{ BTRFS_BLOCK_GROUP_RAID1C3, "RAID1C3" }, { BTRFS_BLOCK_GROUP_RAID1C4, "RAID1C4" },
	};
	const char *type = (flags & BTRFS_BLOCK_GROUP_DATA) && (flags & BTRFS_BLOCK_GROUP_METADATA) ?
			   "MIXED" : flags & BTRFS_BLOCK_GROUP_DATA ? "DATA" :
			   flags & BTRFS_BLOCK_GROUP_METADATA ? "METADATA" :
			   flags & BTRFS_BLOCK_GROUP_SYSTEM ? "SYSTEM" : "?";
	const char *profile = "single";

	for (size_t i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++)
		if (flags & profiles[i].bit)
			profile = profiles[i].name;
	snprintf(out, len, "%s|%s", type, profile);
}
