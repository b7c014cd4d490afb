/* SPDX-License-Identifier: MIT */
/*
 * The chip table: the shipped rules/chips.yaml loads cleanly, lookups by
 * name, alias and device-kind string, dtype lookups, each chip's sublane
 * tile for 32-, 16-, 8- and 4-bit elements (tpu-facts.md section 2.4), and
 * the schema errors with their file:line:col.
 */
#include "test.h"
#include "chips_fixture.h"

#define MIB_ (1024ULL * 1024)

static const char *
chip_of(const struct chiptab *t, const char *s)
{
	const struct chip *c = chiptab_find_chip(t, s);

	return c ? c->name : "(none)";
}

static const char *
dtype_of(const struct chiptab *t, const char *s)
{
	const struct dtype *dt = chiptab_find_dtype(t, s);

	return dt ? dt->name : "(none)";
}

static void
test_lookups(const struct chiptab *t)
{
	CHECK_INTEQ(t->nchips, 10);
	CHECK_STREQ(chip_of(t, "v5e"), "v5e");
	CHECK_STREQ(chip_of(t, "V5LITEPOD"), "v5e");
	CHECK_STREQ(chip_of(t, "TPU v5 lite"), "v5e");
	CHECK_STREQ(chip_of(t, "device_kind: TPU v5 lite-8"), "v5e");
	CHECK_STREQ(chip_of(t, "TPU v5e"), "v5e");
	/* "TPU v5" and "TPU v5p" both mean v5p (JAX chip_version_from_device_kind) */
	CHECK_STREQ(chip_of(t, "TPU v5"), "v5p");
	CHECK_STREQ(chip_of(t, "TPU v5p"), "v5p");
	CHECK_STREQ(chip_of(t, "TPU v4"), "v4");
	CHECK_STREQ(chip_of(t, "TPU v4 lite"), "v4i");   /* longest match wins */
	CHECK_STREQ(chip_of(t, "TPU v6 lite"), "v6e");
	CHECK_STREQ(chip_of(t, "TPU7x"), "7x");
	CHECK_STREQ(chip_of(t, "TPU7"), "7x");
	CHECK_STREQ(chip_of(t, "7"), "7x");
	CHECK_STREQ(chip_of(t, "TPU8t"), "8t");
	CHECK_STREQ(chip_of(t, "tpu8i"), "8i");
	CHECK_STREQ(chip_of(t, "TPU v2"), "v2");
	CHECK_STREQ(chip_of(t, "TPU v3-8"), "v3");
	CHECK_STREQ(chip_of(t, "TPU v9"), "(none)");
	CHECK_STREQ(chip_of(t, "XTPU v4"), "(none)");    /* not at a word boundary */
	CHECK_STREQ(chip_of(t, ""), "(none)");
	CHECK(chiptab_find_chip(NULL, "v5e") == NULL);

	CHECK_STREQ(dtype_of(t, "bf16"), "bfloat16");
	CHECK_STREQ(dtype_of(t, "jnp.bfloat16"), "bfloat16");
	CHECK_STREQ(dtype_of(t, "F32"), "float32");
	CHECK_STREQ(dtype_of(t, "fp32"), "float32");
	CHECK_STREQ(dtype_of(t, "half"), "float16");
	CHECK_STREQ(dtype_of(t, "s8"), "int8");
	CHECK_STREQ(dtype_of(t, "u8"), "uint8");
	CHECK_STREQ(dtype_of(t, "s4"), "int4");
	CHECK_STREQ(dtype_of(t, "u4"), "uint4");
	CHECK_STREQ(dtype_of(t, "i32"), "int32");
	CHECK_STREQ(dtype_of(t, "s32"), "int32");
	CHECK_STREQ(dtype_of(t, "fp8_e4m3"), "float8_e4m3fn");
	CHECK_STREQ(dtype_of(t, "f8e5m2"), "float8_e5m2");
	CHECK_STREQ(dtype_of(t, "'bool'"), "bool");
	CHECK_STREQ(dtype_of(t, "complex64"), "(none)");
	CHECK_INTEQ(chiptab_find_dtype(t, "bool")->bits, 32);     /* a 32-bit slot */
	CHECK_INTEQ(chiptab_find_dtype(t, "int4")->bits, 4);
	CHECK(chiptab_find_dtype(t, "float64")->unsupported != NULL);
	CHECK(chiptab_find_dtype(t, "bf16")->unsupported == NULL);
}

/* Each chip's second-minor tile for 32-, 16-, 8- and 4-bit elements, and the
 * stricter 16-bit tile of the large-x16 flag (tpu-facts.md 2.4). */
