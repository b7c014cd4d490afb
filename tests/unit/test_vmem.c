/* SPDX-License-Identifier: MIT */
/*
 * The VMEM calculator: sizes as logs print them, the padded working set,
 * the budget, the bisection in the method's shrinking order, the
 * vmem_limit_bytes proposal, and the capacity values advice_derive()
 * computes from "Used X of Y" captures. Every expected number is worked out
 * by hand in the comment next to it (1 MiB = 1,048,576 bytes).
 */
#include "test.h"
#include "chips_fixture.h"
#include "shape_text.h"

#include "pt/advice.h"
#include "pt/classify.h"
#include "pt/rules.h"
#include "pt/vars.h"
#include "pt/vmem.h"

static struct chiptab *tab;

static unsigned long long
size_of(const char *s)
{
	unsigned long long v = 0;

	return vmem_parse_size(s, &v) == 0 ? v : 1234567;
}

static const char *
human(unsigned long long v)
{
	static char out[64];
	struct buf b = BUF_INIT;

	vmem_format_size(v, &b);
	snprintf(out, sizeof(out), "%s", b.data);
	buf_release(&b);
	return out;
}

static void
test_sizes(void)
{
	unsigned long long v;

	CHECK_INTEQ(size_of("33554432"), 33554432);
	CHECK_INTEQ(size_of("32M"), 33554432);
	CHECK_INTEQ(size_of("32MiB"), 33554432);
	CHECK_INTEQ(size_of("32 mb"), 33554432);
	CHECK_INTEQ(size_of("512K"), 524288);
	CHECK_INTEQ(size_of("1.5G"), 1610612736);          /* 1.5 x 2^30 */
	CHECK_INTEQ(size_of("32.42M"), 33994834);          /* 32.42 x 1048576 = 33994833.9 */
	CHECK_INTEQ(size_of("37.22M"), 39027999);          /* 39027998.72 rounds up */
	CHECK_INTEQ(size_of("100 B"), 100);
	CHECK_INTEQ(size_of(".5K"), 512);
	CHECK_INTEQ(vmem_parse_size("-5M", &v), -1);
	CHECK_INTEQ(vmem_parse_size("", &v), -1);
	CHECK_INTEQ(vmem_parse_size("M", &v), -1);
	CHECK_INTEQ(vmem_parse_size("1.2.3M", &v), -1);
	CHECK_INTEQ(vmem_parse_size("12Q", &v), -1);
	CHECK_INTEQ(vmem_parse_size("inf", &v), -1);
	CHECK_INTEQ(vmem_parse_size("0x20", &v), -1);
	CHECK_INTEQ(vmem_parse_size("99999999T", &v), -1);
	CHECK_INTEQ(vmem_parse_size(NULL, &v), -1);

	CHECK_STREQ(human(7340032), "7 MiB");
	CHECK_STREQ(human(33480704), "31.93 MiB");           /* 32 MiB - 72 KiB */
	CHECK_STREQ(human(73728), "72 KiB");
	CHECK_STREQ(human(1536), "1.50 KiB");
	CHECK_STREQ(human(1000), "1000 B");
	CHECK_STREQ(human(0), "0 B");
	CHECK_STREQ(human(1610612736), "1.50 GiB");
	CHECK_STREQ(human(134217728), "128 MiB");
}

static void
spec_init(struct vmem_spec *s, const char *chip, const char *block, const char *dtype,
	  int n_in, int n_out, int buffers)
{
	memset(s, 0, sizeof(*s));
	s->chip = chiptab_find_chip(tab, chip);
	shape_parse(&s->block, block, false, NULL);
	s->dtype = chiptab_find_dtype(tab, dtype);
	s->n_in = n_in;
	s->n_out = n_out;
	s->buffers = buffers;
}

static void
add_scratch(struct vmem_spec *s, const char *shape, const char *dtype)
{
	shape_parse(&s->scratch[s->nscratch].shape, shape, false, NULL);
	s->scratch[s->nscratch++].dtype = chiptab_find_dtype(tab, dtype);
}

