// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The reclaim profile's summary: every figure's mean and spread per
 * swappiness setting over the trials, and which settings cost least.
 *
 * The ranking figure is refaults per reclaimed page: a page reclaimed and
 * needed again within the window comes back as a refault (a swap-in or a
 * page-cache read), so the ratio is the share of the reclaim that was
 * wasted work. Two settings differ only when their intervals (mean ± one
 * standard deviation) do not overlap and the means are at least 0.02 apart.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ringside/reclaim.h"

#define COST_NOISE 0.02

struct acc {
	double sum, sumsq;
	unsigned int n;
};

static void add(struct acc *a, double v)
{
	if (isnan(v))
		return;
	a->sum += v;
	a->sumsq += v * v;
	a->n++;
}

static struct ringside_stat stat_of(const struct acc *a)
{
	struct ringside_stat s = { NAN, NAN };
	double var;

	if (!a->n)
		return s;
	s.mean = a->sum / a->n;
	var = a->n > 1 ? (a->sumsq - a->sum * a->sum / a->n) / (a->n - 1) : 0;
	s.sd = var > 0 ? sqrt(var) : 0;
	return s;
}

struct setting_acc {
	struct acc reclaimed_mib, anon_share, refaults, refault_anon, refault_file, majfaults, swapins,
		cost, stall_ms, latency_ms, ops_per_s, metric_rate;
	uint64_t requested;
};

static void accumulate(struct setting_acc *a, struct ringside_profile_setting *out,
		       const struct ringside_reclaim_profile_row *r)
{
	uint64_t pages = r->anon_pages + r->file_pages, refaults = r->refault_anon + r->refault_file;

	out->trials++;
	if (r->err)
		out->failed++;
	a->requested += r->requested;
	add(&a->reclaimed_mib, r->reclaimed / 1048576.0);
	add(&a->anon_share, pages ? (double)r->anon_pages / pages : NAN);
	add(&a->refaults, (double)refaults);
	add(&a->refault_anon, (double)r->refault_anon);
	add(&a->refault_file, (double)r->refault_file);
	add(&a->majfaults, (double)r->majfaults);
	add(&a->swapins, (double)r->swapins);
	/* Nothing reclaimed, nothing wasted; refaults then are the workload's own churn. */
	add(&a->cost, pages ? (double)refaults / pages : 0);
	add(&a->stall_ms, r->psi_scope ? r->stall_some_us / 1e3 : NAN);
	add(&a->latency_ms, r->calls ? r->seconds * 1e3 / r->calls : NAN);
	add(&a->ops_per_s, r->workload_ops && r->window_s > 0 ? r->workload_ops / r->window_s : NAN);
	add(&a->metric_rate, r->metric_rate);
}

static bool as_good(const struct ringside_profile_setting *s, const struct ringside_profile_setting *best)
{
	double gap = s->cost.mean - best->cost.mean;

	return gap < COST_NOISE || s->cost.mean - s->cost.sd <= best->cost.mean + best->cost.sd;
}

/* "0..60", "0, 100..200": runs of neighbours among the sorted settings. */
static void describe_set(const struct ringside_profile_summary *sum, const bool *in, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < sum->nr_settings; i++) {
		unsigned int j = i;

		if (!in[i])
			continue;
		while (j + 1 < sum->nr_settings && in[j + 1])
			j++;
		if (j > i)
			used += snprintf(buf + used, used < len ? len - used : 0, "%s%d..%d", used ? ", " : "",
					 sum->settings[i].swappiness, sum->settings[j].swappiness);
		else
			used += snprintf(buf + used, used < len ? len - used : 0, "%s%d", used ? ", " : "",
					 sum->settings[i].swappiness);
		i = j;
	}
}

