/* SPDX-License-Identifier: MIT */
/*
 * `pallas-triage vmem`: the static VMEM working set of a Pallas TPU kernel
 * (padded blocks x buffers + scratch) against the scoped limit and the
 * chip's physical VMEM; when it does not fit, the bisection to the largest
 * block that does and the vmem_limit_bytes that would fit the current one.
 * The arithmetic is in vmem.c; this file parses options and prints.
 * Deliberate choices: all inputs and outputs share one block shape and
 * dtype (--operands counts them; default one input and one output); the
 * number is always called a lower bound, because temporaries and register
 * spills cannot be seen statically.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "pt/block.h"
#include "pt/chips.h"
#include "calc_args.h"
#include "cmd.h"
#include "pt/json.h"
#include "pt/rules.h"
#include "pt/vmem.h"
#include "pt/xalloc.h"

static int cmd_vmem_run(int argc, char **argv, struct pt_ctx *ctx);

const struct cmd_entry cmd_vmem_entry = {
	.name = "vmem",
	.usage = "vmem --chip CHIP --block DIMS --dtype DTYPE [--buffers N] [--operands in:N,out:N] "
		 "[--operand DIMS[:DTYPE]]... [--scratch DIMS[:DTYPE]]... [--limit SIZE] [--json]",
	.summary = "compute a kernel's VMEM working set and, if it does not fit, what would",
	.help =
		"options:\n"
		"  --chip CHIP           v2 v3 v4 v4i v5e v5p v6e 7x 8i 8t, an alias, or a device kind\n"
		"  --block DIMS          the block shape of every input and output: 512,1024\n"
		"  --dtype DTYPE         their dtype: float32, bf16, int8, ...\n"
		"  --buffers N           buffers per input/output (default 2: double-buffering)\n"
		"  --operands in:N,out:N how many inputs and outputs use the block (default in:1,out:1;\n"
		"                        a part not given keeps its default: in:2 is in:2,out:1)\n"
		"  --operand DIMS[:DTYPE] another input or output with a block of its own (a matmul's\n"
		"                        weights, say), buffered like the others and kept as given\n"
		"                        when the block is shrunk (dtype defaults to --dtype); repeat\n"
		"                        for more\n"
		"  --scratch DIMS[:DTYPE] a scratch buffer, allocated once (dtype defaults to --dtype);\n"
		"                        repeat for more\n"
		"  --limit SIZE          the scoped VMEM limit: 32M, 48MiB, 33554432 (K/M/G are powers\n"
		"                        of 1024; a bare number is bytes, and one under 1 MiB is\n"
		"                        refused: 16 is almost surely 16M); default the chip's default\n"
		"                        scoped limit\n"
		"  --json                print the result as JSON\n"
		"\nThe working set is a lower bound: temporaries and register spills are not counted.\n"
		"exit status: 0 fits, 1 does not fit, 2 usage (unknown chip or dtype, bad dims or sizes),\n"
		"3 the rules have no chip table\n",
	.min_args = 0,
	.max_args = 0,
	.flags = CMD_NEEDS_RULES,
	.run = cmd_vmem_run,
};

struct vm_input {
	struct vmem_spec spec;
	unsigned long long limit;       /* --limit, or 0 */
	bool json;
};

struct vm_result {
	struct vmem_usage usage;
	struct vmem_budget budget;
	bool fits;
	struct vmem_bisect bisect;      /* when it does not fit */
	unsigned long long need;        /* working set + internal scratch */
	unsigned long long proposal;    /* vmem_limit_bytes to try, 0 = none */
	bool proposal_disputed;         /* allowed only by a disputed VMEM size */
};



/* ---- the computation ---- */

/* The vmem_limit_bytes that fits the current shape, within physical VMEM (or a disputed size). */
static void
propose(const struct vm_input *in, struct vm_result *r)
{
	const struct chip *c = in->spec.chip;
	unsigned long long alt = chip_disputed(c, "vmem_bytes");

	r->need = r->usage.total + c->internal_scratch_bytes;
	if (vmem_propose_limit(r->need, c->vmem_bytes, &r->proposal) == 0)
		return;
	r->proposal = 0;
	if (alt > c->vmem_bytes && vmem_propose_limit(r->need, alt, &r->proposal) == 0)
		r->proposal_disputed = true;
}

