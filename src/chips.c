/* SPDX-License-Identifier: MIT */
/*
 * The chip table: schema validation of the `chips` and `dtypes` sections
 * (from a ytree, so every problem has a file:line:col) and the lookups the
 * calculators use. It holds no chip numbers itself; see rules/chips.yaml.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pt/chips.h"
#include "pt/chiptab_parse.h"
#include "pt/gpus.h"
#include "pt/xalloc.h"
#include "pt/ytree.h"

const int chip_widths[CHIP_NWIDTHS] = { 32, 16, 8, 4 };

static const char *const chip_keys[] = {
	"name", "generation", "device_kinds", "aliases", "cores_per_chip", "vmem_bytes",
	"smem_bytes", "sublanes", "lanes", "scoped_vmem_default_bytes", "internal_scratch_bytes",
	"sublane_tiling", "sublane_tiling_x16_flag", "matmul", "disputes", "note", NULL,
};
static const char *const dtype_keys[] = { "name", "aliases", "bits", "unsupported", "note", NULL };
static const char *const matmul_keys[] = { "lhs", "rhs", "both", "note", NULL };
static const char *const dispute_keys[] = { "field", "value", "source", NULL };
static const char *const dispute_fields[] = {
	"vmem_bytes", "smem_bytes", "scoped_vmem_default_bytes", "internal_scratch_bytes", NULL,
};

/* ---- freeing ---- */

static void
chip_free(struct chip *c)
{
	if (!c)
		return;
	xfree(c->name);
	strv_free(c->aliases);
	strv_free(c->device_kinds);
	for (size_t i = 0; i < c->nmatmul; i++) {
		strv_free(c->matmul[i].lhs);
		strv_free(c->matmul[i].rhs);
		xfree(c->matmul[i].note);
	}
	xfree(c->matmul);
	for (size_t i = 0; i < c->ndisputes; i++) {
		xfree(c->disputes[i].field);
		xfree(c->disputes[i].source);
	}
	xfree(c->disputes);
	xfree(c->note);
	xfree(c->file);
	xfree(c);
}

static void
dtype_free(struct dtype *t)
{
	if (!t)
		return;
	xfree(t->name);
	strv_free(t->aliases);
	xfree(t->unsupported);
	xfree(t->note);
	xfree(t->file);
	xfree(t);
}

void
chiptab_free(struct chiptab *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nchips; i++)
		chip_free(t->chips[i]);
	for (size_t i = 0; i < t->ndtypes; i++)
		dtype_free(t->dtypes[i]);
	gputab_release(t);
	xfree(t->chips);
	xfree(t->dtypes);
	xfree(t);
}

/* ---- parsing helpers ---- */

static char **
empty_strv(void)
{
	return xcalloc(1, sizeof(char *));
}

/* Non-empty strings in a list, each at most once. */
static int
want_names(const struct ynode *m, const char *key, bool required, char ***out, const char *file,
	   const char *what, struct diag *d)
{
	const struct ynode *v = ynode_get(m, key);
	size_t n = 0;

	if (chiptab_want_list(m, key, required, out, &n, file, what, d) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct ynode *at = v->kind == YNODE_SEQ ? v->items[i] : v;

		bool repeated = false;

		for (size_t j = 0; j < i; j++)
			repeated = repeated || strcasecmp((*out)[j], (*out)[i]) == 0;
		if (!(*out)[i][0] || repeated) {
			diag_error(d, file, at->line, at->col, "%s '%s' in %s",
				   (*out)[i][0] ? "repeated name" : "empty name", (*out)[i], what);
			strv_free(*out);
			*out = NULL;
			return -1;
		}
	}
	return 0;
}

/* ---- dtypes ---- */

static const struct dtype *
find_dtype_exact(const struct chiptab *t, const char *s)
{
	for (size_t i = 0; t && i < t->ndtypes; i++)
		if (chiptab_is_named(t->dtypes[i]->name, t->dtypes[i]->aliases, s))
			return t->dtypes[i];
	return NULL;
}

