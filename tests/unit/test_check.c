/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the source checker's API (pt/check.h), the one triage and
 * the session call: check_source() on kernels held in memory, the counts,
 * the lookups, check_compare() between two versions of a kernel (what the
 * session reports between attempts), the same answer twice, and the
 * errors a caller can get (rules without checks, a bad --shape, an
 * unknown chip).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt/check.h"
#include "pt/checktab.h"
#include "pt/rules.h"
#include "test.h"

static struct ruleset *
shipped(void)
{
	struct diag d = DIAG_INIT;
	struct pt_err err = PT_ERR_INIT;
	struct ruleset *rs = ruleset_new();

	if (ruleset_load_dir(rs, PT_SRCDIR "/rules", NULL, &d, &err) < 0 || ruleset_finish(rs, &d) < 0) {
		diag_print(&d, stderr);
		fprintf(stderr, "%s\n", err.msg);
		exit(2);
	}
	diag_release(&d);
	return rs;
}

/* A matmul with its accumulator; BK and the init are what the versions change. */
static char *
kernel(int bk, bool init)
{
	char *s = NULL;
	size_t n = 0;
	FILE *fp = open_memstream(&s, &n);

	fprintf(fp,
		"import jax\n"
		"import jax.numpy as jnp\n"
		"from jax.experimental import pallas as pl\n"
		"from jax.experimental.pallas import tpu as pltpu\n"
		"BK = %d\n"
		"def mm_kernel(x_ref, y_ref, o_ref, acc_ref):\n"
		"    %s\n"
		"    def _():\n"
		"        acc_ref[...] = jnp.zeros_like(acc_ref)\n"
		"    acc_ref[...] += jnp.dot(x_ref[...], y_ref[...], preferred_element_type=jnp.float32)\n"
		"    o_ref[...] = acc_ref[...].astype(o_ref.dtype)\n"
		"def mm(x, y):\n"
		"    return pl.pallas_call(\n"
		"        mm_kernel,\n"
		"        grid=(4, 4, 4096 // BK),\n"
		"        in_specs=[pl.BlockSpec((256, BK), lambda i, j, k: (i, k)),\n"
		"                  pl.BlockSpec((BK, 256), lambda i, j, k: (k, j))],\n"
		"        out_specs=pl.BlockSpec((256, 256), lambda i, j, k: (i, j)),\n"
		"        out_shape=jax.ShapeDtypeStruct((1024, 1024), jnp.float32),\n"
		"        scratch_shapes=[pltpu.VMEM((256, 256), jnp.float32)],\n"
		"        compiler_params=pltpu.CompilerParams(\n"
		"            dimension_semantics=('parallel', 'parallel', 'arbitrary')),\n"
		"    )(x, y)\n"
		"mm(jnp.ones((1024, 4096), jnp.float32), jnp.ones((4096, 1024), jnp.float32))\n",
		bk, init ? "@pl.when(pl.program_id(2) == 0)" : "@pl.when(pl.program_id(0) == 0)");
	fclose(fp);
	return s;
}

static void
run(const struct ruleset *rs, int bk, bool init, struct check_result *r)
{
	struct check_opts o = { rs, "v5e", NULL, NULL, 0 };
	struct pt_err err = PT_ERR_INIT;
	char *src = kernel(bk, init);

	CHECK_INTEQ(check_source(&o, "mm.py", src, strlen(src), r, &err), 0);
	free(src);
}

static bool
has(const struct check_result *r, const char *code, int line)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->f[i].def->code, code) == 0 && r->f[i].line == line)
			return true;
	return false;
}