static int
compute(const struct vm_input *in, struct vm_result *r, struct pt_err *err)
{
	memset(r, 0, sizeof(*r));
	if (vmem_compute(&in->spec, &r->usage, err) < 0)
		return -1;
	vmem_budget_init(&r->budget, in->spec.chip, in->limit);
	r->fits = r->usage.total <= r->budget.avail;
	if (r->fits)
		return 0;
	if (vmem_bisect(&in->spec, r->budget.avail, &r->bisect, err) < 0)
		return -1;
	propose(in, r);
	return 0;
}

/* ---- human output ---- */

static void
print_budget(const struct vm_input *in, const struct vmem_budget *b)
{
	const struct chip *c = in->spec.chip;

	printf("chip %s: %s of VMEM per core", c->name, calc_size(b->physical));
	if (b->from == VMEM_LIMIT_GIVEN)
		printf(", scoped limit %s (--limit)", calc_size(b->limit));
	else if (b->from == VMEM_LIMIT_DEFAULT)
		printf(", scoped limit %s (the %s default)", calc_size(b->limit), c->name);
	else
		printf(", no default scoped limit known: the budget is all of VMEM");
	if (b->internal)
		printf(", Mosaic internal scratch %s", calc_size(b->internal));
	putchar('\n');
}

static void
print_alloc_head(const char *what, const struct vmem_alloc *a, const struct dtype *dt, int lanes)
{
	bool rank1 = a->shape.rank == 1, padded = !shape_equal(&a->padded, &a->shape);

	printf("%s %s %s", what, calc_shape(&a->shape), dt->name);
	if (padded)
		printf(", padded to %s", calc_shape(&a->padded));
	if (!rank1)
		printf(padded ? " by the (%d, %d) tile" : ", tile (%d, %d)", a->tile, lanes);
}

static void
print_usage(const struct vm_input *in, const struct vmem_usage *u)
{
	const struct vmem_spec *s = &in->spec;
	const struct vmem_alloc *b = &u->block;

	print_alloc_head("block", b, s->dtype, s->chip->lanes);
	printf(": %s per buffer", calc_size(b->bytes));
	if (b->bytes != b->unpadded)
		printf(" (%s unpadded)", calc_size(b->unpadded));
	putchar('\n');
	if (s->n_in)
		printf("  inputs   %d x %d buffer%s x %s = %s\n", s->n_in, s->buffers,
		       s->buffers == 1 ? "" : "s", calc_size(b->bytes),
		       calc_size(b->bytes * (unsigned)s->n_in * (unsigned)s->buffers));
	if (s->n_out)
		printf("  outputs  %d x %d buffer%s x %s = %s\n", s->n_out, s->buffers,
		       s->buffers == 1 ? "" : "s", calc_size(b->bytes),
		       calc_size(b->bytes * (unsigned)s->n_out * (unsigned)s->buffers));
	for (size_t i = 0; i < u->nother; i++) {
		print_alloc_head("  operand ", &u->other[i], s->other[i].dtype, s->chip->lanes);
		printf(": %d x %s = %s\n", s->buffers, calc_size(u->other[i].bytes), calc_size(u->other[i].total));
	}
	for (size_t i = 0; i < u->nscratch; i++) {
		print_alloc_head("  scratch ", &u->scratch[i], s->scratch[i].dtype, s->chip->lanes);
		printf(" = %s\n", calc_size(u->scratch[i].bytes));
	}
	printf("working set: %s (%llu bytes)\n", calc_size(u->total), u->total);
}

static const char *
dispute_source(const struct chip *c, const char *field)
{
	for (size_t i = 0; i < c->ndisputes; i++)
		if (strcmp(c->disputes[i].field, field) == 0)
			return c->disputes[i].source;
	return "?";
}

static void
print_steps(const struct vmem_bisect *bs)
{
	if (!bs->nsteps)
		return;
	printf("shrinking in the method's order (last dimension, second-minor, one buffer), "
	       "then bisecting back up:\n");
	for (size_t i = 0; i < bs->nsteps; i++) {
		const struct vmem_step *st = &bs->steps[i];

		printf("  %2zu. %-34s %-16s %d buffer%s  %-10s %s\n", i + 1,
		       vmem_step_name(st->kind), calc_shape(&st->block), st->buffers,
		       st->buffers == 1 ? " " : "s", calc_size(st->total), st->fits ? "fits" : "too big");
	}
}