static void
test_working_set(void)
{
	struct vmem_spec s;
	struct vmem_usage u;
	struct pt_err err = PT_ERR_INIT;

	/* The worked example (tpu-facts.md 2.4): f32 matmul blocks 512 x 512,
	 * double-buffered, two inputs and one output, a 512 x 512 f32 accumulator.
	 * One block: 512 x 512 x 4 = 1,048,576 B = 1 MiB, no padding (512 is a
	 * multiple of 8 and of 128). Blocks: 1 MiB x 2 buffers x 3 operands = 6 MiB.
	 * Scratch: 1 MiB, once. Total 7 MiB = 7,340,032 B. */
	spec_init(&s, "v5p", "512,512", "float32", 2, 1, 2);
	add_scratch(&s, "512,512", "float32");
	CHECK_INTEQ(vmem_compute(&s, &u, &err), 0);
	CHECK_INTEQ(u.block.bytes, 1048576);
	CHECK_INTEQ(u.block.unpadded, 1048576);
	CHECK_INTEQ(u.block.copies, 6);
	CHECK_INTEQ(u.blocks_bytes, 6 * 1048576);
	CHECK_INTEQ(u.scratch_bytes, 1048576);
	CHECK_INTEQ(u.total, 7340032);

	/* The same with bf16 blocks: 512 x 512 x 2 = 512 KiB; x 6 = 3 MiB; plus the
	 * f32 accumulator 1 MiB = 4 MiB = 4,194,304 B */
	spec_init(&s, "v5p", "512,512", "bf16", 2, 1, 2);
	add_scratch(&s, "512,512", "f32");
	CHECK_INTEQ(vmem_compute(&s, &u, &err), 0);
	CHECK_INTEQ(u.total, 4194304);

	/* Padding, from a real log (pytorch/xla #7942): f32[128, 3] occupies 64.0K,
	 * unpadded 1.5K: 3 pads to 128 lanes, 128 x 128 x 4 = 65,536 vs 128 x 3 x 4 = 1,536 */
	spec_init(&s, "v5e", "128,3", "f32", 1, 0, 1);
	CHECK_INTEQ(vmem_compute(&s, &u, &err), 0);
	CHECK_INTEQ(u.block.bytes, 65536);
	CHECK_INTEQ(u.block.unpadded, 1536);
	CHECK_STREQ(shape_text(&u.block.padded), "(128, 128)");

	/* bf16 (8, 8192) on 7x: tile 16, padded (16, 8192) x 2 B = 262,144 (unpadded 131,072) */
	spec_init(&s, "7x", "8,8192", "bf16", 1, 0, 1);
	CHECK_INTEQ(vmem_compute(&s, &u, &err), 0);
	CHECK_INTEQ(u.block.tile, 16);
	CHECK_INTEQ(u.block.bytes, 262144);
	CHECK_INTEQ(u.block.unpadded, 131072);
	/* int8 (40, 200) on v5e: tile 32 -> (64, 256) x 1 B = 16,384 */
	spec_init(&s, "v5e", "40,200", "int8", 1, 0, 1);
	CHECK_INTEQ(vmem_compute(&s, &u, &err), 0);
	CHECK_INTEQ(u.block.bytes, 16384);
	/* int4 (10, 100) on v6e: tile 64 -> (64, 128) = 8192 elements x 0.5 B = 4,096 */
	spec_init(&s, "v6e", "10,100", "int4", 1, 0, 1);
	CHECK_INTEQ(vmem_compute(&s, &u, &err), 0);
	CHECK_INTEQ(u.block.bytes, 4096);
	CHECK_INTEQ(u.block.unpadded, 500);
	/* f32 (8, 128) on 8t: 16 sublanes -> (16, 128) x 4 B = 8,192 */
	spec_init(&s, "8t", "8,128", "f32", 1, 0, 1);
	CHECK_INTEQ(vmem_compute(&s, &u, &err), 0);
	CHECK_INTEQ(u.block.bytes, 8192);
	/* bool takes a 32-bit slot: (8, 128) -> 4,096 B */
	spec_init(&s, "v5e", "8,128", "bool", 1, 0, 1);
	CHECK_INTEQ(vmem_compute(&s, &u, &err), 0);
	CHECK_INTEQ(u.block.bytes, 4096);
	/* 1-D pads to packing x 128 elements (JAX infer_tiling), twice that before
	 * gen 4. f32 (1000,) on v5e: 1024 x 4 = 4,096. bf16 (600,) on v5e: tile 256,
	 * 768 x 2 = 1,536; on v3: tile 512, 1024 x 2 = 2,048 */
	spec_init(&s, "v5e", "1000", "f32", 1, 0, 1);
	CHECK_INTEQ(vmem_compute(&s, &u, &err), 0);
	CHECK_INTEQ(u.block.bytes, 4096);
	spec_init(&s, "v5e", "600", "bf16", 1, 0, 1);
	CHECK_INTEQ(vmem_compute(&s, &u, &err), 0);
	CHECK_INTEQ(u.block.bytes, 1536);
	spec_init(&s, "v3", "600", "bf16", 1, 0, 1);
	CHECK_INTEQ(vmem_compute(&s, &u, &err), 0);
	CHECK_INTEQ(u.block.bytes, 2048);
	/* 3-D: leading dims multiply: (4, 8, 128) f32 = 4 x 4,096 = 16,384 */
	spec_init(&s, "v5e", "4,8,128", "f32", 1, 0, 1);
	CHECK_INTEQ(vmem_compute(&s, &u, &err), 0);
	CHECK_INTEQ(u.block.bytes, 16384);

	/* absurd sizes are errors, not wrap-around */
	spec_init(&s, "v5e", "2147483648,2147483648,2147483648", "f32", 2, 1, 2);
	CHECK_INTEQ(vmem_compute(&s, &u, &err), -1);
	CHECK_STREQ(err.msg, "the shape is too large");
}

