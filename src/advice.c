/* SPDX-License-Identifier: MIT */
/*
 * advice_derive() and verdict_derive() (pt/advice.h): turn the numbers a log printed (captures such as `used`,
 * `limit`, `block`, `tiling`) and the chip table into concrete values for
 * the layout and capacity advice: the vmem_limit_bytes to try, the nearest
 * legal block, the halved blocks of the shrinking order. Each value is
 * derived only from what is known; nothing is guessed, and garbage in a
 * capture leaves the values that depend on it unset. Names and meanings are
 * listed in docs/calculators.md ("Values for the advice").
 *
 * Decisions:
 *  - headroom for vmem_limit_bytes: a quarter of the use, at least 4 MiB,
 *    rounded up to a MiB (vmem_propose_limit); the log's number is what the
 *    compiler measured, so it already includes temporaries and spills;
 *  - the cap is the chip's physical VMEM; where a source disputes it (7x),
 *    the larger value is allowed and vmem_physical_disputed=yes says so;
 *  - scoped_limit_hit=yes when the limit is below the chip's physical VMEM;
 *    without a known chip, when the limit is a scoped default of some chip
 *    in the table and no chip's physical VMEM (32 MiB, 96 MiB: yes; 16 MiB
 *    and 64 MiB are both, so they stay unset).
 *  - without a `block`, the last two dims of the largest allocation an OOM
 *    lists (largest_shape) are the block to halve: largest_block;
 *  - jax_upgrade_to (with _what and _from) when the captures name a gap a
 *    later JAX release closed (jaxapi_derive, rules/jax-api.yaml).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt/advice.h"
#include "pt/block.h"
#include "pt/chips.h"
#include "pt/jaxapi.h"
#include "pt/ladder.h"
#include "pt/vmem.h"

struct advice {
	struct vars *vs;
	const struct chiptab *tab;
	const struct chip *chip;        /* NULL when unknown */
	const struct dtype *dtype;      /* NULL when unknown */
};

static void
set(struct advice *a, const char *name, const char *value)
{
	vars_set(a->vs, name, value, false);
}

static void
set_u64(struct advice *a, const char *name, unsigned long long v)
{
	char num[32];

	snprintf(num, sizeof(num), "%llu", v);
	set(a, name, num);
}

static void
set_size(struct advice *a, const char *name, unsigned long long v)
{
	struct buf b = BUF_INIT;

	vmem_format_size(v, &b);
	set(a, name, b.data);
	buf_release(&b);
}

static void
set_shape(struct advice *a, const char *name, const struct shape *s)
{
	struct buf b = BUF_INIT;

	shape_format(s, &b);
	set(a, name, b.data);
	buf_release(&b);
}

static bool
get_size(const struct advice *a, const char *name, unsigned long long *out)
{
	const char *v = vars_get(a->vs, name);

	return v && vmem_parse_size(v, out) == 0;
}

static bool
get_shape(const struct advice *a, const char *name, struct shape *out)
{
	const char *v = vars_get(a->vs, name);

	return v && shape_parse(out, v, true, NULL) == 0;
}

static void
derive_chip(struct advice *a)
{
	unsigned long long alt;

	/* `chip` (a user flag or an accelerator type) first, else the device kind string */
	a->chip = chiptab_find_chip(a->tab, vars_get(a->vs, "chip"));
	if (!a->chip)
		a->chip = chiptab_find_chip(a->tab, vars_get(a->vs, "device_kind"));
	a->dtype = chiptab_find_dtype(a->tab, vars_get(a->vs, "dtype"));
	if (a->dtype && a->dtype->unsupported)
		a->dtype = NULL;
	if (a->dtype)
		set(a, "dtype_name", a->dtype->name);
	if (!a->chip)
		return;
	set(a, "chip_name", a->chip->name);
	set_u64(a, "physical_vmem", a->chip->vmem_bytes);
	set_size(a, "physical_vmem_human", a->chip->vmem_bytes);
	if ((alt = chip_disputed(a->chip, "vmem_bytes")) > a->chip->vmem_bytes)
		set_size(a, "physical_vmem_disputed_human", alt);
}

/* Physical VMEM allowing for a dispute: the larger of the two, or 0 if unknown. */
static unsigned long long
vmem_ceiling(const struct advice *a)
{
	unsigned long long alt;

	if (!a->chip)
		return 0;
	alt = chip_disputed(a->chip, "vmem_bytes");
	return alt > a->chip->vmem_bytes ? alt : a->chip->vmem_bytes;
}

