/* SPDX-License-Identifier: MIT */
/*
 * `pallas-triage smem`: the static shared memory of a Pallas GPU kernel
 * (blocks x pipeline stages, plus scratch and barriers on Mosaic GPU)
 * against the GPU's opt-in limit per block; when it does not fit, the
 * fewest stages that fit and the largest block that fits. The sibling of
 * `vmem` for GPUs. The models are in smem.c, the numbers in
 * rules/gpu-chips.yaml; this file parses options and prints. Deliberate
 * choices: the backend defaults to the GPU's only one, else Mosaic GPU
 * (JAX's default); the stages default to the backend's default; the number
 * is always called a lower bound.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "pt/block.h"
#include "pt/chips.h"
#include "calc_args.h"
#include "cmd.h"
#include "pt/gpus.h"
#include "pt/json.h"
#include "pt/rules.h"
#include "pt/smem.h"
#include "pt/vmem.h"
#include "pt/xalloc.h"

static int cmd_smem_run(int argc, char **argv, struct pt_ctx *ctx);

const struct cmd_entry cmd_smem_entry = {
	.name = "smem",
	.usage = "smem --chip GPU --block DIMS --dtype DTYPE [--backend triton|mosaic-gpu] "
		 "[--stages N] [--operands in:N,out:N] [--operand DIMS[:DTYPE]]... "
		 "[--scratch DIMS[:DTYPE]]... [--barriers N] [--reduction-scratch SIZE] "
		 "[--limit SIZE] [--json]",
	.summary = "compute a Pallas GPU kernel's shared memory and, if it does not fit, what would",
	.help =
		"options:\n"
		"  --chip GPU            a100 h100 h200 b200 mi300x, an alias, or a device kind\n"
		"                        such as 'NVIDIA H100 80GB HBM3'\n"
		"  --block DIMS          the block shape of the operands: 128,64\n"
		"  --dtype DTYPE         their dtype: float32, bf16, float16, int8, ...\n"
		"  --backend B           triton or mosaic-gpu (default: the GPU's only backend, else\n"
		"                        mosaic-gpu, JAX's default)\n"
		"  --stages N            Triton num_stages (default 3, 1 on AMD) or Mosaic GPU\n"
		"                        max_concurrent_steps (default 1)\n"
		"  --operands in:N,out:N operands with the block (default in:1,out:1; a part not\n"
		"                        given keeps its default); Triton stages inputs only:\n"
		"                        outputs are stored from registers\n"
		"  --operand DIMS[:DTYPE] another input (or, on Mosaic GPU, output) with a block of\n"
		"                        its own, staged like the others and kept as given when the\n"
		"                        block shrinks; repeat for more\n"
		"  --scratch DIMS[:DTYPE] a Mosaic GPU scratch buffer (plgpu.SMEM); repeat for more\n"
		"  --barriers N          Mosaic GPU mbarriers (8 bytes each)\n"
		"  --reduction-scratch SIZE  Mosaic GPU reduction scratch (reduction_scratch_bytes,\n"
		"                        2048 by default when the kernel reduces across warps)\n"
		"  --limit SIZE          the limit your log prints (available: N, max_smem_bytes=N);\n"
		"                        a bare number is bytes, and one under 1 KiB is refused (227\n"
		"                        is almost surely 227K); default the GPU's opt-in shared\n"
		"                        memory per block\n"
		"  --json                print the result as JSON\n"
		"\nThe result is a lower bound: Triton adds conversion scratch, and neither backend's\n"
		"temporaries can be seen statically.\n"
		"exit status: 0 fits, 1 does not fit, 2 usage (unknown or TPU chip, a backend the GPU\n"
		"does not run, bad dims or sizes), 3 the rules have no GPU table\n",
	.min_args = 0,
	.max_args = 0,
	.flags = CMD_NEEDS_RULES,
	.run = cmd_smem_run,
};

struct sm_input {
	struct smem_spec spec;
	const struct gpu *gpu;
	const char *backend;
	unsigned long long limit;       /* what the kernel may use */
	bool limit_given;
	bool backend_defaulted, stages_defaulted;
	bool json;
};

struct sm_result {
	struct smem_usage usage;
	bool fits;
	struct smem_fit fit;            /* when it does not fit */
};



