// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The Prometheus exposition (include/ringside/metrics.h): metric families
 * built from what collectors count, folded at a cap on label sets, written
 * as text 0.0.4 or OpenMetrics 1.0.0, with ringside's own and the standard
 * process_* families.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "metrics_int.h"
#include "session_int.h"
#include "totals.h"
#include "proc_stat.h"

#define SLOTS RINGSIDE_HIST_SLOTS
#define OTHER "__other__"

struct rs_series {
	char *values[RS_METRIC_MAX_LABELS];
	uint32_t hash;
	bool folded;		/* a label set past the cap: only remembered, counted once */
	double v;		/* counters, gauges */
	uint64_t *slots;	/* histograms: SLOTS counts, allocated at the first observation */
	double sum;
};

struct dropped {
	char metric[96];
	uint64_t n;
};

struct rs_metrics {
	FILE *out;
	enum ringside_metrics_format format;
	unsigned int max_series;
	struct dropped dropped[64];
	unsigned int nr_dropped;
};

struct rs_family {
	struct rs_metrics *m;
	char name[96];
	enum rs_metric_type type;
	const char *unit, *help;
	const char *labels[RS_METRIC_MAX_LABELS + 1];
	unsigned int nr_labels;
	double scale;
	struct rs_series *series;	/* kept ones first in order of arrival; folded ones too */
	unsigned int nr, cap, kept;
	unsigned int *table, table_size;	/* open addressing: index + 1, 0 empty */
	struct rs_series other;
	bool have_other;
	uint64_t folded;
	/* Histograms: the family's lowest and highest slot observed (lo > hi: none). */
	unsigned int lo, hi;
	char le[SLOTS][32];	/* the le labels of slots lo..hi, written once per family */
};

static uint32_t hash_values(const char *const *values, unsigned int n)
{
	uint32_t h = 2166136261u;

	for (unsigned int i = 0; i < n; i++) {
		for (const unsigned char *p = (const unsigned char *)values[i]; *p; p++)
			h = (h ^ *p) * 16777619u;
		h = (h ^ 0x1f) * 16777619u;
	}
	return h;
}

static bool same_values(const struct rs_series *s, const char *const *values, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		if (strcmp(s->values[i], values[i]))
			return false;
	return true;
}

static bool grow_table(struct rs_family *f)
{
	unsigned int size = f->table_size ? f->table_size * 2 : 256;
	unsigned int *t = calloc(size, sizeof(*t));

	if (!t)
		return false;
	for (unsigned int i = 0; i < f->nr; i++) {
		unsigned int at = f->series[i].hash & (size - 1);

		while (t[at])
			at = (at + 1) & (size - 1);
		t[at] = i + 1;
	}
	free(f->table);
	f->table = t;
	f->table_size = size;
	return true;
}

/* The series of these values: kept, folded into "other", or NULL without memory. */
static struct rs_series *series_of(struct rs_family *f, const char *const *values)
{
	uint32_t h = hash_values(values, f->nr_labels);
	struct rs_series *s;
	unsigned int at;

	if ((f->nr + 1) * 2 > f->table_size && !grow_table(f))
		return NULL;
	for (at = h & (f->table_size - 1); f->table[at]; at = (at + 1) & (f->table_size - 1)) {
		s = &f->series[f->table[at] - 1];
		if (s->hash == h && same_values(s, values, f->nr_labels))
			return s->folded ? &f->other : s;
	}
	if (f->nr == f->cap) {
		unsigned int cap = f->cap ? f->cap * 2 : 64;
		struct rs_series *n = realloc(f->series, cap * sizeof(*n));

		if (!n)
			return NULL;
		f->series = n;
		f->cap = cap;
	}
	s = &f->series[f->nr];
	memset(s, 0, sizeof(*s));
	s->hash = h;
	for (unsigned int i = 0; i < f->nr_labels; i++) {
		s->values[i] = strdup(values[i]);
		if (!s->values[i]) {
			while (i--)
				free(s->values[i]);
			return NULL;
		}
	}
	s->folded = f->kept >= f->m->max_series;
	f->table[at] = ++f->nr;
	if (!s->folded) {
		f->kept++;
		return s;
	}
	f->folded++;
	f->have_other = true;
	return &f->other;
}

