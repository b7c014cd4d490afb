/* SPDX-License-Identifier: MIT */
/*
 * The GPU table: the GPUs Pallas runs on (Triton and Mosaic GPU backends),
 * with shared memory per block (default and opt-in), registers, SMs, the
 * MMA instruction family and the Pallas backends each can run, loaded from
 * the `gpus` section of the rule files (rules/gpu-chips.yaml; schema in
 * docs/rules.md, "GPUs"). No GPU number lives in C code.
 *
 * The GPUs live in the same struct chiptab as the TPU chips, so a name,
 * alias or device kind means one thing across both; chiptab_free() frees
 * them. Lookups return pointers borrowed from the table.
 */
#ifndef PT_GPUS_H
#define PT_GPUS_H

#include <stdbool.h>
#include "pt/chips.h"
#include "pt/diag.h"

struct ynode;

struct gpu {
	char *name;                   /* canonical: "h100" */
	char **aliases;               /* NULL-terminated, never NULL */
	char **device_kinds;          /* NULL-terminated, never NULL: "NVIDIA H100", "gfx942" */
	char *vendor;                 /* "nvidia" or "amd" */
	char *arch;                   /* "sm_90a", "gfx942" */
	char *compute_capability;     /* "9.0"; NULL for AMD */
	int sms;                      /* SMs (NVIDIA) or CUs (AMD) */
	int warp_size;                /* 32, or 64 on AMD */
	unsigned long long smem_block;      /* shared memory per block without opt-in */
	unsigned long long smem_block_optin; /* per block with opt-in: the limit kernels hit */
	unsigned long long smem_sm;         /* per SM */
	unsigned long long regs_sm, regs_block; /* 32-bit registers */
	int max_regs_thread;          /* 0 = unknown */
	int tmem_columns;             /* Blackwell tensor memory columns; 0 = none */
	unsigned long long l2_bytes, memory_bytes;
	char *mma;                    /* "mma", "wgmma", "tcgen05", or NULL (no Mosaic GPU MMA) */
	char **backends;              /* NULL-terminated, never NULL: "triton", "mosaic-gpu" */
	char *note;                   /* may be NULL */
	char *file;
	int line;
};

/*
 * Add the `gpus` section of one rules file (gpus may be NULL) to *out,
 * creating the table when *out is NULL (free with chiptab_free()). Strict
 * like chiptab_parse(): unknown keys, wrong types, bad numbers and a name,
 * alias or device kind that a TPU chip or another GPU already has are
 * errors at file:line:col. Returns 0, or -1 when this call added errors.
 */
int gputab_parse(struct chiptab **out, const struct ynode *gpus, const char *file,
		 struct diag *d);

/* Free the GPUs of t (chiptab_free() calls this). */
void gputab_release(struct chiptab *t);

/*
 * Find a GPU by canonical name or alias (case-insensitive), else by the
 * longest device kind found in s at word boundaries ("NVIDIA H100 80GB
 * HBM3" -> h100, "gfx942:sramecc+:xnack-" -> mi300x). NULL when none fits.
 */
const struct gpu *chiptab_find_gpu(const struct chiptab *t, const char *s);

/* Does g run this Pallas backend ("triton", "mosaic-gpu")? */
bool gpu_runs(const struct gpu *g, const char *backend);

/*
 * Resolve what a user typed for --chip: a TPU chip (*chip) or a GPU (*gpu);
 * the other is set to NULL. On failure both are NULL and err (PT_EXIT_USAGE)
 * says "unknown chip 'x' (known: v2, ..., a100, h100, ...)". Returns 0 or -1.
 */
int chiptab_want_target(const struct chiptab *t, const char *s, const struct chip **chip,
			const struct gpu **gpu, struct pt_err *err);

#endif
