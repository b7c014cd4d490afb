/* SPDX-License-Identifier: MIT */
/*
 * Block-shape legality and the nearest legal shapes; see pt/block.h for the
 * rules. Pure: callers print.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pt/block.h"
#include "pt/chips.h"

/* ---- shapes ---- */

static char *
trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static bool
is_squeezed(const char *tok)
{
	return strcmp(tok, "None") == 0 || strcmp(tok, "Squeezed()") == 0 ||
	       strcmp(tok, "pl.Squeezed()") == 0 || strcmp(tok, "squeezed") == 0;
}

static bool
is_ellipsis(const char *tok)
{
	return strcmp(tok, "...") == 0 || strcmp(tok, "\xe2\x80\xa6") == 0 ||
	       strcmp(tok, "Ellipsis") == 0;
}

static int
parse_dim(struct shape *s, const char *tok, bool allow_ellipsis, struct pt_err *err)
{
	char *end;
	long long v;

	if (allow_ellipsis && is_ellipsis(tok) && s->rank == 0 && !s->ellipsis) {
		s->ellipsis = true;
		return 0;
	}
	if (s->rank >= SHAPE_MAX_RANK)
		return pt_err_set(err, PT_EXIT_USAGE, "more than %d dimensions", SHAPE_MAX_RANK);
	if (is_squeezed(tok)) {
		s->squeezed |= 1u << s->rank;
		s->dims[s->rank++] = 1;
		return 0;
	}
	errno = 0;
	v = strtoll(tok, &end, 10);
	if (!*tok || *end || end == tok)
		return pt_err_set(err, PT_EXIT_USAGE, "'%s' is not a dimension", tok);
	if (v <= 0)
		return pt_err_set(err, PT_EXIT_USAGE, "dimension %d is %s: dimensions must be positive",
				  s->rank + 1, tok);
	if (errno || v > SHAPE_MAX_DIM)
		return pt_err_set(err, PT_EXIT_USAGE, "dimension %d is too large (at most %lld)",
				  s->rank + 1, SHAPE_MAX_DIM);
	s->dims[s->rank++] = v;
	return 0;
}

/* Strip one pair of (...) or [...] around the whole text. */
static char *
strip_brackets(char *s)
{
	size_t len = strlen(s);

	if (len >= 2 && ((s[0] == '(' && s[len - 1] == ')') || (s[0] == '[' && s[len - 1] == ']'))) {
		s[len - 1] = '\0';
		return trim(s + 1);
	}
	return s;
}

int
shape_parse(struct shape *out, const char *text, bool allow_ellipsis, struct pt_err *err)
{
	struct shape s = { 0 };
	char copy[512], *p, *next;
	const char *seps;

	if (!text || strlen(text) >= sizeof(copy))
		return pt_err_set(err, PT_EXIT_USAGE, "shape text is missing or too long");
	memcpy(copy, text, strlen(text) + 1);
	p = strip_brackets(trim(copy));
	seps = strchr(p, ',') ? "," : (strchr(p, 'x') || strchr(p, 'X')) ? "xX" : " \t";
	for (; p; p = next) {
		next = strpbrk(p, seps);
		if (next)
			*next++ = '\0';
		p = trim(p);
		if (!*p && !next && s.rank > 0 && strcmp(seps, ",") == 0)
			break;          /* Python's "(512,)" */
		if (!*p && strcmp(seps, " \t") == 0)
			continue;       /* runs of blanks */
		if (parse_dim(&s, p, allow_ellipsis, err) < 0)
			return -1;
	}
	if (s.rank == 0)
		return pt_err_set(err, PT_EXIT_USAGE, "'%s' has no dimensions", text);
	*out = s;
	return 0;
}

void
shape_format(const struct shape *s, struct buf *out)
{
	buf_addch(out, '(');
	if (s->ellipsis)
		buf_adds(out, s->rank ? "..., " : "...");
	for (int i = 0; i < s->rank; i++) {
		if (s->squeezed & (1u << i))
			buf_adds(out, "None");
		else
			buf_addf(out, "%lld", s->dims[i]);
		if (i + 1 < s->rank)
			buf_adds(out, ", ");
	}
	if (s->rank == 1 && !s->ellipsis)
		buf_addch(out, ',');
	buf_addch(out, ')');
}

bool
shape_equal(const struct shape *a, const struct shape *b)
{
	if (a->rank != b->rank || a->ellipsis != b->ellipsis)
		return false;
	for (int i = 0; i < a->rank; i++)
		if (a->dims[i] != b->dims[i])
			return false;
	return true;
}

unsigned long long
shape_elements(const struct shape *s)
{
	unsigned long long n = 1;

	if (s->ellipsis)
		return 0;
	for (int i = 0; i < s->rank; i++) {
		if (n > (1ULL << 62) / (unsigned long long)s->dims[i])
			return 0;
		n *= (unsigned long long)s->dims[i];
	}
	return n;
}

