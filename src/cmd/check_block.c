/* SPDX-License-Identifier: MIT */
/*
 * `pallas-triage check-block`: is a BlockSpec block shape legal for a dtype
 * on a chip, why or why not, and which legal shapes are nearest. The rules
 * live in block.c and the numbers in rules/chips.yaml; this file parses the
 * options and prints. Deliberate choices: --chip, --block and --dtype are
 * all required (the tile depends on each); --memory any needs --array, since
 * the only legal block there is the whole array.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "pt/block.h"
#include "pt/chips.h"
#include "calc_args.h"
#include "cmd.h"
#include "pt/gpu_block.h"
#include "pt/gpus.h"
#include "pt/json.h"
#include "pt/rules.h"
#include "pt/vmem.h"

static int cmd_check_block_run(int argc, char **argv, struct pt_ctx *ctx);

const struct cmd_entry cmd_check_block_entry = {
	.name = "check-block",
	.usage = "check-block --chip CHIP --block DIMS --dtype DTYPE [--array DIMS] "
		 "[--memory vmem|smem|any] [--backend B] [--swizzle BYTES] [--mma lhs|rhs|acc] "
		 "[--json]",
	.summary = "say whether a Pallas block shape is legal on a TPU or GPU, and propose the nearest legal ones",
	.help =
		"options:\n"
		"  --chip CHIP      v2 v3 v4 v4i v5e v5p v6e 7x 8i 8t, a100 h100 h200 b200 mi300x,\n"
		"                   an alias, or a device kind such as 'TPU v5 lite'\n"
		"  --block DIMS     the BlockSpec block shape: 256,512 or (256, 512); None = squeezed\n"
		"  --dtype DTYPE    float32, bf16, int8, fp8_e4m3, int4, ... (see rules/chips.yaml)\n"
		"  --array DIMS     the whole array's shape: a block dim equal to it is always legal\n"
		"  --memory SPACE   vmem (default), smem, or any (also hbm): whole-array blocks only\n"
		"  --backend B      GPU: triton or mosaic-gpu (default: the GPU's only backend,\n"
		"                   else mosaic-gpu, JAX's default); TPU: mosaic-tpu\n"
		"  --swizzle BYTES  Mosaic GPU: the SMEM swizzle of the block (32, 64 or 128)\n"
		"  --mma ROLE       the block's place in a matmul: lhs (M, K), rhs (K, N), acc (M, N)\n"
		"  --json           print the verdict as JSON\n"
		"\nverdicts: legal; at risk (E2002: legal under the tile the lowering checks, but\n"
		"not a multiple of the larger 16-bit tile Mosaic may pick); illegal.\n"
		"exit status: 0 legal, 1 illegal or at risk (--json: \"verdict\"), 2 usage (unknown\n"
		"chip or dtype, bad dims, a backend the chip does not run), 3 the rules have no\n"
		"chip table\n",
	.min_args = 0,
	.max_args = 0,
	.flags = CMD_NEEDS_RULES,
	.run = cmd_check_block_run,
};

struct cb_input {
	const struct chiptab *tab;
	const struct chip *chip;        /* a TPU chip, or NULL for a GPU */
	const struct gpu *gpu;          /* a GPU, or NULL for a TPU chip */
	const char *backend;            /* GPU: "triton" or "mosaic-gpu" */
	struct gpu_block_rule grule;
	const struct dtype *dtype;
	struct shape block, array;
	bool have_array;
	enum block_memory mem;
	struct block_rule rule;
	bool json;
};

static const char *
dim_name(const struct block_check *bc, int i)
{
	if (bc->ndims == 1)
		return "size";
	return i == 0 ? "second-minor" : "minor";
}

/* "the (8, 128) tile of 16-bit bfloat16 on v6e" parts, for messages. */
static void
add_tile_why(const struct cb_input *in, int axis, struct buf *b)
{
	if (axis == -1)
		buf_addf(b, "%d (the lanes)", in->rule.lanes);
	else
		buf_addf(b, "%d (the sublane tile of %d-bit %s on %s)", in->rule.sublane_tile,
			 in->dtype->bits, in->dtype->name, in->chip->name);
}