static int
dtype_names_free(const struct chiptab *t, const struct dtype *dt, const struct ynode *m,
		 const char *file, struct diag *d)
{
	const struct dtype *other;
	int ret = 0;

	if ((other = find_dtype_exact(t, dt->name))) {
		if (strcasecmp(other->name, dt->name) == 0)
			diag_error(d, file, m->line, m->col, "dtype '%s' is already defined at %s:%d",
				   dt->name, other->file, other->line);
		else
			diag_error(d, file, m->line, m->col, "dtype '%s' is already an alias of "
				   "dtype '%s' (%s:%d)", dt->name, other->name, other->file, other->line);
		ret = -1;
	}
	for (char **a = dt->aliases; *a; a++)
		if ((other = find_dtype_exact(t, *a)) || strcasecmp(*a, dt->name) == 0) {
			diag_error(d, file, m->line, m->col, "alias '%s' of dtype '%s' is already "
				   "taken by dtype '%s'", *a, dt->name, other ? other->name : dt->name);
			ret = -1;
		}
	return ret;
}

/* A chiptab_add_fn: the dtype goes into t only when it has no errors. */
static int
add_dtype(struct chiptab *t, const struct ynode *m, const char *what, const char *file,
	  struct diag *d)
{
	struct dtype *dt = xcalloc(1, sizeof(*dt));
	const char *name = NULL, *unsup = NULL, *note = NULL;
	int err = 0;

	err |= ynode_check_keys(m, dtype_keys, file, what, d);
	err |= ynode_want_str(m, "name", true, &name, file, what, d);
	err |= want_names(m, "aliases", false, &dt->aliases, file, what, d);
	err |= chiptab_want_int(m, "bits", true, 1, 64, &dt->bits, file, what, d);
	err |= ynode_want_str(m, "unsupported", false, &unsup, file, what, d);
	err |= ynode_want_str(m, "note", false, &note, file, what, d);
	if (!err && 32 % dt->bits != 0 && dt->bits != 64) {
		const struct ynode *b = ynode_get(m, "bits");

		diag_error(d, file, b->line, b->col, "'bits' in %s must be 1, 2, 4, 8, 16, 32 or 64, "
			   "not %d", what, dt->bits);
		err = -1;
	}
	dt->name = dup_or_null(name);
	dt->unsupported = dup_or_null(unsup);
	dt->note = dup_or_null(note);
	dt->file = xstrdup(file);
	dt->line = m->line;
	if (!dt->aliases)
		dt->aliases = empty_strv();
	if (!err && dtype_names_free(t, dt, m, file, d) < 0)
		err = -1;
	if (err) {
		dtype_free(dt);
		return -1;
	}
	XGROW(t->dtypes, t->alloc_dtypes, t->ndtypes + 1);
	t->dtypes[t->ndtypes++] = dt;
	return 0;
}

/* ---- chips ---- */

static int
parse_tiling(struct chip *c, const struct ynode *m, const char *what, const char *file,
	     struct diag *d)
{
	const struct ynode *t;
	bool seen[CHIP_NWIDTHS] = { false };
	int ret = 0;

	if (ynode_want(m, "sublane_tiling", YNODE_MAP, true, &t, file, what, d) < 0)
		return -1;
	for (size_t i = 0; i + 1 < t->n; i += 2) {
		const struct ynode *k = t->items[i], *v = t->items[i + 1];
		char *end;
		long tile;
		int w = -1;

		for (int j = 0; j < CHIP_NWIDTHS && k->kind == YNODE_SCALAR; j++)
			if (strtol(k->str, &end, 10) == chip_widths[j] && !*end && k->len)
				w = j;
		if (w < 0) {
			diag_error(d, file, k->line, k->col, "'sublane_tiling' in %s takes the widths "
				   "32, 16, 8 and 4 as keys, not '%s'", what,
				   k->kind == YNODE_SCALAR ? k->str : "?");
			ret = -1;
			continue;
		}
		tile = v->kind == YNODE_SCALAR ? strtol(v->str, &end, 10) : 0;
		if (v->kind != YNODE_SCALAR || !v->plain || *end || !v->len || tile < 1 || tile > 4096) {
			diag_error(d, file, v->line, v->col, "the %d-bit tile in %s must be an integer "
				   "between 1 and 4096", chip_widths[w], what);
			ret = -1;
			continue;
		}
		c->tiling[w] = (int)tile;
		seen[w] = true;
	}
	for (int j = 0; j < CHIP_NWIDTHS; j++)
		if (!seen[j] && ret == 0) {
			diag_error(d, file, t->line, t->col, "'sublane_tiling' in %s is missing the "
				   "%d-bit tile", what, chip_widths[j]);
			ret = -1;
		}
	return ret;
}

