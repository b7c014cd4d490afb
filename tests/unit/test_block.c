/* SPDX-License-Identifier: MIT */
/*
 * Block shapes: parsing, the Pallas TPU legality rules against the shipped
 * chip table, the nearest legal proposals, the shrinking steps, and the
 * block values advice_derive() computes from a log's captures. Every
 * expected number is worked out by hand in the comment next to it.
 */
#include "test.h"
#include "chips_fixture.h"
#include "shape_text.h"

#include "pt/block.h"
#include "pt/advice.h"
#include "pt/classify.h"
#include "pt/rules.h"
#include "pt/vars.h"

static struct chiptab *tab;

static struct shape
S(const char *text)
{
	struct shape s = { 0 };
	struct pt_err err = PT_ERR_INIT;

	if (shape_parse(&s, text, true, &err) < 0)
		fprintf(stderr, "bad test shape '%s': %s\n", text, err.msg);
	return s;
}

static void
check(const char *chip, const char *dtype, const char *block, const char *array,
      enum block_memory mem, struct block_check *bc)
{
	struct block_rule r;
	struct shape b = S(block), a;

	block_rule_for_chip(&r, chiptab_find_chip(tab, chip), chiptab_find_dtype(tab, dtype)->bits);
	if (array)
		a = S(array);
	block_check(&b, array ? &a : NULL, &r, mem, bc);
}

static void
test_parse(void)
{
	struct shape s;
	struct pt_err err = PT_ERR_INIT;

	CHECK_STREQ(shape_text(&(struct shape){ 0 }), "()");
	s = S("256,512");
	CHECK(s.rank == 2 && s.dims[0] == 256 && s.dims[1] == 512);
	CHECK_STREQ(shape_text(&s), "(256, 512)");
	CHECK_STREQ(shape_text(&(struct shape){ .rank = 0, .ellipsis = true }), "(...)");
	s = S(" ( 256 , 512 ) ");
	CHECK_STREQ(shape_text(&s), "(256, 512)");
	s = S("[8, 128]");
	CHECK_STREQ(shape_text(&s), "(8, 128)");
	s = S("256x512");
	CHECK_STREQ(shape_text(&s), "(256, 512)");
	s = S("(512,)");
	CHECK(s.rank == 1 && s.dims[0] == 512);
	CHECK_STREQ(shape_text(&s), "(512,)");
	s = S("(None, 8, 128)");
	CHECK(s.rank == 3 && s.dims[0] == 1 && s.squeezed == 1);
	CHECK_STREQ(shape_text(&s), "(None, 8, 128)");
	s = S("(..., 8, 8192)");
	CHECK(s.ellipsis && s.rank == 2 && s.dims[1] == 8192);
	CHECK_STREQ(shape_text(&s), "(..., 8, 8192)");
	s = S("1 2 3");
	CHECK_STREQ(shape_text(&s), "(1, 2, 3)");

	CHECK_INTEQ(shape_parse(&s, "", false, &err), -1);
	CHECK_STREQ(err.msg, "'' has no dimensions");
	CHECK_INTEQ(shape_parse(&s, "0,128", false, &err), -1);
	CHECK_STREQ(err.msg, "dimension 1 is 0: dimensions must be positive");
	CHECK_INTEQ(err.status, PT_EXIT_USAGE);
	CHECK_INTEQ(shape_parse(&s, "8,-128", false, &err), -1);
	CHECK_STREQ(err.msg, "dimension 2 is -128: dimensions must be positive");
	CHECK_INTEQ(shape_parse(&s, "8,abc", false, &err), -1);
	CHECK_STREQ(err.msg, "'abc' is not a dimension");
	CHECK_INTEQ(shape_parse(&s, "8,,128", false, &err), -1);
	CHECK_STREQ(err.msg, "'' is not a dimension");
	CHECK_INTEQ(shape_parse(&s, "(..., 8)", false, &err), -1);
	CHECK_STREQ(err.msg, "'...' is not a dimension");
	CHECK_INTEQ(shape_parse(&s, "8, ..., 8", true, &err), -1);
	CHECK_INTEQ(shape_parse(&s, "1,2,3,4,5,6,7,8,9", false, &err), -1);
	CHECK_STREQ(err.msg, "more than 8 dimensions");
	CHECK_INTEQ(shape_parse(&s, "8,4294967296", false, &err), -1);
	CHECK_STREQ(err.msg, "dimension 2 is too large (at most 2147483648)");
	CHECK_INTEQ(shape_parse(&s, "8.5,128", false, &err), -1);
	CHECK_INTEQ(shape_parse(&s, NULL, false, &err), -1);
	/* garbage never crashes and never half-fills the shape */
	s = S("(4, 384)");
	CHECK_INTEQ(shape_parse(&s, "(4, 384", false, &err), -1);
	CHECK_STREQ(shape_text(&s), "(4, 384)");
}

