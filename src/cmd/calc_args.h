/* SPDX-License-Identifier: MIT */
/*
 * What the calculator commands (check-block, vmem, smem) share: the options
 * they all take; what they read from arguments (counts, "in:N,out:M",
 * DIMS[:DTYPE] operands, dtypes, the GPU backend); and what they print the
 * same way, as text and as JSON (sizes, shapes, note lines, the fits
 * verdict). Command code: it prints, and reports a bad argument as a usage
 * error of the command given.
 */
#ifndef PT_CMD_CALC_ARGS_H
#define PT_CMD_CALC_ARGS_H

#include <stdbool.h>
#include "cmd.h"
#include "pt/block.h"
#include "pt/buf.h"
#include "pt/chips.h"
#include "pt/json.h"

struct gpu;

/*
 * The options every calculator takes: --chip, --block and --dtype, all
 * required, and --json. A command puts CALC_LONGOPTS first in its option
 * table (and CMD_GLOBAL_LONGOPTS last), keeps a struct calc_target in its
 * arguments, and hands each option code it does not know to calc_option().
 */
enum { OPT_CALC_CHIP = 0x800, OPT_CALC_BLOCK, OPT_CALC_DTYPE, OPT_CALC_JSON };
#define CALC_LONGOPTS \
	{ "chip", required_argument, NULL, OPT_CALC_CHIP }, \
	{ "block", required_argument, NULL, OPT_CALC_BLOCK }, \
	{ "dtype", required_argument, NULL, OPT_CALC_DTYPE }, \
	{ "json", no_argument, NULL, OPT_CALC_JSON }

struct calc_target {
	const char *chip, *block, *dtype;       /* as given, NULL until given */
	bool json;
};

/*
 * Take option ch (with its argument arg) when it is one of CALC_LONGOPTS
 * or a global option (cmd_global_option()). Returns 0, or the usage
 * error's exit status after printing it (also for an unknown option).
 */
int calc_option(const struct cmd_entry *e, struct pt_ctx *ctx, struct calc_target *t, int ch,
		const char *arg);
/*
 * After the options: no operands (cmd_check_args()), and --chip, --block
 * and --dtype all given. Returns 0, or the usage error's exit status.
 */
int calc_check_target(const struct cmd_entry *e, int argc, int optind_,
		      const struct calc_target *t);
/*
 * One more value of a repeated option (--operand, --scratch) into v[*n],
 * which holds max; one too many is the usage error "at most MAX WHAT".
 * Returns 0, or the usage error's exit status.
 */
int calc_push(const struct cmd_entry *e, const char *what, const char **v, size_t *n,
	      size_t max, const char *arg);
/*
 * The rules were loaded but lack what this command needs, such as "chip
 * table (chips.yaml)": says so and returns PT_EXIT_DATA.
 */
int calc_missing_table(const struct pt_ctx *ctx, const char *what);
/*
 * The Pallas backend to judge GPU g on, into *backend: given (NULL when
 * not given) must be triton or mosaic-gpu, and one g runs; without it,
 * mosaic-gpu (JAX's default) when g runs it, else g's first backend. opt
 * names the option in the error ("--backend on a GPU" where a TPU chip
 * takes another backend). Returns 0, or the usage error's exit status.
 */
int calc_gpu_backend(const struct cmd_entry *e, const char *opt, const struct gpu *g,
		     const char *given, const char **backend);

/* A size ("24 MiB") or a shape ("(8, 128)") as text, in one of a few static
 * buffers that rotate, so that several fit in one printf. */
const char *calc_size(unsigned long long v);
const char *calc_shape(const struct shape *s);
/*
 * A shape as a JSON array of numbers under key. A squeezed dimension is
 * written as the 1 it counts for: vmem and smem report sizes, and their
 * JSON has always written it so (check-block, which judges the BlockSpec
 * as written, writes null there with its own writer).
 */
void calc_json_shape(struct json *obj, const char *key, const struct shape *s);
/*
 * The verdict of the budget calculators (vmem, smem), need bytes against
 * avail: the line "fits: X to spare" or "does not fit: over by X", or the
 * members "fits" and "over_bytes" of root.
 */
void calc_print_verdict(unsigned long long need, unsigned long long avail);
void calc_json_verdict(struct json *root, unsigned long long need, unsigned long long avail);
/*
 * The remarks a calculator collects as lines, each ending in '\n' (the
 * notes and warnings), printed one per line after prefix ("note: "), or
 * added to obj as an array of strings under key.
 */
void calc_print_lines(const char *prefix, const struct buf *lines);
void calc_json_lines(struct json *obj, const char *key, const struct buf *lines);
/* A decimal integer in [min, max] into *out; -1 when s is not one. */
int calc_small_int(const char *s, int min, int max, int *out);
/*
 * "in:2,out:1" into *n_in and *n_out, which hold the defaults: a part not
 * given keeps its default ("in:2" leaves *n_out as it was). Not both 0;
 * -1 when malformed.
 */
int calc_parse_operands(const char *s, int *n_in, int *n_out);
/*
 * --limit s of command e into *out: a size (pt/vmem.h). A number without a
 * unit below floor bytes is refused as almost surely meant in `unit` ("M"
 * for vmem, "K" for smem). Returns 0, or the usage error's exit status.
 */
int calc_want_limit(const struct cmd_entry *e, const char *s, unsigned long long floor,
		    const char *unit, unsigned long long *out);
/*
 * The dtype (dtype true) or chip/GPU name of t that word is probably a
 * typo of, for "did you mean": borrowed from t, or NULL.
 */
const char *calc_near(const struct chiptab *t, const char *word, bool dtype);
/*
 * A dtype by name. On a GPU any dtype of the table is taken; on a TPU the
 * ones Pallas TPU refuses (64-bit) are errors. NULL with err set.
 */
const struct dtype *calc_want_dtype(const struct chiptab *t, const char *s, bool gpu,
				    struct pt_err *err);
/*
 * An operand given as DIMS[:DTYPE] to option opt of command e: its shape,
 * and its dtype (dflt when the argument names none). Returns 0, or the
 * usage error's exit status after printing it.
 */
int calc_operand(const struct cmd_entry *e, const char *opt, const char *arg,
		 const struct chiptab *t, bool gpu, const struct dtype *dflt, struct shape *shape,
		 const struct dtype **dtype);

#endif
