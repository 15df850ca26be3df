// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The reclaim profile's chart, drawn with cairo once and written as SVG or
 * PNG from the same drawing. Two panels share the swappiness axis: on top
 * the split of what was reclaimed (anon share, with its spread), below what
 * it cost afterwards (refaults per reclaimed page, and PSI stall time on its
 * own scale), each point a mean with error bars of one standard deviation.
 */
#include <cairo.h>
#include <cairo-svg.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "dl_bind.h"
#include "profile_chart.h"

/* cairo, opened when a chart is asked for (dl_bind.h): its X11 and font stack is 1.5 MB. */
#define CAIRO_FNS(X) X(cairo_arc) X(cairo_create) X(cairo_destroy) X(cairo_fill) \
		     X(cairo_image_surface_create) X(cairo_line_to) X(cairo_move_to) X(cairo_paint) \
		     X(cairo_rectangle) X(cairo_restore) X(cairo_rotate) X(cairo_save) \
		     X(cairo_select_font_face) X(cairo_set_font_size) X(cairo_set_line_width) \
		     X(cairo_set_source_rgb) X(cairo_show_text) X(cairo_status) X(cairo_stroke) \
		     X(cairo_surface_destroy) X(cairo_surface_finish) X(cairo_surface_status) \
		     X(cairo_surface_write_to_png) X(cairo_svg_surface_create) X(cairo_text_extents) \
		     X(cairo_translate)
RS_DL_LIBRARY(cairo, "libcairo.so.2", "libcairo2", CAIRO_FNS)

const char *profile_chart_unavailable(void)
{
	return cairo_unavailable();
}

#define W 800
#define H 600
#define LEFT 80
#define RIGHT 80
#define PANEL_H 200

struct rgb {
	double r, g, b;
};
static const struct rgb anon_color = { 0.84, 0.15, 0.16 }, file_color = { 0.12, 0.47, 0.71 },
			cost_color = { 0.17, 0.17, 0.17 }, stall_color = { 0.58, 0.40, 0.74 },
			grid_color = { 0.85, 0.85, 0.85 }, best_color = { 0.17, 0.63, 0.17 };

static void set_color(cairo_t *cr, struct rgb c)
{
	cairo.cairo_set_source_rgb(cr, c.r, c.g, c.b);
}

static void text(cairo_t *cr, double x, double y, double align, const char *s)
{
	cairo_text_extents_t e;

	cairo.cairo_text_extents(cr, s, &e);
	cairo.cairo_move_to(cr, x - e.x_advance * align, y);
	cairo.cairo_show_text(cr, s);
}

/* larger()/smaller() as the comparisons they are (a NaN loses), without libm. */
static double larger(double a, double b)
{
	return isnan(a) || b > a ? b : a;
}

static double smaller(double a, double b)
{
	return isnan(a) || b < a ? b : a;
}

/* Mean ± sd as a vertical bar with caps, at x, scaled by y(v). */
static void error_bar(cairo_t *cr, double x, double top, double height, double max, struct ringside_stat s)
{
	double lo, hi;

	if (isnan(s.mean) || isnan(s.sd) || s.sd <= 0 || max <= 0)
		return;
	lo = larger(0, s.mean - s.sd);
	hi = smaller(max, s.mean + s.sd);
	lo = top + height - height * lo / max;
	hi = top + height - height * hi / max;
	cairo.cairo_set_line_width(cr, 1.2);
	cairo.cairo_move_to(cr, x, lo);
	cairo.cairo_line_to(cr, x, hi);
	cairo.cairo_move_to(cr, x - 5, lo);
	cairo.cairo_line_to(cr, x + 5, lo);
	cairo.cairo_move_to(cr, x - 5, hi);
	cairo.cairo_line_to(cr, x + 5, hi);
	cairo.cairo_stroke(cr);
}

