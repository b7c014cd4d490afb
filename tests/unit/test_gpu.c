/* SPDX-License-Identifier: MIT */
/*
 * The GPU calculators: the GPU table (rules/gpu-chips.yaml), block legality
 * on Pallas Triton and Mosaic GPU with the nearest legal shapes, the
 * shared-memory footprint with its stage and block search, and the values
 * gpu_advice_derive() fills for the GPU rungs. Every expected number is
 * worked out by hand in the comment next to it.
 */
#include <stdlib.h>

#include "test.h"
#include "shape_text.h"

#include "pt/advice.h"
#include "pt/buf.h"
#include "pt/classify.h"
#include "pt/gpu_block.h"
#include "pt/gpus.h"
#include "pt/rules.h"
#include "pt/smem.h"
#include "pt/util.h"
#include "pt/vars.h"
#include "pt/ytree.h"

#ifndef PT_SRCDIR
#define PT_SRCDIR "."
#endif

static struct chiptab *tab;
static char f32_name[] = "float32", bf16_name[] = "bfloat16";
static struct dtype f32 = { .name = f32_name, .bits = 32 };
static struct dtype bf16 = { .name = bf16_name, .bits = 16 };

static struct chiptab *
load_gpus(void)
{
	struct buf b = BUF_INIT;
	struct pt_err err = PT_ERR_INIT;
	struct diag d = DIAG_INIT;
	struct ydoc doc = YDOC_INIT;
	struct chiptab *t = NULL;

	if (util_read_file(PT_SRCDIR "/rules/gpu-chips.yaml", &b, 1 << 20, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		exit(2);
	}
	if (ydoc_parse(&doc, b.data, b.len, "rules/gpu-chips.yaml", &d) == 0 && doc.root)
		gputab_parse(&t, ynode_get(doc.root, "gpus"), "rules/gpu-chips.yaml", &d);
	if (d.nerrors || !t) {
		diag_print(&d, stderr);
		exit(2);
	}
	ydoc_release(&doc);
	diag_release(&d);
	buf_release(&b);
	return t;
}

static struct shape
shp(const char *text)
{
	struct shape s;

	if (shape_parse(&s, text, false, NULL) < 0)
		memset(&s, 0, sizeof(s));
	return s;
}

static const char *
name_of(const struct gpu *g)
{
	return g ? g->name : "(none)";
}

static void
test_table(void)
{
	const struct gpu *h100 = chiptab_find_gpu(tab, "h100");

	/* device kinds as JAX prints them, matched by prefix at word boundaries */
	CHECK_STREQ(name_of(chiptab_find_gpu(tab, "NVIDIA H100 80GB HBM3")), "h100");
	CHECK_STREQ(name_of(chiptab_find_gpu(tab, "NVIDIA A100-SXM4-80GB")), "a100");
	CHECK_STREQ(name_of(chiptab_find_gpu(tab, "NVIDIA GH200 480GB")), "h200");
	CHECK_STREQ(name_of(chiptab_find_gpu(tab, "gfx942:sramecc+:xnack-")), "mi300x");
	CHECK_STREQ(name_of(chiptab_find_gpu(tab, "HOPPER")), "h100");
	CHECK(chiptab_find_gpu(tab, "NVIDIA GeForce RTX 4090") == NULL);
	CHECK(chiptab_find_gpu(tab, "NVIDIA H1000") == NULL);
	/* 227 KiB = 232448, 163 KiB = 166912, 64 KiB LDS on MI300X */
	CHECK_INTEQ(h100->smem_block_optin, 232448);
	CHECK_INTEQ(chiptab_find_gpu(tab, "a100")->smem_block_optin, 166912);
	CHECK_INTEQ(chiptab_find_gpu(tab, "mi300x")->smem_block_optin, 65536);
	CHECK_STREQ(h100->mma, "wgmma");
	CHECK_INTEQ(chiptab_find_gpu(tab, "b200")->tmem_columns, 512);
	CHECK(gpu_runs(h100, "mosaic-gpu") && gpu_runs(h100, "triton"));
	CHECK(!gpu_runs(chiptab_find_gpu(tab, "mi300x"), "mosaic-gpu"));
}

static void
test_find_swizzle(void)
{
	CHECK_INTEQ(gpu_find_swizzle(64, 16), 128);     /* 128 bytes */
	CHECK_INTEQ(gpu_find_swizzle(96, 16), 64);      /* 192 bytes: 64 divides, 128 not */
	CHECK_INTEQ(gpu_find_swizzle(48, 32), 64);      /* 192 bytes */
	CHECK_INTEQ(gpu_find_swizzle(40, 16), 16);      /* 80 bytes: only 16 divides */
	CHECK_INTEQ(gpu_find_swizzle(20, 16), 0);       /* 40 bytes: none */
}

static void
check_block(const char *block, bool triton, int bits, int swizzle, enum gpu_role role,
	    const char *mma, bool legal, const char *first, struct gpu_block_check *c)
{
	struct gpu_block_rule r = { triton, bits, swizzle, role, mma };
	struct shape s = shp(block);

	gpu_block_check(&s, &r, c);
	CHECK(c->legal == legal);
	if (first) {
		CHECK(c->nprops > 0);
		CHECK_STREQ(c->nprops ? shape_text(&c->props[0]) : "(none)", first);
	} else {
		CHECK_INTEQ(c->nprops, 0);
	}
}

static void
test_triton_blocks(void)
{
	struct gpu_block_check c;

	/* 100 is no power of two: up to 128 first, then down to 64 */
	check_block("64,100", true, 32, 0, GPU_ROLE_NONE, "mma", false, "(64, 128)", &c);
	CHECK(c.nprops >= 2 && strcmp(shape_text(&c.props[1]), "(64, 64)") == 0);
	/* A100 and H100 alike: (128, 64) bf16 = 8192 elements, 16384 bytes */
	check_block("128,64", true, 16, 0, GPU_ROLE_NONE, "wgmma", true, NULL, &c);
	CHECK_INTEQ(c.bytes, 16384);
	CHECK_INTEQ(c.elements, 8192);
	/* rank 1: 3 -> 4 up */
	check_block("3", true, 32, 0, GPU_ROLE_NONE, NULL, false, "(4,)", &c);
	/* float64 dot lhs (M, K) = (8, 32): M >= 16 fails; (16, 32) is the nearest */
	check_block("8,32", true, 64, 0, GPU_ROLE_LHS, "mma", false, "(16, 32)", &c);
	/* a 3-D dot operand */
	check_block("2,64,64", true, 16, 0, GPU_ROLE_LHS, "wgmma", false, NULL, &c);
}

static void
test_mosaic_blocks(void)
{
	struct gpu_block_check c;

	/* H100 WGMMA lhs (M, K) = (128, 64) bf16, 128-byte swizzle: tile 128*8/16 = 64,
	 * M % 64 == 0, K % 64 == 0, 16384 bytes = 128 x 128 */
	check_block("128,64", false, 16, 128, GPU_ROLE_LHS, "wgmma", true, NULL, &c);
	/* (64, 300) f32: 1200 bytes is 16-byte aligned but 300 > 256 (TMA box); up (304)
	 * is over 256 too, so the nearest is down: (64, 256) */
	check_block("64,300", false, 32, 0, GPU_ROLE_NONE, "wgmma", false, "(64, 256)", &c);
	/* A100 (56, 20) bf16: 40 bytes minor; up to 24 = 48 bytes, block 56*24*2 = 2688 =
	 * 21 x 128 bytes: legal */
	check_block("56,20", false, 16, 0, GPU_ROLE_NONE, "mma", false, "(56, 24)", &c);
	/* H100 rhs (K, N) = (64, 320) bf16, swizzle 128: N 320 > 256 -> (64, 256) */
	check_block("64,320", false, 16, 128, GPU_ROLE_RHS, "wgmma", false, "(64, 256)", &c);
	/* B200 tcgen05 lhs M = 96: only 64 or 128 -> up to 128 */
	check_block("96,64", false, 16, 0, GPU_ROLE_LHS, "tcgen05", false, "(128, 64)", &c);
	CHECK(c.swizzle_suggested && c.swizzle == 128);
	/* swizzle 48 is no swizzle: nothing near is legal */
	check_block("64,64", false, 16, 48, GPU_ROLE_NONE, "wgmma", false, NULL, &c);
	/* 16 bf16 = 32 bytes per row, 8 rows = 256 bytes: a multiple of 128 */
	check_block("8,16", false, 16, 0, GPU_ROLE_NONE, "wgmma", true, NULL, &c);
	/* (4, 8) bf16 = 64 bytes: under 128; (4, 16) and (8, 8) are both 128 bytes and
	 * as near, and the tie goes to the smaller leading dimension */
	check_block("4,8", false, 16, 0, GPU_ROLE_NONE, "wgmma", false, "(4, 16)", &c);
}

static void
spec_init(struct smem_spec *s, bool triton, const char *block, const struct dtype *dt,
	  int n_in, int n_out, int stages)
{
	memset(s, 0, sizeof(*s));
	s->triton = triton;
	s->block = shp(block);
	s->dtype = dt;
	s->n_in = n_in;
	s->n_out = n_out;
	s->stages = stages;
}

static void
test_smem(void)
{
	struct smem_spec s;
	struct smem_usage u;
	struct smem_fit *f = calloc(1, sizeof(*f));

	/* Triton A100 matmul: (128, 64) + (64, 128) bf16, 3 stages:
	 * (16384 + 16384) x 3 = 98304 <= 166912 */
	spec_init(&s, true, "128,64", &bf16, 1, 1, 3);
	s.other[s.nother].shape = shp("64,128");
	s.other[s.nother++].dtype = &bf16;
	CHECK(smem_compute(&s, &u, NULL) == 0);
	CHECK_INTEQ(u.total, 98304);
	CHECK_INTEQ(u.staged, 1);               /* Triton stores outputs from registers */
	/* jax#20008: (512, 1024) + (1024, 512) f32, no loop: 2 x 2 MiB = 4194304 */
	spec_init(&s, true, "512,1024", &f32, 1, 0, 1);
	s.other[s.nother].shape = shp("1024,512");
	s.other[s.nother++].dtype = &f32;
	CHECK(smem_compute(&s, &u, NULL) == 0);
	CHECK_INTEQ(u.total, 4194304);
	/* Triton does not round: (10, 10) f32 x 2 stages = 800 */
	spec_init(&s, true, "10,10", &f32, 1, 0, 2);
	CHECK(smem_compute(&s, &u, NULL) == 0);
	CHECK_INTEQ(u.total, 800);
	/* Mosaic GPU rounds each allocation to 1 KiB: 400 bytes -> 1024; 4 barriers -> 1024 */
	spec_init(&s, false, "10,10", &f32, 1, 0, 1);
	s.barriers = 4;
	CHECK(smem_compute(&s, &u, NULL) == 0);
	CHECK_INTEQ(u.total, 2048);
	/* Mosaic GPU H100: (128, 128) bf16 = 32768, in 2 + out 1, 3 steps:
	 * 3 x 3 x 32768 = 294912 > 232448; 2 steps: 196608 fits; at 3 steps the minor
	 * bisects to 96: 128 x 96 x 2 x 3 = 73728 per operand, x 3 = 221184 */
	spec_init(&s, false, "128,128", &bf16, 2, 1, 3);
	CHECK(smem_compute(&s, &u, NULL) == 0);
	CHECK_INTEQ(u.total, 294912);
	CHECK(smem_fit(&s, 232448, f, NULL) == 0);
	CHECK_INTEQ(f->stages_fit, 2);
	CHECK_INTEQ(f->stages_total, 196608);
	CHECK(f->found);
	CHECK_STREQ(shape_text(&f->block), "(128, 96)");
	CHECK_INTEQ(f->total, 221184);
	/* Triton A100: (128, 128) + (128, 128) bf16, 3 stages = 196608 > 166912; 2 stages
	 * = 131072 fits; the other operand alone is 98304, the block halves to (128, 64):
	 * 49152 + 98304 = 147456 */
	spec_init(&s, true, "128,128", &bf16, 1, 1, 3);
	s.other[s.nother].shape = shp("128,128");
	s.other[s.nother++].dtype = &bf16;
	CHECK(smem_fit(&s, 166912, f, NULL) == 0);
	CHECK_INTEQ(f->stages_fit, 2);
	CHECK(f->found);
	CHECK_STREQ(shape_text(&f->block), "(128, 64)");
	CHECK_INTEQ(f->total, 147456);
	free(f);
}

static void
test_advice(void)
{
	struct ruleset *rs = ruleset_new();
	struct vars vs = VARS_INIT;

	rs->chips = tab;
	/* Triton on H100: 294912 used, 232448 available; 3 stages: 294912 / 3 x 2 = 196608 fits */
	vars_set(&vs, "device_kind", "NVIDIA H100 80GB HBM3", false);
	vars_set(&vs, "platform", "gpu", false);
	vars_set(&vs, "backend", "triton", false);
	vars_set(&vs, "smem_used", "294912", false);
	vars_set(&vs, "smem_limit", "232448", false);
	vars_set(&vs, "gpu_block", "(48, 1000)", false);
	gpu_advice_derive(rs, &vs);
	CHECK_STREQ(vars_get(&vs, "chip_name"), "h100");
	CHECK_STREQ(vars_get(&vs, "smem_over"), "62464");
	CHECK_STREQ(vars_get(&vs, "num_stages_fit"), "2");
	CHECK_STREQ(vars_get(&vs, "smem_halvings"), "1");
	CHECK_STREQ(vars_get(&vs, "gpu_block_legal"), "(64, 1024)");
	vars_release(&vs);
	/* MI300X: a GPU kernel with no backend named runs Triton, the only one there;
	 * num_stages defaults to 1 on ROCm, so no fewer stages fit */
	vars_set(&vs, "device_kind", "gfx942", false);
	vars_set(&vs, "platform", "gpu", false);
	vars_set(&vs, "smem_used", "73728", false);
	vars_set(&vs, "smem_limit", "65536", false);
	gpu_advice_derive(rs, &vs);
	CHECK_STREQ(vars_get(&vs, "chip_name"), "mi300x");
	CHECK_STREQ(vars_get(&vs, "backend"), "triton");
	CHECK(vars_get(&vs, "num_stages_fit") == NULL);
	vars_release(&vs);
	/* a ROCm log with no GPU kernel in sight gets no backend */
	vars_set(&vs, "device_kind", "gfx942", false);
	gpu_advice_derive(rs, &vs);
	CHECK(vars_get(&vs, "backend") == NULL);
	CHECK_STREQ(vars_get(&vs, "platform"), "gpu");
	vars_release(&vs);
	/* no limit in the log: the table's opt-in limit, and it says so */
	vars_set(&vs, "chip", "a100", false);
	vars_set(&vs, "smem_used", "203136", false);
	gpu_advice_derive(rs, &vs);
	CHECK_STREQ(vars_get(&vs, "smem_limit"), "166912");
	CHECK_STREQ(vars_get(&vs, "smem_limit_table"), "yes");
	vars_release(&vs);
	rs->chips = NULL;
	ruleset_free(rs);
}

int
main(void)
{
	tab = load_gpus();
	test_table();
	test_find_swizzle();
	test_triton_blocks();
	test_mosaic_blocks();
	test_smem();
	test_advice();
	chiptab_free(tab);
	return TEST_DONE();
}
