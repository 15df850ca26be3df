// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Text and JSON output shared by the CLI and embedding agents. */
#include <stdio.h>
#include <string.h>

#include "ringside/ringside.h"

void ringside_json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\r': fputs("\\r", out); break;
		case '\t': fputs("\\t", out); break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fprintf(out, "\\u%04x", *p);
			else
				fputc(*p, out);
		}
	}
	fputc('"', out);
}

void ringside_features_print(const struct ringside_features *f, FILE *out, bool json)
{
	for (int i = 0; i < RINGSIDE_FEAT_COUNT; i++) {
		const struct ringside_feature_result *r = &f->f[i];

		if (json) {
			fputs("{\"type\":\"feature\",\"name\":", out);
			ringside_json_string(out, r->name);
			fprintf(out, ",\"present\":%s,\"why\":", r->present ? "true" : "false");
			ringside_json_string(out, r->why);
			fputs("}\n", out);
		} else {
			fprintf(out, "%-30s %-3s  %s\n", r->name, r->present ? "yes" : "no", r->why);
		}
	}
}