static void
describe_dim(const struct cb_input *in, const struct block_check *bc, int i, struct buf *b)
{
	const struct dim_check *dc = &bc->dims[i];

	buf_addf(b, "%s %lld: ", dim_name(bc, i), dc->size);
	switch (dc->status) {
	case DIM_FULL:
		buf_adds(b, "equal to the array's dimension");
		return;
	case DIM_POW2:
		buf_addf(b, "a power of two >= %lld (128 x 32 / %d bits)", dc->pow2_min, in->rule.bits);
		return;
	case DIM_MULTIPLE:
		buf_adds(b, "a multiple of ");
		break;
	case DIM_BAD:
		buf_adds(b, "not a multiple of ");
		break;
	}
	if (bc->ndims == 1)
		buf_addf(b, "%lld (%d sublanes x %d lanes)", dc->multiple, in->rule.sublanes,
			 in->rule.lanes);
	else
		add_tile_why(in, dc->axis, b);
	if (dc->status != DIM_BAD)
		return;
	if (bc->ndims == 1)
		buf_addf(b, ", nor a power of two >= %lld", dc->pow2_min);
	if (dc->full)
		buf_addf(b, ", nor the array's %lld", dc->full);
	else if (!in->have_array)
		buf_adds(b, "; no --array to compare with");
}

static void
print_shape(const char *before, const struct shape *s, const char *after)
{
	struct buf b = BUF_INIT;

	shape_format(s, &b);
	printf("%s%s%s", before, b.data, after);
	buf_release(&b);
}

static void
print_proposal(const struct block_check *bc, const struct block_proposal *p,
	       const struct shape *block)
{
	bool first = true;

	print_shape("  ", &p->shape, "  ");
	for (int i = 0; i < bc->ndims; i++) {
		int k = block->rank - bc->ndims + i;

		if (p->choice[i] == CHOICE_KEEP)
			continue;
		printf("%s%lld -> %lld (%s)", first ? "" : ", ", block->dims[k], p->shape.dims[k],
		       dim_choice_name(p->choice[i]));
		first = false;
	}
	if (p->choice[0] == CHOICE_FULL && bc->ndims == 0)
		printf("the whole array");
	putchar('\n');
}

/* SMEM holds 32-bit words: a block of n elements of up to 32 bits takes 4n bytes. */
static void
smem_remark(const struct cb_input *in, struct buf *warn)
{
	unsigned long long n = shape_elements(&in->block);
	struct buf need = BUF_INIT, have = BUF_INIT;

	if (n && n <= in->chip->smem_bytes / 4)
		return;
	vmem_format_size(n * 4, &need);
	vmem_format_size(in->chip->smem_bytes, &have);
	buf_addf(warn, "the block needs %s of SMEM (one 32-bit word per element), but %s has %s "
		 "per core\n", need.data, in->chip->name, have.data);
	buf_release(&need);
	buf_release(&have);
}

/* Is dt a native matmul input on some chip? (Then its absence on this one is news.) */
static bool
mxu_elsewhere(const struct chiptab *t, const struct dtype *dt)
{
	for (size_t i = 0; i < t->nchips; i++)
		if (chip_matmul_native(t->chips[i], dt->name, true) ||
		    chip_matmul_native(t->chips[i], dt->name, false))
			return true;
	return false;
}

/* Warnings (the E2002 cases, SMEM size) and notes, as lines without a prefix. */
static void
collect_remarks(const struct cb_input *in, const struct block_check *bc, struct buf *warn,
		struct buf *note)
{
	const struct dim_check *sm = &bc->dims[0];
	int tile = in->rule.sublane_tile;