static void
test_tiling(const struct chiptab *t)
{
	static const struct { const char *chip; int t32, t16, t8, t4, strict16; } want[] = {
		{ "v2",  8,  8, 32,  64, 16 },
		{ "v3",  8,  8, 32,  64, 16 },
		{ "v4",  8,  8, 32,  64, 16 },
		{ "v4i", 8,  8, 32,  64, 16 },
		{ "v5e", 8,  8, 32,  64, 16 },
		{ "v5p", 8,  8, 32,  64, 16 },
		{ "v6e", 8,  8, 32,  64, 16 },
		{ "7x",  8, 16, 32,  64, 16 },
		{ "8i",  8, 16, 32,  64, 16 },
		{ "8t", 16, 32, 64, 128, 32 },   /* 16 sublanes */
	};

	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		const struct chip *c = chiptab_find_chip(t, want[i].chip);

		CHECK(c != NULL);
		if (!c)
			continue;
		CHECK_INTEQ(chip_sublane_tile(c, 32), want[i].t32);
		CHECK_INTEQ(chip_sublane_tile(c, 16), want[i].t16);
		CHECK_INTEQ(chip_sublane_tile(c, 8), want[i].t8);
		CHECK_INTEQ(chip_sublane_tile(c, 4), want[i].t4);
		CHECK_INTEQ(chip_sublane_tile_strict(c, 16), want[i].strict16);
		CHECK_INTEQ(chip_sublane_tile_strict(c, 32), want[i].t32);
		CHECK_INTEQ(c->lanes, 128);
	}
	/* widths outside the table scale as sublanes x 32 / bits; 64-bit has none */
	CHECK_INTEQ(chip_sublane_tile(chiptab_find_chip(t, "v5e"), 2), 128);
	CHECK_INTEQ(chip_sublane_tile(chiptab_find_chip(t, "v5e"), 64), 0);
}

static void
test_numbers(const struct chiptab *t)
{
	const struct chip *v5e = chiptab_find_chip(t, "v5e"), *x7 = chiptab_find_chip(t, "7x");
	const struct chip *v4 = chiptab_find_chip(t, "v4");
	bool phys;

	CHECK_INTEQ(v5e->vmem_bytes, 134217728);        /* 128 MiB */
	CHECK_INTEQ(v5e->scoped_default_bytes, 33554432); /* 32 MiB */
	CHECK_INTEQ(v5e->internal_scratch_bytes, 73728);
	CHECK_INTEQ(chiptab_find_chip(t, "v5p")->vmem_bytes, 67108864);
	CHECK_INTEQ(chiptab_find_chip(t, "8i")->scoped_default_bytes, 100663296);
	CHECK_INTEQ(chiptab_find_chip(t, "v2")->smem_bytes, 16384);
	CHECK_INTEQ(v4->scoped_default_bytes, 0);       /* not listed */
	CHECK_INTEQ(x7->vmem_bytes, 67108864);
	CHECK_INTEQ(chip_disputed(x7, "vmem_bytes"), 134217728);
	CHECK_INTEQ(chip_disputed(v5e, "vmem_bytes"), 0);
	CHECK(chiptab_is_scoped_default(t, 32 * MIB_, &phys) && !phys);
	CHECK(chiptab_is_scoped_default(t, 16 * MIB_, &phys) && phys);   /* v2-v4 physical */
	CHECK(chiptab_is_scoped_default(t, 64 * MIB_, &phys) && phys);   /* v5p physical */
	CHECK(chiptab_is_scoped_default(t, 96 * MIB_, &phys) && !phys);
	CHECK(!chiptab_is_scoped_default(t, 48 * MIB_, &phys));
	CHECK(chip_matmul_native(v5e, "int8", true));
	CHECK(chip_matmul_native(v4, "int8", false) && !chip_matmul_native(v4, "int8", true));
	CHECK(!chip_matmul_native(chiptab_find_chip(t, "v3"), "bfloat16", true));
	CHECK(chip_matmul_native(x7, "float8_e4m3fn", false));
}

static const char bad_yaml[] =
	"dtypes:\n"                                         /* 1 */
	"  - name: f32x\n"                                  /* 2 */
	"    bits: 3\n"                                     /* 3 */
	"  - name: bf16x\n"                                 /* 4 */
	"    bitz: 16\n"                                    /* 5 */
	"  - just-a-string\n"                               /* 6 */
	"chips:\n"                                          /* 7 */
	"  - name: vx\n"                                    /* 8 */
	"    generation: seven\n"                           /* 9 */
	"    device_kinds: ['TPU vx', 'TPU vx']\n"          /* 10 */
	"    cores_per_chip: 1\n"                           /* 11 */
	"    vmem_bytes: -5\n"                              /* 12 */
	"    smem_bytes: 1024\n"                            /* 13 */
	"    sublanes: 8\n"                                 /* 14 */
	"    lanes: 128\n"                                  /* 15 */
	"    sublane_tiling: { 32: 8, 16: 8, 12: 4 }\n"     /* 16 */
	"    matmul: [ { lhs: [f32x] } ]\n"                 /* 17 */
	"    disputes: [ { field: hbm_bytes, value: 1, source: x } ]\n" /* 18 */
	"    colour: blue\n"                                /* 19 */
	"  - name: vy\n"                                    /* 20 */
	"    generation: 5\n"                               /* 21 */
	"    device_kinds: 'TPU vy'\n"                      /* 22 */
	"    cores_per_chip: 1\n"                           /* 23 */
	"    vmem_bytes: 1024\n"                            /* 24 */
	"    smem_bytes: 1024\n"                            /* 25 */
	"    sublanes: 8\n"                                 /* 26 */
	"    lanes: 128\n"                                  /* 27 */
	"    sublane_tiling: { 32: 8, 16: 8, 8: 32, 4: 64 }\n" /* 28 */
	"    matmul: [ { both: [nosuch] } ]\n";             /* 29 */