static void
test_budget(void)
{
	struct vmem_budget b;

	/* v5p: default scoped 32 MiB, internal scratch 72 KiB: 33,554,432 - 73,728 = 33,480,704 */
	vmem_budget_init(&b, chiptab_find_chip(tab, "v5p"), 0);
	CHECK(b.from == VMEM_LIMIT_DEFAULT && b.limit == 33554432 && b.avail == 33480704);
	/* a limit above physical VMEM (64 MiB) is capped by it: 67,108,864 - 73,728 */
	vmem_budget_init(&b, chiptab_find_chip(tab, "v5p"), 100 * MIB);
	CHECK(b.from == VMEM_LIMIT_GIVEN && b.avail == 67035136);
	/* v4 lists no scoped default and no internal scratch: physical 16 MiB */
	vmem_budget_init(&b, chiptab_find_chip(tab, "v4"), 0);
	CHECK(b.from == VMEM_LIMIT_PHYSICAL && b.avail == 16777216);
	/* 8t: internal scratch 272 KiB */
	vmem_budget_init(&b, chiptab_find_chip(tab, "8t"), 0);
	CHECK_INTEQ(b.avail, 33554432 - 278528);
}

static void
check_step(const struct vmem_bisect *r, size_t i, enum vmem_step_kind kind, const char *block,
	   int buffers, unsigned long long total, bool fits)
{
	CHECK(i < r->nsteps);
	if (i >= r->nsteps)
		return;
	CHECK_INTEQ(r->steps[i].kind, kind);
	CHECK_STREQ(shape_text(&r->steps[i].block), block);
	CHECK_INTEQ(r->steps[i].buffers, buffers);
	CHECK_INTEQ(r->steps[i].total, total);
	CHECK_INTEQ(r->steps[i].fits, fits);
}