static void
derive_scoped_hit(struct advice *a, unsigned long long limit)
{
	bool also_physical;

	if (a->chip) {
		if (limit < vmem_ceiling(a))
			set(a, "scoped_limit_hit", "yes");
		return;
	}
	if (chiptab_is_scoped_default(a->tab, limit, &also_physical) && !also_physical)
		set(a, "scoped_limit_hit", "yes");
}

/*
 * With no chip known, a reported limit that is some chip's whole VMEM and
 * no chip's scoped default (128M: v5e, v6e) is most likely physical: a
 * larger vmem_limit_bytes cannot help there, so none is proposed.
 */
static bool
limit_looks_physical(const struct advice *a, unsigned long long limit)
{
	bool physical = false;

	return !a->chip && !chiptab_is_scoped_default(a->tab, limit, &physical) && physical;
}

static void
derive_limit(struct advice *a, unsigned long long used, bool have_limit, unsigned long long limit)
{
	unsigned long long cap = a->chip ? a->chip->vmem_bytes : 0, proposal;

	if (have_limit && used > limit && limit_looks_physical(a, limit)) {
		set(a, "vmem_limit_looks_physical", "yes");
		return;
	}

	if (a->chip && used > cap) {
		if (used > vmem_ceiling(a)) {
			set(a, "vmem_physical_exceeded", "yes");
			return;
		}
		cap = vmem_ceiling(a);
	}
	if (vmem_propose_limit(used, cap, &proposal) < 0 || (have_limit && proposal <= limit))
		return;
	if (a->chip && proposal > a->chip->vmem_bytes)
		set(a, "vmem_physical_disputed", "yes");
	set_u64(a, "vmem_limit_bytes", proposal);
	set_size(a, "vmem_limit_human", proposal);
}

static void
derive_capacity(struct advice *a)
{
	unsigned long long used = 0, limit = 0, over = 0;
	bool have_used = get_size(a, "used", &used), have_limit = get_size(a, "limit", &limit);
	bool have_over = get_size(a, "over", &over);

	if (have_used)
		set_u64(a, "used_bytes", used);
	if (have_limit)
		set_u64(a, "limit_bytes", limit);
	if (!have_over && have_used && have_limit && used > limit) {
		over = used - limit;
		have_over = true;
	}
	if (have_over) {
		set_u64(a, "over_bytes", over);
		set_size(a, "over_human", over);
	}
	if (have_limit && limit > 0)
		derive_scoped_hit(a, limit);
	if (have_used && used > 0)
		derive_limit(a, used, have_limit, limit);
}

/* The tile a block is checked against: the log's tiling wins, then chip + dtype, then 8 x 128. */
static void
block_rule_from(struct advice *a, struct block_rule *r)
{
	struct shape t;
	char tile[64];

	block_rule_default(r);
	if (a->chip && a->dtype)
		block_rule_for_chip(r, a->chip, a->dtype->bits);
	if (get_shape(a, "tiling", &t) && t.rank == 2 && !t.ellipsis && t.dims[0] <= 4096 &&
	    t.dims[1] <= 4096) {
		r->sublane_tile = r->strict_tile = (int)t.dims[0];
		r->lanes = (int)t.dims[1];
	} else if (!(a->chip && a->dtype)) {
		/* the dtype is not known: propose what 32- and 16-bit values both take,
		 * so that no proposal is one check-block calls illegal or a risk for them */
		r->strict_tile = a->chip ? chip_sublane_tile_strict(a->chip, 16) : 16;
		if (a->chip && chip_sublane_tile_strict(a->chip, 32) > r->strict_tile)
			r->strict_tile = chip_sublane_tile_strict(a->chip, 32);
		return;
	}
	snprintf(tile, sizeof(tile), "(%d, %d)", r->sublane_tile, r->lanes);
	set(a, "tile", tile);
	set_u64(a, "sublane_tile", (unsigned long long)r->sublane_tile);
}

static void
derive_block_bytes(struct advice *a, const struct shape *b, const struct block_rule *r)
{
	int bits = a->dtype->bits;
	struct shape padded;
	unsigned long long n;

	if (b->ellipsis || bits > 32)
		return;
	block_padded(b, r->sublane_tile, r->lanes, (long long)r->lanes * (32 / bits), &padded);
	if (!(n = shape_elements(&padded)) || n > VMEM_MAX_BYTES / 32)
		return;
	set_u64(a, "block_bytes", (n * (unsigned)bits + 7) / 8);
	set_size(a, "block_bytes_human", (n * (unsigned)bits + 7) / 8);
}