static void
test_rank2(void)
{
	struct block_check bc;

	/* v6e bf16 (256, 512): 16-bit tile on gen 6 is 8; 256 = 32 x 8 and 512 = 4 x 128 */
	check("v6e", "bfloat16", "256,512", NULL, BLOCK_MEM_VMEM, &bc);
	CHECK(bc.legal && bc.problem == BLOCK_OK && bc.ndims == 2);
	CHECK(bc.dims[0].status == DIM_MULTIPLE && bc.dims[0].multiple == 8);
	CHECK(bc.dims[1].status == DIM_MULTIPLE && bc.dims[1].multiple == 128);
	CHECK(!bc.e2002_risk && bc.nprops == 0);     /* 256 is also a multiple of 16 */

	/* v6e bf16 (8, 512): legal with tile 8, but 8 is not a multiple of the 16 that the
	 * large-x16 layout uses: E2002 risk; the safe shape rounds 8 up to 16 */
	check("v6e", "bf16", "8,512", NULL, BLOCK_MEM_VMEM, &bc);
	CHECK(bc.legal && bc.e2002_risk);
	CHECK_INTEQ(bc.nprops, 1);
	CHECK_STREQ(shape_text(&bc.props[0].shape), "(16, 512)");

	/* 7x bf16 (8, 512): gen 7 tiles 16-bit as 16. The lowering's "multiple of 8"
	 * passes, Mosaic's tile does not: the E2002 case. Nearest: (16, 512) */
	check("7x", "bf16", "8,512", NULL, BLOCK_MEM_VMEM, &bc);
	CHECK(!bc.legal && bc.problem == BLOCK_DIMS);
	CHECK(bc.dims[0].status == DIM_BAD && bc.dims[0].lowering_ok && bc.dims[0].multiple == 16);
	CHECK_INTEQ(bc.nprops, 1);
	CHECK_STREQ(shape_text(&bc.props[0].shape), "(16, 512)");
	CHECK(bc.props[0].choice[0] == CHOICE_UP && bc.props[0].choice[1] == CHOICE_KEEP);

	/* v5e f32 (10, 200), no array: 10 -> up 16 / down 8; 200 -> up 256 / down 128.
	 * Primary: both up, (16, 256). The rest by how far their 2-D size is from
	 * 10 x 200 = 2000: (16, 128) and (8, 256) are 2048 (x1.024), (8, 128) is 1024 (x1.95) */
	check("v5e", "f32", "10,200", NULL, BLOCK_MEM_VMEM, &bc);
	CHECK(!bc.legal && !bc.dims[0].lowering_ok && !bc.dims[1].lowering_ok);
	CHECK_INTEQ(bc.nprops, 4);
	CHECK_STREQ(shape_text(&bc.props[0].shape), "(16, 256)");
	CHECK_STREQ(shape_text(&bc.props[1].shape), "(16, 128)");
	CHECK_STREQ(shape_text(&bc.props[2].shape), "(8, 256)");
	CHECK_STREQ(shape_text(&bc.props[3].shape), "(8, 128)");

	/* the same with array (12, 200): 16 >= 12, so the whole dimension 12 is the
	 * round-up; 200 equals the array's minor dim and is legal as it is */
	check("v5e", "f32", "10,200", "12,200", BLOCK_MEM_VMEM, &bc);
	CHECK(!bc.legal && bc.dims[1].status == DIM_FULL && bc.dims[0].full == 12);
	CHECK_INTEQ(bc.nprops, 2);
	CHECK_STREQ(shape_text(&bc.props[0].shape), "(12, 200)");
	CHECK(bc.props[0].choice[0] == CHOICE_FULL);
	CHECK_STREQ(shape_text(&bc.props[1].shape), "(8, 200)");

	/* equal to the array's dims is legal whatever the sizes */
	check("v5e", "f32", "3,1000", "3,1000", BLOCK_MEM_VMEM, &bc);
	CHECK(bc.legal && bc.dims[0].status == DIM_FULL && bc.dims[1].status == DIM_FULL);

	/* int8 on v5e tiles 32: (16, 128) is illegal though 16 passes the lowering */
	check("v5e", "int8", "16,128", NULL, BLOCK_MEM_VMEM, &bc);
	CHECK(!bc.legal && bc.dims[0].lowering_ok && bc.nprops == 1);
	CHECK_STREQ(shape_text(&bc.props[0].shape), "(32, 128)");
	/* int4 on v5e tiles 64; 8t f32 tiles 16 (16 sublanes) */
	check("v5e", "int4", "32,128", NULL, BLOCK_MEM_VMEM, &bc);
	CHECK(!bc.legal && bc.nprops == 1);
	CHECK_STREQ(shape_text(&bc.props[0].shape), "(64, 128)");
	check("8t", "f32", "8,128", NULL, BLOCK_MEM_VMEM, &bc);
	CHECK(!bc.legal && bc.dims[0].multiple == 16);
	CHECK_STREQ(shape_text(&bc.props[0].shape), "(16, 128)");
	/* 8t bf16 tiles 32: 48 -> up 64, down 32 */
	check("8t", "bf16", "48,128", NULL, BLOCK_MEM_VMEM, &bc);
	CHECK(!bc.legal && bc.nprops == 2);
	CHECK_STREQ(shape_text(&bc.props[0].shape), "(64, 128)");
	CHECK_STREQ(shape_text(&bc.props[1].shape), "(32, 128)");

	/* leading dims are free; a squeezed second-minor counts as 1 */
	check("v5e", "f32", "3,8,128", NULL, BLOCK_MEM_VMEM, &bc);
	CHECK(bc.legal);
	check("v5e", "f32", "None,None,128", "4,1,128", BLOCK_MEM_VMEM, &bc);
	CHECK(bc.legal && bc.dims[0].status == DIM_FULL);
	check("v5e", "f32", "None,None,128", "4,16,128", BLOCK_MEM_VMEM, &bc);
	CHECK(!bc.legal && bc.nprops >= 1);
	CHECK_STREQ(shape_text(&bc.props[0].shape), "(None, 8, 128)");
}