static void
test_bisect(void)
{
	struct vmem_spec s;
	struct vmem_bisect r;
	struct pt_err err = PT_ERR_INIT;

	/* v5p f32 (512, 1024), 1 in + 1 out, 2 buffers, --limit 4M:
	 * avail = 4,194,304 - 73,728 = 4,120,576. Start: 2 MiB x 4 = 8 MiB, too big.
	 *  1. halve last: (512, 512): 1 MiB x 4 = 4,194,304 > avail
	 *  2. halve last: (512, 256): 512 KiB x 4 = 2,097,152 fits
	 * then bisect the last dim back up between 256 (fits) and 512 (step 1, too
	 * big) in multiples of 128:
	 *  3. 384: 512 x 384 x 4 x 4 = 3,145,728 fits. Final (512, 384), 3 MiB. */
	spec_init(&s, "v5p", "512,1024", "f32", 1, 1, 2);
	CHECK_INTEQ(vmem_bisect(&s, 4 * MIB - 73728, &r, &err), 0);
	CHECK(r.found);
	CHECK_INTEQ(r.nsteps, 3);
	check_step(&r, 0, VMEM_STEP_HALVE_MINOR, "(512, 512)", 2, 4194304, false);
	check_step(&r, 1, VMEM_STEP_HALVE_MINOR, "(512, 256)", 2, 2097152, true);
	check_step(&r, 2, VMEM_STEP_GROW_MINOR, "(512, 384)", 2, 3145728, true);
	CHECK_STREQ(shape_text(&r.block), "(512, 384)");
	CHECK_INTEQ(r.buffers, 2);
	CHECK_INTEQ(r.total, 3145728);

	/* 7x f32 (2048, 2048) at 64M: 64 MiB of blocks, 72 KiB over 63.93 MiB.
	 *  1. (2048, 1024): 8 MiB x 4 = 32 MiB fits; bisect between 1024 and 2048 (x128: 8..16):
	 *  2. 12 -> 1536: 48 MiB fits   3. 14 -> 1792: 56 MiB fits   4. 15 -> 1920: 60 MiB fits */
	spec_init(&s, "7x", "2048,2048", "f32", 1, 1, 2);
	CHECK_INTEQ(vmem_bisect(&s, 64 * MIB - 73728, &r, &err), 0);
	CHECK_INTEQ(r.nsteps, 4);
	check_step(&r, 3, VMEM_STEP_GROW_MINOR, "(2048, 1920)", 2, 60 * MIB, true);
	CHECK_STREQ(shape_text(&r.block), "(2048, 1920)");

	/* Already fits: no steps, the block as it is. */
	spec_init(&s, "v5p", "512,1024", "f32", 1, 1, 2);
	CHECK_INTEQ(vmem_bisect(&s, 32 * MIB, &r, &err), 0);
	CHECK(r.found && r.nsteps == 0 && r.total == 8 * MIB);

	/* The second-minor and the buffer count. Block f32 (16, 256), scratch
	 * f32 (8024, 128) = 8024 x 128 x 4 = 4,108,288 (no padding), avail 4,120,576:
	 * start 16 x 256 x 4 = 16 KiB x 4 = 65,536 + scratch = 4,173,824 no
	 *  1. halve last (16, 128): 8 KiB x 4 = 32,768 + S = 4,141,056 no (128 is the floor)
	 *  2. halve second (8, 128): 4 KiB x 4 = 16,384 + S = 4,124,672 no (8 is the floor)
	 *  3. one buffer: 4 KiB x 2 = 8,192 + S = 4,116,480 fits
	 *  4. bisect second back: (16, 128), 1 buffer: 16,384 + S = 4,124,672 no
	 *  5. bisect last back: (8, 256), 1 buffer: 16,384 + S = 4,124,672 no */
	spec_init(&s, "v5p", "16,256", "f32", 1, 1, 2);
	add_scratch(&s, "8024,128", "f32");
	CHECK_INTEQ(vmem_bisect(&s, 4 * MIB - 73728, &r, &err), 0);
	CHECK(r.found);
	CHECK_INTEQ(r.nsteps, 5);
	check_step(&r, 0, VMEM_STEP_HALVE_MINOR, "(16, 128)", 2, 4141056, false);
	check_step(&r, 1, VMEM_STEP_HALVE_SECOND, "(8, 128)", 2, 4124672, false);
	check_step(&r, 2, VMEM_STEP_ONE_BUFFER, "(8, 128)", 1, 4116480, true);
	check_step(&r, 3, VMEM_STEP_GROW_SECOND, "(16, 128)", 1, 4124672, false);
	check_step(&r, 4, VMEM_STEP_GROW_MINOR, "(8, 256)", 1, 4124672, false);
	CHECK_STREQ(shape_text(&r.block), "(8, 128)");
	CHECK_INTEQ(r.buffers, 1);
	CHECK_INTEQ(r.total, 4116480);

	/* Nothing fits when the scratch alone is over the budget. */
	spec_init(&s, "v5p", "512,512", "f32", 1, 1, 2);
	add_scratch(&s, "4096,1024", "f32");        /* 16 MiB */
	CHECK_INTEQ(vmem_bisect(&s, 8 * MIB, &r, &err), 0);
	CHECK(!r.found && r.total == 0);
	CHECK_STREQ(shape_text(&r.block), "(8, 128)");   /* the smallest block tried */
	CHECK_INTEQ(r.buffers, 1);

	/* Rank 1 halves in multiples of 8 x 128 = 1024: f32 (8192,), 1 in + 1 out,
	 * 2 buffers = 32 KiB x 4 = 128 KiB; avail 40 KiB:
	 *  1. (4096,): 16 KiB x 4 = 64 KiB no   2. (2048,): 8 KiB x 4 = 32 KiB fits
	 *  then bisect between 2048 and 4096: 3. (3072,): 12 KiB x 4 = 48 KiB no */
	spec_init(&s, "v5e", "8192", "f32", 1, 1, 2);
	CHECK_INTEQ(vmem_bisect(&s, 40 * 1024, &r, &err), 0);
	CHECK(r.found && r.nsteps == 3);
	check_step(&r, 2, VMEM_STEP_GROW_MINOR, "(3072,)", 2, 49152, false);
	CHECK_STREQ(shape_text(&r.block), "(2048,)");
}