	if (bc->problem == BLOCK_DIMS && bc->ndims == 2 && sm->status == DIM_BAD && sm->lowering_ok)
		buf_addf(warn, "E2002: %lld passes the Pallas lowering's multiple-of-8 check, but "
			 "Mosaic tiles %d-bit %s on %s as (%d, %d) and refuses the block at compile "
			 "time (\"not divisible by tiling evenly\")\n", sm->size, in->dtype->bits,
			 in->dtype->name, in->chip->name, tile, in->rule.lanes);
	if (bc->e2002_risk)
		buf_addf(warn, "E2002 risk: %d-bit values are tiled (%d, %d) when XLA's "
			 "xla_tpu_enable_large_2nd_minor_layout_for_x16 is on or Mosaic picks the "
			 "large layout; %lld is not a multiple of %d\n", in->dtype->bits,
			 in->rule.strict_tile, in->rule.lanes, sm->size, in->rule.strict_tile);
	if (bc->legal && bc->ndims == 2 && tile > PALLAS_LOWERING_SUBLANES)
		buf_addf(note, "%s on %s is tiled (%d, %d), stricter than the 8 x 128 the Pallas "
			 "lowering checks: a second-minor between the two fails later with E2002\n",
			 in->dtype->name, in->chip->name, tile, in->rule.lanes);
	if (in->mem == BLOCK_MEM_SMEM)
		smem_remark(in, warn);
	if (mxu_elsewhere(in->tab, in->dtype) && !chip_matmul_native(in->chip, in->dtype->name, true) &&
	    !chip_matmul_native(in->chip, in->dtype->name, false))
		buf_addf(note, "%s is not a native matmul (MXU) input on %s: a dot on these blocks "
			 "may be refused (E2001); cast to a native dtype first\n", in->dtype->name,
			 in->chip->name);
	if (in->dtype->note)
		buf_addf(note, "%s: %s\n", in->dtype->name, in->dtype->note);
}

/* One buffer's padded bytes, for a legal VMEM block; false when not meaningful. */
static bool
buffer_bytes(const struct cb_input *in, const struct block_check *bc, struct vmem_usage *u)
{
	struct vmem_spec s;

	if (!bc->legal || in->mem != BLOCK_MEM_VMEM)
		return false;
	memset(&s, 0, sizeof(s));
	s.chip = in->chip;
	s.block = in->block;
	s.dtype = in->dtype;
	s.n_in = 1;
	s.buffers = 1;
	return vmem_compute(&s, u, NULL) == 0;
}

/* The verdict as the first line says it; JSON's "verdict" is block_verdict_name(). */
static const char *
block_verdict_text(const struct block_check *bc)
{
	return !bc->legal ? "illegal" : bc->e2002_risk ? "at risk (E2002)" : "legal";
}

static void
print_verdict_reasons(const struct cb_input *in, const struct block_check *bc)
{
	struct buf b = BUF_INIT;

	print_shape("block ", &in->block, "");
	printf(" %s on %s in %s: %s\n", in->dtype->name, in->chip->name, block_memory_name(in->mem),
	       block_verdict_text(bc));
	if (bc->smem_exempt)
		printf("  a whole-array block in SMEM is exempt from the tiling rules\n");
	else if (in->mem == BLOCK_MEM_ANY && bc->legal)
		printf("  the whole array, as memory space any/hbm requires\n");
	else if (in->mem == BLOCK_MEM_ANY)
		print_shape("  a block in memory space any/hbm must be the whole array ", &in->array,
			    "\n");
	for (int i = 0; i < bc->ndims; i++) {
		buf_reset(&b);
		describe_dim(in, bc, i, &b);
		printf("  %s\n", b.data);
	}
	buf_release(&b);
}

static void
print_proposals(const struct cb_input *in, const struct block_check *bc)
{
	const struct block_proposal *p = &bc->props[0];
	bool up = false;

	if (!bc->nprops)
		return;
	printf("%s\n", bc->legal ? "safer blocks:" : "nearest legal block:");
	print_proposal(bc, p, &in->block);
	for (int i = 0; i < bc->ndims; i++)
		up = up || p->choice[i] == CHOICE_UP || p->choice[i] == CHOICE_POW2_UP;
	if (up && !bc->legal)
		printf("  rounding up leaves a partial last block where the block does not divide "
		       "the array; Pallas pads it\n");
	if (in->mem == BLOCK_MEM_ANY)
		printf("  or keep the operand in VMEM to get windows, or copy windows by hand with "
		       "DMA from the any-space ref\n");
	if (bc->nprops > 1 && !bc->legal)
		printf("alternatives:\n");
	for (size_t i = 1; i < bc->nprops; i++)
		print_proposal(bc, &bc->props[i], &in->block);
}

