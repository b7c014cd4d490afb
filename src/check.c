/* SPDX-License-Identifier: MIT */
/*
 * The source checker's driver (pt/check.h): options, reading files and
 * walking directories, one file's parse and interpretation, making a
 * finding from the rules' templates, and merging what the runs of one
 * pallas_call found (a wrapper runs once with its call site's arguments
 * and may run again on its own: the notes about values the second run
 * lacked are dropped when the first had them).
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pt/check.h"
#include "pt/check_impl.h"
#include "pt/checktab.h"
#include "pt/chips.h"
#include "pt/gpus.h"
#include "pt/util.h"
#include "pt/xalloc.h"

#define MAX_WALK_DEPTH 32

const char *
check_severity_name(enum check_severity s)
{
	switch (s) {
	case CHECK_ERROR: return "error";
	case CHECK_WARNING: return "warning";
	default: return "note";
	}
}

/* ------------------------------------------------------------ options */

struct resolved {
	const struct chip *chip;
	const struct gpu *gpu;
	bool jv_known;
	struct jaxver jv;
};

static int
resolve_opts(const struct check_opts *o, struct resolved *r, struct pt_err *err)
{
	memset(r, 0, sizeof(*r));
	if (!o->rs || !o->rs->checks || !o->rs->checks->ndefs)
		return pt_err_set(err, PT_EXIT_DATA, "the rules have no 'checks' section "
				  "(rules/check.yaml): nothing to check with");
	if (o->chip && (!o->rs->chips ||
			chiptab_want_target(o->rs->chips, o->chip, &r->chip, &r->gpu, err) < 0))
		return o->rs->chips ? -1 : pt_err_set(err, PT_EXIT_DATA, "the rules have no chip table");
	if (o->jax_version) {
		if (jaxver_parse(o->jax_version, &r->jv) < 0)
			return pt_err_set(err, PT_EXIT_USAGE, "--jax takes a release such as 0.6.2, not "
					  "'%s'", o->jax_version);
		r->jv_known = true;
	}
	for (size_t i = 0; i < o->nbind; i++) {
		const struct check_binding *b = &o->bind[i];

		if (b->shape) {
			const char *colon = strrchr(b->value, ':');
			char dims[256];
			size_t n = colon ? (size_t)(colon - b->value) : strlen(b->value);
			struct shape s;

			if (n >= sizeof(dims))
				return pt_err_set(err, PT_EXIT_USAGE, "--shape %s: the shape is too long",
						  b->name);
			memcpy(dims, b->value, n);
			dims[n] = 0;
			struct pt_err serr = PT_ERR_INIT;

			if (shape_parse(&s, dims, false, &serr) < 0)
				return pt_err_set(err, PT_EXIT_USAGE, "--shape %s=%s: %s", b->name,
						  b->value, serr.msg);
			if (colon && (!o->rs->chips ||
				      !chiptab_want_dtype(o->rs->chips, colon + 1, err)))
				return -1;
		}
	}
	return 0;
}

/* ------------------------------------------------------------ results */

static void
add_problem(struct check_result *r, const char *file, int line, int col, bool fatal,
	    const char *fmt, ...) PT_PRINTF(6, 7);

static void
add_problem(struct check_result *r, const char *file, int line, int col, bool fatal,
	    const char *fmt, ...)
{
	struct check_problem *p;
	va_list ap;
	struct buf b = BUF_INIT;

	XGROW(r->p, r->alloc_p, r->np + 1);
	p = &r->p[r->np++];
	p->file = xstrdup(file);
	p->line = line;
	p->col = col;
	p->fatal = fatal;
	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	p->message = buf_detach(&b, NULL);
}

static void
finding_release(struct check_finding *f)
{
	free(f->file);
	free(f->message);
	free(f->source);
	free(f->use_source);
	free(f->fix);
	free(f->kernel);
	vars_release(&f->vars);
	for (char **p = f->rung_ids; p && *p; p++)
		free(*p);
	for (char **p = f->rung_fixes; p && *p; p++)
		free(*p);
	free(f->rung_ids);
	free(f->rung_fixes);
}