static void
test_propose(void)
{
	unsigned long long v = 0;

	/* 37.22M (tpu-inference #3407, limit 32M): 39,027,999 + a quarter (9,756,999)
	 * = 48,784,998 -> up to a MiB: 47 MiB = 49,283,072. (The fix used 64 MiB.) */
	CHECK_INTEQ(vmem_propose_limit(39027999, 0, &v), 0);
	CHECK_INTEQ(v, 49283072);
	/* 1.5 MiB: the quarter is below 4 MiB, so 1.5 + 4 = 5.5 -> 6 MiB */
	CHECK_INTEQ(vmem_propose_limit(1572864, 0, &v), 0);
	CHECK_INTEQ(v, 6 * MIB);
	/* capped: 120 MiB + 30 MiB = 150 MiB, but v6e has 128 MiB */
	CHECK_INTEQ(vmem_propose_limit(120 * MIB, 128 * MIB, &v), 0);
	CHECK_INTEQ(v, 128 * MIB);
	/* need above the cap: raising the limit cannot help */
	CHECK_INTEQ(vmem_propose_limit(130 * MIB, 128 * MIB, &v), -1);
	/* the worked example with v5p's internal scratch: 7 MiB + 72 KiB + 4 MiB -> 12 MiB */
	CHECK_INTEQ(vmem_propose_limit(7340032 + 73728, 64 * MIB, &v), 0);
	CHECK_INTEQ(v, 12 * MIB);
}

static void
advise(const struct ruleset *rs, struct vars *vs, const char *const *kv)
{
	for (; kv[0]; kv += 2)
		vars_set(vs, kv[0], kv[1], true);
	advice_derive(rs, vs);
}

#define GET(name) vars_get(&vs, name)