static void
print_human(const struct cb_input *in, const struct block_check *bc)
{
	struct buf warn = BUF_INIT, note = BUF_INIT;
	struct vmem_usage u;

	print_verdict_reasons(in, bc);
	if (buffer_bytes(in, bc, &u)) {
		struct buf b = BUF_INIT;

		vmem_format_size(u.block.bytes, &b);
		printf("  one buffer: %s", b.data);
		if (u.block.bytes != u.block.unpadded) {
			buf_reset(&b);
			vmem_format_size(u.block.unpadded, &b);
			print_shape(", padded to ", &u.block.padded, "");
			printf(" (%s unpadded)", b.data);
		}
		putchar('\n');
		buf_release(&b);
	}
	print_proposals(in, bc);
	collect_remarks(in, bc, &warn, &note);
	calc_print_lines("warning: ", &warn);
	calc_print_lines("note: ", &note);
	buf_release(&warn);
	buf_release(&note);
}

/* ---- JSON ---- */

/* A squeezed dimension is null: the verdict is about the BlockSpec as written, where
 * None is not a size (vmem and smem, which count bytes, use calc_json_shape()). */
static void
json_shape(struct json *obj, const char *key, const struct shape *s)
{
	struct json *a = json_add_array(obj, key);

	for (int i = 0; i < s->rank; i++)
		if (s->squeezed & (1u << i))
			json_push_null(a);
		else
			json_push_int(a, s->dims[i]);
}

static const char *
status_name(enum dim_status s)
{
	switch (s) {
	case DIM_BAD: return "bad";
	case DIM_MULTIPLE: return "multiple";
	case DIM_FULL: return "full";
	case DIM_POW2: return "power-of-two";
	}
	return "?";
}

static const char *
problem_name(enum block_problem p)
{
	switch (p) {
	case BLOCK_OK: return NULL;
	case BLOCK_RANK0: return "rank-0";
	case BLOCK_DIMS: return "dims";
	case BLOCK_ANY_NOT_WHOLE: return "any-not-whole-array";
	case BLOCK_ANY_NO_ARRAY: return "any-needs-array";
	case BLOCK_RANK_MISMATCH: return "rank-mismatch";
	case BLOCK_ELIDED: return "elided";
	}
	return "?";
}

static void
json_dims(struct json *root, const struct block_check *bc)
{
	struct json *dims = json_add_array(root, "dims");

	for (int i = 0; i < bc->ndims; i++) {
		const struct dim_check *dc = &bc->dims[i];
		struct json *o = json_push_object(dims);

		json_add_int(o, "axis", dc->axis);
		json_add_int(o, "size", dc->size);
		json_add_str(o, "status", status_name(dc->status));
		json_add_int(o, "multiple", dc->multiple);
		if (dc->pow2_min)
			json_add_int(o, "power_of_two_min", dc->pow2_min);
		if (dc->full)
			json_add_int(o, "array", dc->full);
		else
			json_add_null(o, "array");
		json_add_bool(o, "lowering_ok", dc->lowering_ok);
	}
}

static void
json_proposals(struct json *root, const struct block_check *bc)
{
	struct json *props = json_add_array(root, "proposals");

	for (size_t i = 0; i < bc->nprops; i++) {
		struct json *o = json_push_object(props), *how;

		json_shape(o, "block", &bc->props[i].shape);
		how = json_add_array(o, "changes");
		for (int k = 0; k < bc->ndims; k++)
			json_push_str(how, dim_choice_name(bc->props[i].choice[k]));
		if (!bc->ndims)
			json_push_str(how, dim_choice_name(CHOICE_FULL));
	}
}

static int
print_json(const struct cb_input *in, const struct block_check *bc)
{
	struct json *root = json_new_object(), *tile;
	struct buf warn = BUF_INIT, note = BUF_INIT;
	struct vmem_usage u;
	int ret;

	json_add_str(root, "chip", in->chip->name);
	json_add_str(root, "dtype", in->dtype->name);
	json_add_int(root, "bits", in->dtype->bits);
	json_add_str(root, "memory", block_memory_name(in->mem));
	json_shape(root, "block", &in->block);
	if (in->have_array)
		json_shape(root, "array", &in->array);
	else
		json_add_null(root, "array");
	tile = json_add_array(root, "tile");
	json_push_int(tile, in->rule.sublane_tile);
	json_push_int(tile, in->rule.lanes);
	json_add_str(root, "verdict", block_verdict_name(bc));
	json_add_bool(root, "legal", bc->legal);
	json_add_str(root, "problem", problem_name(bc->problem));
	json_add_bool(root, "smem_exempt", bc->smem_exempt);
	json_dims(root, bc);
	json_add_bool(root, "e2002_risk", bc->e2002_risk);
	json_proposals(root, bc);
	if (buffer_bytes(in, bc, &u)) {
		json_add_int(root, "buffer_bytes", (long long)u.block.bytes);
		json_add_int(root, "buffer_unpadded_bytes", (long long)u.block.unpadded);
	}
	collect_remarks(in, bc, &warn, &note);
	calc_json_lines(root, "warnings", &warn);
	calc_json_lines(root, "notes", &note);
	ret = json_print(root, stdout);
	json_free(root);
	buf_release(&warn);
	buf_release(&note);
	return ret;
}