static void
print_shrink(const struct vm_input *in, const struct vm_result *r)
{
	const struct vmem_bisect *bs = &r->bisect;

	print_steps(bs);
	if (bs->found) {
		printf("largest block that fits: %s with %d buffer%s, %s\n", calc_shape(&bs->block),
		       bs->buffers, bs->buffers == 1 ? "" : "s", calc_size(bs->total));
		if (in->spec.nscratch)
			printf("  (scratch kept as given; if it is sized by the block, it shrinks too)\n");
	} else {
		printf("no block fits: even %s with %d buffer%s needs more than %s", calc_shape(&bs->block),
		       bs->buffers, bs->buffers == 1 ? "" : "s", calc_size(r->budget.avail));
		if (r->usage.scratch_bytes)
			printf(" (the scratch alone is %s)", calc_size(r->usage.scratch_bytes));
		putchar('\n');
	}
}

static void
print_proposal(const struct vm_input *in, const struct vm_result *r)
{
	const struct chip *c = in->spec.chip;

	if (!r->proposal) {
		printf("raising the limit cannot help: %s (working set plus internal scratch) is more "
		       "than the %s of VMEM on %s\n", calc_size(r->need), calc_size(c->vmem_bytes), c->name);
		return;
	}
	printf("to keep %s, raise this kernel's limit to %s:\n"
	       "  compiler_params=pltpu.CompilerParams(vmem_limit_bytes=%llu)\n",
	       calc_shape(&in->spec.block), calc_size(r->proposal), r->proposal);
	printf("  (%s of working set and internal scratch, plus a quarter, at least 4 MiB, of "
	       "headroom)\n", calc_size(r->need));
	if (r->proposal_disputed)
		printf("  beyond the %s JAX lists for %s: %s\n", calc_size(c->vmem_bytes), c->name,
		       dispute_source(c, "vmem_bytes"));
}

/* Notes that hold whatever the verdict: limits beyond VMEM, disputed defaults, buffering. */
static void
collect_notes(const struct vm_input *in, const struct vm_result *r, struct buf *out)
{
	const struct chip *c = in->spec.chip;
	const struct vmem_budget *b = &r->budget;
	unsigned long long alt = chip_disputed(c, "scoped_vmem_default_bytes");

	if (b->from == VMEM_LIMIT_GIVEN && b->limit > b->physical)
		buf_addf(out, "the limit %s is more than the %s of VMEM on %s: the physical size "
			 "bounds the budget\n", calc_size(b->limit), calc_size(b->physical), c->name);
	if (b->from == VMEM_LIMIT_DEFAULT && alt)
		buf_addf(out, "the default scoped limit is disputed: %s also seen (%s); the limit "
			 "your log prints wins: pass it with --limit\n", calc_size(alt),
			 dispute_source(c, "scoped_vmem_default_bytes"));
	if (b->from == VMEM_LIMIT_PHYSICAL)
		buf_addf(out, "no default scoped limit is known for %s; the limit your log prints "
			 "(\"Used X of Y vmem\") is the one to pass with --limit\n", c->name);
	if (in->spec.buffers > 2)
		buf_addf(out, "pallas_call's own pipelining accepts only 1 or 2 buffers; more needs "
			 "pltpu.emit_pipeline\n");
	buf_addf(out, "this is a lower bound: temporaries inside the kernel and register spills "
		 "cannot be seen statically, and the compiler may need much more\n");
}

static void
print_human(const struct vm_input *in, const struct vm_result *r)
{
	const struct vmem_budget *b = &r->budget;
	struct buf notes = BUF_INIT;

	print_budget(in, b);
	print_usage(in, &r->usage);
	printf("available: %s (%llu bytes)", calc_size(b->avail), b->avail);
	if (b->internal)
		printf(" = %s - %s internal scratch", calc_size(b->limit < b->physical ? b->limit
							 : b->physical), calc_size(b->internal));
	putchar('\n');
	calc_print_verdict(r->usage.total, b->avail);
	if (!r->fits) {
		print_shrink(in, r);
		print_proposal(in, r);
	}
	collect_notes(in, r, &notes);
	calc_print_lines("note: ", &notes);
	buf_release(&notes);
}

/* ---- JSON ---- */

static void
json_alloc(struct json *o, const struct vmem_alloc *a, const struct dtype *dt)
{
	calc_json_shape(o, "shape", &a->shape);
	json_add_str(o, "dtype", dt->name);
	calc_json_shape(o, "padded", &a->padded);
	json_add_int(o, "tile", a->tile);
	json_add_int(o, "bytes", (long long)a->bytes);
	json_add_int(o, "unpadded_bytes", (long long)a->unpadded);
}

