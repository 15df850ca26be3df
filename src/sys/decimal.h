/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Decimal digits of an unsigned 64-bit number without printf: the JSON
 * writer and the CLI's text columns both write one or more per record, and
 * printf's format parsing was the largest single cost of a record.
 */
#ifndef RINGSIDE_DECIMAL_H
#define RINGSIDE_DECIMAL_H

#include <stdint.h>
#include <string.h>

/* Longest output: UINT64_MAX has 20 digits. */
#define RS_U64_DIGITS_MAX 20

/*
 * Write v's digits so that they end just before end, two a step (one
 * division per pair), and return where they start.
 */
static inline char *rs_u64_digits(uint64_t v, char *end)
{
	static const char pairs[] = "00010203040506070809101112131415161718192021222324"
				    "25262728293031323334353637383940414243444546474849"
				    "50515253545556575859606162636465666768697071727374"
				    "75767778798081828384858687888990919293949596979899";

	while (v >= 100) {
		end -= 2;
		memcpy(end, pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10) {
		end -= 2;
		memcpy(end, pairs + 2 * v, 2);
	} else {
		*--end = (char)('0' + v);
	}
	return end;
}

#endif
