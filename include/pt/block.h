/* SPDX-License-Identifier: MIT */
/*
 * Block shapes: parsing and printing shapes, and the Pallas TPU rules for a
 * BlockSpec's block shape, with the nearest legal shapes when it breaks them.
 * Pure functions: no printing, no chip table access beyond what the caller
 * passes in a struct block_rule.
 *
 * The rules (JAX pallas/mosaic/lowering.py, and Mosaic's per-dtype tile;
 * shared/reference/tpu-facts.md section 2.4):
 *  - rank 0 is refused;
 *  - rank >= 2: the minor dimension is a multiple of the lanes (128) or
 *    equals the array's, and the second-minor is a multiple of the dtype's
 *    sublane tile on the chip or equals the array's; leading dims are free.
 *    The Pallas lowering itself only asks for multiples of 8; Mosaic's tile
 *    (16 for bf16 on gen 7+, 32 for int8, ...) is stricter, and a block
 *    between the two fails later with E2002;
 *  - rank 1: equals the array, or is a multiple of sublanes x lanes, or is a
 *    power of two >= 128 x 32 / bits;
 *  - memory space ANY/HBM: the block must be the whole array;
 *  - SMEM: a whole-array block is exempt; otherwise as VMEM.
 */
#ifndef PT_BLOCK_H
#define PT_BLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include "pt/buf.h"
#include "pt/diag.h"

struct chip;

#define SHAPE_MAX_RANK 8
#define SHAPE_MAX_DIM (1LL << 31)       /* larger dimensions are refused */
#define BLOCK_MAX_PROPOSALS 4
#define PALLAS_LOWERING_SUBLANES 8      /* what the Pallas lowering checks on every chip */

struct shape {
	int rank;                       /* dims stored; the real rank is larger with ellipsis */
	long long dims[SHAPE_MAX_RANK]; /* each >= 1 */
	bool ellipsis;                  /* written as "(..., 8, 128)": leading dims unknown */
	unsigned squeezed;              /* bit i: dims[i] was None/Squeezed() (counts as 1) */
};

/*
 * Parse "256,512", "(256, 512)", "[8, 128]", "256x512", "(512,)",
 * "(None, 8, 128)" (squeezed, counts as 1) and, with allow_ellipsis,
 * "(..., 8, 8192)". Dimensions must be integers in 1..SHAPE_MAX_DIM.
 * Returns 0, or -1 with err set (PT_EXIT_USAGE) saying what is wrong.
 */
int shape_parse(struct shape *s, const char *text, bool allow_ellipsis, struct pt_err *err);
/* Append "(256, 512)", "(512,)", "(..., 16, 8192)" to out. */
void shape_format(const struct shape *s, struct buf *out);
bool shape_equal(const struct shape *a, const struct shape *b);
/* Number of elements; 0 when it does not fit 63 bits or dims are elided. */
unsigned long long shape_elements(const struct shape *s);

enum block_memory { BLOCK_MEM_VMEM, BLOCK_MEM_SMEM, BLOCK_MEM_ANY };

/* Returns 0 and sets *out for "vmem", "smem", "any" or "hbm"; -1 otherwise. */
int block_memory_parse(const char *s, enum block_memory *out);
const char *block_memory_name(enum block_memory m);

/* What a block is checked against. */
struct block_rule {
	int sublane_tile;       /* required second-minor multiple */
	int lanes;              /* required minor multiple (128) */
	int strict_tile;        /* a stricter tile Mosaic may pick (E2002 risk); = sublane_tile if none */
	int sublanes;           /* the chip's sublanes, for rank-1 blocks */
	int bits;               /* element width, for rank-1 blocks */
};

/* The Pallas lowering's own check: 8 x 128, 32-bit, 8 sublanes. */
void block_rule_default(struct block_rule *r);
/* The tile of `bits`-wide elements on chip c (see chip_sublane_tile()). */
void block_rule_for_chip(struct block_rule *r, const struct chip *c, int bits);

enum dim_status {
	DIM_BAD,                /* none of the ways below */
	DIM_MULTIPLE,           /* a multiple of the required tile */
	DIM_FULL,               /* equals the array's dimension */
	DIM_POW2,               /* rank 1: a power of two >= pow2_min */
};

struct dim_check {
	int axis;               /* -2 second-minor, -1 minor (rank 1: -1) */
	long long size;
	long long multiple;     /* the tile it must be a multiple of */
	long long pow2_min;     /* rank 1: the smallest power of two allowed; else 0 */
	long long full;         /* the array's dimension, 0 if unknown */
	enum dim_status status;
	bool lowering_ok;       /* passes the lowering's 8 x 128 / rank-1 check */
	bool strict_ok;         /* also a multiple of the stricter tile (or full) */
};

enum block_problem {
	BLOCK_OK,
	BLOCK_RANK0,            /* no dims */
	BLOCK_DIMS,             /* one of dims[] is DIM_BAD */
	BLOCK_ANY_NOT_WHOLE,    /* ANY/HBM: not the whole array */
	BLOCK_ANY_NO_ARRAY,     /* ANY/HBM: the array shape is needed to tell */
	BLOCK_RANK_MISMATCH,    /* block and array ranks differ */
	BLOCK_ELIDED,           /* "(..., 8)": the dims the rule needs are not known */
};

/* How a proposal changed each checked dim. */
enum dim_choice { CHOICE_KEEP, CHOICE_UP, CHOICE_DOWN, CHOICE_FULL, CHOICE_POW2_UP,
		  CHOICE_POW2_DOWN };
const char *dim_choice_name(enum dim_choice c);   /* "round up", ... */

struct block_proposal {
	struct shape shape;
	enum dim_choice choice[2];      /* per entry of block_check.dims */
};

struct block_check {
	bool legal;
	enum block_problem problem;
	struct block_rule rule;
	struct dim_check dims[2];       /* rank >= 2: second-minor, minor; rank 1: the dim */
	int ndims;
	bool smem_exempt;               /* SMEM and the whole array */
	bool e2002_risk;                /* a dim passes the rule but not the stricter tile */
	/*
	 * For an illegal block: the nearest legal shapes, the first rounding
	 * up (the ragged last block is padded). For a legal block with
	 * e2002_risk: shapes that are safe under the stricter tile. Every
	 * proposal is a multiple of the stricter tile (rule.strict_tile), so
	 * none of them is itself a risk.
	 */
	struct block_proposal props[BLOCK_MAX_PROPOSALS];
	size_t nprops;
};

/*
 * Check block against rule in memory space mem. array may be NULL (then
 * "equals the array" cannot apply). Never fails; the verdict and the
 * reasons are in out.
 */
void block_check(const struct shape *block, const struct shape *array, const struct block_rule *rule,
		 enum block_memory mem, struct block_check *out);
/*
 * The verdict of a check as one word: "illegal", "risk" (legal, but not
 * under the stricter tile Mosaic may pick: E2002) or "legal".
 */
const char *block_verdict_name(const struct block_check *bc);

/*
 * The shrinking steps of the capacity method. Halve the minor dimension
 * keeping a multiple of `lanes` (at least `lanes`), or the second-minor
 * keeping a multiple of `tile` (at least `tile`). Return false (out
 * untouched) when the dimension cannot shrink further or is elided.
 */
bool block_halve_minor(const struct shape *in, int lanes, struct shape *out);
bool block_halve_second(const struct shape *in, int tile, struct shape *out);

/* The shape padded to the tile: second-minor up to `tile`, minor up to `lanes`
 * (rank 1: up to tile1d elements). */
void block_padded(const struct shape *in, int tile, int lanes, long long tile1d, struct shape *out);

#endif
