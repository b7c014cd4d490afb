/* SPDX-License-Identifier: MIT */
/*
 * Block shapes on GPU: the legality rules of the two Pallas GPU backends
 * for one block, with the nearest legal shapes when it breaks them. Pure
 * functions, like block.c for TPU; the numbers a rule needs (element width,
 * the GPU's MMA family) come from the caller.
 *
 * The rules (shared/reference/gpu-facts.md section 3, JAX @ cec06d116c05):
 *  Pallas Triton ("triton"):
 *  - every load and store covers a power-of-two number of elements, so
 *    every block dimension is a power of two (pallas/triton/lowering.py
 *    _check_tensor_size);
 *  - dot operands are 2-D; float64 dot tiles need M >= 16, N >= 8, K >= 16.
 *  Pallas Mosaic GPU ("mosaic-gpu"):
 *  - the minor dimension is a multiple of 16 bytes (TMA moves 128-bit units);
 *  - a block is a multiple of 128 bytes (a warpgroup copies it);
 *  - without a tiling transform each dimension is at most 256 elements (the
 *    TMA box limit); with swizzle S (32, 64 or 128 bytes) the SMEM tiling is
 *    (8, S * 8 / bits), so the minor dimension is a multiple of that tile
 *    and the second-minor of 8, and the tiled dimensions are at most 256;
 *  - MMA operands: WGMMA (Hopper) M % 64, N % 8 and N <= 256, K a multiple
 *    of the swizzle tile; tcgen05 (Blackwell) M of 64 or 128, N % 8 and
 *    N <= 256 or N = 512, K a multiple of the swizzle tile.
 */
#ifndef PT_GPU_BLOCK_H
#define PT_GPU_BLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include "pt/block.h"

enum gpu_role { GPU_ROLE_NONE, GPU_ROLE_LHS, GPU_ROLE_RHS, GPU_ROLE_ACC };

/* Returns 0 and sets *out for "lhs", "rhs", "acc"; -1 otherwise. */
int gpu_role_parse(const char *s, enum gpu_role *out);
const char *gpu_role_name(enum gpu_role r);

struct gpu_block_rule {
	bool triton;            /* Pallas Triton; false: Mosaic GPU */
	int bits;               /* element width */
	int swizzle;            /* Mosaic GPU: bytes (32, 64, 128), or 0 for none given */
	enum gpu_role role;     /* the block's place in a matmul, or GPU_ROLE_NONE */
	const char *mma;        /* the GPU's MMA family: "wgmma", "tcgen05", "mma" or NULL */
};

#define GPU_MAX_FINDINGS 12

/* One rule applied to the block: its id (stable, for JSON), whether it holds, and why. */
struct gpu_finding {
	const char *id;         /* "power-of-two", "minor-16-bytes", "tma-window", ... */
	bool ok;
	char text[256];
};

struct gpu_block_check {
	bool legal;
	struct gpu_finding f[GPU_MAX_FINDINGS];
	size_t nf;
	int swizzle;            /* Mosaic GPU: the swizzle judged with (given, or suggested) */
	bool swizzle_suggested; /* no --swizzle: the MMA rules were judged with plgpu.find_swizzle's */
	unsigned long long elements, bytes;     /* one block */
	/* for an illegal block, the nearest legal ones, the first rounding up when that is legal */
	struct shape props[BLOCK_MAX_PROPOSALS];
	size_t nprops;
};

/*
 * Check block under r. Never fails; a block with elided dims or rank 0 is
 * illegal with a finding that says so.
 */
void gpu_block_check(const struct shape *block, const struct gpu_block_rule *r,
		     struct gpu_block_check *out);

/*
 * plgpu.find_swizzle: the largest of 128, 64, 32 bytes that divides the
 * minor dimension's bytes, or 16 (no swizzle) when only that does, or 0.
 */
int gpu_find_swizzle(long long minor, int bits);

#endif