void
check_result_release(struct check_result *r)
{
	for (size_t i = 0; i < r->n; i++)
		finding_release(&r->f[i]);
	for (size_t i = 0; i < r->nk; i++) {
		free(r->k[i].file);
		free(r->k[i].name);
		free(r->k[i].grid);
		free(r->k[i].vmem_detail);
		free(r->k[i].halve_fix[0]);
		free(r->k[i].halve_fix[1]);
	}
	for (size_t i = 0; i < r->np; i++) {
		free(r->p[i].file);
		free(r->p[i].message);
	}
	free(r->f);
	free(r->k);
	free(r->p);
	memset(r, 0, sizeof(*r));
}

void
check_counts(const struct check_result *r, size_t *errors, size_t *warnings, size_t *notes)
{
	size_t e = 0, w = 0, n = 0;

	for (size_t i = 0; i < r->n; i++) {
		if (r->f[i].severity == CHECK_ERROR)
			e++;
		else if (r->f[i].severity == CHECK_WARNING)
			w++;
		else
			n++;
	}
	if (errors)
		*errors = e;
	if (warnings)
		*warnings = w;
	if (notes)
		*notes = n;
}

const struct check_finding *
check_first_of(const struct check_result *r, enum pt_class cls)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->f[i].def->cls == cls && r->f[i].severity != CHECK_NOTE)
			return &r->f[i];
	return NULL;
}

const struct check_kernel *
check_kernel_at(const struct check_result *r, const char *file, long line)
{
	const struct check_kernel *only = NULL;
	size_t nfile = 0;

	for (size_t i = 0; i < r->nk; i++) {
		const struct check_kernel *k = &r->k[i];

		if (file && strcmp(k->file, file) != 0)
			continue;
		nfile++;
		only = k;
		if (line > 0 && ((k->def_line && line >= k->def_line && line <= k->def_end) ||
				 line == k->line))
			return k;
	}
	return nfile == 1 ? only : NULL;
}

/* ------------------------------------------------------------ findings */

const char *
ck_operand_need(struct cctx *cx, const struct karg *a, const char *what)
{
	const struct val *v = a->v;

	if (v && v->kind == VAL_UNKNOWN && v->s)
		return strchr(v->s, ' ') ? v->s : ck_printf(cx, "the %s of %s", what, v->s);
	if (v && v->kind == VAL_ARRAY && v->s)
		return v->s;
	return ck_printf(cx, "the %s of %s", what, a->name ? a->name : "the operand");
}

const char *
ck_where(struct cctx *cx, const struct py_node *n)
{
	return ck_printf(cx, "%s:%d", cx->file, n ? n->line : 0);
}

void
ck_source_text(const struct cctx *cx, const struct py_node *n, char *out, size_t cap)
{
	const char *p;
	size_t len = 0;

	if (!cap)
		return;
	out[0] = 0;
	if (!n || !(p = py_line_at(cx->src, cx->len, n->line, &len)))
		return;
	if (len >= cap)
		len = cap - 1;
	memcpy(out, p, len);
	out[len] = 0;
}

const struct py_node *
ck_dim_fix(struct cctx *cx, const struct val *block, int idx, long long to, long long alt,
	   const struct shape *proposal, struct vars *vs, const char *prefix)
{
	const struct val *e = block && block->kind == VAL_TUPLE && idx >= 0 && (size_t)idx < block->n
			      ? block->elts[idx] : NULL;
	char where[64], change[64], alts[64] = "";

	snprintf(where, sizeof(where), "%s_where", prefix);
	snprintf(change, sizeof(change), "%s_change", prefix);
	if (alt > 0 && alt != to)
		snprintf(alts, sizeof(alts), " (or %lld)", alt);
	if (e && e->kind == VAL_INT && e->origin && e->origin_name) {
		vars_set(vs, where, ck_where(cx, e->origin), true);
		vars_set(vs, change, ck_printf(cx, "%s=%lld -> %lld%s", e->origin_name, e->i, to, alts),
			 true);
		return e->origin;
	}
	if (!block)
		return NULL;
	vars_set(vs, where, ck_where(cx, block->node), true);
	{
		char was[128];
		struct buf b = BUF_INIT;

		val_format(block, was, sizeof(was));
		shape_format(proposal, &b);
		vars_set(vs, change, ck_printf(cx, "block %s -> %s", was, b.data), true);
		buf_release(&b);
	}
	return block->node;
}

/* Can every ${name} of tmpl be filled, once its ${api:NAME}s are spelled? */
static bool
can_render(struct cctx *cx, const char *tmpl, const struct vars *vs)
{
	struct api_render ar;
	struct buf api = BUF_INIT;
	bool ok;

	api_render_init(&ar, cx->rs->api, cx->o->jax_version);
	api_render_text(&ar, tmpl, &api);
	ok = vars_can_expand(vs, api.data);
	api_render_release(&ar);
	buf_release(&api);
	return ok;
}

