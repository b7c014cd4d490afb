/* SPDX-License-Identifier: MIT */
/*
 * libyaml wrapper: events -> struct ynode tree, plus schema helpers.
 * libyaml rules kept here: every event from yaml_parser_parse is deleted on
 * every path; yaml_parser_delete runs in cleanup; marks are 0-based, so
 * positions get +1.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "pt/keyset.h"
#include "pt/xalloc.h"
#include "pt/ytree.h"

struct builder {
	yaml_parser_t parser;
	const char *file;
	struct diag *d;
	size_t nodes;
	bool failed;
};

static struct ynode *
node_new(enum ynode_kind kind, const yaml_mark_t *mark)
{
	struct ynode *n = xcalloc(1, sizeof(*n));

	n->kind = kind;
	n->line = (int)mark->line + 1;
	n->col = (int)mark->column + 1;
	return n;
}

static void
node_free(struct ynode *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->n; i++)
		node_free(n->items[i]);
	free(n->items);
	free(n->str);
	free(n);
}

static void
node_push(struct ynode *parent, struct ynode *child, size_t *alloc)
{
	XGROW(parent->items, *alloc, parent->n + 1);
	parent->items[parent->n++] = child;
}

static void
parser_problem(struct builder *b)
{
	const yaml_parser_t *p = &b->parser;
	const yaml_mark_t *m = &p->problem_mark;

	if (p->context)
		diag_error(b->d, b->file, (int)m->line + 1, (int)m->column + 1, "%s %s",
			   p->problem ? p->problem : "syntax error", p->context);
	else
		diag_error(b->d, b->file, (int)m->line + 1, (int)m->column + 1, "%s",
			   p->problem ? p->problem : "syntax error");
	b->failed = true;
}

static struct ynode *parse_node(struct builder *b, yaml_event_t *ev, int depth);

/* Each key goes into keys, a hash set: comparing each with every earlier
 * one made a 200 000-key mapping take half a minute to refuse. */
static void
check_duplicate_key(struct builder *b, struct keyset *keys, const struct ynode *map)
{
	const struct ynode *key = map->items[map->n - 1];
	size_t first;

	if (key->kind != YNODE_SCALAR)
		return;
	if (!keyset_add(keys, key->str, key->len, map->n - 1, &first))
		diag_error(b->d, b->file, key->line, key->col, "duplicate key '%s' (first at line %d)",
			   key->str, map->items[first]->line);
}

/* Parse the children of a collection until its end event. */
static int
parse_children(struct builder *b, struct ynode *parent, yaml_event_type_t end, int depth)
{
	struct keyset keys = KEYSET_INIT;
	size_t alloc = 0;
	int ret = -1;

	for (;;) {
		yaml_event_t ev;
		struct ynode *child;

		if (!yaml_parser_parse(&b->parser, &ev)) {
			parser_problem(b);
			goto out;
		}
		if (ev.type == end) {
			yaml_event_delete(&ev);
			ret = 0;
			goto out;
		}
		child = parse_node(b, &ev, depth + 1);
		yaml_event_delete(&ev);
		if (!child)
			goto out;
		node_push(parent, child, &alloc);
		/* a duplicate is reported and parsing goes on: the tree stays
		 * well-formed, the diag has the error */
		if (parent->kind == YNODE_MAP && parent->n % 2 == 1)
			check_duplicate_key(b, &keys, parent);
	}
out:
	keyset_release(&keys);
	return ret;
}