/* ---- GPU ---- */

/* How proposal p changed block b: "100 -> 128 (round up), 96 -> 64 (round down)". */
static void
gpu_changes(const struct shape *b, const struct shape *p, struct buf *out)
{
	for (int i = 0; i < b->rank; i++)
		if (p->dims[i] != b->dims[i])
			buf_addf(out, "%s%lld -> %lld (round %s)", out->len ? ", " : "", b->dims[i],
				 p->dims[i], p->dims[i] > b->dims[i] ? "up" : "down");
}

static bool
window_failed(const struct gpu_block_check *c)
{
	for (size_t i = 0; i < c->nf; i++)
		if (!c->f[i].ok && strcmp(c->f[i].id, "tma-window") == 0)
			return true;
	return false;
}

static void
gpu_notes(const struct cb_input *in, const struct gpu_block_check *c, struct buf *note)
{
	const struct gpu_block_rule *r = &in->grule;
	bool has_mma = r->mma && strcmp(r->mma, "mma") != 0;

	if (r->triton && c->legal)
		buf_addf(note, "Pallas pads a partial last block on read and drops the padding on "
			 "write; the padding's values are unspecified\n");
	if (r->triton && r->role != GPU_ROLE_NONE && r->bits != 64)
		buf_addf(note, "Pallas before April 2024 lowered dots through Triton's tl.dot, which "
			 "needed every dimension >= 16\n");
	if (!r->triton && r->role != GPU_ROLE_NONE && !has_mma)
		buf_addf(note, "%s has %s: no block-shape rule of it is recorded here\n",
			 in->gpu->name, r->mma ? "plgpu.mma (Ampere MMA)" : "no Mosaic GPU MMA");
	if (!r->triton && r->role != GPU_ROLE_NONE && has_mma && c->swizzle_suggested &&
	    c->swizzle >= 32)
		buf_addf(note, "judged with a %d-byte swizzle, what plgpu.find_swizzle picks for "
			 "this minor dimension: transforms=(plgpu.TilingTransform((8, %d)), "
			 "plgpu.SwizzleTransform(%d)) on the SMEM operand\n", c->swizzle,
			 c->swizzle * 8 / r->bits, c->swizzle);
	if (!r->triton && r->role != GPU_ROLE_NONE && has_mma && r->bits == 32)
		buf_addf(note, "float32 operands run as TF32 on %s: judge results against a "
			 "TF32-level tolerance\n", r->mma);
	if (!r->triton && !c->legal && r->swizzle == 0 && window_failed(c) && gpu_find_swizzle(
		    in->block.dims[in->block.rank - 1], r->bits) >= 32)
		buf_addf(note, "a swizzled, tiled SMEM block has other limits: try --swizzle %d "
			 "(plgpu.find_swizzle's choice for this minor dimension)\n",
			 gpu_find_swizzle(in->block.dims[in->block.rank - 1], r->bits));
	if (!r->triton && in->gpu->note)
		buf_addf(note, "%s: %s\n", in->gpu->name, in->gpu->note);
}

static void
gpu_print_human(const struct cb_input *in, const struct gpu_block_check *c)
{
	struct buf note = BUF_INIT, b = BUF_INIT;

	print_shape("block ", &in->block, "");
	printf(" %s for %s on %s: %s\n", in->dtype->name, in->backend, in->gpu->name,
	       c->legal ? "legal" : "illegal");
	for (size_t i = 0; i < c->nf; i++)
		printf("  %s\n", c->f[i].text);
	if (c->legal) {
		vmem_format_size(c->bytes, &b);
		printf("  one block: %s\n", b.data);
	}
	for (size_t i = 0; i < c->nprops; i++) {
		if (i == 0)
			printf("nearest legal block:\n");
		if (i == 1)
			printf("alternatives:\n");
		buf_reset(&b);
		gpu_changes(&in->block, &c->props[i], &b);
		print_shape("  ", &c->props[i], "  ");
		printf("%s\n", b.data);
	}
	if (!c->legal && !c->nprops)
		printf("no legal block near this one: change the dtype or the swizzle\n");
	gpu_notes(in, c, &note);
	calc_print_lines("note: ", &note);
	buf_release(&note);
	buf_release(&b);
}

