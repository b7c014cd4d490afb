/* SPDX-License-Identifier: MIT */
/*
 * The shared memory of a Pallas GPU kernel, computed statically, against
 * the GPU's opt-in limit per block (shared/reference/gpu-facts.md section 4):
 *
 *  Pallas Triton:  sum over the staged inputs of block bytes x num_stages.
 *                  Triton keeps num_stages copies of what a pipelined loop
 *                  loads; outputs are stored from registers. This is the
 *                  autotuners' (BLOCK_M + BLOCK_N) x BLOCK_K x num_stages x
 *                  bytes rule, a guide: Triton adds conversion scratch.
 *  Mosaic GPU:     sum over the pipelined inputs and outputs of steps x
 *                  block bytes (steps = max_concurrent_steps) + scratch +
 *                  8 bytes per barrier + the reduction scratch, each
 *                  allocation rounded up to 1 KiB.
 *
 * Both are LOWER BOUNDS. Also here: the fewest pipeline stages that fit,
 * and the bisection to the largest block that fits at the stages given.
 * Pure functions: no printing.
 */
#ifndef PT_SMEM_H
#define PT_SMEM_H

#include <stdbool.h>
#include <stddef.h>
#include "pt/block.h"
#include "pt/diag.h"

struct dtype;

#define SMEM_MAX_EXTRA 16
#define SMEM_MAX_STEPS 96
#define SMEM_ALIGN 1024ULL          /* Mosaic GPU SMEM_ALIGNMENT */
#define SMEM_BARRIER_BYTES 8ULL     /* one mbarrier */
#define SMEM_MAX_BYTES (1ULL << 50)

struct smem_operand {
	struct shape shape;
	const struct dtype *dtype;      /* borrowed */
};

struct smem_spec {
	bool triton;                    /* Pallas Triton; false: Mosaic GPU */
	struct shape block;             /* the block being tuned */
	const struct dtype *dtype;      /* borrowed */
	int n_in, n_out;                /* operands with this block */
	struct smem_operand other[SMEM_MAX_EXTRA];      /* pipelined operands with their own block */
	size_t nother;
	struct smem_operand scratch[SMEM_MAX_EXTRA];    /* Mosaic GPU scratch_shapes */
	size_t nscratch;
	int stages;                     /* Triton num_stages; Mosaic GPU max_concurrent_steps */
	int barriers;                   /* Mosaic GPU mbarriers */
	unsigned long long reduction;   /* Mosaic GPU reduction scratch bytes, 0 = none */
};

struct smem_usage {
	unsigned long long block;       /* one block of the tuned shape */
	unsigned long long per_operand; /* what one operand with that block takes (stages, rounding) */
	unsigned long long operands;    /* every operand with the tuned block */
	unsigned long long other[SMEM_MAX_EXTRA];       /* each other operand, staged and rounded */
	unsigned long long scratch[SMEM_MAX_EXTRA];     /* each scratch buffer, rounded */
	unsigned long long barriers, reduction;
	unsigned long long total;       /* the static lower bound */
	int staged;                     /* operands that count: Triton inputs only */
};

/* Returns 0, or -1 with err set (PT_EXIT_USAGE) when a size overflows. */
int smem_compute(const struct smem_spec *s, struct smem_usage *u, struct pt_err *err);

enum smem_step_kind {
	SMEM_STEP_FEWER_STAGES,         /* one stage less */
	SMEM_STEP_HALVE_MINOR,
	SMEM_STEP_HALVE_SECOND,
	SMEM_STEP_GROW_SECOND,          /* bisection back up */
	SMEM_STEP_GROW_MINOR,
};
const char *smem_step_name(enum smem_step_kind k, bool triton);

struct smem_step {
	enum smem_step_kind kind;
	struct shape block;
	int stages;
	unsigned long long total;
	bool fits;
};

struct smem_fit {
	int stages_fit;                 /* the most stages below the given that fit the block; 0 none */
	unsigned long long stages_total;
	bool found;                     /* a block fits at the given stages */
	struct shape block;             /* the largest such block */
	unsigned long long total;
	struct smem_step steps[SMEM_MAX_STEPS];
	size_t nsteps;
};

/*
 * For a spec that does not fit `limit` bytes: first fewer stages with the
 * block as it is, then, at the given stages, halve the larger of the last
 * two block dimensions in legal units (Triton: powers of two; Mosaic GPU:
 * 16 bytes along the minor, 8 rows) until it fits, and bisect each back up.
 * Returns 0, or -1 with err set.
 */
int smem_fit(const struct smem_spec *s, unsigned long long limit, struct smem_fit *out,
	     struct pt_err *err);

#endif