static char **
strv_dup(char *const *v)
{
	size_t n = 0;
	char **out;

	while (v[n])
		n++;
	out = xcalloc(n + 1, sizeof(*out));
	for (size_t i = 0; i < n; i++)
		out[i] = xstrdup(v[i]);
	return out;
}

/* `both: [...]` is shorthand for the same list as lhs and rhs. */
static int
parse_matmul_group(struct chip_matmul *g, const struct ynode *m, const char *what,
		   const char *file, struct diag *d)
{
	const char *note = NULL;
	char **both = NULL;
	int err = 0;

	err |= ynode_check_keys(m, matmul_keys, file, what, d);
	err |= want_names(m, "both", false, &both, file, what, d);
	err |= want_names(m, "lhs", false, &g->lhs, file, what, d);
	err |= want_names(m, "rhs", false, &g->rhs, file, what, d);
	err |= ynode_want_str(m, "note", false, &note, file, what, d);
	g->note = dup_or_null(note);
	if (err)
		goto out;
	if (both[0] && (g->lhs[0] || g->rhs[0])) {
		diag_error(d, file, m->line, m->col, "%s has 'both' and also 'lhs' or 'rhs'", what);
		err = -1;
	} else if (both[0]) {
		strv_free(g->lhs);
		strv_free(g->rhs);
		g->lhs = strv_dup(both);
		g->rhs = strv_dup(both);
	} else if (!g->lhs[0] || !g->rhs[0]) {
		diag_error(d, file, m->line, m->col, "%s needs 'both', or 'lhs' and 'rhs'", what);
		err = -1;
	}
out:
	strv_free(both);
	return err ? -1 : 0;
}

static int
parse_matmul(struct chip *c, const struct ynode *m, const char *what, const char *file,
	     struct diag *d)
{
	const struct ynode *seq;
	int ret = 0;

	if (ynode_want(m, "matmul", YNODE_SEQ, true, &seq, file, what, d) < 0)
		return -1;
	c->matmul = xcalloc(seq->n ? seq->n : 1, sizeof(*c->matmul));
	for (size_t i = 0; i < seq->n; i++) {
		const struct ynode *g = seq->items[i];
		char gwhat[200];

		snprintf(gwhat, sizeof(gwhat), "matmul[%zu] of %s", i, what);
		if (g->kind != YNODE_MAP) {
			diag_error(d, file, g->line, g->col, "%s must be a mapping", gwhat);
			ret = -1;
			continue;
		}
		c->nmatmul++;
		if (parse_matmul_group(&c->matmul[c->nmatmul - 1], g, gwhat, file, d) < 0)
			ret = -1;
	}
	return ret;
}

static int
parse_dispute(struct chip_dispute *dp, const struct ynode *m, const char *what, const char *file,
	      struct diag *d)
{
	const char *field = NULL, *source = NULL;
	int err = 0;

	err |= ynode_check_keys(m, dispute_keys, file, what, d);
	err |= ynode_want_str(m, "field", true, &field, file, what, d);
	err |= chiptab_want_bytes(m, "value", true, &dp->value, file, what, d);
	err |= ynode_want_str(m, "source", true, &source, file, what, d);
	dp->field = dup_or_null(field);
	dp->source = dup_or_null(source);
	if (field && !chiptab_strv_has((char *const *)dispute_fields, field)) {
		const struct ynode *f = ynode_get(m, "field");

		diag_error(d, file, f->line, f->col, "'field' in %s must be vmem_bytes, smem_bytes, "
			   "scoped_vmem_default_bytes or internal_scratch_bytes, not '%s'", what, field);
		err = -1;
	}
	return err ? -1 : 0;
}

static int
parse_disputes(struct chip *c, const struct ynode *m, const char *what, const char *file,
	       struct diag *d)
{
	const struct ynode *seq;
	int ret = 0;

	if (ynode_want(m, "disputes", YNODE_SEQ, false, &seq, file, what, d) < 0)
		return -1;
	if (!seq)
		return 0;
	c->disputes = xcalloc(seq->n ? seq->n : 1, sizeof(*c->disputes));
	for (size_t i = 0; i < seq->n; i++) {
		const struct ynode *g = seq->items[i];
		char gwhat[200];

		snprintf(gwhat, sizeof(gwhat), "disputes[%zu] of %s", i, what);
		if (g->kind != YNODE_MAP) {
			diag_error(d, file, g->line, g->col, "%s must be a mapping", gwhat);
			ret = -1;
			continue;
		}
		c->ndisputes++;
		if (parse_dispute(&c->disputes[c->ndisputes - 1], g, gwhat, file, d) < 0)
			ret = -1;
	}
	return ret;
}