static char *
render(struct cctx *cx, const char *tmpl, const struct vars *vs)
{
	struct api_render ar;
	struct buf api = BUF_INIT, out = BUF_INIT;

	api_render_init(&ar, cx->rs->api, cx->o->jax_version);
	api_render_text(&ar, tmpl, &api);
	vars_expand(vs, api.data, &out);
	api_render_release(&ar);
	buf_release(&api);
	return buf_detach(&out, NULL);
}

static const char *
kernel_name(const struct kcall *k)
{
	if (!k || !k->kernel)
		return NULL;
	return k->kernel->kind == PY_DEF ? k->kernel->s : "<lambda>";
}

static char *
source_of(const struct cctx *cx, const struct py_node *n)
{
	char line[401];

	ck_source_text(cx, n, line, sizeof(line));
	return xstrdup(line);
}

/*
 * A finding points at the line to change: where a wrong number was
 * written, when the fix names a constant or a default on another line,
 * with the place that uses it kept beside it.
 */
static void
locate(const struct cctx *cx, struct check_finding *f, const struct py_node *node,
       const struct py_node *fix_at)
{
	const struct py_node *at = fix_at && fix_at->line != node->line ? fix_at : node;

	f->line = at->line;
	f->col = at->col;
	f->end_col = at->end_line == at->line ? at->end_col : 0;
	f->source = source_of(cx, at);
	if (at != node) {
		f->use_line = node->line;
		f->use_col = node->col;
		f->use_end_col = node->end_line == node->line ? node->end_col : 0;
		f->use_source = source_of(cx, node);
	}
}

void
ck_report(struct cctx *cx, const char *code, const struct py_node *node,
	  const struct py_node *fix_at, const struct kcall *k, struct vars *vs)
{
	const struct check_def *d = checktab_find(cx->tab, code);
	struct check_finding *f;
	const struct kcall *top = k && k->outer ? k->outer : k;
	size_t n = 0;

	if (!d || !node)
		return;
	/*
	 * Interpret mode runs the kernel's jaxpr without Mosaic or Triton; a
	 * SparseCore kernel is compiled under other rules than the ones checked.
	 */
	if (d->compiled && ((top && top->interpret) || cx->sparsecore))
		return;
	if (kernel_name(top))
		vars_set(vs, "kernel", kernel_name(top), false);
	vars_set(vs, "file", cx->file, false);
	vars_set(vs, "line", ck_printf(cx, "%d", node->line), false);
	XGROW(cx->found, cx->alloc_found, cx->nfound + 1);
	f = &cx->found[cx->nfound++];
	memset(f, 0, sizeof(*f));
	f->def = d;
	f->severity = d->compiled && top && top->backend_assumed ? CHECK_NOTE : d->severity;
	f->file = xstrdup(cx->file);
	f->message = render(cx, d->message, vs);
	locate(cx, f, node, fix_at);
	f->fix = d->fix && can_render(cx, d->fix, vs) ? render(cx, d->fix, vs) : NULL;
	f->fix_line = fix_at ? fix_at->line : 0;
	f->kernel = top && kernel_name(top) ? xstrdup(kernel_name(top)) : NULL;
	f->call_line = top ? top->node->line : 0;
	vars_copy(&f->vars, vs, true);
	while (d->rung_ids[n])
		n++;
	f->rung_ids = xcalloc(n + 1, sizeof(char *));
	f->rung_fixes = xcalloc(n + 1, sizeof(char *));
	for (size_t i = 0, k2 = 0; i < n; i++)
		if (can_render(cx, d->rung_fixes[i], vs)) {
			f->rung_ids[k2] = xstrdup(d->rung_ids[i]);
			f->rung_fixes[k2++] = render(cx, d->rung_fixes[i], vs);
		}
}

/* ------------------------------------------------------------ merging */

static bool
needs_value_note(const struct check_finding *f)
{
	return strcmp(f->def->code, "L009") == 0 || strcmp(f->def->code, "C009") == 0;
}

/* Was this pallas_call seen somewhere with everything the note says is missing? */
static bool
known_elsewhere(const struct cctx *cx, const struct check_finding *f)
{
	bool layout = strcmp(f->def->code, "L009") == 0;

	for (size_t i = 0; i < cx->ncalls; i++) {
		const struct kcall *k = cx->calls[i];

		if (k->node->line == f->call_line && (layout ? k->layout_known : k->vmem_known))
			return true;
	}
	return false;
}