static const char *
knob(const struct sm_input *in)
{
	return in->spec.triton ? "num_stages" : "max_concurrent_steps";
}

static const char *
params(const struct sm_input *in)
{
	return in->spec.triton ? "pltriton.CompilerParams" : "plgpu.CompilerParams";
}

/* ---- human output ---- */

static void
print_head(const struct sm_input *in)
{
	const struct gpu *g = in->gpu;
	const struct smem_spec *s = &in->spec;

	printf("gpu %s: %s of shared memory per block with opt-in, %s without", g->name,
	       calc_size(g->smem_block_optin), calc_size(g->smem_block));
	if (in->limit_given)
		printf("; limit %s (--limit)", calc_size(in->limit));
	printf("\nbackend %s%s: %s=%d%s\n", in->backend, in->backend_defaulted ? " (default)" : "",
	       knob(in), s->stages, in->stages_defaulted ? " (default)" : "");
}

static void
print_usage(const struct sm_input *in, const struct smem_usage *u)
{
	const struct smem_spec *s = &in->spec;
	const char *what = s->triton ? "stage" : "step";

	printf("block %s %s: %s\n", calc_shape(&s->block), s->dtype->name, calc_size(u->block));
	if (s->n_in)
		printf("  inputs   %d x %d %s%s x %s = %s\n", s->n_in, s->stages, what,
		       s->stages == 1 ? "" : "s", calc_size(u->block), calc_size(u->per_operand * (unsigned)s->n_in));
	if (s->n_out && s->triton)
		printf("  outputs  %d, stored from registers: not counted\n", s->n_out);
	else if (s->n_out)
		printf("  outputs  %d x %d %s%s x %s = %s\n", s->n_out, s->stages, what,
		       s->stages == 1 ? "" : "s", calc_size(u->block), calc_size(u->per_operand * (unsigned)s->n_out));
	for (size_t i = 0; i < s->nother; i++) {
		unsigned long long one = (shape_elements(&s->other[i].shape) *
					  (unsigned)s->other[i].dtype->bits + 7) / 8;

		printf("  operand  %s %s: %d x %s = %s\n", calc_shape(&s->other[i].shape),
		       s->other[i].dtype->name, s->stages, calc_size(one), calc_size(u->other[i]));
	}
	for (size_t i = 0; i < s->nscratch; i++)
		printf("  scratch  %s %s = %s\n", calc_shape(&s->scratch[i].shape), s->scratch[i].dtype->name,
		       calc_size(u->scratch[i]));
	if (u->barriers)
		printf("  barriers %d x 8 bytes = %s\n", s->barriers, calc_size(u->barriers));
	if (u->reduction)
		printf("  reduction scratch = %s\n", calc_size(u->reduction));
	printf("shared memory: %s (%llu bytes)\n", calc_size(u->total), u->total);
}

static void
print_fit(const struct sm_input *in, const struct sm_result *r)
{
	const struct smem_fit *f = &r->fit;

	if (f->stages_fit)
		printf("fewer stages: %s=%d fits (%s):\n  compiler_params=%s(%s=%d)\n", knob(in),
		       f->stages_fit, calc_size(f->stages_total), params(in), knob(in), f->stages_fit);
	else if (in->spec.stages > 1)
		printf("fewer stages: even %s=1 does not fit this block\n", knob(in));
	if (f->nsteps)
		printf("steps tried (fewer stages; then, at %s=%d, halving the larger of the last two "
		       "dimensions and bisecting back up):\n", knob(in), in->spec.stages);
	for (size_t i = 0; i < f->nsteps; i++) {
		const struct smem_step *st = &f->steps[i];
		char stages[48];

		snprintf(stages, sizeof(stages), "%s=%d", knob(in), st->stages);
		printf("  %2zu. %-37s %-14s %-23s %-10s %s\n", i + 1,
		       smem_step_name(st->kind, in->spec.triton), calc_shape(&st->block), stages,
		       calc_size(st->total), st->fits ? "fits" : "too big");
	}
	if (f->found)
		printf("largest block that fits with %s=%d: %s, %s\n", knob(in), in->spec.stages,
		       calc_shape(&f->block), calc_size(f->total));
	else
		printf("no block fits with %s=%d: the other operands, scratch and barriers alone "
		       "are too big\n", knob(in), in->spec.stages);
}

