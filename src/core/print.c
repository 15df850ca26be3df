// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Text and JSON output shared by the CLI and embedding agents. */
#include <stdio.h>
#include <string.h>

#include "ringside/ringside.h"
#include "session_int.h"

/* Each collector's parts: the variant a session would load here, and why. */
static void print_variants(FILE *out, bool json)
{
	if (!json)
		fprintf(out, "\n%-10s %-19s %-19s %s\n", "COLLECTOR", "PART", "VARIANT", "DECIDED BY");
	for (const struct rs_collector_ops *const *c = rs_collectors; *c; c++) {
		for (unsigned int i = 0; i < (*c)->nr_parts; i++) {
			const struct rs_part *part = &(*c)->parts[i];
			struct rs_choice ch;
			const struct rs_variant *v;
			struct ringside_json j;
			char others[256];

			rs_part_choose(part, &ch, true);
			v = ch.variant >= 0 ? &part->variants[ch.variant] : NULL;
			if (!json) {
				fprintf(out, "%-10s %-19s %-19s %s %s: %s\n", (*c)->name, part->name,
					v ? v->name : "(none)", ch.decided_by,
					ch.present ? "present" : "missing", ch.why);
				continue;
			}
			others[0] = '\0';
			for (unsigned int k = 0; k < part->nr_variants; k++)
				if ((int)k != ch.variant && part->variants[k].progs[0])
					snprintf(others + strlen(others), sizeof(others) - strlen(others),
						 "%s%s", others[0] ? " " : "", part->variants[k].progs);
			ringside_json_begin(&j, out);
			ringside_json_str(&j, "type", "variant");
			ringside_json_str(&j, "collector", (*c)->name);
			ringside_json_str(&j, "part", part->name);
			ringside_json_str(&j, "variant", v ? v->name : "");
			ringside_json_str(&j, "programs", v ? v->progs : "");
			ringside_json_str(&j, "other_programs", others);
			ringside_json_str(&j, "gives", v ? v->gives : "");
			ringside_json_str(&j, "decided_by", ch.decided_by);
			ringside_json_bool(&j, "present", ch.present);
			ringside_json_str(&j, "why", ch.why);
			ringside_json_end(&j);
		}
	}
}

void ringside_features_print(const struct ringside_features *f, FILE *out, bool json)
{
	for (int i = 0; i < RINGSIDE_FEAT_COUNT; i++) {
		const struct ringside_feature_result *r = &f->f[i];

		if (json) {
			struct ringside_json j;

			ringside_json_begin(&j, out);
			ringside_json_str(&j, "type", "feature");
			ringside_json_str(&j, "name", r->name);
			ringside_json_bool(&j, "present", r->present);
			ringside_json_str(&j, "why", r->why);
			ringside_json_end(&j);
		} else {
			fprintf(out, "%-30s %-3s  %s\n", r->name, r->present ? "yes" : "no", r->why);
		}
	}
	print_variants(out, json);
}