static void
gpu_print_json(const struct cb_input *in, const struct gpu_block_check *c)
{
	struct json *root = json_new_object(), *arr;
	struct buf note = BUF_INIT;

	json_add_str(root, "chip", in->gpu->name);
	json_add_str(root, "backend", in->backend);
	json_add_str(root, "dtype", in->dtype->name);
	json_add_int(root, "bits", in->dtype->bits);
	json_shape(root, "block", &in->block);
	json_add_str(root, "mma", gpu_role_name(in->grule.role));
	if (c->swizzle)
		json_add_int(root, "swizzle", c->swizzle);
	else
		json_add_null(root, "swizzle");
	json_add_bool(root, "swizzle_suggested", c->swizzle_suggested);
	json_add_str(root, "verdict", c->legal ? "legal" : "illegal");
	json_add_bool(root, "legal", c->legal);
	arr = json_add_array(root, "checks");
	for (size_t i = 0; i < c->nf; i++) {
		struct json *o = json_push_object(arr);

		json_add_str(o, "id", c->f[i].id);
		json_add_bool(o, "ok", c->f[i].ok);
		json_add_str(o, "text", c->f[i].text);
	}
	json_add_int(root, "block_bytes", (long long)c->bytes);
	arr = json_add_array(root, "proposals");
	for (size_t i = 0; i < c->nprops; i++)
		json_shape(json_push_object(arr), "block", &c->props[i]);
	gpu_notes(in, c, &note);
	calc_json_lines(root, "notes", &note);
	json_print(root, stdout);
	json_free(root);
	buf_release(&note);
}

static int
check_gpu(const struct cb_input *in)
{
	struct gpu_block_check c;

	gpu_block_check(&in->block, &in->grule, &c);
	if (in->json)
		gpu_print_json(in, &c);
	else
		gpu_print_human(in, &c);
	return c.legal ? PT_EXIT_OK : PT_EXIT_FINDING;
}

/* ---- options ---- */

enum { OPT_ARRAY = 1, OPT_MEMORY, OPT_BACKEND, OPT_SWIZZLE, OPT_MMA };

struct cb_args {
	struct calc_target target;      /* --chip --block --dtype --json */
	const char *array, *memory, *backend, *swizzle, *mma;
};

static int
parse_args(int argc, char **argv, struct pt_ctx *ctx, struct cb_args *a)
{
	static const struct option opts[] = {
		CALC_LONGOPTS,
		{ "array", required_argument, NULL, OPT_ARRAY },
		{ "memory", required_argument, NULL, OPT_MEMORY },
		{ "backend", required_argument, NULL, OPT_BACKEND },
		{ "swizzle", required_argument, NULL, OPT_SWIZZLE },
		{ "mma", required_argument, NULL, OPT_MMA },
		CMD_GLOBAL_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	const struct cmd_entry *e = &cmd_check_block_entry;
	int ch, rc;

	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (ch) {
		case OPT_ARRAY: a->array = optarg; break;
		case OPT_MEMORY: a->memory = optarg; break;
		case OPT_BACKEND: a->backend = optarg; break;
		case OPT_SWIZZLE: a->swizzle = optarg; break;
		case OPT_MMA: a->mma = optarg; break;
		default:
			if ((rc = calc_option(e, ctx, &a->target, ch, optarg)) != 0)
				return rc;
		}
	}
	return calc_check_target(e, argc, optind, &a->target);
}

