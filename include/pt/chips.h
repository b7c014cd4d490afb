/* SPDX-License-Identifier: MIT */
/*
 * The chip table: TPU generations (VMEM and SMEM per core, sublanes, the
 * default scoped-VMEM limit, the per-dtype sublane tile, native matmul
 * dtypes) and the dtype widths, loaded from the `chips` and `dtypes`
 * sections of the rule files (rules/chips.yaml; schema in docs/rules.md,
 * "Chips and dtypes"). No chip number lives in C code.
 *
 * A struct chiptab owns every chip and dtype in it; one chiptab_free()
 * frees the tree. Lookups return pointers borrowed from the table, valid
 * until chiptab_free().
 */
#ifndef PT_CHIPS_H
#define PT_CHIPS_H

#include <stdbool.h>
#include <stddef.h>
#include "pt/diag.h"

struct ynode;

/* The element widths the tiling table covers, in the order of chip->tiling[]. */
#define CHIP_NWIDTHS 4
extern const int chip_widths[CHIP_NWIDTHS];   /* 32, 16, 8, 4 */

/* A number that another source contradicts (see docs/rules.md). */
struct chip_dispute {
	char *field;                  /* "vmem_bytes", "scoped_vmem_default_bytes", ... */
	unsigned long long value;     /* the other source's number */
	char *source;                 /* where it comes from, one line */
};

/* One group of natively supported matmul inputs: any lhs x any rhs. */
struct chip_matmul {
	char **lhs, **rhs;            /* NULL-terminated canonical dtype names */
	char *note;                   /* may be NULL */
};

struct chip {
	char *name;                   /* canonical: "v5e" */
	char **aliases;               /* NULL-terminated, never NULL */
	char **device_kinds;          /* NULL-terminated, never NULL: "TPU v5 lite", ... */
	int generation;               /* 2..: the TPU generation */
	int cores_per_chip;           /* TensorCores per chip */
	unsigned long long vmem_bytes;    /* physical VMEM per TensorCore */
	unsigned long long smem_bytes;    /* SMEM per TensorCore */
	int sublanes, lanes;          /* vector register shape: 8 x 128 (16 x 128 on 8t) */
	unsigned long long scoped_default_bytes;   /* default scoped-VMEM limit; 0 = unknown */
	unsigned long long internal_scratch_bytes; /* Mosaic internal scratch; 0 = unknown */
	int tiling[CHIP_NWIDTHS];     /* second-minor tile for 32-, 16-, 8-, 4-bit elements */
	int tiling_x16_flag;          /* 16-bit tile with the large-x16 XLA flag; 0 = no such case */
	struct chip_matmul *matmul;
	size_t nmatmul;
	struct chip_dispute *disputes;
	size_t ndisputes;
	char *note;                   /* may be NULL */
	char *file;                   /* where it was defined */
	int line;
};

struct dtype {
	char *name;                   /* canonical: "bfloat16" */
	char **aliases;               /* NULL-terminated, never NULL */
	int bits;                     /* element width in VMEM (bool: 32) */
	char *unsupported;            /* why Pallas TPU refuses it, or NULL */
	char *note;                   /* may be NULL */
	char *file;
	int line;
};

struct gpu;

struct chiptab {
	struct chip **chips;          /* in file order */
	size_t nchips, alloc_chips;
	struct dtype **dtypes;
	size_t ndtypes, alloc_dtypes;
	struct gpu **gpus;            /* the `gpus` section (pt/gpus.h), in file order */
	size_t ngpus, alloc_gpus;
};

/*
 * Add the `chips` and `dtypes` sections of one rules file to *out. Either
 * node may be NULL when the file lacks that section. When *out is NULL a new
 * table is created (free with chiptab_free()); otherwise entries are added
 * to the table from earlier files, so a loader calls this once per file:
 *
 *	chiptab_parse(&rs->chips, ynode_get(root, "chips"),
 *		      ynode_get(root, "dtypes"), file, d);
 *
 * Validation is strict: unknown keys, wrong types, missing fields, numbers
 * out of range, and names, aliases or device kinds defined twice (also
 * across files) are errors in d at file:line:col. Entries with errors are
 * left out. Returns 0, or -1 when this call added errors to d.
 */
int chiptab_parse(struct chiptab **out, const struct ynode *chips, const struct ynode *dtypes,
		  const char *file, struct diag *d);

/*
 * Cross-file checks, after every file is parsed: every dtype named in a
 * chip's `matmul` exists. Returns -1 if d got errors. t may be NULL.
 */
int chiptab_finish(const struct chiptab *t, struct diag *d);

void chiptab_free(struct chiptab *t);

/*
 * Find a chip by what a user or a log calls it: a canonical name or alias
 * ("v5e", "V5LITEPOD"; case-insensitive), else the longest device-kind
 * string found in s at word boundaries ("TPU v5 lite-8" -> v5e, "TPU v5p"
 * and "TPU v5" -> v5p, "TPU7x" -> 7x). Returns NULL when nothing fits.
 */
const struct chip *chiptab_find_chip(const struct chiptab *t, const char *s);

/*
 * Find a dtype by name or alias, case-insensitive, ignoring a leading
 * "jnp.", "np.", "numpy." or "jax.numpy." ("bf16", "jnp.bfloat16"). NULL if none.
 */
const struct dtype *chiptab_find_dtype(const struct chiptab *t, const char *s);

/*
 * The same lookups for a value the user typed: on failure return NULL and
 * set err (PT_EXIT_USAGE) to "unknown chip 'v9' (known: v2, v3, ...)", or
 * for a dtype Pallas TPU refuses, to why ("dtype 'float64': 64-bit ...").
 */
const struct chip *chiptab_want_chip(const struct chiptab *t, const char *s, struct pt_err *err);
const struct dtype *chiptab_want_dtype(const struct chiptab *t, const char *s, struct pt_err *err);

/*
 * The second-minor (sublane) tile for elements of `bits` on c: the table's
 * value for 32/16/8/4 bits; other widths below 32 scale as
 * sublanes x 32 / bits; 0 for widths above 32.
 */
int chip_sublane_tile(const struct chip *c, int bits);
/*
 * The stricter tile Mosaic may use for this width (the E2002 case): for
 * 16-bit elements on a chip with tiling_x16_flag, that value; else the same
 * as chip_sublane_tile().
 */
int chip_sublane_tile_strict(const struct chip *c, int bits);

/* The largest value a dispute gives for `field` on c, or 0 if none. */
unsigned long long chip_disputed(const struct chip *c, const char *field);

/* Is dtype `name` (canonical) a native matmul input of c on the given side? */
bool chip_matmul_native(const struct chip *c, const char *name, bool lhs);

/*
 * Is `bytes` a scoped-VMEM default of some chip in t (including disputed
 * values)? Sets *also_physical when it is also some chip's physical VMEM,
 * which makes it ambiguous as evidence of a scoped limit.
 */
/*
 * A name a user typed that is no chip's own name but the start of several
 * chips' names ("v5": v5e or v5p?): true, with err listing the candidates.
 */
bool chiptab_ambiguous_name(const struct chiptab *t, const char *s, struct pt_err *err);
bool chiptab_is_scoped_default(const struct chiptab *t, unsigned long long bytes,
			       bool *also_physical);

#endif
