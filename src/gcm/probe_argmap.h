/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Where a probe placed inside a function's prologue finds the function's
 * arguments and its return address (probe_point.c finds it, gcm.bpf.c's
 * probe_arg() reads it). Packed into the high half of the probe's attach
 * cookie; a probe without RS_ARGMAP_ON reads its arguments from their
 * calling-convention registers and its return address at [sp].
 * Registers are x86 numbers (rax 0 ... r15 15).
 */
#ifndef RINGSIDE_PROBE_ARGMAP_H
#define RINGSIDE_PROBE_ARGMAP_H

#define RS_ARGMAP_ON (1u << 31)
#define RS_ARGMAP_ARGS 4		/* arguments a map can place */
#define RS_ARGMAP_REG(map, n) (((map) >> (4 * (n))) & 15)
#define RS_ARGMAP_RA_SHIFT 16		/* 8-byte words from sp to the return address */
#define RS_ARGMAP_RA_MAX 15
#define RS_ARGMAP_RA_WORDS(map) (((map) >> RS_ARGMAP_RA_SHIFT) & RS_ARGMAP_RA_MAX)

#endif