static bool
duplicate(const struct check_result *r, size_t from, const struct check_finding *f)
{
	for (size_t i = from; i < r->n; i++) {
		const struct check_finding *g = &r->f[i];

		if (g->def == f->def && g->line == f->line && g->col == f->col &&
		    strcmp(g->message, f->message) == 0)
			return true;
	}
	return false;
}

static int
cmp_finding(const void *a, const void *b)
{
	const struct check_finding *x = a, *y = b;
	int c = strcmp(x->file, y->file);

	if (c)
		return c;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->col != y->col)
		return x->col < y->col ? -1 : 1;
	return strcmp(x->def->code, y->def->code);
}

static void
merge_findings(struct cctx *cx, struct check_result *r)
{
	size_t from = r->n;

	for (size_t i = 0; i < cx->nfound; i++) {
		struct check_finding *f = &cx->found[i];

		if ((needs_value_note(f) && known_elsewhere(cx, f)) || duplicate(r, from, f)) {
			finding_release(f);
			continue;
		}
		XGROW(r->f, r->alloc, r->n + 1);
		r->f[r->n++] = *f;
	}
	free(cx->found);
	cx->found = NULL;
	cx->nfound = 0;
	if (r->n > from)
		qsort(r->f + from, r->n - from, sizeof(*r->f), cmp_finding);
}

/* One summary per pallas_call: the run that knew the most. */
static void
summarise(struct cctx *cx, struct check_result *r)
{
	for (size_t i = 0; i < cx->ncalls; i++) {
		const struct kcall *k = cx->calls[i], *best = k;
		struct check_kernel *s;
		bool seen = false;

		if (k->is_pipeline)
			continue;
		for (size_t j = 0; j < i; j++)
			seen |= cx->calls[j]->node == k->node;
		if (seen)
			continue;
		for (size_t j = i + 1; j < cx->ncalls; j++)
			if (cx->calls[j]->node == k->node && cx->calls[j]->vmem_known && !best->vmem_known)
				best = cx->calls[j];
		XGROW(r->k, r->alloc_k, r->nk + 1);
		s = &r->k[r->nk++];
		memset(s, 0, sizeof(*s));
		s->file = xstrdup(cx->file);
		s->name = kernel_name(best) ? xstrdup(kernel_name(best)) : NULL;
		s->line = best->node->line;
		if (best->kernel) {
			s->def_line = best->kernel->line;
			s->def_end = best->kernel->end_line ? best->kernel->end_line : best->kernel->line;
			for (size_t n = 0; best->kernel->items.n && n < 1; n++) {
				const struct py_node *last = best->kernel->items.v[best->kernel->items.n - 1];

				s->def_end = last->end_line > s->def_end ? last->end_line : s->def_end;
			}
		}
		s->backend = best->backend;
		if (best->grid && best->grid->kind == VAL_TUPLE && !val_need(best->grid)) {
			char g[128];

			val_format(best->grid, g, sizeof(g));
			s->grid = xstrdup(g);
		}
		s->vmem_known = best->vmem_known;
		s->vmem_bytes = best->vmem_total;
		s->vmem_detail = best->vmem_detail ? xstrdup(best->vmem_detail) : NULL;
		for (int h = 0; h < 2; h++)
			s->halve_fix[h] = best->halve_fix[h] ? xstrdup(best->halve_fix[h]) : NULL;
	}
}

/* ------------------------------------------------------------ one file */

/* Does the file import a module the checker names by this prefix? */
static bool
imports_prefix(const struct cctx *cx, const char *prefix)
{
	size_t n = strlen(prefix);

	for (size_t i = 0; i < cx->module->n; i++) {
		const struct val *v = cx->module->vals[i];

		if (v->kind == VAL_API && v->s && strncmp(v->s, prefix, n) == 0 &&
		    (!v->s[n] || v->s[n] == '.'))
			return true;
	}
	return false;
}