struct rs_family *rs_family_new(struct rs_metrics *m, const char *name, enum rs_metric_type type,
				const char *unit, const char *help, const char *const *labels,
				double scale)
{
	struct rs_family *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->m = m;
	snprintf(f->name, sizeof(f->name), "%s", name);
	f->type = type;
	f->unit = unit;
	f->help = help;
	f->scale = scale;
	for (; labels && labels[f->nr_labels] && f->nr_labels < RS_METRIC_MAX_LABELS; f->nr_labels++)
		f->labels[f->nr_labels] = labels[f->nr_labels];
	return f;
}

void rs_family_add(struct rs_family *f, const char *const *values, double v)
{
	struct rs_series *s = f ? series_of(f, values) : NULL;

	if (s)
		s->v += v;
}

void rs_family_observe(struct rs_family *f, const char *const *values, unsigned int slot,
		       uint64_t count, double sum)
{
	struct rs_series *s = f ? series_of(f, values) : NULL;

	if (!s || (!s->slots && !(s->slots = calloc(SLOTS, sizeof(*s->slots)))))
		return;
	s->slots[slot < SLOTS ? slot : SLOTS - 1] += count;
	s->sum += sum;
}

/* A label value: escaped, and valid UTF-8 (a process name may hold any byte). */
static void write_label_value(FILE *out, const char *v)
{
	for (const unsigned char *p = (const unsigned char *)v; *p;) {
		size_t len = rs_utf8_len(p, strlen((const char *)p));

		if (!len) {
			fputs("\xef\xbf\xbd", out);
			p++;
			continue;
		}
		if (*p == '\\')
			fputs("\\\\", out);
		else if (*p == '"')
			fputs("\\\"", out);
		else if (*p == '\n')
			fputs("\\n", out);
		else
			fwrite(p, 1, len, out);
		p += len;
	}
}

/* {a="x",b="y"} plus an le label for buckets; nothing for a family without labels. */
static void write_labels(const struct rs_family *f, const struct rs_series *s, const char *le)
{
	FILE *out = f->m->out;

	if (!f->nr_labels && !le)
		return;
	fputc('{', out);
	for (unsigned int i = 0; i < f->nr_labels; i++) {
		fprintf(out, "%s%s=\"", i ? "," : "", f->labels[i]);
		write_label_value(out, s == &f->other ? OTHER : s->values[i]);
		fputc('"', out);
	}
	if (le)
		fprintf(out, "%sle=\"%s\"", f->nr_labels ? "," : "", le);
	fputc('}', out);
}

static void write_number(FILE *out, double v)
{
	if (isnan(v))
		fputs("NaN", out);
	else if (isinf(v))
		fputs(v > 0 ? "+Inf" : "-Inf", out);
	else if (v == (double)(long long)v && fabs(v) < 1e15)
		fprintf(out, "%lld", (long long)v);
	else {
		/* The shortest form that reads back as the same double. */
		char buf[32];

		snprintf(buf, sizeof(buf), "%.15g", v);
		if (strtod(buf, NULL) != v)
			snprintf(buf, sizeof(buf), "%.17g", v);
		fputs(buf, out);
	}
}

/*
 * The upper bound of histogram slot b, as an le label: slot b holds the whole
 * numbers from 2^(b-1) to 2^b - 1 (ringside_hist_slot()), so its bound is
 * 2^b - 1 times the family's scale, written exactly. 2^b itself is in the
 * next slot: an le of 2^b would leave out values equal to it, which sizes
 * often are (16, 64, 1024 bytes). A power-of-ten scale (1 or 1e-9) moves the
 * decimal point; another is written as printf rounds it.
 */
