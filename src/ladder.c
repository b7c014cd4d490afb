/* SPDX-License-Identifier: MIT */
/* Rung selection and change text; see pt/ladder.h. */
#include <stdlib.h>
#include <string.h>

#include "pt/buf.h"
#include "pt/ladder.h"
#include "pt/xalloc.h"

static bool
strv_has(char *const *v, const char *s)
{
	for (; v && *v; v++)
		if (strcmp(*v, s) == 0)
			return true;
	return false;
}

static bool
rung_applies(const struct rung *r, const char *subkind, const struct vars *vs)
{
	if (r->subkinds && !(subkind && strv_has(r->subkinds, subkind)))
		return false;
	for (char *const *q = r->requires; q && *q; q++)
		if (!vars_get(vs, *q))
			return false;
	return true;
}

size_t
ladder_select(const struct ruleset *rs, enum pt_class cls, const char *subkind,
	      const struct vars *vs, const struct rung ***out)
{
	const struct ladder *l;
	const struct rung **v;
	size_t n = 0;

	*out = NULL;
	if (cls >= CLASS_COUNT)
		return 0;
	l = &rs->ladders[cls];
	v = xcalloc(l->nrungs + 1, sizeof(*v));
	for (size_t i = 0; i < l->nrungs; i++)
		if (rung_applies(&l->rungs[i], subkind, vs))
			v[n++] = &l->rungs[i];
	*out = v;
	return n;
}

char *
ladder_change_text(const struct rung *r, const struct vars *vs, bool *filled)
{
	struct buf b = BUF_INIT;
	bool ok = r->change && vars_can_expand(vs, r->change);

	if (ok)
		vars_expand(vs, r->change, &b);
	else if (r->fallback)
		buf_adds(&b, r->fallback);
	else if (r->change)
		vars_expand(vs, r->change, &b);
	if (filled)
		*filled = ok && r->change && strstr(r->change, "${") != NULL;
	return buf_detach(&b, NULL);
}

const struct rung *
ladder_find_rung(const struct ruleset *rs, const char *id, enum pt_class *cls)
{
	for (int c = 0; c < CLASS_COUNT; c++)
		for (size_t i = 0; i < rs->ladders[c].nrungs; i++)
			if (strcmp(rs->ladders[c].rungs[i].id, id) == 0) {
				if (cls)
					*cls = (enum pt_class)c;
				return &rs->ladders[c].rungs[i];
			}
	return NULL;
}
