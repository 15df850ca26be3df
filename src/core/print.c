// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Text and JSON output shared by the CLI and embedding agents. */
#include <stdio.h>
#include <string.h>

#include "ringside/ringside.h"
#include "session_int.h"

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

/* Each collector's parts: the variant a session would load here, and why. */
static void print_variants(FILE *out, bool json)
{
	if (!json)
		fprintf(out, "\n%-8s %-19s %-19s %s\n", "COLLECTOR", "PART", "VARIANT", "DECIDED BY");
	for (const struct rs_collector_ops *const *c = rs_collectors; *c; c++) {
		for (unsigned int i = 0; i < (*c)->nr_parts; i++) {
			const struct rs_part *part = &(*c)->parts[i];
			struct rs_choice ch;
			const struct rs_variant *v;

			rs_part_choose(part, &ch);
			v = ch.variant >= 0 ? &part->variants[ch.variant] : NULL;
			if (!json) {
				fprintf(out, "%-9s %-19s %-19s %s %s: %s\n", (*c)->name, part->name,
					v ? v->name : "(none)", ch.decided_by,
					ch.present ? "present" : "missing", ch.why);
				continue;
			}
			fputs("{\"type\":\"variant\",\"collector\":", out);
			ringside_json_string(out, (*c)->name);
			fputs(",\"part\":", out);
			ringside_json_string(out, part->name);
			fputs(",\"variant\":", out);
			ringside_json_string(out, v ? v->name : "");
			fputs(",\"programs\":", out);
			ringside_json_string(out, v ? v->progs : "");
			fputs(",\"other_programs\":\"", out);
			for (unsigned int k = 0, n = 0; k < part->nr_variants; k++) {
				if ((int)k == ch.variant || !part->variants[k].progs[0])
					continue;
				/* Prefixes are plain identifiers: no escaping needed. */
				fprintf(out, "%s%s", n++ ? " " : "", part->variants[k].progs);
			}
			fputs("\",\"gives\":", out);
			ringside_json_string(out, v ? v->gives : "");
			fputs(",\"decided_by\":", out);
			ringside_json_string(out, ch.decided_by);
			fprintf(out, ",\"present\":%s,\"why\":", ch.present ? "true" : "false");
			ringside_json_string(out, ch.why);
			fputs("}\n", out);
		}
	}
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
	print_variants(out, json);
}