static void
test_findings(const struct ruleset *rs)
{
	struct check_result good = CHECK_RESULT_INIT, bad = CHECK_RESULT_INIT;
	size_t e, w, n;

	run(rs, 512, true, &good);
	CHECK_INTEQ(good.n, 0);
	CHECK_INTEQ(good.nk, 1);
	CHECK_INTEQ(good.files, 1);
	CHECK(good.k[0].vmem_known);
	/* 256x512 + 512x256 + 256x256 f32, two buffers each, plus the 256x256 scratch */
	CHECK_INTEQ(good.k[0].vmem_bytes, 2ull * (512 + 512 + 256) * 256 * 4 + 256 * 256 * 4);
	CHECK_STREQ(good.k[0].name, "mm_kernel");
	CHECK(check_kernel_at(&good, "mm.py", 8) == &good.k[0]);
	run(rs, 1000, false, &bad);
	/* at BK's constant, the line to change; the BlockSpec that uses it beside it */
	CHECK(has(&bad, "L001", 5));
	for (size_t i = 0; i < bad.n; i++)
		if (strcmp(bad.f[i].def->code, "L001") == 0)
			CHECK_INTEQ(bad.f[i].use_line, 16);
	CHECK(has(&bad, "N002", 9));
	check_counts(&bad, &e, &w, &n);
	CHECK(e >= 2);
	CHECK(check_first_of(&bad, CLASS_NUMERICS) != NULL);
	CHECK(check_first_of(&bad, CLASS_SYNCHRONIZATION) == NULL);
	/* the fix names where BK is written, for the ladder's rung */
	for (size_t i = 0; i < bad.n; i++)
		if (strcmp(bad.f[i].def->code, "L001") == 0) {
			CHECK_STREQ(bad.f[i].fix, "mm.py:5: BK=1000 -> 1024 (or 896)");
			CHECK_STREQ(bad.f[i].rung_ids[0], "layout.round-block-up");
			CHECK_INTEQ(bad.f[i].fix_line, 5);
		}
	check_result_release(&good);
	check_result_release(&bad);
}

/* What the session says between two attempts: the findings that went and came. */
static void
test_compare(const struct ruleset *rs)
{
	struct check_result a = CHECK_RESULT_INIT, b = CHECK_RESULT_INIT;
	struct buf out = BUF_INIT;

	run(rs, 1000, false, &a);
	run(rs, 512, true, &b);
	CHECK(check_compare(&a, &b, &out) >= 2);
	CHECK(strstr(out.data, "gone: L001 block-not-tiled") != NULL);
	CHECK(strstr(out.data, "gone: N002 accumulator-init-axis") != NULL);
	CHECK(strstr(out.data, "changed: kernel mm_kernel's working set") != NULL);
	buf_reset(&out);
	CHECK_INTEQ(check_compare(&b, &b, &out), 0);
	CHECK_INTEQ(out.len, 0);
	buf_reset(&out);
	CHECK(check_compare(&b, &a, &out) >= 2);
	CHECK(strstr(out.data, "new: L001") != NULL);
	buf_release(&out);
	check_result_release(&a);
	check_result_release(&b);
}

/* The same source gives the same findings, in the same order. */
static void
test_deterministic(const struct ruleset *rs)
{
	struct check_result a = CHECK_RESULT_INIT, b = CHECK_RESULT_INIT;

	run(rs, 1000, false, &a);
	run(rs, 1000, false, &b);
	CHECK_INTEQ(a.n, b.n);
	for (size_t i = 0; i < a.n && i < b.n; i++) {
		CHECK_STREQ(a.f[i].message, b.f[i].message);
		CHECK_INTEQ(a.f[i].line, b.f[i].line);
	}
	check_result_release(&a);
	check_result_release(&b);
}

static void
test_errors(const struct ruleset *rs)
{
	struct ruleset *empty = ruleset_new();
	struct check_result r = CHECK_RESULT_INIT;
	struct pt_err err = PT_ERR_INIT;
	struct check_opts o = { empty, NULL, NULL, NULL, 0 };
	struct check_binding bad = { "x", "0,4", true };

	CHECK_INTEQ(check_source(&o, "a.py", "x = 1\n", 6, &r, &err), -1);
	CHECK_INTEQ(err.status, PT_EXIT_DATA);
	o.rs = rs;
	o.chip = "v9";
	CHECK_INTEQ(check_source(&o, "a.py", "x = 1\n", 6, &r, &err), -1);
	CHECK_INTEQ(err.status, PT_EXIT_USAGE);
	o.chip = NULL;
	o.bind = &bad;
	o.nbind = 1;
	CHECK_INTEQ(check_source(&o, "a.py", "x = 1\n", 6, &r, &err), -1);
	CHECK_INTEQ(err.status, PT_EXIT_USAGE);
	/* a syntax error is a problem in the result, not an error */
	o.nbind = 0;
	CHECK_INTEQ(check_source(&o, "a.py", "x = (\n", 6, &r, &err), 0);
	CHECK(r.np >= 1);
	CHECK_INTEQ(r.n, 0);
	check_result_release(&r);
	/* so is a file that is not there */
	CHECK_INTEQ(check_file(&o, "/nonexistent/k.py", &r, &err), 0);
	CHECK_INTEQ(r.np, 1);
	CHECK(r.p[0].fatal);
	check_result_release(&r);
	ruleset_free(empty);
}