/* ---- memory spaces and rules ---- */

int
block_memory_parse(const char *s, enum block_memory *out)
{
	if (strcasecmp(s, "vmem") == 0)
		*out = BLOCK_MEM_VMEM;
	else if (strcasecmp(s, "smem") == 0)
		*out = BLOCK_MEM_SMEM;
	else if (strcasecmp(s, "any") == 0 || strcasecmp(s, "hbm") == 0)
		*out = BLOCK_MEM_ANY;
	else
		return -1;
	return 0;
}

const char *
block_memory_name(enum block_memory m)
{
	switch (m) {
	case BLOCK_MEM_VMEM: return "vmem";
	case BLOCK_MEM_SMEM: return "smem";
	case BLOCK_MEM_ANY: return "any";
	}
	return "?";
}

void
block_rule_default(struct block_rule *r)
{
	r->sublane_tile = PALLAS_LOWERING_SUBLANES;
	r->lanes = 128;
	r->strict_tile = PALLAS_LOWERING_SUBLANES;
	r->sublanes = 8;
	r->bits = 32;
}

const char *
block_verdict_name(const struct block_check *bc)
{
	return !bc->legal ? "illegal" : bc->e2002_risk ? "risk" : "legal";
}

void
block_rule_for_chip(struct block_rule *r, const struct chip *c, int bits)
{
	r->sublane_tile = chip_sublane_tile(c, bits);
	r->strict_tile = chip_sublane_tile_strict(c, bits);
	r->lanes = c->lanes;
	r->sublanes = c->sublanes;
	r->bits = bits;
}

const char *
dim_choice_name(enum dim_choice c)
{
	switch (c) {
	case CHOICE_KEEP: return "keep";
	case CHOICE_UP: return "round up";
	case CHOICE_DOWN: return "round down";
	case CHOICE_FULL: return "whole array dimension";
	case CHOICE_POW2_UP: return "next power of two";
	case CHOICE_POW2_DOWN: return "previous power of two";
	}
	return "?";
}

/* ---- the check ---- */

static long long ceil_to(long long x, long long m) { return (x + m - 1) / m * m; }
static long long floor_to(long long x, long long m) { return x / m * m; }

static bool
is_pow2(long long x)
{
	return x > 0 && (x & (x - 1)) == 0;
}

static long long
pow2_up(long long x)
{
	long long p = 1;

	while (p < x)
		p <<= 1;
	return p;
}

static long long
pow2_down(long long x)
{
	long long p = 1;

	while (p * 2 <= x)
		p <<= 1;
	return p;
}

/* The array's dimension `from_end` places from the end (1 = minor), or 0. */
static long long
array_dim(const struct shape *array, int from_end)
{
	if (!array || array->rank < from_end)
		return 0;
	return array->dims[array->rank - from_end];
}

static void
check_dim2(struct dim_check *dc, int axis, long long size, const struct block_rule *r,
	   long long full)
{
	long long lowering = axis == -2 ? PALLAS_LOWERING_SUBLANES : r->lanes;
	long long strict = axis == -2 ? r->strict_tile : r->lanes;

	dc->axis = axis;
	dc->size = size;
	dc->multiple = axis == -2 ? r->sublane_tile : r->lanes;
	dc->pow2_min = 0;
	dc->full = full;
	if (size % dc->multiple == 0)
		dc->status = DIM_MULTIPLE;
	else if (full && size == full)
		dc->status = DIM_FULL;
	else
		dc->status = DIM_BAD;
	dc->lowering_ok = size % lowering == 0 || size == full;
	dc->strict_ok = size % strict == 0 || size == full;
}

static void
check_dim1(struct dim_check *dc, long long size, const struct block_rule *r, long long full)
{
	int bits = r->bits > 0 && r->bits <= 32 ? r->bits : 32;

	dc->axis = -1;
	dc->size = size;
	dc->multiple = (long long)r->sublanes * r->lanes;
	dc->pow2_min = 128LL * (32 / bits);
	dc->full = full;
	if (full && size == full)
		dc->status = DIM_FULL;
	else if (size % dc->multiple == 0)
		dc->status = DIM_MULTIPLE;
	else if (is_pow2(size) && size >= dc->pow2_min)
		dc->status = DIM_POW2;
	else
		dc->status = DIM_BAD;
	dc->lowering_ok = dc->status != DIM_BAD;
	dc->strict_ok = true;
}

/* Are block and array the same shape, as far as both are known? */
static bool
whole_array(const struct shape *b, const struct shape *a)
{
	if (!b->ellipsis && !a->ellipsis && b->rank != a->rank)
		return false;
	for (int k = 1; k <= b->rank && k <= a->rank; k++)
		if (b->dims[b->rank - k] != a->dims[a->rank - k])
			return false;
	return true;
}

