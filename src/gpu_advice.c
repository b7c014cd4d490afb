/* SPDX-License-Identifier: MIT */
/*
 * gpu_advice_derive(): the GPU half of advice_derive(). From the device
 * string, the contexts' backend and platform and the numbers a GPU log
 * printed (captures smem_used, smem_limit, num_stages, gpu_block, ...), it
 * derives the values the GPU ladder rungs fill in: the GPU's name and
 * shared memory, the stages that would fit, the nearest legal block.
 * Names and meanings: docs/calculators.md ("Values for the advice").
 *
 * Decisions:
 *  - the numbers in the log win: smem_limit from the log, else the GPU's
 *    opt-in limit from the table (smem_limit_table says which);
 *  - the stage estimate assumes the staged blocks are the whole footprint
 *    (the common case for a matmul or attention loop); the rung says so;
 *  - a GPU that runs one Pallas backend only (MI300X: Triton) names the
 *    backend, but only when a context placed the kernel on a GPU: a ROCm
 *    log without a Pallas kernel gets no backend.
 */
#include <stdio.h>
#include <string.h>

#include "pt/advice.h"
#include "pt/classify.h"
#include "pt/gpu_block.h"
#include "pt/gpus.h"
#include "pt/vmem.h"

static void
set_u64(struct vars *vs, const char *name, unsigned long long v)
{
	char num[32];

	snprintf(num, sizeof(num), "%llu", v);
	vars_set(vs, name, num, false);
}

static void
set_size(struct vars *vs, const char *name, unsigned long long v)
{
	struct buf b = BUF_INIT;

	vmem_format_size(v, &b);
	vars_set(vs, name, b.data, false);
	buf_release(&b);
}

static bool
get_u64(const struct vars *vs, const char *name, unsigned long long *out)
{
	const char *v = vars_get(vs, name);

	return v && vmem_parse_size(v, out) == 0;
}

static const struct gpu *
derive_gpu(const struct chiptab *t, struct vars *vs)
{
	const struct gpu *g = chiptab_find_gpu(t, vars_get(vs, "chip"));

	if (!g)
		g = chiptab_find_gpu(t, vars_get(vs, "device_kind"));
	if (!g || vars_get(vs, "chip_name"))
		return g;
	if (vars_is(vs, "platform", "gpu") && !vars_get(vs, "backend") && g->backends[0] &&
	    !g->backends[1])
		vars_set(vs, "backend", g->backends[0], false);
	vars_set(vs, "platform", "gpu", false);
	vars_set(vs, "chip_name", g->name, false);
	set_u64(vs, "smem_optin", g->smem_block_optin);
	set_size(vs, "smem_optin_human", g->smem_block_optin);
	return g;
}

/* The pipeline depth in force: the log's, else the backend's default. */
static unsigned long long
stages_of(const struct vars *vs, const struct gpu *g, bool triton)
{
	unsigned long long n;

	if (get_u64(vs, triton ? "num_stages" : "max_concurrent_steps", &n) && n > 0)
		return n;
	if (!triton)
		return 1;
	return g && strcmp(g->vendor, "amd") == 0 ? 1 : 3;
}

static void
derive_smem(struct vars *vs, const struct gpu *g)
{
	unsigned long long used, limit, stages, k;
	bool triton = vars_is(vs, "backend", "triton");

	if (!get_u64(vs, "smem_used", &used))
		return;
	if (!get_u64(vs, "smem_limit", &limit)) {
		if (!g)
			return;
		limit = g->smem_block_optin;
		vars_set(vs, "smem_limit_table", "yes", false);
		set_u64(vs, "smem_limit", limit);
	}
	set_size(vs, "smem_used_human", used);
	set_size(vs, "smem_limit_human", limit);
	if (used <= limit || !limit)
		return;
	set_u64(vs, "smem_over", used - limit);
	set_size(vs, "smem_over_human", used - limit);
	/* halvings of the staged blocks that bring the use under the limit */
	for (k = 1; k < 16 && (used >> k) > limit; k++)
		;
	set_u64(vs, "smem_halvings", k);
	if (!vars_get(vs, "backend"))
		return;
	stages = stages_of(vs, g, triton);
	for (unsigned long long s = stages - 1; s >= 1 && stages > 1; s--)
		if (used / stages * s <= limit) {
			set_u64(vs, triton ? "num_stages_fit" : "max_concurrent_steps_fit", s);
			break;
		}
}

static void
derive_block(struct vars *vs, const struct chiptab *t, const struct gpu *g)
{
	const char *v = vars_get(vs, "gpu_block"), *dt = vars_get(vs, "dtype");
	const struct dtype *dtype = chiptab_find_dtype(t, dt);
	struct gpu_block_rule r = { 0 };
	struct gpu_block_check c;
	struct shape s;
	struct buf b = BUF_INIT;

	if (!v || shape_parse(&s, v, false, NULL) < 0 || !vars_get(vs, "backend"))
		return;
	r.triton = vars_is(vs, "backend", "triton");
	r.bits = dtype ? dtype->bits : 32;
	r.mma = g ? g->mma : NULL;
	/* without the dtype only the Triton rule, which ignores it, can be judged */
	if (!dtype && !r.triton)
		return;
	gpu_block_check(&s, &r, &c);
	if (c.legal || !c.nprops)
		return;
	shape_format(&c.props[0], &b);
	vars_set(vs, "gpu_block_legal", b.data, false);
	buf_release(&b);
}

void
gpu_advice_derive(const struct ruleset *rs, struct vars *vs)
{
	const struct chiptab *t = rs ? rs->chips : NULL;
	const struct gpu *g = derive_gpu(t, vs);

	derive_smem(vs, g);
	derive_block(vs, t, g);
}
