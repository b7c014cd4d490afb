/* SPDX-License-Identifier: MIT */
/*
 * The VMEM working set of a Pallas TPU kernel, computed statically:
 *
 *	sum over inputs and outputs (padded block bytes x buffer count)
 *	+ sum over scratch (padded bytes)
 *
 * where a block is padded to the dtype's tile on the chip (second-minor up
 * to the sublane tile, minor up to 128 lanes). This is a LOWER BOUND: the
 * compiler also needs in-kernel temporaries, register spill slots and its
 * internal scratch, none of which can be seen statically (pytorch/xla #9346:
 * ~32 MB of blocks needed ~121 MB of scoped VMEM).
 *
 * Also here: the budget a kernel gets (scoped limit, physical VMEM, internal
 * scratch), the bisection to the largest block that fits in the method's
 * shrinking order, the vmem_limit_bytes to propose, and the K/M/G sizes
 * that logs print. Pure functions: no printing.
 */
#ifndef PT_VMEM_H
#define PT_VMEM_H

#include <stdbool.h>
#include <stddef.h>
#include "pt/block.h"
#include "pt/buf.h"
#include "pt/diag.h"

struct chip;
struct dtype;

#define MIB (1024ULL * 1024)
#define VMEM_MAX_SCRATCH 16
#define VMEM_MAX_STEPS 192
#define VMEM_MAX_BYTES (1ULL << 62)     /* larger sizes are refused as nonsense */

/*
 * Parse a size as logs and users write it: "33554432", "32M", "32.42M",
 * "1.5G", "512K", "64MiB", "64MB", "100 B". Every suffix is a power of 1024
 * (XLA prints MiB as "M"); case does not matter. Fractions are rounded to
 * the nearest byte. Returns 0, or -1 for anything else (negative, empty,
 * junk, over VMEM_MAX_BYTES).
 */
int vmem_parse_size(const char *s, unsigned long long *out);
/* Append "7 MiB", "31.93 MiB", "72 KiB", "1000 B", "1.50 GiB" to out. */
void vmem_format_size(unsigned long long bytes, struct buf *out);

struct vmem_scratch {
	struct shape shape;
	const struct dtype *dtype;      /* borrowed */
};

/*
 * A kernel's VMEM allocations: n_in + n_out operands with the block being
 * tuned, other operands with blocks of their own (kept as they are when
 * the block shrinks), and scratch.
 */
struct vmem_spec {
	const struct chip *chip;        /* borrowed */
	struct shape block;
	const struct dtype *dtype;      /* of the operands with that block */
	int n_in, n_out;                /* operands with this block */
	int buffers;                    /* buffers per operand: 2 = double-buffering (default) */
	struct vmem_scratch other[VMEM_MAX_SCRATCH];    /* operands with their own block */
	size_t nother;
	struct vmem_scratch scratch[VMEM_MAX_SCRATCH];
	size_t nscratch;
};

/* One allocation, padded. */
struct vmem_alloc {
	struct shape shape, padded;
	int bits;                       /* element width */
	int tile;                       /* sublane tile used for padding */
	unsigned long long bytes;       /* padded bytes of one copy */
	unsigned long long unpadded;    /* bytes without padding */
	unsigned long long copies;      /* operands x buffers; 1 for scratch */
	unsigned long long total;       /* bytes x copies */
};

struct vmem_usage {
	struct vmem_alloc block;        /* one input/output block */
	struct vmem_alloc other[VMEM_MAX_SCRATCH];      /* the other operands, with their buffers */
	size_t nother;
	struct vmem_alloc scratch[VMEM_MAX_SCRATCH];
	size_t nscratch;
	unsigned long long blocks_bytes;    /* all input and output buffers, other operands too */
	unsigned long long scratch_bytes;
	unsigned long long total;           /* the static lower bound */
};

/*
 * Compute the working set of s. Returns 0, or -1 with err set
 * (PT_EXIT_USAGE) when a size overflows VMEM_MAX_BYTES or a shape is elided.
 */
int vmem_compute(const struct vmem_spec *s, struct vmem_usage *u, struct pt_err *err);

enum vmem_limit_from {
	VMEM_LIMIT_GIVEN,       /* --limit or a number in the log */
	VMEM_LIMIT_DEFAULT,     /* the chip's default scoped limit */
	VMEM_LIMIT_PHYSICAL,    /* no scoped default known: physical VMEM */
};

/* What a kernel may use on a chip. */
struct vmem_budget {
	unsigned long long limit;       /* the scoped limit in force */
	enum vmem_limit_from from;
	unsigned long long physical;    /* the chip's VMEM per core */
	unsigned long long internal;    /* Mosaic internal scratch (0 if unknown) */
	unsigned long long avail;       /* min(limit, physical) - internal */
};

/* Fill b for chip c with `limit` bytes (0 = the chip's default). */
void vmem_budget_init(struct vmem_budget *b, const struct chip *c, unsigned long long limit);

enum vmem_step_kind {
	VMEM_STEP_HALVE_MINOR,          /* last dim halved, multiple of 128 kept */
	VMEM_STEP_HALVE_SECOND,         /* second-minor halved, tile multiple kept */
	VMEM_STEP_ONE_BUFFER,           /* buffer count dropped to 1 */
	VMEM_STEP_GROW_SECOND,          /* bisection back up, second-minor */
	VMEM_STEP_GROW_MINOR,           /* bisection back up, last dim */
};
const char *vmem_step_name(enum vmem_step_kind k);

struct vmem_step {
	enum vmem_step_kind kind;
	struct shape block;
	int buffers;
	unsigned long long total;
	bool fits;
};

struct vmem_bisect {
	struct vmem_step steps[VMEM_MAX_STEPS];
	size_t nsteps;
	bool found;                     /* some shape fits */
	struct shape block;             /* the largest block that fits */
	int buffers;
	unsigned long long total;
};

/*
 * Shrink s's block until the working set fits `avail` bytes: halve the last
 * dimension (multiple of 128 kept) as long as it can, then the second-minor
 * (tile multiple kept), then drop to one buffer; after the first fit, bisect
 * back up (second-minor first, then last dim) to the largest block that
 * still fits. Leading dims and scratch are kept. Returns 0 (out->found
 * says whether anything fits) or -1 with err set as vmem_compute().
 */
int vmem_bisect(const struct vmem_spec *s, unsigned long long avail, struct vmem_bisect *out,
		struct pt_err *err);

/*
 * The vmem_limit_bytes to propose for a kernel that needs `need` bytes: need
 * plus a quarter (at least VMEM_MIN_HEADROOM) of headroom, rounded up to a
 * MiB, then capped at `cap` (0 = no cap). Returns 0 with *out set, or -1
 * when need alone is above cap (raising the limit cannot help).
 */
#define VMEM_MIN_HEADROOM (4 * MIB)
int vmem_propose_limit(unsigned long long need, unsigned long long cap, unsigned long long *out);

#endif