static void
test_rank1_and_spaces(void)
{
	struct block_check bc;

	/* rank 1 f32 on v5e: multiple of 8 x 128 = 1024, or a power of two >= 128 */
	check("v5e", "f32", "1024", NULL, BLOCK_MEM_VMEM, &bc);
	CHECK(bc.legal && bc.ndims == 1 && bc.dims[0].status == DIM_MULTIPLE);
	check("v5e", "f32", "256", NULL, BLOCK_MEM_VMEM, &bc);
	CHECK(bc.legal && bc.dims[0].status == DIM_POW2 && bc.dims[0].pow2_min == 128);
	/* 100: next power of two 128 is nearer than the multiple 1024 */
	check("v5e", "f32", "100", NULL, BLOCK_MEM_VMEM, &bc);
	CHECK(!bc.legal && bc.nprops == 2);
	CHECK_STREQ(shape_text(&bc.props[0].shape), "(128,)");
	CHECK(bc.props[0].choice[0] == CHOICE_POW2_UP);
	CHECK_STREQ(shape_text(&bc.props[1].shape), "(1024,)");
	/* bf16: the power of two must be >= 128 x 32 / 16 = 256 */
	check("v5e", "bf16", "128", NULL, BLOCK_MEM_VMEM, &bc);
	CHECK(!bc.legal && bc.dims[0].pow2_min == 256);
	CHECK_STREQ(shape_text(&bc.props[0].shape), "(256,)");
	/* int8: >= 512; int4: >= 1024 */
	check("v5e", "int8", "256", NULL, BLOCK_MEM_VMEM, &bc);
	CHECK(!bc.legal && bc.dims[0].pow2_min == 512);
	check("v5e", "int4", "512", NULL, BLOCK_MEM_VMEM, &bc);
	CHECK(!bc.legal && bc.dims[0].pow2_min == 1024);
	/* 3000 f32: up to 3072 (3 x 1024) first; then 4096 (x1.37) before 2048 (x1.46) */
	check("v5e", "f32", "3000", NULL, BLOCK_MEM_VMEM, &bc);
	CHECK_INTEQ(bc.nprops, 3);
	CHECK_STREQ(shape_text(&bc.props[0].shape), "(3072,)");
	CHECK_STREQ(shape_text(&bc.props[1].shape), "(4096,)");
	CHECK_STREQ(shape_text(&bc.props[2].shape), "(2048,)");
	/* 8t has 16 sublanes: the multiple is 2048; equal to the array is always fine */
	check("8t", "f32", "3000", NULL, BLOCK_MEM_VMEM, &bc);
	CHECK(bc.dims[0].multiple == 2048);
	check("8t", "f32", "3000", "3000", BLOCK_MEM_VMEM, &bc);
	CHECK(bc.legal && bc.dims[0].status == DIM_FULL);

	/* ANY/HBM: the whole array only */
	check("v5e", "f32", "8,128", "1024,1024", BLOCK_MEM_ANY, &bc);
	CHECK(!bc.legal && bc.problem == BLOCK_ANY_NOT_WHOLE && bc.nprops == 1);
	CHECK_STREQ(shape_text(&bc.props[0].shape), "(1024, 1024)");
	check("v5e", "f32", "1024,1024", "1024,1024", BLOCK_MEM_ANY, &bc);
	CHECK(bc.legal);
	check("v5e", "f32", "8,128", NULL, BLOCK_MEM_ANY, &bc);
	CHECK(!bc.legal && bc.problem == BLOCK_ANY_NO_ARRAY);
	/* SMEM: a whole-array block is exempt; a window follows the VMEM rules */
	check("v5e", "int32", "3", "3", BLOCK_MEM_SMEM, &bc);
	CHECK(bc.legal && bc.smem_exempt);
	check("v5e", "int32", "3", "100", BLOCK_MEM_SMEM, &bc);
	CHECK(!bc.legal && !bc.smem_exempt);

	/* shapes the rule cannot judge */
	check("v5e", "f32", "8,128", "2,8,128", BLOCK_MEM_VMEM, &bc);
	CHECK(!bc.legal && bc.problem == BLOCK_RANK_MISMATCH);
	check("v5e", "f32", "(..., 128)", NULL, BLOCK_MEM_VMEM, &bc);
	CHECK(!bc.legal && bc.problem == BLOCK_ELIDED);
	block_check(&(struct shape){ 0 }, NULL, &bc.rule, BLOCK_MEM_VMEM, &bc);
	CHECK(!bc.legal && bc.problem == BLOCK_RANK0);
}

