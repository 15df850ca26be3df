// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ringside/procmaps.h"
#include "ringside/resolve.h"

static const char maps_usage[] =
	"Usage: ringside maps PID [--exec-only|--file-only] [--no-build-id] [--text] [--json]\n"
	"Dump a process's mappings through the PROCMAP_QUERY ioctl (text parsing on\n"
	"kernels before 6.11), with build IDs.\n"
	"  --exec-only    only executable mappings\n"
	"  --file-only    only file-backed mappings\n"
	"  --no-build-id  skip build IDs\n"
	"  --text         parse /proc/PID/maps text even when the ioctl exists\n"
	"  --json         one JSON object per mapping\n";

struct maps_ctx {
	bool json;
};

void cli_build_id_hex(const uint8_t *id, uint32_t n, char *out, size_t len)
{
	size_t at = 0;

	out[0] = '\0';
	for (uint32_t i = 0; i < n && at + 3 <= len; i++)
		at += (size_t)snprintf(out + at, len - at, "%02x", id[i]);
}

void cli_perms(uint32_t flags, char out[5])
{
	out[0] = flags & RINGSIDE_VMA_READ ? 'r' : '-';
	out[1] = flags & RINGSIDE_VMA_WRITE ? 'w' : '-';
	out[2] = flags & RINGSIDE_VMA_EXEC ? 'x' : '-';
	out[3] = flags & RINGSIDE_VMA_SHARED ? 's' : 'p';
	out[4] = '\0';
}

static int print_vma(void *arg, const struct ringside_vma *v)
{
	const struct maps_ctx *ctx = arg;
	char perms[5], bid[2 * RINGSIDE_BUILD_ID_MAX + 1];

	cli_perms(v->flags, perms);
	cli_build_id_hex(v->build_id, v->build_id_size, bid, sizeof(bid));
	if (ctx->json) {
		struct ringside_json j;
		char dev[16];

		snprintf(dev, sizeof(dev), "%02x:%02x", v->dev_major, v->dev_minor);
		ringside_json_begin(&j, stdout);
		ringside_json_str(&j, "type", "vma");
		cli_json_hex(&j, "start", v->start);
		cli_json_hex(&j, "end", v->end);
		ringside_json_str(&j, "perms", perms);
		ringside_json_u64(&j, "offset", v->offset);
		ringside_json_str(&j, "dev", dev);
		ringside_json_u64(&j, "inode", v->inode);
		ringside_json_u64(&j, "page_size", v->page_size);
		ringside_json_str(&j, "name", v->name);
		ringside_json_str(&j, "build_id", bid);
		ringside_json_end(&j);
	} else {
		printf("%012llx-%012llx %s %08llx %02x:%02x %-10llu %s%s%s\n",
		       (unsigned long long)v->start, (unsigned long long)v->end, perms,
		       (unsigned long long)v->offset, v->dev_major, v->dev_minor,
		       (unsigned long long)v->inode, v->name, bid[0] ? "  " : "", bid);
	}
	return 0;
}

int cmd_maps(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "exec-only", no_argument, NULL, 'x' },
		{ "file-only", no_argument, NULL, 'f' },
		{ "no-build-id", no_argument, NULL, 'B' },
		{ "text", no_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	enum ringside_procmaps_mode mode = RINGSIDE_PROCMAPS_AUTO;
	uint32_t flags = RINGSIDE_QUERY_BUILD_ID;
	struct maps_ctx ctx = { 0 };
	struct ringside_procmaps *pm;
	pid_t pid;
	int opt, err;

	while ((opt = cli_getopt(argc, argv, "h", longopts)) != -1) {
		switch (opt) {
		case 'x': flags |= RINGSIDE_VMA_EXEC; break;
		case 'f': flags |= RINGSIDE_QUERY_FILE_BACKED; break;
		case 'B': flags &= ~RINGSIDE_QUERY_BUILD_ID; break;
		case 't': mode = RINGSIDE_PROCMAPS_TEXT; break;
		case 'j': ctx.json = true; break;
		case 'h': fputs(maps_usage, stdout); return 0;
		default: return cli_bad_option("maps", argv);
		}
	}
	if (optind != argc - 1) {
		cli_err("maps: give exactly one PID (see ringside maps --help)");
		return 2;
	}
	if (cli_parse_pid(argv[optind], &pid, "process"))
		return 1;
	for (int tries = 0; tries < 3; tries++) {
		err = ringside_procmaps_open(pid, mode, &pm);
		if (!err) {
			err = ringside_procmaps_foreach(pm, flags, print_vma, &ctx);
			ringside_procmaps_close(pm);
		}
		/*
		 * A maps file opened just before the process exec'd reads empty, as an
		 * exited one's does: a process still running is asked again.
		 */
		if (err != -ESRCH || ringside_proc_check(pid))
			break;
	}
	if (err) {
		cli_err("maps of process %d: %s", (int)pid, ringside_strerror(err));
		return 1;
	}
	return 0;
}
