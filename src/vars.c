/* SPDX-License-Identifier: MIT */
/* Ordered string map and ${name} templates; see pt/vars.h. */
#include <stdlib.h>
#include <string.h>

#include "pt/vars.h"
#include "pt/xalloc.h"

void
vars_release(struct vars *vs)
{
	for (size_t i = 0; i < vs->n; i++) {
		free(vs->v[i].name);
		free(vs->v[i].value);
	}
	free(vs->v);
	vs->v = NULL;
	vs->n = vs->alloc = 0;
}

static struct var *
vars_find(const struct vars *vs, const char *name, size_t nlen)
{
	for (size_t i = 0; i < vs->n; i++)
		if (strlen(vs->v[i].name) == nlen && memcmp(vs->v[i].name, name, nlen) == 0)
			return &vs->v[i];
	return NULL;
}

void
vars_setn(struct vars *vs, const char *name, const char *value, size_t len, bool overwrite)
{
	struct var *v = vars_find(vs, name, strlen(name));

	if (v) {
		if (!overwrite)
			return;
		free(v->value);
		v->value = xstrndup(value, len);
		return;
	}
	XGROW(vs->v, vs->alloc, vs->n + 1);
	vs->v[vs->n].name = xstrdup(name);
	vs->v[vs->n].value = xstrndup(value, len);
	vs->n++;
}

void
vars_set(struct vars *vs, const char *name, const char *value, bool overwrite)
{
	vars_setn(vs, name, value, strlen(value), overwrite);
}

void
vars_unset(struct vars *vs, const char *name)
{
	struct var *v = vars_find(vs, name, strlen(name));

	if (!v)
		return;
	free(v->name);
	free(v->value);
	memmove(v, v + 1, (size_t)(vs->v + vs->n - (v + 1)) * sizeof(*v));
	vs->n--;
}

const char *
vars_get(const struct vars *vs, const char *name)
{
	struct var *v = vars_find(vs, name, strlen(name));

	return v ? v->value : NULL;
}

bool
vars_is(const struct vars *vs, const char *name, const char *value)
{
	const char *v = vars_get(vs, name);

	return v && strcmp(v, value) == 0;
}

void
vars_copy(struct vars *dst, const struct vars *src, bool overwrite)
{
	for (size_t i = 0; i < src->n; i++)
		vars_set(dst, src->v[i].name, src->v[i].value, overwrite);
}

/* With out NULL this only counts the names that have no value. */
int
vars_expand(const struct vars *vs, const char *tmpl, struct buf *out)
{
	int missing = 0;
	const char *p = tmpl;

	while (*p) {
		const char *start = strstr(p, "${");
		const char *end, *bar;
		struct var *v;

		if (!start) {
			if (out)
				buf_adds(out, p);
			break;
		}
		if (!(end = strchr(start + 2, '}'))) {
			if (out)
				buf_adds(out, p);
			break;
		}
		if (out)
			buf_add(out, p, (size_t)(start - p));
		/* ${name|default}: the default stands in when name has no value */
		bar = memchr(start + 2, '|', (size_t)(end - start - 2));
		v = vars_find(vs, start + 2, (size_t)((bar ? bar : end) - start - 2));
		if (v && out)
			buf_adds(out, v->value);
		else if (!v && bar && out)
			buf_add(out, bar + 1, (size_t)(end - bar - 1));
		else if (!v && !bar) {
			missing++;
			if (out)
				buf_add(out, start, (size_t)(end - start + 1));
		}
		p = end + 1;
	}
	return missing;
}

bool
vars_can_expand(const struct vars *vs, const char *tmpl)
{
	return vars_expand(vs, tmpl, NULL) == 0;
}

bool
vars_uses_value(const struct vars *vs, const char *tmpl)
{
	for (const char *p = tmpl; (p = strstr(p, "${")); p += 2) {
		const char *end = strchr(p + 2, '}'), *bar;

		if (!end)
			break;
		bar = memchr(p + 2, '|', (size_t)(end - p - 2));
		if (vars_find(vs, p + 2, (size_t)((bar ? bar : end) - p - 2)))
			return true;
	}
	return false;
}