static void
json_usage(struct json *root, const struct vm_input *in, const struct vmem_usage *u)
{
	struct json *blk = json_add_object(root, "block"), *scr;

	json_alloc(blk, &u->block, in->spec.dtype);
	json_add_int(blk, "inputs", in->spec.n_in);
	json_add_int(blk, "outputs", in->spec.n_out);
	json_add_int(blk, "buffers", in->spec.buffers);
	json_add_int(blk, "total_bytes", (long long)u->block.total);
	scr = json_add_array(root, "operands");
	for (size_t i = 0; i < u->nother; i++) {
		struct json *o = json_push_object(scr);

		json_alloc(o, &u->other[i], in->spec.other[i].dtype);
		json_add_int(o, "buffers", in->spec.buffers);
		json_add_int(o, "total_bytes", (long long)u->other[i].total);
	}
	json_add_int(root, "operand_bytes", (long long)u->blocks_bytes);
	scr = json_add_array(root, "scratch");
	for (size_t i = 0; i < u->nscratch; i++)
		json_alloc(json_push_object(scr), &u->scratch[i], in->spec.scratch[i].dtype);
	json_add_int(root, "scratch_bytes", (long long)u->scratch_bytes);
	json_add_int(root, "working_set_bytes", (long long)u->total);
	json_add_bool(root, "lower_bound", true);
}

static void
json_budget(struct json *root, const struct vmem_budget *b)
{
	static const char *const from[] = { "given", "default", "physical" };

	json_add_int(root, "limit_bytes", (long long)b->limit);
	json_add_str(root, "limit_source", from[b->from]);
	json_add_int(root, "physical_vmem_bytes", (long long)b->physical);
	json_add_int(root, "internal_scratch_bytes", (long long)b->internal);
	json_add_int(root, "available_bytes", (long long)b->avail);
}

static void
json_bisect(struct json *root, const struct vmem_bisect *bs)
{
	struct json *o = json_add_object(root, "bisection"), *steps;

	steps = json_add_array(o, "steps");
	for (size_t i = 0; i < bs->nsteps; i++) {
		struct json *st = json_push_object(steps);

		json_add_str(st, "step", vmem_step_name(bs->steps[i].kind));
		calc_json_shape(st, "block", &bs->steps[i].block);
		json_add_int(st, "buffers", bs->steps[i].buffers);
		json_add_int(st, "working_set_bytes", (long long)bs->steps[i].total);
		json_add_bool(st, "fits", bs->steps[i].fits);
	}
	json_add_bool(o, "found", bs->found);
	if (bs->found) {
		calc_json_shape(o, "block", &bs->block);
		json_add_int(o, "buffers", bs->buffers);
		json_add_int(o, "working_set_bytes", (long long)bs->total);
	}
}

static void
print_json(const struct vm_input *in, const struct vm_result *r)
{
	struct json *root = json_new_object();
	struct buf notes = BUF_INIT;

	json_add_str(root, "chip", in->spec.chip->name);
	json_usage(root, in, &r->usage);
	json_budget(root, &r->budget);
	calc_json_verdict(root, r->usage.total, r->budget.avail);
	if (!r->fits) {
		json_bisect(root, &r->bisect);
		if (r->proposal)
			json_add_int(root, "vmem_limit_bytes", (long long)r->proposal);
		else
			json_add_null(root, "vmem_limit_bytes");
		json_add_bool(root, "vmem_limit_disputed", r->proposal_disputed);
	}
	collect_notes(in, r, &notes);
	calc_json_lines(root, "notes", &notes);
	json_print(root, stdout);
	json_free(root);
	buf_release(&notes);
}

/* ---- options ---- */

enum { OPT_BUFFERS = 1, OPT_OPERANDS, OPT_OPERAND, OPT_SCRATCH, OPT_LIMIT };

struct vm_args {
	struct calc_target target;      /* --chip --block --dtype --json */
	const char *buffers, *operands, *limit;
	const char *scratch[VMEM_MAX_SCRATCH];
	size_t nscratch;
	const char *other[VMEM_MAX_SCRATCH];
	size_t nother;
};