/* The backend a file's imports point at, when only one does. */
static const char *
file_backend(struct cctx *cx)
{
	bool tpu = false, triton = false, mgpu = false;

	for (size_t i = 0; i < cx->module->n; i++) {
		const struct val *v = cx->module->vals[i];

		if (v->kind != VAL_API || !v->s)
			continue;
		tpu |= strncmp(v->s, "pltpu", 5) == 0;
		triton |= strncmp(v->s, "pltriton", 8) == 0;
		mgpu |= strncmp(v->s, "plgpu", 5) == 0;
	}
	if (tpu + triton + mgpu != 1)
		return NULL;
	return tpu ? "mosaic-tpu" : triton ? "triton" : "mosaic-gpu";
}

static void
check_parsed(const struct check_opts *o, const struct resolved *rv, const char *name,
	     const char *src, size_t len, struct py_module *m, struct check_result *r)
{
	struct cctx cx;
	struct interp in;

	memset(&cx, 0, sizeof(cx));
	cx.o = o;
	cx.rs = o->rs;
	cx.tab = o->rs->checks;
	cx.chip = rv->chip;
	cx.gpu = rv->gpu;
	cx.jv_known = rv->jv_known;
	cx.jv = rv->jv;
	cx.file = name;
	cx.src = src;
	cx.len = len;
	cx.m = m;
	cx.a = py_arena_new();
	cx.module = scope_new(&cx, NULL);
	cx.module->module = true;
	cx.r = r;
	/* the imports first, to know the file's backend before any call runs */
	memset(&in, 0, sizeof(in));
	in.cx = &cx;
	in.scope = cx.module;
	for (size_t i = 0; i < m->root->items.n; i++) {
		const struct py_node *s = m->root->items.v[i];
		struct py_list one = { (struct py_node **)&m->root->items.v[i], 1, 1 };

		if (s->kind == PY_IMPORT || s->kind == PY_FROM)
			ck_exec_block(&in, &one);
	}
	cx.file_backend = file_backend(&cx);
	cx.sparsecore = imports_prefix(&cx, "plsc");
	ck_run_module(&cx);
	if (cx.steps > CK_MAX_STEPS)
		add_problem(r, name, 0, 0, false, "the file took more than %d steps to interpret; "
			    "what follows the point where it stopped was not checked", CK_MAX_STEPS);
	merge_findings(&cx, r);
	summarise(&cx, r);
	free(cx.calls);
	free(cx.pending);
	free(cx.defs);
	free(cx.entered);
	free(cx.kernels);
	py_arena_free(cx.a);
}

static void
check_text(const struct check_opts *o, const struct resolved *rv, const char *name,
	   const char *src, size_t len, struct check_result *r)
{
	struct py_module *m = py_parse(src, len);

	r->files++;
	r->lines += m->lines;
	for (size_t i = 0; i < m->nproblems; i++)
		add_problem(r, name, m->problems[i].line, m->problems[i].col,
			    m->gave_up && i + 1 == m->nproblems && !m->root->items.n,
			    "%s%s", m->problems[i].msg,
			    m->gave_up ? "" : "; the statement was skipped");
	if (m->total_problems > m->nproblems)
		add_problem(r, name, 0, 0, false, "%zu more syntax problems",
			    m->total_problems - m->nproblems);
	if (m->gave_up && len <= PY_MAX_SOURCE)
		add_problem(r, name, 0, 0, !m->root->items.n, "too many syntax problems: this does "
			    "not look like Python; the rest of the file was not read");
	if (m->root->items.n)
		check_parsed(o, rv, name, src, len, m, r);
	py_module_free(m);
}

static int
read_source(const char *path, bool explicit, struct buf *text, struct pt_err *err)
{
	struct stat st;

	if (!explicit)
		return util_read_regular(path, text, PY_MAX_SOURCE + 1, err);
	if (stat(path, &st) < 0)
		return pt_err_errno(err, PT_EXIT_DATA, "cannot open '%s'", path);
	if (!S_ISREG(st.st_mode))
		return pt_err_set(err, PT_EXIT_DATA, "'%s' is not a regular file", path);
	return util_read_file(path, text, PY_MAX_SOURCE + 1, err);
}

static void
check_one_file(const struct check_opts *o, const struct resolved *rv, const char *path,
	       bool explicit, struct check_result *r)
{
	struct buf text = BUF_INIT;
	struct pt_err ferr = PT_ERR_INIT;

	if (read_source(path, explicit, &text, &ferr) < 0) {
		add_problem(r, path, 0, 0, true, "%s", ferr.msg);
	} else if (text.len > PY_MAX_SOURCE) {
		add_problem(r, path, 0, 0, true, "the file is larger than %u MiB; it was not checked",
			    PY_MAX_SOURCE >> 20);
	} else {
		check_text(o, rv, path, text.data, text.len, r);
	}
	buf_release(&text);
}