static void
test_advice(void)
{
	struct ruleset rs;
	struct vars vs = VARS_INIT;

	memset(&rs, 0, sizeof(rs));
	rs.chips = tab;

	/* tpu-inference #3407 on v6e: "Scoped allocation with size 37.22M and limit
	 * 32.00M exceeded scoped vmem limit by 5.22M". 32 MiB < 128 MiB physical:
	 * the scoped limit was hit. Proposal 47 MiB (see test_propose). */
	advise(&rs, &vs, (const char *const[]){ "used", "37.22M", "limit", "32.00M", "over",
		"5.22M", "chip", "TPU v6 lite", NULL });
	CHECK_STREQ(GET("chip_name"), "v6e");
	CHECK_STREQ(GET("used_bytes"), "39027999");
	CHECK_STREQ(GET("limit_bytes"), "33554432");
	CHECK_STREQ(GET("over_bytes"), "5473567");       /* 5.22 x 1048576 = 5473566.7 */
	CHECK_STREQ(GET("over_human"), "5.22 MiB");
	CHECK_STREQ(GET("scoped_limit_hit"), "yes");
	CHECK_STREQ(GET("vmem_limit_bytes"), "49283072");
	CHECK_STREQ(GET("vmem_limit_human"), "47 MiB");
	CHECK_STREQ(GET("physical_vmem"), "134217728");
	CHECK_STREQ(GET("physical_vmem_human"), "128 MiB");
	CHECK(GET("vmem_physical_exceeded") == NULL && GET("vmem_physical_disputed") == NULL);
	vars_release(&vs);

	/* the chip from the device kind when `chip` is missing or not in the table */
	advise(&rs, &vs, (const char *const[]){ "chip", "v99", "device_kind", "TPU v5 lite",
		"used", "1M", NULL });
	CHECK_STREQ(GET("chip_name"), "v5e");
	vars_release(&vs);

	/* over is computed when the log does not print it: 39,027,999 - 33,554,432 */
	advise(&rs, &vs, (const char *const[]){ "used", "37.22M", "limit", "32.00M", NULL });
	CHECK_STREQ(GET("over_bytes"), "5473567");
	vars_release(&vs);

	/* jax #38988 on 7x: "Used 65.05M of 64.00M vmem". JAX lists 64 MiB physical,
	 * but the reporter compiled with 128 MiB: the dispute allows it.
	 * 68,209,869 + 17,052,467 = 85,262,336 -> 82 MiB = 85,983,232 */
	advise(&rs, &vs, (const char *const[]){ "used", "65.05M", "limit", "64.00M", "chip",
		"TPU7x", NULL });
	CHECK_STREQ(GET("scoped_limit_hit"), "yes");
	CHECK_STREQ(GET("vmem_limit_bytes"), "85983232");
	CHECK_STREQ(GET("vmem_limit_human"), "82 MiB");
	CHECK_STREQ(GET("vmem_physical_disputed"), "yes");
	CHECK_STREQ(GET("physical_vmem_human"), "64 MiB");
	CHECK_STREQ(GET("physical_vmem_disputed_human"), "128 MiB");
	vars_release(&vs);

	/* Over physical VMEM: 130.20M on v6e (128 MiB). No limit can help. */
	advise(&rs, &vs, (const char *const[]){ "used", "130.20M", "limit", "128.00M", "chip",
		"v6e", NULL });
	CHECK_STREQ(GET("vmem_physical_exceeded"), "yes");
	CHECK(GET("vmem_limit_bytes") == NULL && GET("scoped_limit_hit") == NULL);
	vars_release(&vs);

	/* Near physical: 120M on v6e, 120 + 30 = 150 MiB is capped at 128 MiB */
	advise(&rs, &vs, (const char *const[]){ "used", "120M", "limit", "96M", "chip", "v6e",
		NULL });
	CHECK_STREQ(GET("vmem_limit_human"), "128 MiB");
	vars_release(&vs);

	/* Unknown chip: 32 MiB is a scoped default and no chip's physical VMEM: a
	 * scoped limit. 33.56M: 35,190,211 + 8,797,552 = 43,987,763 -> 42 MiB, uncapped */
	advise(&rs, &vs, (const char *const[]){ "used", "33.56M", "limit", "32.00M", NULL });
	CHECK_STREQ(GET("scoped_limit_hit"), "yes");
	CHECK_STREQ(GET("vmem_limit_bytes"), "44040192");
	CHECK(GET("physical_vmem") == NULL);
	vars_release(&vs);
	/* 16 MiB (pytorch/xla #9524) is also physical VMEM on v2-v4: left unset */
	advise(&rs, &vs, (const char *const[]){ "used", "32.42M", "limit", "16.00M", NULL });
	CHECK(GET("scoped_limit_hit") == NULL);
	CHECK_STREQ(GET("over_bytes"), "17217618");      /* 33,994,834 - 16,777,216 */
	CHECK_STREQ(GET("over_human"), "16.42 MiB");
	vars_release(&vs);

	/* Older E1001: "Allocation (size=134217728) would exceed memory (size=67108864)" */
	advise(&rs, &vs, (const char *const[]){ "used", "134217728", "limit", "67108864", "chip",
		"v5p", NULL });
	CHECK_STREQ(GET("vmem_physical_exceeded"), "yes");
	vars_release(&vs);

	/* Garbage and no chip table: nothing derived, nothing crashes */
	advise(&rs, &vs, (const char *const[]){ "used", "lots", "limit", "-1M", "over", "",
		"chip", "", NULL });
	CHECK(GET("used_bytes") == NULL && GET("limit_bytes") == NULL && GET("over_bytes") == NULL);
	CHECK(GET("vmem_limit_bytes") == NULL);
	vars_release(&vs);
	advise(NULL, &vs, (const char *const[]){ "used", "20.00M", "limit", "16.00M", NULL });
	CHECK_STREQ(GET("vmem_limit_human"), "25 MiB");  /* 20 + 5 = 25 */
	CHECK(GET("scoped_limit_hit") == NULL);
	vars_release(&vs);
	/* a capture of the same name wins over the derived value */
	advise(&rs, &vs, (const char *const[]){ "used", "20.00M", "vmem_limit_bytes", "1", NULL });
	CHECK_STREQ(GET("vmem_limit_bytes"), "1");
	vars_release(&vs);
}

int
main(void)
{
	tab = load_shipped_chips();
	test_sizes();
	test_working_set();
	test_budget();
	test_bisect();
	test_propose();
	test_advice();
	chiptab_free(tab);
	return TEST_DONE();
}