static void
collect_notes(const struct sm_input *in, struct buf *out)
{
	if (in->spec.triton)
		buf_addf(out, "Triton keeps %s copies of what a pipelined loop loads; a kernel "
			 "without a loop over blocks holds one (--stages 1)\n", knob(in));
	else
		buf_addf(out, "Mosaic GPU rounds every shared-memory allocation up to 1 KiB; with no "
			 "GPU attached it assumes 227 KiB per block\n");
	if (!in->limit_given)
		buf_addf(out, "the limit your log prints (\"available: N\", \"max_smem_bytes=N\") "
			 "wins over the table: pass it with --limit\n");
	buf_addf(out, "this is a lower bound: the compiler's own scratch and temporaries are not "
		 "counted\n");
}

static void
print_human(const struct sm_input *in, const struct sm_result *r)
{
	struct buf notes = BUF_INIT;

	print_head(in);
	print_usage(in, &r->usage);
	printf("available: %s (%llu bytes)\n", calc_size(in->limit), in->limit);
	calc_print_verdict(r->usage.total, in->limit);
	if (!r->fits)
		print_fit(in, r);
	collect_notes(in, &notes);
	calc_print_lines("note: ", &notes);
	buf_release(&notes);
}

/* ---- JSON ---- */

static void
json_fit(struct json *root, const struct sm_input *in, const struct smem_fit *f)
{
	struct json *o = json_add_object(root, "fit"), *steps;

	if (f->stages_fit) {
		json_add_int(o, "stages", f->stages_fit);
		json_add_int(o, "stages_bytes", (long long)f->stages_total);
	} else {
		json_add_null(o, "stages");
	}
	steps = json_add_array(o, "steps");
	for (size_t i = 0; i < f->nsteps; i++) {
		struct json *st = json_push_object(steps);

		json_add_str(st, "step", smem_step_name(f->steps[i].kind, in->spec.triton));
		calc_json_shape(st, "block", &f->steps[i].block);
		json_add_int(st, "stages", f->steps[i].stages);
		json_add_int(st, "bytes", (long long)f->steps[i].total);
		json_add_bool(st, "fits", f->steps[i].fits);
	}
	json_add_bool(o, "found", f->found);
	if (f->found) {
		calc_json_shape(o, "block", &f->block);
		json_add_int(o, "bytes", (long long)f->total);
	}
}

/* The operands with a block of their own, or the scratch buffers, as an array under key. */
static void
json_extras(struct json *root, const char *key, const struct smem_operand *op,
	    const unsigned long long *bytes, size_t n)
{
	struct json *a = json_add_array(root, key);

	for (size_t i = 0; i < n; i++) {
		struct json *e = json_push_object(a);

		calc_json_shape(e, "shape", &op[i].shape);
		json_add_str(e, "dtype", op[i].dtype->name);
		json_add_int(e, "bytes", (long long)bytes[i]);
	}
}

static void
print_json(const struct sm_input *in, const struct sm_result *r)
{
	struct json *root = json_new_object(), *o;
	const struct smem_usage *u = &r->usage;
	const struct smem_spec *s = &in->spec;
	struct buf notes = BUF_INIT;

	json_add_str(root, "chip", in->gpu->name);
	json_add_str(root, "backend", in->backend);
	json_add_int(root, "stages", s->stages);
	o = json_add_object(root, "block");
	calc_json_shape(o, "shape", &s->block);
	json_add_str(o, "dtype", s->dtype->name);
	json_add_int(o, "bytes", (long long)u->block);
	json_add_int(o, "inputs", s->n_in);
	json_add_int(o, "outputs", s->n_out);
	json_add_int(o, "staged_operands", u->staged);
	json_add_int(o, "total_bytes", (long long)u->operands);
	json_extras(root, "operands", s->other, u->other, s->nother);
	json_extras(root, "scratch", s->scratch, u->scratch, s->nscratch);
	json_add_int(root, "barrier_bytes", (long long)u->barriers);
	json_add_int(root, "reduction_bytes", (long long)u->reduction);
	json_add_int(root, "smem_bytes", (long long)u->total);
	json_add_bool(root, "lower_bound", true);
	json_add_int(root, "limit_bytes", (long long)in->limit);
	json_add_str(root, "limit_source", in->limit_given ? "given" : "optin");
	calc_json_verdict(root, u->total, in->limit);
	if (!r->fits)
		json_fit(root, in, &r->fit);
	collect_notes(in, &notes);
	calc_json_lines(root, "notes", &notes);
	json_print(root, stdout);
	json_free(root);
	buf_release(&notes);
}