static void axes(cairo_t *cr, double top, const char *left_label, const char *right_label, double left_max,
		 const char *left_fmt, double right_max)
{
	char buf[32];

	for (int i = 0; i <= 4; i++) {
		double y = top + PANEL_H - PANEL_H * i / 4.0;

		set_color(cr, grid_color);
		cairo.cairo_set_line_width(cr, 1);
		cairo.cairo_move_to(cr, LEFT, y);
		cairo.cairo_line_to(cr, W - RIGHT, y);
		cairo.cairo_stroke(cr);
		cairo.cairo_set_source_rgb(cr, 0, 0, 0);
		snprintf(buf, sizeof(buf), left_fmt, left_max * i / 4.0);
		text(cr, LEFT - 6, y + 4, 1, buf);
		if (right_label) {
			snprintf(buf, sizeof(buf), right_max < 10 ? "%.1f" : "%.0f", right_max * i / 4.0);
			set_color(cr, stall_color);
			text(cr, W - RIGHT + 6, y + 4, 0, buf);
		}
	}
	cairo.cairo_set_source_rgb(cr, 0, 0, 0);
	cairo.cairo_save(cr);
	cairo.cairo_translate(cr, 22, top + PANEL_H / 2.0);
	cairo.cairo_rotate(cr, -M_PI / 2);
	text(cr, 0, 0, 0.5, left_label);
	cairo.cairo_restore(cr);
	if (right_label) {
		set_color(cr, stall_color);
		cairo.cairo_save(cr);
		cairo.cairo_translate(cr, W - 12, top + PANEL_H / 2.0);
		cairo.cairo_rotate(cr, -M_PI / 2);
		text(cr, 0, 0, 0.5, right_label);
		cairo.cairo_restore(cr);
	}
}

static bool recommended(const struct ringside_profile_summary *sum, int swappiness)
{
	for (unsigned int i = 0; i < sum->nr_recommended; i++)
		if (sum->recommended[i] == swappiness)
			return true;
	return false;
}