/*
 * Without a block shape in the log, the largest VMEM allocation of an OOM
 * listing (`largest_shape`, its first entry) stands for the largest block:
 * its last two dims are the block's minor dims, whatever the leading ones
 * (a buffer count, a batch) were. Written "(..., 4096, 2048)" so that no
 * one takes it for the whole block.
 */
static bool
largest_block(struct advice *a, struct shape *out)
{
	struct shape all;

	if (!get_shape(a, "largest_shape", &all) || all.rank < 2 || all.ellipsis)
		return false;
	memset(out, 0, sizeof(*out));
	out->rank = 2;
	out->ellipsis = true;
	out->dims[0] = all.dims[all.rank - 2];
	out->dims[1] = all.dims[all.rank - 1];
	set_shape(a, "largest_block", out);
	return true;
}

static void
derive_block(struct advice *a)
{
	struct shape block, array, base, half;
	struct block_rule r;
	struct block_check bc;
	bool have_array;

	if (!get_shape(a, "block", &block) && !largest_block(a, &block))
		return;
	have_array = get_shape(a, "array", &array);
	block_rule_from(a, &r);
	block_check(&block, have_array ? &array : NULL, &r, BLOCK_MEM_VMEM, &bc);
	if (bc.problem == BLOCK_DIMS && bc.nprops > 0) {
		set(a, "block_ok", "no");
		set_shape(a, "block_legal", &bc.props[0].shape);
		base = bc.props[0].shape;
	} else if (bc.problem == BLOCK_OK && bc.e2002_risk && bc.nprops > 0) {
		/* legal under the lowering's tile, not under the one Mosaic may pick
		 * (or that another width of the unknown dtype needs): advice starts
		 * from the safer block, so that nothing it proposes is a risk */
		set(a, "block_ok", "yes");
		set_shape(a, "block_legal", &bc.props[0].shape);
		base = bc.props[0].shape;
	} else if (bc.problem == BLOCK_OK) {
		set(a, "block_ok", "yes");
		base = block;
	} else {
		return;
	}
	if (block_halve_minor(&base, base.rank == 1 && !base.ellipsis ? r.sublanes * r.lanes
								  : r.lanes, &half))
		set_shape(a, "block_halved_minor", &half);
	if ((base.rank >= 2) && block_halve_second(&base, r.strict_tile, &half))
		set_shape(a, "block_halved_second", &half);
	if (a->dtype)
		derive_block_bytes(a, &base, &r);
}

void
advice_derive(const struct ruleset *rs, struct vars *vs)
{
	struct advice a = { vs, rs ? rs->chips : NULL, NULL, NULL };

	derive_chip(&a);
	gpu_advice_derive(rs, vs);
	/* the TPU block and VMEM arithmetic means nothing for a GPU kernel */
	if (!vars_is(vs, "platform", "gpu")) {
		derive_capacity(&a);
		derive_block(&a);
	}
	jaxapi_derive(rs ? rs->api : NULL, vs);
}

/*
 * A rule's `refine`: what the log's text says is sharpened by the values
 * derived from it (a limit that is the chip's whole VMEM is no scoped
 * limit). The first entry whose value is known gives the subkind (borrowed
 * from the rule, as the verdict's subkind always is) and the message.
 */
static void
refine(struct verdict *v)
{
	struct buf b = BUF_INIT;

	for (char **p = v->top_rule ? v->top_rule->refine : NULL; p && p[0]; p += 3) {
		if (!vars_get(&v->vars, p[0]))
			continue;
		v->subkind = p[1];
		vars_expand(&v->vars, p[2], &b);
		free(v->message);
		v->message = buf_detach(&b, NULL);
		return;
	}
}

void
verdict_derive(const struct ruleset *rs, struct verdict *v)
{
	advice_derive(rs, &v->vars);
	refine(v);
	if (!vars_get(&v->vars, "chip") && vars_get(&v->vars, "chip_name"))
		vars_set(&v->vars, "chip", vars_get(&v->vars, "chip_name"), false);
}

void
verdict_set_jax(const struct ruleset *rs, struct verdict *v, const char *version)
{
	vars_set(&v->vars, "jax_version", version, true);
	vars_unset(&v->vars, "jax_upgrade_to");
	vars_unset(&v->vars, "jax_upgrade_what");
	vars_unset(&v->vars, "jax_upgrade_from");
	jaxapi_derive(rs ? rs->api : NULL, &v->vars);
	if (!v->top_rule)
		return;
	if (v->message) {
		free(v->message);
		v->message = ladder_message(rs, &v->vars, v->top_rule->message);
	}
	if (v->reason && v->cls == CLASS_UNKNOWN) {
		free(v->reason);
		v->reason = ladder_message(rs, &v->vars, v->top_rule->message);
	}
}
