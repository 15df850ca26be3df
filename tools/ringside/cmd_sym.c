// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ringside/resolve.h"

static const char sym_usage[] =
	"Usage: ringside sym PID [ADDR...] [--json]\n"
	"Symbolize user addresses of a process: one line per address,\n"
	"  ADDR  file+offset  symbol+0xoff  (build-id)\n"
	"Addresses are hex (0x optional) and are read from stdin when none are given.\n"
	"  --text   parse /proc/PID/maps text even when PROCMAP_QUERY exists\n"
	"  --json   one JSON object per address\n";

struct sym_ctx {
	struct ringside_resolver *r;
	pid_t pid;
	bool json;
	int failures;
};

static void print_sym(struct sym_ctx *c, uint64_t addr)
{
	char bid[2 * RINGSIDE_BUILD_ID_MAX + 1];
	struct ringside_sym s;
	int err = ringside_resolve(c->r, c->pid, addr, &s);

	if (err) {
		c->failures++;
		if (c->json) {
			struct ringside_json j;

			ringside_json_begin(&j, stdout);
			ringside_json_str(&j, "type", "sym");
			cli_json_hex(&j, "addr", addr);
			ringside_json_str(&j, "error", err == -ENOENT ? "not mapped" : ringside_strerror(err));
			ringside_json_end(&j);
		} else {
			printf("0x%llx  -  -  (%s)\n", (unsigned long long)addr,
			       err == -ENOENT ? "not mapped" : ringside_strerror(err));
		}
		return;
	}
	cli_build_id_hex(s.build_id, s.build_id_size, bid, sizeof(bid));
	if (c->json) {
		struct ringside_json j;

		ringside_json_begin(&j, stdout);
		ringside_json_str(&j, "type", "sym");
		cli_json_hex(&j, "addr", addr);
		ringside_json_str(&j, "file", s.path);
		cli_json_hex(&j, "file_offset", s.file_offset);
		if (s.symbol)
			ringside_json_str(&j, "symbol", s.symbol);
		else
			ringside_json_null(&j, "symbol");
		cli_json_hex(&j, "symbol_offset", s.sym_offset);
		ringside_json_str(&j, "build_id", bid);
		ringside_json_end(&j);
		return;
	}
	printf("0x%llx  %s+0x%llx  ", (unsigned long long)addr, s.path[0] ? s.path : "[anon]",
	       (unsigned long long)s.file_offset);
	if (s.symbol)
		printf("%s+0x%llx", s.symbol, (unsigned long long)s.sym_offset);
	else
		fputs("-", stdout);
	printf(bid[0] ? "  (%s)\n" : "%s\n", bid);
}

static int parse_addr(const char *s, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 16);
	return errno || end == s || (*end && *end != '\n') ? -EINVAL : 0;
}

int cmd_sym(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "text", no_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct ringside_resolver_opts ro = { .sz = sizeof(ro), .want_build_id = 1 };
	struct sym_ctx c = { 0 };
	uint64_t addr;
	int opt, err;

	while ((opt = cli_getopt(argc, argv, "h", longopts)) != -1) {
		switch (opt) {
		case 'j': c.json = true; break;
		case 't': ro.mode = RINGSIDE_PROCMAPS_TEXT; break;
		case 'h': fputs(sym_usage, stdout); return 0;
		default: return cli_bad_option("sym", argv);
		}
	}
	if (optind >= argc) {
		cli_err("sym: give a PID (see ringside sym --help)");
		return 2;
	}
	if (cli_parse_pid(argv[optind], &c.pid, "process"))
		return 1;
	for (int i = optind + 1; i < argc; i++) {
		if (parse_addr(argv[i], &addr)) {
			cli_err("sym: '%s' is not a hex address", argv[i]);
			return 2;
		}
	}
	err = ringside_resolver_new(&ro, &c.r);
	if (err) {
		cli_err("sym: %s", ringside_strerror(err));
		return 1;
	}
	if (optind + 1 < argc) {
		for (int i = optind + 1; i < argc; i++) {
			parse_addr(argv[i], &addr);
			print_sym(&c, addr);
		}
	} else {
		char line[256];

		while (fgets(line, sizeof(line), stdin)) {
			if (line[0] == '\n' || line[0] == '#')
				continue;
			if (parse_addr(line, &addr)) {
				line[strcspn(line, "\n")] = '\0';
				cli_err("sym: '%s' is not a hex address", line);
				c.failures++;
				continue;
			}
			print_sym(&c, addr);
		}
	}
	ringside_resolver_free(c.r);
	return c.failures ? 1 : 0;
}
