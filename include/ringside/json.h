/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one JSON writer of ringside and its CLI: JSON Lines, one object per
 * record. Strings are escaped (quotes, backslashes, control characters) and
 * kept valid UTF-8 (a byte that is not part of a valid sequence, as a path
 * or comm may hold, is written as U+FFFD); non-finite numbers are null.
 *
 *	struct ringside_json j;
 *	ringside_json_begin(&j, stdout);
 *	ringside_json_str(&j, "type", "gcm_op");
 *	ringside_json_u64(&j, "pid", pid);
 *	ringside_json_array(&j, "stack");
 *	ringside_json_str(&j, NULL, frame);	(NULL key: an array element)
 *	ringside_json_close(&j);
 *	ringside_json_end(&j);			(closes what is open, then "}\n")
 *
 * A record is assembled in a per-thread buffer and written to its FILE in
 * one piece by ringside_json_end() (a very long one in several), so a record
 * begun must be ended; bytes for another FILE first flush what is pending.
 */
#ifndef RINGSIDE_JSON_H
#define RINGSIDE_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#pragma GCC visibility push(default)

#define RINGSIDE_JSON_DEPTH 16

struct ringside_json {
	FILE *out;
	unsigned int depth;			/* open objects and arrays */
	bool array[RINGSIDE_JSON_DEPTH];	/* is level i an array? */
	bool any[RINGSIDE_JSON_DEPTH];		/* has level i a member yet? */
};

/* Start a record: "{". */
void ringside_json_begin(struct ringside_json *j, FILE *out);
/* Close every open array and object, then the record's line. */
void ringside_json_end(struct ringside_json *j);

/* Members; a NULL key writes an array element. */
void ringside_json_str(struct ringside_json *j, const char *key, const char *s);
/* A string of at most len bytes (fixed-size fields such as comm). */
void ringside_json_strn(struct ringside_json *j, const char *key, const char *s, size_t len);
void ringside_json_u64(struct ringside_json *j, const char *key, uint64_t v);
void ringside_json_i64(struct ringside_json *j, const char *key, int64_t v);
/* A number with at most decimals digits after the point. */
void ringside_json_double(struct ringside_json *j, const char *key, double v, int decimals);
void ringside_json_bool(struct ringside_json *j, const char *key, bool v);
void ringside_json_null(struct ringside_json *j, const char *key);
/* Open a nested object or array; ringside_json_close() ends it. */
void ringside_json_object(struct ringside_json *j, const char *key);
void ringside_json_array(struct ringside_json *j, const char *key);
void ringside_json_close(struct ringside_json *j);

/* A string literal alone, quotes included (what the members above write). */
void ringside_json_string(FILE *out, const char *s);

#pragma GCC visibility pop

#endif