void rs_bucket_le(char *buf, size_t len, unsigned int b, double scale)
{
	uint64_t top = b >= 64 ? UINT64_MAX : (1ULL << b) - 1;
	char digits[24];
	int n = snprintf(digits, sizeof(digits), "%" PRIu64, top), point = 0;
	double unit = 1;

	while (point < 18 && unit > scale * (1 + 1e-9)) {
		unit /= 10;
		point++;
	}
	if (fabs(unit - scale) > scale * 1e-9 || !top || !point) {
		if (point && top)
			snprintf(buf, len, "%.17g", (double)top * scale);
		else
			snprintf(buf, len, "%s", digits);
		return;
	}
	if (n > point)
		snprintf(buf, len, "%.*s.%s", n - point, digits, digits + n - point);
	else
		snprintf(buf, len, "0.%.*s%s", point - n, "000000000000000000", digits);
}

static void write_sample(const struct rs_family *f, const struct rs_series *s)
{
	FILE *out = f->m->out;
	uint64_t cum = 0;

	if (f->type != RS_HISTOGRAM) {
		fprintf(out, "%s%s", f->name, f->type == RS_COUNTER ? "_total" :
					      f->type == RS_INFO ? "_info" : "");
		write_labels(f, s, NULL);
		fputc(' ', out);
		write_number(out, f->type == RS_INFO ? 1 : s->v);
		fputc('\n', out);
		return;
	}
	/*
	 * The same buckets for every series of the family: from its lowest
	 * observed slot to its highest (below the lowest every series is 0).
	 */
	for (unsigned int b = f->lo; b <= f->hi && b < SLOTS; b++) {
		cum += s->slots ? s->slots[b] : 0;
		fprintf(out, "%s_bucket", f->name);
		write_labels(f, s, f->le[b]);
		fprintf(out, " %llu\n", (unsigned long long)cum);
	}
	for (unsigned int b = f->hi + 1; b < SLOTS && s->slots; b++)
		cum += s->slots[b];
	fprintf(out, "%s_bucket", f->name);
	write_labels(f, s, "+Inf");
	fprintf(out, " %llu\n%s_sum", (unsigned long long)cum, f->name);
	write_labels(f, s, NULL);
	fputc(' ', out);
	write_number(out, s->sum);
	fprintf(out, "\n%s_count", f->name);
	write_labels(f, s, NULL);
	fprintf(out, " %llu\n", (unsigned long long)cum);
}

static void write_header(const struct rs_family *f)
{
	static const char *const types[] = { "counter", "gauge", "histogram", "info" };
	FILE *out = f->m->out;

	if (f->m->format == RINGSIDE_METRICS_OPENMETRICS) {
		fprintf(out, "# TYPE %s %s\n", f->name, types[f->type]);
		if (f->unit)
			fprintf(out, "# UNIT %s %s\n", f->name, f->unit);
		fprintf(out, "# HELP %s %s\n", f->name, f->help);
		return;
	}
	/* Text 0.0.4 names the family as its samples are named; no info type. */
	const char *suffix = f->type == RS_COUNTER ? "_total" : f->type == RS_INFO ? "_info" : "";

	fprintf(out, "# HELP %s%s %s\n", f->name, suffix, f->help);
	fprintf(out, "# TYPE %s%s %s\n", f->name, suffix,
		f->type == RS_INFO ? "gauge" : types[f->type]);
}

void rs_family_end(struct rs_family *f)
{
	if (!f)
		return;
	write_header(f);
	f->lo = SLOTS;
	f->hi = 0;
	for (unsigned int i = 0; i <= f->nr; i++) {
		const struct rs_series *s = i < f->nr ? &f->series[i] : &f->other;

		for (unsigned int b = 0; s->slots && !s->folded && b < SLOTS; b++) {
			if (s->slots[b] && b < f->lo)
				f->lo = b;
			if (s->slots[b] && b > f->hi)
				f->hi = b;
		}
	}
	for (unsigned int b = f->lo; b <= f->hi && b < SLOTS; b++)
		rs_bucket_le(f->le[b], sizeof(f->le[b]), b, f->scale);
	for (unsigned int i = 0; i < f->nr; i++)
		if (!f->series[i].folded)
			write_sample(f, &f->series[i]);
	if (f->have_other)
		write_sample(f, &f->other);
	if (f->folded && f->m->nr_dropped < sizeof(f->m->dropped) / sizeof(f->m->dropped[0])) {
		struct dropped *d = &f->m->dropped[f->m->nr_dropped++];

		snprintf(d->metric, sizeof(d->metric), "%s", f->name);
		d->n = f->folded;
	}
	for (unsigned int i = 0; i < f->nr; i++) {
		for (unsigned int l = 0; l < f->nr_labels; l++)
			free(f->series[i].values[l]);
		free(f->series[i].slots);
	}
	free(f->other.slots);
	free(f->series);
	free(f->table);
	free(f);
}