static bool
ranks_clash(const struct shape *b, const struct shape *a)
{
	return a && !a->ellipsis && !b->ellipsis && a->rank != b->rank;
}

/* ---- proposals ---- */

struct cand {
	long long v;
	enum dim_choice c;
};

static int
add_cand(struct cand *out, int n, long long v, enum dim_choice c)
{
	for (int i = 0; i < n; i++)
		if (out[i].v == v)
			return n;
	out[n].v = v;
	out[n].c = c;
	return n + 1;
}

/* Values for a rank >= 2 dim that are multiples of m (or the array's dim), nearest first. */
static int
cands_multiple(const struct dim_check *dc, long long m, struct cand *out)
{
	long long up = ceil_to(dc->size, m), down = floor_to(dc->size, m);
	int n = 0;

	if (dc->size % m == 0 || (dc->full && dc->size == dc->full))
		return add_cand(out, 0, dc->size, CHOICE_KEEP);
	if (dc->full && up >= dc->full)
		n = add_cand(out, n, dc->full, CHOICE_FULL);
	else
		n = add_cand(out, n, up, CHOICE_UP);
	if (down >= m)
		n = add_cand(out, n, down, CHOICE_DOWN);
	if (dc->full)
		n = add_cand(out, n, dc->full, CHOICE_FULL);
	return n;
}

/* Rank 1: the smallest legal value above comes first. */
static int
cands_rank1(const struct dim_check *dc, struct cand *out)
{
	long long x = dc->size, m = dc->multiple;
	long long up = ceil_to(x, m), p2 = pow2_up(x > dc->pow2_min ? x : dc->pow2_min);
	long long down = floor_to(x, m), p2d = pow2_down(x);
	int n = 0;

	if (dc->status != DIM_BAD)
		return add_cand(out, 0, x, CHOICE_KEEP);
	if (dc->full && dc->full >= x && dc->full <= up && dc->full <= p2)
		n = add_cand(out, n, dc->full, CHOICE_FULL);
	n = add_cand(out, n, p2 < up ? p2 : up, p2 < up ? CHOICE_POW2_UP : CHOICE_UP);
	n = add_cand(out, n, p2 < up ? up : p2, p2 < up ? CHOICE_UP : CHOICE_POW2_UP);
	if (down >= m)
		n = add_cand(out, n, down, CHOICE_DOWN);
	if (p2d >= dc->pow2_min)
		n = add_cand(out, n, p2d, CHOICE_POW2_DOWN);
	if (dc->full)
		n = add_cand(out, n, dc->full, CHOICE_FULL);
	return n;
}

/* How far a proposal is from the block: the ratio of the checked dims' products. */
static double
distance(const struct block_check *bc, const struct block_proposal *p, const struct shape *b)
{
	double was = 1, now = 1;

	for (int i = 0; i < bc->ndims; i++) {
		int k = b->rank - (bc->ndims - i);

		was *= (double)b->dims[k];
		now *= (double)p->shape.dims[k];
	}
	return now > was ? now / was : was / now;
}

static void
sort_props(struct block_proposal *p, size_t n, const struct block_check *bc,
	   const struct shape *b)
{
	/* insertion sort of p[1..n): p[0] is the primary proposal and stays first */
	for (size_t i = 2; i < n; i++)
		for (size_t j = i; j > 1; j--) {
			double dj = distance(bc, &p[j], b), dp = distance(bc, &p[j - 1], b);
			struct block_proposal t;

			if (dj > dp || (dj == dp && shape_elements(&p[j].shape) <=
					shape_elements(&p[j - 1].shape)))
				break;
			t = p[j];
			p[j] = p[j - 1];
			p[j - 1] = t;
		}
}

static void
propose(struct block_check *bc, const struct shape *b, long long second_multiple)
{
	struct cand c[2][6] = { 0 };
	int nc[2] = { 1, 1 };
	struct block_proposal all[36];
	size_t n = 0;

	if (bc->ndims == 1)
		nc[0] = cands_rank1(&bc->dims[0], c[0]);
	else {
		nc[0] = cands_multiple(&bc->dims[0], second_multiple, c[0]);
		nc[1] = cands_multiple(&bc->dims[1], bc->dims[1].multiple, c[1]);
	}
	for (int i = 0; i < nc[0]; i++)
		for (int j = 0; j < (bc->ndims == 2 ? nc[1] : 1); j++) {
			struct block_proposal *p = &all[n];
			bool dup = false;

			p->shape = *b;
			p->choice[0] = c[0][i].c;
			p->choice[1] = bc->ndims == 2 ? c[1][j].c : CHOICE_KEEP;
			p->shape.dims[b->rank - bc->ndims] = c[0][i].v;
			if (bc->ndims == 2)
				p->shape.dims[b->rank - 1] = c[1][j].v;
			for (int k = 0; k < bc->ndims; k++)
				if (p->choice[k] != CHOICE_KEEP)
					p->shape.squeezed &= ~(1u << (b->rank - bc->ndims + k));
			for (size_t k = 0; k < n; k++)
				dup = dup || shape_equal(&all[k].shape, &p->shape);
			if (!dup && !shape_equal(&p->shape, b))
				n++;
		}
	sort_props(all, n, bc, b);
	bc->nprops = n < BLOCK_MAX_PROPOSALS ? n : BLOCK_MAX_PROPOSALS;
	memcpy(bc->props, all, bc->nprops * sizeof(*all));
}