/*
 * Work stays small on sources that would make the interpreter loop or
 * double: a kernel whose body makes a pallas_call of itself, and a helper
 * that calls itself twice per body. Neither reaches the step budget.
 */
static void
test_bounded(const struct ruleset *rs)
{
	static const char self[] =
		"from jax.experimental import pallas as pl\n"
		"def k(x_ref, o_ref):\n"
		"    o_ref[...] = x_ref[...]\n"
		"    return pl.pallas_call(k, grid=(4,))\n"
		"def f(x):\n"
		"    return pl.pallas_call(k, grid=(4,))(x)\n";
	static const char twice[] =
		"def f(n):\n"
		"    a = f(n - 1)\n"
		"    b = f(n - 2)\n"
		"    return a + b\n"
		"f(30)\n";
	const char *srcs[] = { self, twice };
	struct check_opts o = { rs, NULL, NULL, NULL, 0 };

	for (size_t i = 0; i < 2; i++) {
		struct check_result r = CHECK_RESULT_INIT;
		struct pt_err err = PT_ERR_INIT;

		CHECK_INTEQ(check_source(&o, "loop.py", srcs[i], strlen(srcs[i]), &r, &err), 0);
		for (size_t j = 0; j < r.np; j++)
			CHECK(!strstr(r.p[j].message, "steps"));
		check_result_release(&r);
	}
}

/*
 * pl.kernel used as a decorator factory, @pl.kernel(out_shape=..., mesh=...):
 * the body is found and walked when the kernel is called later (the
 * decorated object once kept the decorator's stack array for its body).
 */
static void
test_decorated_kernel(const struct ruleset *rs)
{
	static const char src[] =
		"import jax\n"
		"import jax.numpy as jnp\n"
		"from jax.experimental import pallas as pl\n"
		"from jax.experimental.pallas import tpu as pltpu\n"
		"def make(n):\n"
		"    @pl.kernel(out_shape=jax.ShapeDtypeStruct((n, 128), jnp.float32),\n"
		"               mesh=pltpu.create_tensorcore_mesh('core'),\n"
		"               scratch_shapes=[pltpu.VMEM((n, 128), jnp.float32), pltpu.SemaphoreType.DMA])\n"
		"    def body(x_hbm, o_hbm, buf, sem):\n"
		"        pltpu.make_async_copy(x_hbm, buf, sem).start()\n"
		"        o_hbm[...] = buf[...]\n"
		"    return body\n"
		"def churn(k):\n"
		"    return [max(i, k) for i in range(4)]\n"
		"f = make(64)\n"
		"churn(3)\n"
		"f(jnp.zeros((64, 128), jnp.float32))\n";
	struct check_opts o = { rs, "v5e", NULL, NULL, 0 };
	struct check_result r = CHECK_RESULT_INIT;
	struct pt_err err = PT_ERR_INIT;

	CHECK_INTEQ(check_source(&o, "deco.py", src, strlen(src), &r, &err), 0);
	CHECK(has(&r, "S001", 11));
	CHECK_INTEQ(r.nk, 1);
	check_result_release(&r);
}

int
main(void)
{
	struct ruleset *rs = shipped();

	test_findings(rs);
	test_compare(rs);
	test_deterministic(rs);
	test_errors(rs);
	test_bounded(rs);
	test_decorated_kernel(rs);
	ruleset_free(rs);
	return TEST_DONE();
}