static void
test_halving(void)
{
	struct shape s = S("1,1"), in;

	/* the last dim halves keeping a multiple of 128; 1000 -> 500 -> 384 */
	in = S("512,1024");
	CHECK(block_halve_minor(&in, 128, &s));
	CHECK_STREQ(shape_text(&s), "(512, 512)");
	in = S("512,1000");
	CHECK(block_halve_minor(&in, 128, &s));
	CHECK_STREQ(shape_text(&s), "(512, 384)");
	in = S("512,128");
	CHECK(!block_halve_minor(&in, 128, &s));
	CHECK_STREQ(shape_text(&s), "(512, 384)");          /* untouched */
	/* the second-minor halves keeping its tile multiple */
	in = S("512,1024");
	CHECK(block_halve_second(&in, 8, &s));
	CHECK_STREQ(shape_text(&s), "(256, 1024)");
	in = S("24,128");                          /* 12 is not a multiple of 16 and 0 < 16 */
	CHECK(!block_halve_second(&in, 16, &s));
	in = S("8,128");
	CHECK(!block_halve_second(&in, 8, &s));
	in = S("1024");
	CHECK(!block_halve_second(&in, 8, &s));

	/* padding: f32[128, 3] -> (128, 128); bf16 (8, 8192) on 7x -> (16, 8192) */
	in = S("128,3");
	block_padded(&in, 8, 128, 128, &s);
	CHECK_STREQ(shape_text(&s), "(128, 128)");
	in = S("4,8,8192");
	block_padded(&in, 16, 128, 128, &s);
	CHECK_STREQ(shape_text(&s), "(4, 16, 8192)");
	in = S("1000");
	block_padded(&in, 8, 128, 256, &s);        /* 1-D: up to the 1-D tile */
	CHECK_STREQ(shape_text(&s), "(1024,)");
}

/* Run advice_derive on name=value pairs; the caller releases vs. */
static void
advise(const struct ruleset *rs, struct vars *vs, const char *const *kv)
{
	for (; kv[0]; kv += 2)
		vars_set(vs, kv[0], kv[1], true);
	advice_derive(rs, vs);
}