static const struct chip *
find_chip_exact(const struct chiptab *t, const char *s)
{
	for (size_t i = 0; t && i < t->nchips; i++)
		if (chiptab_is_named(t->chips[i]->name, t->chips[i]->aliases, s))
			return t->chips[i];
	return NULL;
}

static const struct chip *
find_device_kind(const struct chiptab *t, const char *s)
{
	for (size_t i = 0; t && i < t->nchips; i++)
		if (chiptab_strv_has(t->chips[i]->device_kinds, s))
			return t->chips[i];
	return NULL;
}

static int
chip_names_free(const struct chiptab *t, const struct chip *c, const struct ynode *m,
		const char *file, struct diag *d)
{
	const struct chip *o;
	int ret = 0;

	if ((o = find_chip_exact(t, c->name))) {
		if (strcasecmp(o->name, c->name) == 0)
			diag_error(d, file, m->line, m->col, "chip '%s' is already defined at %s:%d",
				   c->name, o->file, o->line);
		else
			diag_error(d, file, m->line, m->col, "chip '%s' is already an alias of "
				   "chip '%s' (%s:%d)", c->name, o->name, o->file, o->line);
		ret = -1;
	}
	for (char **a = c->aliases; *a; a++)
		if ((o = find_chip_exact(t, *a)) || strcasecmp(*a, c->name) == 0) {
			diag_error(d, file, m->line, m->col, "alias '%s' of chip '%s' is already "
				   "taken by chip '%s'", *a, c->name, o ? o->name : c->name);
			ret = -1;
		}
	for (char **k = c->device_kinds; *k; k++)
		if ((o = find_device_kind(t, *k))) {
			diag_error(d, file, m->line, m->col, "device kind '%s' of chip '%s' is "
				   "already taken by chip '%s'", *k, c->name, o->name);
			ret = -1;
		}
	return ret;
}

static int
parse_chip_numbers(struct chip *c, const struct ynode *m, const char *what, const char *file,
		   struct diag *d)
{
	int err = 0;

	err |= chiptab_want_int(m, "generation", true, 1, 99, &c->generation, file, what, d);
	err |= chiptab_want_int(m, "cores_per_chip", true, 1, 64, &c->cores_per_chip, file, what, d);
	err |= chiptab_want_bytes(m, "vmem_bytes", true, &c->vmem_bytes, file, what, d);
	err |= chiptab_want_bytes(m, "smem_bytes", true, &c->smem_bytes, file, what, d);
	err |= chiptab_want_int(m, "sublanes", true, 1, 1024, &c->sublanes, file, what, d);
	err |= chiptab_want_int(m, "lanes", true, 1, 4096, &c->lanes, file, what, d);
	err |= chiptab_want_bytes(m, "scoped_vmem_default_bytes", false, &c->scoped_default_bytes, file,
			  what, d);
	err |= chiptab_want_bytes(m, "internal_scratch_bytes", false, &c->internal_scratch_bytes, file,
			  what, d);
	err |= chiptab_want_int(m, "sublane_tiling_x16_flag", false, 1, 4096, &c->tiling_x16_flag, file,
			  what, d);
	return err ? -1 : 0;
}

/* A chiptab_add_fn: the chip goes into t only when it has no errors. */
static int
add_chip(struct chiptab *t, const struct ynode *m, const char *what, const char *file,
	 struct diag *d)
{
	struct chip *c = xcalloc(1, sizeof(*c));
	const char *name = NULL, *note = NULL;
	int err = 0;