static void draw(cairo_t *cr, const struct ringside_profile_summary *sum, const char *title)
{
	unsigned int n = sum->nr_settings;
	double slot = (double)(W - LEFT - RIGHT) / (n ? n : 1);
	double top1 = 60, top2 = top1 + PANEL_H + 70, cost_max = 0.1, stall_max = 1;
	bool has_stall = false;
	char buf[96];

	for (unsigned int i = 0; i < n; i++) {
		const struct ringside_profile_setting *s = &sum->settings[i];

		if (!isnan(s->cost.mean))
			cost_max = larger(cost_max, s->cost.mean + (isnan(s->cost.sd) ? 0 : s->cost.sd));
		if (!isnan(s->stall_ms.mean)) {
			has_stall = true;
			stall_max = larger(stall_max, s->stall_ms.mean + s->stall_ms.sd);
		}
	}
	cost_max = ceil(cost_max * 10) / 10;
	stall_max = ceil(stall_max);
	cairo.cairo_set_source_rgb(cr, 1, 1, 1);
	cairo.cairo_paint(cr);
	cairo.cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
	cairo.cairo_set_font_size(cr, 15);
	cairo.cairo_set_source_rgb(cr, 0, 0, 0);
	{
		cairo_text_extents_t e;

		/* A long cgroup path: smaller type rather than a cut title. */
		cairo.cairo_text_extents(cr, title, &e);
		if (e.x_advance > W - 20)
			cairo.cairo_set_font_size(cr, 15 * (W - 20) / e.x_advance);
	}
	text(cr, W / 2.0, 24, 0.5, title);
	cairo.cairo_set_font_size(cr, 12);

	/* Panel 1: the split. */
	text(cr, LEFT, top1 - 10, 0, "What was reclaimed: anon (red) and page cache (blue) share, mean ± sd");
	axes(cr, top1, "share of reclaimed pages", NULL, 100, "%.0f%%", 0);
	for (unsigned int i = 0; i < n; i++) {
		const struct ringside_profile_setting *s = &sum->settings[i];
		double x = LEFT + slot * i + slot * 0.2, w = slot * 0.6;
		double share = isnan(s->anon_share.mean) ? 0 : s->anon_share.mean;
		double anon_h = PANEL_H * share;

		if (!isnan(s->anon_share.mean)) {
			set_color(cr, file_color);
			cairo.cairo_rectangle(cr, x, top1, w, PANEL_H - anon_h);
			cairo.cairo_fill(cr);
			set_color(cr, anon_color);
			cairo.cairo_rectangle(cr, x, top1 + PANEL_H - anon_h, w, anon_h);
			cairo.cairo_fill(cr);
			cairo.cairo_set_source_rgb(cr, 0, 0, 0);
			error_bar(cr, x + w / 2, top1, PANEL_H, 1, s->anon_share);
		}
		cairo.cairo_set_source_rgb(cr, 0, 0, 0);
		snprintf(buf, sizeof(buf), "%.1f MiB", isnan(s->reclaimed_mib.mean) ? 0 : s->reclaimed_mib.mean);
		text(cr, x + w / 2, top1 + PANEL_H + 16, 0.5, buf);
	}

	/* Panel 2: the cost. */
	cairo.cairo_set_source_rgb(cr, 0, 0, 0);
	text(cr, LEFT, top2 - 10, 0, has_stall ? "What it cost: refaults per reclaimed page (bars), "
						 "PSI stall ms (purple), mean ± sd" :
						 "What it cost: refaults per reclaimed page, mean ± sd");
	axes(cr, top2, "refaults / reclaimed page", has_stall ? "stall ms" : NULL, cost_max, "%.2f", stall_max);
	for (unsigned int i = 0; i < n; i++) {
		const struct ringside_profile_setting *s = &sum->settings[i];
		double x = LEFT + slot * i + slot * 0.2, w = slot * 0.6, cx = x + w / 2;
		double cost = isnan(s->cost.mean) ? 0 : s->cost.mean, h = PANEL_H * smaller(cost, cost_max) / cost_max;

		set_color(cr, recommended(sum, s->swappiness) ? best_color : cost_color);
		/* At least a sliver, so that a recommended zero still shows green. */
		cairo.cairo_rectangle(cr, x, top2 + PANEL_H - larger(h, 3), w, larger(h, 3));
		cairo.cairo_fill(cr);
		cairo.cairo_set_source_rgb(cr, 0, 0, 0);
		error_bar(cr, cx - 6, top2, PANEL_H, cost_max, s->cost);
		if (has_stall && !isnan(s->stall_ms.mean)) {
			double y = top2 + PANEL_H - PANEL_H * s->stall_ms.mean / stall_max;

			set_color(cr, stall_color);
			cairo.cairo_arc(cr, cx + 6, y, 4, 0, 2 * M_PI);
			cairo.cairo_fill(cr);
			error_bar(cr, cx + 6, top2, PANEL_H, stall_max, s->stall_ms);
		}
		cairo.cairo_set_source_rgb(cr, 0, 0, 0);
		snprintf(buf, sizeof(buf), "%d%s", s->swappiness, s->short_of_amount ? " (short)" : "");
		text(cr, cx, top2 + PANEL_H + 16, 0.5, buf);
	}
	text(cr, W / 2.0, top2 + PANEL_H + 36, 0.5, "swappiness (green: recommended)");
	snprintf(buf, sizeof(buf), "%s", sum->no_difference ? "no difference measurable between the settings" :
			      sum->no_spread ? "one trial per setting: no spread" : "");
	text(cr, W / 2.0, top2 + PANEL_H + 54, 0.5, buf);
}

int profile_chart_write(const struct ringside_profile_summary *sum, const char *title, const char *path,
			bool png)
{
	cairo_surface_t *surface;
	cairo_status_t st;
	cairo_t *cr;

	if (profile_chart_unavailable())
		return -ENOTSUP;
	surface = png ? cairo.cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, H) :
			cairo.cairo_svg_surface_create(path, W, H);
	if (!surface || cairo.cairo_surface_status(surface)) {
		cairo.cairo_surface_destroy(surface);
		return -EIO;
	}
	cr = cairo.cairo_create(surface);
	draw(cr, sum, title);
	st = cairo.cairo_status(cr);
	cairo.cairo_destroy(cr);
	if (!st && png)
		st = cairo.cairo_surface_write_to_png(surface, path);
	cairo.cairo_surface_finish(surface);
	if (!st)
		st = cairo.cairo_surface_status(surface);
	cairo.cairo_surface_destroy(surface);
	return st ? -EIO : 0;
}
