// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The guest kernels' static ringside has no agent: Debian ships no static
 * GnuTLS for libmicrohttpd to link. The guest suite does not use it.
 */
#include <stdio.h>

int cmd_agent(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fputs("ringside: agent: not in this static build (it needs libmicrohttpd and GnuTLS)\n",
	      stderr);
	return 1;
}