	err |= ynode_check_keys(m, chip_keys, file, what, d);
	err |= ynode_want_str(m, "name", true, &name, file, what, d);
	err |= want_names(m, "device_kinds", true, &c->device_kinds, file, what, d);
	err |= want_names(m, "aliases", false, &c->aliases, file, what, d);
	err |= parse_chip_numbers(c, m, what, file, d);
	err |= parse_tiling(c, m, what, file, d);
	err |= parse_matmul(c, m, what, file, d);
	err |= parse_disputes(c, m, what, file, d);
	err |= ynode_want_str(m, "note", false, &note, file, what, d);
	c->name = dup_or_null(name);
	c->note = dup_or_null(note);
	c->file = xstrdup(file);
	c->line = m->line;
	if (!c->aliases)
		c->aliases = empty_strv();
	if (!c->device_kinds)
		c->device_kinds = empty_strv();
	if (!err && chip_names_free(t, c, m, file, d) < 0)
		err = -1;
	if (err) {
		chip_free(c);
		return -1;
	}
	XGROW(t->chips, t->alloc_chips, t->nchips + 1);
	t->chips[t->nchips++] = c;
	return 0;
}

int
chiptab_parse(struct chiptab **out, const struct ynode *chips, const struct ynode *dtypes,
	      const char *file, struct diag *d)
{
	int ret = 0;

	/* dtypes first: nothing in a chip refers to them before chiptab_finish */
	if (dtypes && chiptab_parse_each(out, dtypes, "dtypes", "dtype", add_dtype, file, d) < 0)
		ret = -1;
	if (chips && chiptab_parse_each(out, chips, "chips", "chip", add_chip, file, d) < 0)
		ret = -1;
	return ret;
}

/* Every name in `names` is a canonical dtype; names also in `skip` were reported already. */
static int
check_matmul_names(const struct chiptab *t, const struct chip *c, char *const *names,
		   char *const *skip, const char *side, struct diag *d)
{
	int ret = 0;

	for (; names && *names; names++) {
		const struct dtype *dt = find_dtype_exact(t, *names);

		if ((dt && strcmp(dt->name, *names) == 0) || chiptab_strv_has(skip, *names))
			continue;
		diag_error(d, c->file, c->line, 0, "chip '%s': matmul %s '%s' is not a dtype name%s%s",
			   c->name, side, *names, dt ? "; write " : "", dt ? dt->name : "");
		ret = -1;
	}
	return ret;
}

int
chiptab_finish(const struct chiptab *t, struct diag *d)
{
	int ret = 0;

	for (size_t i = 0; t && i < t->nchips; i++) {
		const struct chip *c = t->chips[i];

		for (size_t g = 0; g < c->nmatmul; g++) {
			if (check_matmul_names(t, c, c->matmul[g].lhs, NULL, "lhs", d) < 0)
				ret = -1;
			if (check_matmul_names(t, c, c->matmul[g].rhs, c->matmul[g].lhs, "rhs", d) < 0)
				ret = -1;
		}
	}
	return ret;
}

/* ---- lookups ---- */

const struct chip *
chiptab_find_chip(const struct chiptab *t, const char *s)
{
	const struct chip *best = NULL;
	size_t best_len = 0;

	if (!t || !s)
		return NULL;
	if ((best = find_chip_exact(t, s)))
		return best;
	for (size_t i = 0; i < t->nchips; i++) {
		size_t len = chiptab_kind_len(t->chips[i]->device_kinds, s);

		if (len > best_len) {
			best_len = len;
			best = t->chips[i];
		}
	}
	return best;
}

const struct dtype *
chiptab_find_dtype(const struct chiptab *t, const char *s)
{
	static const char *const prefixes[] = { "jax.numpy.", "jnp.", "numpy.", "np.", NULL };
	char name[64];
	size_t len;

	if (!t || !s)
		return NULL;
	while (isspace((unsigned char)*s) || *s == '\'' || *s == '"')
		s++;
	for (const char *const *p = prefixes; *p; p++)
		if (strncasecmp(s, *p, strlen(*p)) == 0) {
			s += strlen(*p);
			break;
		}
	len = strlen(s);
	while (len && (isspace((unsigned char)s[len - 1]) || s[len - 1] == '\'' || s[len - 1] == '"'))
		len--;
	if (len == 0 || len >= sizeof(name))
		return NULL;
	memcpy(name, s, len);
	name[len] = '\0';
	return find_dtype_exact(t, name);
}

int
chip_sublane_tile(const struct chip *c, int bits)
{
	for (int j = 0; j < CHIP_NWIDTHS; j++)
		if (chip_widths[j] == bits)
			return c->tiling[j];
	if (bits <= 0 || bits > 32)
		return 0;
	return c->sublanes * (32 / bits);
}

int
chip_sublane_tile_strict(const struct chip *c, int bits)
{
	int tile = chip_sublane_tile(c, bits);

	if (bits == 16 && c->tiling_x16_flag > tile)
		return c->tiling_x16_flag;
	return tile;
}

