/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The swappiness= value of a memory.reclaim request the kernel accepted,
 * found by one pass over its text. Shared by reclaim.bpf.c (agent mode
 * labels each request in the kernel) and tests/unit/test_reclaim_req.c,
 * which checks it against ringside_reclaim_parse_request() on every shape
 * the kernel accepts. Only accepted text is given to it: the kernel has
 * already refused anything malformed, so this does not validate.
 */
#ifndef RINGSIDE_RECLAIM_REQ_H
#define RINGSIDE_RECLAIM_REQ_H

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

#define RS_REQ_KEY_LEN 11	/* strlen("swappiness=") */

/* The key's i-th character; the key is spelled out so BPF needs no string constant. */
static __always_inline char rs_req_key_char(int i)
{
	switch (i) {
	case 0: return 's';
	case 1: return 'w';
	case 2: return 'a';
	case 3: case 4: return 'p';
	case 5: return 'i';
	case 6: return 'n';
	case 7: return 'e';
	case 8: case 9: return 's';
	default: return '=';
	}
}

/* A digit's value in base 16; 16 for anything else. */
static __always_inline int rs_req_digit(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return 16;
}

/*
 * Tokens are separated by single or repeated spaces (the kernel's strsep on
 * ' ' after strstrip), and the first may follow the amount directly
 * ("64Mswappiness=10"): accepted text has "swappiness=" nowhere but at a
 * key, so any occurrence is one. The last one wins, as in the kernel's loop.
 * Its number is read as the kernel's match_int() reads it: an optional '-'
 * (only "-0" is in range), 0x hex, a leading 0 octal, else decimal.
 *
 * One character per step, the state in a struct: BPF runs the steps from
 * bpf_loop(), so the verifier checks one step rather than every path
 * through 64 unrolled ones.
 */
struct rs_req_scan {
	int found;		/* the last complete value; -1: none yet */
	int val, base, matched, neg;	/* matched: key characters seen */
	unsigned int digits;
};

static __always_inline void rs_req_scan_init(struct rs_req_scan *s)
{
	s->found = -1;
	s->val = 0;
	s->base = 10;
	s->matched = 0;
	s->neg = 0;
	s->digits = 0;
}

static __always_inline void rs_req_number_end(struct rs_req_scan *s)
{
	if (s->matched == RS_REQ_KEY_LEN && s->digits)
		s->found = s->neg && s->val ? -1 : s->val;
	s->matched = 0;
}

/* One character; 1 at the end of the text (NUL). */
static __always_inline int rs_req_scan_step(struct rs_req_scan *s, char ch)
{
	int d;

	if (ch == '\0') {
		rs_req_number_end(s);
		return 1;
	}
	if (s->matched == RS_REQ_KEY_LEN) {
		/* A space ends it, or trailing whitespace strstrip() took off. */
		if (ch == ' ' || (ch >= '\t' && ch <= '\r'))
			rs_req_number_end(s);
		else if (!s->digits && !s->neg && s->base == 10 && ch == '-')
			s->neg = 1;
		else if (!s->digits && ch == '0') {
			s->base = 8;
			s->digits = 1;
		} else if (s->digits == 1 && s->base == 8 && !s->val && (ch == 'x' || ch == 'X')) {
			s->base = 16;
			s->digits = 0;
		} else if ((d = rs_req_digit(ch)) < s->base) {
			if (s->val < 100000)
				s->val = s->val * s->base + d;
			s->digits++;
		} else {
			s->matched = 0;	/* not a number: not the kernel's accepted text */
		}
		return 0;
	}
	if (ch == rs_req_key_char(s->matched)) {
		if (++s->matched == RS_REQ_KEY_LEN) {
			s->val = 0;
			s->base = 10;
			s->digits = 0;
			s->neg = 0;
		}
	} else {
		s->matched = ch == 's' ? 1 : 0;
	}
	return 0;
}

#endif