static void
test_advice(void)
{
	struct ruleset rs;
	struct vars vs = VARS_INIT;

	memset(&rs, 0, sizeof(rs));
	rs.chips = tab;

	/* E2002 (OpenXLA error_2002): "Operand of shape (..., 256, 8192) has tiling
	 * (16, 128), but its block shape (..., 8, 8192) is not divisible ...". The
	 * log's tile wins: 8 -> 16. Halving 8192 keeps a multiple of 128: 4096;
	 * 16 cannot halve and stay a multiple of 16 */
	advise(&rs, &vs, (const char *const[]){ "block", "(..., 8, 8192)", "array",
		"(..., 256, 8192)", "tiling", "(16, 128)", NULL });
	CHECK_STREQ(vars_get(&vs, "block_ok"), "no");
	CHECK_STREQ(vars_get(&vs, "block_legal"), "(..., 16, 8192)");
	CHECK_STREQ(vars_get(&vs, "block_halved_minor"), "(..., 16, 4096)");
	CHECK(vars_get(&vs, "block_halved_second") == NULL);
	CHECK_STREQ(vars_get(&vs, "sublane_tile"), "16");
	CHECK_STREQ(vars_get(&vs, "tile"), "(16, 128)");
	vars_release(&vs);

	/* The lowering's own message, no chip or dtype known: 8 x 128 judges the
	 * block, and proposals take what 32- and 16-bit values both take, 16
	 * rows, so that none is an E2002 risk for bf16. (4, 384) in (1024,
	 * 1000): 4 -> 16; 384 is 3 x 128. Halved: 384 -> 192 -> 128 */
	advise(&rs, &vs, (const char *const[]){ "block", "(4, 384)", "array", "(1024, 1000)",
		NULL });
	CHECK_STREQ(vars_get(&vs, "block_legal"), "(16, 384)");
	CHECK_STREQ(vars_get(&vs, "block_halved_minor"), "(16, 128)");
	CHECK(vars_get(&vs, "block_halved_second") == NULL);
	CHECK(vars_get(&vs, "sublane_tile") == NULL);   /* not known without chip and dtype */
	vars_release(&vs);

	/* chip + dtype: bf16 on TPU7x tiles 16; (8, 1024) -> (16, 1024), one block
	 * buffer is 16 x 1024 x 2 = 32768 bytes */
	advise(&rs, &vs, (const char *const[]){ "block", "(8, 1024)", "dtype", "bf16",
		"chip", "TPU7x", NULL });
	CHECK_STREQ(vars_get(&vs, "chip_name"), "7x");
	CHECK_STREQ(vars_get(&vs, "dtype_name"), "bfloat16");
	CHECK_STREQ(vars_get(&vs, "block_legal"), "(16, 1024)");
	CHECK_STREQ(vars_get(&vs, "block_halved_minor"), "(16, 512)");
	CHECK_STREQ(vars_get(&vs, "block_bytes"), "32768");
	CHECK_STREQ(vars_get(&vs, "block_bytes_human"), "32 KiB");
	vars_release(&vs);

	/* a legal f32 block (512, 512) on v5e: both halvings; 1 MiB per buffer */
	advise(&rs, &vs, (const char *const[]){ "block", "(512, 512)", "dtype", "float32",
		"chip", "v5e", NULL });
	CHECK_STREQ(vars_get(&vs, "block_ok"), "yes");
	CHECK(vars_get(&vs, "block_legal") == NULL);
	CHECK_STREQ(vars_get(&vs, "block_halved_minor"), "(512, 256)");
	CHECK_STREQ(vars_get(&vs, "block_halved_second"), "(256, 512)");
	CHECK_STREQ(vars_get(&vs, "block_bytes_human"), "1 MiB");
	vars_release(&vs);

	/* garbage in, nothing out, no crash; and no chip table at all */
	advise(&rs, &vs, (const char *const[]){ "block", "(a, b)", "array", "((((", "tiling",
		"(0, 0)", "dtype", "float64", "chip", "TPU v99", NULL });
	CHECK(vars_get(&vs, "block_legal") == NULL && vars_get(&vs, "chip_name") == NULL);
	CHECK(vars_get(&vs, "dtype_name") == NULL);
	vars_release(&vs);
	advise(NULL, &vs, (const char *const[]){ "block", "(4, 384)", "chip", "v5e", NULL });
	CHECK_STREQ(vars_get(&vs, "block_legal"), "(16, 384)");
	vars_release(&vs);
}

int
main(void)
{
	tab = load_shipped_chips();
	test_parse();
	test_rank2();
	test_rank1_and_spaces();
	test_halving();
	test_advice();
	chiptab_free(tab);
	return TEST_DONE();
}