/* ---- ringside's own families and the process's --------------------------- */

/* One collector's up, lost and rows-lost series. */
static void collector_up(const struct rs_collector *c, struct rs_family *up, struct rs_family *lost,
			 struct rs_family *rows)
{
	char variant[160] = "";
	const char *v[2];

	for (unsigned int i = 0; i < c->ops->nr_parts; i++) {
		int k = c->choice[i].variant;

		if (k >= 0)
			snprintf(variant + strlen(variant), sizeof(variant) - strlen(variant), "%s%s",
				 variant[0] ? "+" : "", c->ops->parts[i].variants[k].name);
	}
	v[0] = c->ops->name;
	v[1] = variant;
	rs_family_add(up, v, c->obj ? 1 : 0);
	rs_family_add(lost, v, (double)rs_collector_drops(c, RS_DROP_RINGBUF));
	rs_family_add(rows, v, (double)rs_collector_drops(c, RS_DROP_TOTALS));
}

static void own_families(struct ringside_session *const *sessions, unsigned int nr,
			 const struct ringside_metrics_opts *o, struct rs_metrics *m)
{
	static const char *const up_labels[] = { "collector", "variant", NULL };
	static const char *const col_labels[] = { "collector", NULL };
	static const char *const build_labels[] = { "version", NULL };
	struct rs_family *up, *lost, *rows, *build;
	const char *v[2];

	build = rs_family_new(m, "ringside_build", RS_INFO, NULL, "ringside's version.", build_labels,
			      1);
	v[0] = RINGSIDE_VERSION;
	rs_family_add(build, v, 1);
	rs_family_end(build);

	up = rs_family_new(m, "ringside_collector_up", RS_GAUGE, NULL,
			   "1 when the collector is attached, with the program variants it uses; "
			   "0 when it could not start.", up_labels, 1);
	lost = rs_family_new(m, "ringside_events_lost", RS_COUNTER, NULL,
			     "Records the ring buffer had no room for.", col_labels, 1);
	rows = rs_family_new(m, "ringside_aggregation_rows_lost", RS_COUNTER, NULL,
			     "Updates the kernel could not count: its map was full, or it could not allocate a row.",
			     col_labels, 1);
	for (unsigned int si = 0; si < nr; si++) {
		for (struct rs_collector *c = sessions[si]->collectors; c; c = c->next)
			collector_up(c, up, lost, rows);
	}
	for (const char *const *d = o && o->sz >= offsetof(struct ringside_metrics_opts, down) +
					      sizeof(o->down) ? o->down : NULL; d && *d; d++) {
		v[0] = *d;
		v[1] = "";
		rs_family_add(up, v, 0);
	}
	rs_family_end(up);
	rs_family_end(lost);
	rs_family_end(rows);
}