/* ---- options ---- */

enum { OPT_BACKEND = 1, OPT_STAGES, OPT_OPERANDS, OPT_OPERAND, OPT_SCRATCH, OPT_BARRIERS,
       OPT_REDUCTION, OPT_LIMIT };

struct sm_args {
	struct calc_target target;      /* --chip --block --dtype --json */
	const char *backend, *stages, *operands, *barriers, *reduction, *limit;
	const char *scratch[SMEM_MAX_EXTRA];
	size_t nscratch;
	const char *other[SMEM_MAX_EXTRA];
	size_t nother;
};

static int
parse_args(int argc, char **argv, struct pt_ctx *ctx, struct sm_args *a)
{
	static const struct option opts[] = {
		CALC_LONGOPTS,
		{ "backend", required_argument, NULL, OPT_BACKEND },
		{ "stages", required_argument, NULL, OPT_STAGES },
		{ "operands", required_argument, NULL, OPT_OPERANDS },
		{ "operand", required_argument, NULL, OPT_OPERAND },
		{ "scratch", required_argument, NULL, OPT_SCRATCH },
		{ "barriers", required_argument, NULL, OPT_BARRIERS },
		{ "reduction-scratch", required_argument, NULL, OPT_REDUCTION },
		{ "limit", required_argument, NULL, OPT_LIMIT },
		CMD_GLOBAL_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	const struct cmd_entry *e = &cmd_smem_entry;
	int ch, rc = 0;

	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (ch) {
		case OPT_BACKEND: a->backend = optarg; break;
		case OPT_STAGES: a->stages = optarg; break;
		case OPT_OPERANDS: a->operands = optarg; break;
		case OPT_BARRIERS: a->barriers = optarg; break;
		case OPT_REDUCTION: a->reduction = optarg; break;
		case OPT_LIMIT: a->limit = optarg; break;
		case OPT_OPERAND:
			rc = calc_push(e, "--operand blocks", a->other, &a->nother, SMEM_MAX_EXTRA, optarg);
			break;
		case OPT_SCRATCH:
			rc = calc_push(e, "--scratch buffers", a->scratch, &a->nscratch, SMEM_MAX_EXTRA, optarg);
			break;
		default:
			rc = calc_option(e, ctx, &a->target, ch, optarg);
		}
		if (rc)
			return rc;
	}
	return calc_check_target(e, argc, optind, &a->target);
}

static int
resolve_gpu(const struct sm_args *a, const struct chiptab *t, struct sm_input *in)
{
	struct pt_err err = PT_ERR_INIT;
	const struct chip *tpu;
	int rc;

	if (chiptab_want_target(t, a->target.chip, &tpu, &in->gpu, &err) < 0)
		return cmd_not_found(calc_near(t, a->target.chip, false), "%s", err.msg);
	if (tpu)
		return cmd_usage_error(&cmd_smem_entry, "'%s' is a TPU: smem models GPU shared "
				       "memory; use 'pallas-triage vmem' for TPU VMEM", a->target.chip);
	in->backend_defaulted = !a->backend;
	if ((rc = calc_gpu_backend(&cmd_smem_entry, "--backend", in->gpu, a->backend,
				   &in->backend)) != 0)
		return rc;
	in->spec.triton = strcmp(in->backend, "triton") == 0;
	return 0;
}