static struct ynode *
parse_node(struct builder *b, yaml_event_t *ev, int depth)
{
	struct ynode *n = NULL;

	if (++b->nodes > YTREE_MAX_NODES) {
		diag_error(b->d, b->file, (int)ev->start_mark.line + 1,
			   (int)ev->start_mark.column + 1, "document has more than %d nodes",
			   YTREE_MAX_NODES);
		return NULL;
	}
	if (depth > YTREE_MAX_DEPTH) {
		diag_error(b->d, b->file, (int)ev->start_mark.line + 1,
			   (int)ev->start_mark.column + 1, "nesting deeper than %d levels",
			   YTREE_MAX_DEPTH);
		return NULL;
	}
	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		if (ev->data.scalar.length > YTREE_MAX_SCALAR) {
			diag_error(b->d, b->file, (int)ev->start_mark.line + 1,
				   (int)ev->start_mark.column + 1,
				   "string of %zu bytes is longer than the limit of %u",
				   ev->data.scalar.length, YTREE_MAX_SCALAR);
			return NULL;
		}
		n = node_new(YNODE_SCALAR, &ev->start_mark);
		n->len = ev->data.scalar.length;
		n->str = xstrndup((const char *)ev->data.scalar.value, n->len);
		n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
		return n;
	case YAML_SEQUENCE_START_EVENT:
		n = node_new(YNODE_SEQ, &ev->start_mark);
		if (parse_children(b, n, YAML_SEQUENCE_END_EVENT, depth) < 0)
			goto fail;
		return n;
	case YAML_MAPPING_START_EVENT:
		n = node_new(YNODE_MAP, &ev->start_mark);
		if (parse_children(b, n, YAML_MAPPING_END_EVENT, depth) < 0)
			goto fail;
		return n;
	case YAML_ALIAS_EVENT:
		diag_error(b->d, b->file, (int)ev->start_mark.line + 1,
			   (int)ev->start_mark.column + 1, "aliases are not allowed in rule files");
		return NULL;
	default:
		diag_error(b->d, b->file, (int)ev->start_mark.line + 1,
			   (int)ev->start_mark.column + 1, "unexpected YAML event");
		return NULL;
	}
fail:
	node_free(n);
	return NULL;
}

int
ydoc_parse(struct ydoc *doc, const char *buf, size_t len, const char *file, struct diag *d)
{
	struct builder b;
	struct ynode *root = NULL;
	int ret = -1, docs = 0;

	memset(&b, 0, sizeof(b));
	b.file = file;
	b.d = d;
	if (!yaml_parser_initialize(&b.parser))
		pt_die(PT_EXIT_SYSTEM, "out of memory");
	yaml_parser_set_input_string(&b.parser, (const unsigned char *)buf, len);
	for (;;) {
		yaml_event_t ev;

		if (!yaml_parser_parse(&b.parser, &ev)) {
			parser_problem(&b);
			goto out;
		}
		if (ev.type == YAML_STREAM_END_EVENT) {
			yaml_event_delete(&ev);
			break;
		}
		if (ev.type == YAML_DOCUMENT_START_EVENT && ++docs > 1) {
			diag_error(d, file, (int)ev.start_mark.line + 1, (int)ev.start_mark.column + 1,
				   "only one YAML document per file is allowed");
			yaml_event_delete(&ev);
			goto out;
		}
		if (ev.type == YAML_SCALAR_EVENT || ev.type == YAML_SEQUENCE_START_EVENT ||
		    ev.type == YAML_MAPPING_START_EVENT || ev.type == YAML_ALIAS_EVENT) {
			root = parse_node(&b, &ev, 0);
			yaml_event_delete(&ev);
			if (!root)
				goto out;
			continue;
		}
		yaml_event_delete(&ev);
	}
	doc->root = root;
	doc->file = xstrdup(file);
	root = NULL;
	ret = 0;
out:
	node_free(root);
	yaml_parser_delete(&b.parser);
	return ret;
}

void
ydoc_release(struct ydoc *doc)
{
	node_free(doc->root);
	free(doc->file);
	doc->root = NULL;
	doc->file = NULL;
}

const struct ynode *
ynode_get(const struct ynode *m, const char *key)
{
	if (!m || m->kind != YNODE_MAP)
		return NULL;
	for (size_t i = 0; i + 1 < m->n; i += 2)
		if (m->items[i]->kind == YNODE_SCALAR && strcmp(m->items[i]->str, key) == 0)
			return m->items[i + 1];
	return NULL;
}

const char *
ynode_kind_name(enum ynode_kind k)
{
	switch (k) {
	case YNODE_SCALAR: return "a scalar";
	case YNODE_SEQ: return "a list";
	case YNODE_MAP: return "a mapping";
	}
	return "?";
}

int
ynode_check_keys(const struct ynode *m, const char *const *allowed, const char *file,
		 const char *what, struct diag *d)
{
	int ret = 0;

	for (size_t i = 0; i + 1 < m->n; i += 2) {
		const struct ynode *k = m->items[i];
		bool ok = false;

		if (k->kind == YNODE_SCALAR)
			for (const char *const *a = allowed; *a; a++)
				if (strcmp(*a, k->str) == 0)
					ok = true;
		if (!ok) {
			diag_error(d, file, k->line, k->col, "unknown key '%s' in %s",
				   k->kind == YNODE_SCALAR ? k->str : "?", what);
			ret = -1;
		}
	}
	return ret;
}