/* ---- the verdict ---- */

static void
check_memory_any(struct block_check *bc, const struct shape *b, const struct shape *array)
{
	if (!array) {
		bc->problem = BLOCK_ANY_NO_ARRAY;
		return;
	}
	if (whole_array(b, array)) {
		bc->legal = true;
		return;
	}
	bc->problem = BLOCK_ANY_NOT_WHOLE;
	bc->props[0].shape = *array;
	bc->props[0].choice[0] = bc->props[0].choice[1] = CHOICE_FULL;
	bc->nprops = 1;
}

static void
check_dims(struct block_check *bc, const struct shape *b, const struct shape *array)
{
	const struct block_rule *r = &bc->rule;

	if (b->rank == 1 && !b->ellipsis) {
		bc->ndims = 1;
		check_dim1(&bc->dims[0], b->dims[0], r, array_dim(array, 1));
	} else {
		bc->ndims = 2;
		check_dim2(&bc->dims[0], -2, b->dims[b->rank - 2], r, array_dim(array, 2));
		check_dim2(&bc->dims[1], -1, b->dims[b->rank - 1], r, array_dim(array, 1));
	}
	bc->legal = true;
	for (int i = 0; i < bc->ndims; i++)
		if (bc->dims[i].status == DIM_BAD)
			bc->legal = false;
	bc->problem = bc->legal ? BLOCK_OK : BLOCK_DIMS;
	if (bc->ndims == 2 && bc->dims[0].status != DIM_BAD && !bc->dims[0].strict_ok)
		bc->e2002_risk = true;
	/* what is proposed must pass the stricter tile too: a proposal that
	 * check-block would call a risk is no fix */
	if (!bc->legal || bc->e2002_risk)
		propose(bc, b, r->strict_tile);
}

void
block_check(const struct shape *b, const struct shape *array, const struct block_rule *rule,
	    enum block_memory mem, struct block_check *out)
{
	struct block_check bc;

	memset(&bc, 0, sizeof(bc));
	bc.rule = *rule;
	bc.problem = BLOCK_OK;
	if (b->rank == 0 && !b->ellipsis)
		bc.problem = BLOCK_RANK0;
	else if (array && ranks_clash(b, array))
		bc.problem = BLOCK_RANK_MISMATCH;
	else if (mem == BLOCK_MEM_ANY)
		check_memory_any(&bc, b, array);
	else if (mem == BLOCK_MEM_SMEM && array && whole_array(b, array))
		bc.legal = bc.smem_exempt = true;
	else if (b->rank < (b->ellipsis ? 2 : 1))
		bc.problem = BLOCK_ELIDED;
	else
		check_dims(&bc, b, array);
	*out = bc;
}

/* ---- shrinking and padding ---- */

bool
block_halve_minor(const struct shape *in, int lanes, struct shape *out)
{
	long long x, v;

	if (in->rank < 1)
		return false;
	x = in->dims[in->rank - 1];
	v = floor_to(x / 2, lanes);
	if (v < lanes || v >= x)
		return false;
	*out = *in;
	out->dims[in->rank - 1] = v;
	out->squeezed &= ~(1u << (in->rank - 1));
	return true;
}

bool
block_halve_second(const struct shape *in, int tile, struct shape *out)
{
	long long x, v;

	if (in->rank < 2)
		return false;
	x = in->dims[in->rank - 2];
	v = floor_to(x / 2, tile);
	if (v < tile || v >= x)
		return false;
	*out = *in;
	out->dims[in->rank - 2] = v;
	out->squeezed &= ~(1u << (in->rank - 2));
	return true;
}

void
block_padded(const struct shape *in, int tile, int lanes, long long tile1d, struct shape *out)
{
	*out = *in;
	out->squeezed = 0;
	if (in->rank == 1 && !in->ellipsis) {
		out->dims[0] = ceil_to(in->dims[0], tile1d);
		return;
	}
	if (in->rank >= 1)
		out->dims[in->rank - 1] = ceil_to(in->dims[in->rank - 1], lanes);
	if (in->rank >= 2)
		out->dims[in->rank - 2] = ceil_to(in->dims[in->rank - 2], tile);
}