static int
resolve_counts(const struct sm_args *a, struct sm_input *in)
{
	const struct cmd_entry *e = &cmd_smem_entry;
	struct smem_spec *s = &in->spec;

	s->stages = s->triton && strcmp(in->gpu->vendor, "nvidia") == 0 ? 3 : 1;
	in->stages_defaulted = !a->stages;
	if (a->stages && calc_small_int(a->stages, 1, 16, &s->stages) < 0)
		return cmd_usage_error(e, "--stages takes a count from 1 to 16, not '%s'", a->stages);
	if (a->operands && calc_parse_operands(a->operands, &s->n_in, &s->n_out) < 0)
		return cmd_usage_error(e, "--operands takes in:N,out:N (N from 0 to 64, not both 0), "
				       "not '%s'", a->operands);
	if (s->triton && (a->nscratch || a->barriers || a->reduction))
		return cmd_usage_error(e, "%s: the Triton backend has no scratch_shapes, barriers "
				       "or reduction scratch", a->nscratch ? "--scratch" :
				       a->barriers ? "--barriers" : "--reduction-scratch");
	if (a->barriers && calc_small_int(a->barriers, 0, 4096, &s->barriers) < 0)
		return cmd_usage_error(e, "--barriers takes a count from 0 to 4096, not '%s'",
				       a->barriers);
	if (a->reduction && vmem_parse_size(a->reduction, &s->reduction) < 0)
		return cmd_usage_error(e, "--reduction-scratch takes a size such as 2048 or 6K, "
				       "not '%s'", a->reduction);
	return 0;
}

static int
resolve(const struct sm_args *a, const struct chiptab *t, struct sm_input *in)
{
	const struct cmd_entry *e = &cmd_smem_entry;
	struct smem_spec *s = &in->spec;
	struct pt_err err = PT_ERR_INIT;
	int rc;

	memset(in, 0, sizeof(*in));
	in->json = a->target.json;
	s->n_in = s->n_out = 1;
	if ((rc = resolve_gpu(a, t, in)) != 0 || (rc = resolve_counts(a, in)) != 0)
		return rc;
	if (!(s->dtype = calc_want_dtype(t, a->target.dtype, true, &err)))
		return cmd_not_found(calc_near(t, a->target.dtype, true), "%s", err.msg);
	if (shape_parse(&s->block, a->target.block, false, &err) < 0)
		return cmd_usage_error(e, "bad --block '%s': %s", a->target.block, err.msg);
	for (size_t i = 0; i < a->nother; i++, s->nother++)
		if ((rc = calc_operand(e, "--operand", a->other[i], t, true, s->dtype,
				       &s->other[i].shape, &s->other[i].dtype)) != 0)
			return rc;
	for (size_t i = 0; i < a->nscratch; i++, s->nscratch++)
		if ((rc = calc_operand(e, "--scratch", a->scratch[i], t, true, s->dtype,
				       &s->scratch[i].shape, &s->scratch[i].dtype)) != 0)
			return rc;
	in->limit = in->gpu->smem_block_optin;
	/* shared-memory limits are kilobytes: 227 is 227K, not 227 bytes */
	if (a->limit && (rc = calc_want_limit(e, a->limit, 1ULL << 10, "K", &in->limit)) != 0)
		return rc;
	in->limit_given = a->limit != NULL;
	return 0;
}

static int
cmd_smem_run(int argc, char **argv, struct pt_ctx *ctx)
{
	struct sm_args a = { 0 };
	struct sm_input in;
	struct sm_result *r;
	struct pt_err err = PT_ERR_INIT;
	int rc;

	if ((rc = parse_args(argc, argv, ctx, &a)) != 0)
		return rc;
	if (!ctx->rules->chips || !ctx->rules->chips->ngpus)
		return calc_missing_table(ctx, "GPU table (gpu-chips.yaml)");
	if ((rc = resolve(&a, ctx->rules->chips, &in)) != 0)
		return rc;
	r = xcalloc(1, sizeof(*r));     /* the search record is a few KiB: keep it off the stack */
	if (smem_compute(&in.spec, &r->usage, &err) < 0 ||
	    (!(r->fits = r->usage.total <= in.limit) && smem_fit(&in.spec, in.limit, &r->fit, &err) < 0)) {
		free(r);
		return cmd_usage_error(&cmd_smem_entry, "%s", err.msg);
	}
	if (in.json)
		print_json(&in, r);
	else
		print_human(&in, r);
	rc = r->fits ? PT_EXIT_OK : PT_EXIT_FINDING;
	free(r);
	return rc;
}