static void
test_errors(void)
{
	struct diag d = DIAG_INIT;
	struct chiptab *t = chips_from_text(bad_yaml, "bad.yaml", &d);

	static const char *const want[] = {
		"bad.yaml:3:11: error: 'bits' in dtype 'f32x' must be 1, 2, 4, 8, 16, 32 or 64, not 3",
		"bad.yaml:5:5: error: unknown key 'bitz' in dtype 'bf16x'",
		"bad.yaml:4:5: error: dtype 'bf16x' is missing required field 'bits'",
		"bad.yaml:6:5: error: dtypes[2] must be a mapping, not a scalar",
		"bad.yaml:19:5: error: unknown key 'colour' in chip 'vx'",
		"bad.yaml:10:30: error: repeated name 'TPU vx' in chip 'vx'",
		"bad.yaml:9:17: error: 'generation' in chip 'vx' must be an integer, not 'seven'",
		"bad.yaml:12:17: error: 'vmem_bytes' in chip 'vx' must be between 1 and "
		"1125899906842624, not -5",
		"bad.yaml:16:37: error: 'sublane_tiling' in chip 'vx' takes the widths 32, 16, 8 "
		"and 4 as keys, not '12'",
		"bad.yaml:17:15: error: matmul[0] of chip 'vx' needs 'both', or 'lhs' and 'rhs'",
		"bad.yaml:18:26: error: 'field' in disputes[0] of chip 'vx' must be vmem_bytes, "
		"smem_bytes, scoped_vmem_default_bytes or internal_scratch_bytes, not 'hbm_bytes'",
		"bad.yaml:20: error: chip 'vy': matmul lhs 'nosuch' is not a dtype name",
	};

	/* every mistake is reported, each once, and only the good chip 'vy' is kept */
	CHECK_INTEQ(d.n, ARRAY_SIZE(want));
	for (size_t i = 0; i < d.n && i < ARRAY_SIZE(want); i++)
		CHECK_STREQ(d.lines[i], want[i]);
	CHECK(t && t->nchips == 1 && t->ndtypes == 0);
	chiptab_free(t);
	diag_release(&d);
}

/* A second file adds to the table; redefining a name or device kind is an error there. */
static void
test_two_files(void)
{
	struct diag d = DIAG_INIT;
	struct ydoc a = YDOC_INIT, b = YDOC_INIT;
	struct chiptab *t = NULL;
	const char *one = "dtypes:\n  - { name: float32, aliases: [f32], bits: 32 }\n";
	const char *two = "dtypes:\n  - { name: f32, bits: 32 }\n  - { name: int8, bits: 8 }\n";

	ydoc_parse(&a, one, strlen(one), "one.yaml", &d);
	ydoc_parse(&b, two, strlen(two), "two.yaml", &d);
	CHECK_INTEQ(chiptab_parse(&t, NULL, ynode_get(a.root, "dtypes"), "one.yaml", &d), 0);
	CHECK_INTEQ(chiptab_parse(&t, NULL, NULL, "none.yaml", &d), 0);
	CHECK_INTEQ(chiptab_parse(&t, NULL, ynode_get(b.root, "dtypes"), "two.yaml", &d), -1);
	CHECK_INTEQ(d.nerrors, 1);
	if (d.n)
		CHECK_STREQ(d.lines[0], "two.yaml:2:5: error: dtype 'f32' is already an alias of "
			    "dtype 'float32' (one.yaml:2)");
	CHECK(t && t->ndtypes == 2);
	CHECK_STREQ(dtype_of(t, "int8"), "int8");
	chiptab_free(t);
	ydoc_release(&a);
	ydoc_release(&b);
	diag_release(&d);
}

int
main(void)
{
	struct chiptab *t = load_shipped_chips();

	test_lookups(t);
	test_tiling(t);
	test_numbers(t);
	test_errors();
	test_two_files();
	chiptab_free(t);
	return TEST_DONE();
}