/* GPU: the backend, the element width, the swizzle and the MMA role. */
static int
resolve_gpu(const struct cb_args *a, struct cb_input *in)
{
	const struct cmd_entry *e = &cmd_check_block_entry;
	struct gpu_block_rule *r = &in->grule;
	char *end;
	int rc;

	if ((rc = calc_gpu_backend(e, "--backend on a GPU", in->gpu, a->backend,
				   &in->backend)) != 0)
		return rc;
	if (a->memory || a->array)
		return cmd_usage_error(e, "%s is for TPU blocks; GPU blocks need not divide the array",
				       a->memory ? "--memory" : "--array");
	memset(r, 0, sizeof(*r));
	r->triton = strcmp(in->backend, "triton") == 0;
	r->bits = in->dtype->bits;
	r->mma = in->gpu->mma;
	if (a->swizzle && r->triton)
		return cmd_usage_error(e, "--swizzle is a Mosaic GPU transform; Triton has none");
	if (a->swizzle && ((r->swizzle = (int)strtol(a->swizzle, &end, 10)) <= 0 || *end ||
			   r->swizzle > 1024))
		return cmd_usage_error(e, "--swizzle takes bytes: 32, 64 or 128, not '%s'", a->swizzle);
	if (a->mma && gpu_role_parse(a->mma, &r->role) < 0)
		return cmd_usage_error(e, "--mma takes lhs, rhs or acc, not '%s'", a->mma);
	return 0;
}


static int
resolve(const struct cb_args *a, const struct chiptab *t, struct cb_input *in)
{
	const struct cmd_entry *e = &cmd_check_block_entry;
	struct pt_err err = PT_ERR_INIT;

	memset(in, 0, sizeof(*in));
	in->tab = t;
	in->json = a->target.json;
	if (chiptab_want_target(t, a->target.chip, &in->chip, &in->gpu, &err) < 0)
		return cmd_not_found(calc_near(t, a->target.chip, false), "%s", err.msg);
	if (!(in->dtype = calc_want_dtype(t, a->target.dtype, in->gpu != NULL, &err)))
		return cmd_not_found(calc_near(t, a->target.dtype, true), "%s", err.msg);
	if (shape_parse(&in->block, a->target.block, false, &err) < 0)
		return cmd_usage_error(e, "bad --block '%s': %s", a->target.block, err.msg);
	if (in->gpu)
		return resolve_gpu(a, in);
	if (a->backend && strcmp(a->backend, "mosaic-tpu") != 0)
		return cmd_usage_error(e, "%s is a TPU: its only backend is mosaic-tpu, not '%s'",
				       in->chip->name, a->backend);
	if (a->swizzle || a->mma)
		return cmd_usage_error(e, "%s is for GPU blocks", a->swizzle ? "--swizzle" : "--mma");
	if (a->array && shape_parse(&in->array, a->array, false, &err) < 0)
		return cmd_usage_error(e, "bad --array '%s': %s", a->array, err.msg);
	in->have_array = a->array != NULL;
	if (a->memory && block_memory_parse(a->memory, &in->mem) < 0)
		return cmd_usage_error(e, "--memory takes vmem, smem or any, not '%s'", a->memory);
	if (in->have_array && in->array.rank != in->block.rank)
		return cmd_usage_error(e, "--block has %d dimensions but --array has %d",
				       in->block.rank, in->array.rank);
	if (in->mem == BLOCK_MEM_ANY && !in->have_array)
		return cmd_usage_error(e, "--memory any needs --array: the block must be the "
				       "whole array");
	block_rule_for_chip(&in->rule, in->chip, in->dtype->bits);
	return 0;
}

static int
cmd_check_block_run(int argc, char **argv, struct pt_ctx *ctx)
{
	struct cb_args a = { 0 };
	struct cb_input in;
	struct block_check bc;
	int rc;

	if ((rc = parse_args(argc, argv, ctx, &a)) != 0)
		return rc;
	if (!ctx->rules->chips)
		return calc_missing_table(ctx, "chip table (chips.yaml)");
	if ((rc = resolve(&a, ctx->rules->chips, &in)) != 0)
		return rc;
	if (in.gpu)
		return check_gpu(&in);
	block_check(&in.block, in.have_array ? &in.array : NULL, &in.rule, in.mem, &bc);
	if (in.json)
		print_json(&in, &bc);
	else
		print_human(&in, &bc);
	/* a risk is a finding: the agent that reads only the status must not take it as fine */
	return bc.legal && !bc.e2002_risk ? PT_EXIT_OK : PT_EXIT_FINDING;
}