int
ynode_want(const struct ynode *m, const char *key, enum ynode_kind kind, bool required,
	   const struct ynode **out, const char *file, const char *what, struct diag *d)
{
	const struct ynode *v = ynode_get(m, key);

	*out = NULL;
	if (!v) {
		if (!required)
			return 0;
		diag_error(d, file, m->line, m->col, "%s is missing required field '%s'", what, key);
		return -1;
	}
	if (v->kind != kind) {
		diag_error(d, file, v->line, v->col, "'%s' in %s must be %s, not %s", key, what,
			   ynode_kind_name(kind), ynode_kind_name(v->kind));
		return -1;
	}
	*out = v;
	return 0;
}

int
ynode_want_str(const struct ynode *m, const char *key, bool required, const char **out,
	       const char *file, const char *what, struct diag *d)
{
	const struct ynode *v;

	*out = NULL;
	if (ynode_want(m, key, YNODE_SCALAR, required, &v, file, what, d) < 0)
		return -1;
	if (v && v->plain && v->len == 0 && required) {
		diag_error(d, file, v->line, v->col, "'%s' in %s must not be empty", key, what);
		return -1;
	}
	*out = v ? v->str : NULL;
	return 0;
}

int
ynode_want_int(const struct ynode *m, const char *key, bool required, long min, long max,
	       long *out, const char *file, const char *what, struct diag *d)
{
	const struct ynode *v;
	char *end;
	long x;

	if (ynode_want(m, key, YNODE_SCALAR, required, &v, file, what, d) < 0)
		return -1;
	if (!v)
		return 0;
	errno = 0;
	x = strtol(v->str, &end, 10);
	if (!v->plain || errno || end == v->str || *end) {
		diag_error(d, file, v->line, v->col, "'%s' in %s must be an integer, not '%s'", key,
			   what, v->str);
		return -1;
	}
	if (x < min || x > max) {
		diag_error(d, file, v->line, v->col, "'%s' in %s must be between %ld and %ld, not %ld",
			   key, what, min, max, x);
		return -1;
	}
	*out = x;
	return 0;
}

int
ynode_want_bool(const struct ynode *m, const char *key, bool *out, const char *file,
		const char *what, struct diag *d)
{
	const struct ynode *v;

	if (ynode_want(m, key, YNODE_SCALAR, false, &v, file, what, d) < 0)
		return -1;
	if (!v)
		return 0;
	if (v->plain && strcmp(v->str, "true") == 0)
		*out = true;
	else if (v->plain && strcmp(v->str, "false") == 0)
		*out = false;
	else {
		diag_error(d, file, v->line, v->col, "'%s' in %s must be true or false, not '%s'",
			   key, what, v->str);
		return -1;
	}
	return 0;
}

int
ynode_want_strv(const struct ynode *m, const char *key, bool required, char ***out,
		size_t *n, const char *file, const char *what, struct diag *d)
{
	const struct ynode *v = ynode_get(m, key);
	char **vec;
	size_t count = 0;

	*out = NULL;
	if (n)
		*n = 0;
	if (!v) {
		if (!required)
			return 0;
		diag_error(d, file, m->line, m->col, "%s is missing required field '%s'", what, key);
		return -1;
	}
	if (v->kind == YNODE_MAP) {
		diag_error(d, file, v->line, v->col, "'%s' in %s must be a string or a list of strings",
			   key, what);
		return -1;
	}
	if (v->kind == YNODE_SCALAR) {
		vec = xcalloc(2, sizeof(*vec));
		vec[0] = xstrdup(v->str);
		count = 1;
	} else {
		vec = xcalloc(v->n + 1, sizeof(*vec));
		for (size_t i = 0; i < v->n; i++) {
			if (v->items[i]->kind != YNODE_SCALAR) {
				diag_error(d, file, v->items[i]->line, v->items[i]->col,
					   "items of '%s' in %s must be strings", key, what);
				strv_free(vec);
				return -1;
			}
			vec[count++] = xstrdup(v->items[i]->str);
		}
	}
	*out = vec;
	if (n)
		*n = count;
	return 0;
}

void
strv_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		xfree(*p);	/* a cached ruleset's lists and strings lie in its cache (pt/xalloc.h) */
	xfree(v);
}