static int
parse_args(int argc, char **argv, struct pt_ctx *ctx, struct vm_args *a)
{
	static const struct option opts[] = {
		CALC_LONGOPTS,
		{ "buffers", required_argument, NULL, OPT_BUFFERS },
		{ "operands", required_argument, NULL, OPT_OPERANDS },
		{ "operand", required_argument, NULL, OPT_OPERAND },
		{ "scratch", required_argument, NULL, OPT_SCRATCH },
		{ "limit", required_argument, NULL, OPT_LIMIT },
		CMD_GLOBAL_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	const struct cmd_entry *e = &cmd_vmem_entry;
	int ch, rc = 0;

	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (ch) {
		case OPT_BUFFERS: a->buffers = optarg; break;
		case OPT_OPERANDS: a->operands = optarg; break;
		case OPT_LIMIT: a->limit = optarg; break;
		case OPT_OPERAND:
			rc = calc_push(e, "--operand blocks", a->other, &a->nother, VMEM_MAX_SCRATCH,
				       optarg);
			break;
		case OPT_SCRATCH:
			rc = calc_push(e, "--scratch buffers", a->scratch, &a->nscratch,
				       VMEM_MAX_SCRATCH, optarg);
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
resolve(const struct vm_args *a, const struct chiptab *t, struct vm_input *in)
{
	const struct cmd_entry *e = &cmd_vmem_entry;
	struct vmem_spec *s = &in->spec;
	struct pt_err err = PT_ERR_INIT;
	int rc;

	memset(in, 0, sizeof(*in));
	in->json = a->target.json;
	s->n_in = s->n_out = 1;
	s->buffers = 2;
	if (!(s->chip = chiptab_want_chip(t, a->target.chip, &err)))
		return cmd_not_found(calc_near(t, a->target.chip, false), "%s", err.msg);
	if (!(s->dtype = chiptab_want_dtype(t, a->target.dtype, &err)))
		return cmd_not_found(calc_near(t, a->target.dtype, true), "%s", err.msg);
	if (shape_parse(&s->block, a->target.block, false, &err) < 0)
		return cmd_usage_error(e, "bad --block '%s': %s", a->target.block, err.msg);
	if (a->buffers && calc_small_int(a->buffers, 1, 16, &s->buffers) < 0)
		return cmd_usage_error(e, "--buffers takes a count from 1 to 16, not '%s'", a->buffers);
	if (a->operands && calc_parse_operands(a->operands, &s->n_in, &s->n_out) < 0)
		return cmd_usage_error(e, "--operands takes in:N,out:N (N from 0 to 64, not both 0), "
				       "not '%s'", a->operands);
	for (size_t i = 0; i < a->nother; i++, s->nother++)
		if ((rc = calc_operand(e, "--operand", a->other[i], t, false, s->dtype,
				       &s->other[i].shape, &s->other[i].dtype)) != 0)
			return rc;
	for (size_t i = 0; i < a->nscratch; i++, s->nscratch++)
		if ((rc = calc_operand(e, "--scratch", a->scratch[i], t, false, s->dtype,
				       &s->scratch[i].shape, &s->scratch[i].dtype)) != 0)
			return rc;
	/* scoped limits are megabytes: 16 is 16M, not 16 bytes */
	if (a->limit && (rc = calc_want_limit(e, a->limit, 1ULL << 20, "M", &in->limit)) != 0)
		return rc;
	return 0;
}

static int
cmd_vmem_run(int argc, char **argv, struct pt_ctx *ctx)
{
	struct vm_args a = { 0 };
	struct vm_input in;
	struct vm_result *r = NULL;
	struct pt_err err = PT_ERR_INIT;
	int rc;

	if ((rc = parse_args(argc, argv, ctx, &a)) != 0)
		return rc;
	if (!ctx->rules->chips)
		return calc_missing_table(ctx, "chip table (chips.yaml)");
	if ((rc = resolve(&a, ctx->rules->chips, &in)) != 0)
		return rc;
	r = xcalloc(1, sizeof(*r));     /* the bisection record is ~20 KiB: keep it off the stack */
	if (compute(&in, r, &err) < 0) {
		free(r);
		return cmd_usage_error(&cmd_vmem_entry, "%s", err.msg);
	}
	if (in.json)
		print_json(&in, r);
	else
		print_human(&in, r);
	rc = r->fits ? PT_EXIT_OK : PT_EXIT_FINDING;
	free(r);
	return rc;
}