static void recommend(struct ringside_profile_summary *sum)
{
	bool in[32] = { false }, out_set[32] = { false };
	const struct ringside_profile_setting *best = NULL;
	unsigned int eligible = 0, nr_out = 0;
	char set[160], others[160], evidence[400];
	size_t used = 0;

	for (unsigned int i = 0; i < sum->nr_settings; i++) {
		const struct ringside_profile_setting *s = &sum->settings[i];

		if (s->short_of_amount)
			continue;
		eligible++;
		if (!best || s->cost.mean < best->cost.mean ||
		    (s->cost.mean == best->cost.mean && s->stall_ms.mean < best->stall_ms.mean))
			best = s;
	}
	for (unsigned int i = 0; i < sum->nr_settings; i++) {
		const struct ringside_profile_setting *s = &sum->settings[i];

		used += snprintf(evidence + used, used < sizeof(evidence) ? sizeof(evidence) - used : 0,
				 "%s%d: %.2f±%.2f%s", i ? ", " : "", s->swappiness, s->cost.mean, s->cost.sd,
				 s->short_of_amount ? " (short)" : "");
		if (!best || s->short_of_amount)
			continue;
		if (as_good(s, best)) {
			in[i] = true;
			sum->recommended[sum->nr_recommended++] = s->swappiness;
		} else {
			out_set[i] = true;
			nr_out++;
		}
	}
	if (!best) {
		snprintf(sum->text, sizeof(sum->text),
			 "no recommendation: no setting reclaimed half of what was asked (refaults per "
			 "reclaimed page: %s)", evidence);
		return;
	}
	sum->no_difference = sum->nr_recommended == eligible;
	describe_set(sum, in, set, sizeof(set));
	describe_set(sum, out_set, others, sizeof(others));
	if (sum->no_difference)
		snprintf(sum->text, sizeof(sum->text),
			 "no difference measurable between swappiness %s: refaults per reclaimed page "
			 "%s%s", set, evidence,
			 sum->no_spread ? " (one trial: run --trials 3 or more for a spread)" : "");
	else
		snprintf(sum->text, sizeof(sum->text),
			 "swappiness %s: fewest refaults per reclaimed page (%s); %s cost%s more%s", set,
			 evidence, others, nr_out == 1 ? "s" : "",
			 sum->no_spread ? " (one trial, no spread: run --trials 3 or more to confirm)" : "");
}

int ringside_reclaim_profile_summarize(const struct ringside_reclaim_profile_row *rows, size_t nr,
				       struct ringside_profile_summary *out)
{
	struct setting_acc accs[32];
	unsigned int max_trials = 0;

	memset(out, 0, sizeof(*out));
	memset(accs, 0, sizeof(accs));
	if (!rows || !nr)
		return -EINVAL;
	for (size_t i = 0; i < nr; i++) {
		unsigned int k = 0;

		while (k < out->nr_settings && out->settings[k].swappiness != rows[i].swappiness)
			k++;
		if (k == out->nr_settings) {
			if (k == 32)
				return -E2BIG;
			/* Sorted insert: the table and the chart read left to right. */
			while (k > 0 && out->settings[k - 1].swappiness > rows[i].swappiness) {
				out->settings[k] = out->settings[k - 1];
				accs[k] = accs[k - 1];
				k--;
			}
			memset(&out->settings[k], 0, sizeof(out->settings[k]));
			memset(&accs[k], 0, sizeof(accs[k]));
			out->settings[k].swappiness = rows[i].swappiness;
			out->nr_settings++;
		}
		accumulate(&accs[k], &out->settings[k], &rows[i]);
	}
	for (unsigned int k = 0; k < out->nr_settings; k++) {
		struct ringside_profile_setting *s = &out->settings[k];
		struct setting_acc *a = &accs[k];

		s->reclaimed_mib = stat_of(&a->reclaimed_mib);
		s->anon_share = stat_of(&a->anon_share);
		s->refaults = stat_of(&a->refaults);
		s->refault_anon = stat_of(&a->refault_anon);
		s->refault_file = stat_of(&a->refault_file);
		s->majfaults = stat_of(&a->majfaults);
		s->swapins = stat_of(&a->swapins);
		s->cost = stat_of(&a->cost);
		s->stall_ms = stat_of(&a->stall_ms);
		s->latency_ms = stat_of(&a->latency_ms);
		s->ops_per_s = stat_of(&a->ops_per_s);
		s->metric_rate = stat_of(&a->metric_rate);
		s->short_of_amount = a->reclaimed_mib.sum * 1048576.0 < 0.5 * (double)a->requested;
		if (s->trials > max_trials)
			max_trials = s->trials;
	}
	out->no_spread = max_trials < 2;
	recommend(out);
	return 0;
}