static bool
is_py(const char *name)
{
	size_t n = strlen(name);

	return n > 3 && strcmp(name + n - 3, ".py") == 0;
}

static void
walk(const struct check_opts *o, const struct resolved *rv, const char *dir, int depth,
     struct check_result *r)
{
	char **names;

	if (depth > MAX_WALK_DEPTH) {
		add_problem(r, dir, 0, 0, false, "nested more than %d directories deep; not entered",
			    MAX_WALK_DEPTH);
		return;
	}
	if (!(names = util_list_dir(dir, NULL))) {
		add_problem(r, dir, 0, 0, true, "cannot read the directory: %s", strerror(errno));
		return;
	}
	for (char **n = names; *n && r->files < CHECK_MAX_FILES; n++) {
		char *path;
		struct stat st;

		if ((*n)[0] == '.' || strcmp(*n, "__pycache__") == 0)
			continue;
		path = xasprintf("%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", *n);
		/* a cloned tree may hold links anywhere: they are not followed */
		if (lstat(path, &st) == 0) {
			if (S_ISDIR(st.st_mode))
				walk(o, rv, path, depth + 1, r);
			else if (S_ISREG(st.st_mode) && is_py(*n))
				check_one_file(o, rv, path, false, r);
		}
		free(path);
	}
	util_names_free(names);
}

int
check_path(const struct check_opts *o, const char *path, struct check_result *r,
	   struct pt_err *err)
{
	struct resolved rv;
	struct stat st;

	if (resolve_opts(o, &rv, err) < 0)
		return -1;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		walk(o, &rv, path, 0, r);
	else
		check_one_file(o, &rv, path, true, r);
	return 0;
}

int
check_file(const struct check_opts *o, const char *path, struct check_result *r,
	   struct pt_err *err)
{
	struct resolved rv;

	if (resolve_opts(o, &rv, err) < 0)
		return -1;
	check_one_file(o, &rv, path, true, r);
	return 0;
}

int
check_source(const struct check_opts *o, const char *name, const char *src, size_t len,
	     struct check_result *r, struct pt_err *err)
{
	struct resolved rv;

	if (resolve_opts(o, &rv, err) < 0)
		return -1;
	if (len > PY_MAX_SOURCE)
		add_problem(r, name, 0, 0, true, "the source is larger than %u MiB; it was not checked",
			    PY_MAX_SOURCE >> 20);
	else
		check_text(o, &rv, name, src, len, r);
	return 0;
}

/* ------------------------------------------------------------ comparing two checks */

static bool
has_same(const struct check_result *r, const struct check_finding *f)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->f[i].def == f->def && strcmp(r->f[i].message, f->message) == 0)
			return true;
	return false;
}

size_t
check_compare(const struct check_result *before, const struct check_result *after,
	      struct buf *out)
{
	size_t n = 0;

	for (size_t i = 0; i < before->n; i++)
		if (!has_same(after, &before->f[i])) {
			buf_addf(out, "gone: %s %s (was line %d): %s\n", before->f[i].def->code,
				 before->f[i].def->name, before->f[i].line, before->f[i].message);
			n++;
		}
	for (size_t i = 0; i < after->n; i++)
		if (!has_same(before, &after->f[i])) {
			buf_addf(out, "new: %s %s (line %d): %s\n", after->f[i].def->code,
				 after->f[i].def->name, after->f[i].line, after->f[i].message);
			n++;
		}
	for (size_t i = 0; i < after->nk; i++) {
		const struct check_kernel *a = &after->k[i];

		for (size_t j = 0; j < before->nk; j++) {
			const struct check_kernel *b = &before->k[j];

			if (!a->name || !b->name || strcmp(a->name, b->name) != 0)
				continue;
			if (a->vmem_known && b->vmem_known && a->vmem_bytes != b->vmem_bytes) {
				buf_addf(out, "changed: kernel %s's working set %llu -> %llu bytes\n",
					 a->name, b->vmem_bytes, a->vmem_bytes);
				n++;
			}
			if (a->grid && b->grid && strcmp(a->grid, b->grid) != 0) {
				buf_addf(out, "changed: kernel %s's grid %s -> %s\n", a->name, b->grid,
					 a->grid);
				n++;
			}
			break;
		}
	}
	return n;
}