/* The standard process_* families of the client libraries, from /proc/self. */
static void process_families(struct rs_metrics *m)
{
	static const char *const none[] = { NULL };
	unsigned long utime = 0, stime = 0, vsize = 0;
	unsigned long long start = 0;
	long rss = 0, tick = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE);
	double boot = 0;
	struct rs_family *f;
	char line[1024];
	unsigned int fds = 0;
	const char *fields = rs_proc_stat_fields(getpid(), line, sizeof(line));
	FILE *st;
	DIR *d;

	/* From state (field 3) on: utime, stime, starttime, vsize, rss. */
	if (fields)
		sscanf(fields, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu %*d %*d %*d %*d "
			       "%*d %*d %llu %lu %ld", &utime, &stime, &start, &vsize, &rss);
	st = fopen("/proc/stat", "re");
	while (st && fgets(line, sizeof(line), st))
		if (sscanf(line, "btime %lf", &boot) == 1)
			break;
	if (st)
		fclose(st);
	d = opendir("/proc/self/fd");
	if (d) {
		while (readdir(d))
			fds++;
		closedir(d);
		fds = fds > 3 ? fds - 3 : 0;	/* ".", ".." and the directory's own fd */
	}
	f = rs_family_new(m, "process_cpu_seconds", RS_COUNTER, "seconds",
			  "Total user and system CPU time spent in seconds.", none, 1);
	rs_family_add(f, none, (double)(utime + stime) / tick);
	rs_family_end(f);
	f = rs_family_new(m, "process_resident_memory_bytes", RS_GAUGE, "bytes",
			  "Resident memory size in bytes.", none, 1);
	rs_family_add(f, none, (double)rss * page);
	rs_family_end(f);
	f = rs_family_new(m, "process_virtual_memory_bytes", RS_GAUGE, "bytes",
			  "Virtual memory size in bytes.", none, 1);
	rs_family_add(f, none, (double)vsize);
	rs_family_end(f);
	f = rs_family_new(m, "process_open_fds", RS_GAUGE, NULL, "Number of open file descriptors.",
			  none, 1);
	rs_family_add(f, none, fds);
	rs_family_end(f);
	f = rs_family_new(m, "process_start_time_seconds", RS_GAUGE, "seconds",
			  "Start time of the process since unix epoch in seconds.", none, 1);
	rs_family_add(f, none, boot + (double)start / tick);
	rs_family_end(f);
}

const char *ringside_metrics_content_type(enum ringside_metrics_format format)
{
	return format == RINGSIDE_METRICS_OPENMETRICS ?
		       "application/openmetrics-text; version=1.0.0; charset=utf-8" :
		       "text/plain; version=0.0.4; charset=utf-8";
}

int ringside_metrics_write(struct ringside_session *const *sessions, unsigned int nr,
			   const struct ringside_metrics_opts *o, FILE *out)
{
	static const char *const metric_label[] = { "metric", NULL };
	static const char *const none[] = { NULL };
	struct rs_metrics m = { .out = out, .max_series = RINGSIDE_METRICS_MAX_SERIES };
	struct timespec t0, t1;
	struct rs_family *f;
	int err = 0;

	if ((!sessions && nr) || !out)
		return -EINVAL;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (o && o->sz >= offsetof(struct ringside_metrics_opts, max_series) + sizeof(o->max_series)) {
		m.format = o->format;
		if (o->max_series)
			m.max_series = o->max_series;
	}
	for (unsigned int i = 0; i < nr && !err; i++)
		for (struct rs_collector *c = sessions[i]->collectors; c && !err; c = c->next)
			if (c->obj && c->ops->metrics)
				err = c->ops->metrics(c, &m);
	own_families(sessions, nr, o, &m);
	process_families(&m);
	f = rs_family_new(&m, "ringside_series_dropped", RS_COUNTER, NULL,
			  "Label sets folded into the __other__ series of a metric past --max-series.",
			  metric_label, 1);
	for (unsigned int i = 0; i < m.nr_dropped; i++) {
		const char *v[] = { m.dropped[i].metric };

		rs_family_add(f, v, (double)m.dropped[i].n);
	}
	rs_family_end(f);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	f = rs_family_new(&m, "ringside_scrape_duration_seconds", RS_GAUGE, "seconds",
			  "Time this exposition took to gather.", none, 1);
	rs_family_add(f, none, (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	rs_family_end(f);
	if (m.format == RINGSIDE_METRICS_OPENMETRICS)
		fputs("# EOF\n", out);
	return err ? err : (ferror(out) ? -EIO : 0);
}