unsigned long long
chip_disputed(const struct chip *c, const char *field)
{
	unsigned long long best = 0;

	for (size_t i = 0; c && i < c->ndisputes; i++)
		if (strcmp(c->disputes[i].field, field) == 0 && c->disputes[i].value > best)
			best = c->disputes[i].value;
	return best;
}

bool
chip_matmul_native(const struct chip *c, const char *name, bool lhs)
{
	for (size_t g = 0; c && g < c->nmatmul; g++)
		if (chiptab_strv_has(lhs ? c->matmul[g].lhs : c->matmul[g].rhs, name))
			return true;
	return false;
}

bool
chiptab_is_scoped_default(const struct chiptab *t, unsigned long long bytes, bool *also_physical)
{
	bool found = false;

	*also_physical = false;
	for (size_t i = 0; t && i < t->nchips; i++) {
		const struct chip *c = t->chips[i];

		if (c->scoped_default_bytes == bytes)
			found = true;
		for (size_t k = 0; k < c->ndisputes; k++)
			if (c->disputes[k].value == bytes &&
			    strcmp(c->disputes[k].field, "scoped_vmem_default_bytes") == 0)
				found = true;
		if (c->vmem_bytes == bytes)
			*also_physical = true;
	}
	return found;
}

/* Does chip c have a name or alias that starts with s (case aside)? */
static bool
chip_named_like(const struct chip *c, const char *s)
{
	size_t n = strlen(s);

	if (strncasecmp(c->name, s, n) == 0)
		return true;
	for (char **a = c->aliases; a && *a; a++)
		if (strncasecmp(*a, s, n) == 0)
			return true;
	return false;
}

/*
 * A name a user typed that is no chip's own name but the start of several
 * chips' names ("v5": v5e or v5p?) is refused with the candidates, even
 * where a log's device kind makes it one of them ("TPU v5" is v5p).
 */
bool
chiptab_ambiguous_name(const struct chiptab *t, const char *s, struct pt_err *err)
{
	char cands[256] = "";
	size_t len = 0, n = 0;

	for (size_t i = 0; t && i < t->nchips; i++)
		if (strcasecmp(t->chips[i]->name, s) == 0)
			return false;
	for (size_t i = 0; t && i < t->nchips && len < sizeof(cands); i++)
		if (chip_named_like(t->chips[i], s)) {
			len += (size_t)snprintf(cands + len, sizeof(cands) - len, "%s%s", n ? ", " : "",
						t->chips[i]->name);
			n++;
		}
	if (n < 2)
		return false;
	pt_err_set(err, PT_EXIT_USAGE, "chip '%s' is ambiguous: it may be %s; name one", s, cands);
	return true;
}

const struct chip *
chiptab_want_chip(const struct chiptab *t, const char *s, struct pt_err *err)
{
	const struct chip *c;
	char known[256] = "";
	size_t len = 0;

	if (chiptab_ambiguous_name(t, s, err))
		return NULL;
	if ((c = chiptab_find_chip(t, s)))
		return c;
	for (size_t i = 0; t && i < t->nchips && len < sizeof(known); i++)
		len += (size_t)snprintf(known + len, sizeof(known) - len, "%s%s", i ? ", " : "",
					t->chips[i]->name);
	pt_err_set(err, PT_EXIT_USAGE, "unknown chip '%s' (known: %s)", s, known);
	return NULL;
}

const struct dtype *
chiptab_want_dtype(const struct chiptab *t, const char *s, struct pt_err *err)
{
	const struct dtype *dt = chiptab_find_dtype(t, s);
	char known[400] = "";
	size_t len = 0;

	if (dt && dt->unsupported) {
		pt_err_set(err, PT_EXIT_USAGE, "dtype '%s': %s", dt->name, dt->unsupported);
		return NULL;
	}
	if (dt)
		return dt;
	for (size_t i = 0; t && i < t->ndtypes && len < sizeof(known); i++)
		if (!t->dtypes[i]->unsupported)
			len += (size_t)snprintf(known + len, sizeof(known) - len, "%s%s",
						len ? ", " : "", t->dtypes[i]->name);
	pt_err_set(err, PT_EXIT_USAGE, "unknown dtype '%s' (known: %s)", s, known);
	return NULL;
}
