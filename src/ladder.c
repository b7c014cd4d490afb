/* SPDX-License-Identifier: MIT */
/* Rung selection and change text; see pt/ladder.h. */
#include <stdlib.h>
#include <string.h>

#include "pt/buf.h"
#include "pt/ladder.h"
#include "pt/util.h"
#include "pt/xalloc.h"

/*
 * The backend a rung must name: the verdict's `backend` (mosaic-tpu,
 * mosaic-gpu, triton) or, when that is not known, its `platform` (tpu,
 * gpu); both come from the rules (contexts' `sets`, the chip table).
 */
static const char *
backend_key(const struct vars *vs)
{
	const char *b = vars_get(vs, "backend");

	return b ? b : vars_get(vs, "platform");
}

/* A rung for the verdict's backend, or for its platform when the backend is not known. */
static bool
rung_for(const struct rung *r, const struct vars *vs)
{
	const char *b = vars_get(vs, "backend"), *p = vars_get(vs, "platform");

	return r->backends && (b ? util_strv_has(r->backends, b)
				 : p && util_strv_has(r->backends, p));
}

static bool
rung_applies(const struct rung *r, const char *subkind, const struct vars *vs)
{
	if (r->subkinds && !(subkind && util_strv_has(r->subkinds, subkind)))
		return false;
	for (char *const *q = r->requires; q && *q; q++)
		if (!vars_get(vs, *q))
			return false;
	for (char *const *q = r->unless; q && *q; q++)
		if (vars_get(vs, *q))
			return false;
	return true;
}

/*
 * When some rung of the class is for the verdict's backend (or platform),
 * the ladder is those rungs; otherwise the rungs that name no backend (the
 * TPU ladder, which logs that say nothing of their platform have always
 * had). With all, every rung of that ladder; else those that apply to
 * subkind and the values.
 */
static size_t
select_rungs(const struct ruleset *rs, enum pt_class cls, const char *subkind,
	     const struct vars *vs, bool all, const struct rung ***out)
{
	const struct ladder *l;
	const struct rung **v;
	bool tagged = false;
	size_t n = 0;

	*out = NULL;
	if (cls >= CLASS_COUNT)
		return 0;
	l = &rs->ladders[cls];
	for (size_t i = 0; i < l->nrungs && backend_key(vs) && !tagged; i++)
		tagged = rung_for(&l->rungs[i], vs);
	v = xcalloc(l->nrungs + 1, sizeof(*v));
	for (size_t i = 0; i < l->nrungs; i++) {
		const struct rung *r = &l->rungs[i];

		if ((tagged ? rung_for(r, vs) : r->backends == NULL) &&
		    (all || rung_applies(r, subkind, vs)))
			v[n++] = r;
	}
	*out = v;
	return n;
}

size_t
ladder_select(const struct ruleset *rs, enum pt_class cls, const char *subkind,
	      const struct vars *vs, const struct rung ***out)
{
	return select_rungs(rs, cls, subkind, vs, false, out);
}

size_t
ladder_for_backend(const struct ruleset *rs, enum pt_class cls, const struct vars *vs,
		   const struct rung ***out)
{
	return select_rungs(rs, cls, NULL, vs, true, out);
}

void
ladder_render_init(struct api_render *ar, const struct ruleset *rs, const struct vars *vs)
{
	api_render_init(ar, rs ? rs->api : NULL, vars_get(vs, "jax_version"));
}

/*
 * API names are spelled before values go in, so a value from the log is
 * never read as a placeholder. Whether the change can be filled is decided
 * on a throwaway render, so a change that is not shown adds no notes.
 */
char *
ladder_change_render(struct api_render *ar, const struct rung *r, const struct vars *vs,
		     bool *filled)
{
	struct buf spelled = BUF_INIT, b = BUF_INIT;
	bool ok = false, has_values = false;
	char key[160];
	const char *from_source;

	/* the kernel's source said which line and value to change (pt/check_triage.h) */
	snprintf(key, sizeof(key), "source_fix:%s", r->id);
	if ((from_source = vars_get(vs, key))) {
		if (filled)
			*filled = true;
		return xstrdup(from_source);
	}
	if (r->change) {
		struct api_render probe;

		api_render_init(&probe, ar->table, ar->version);
		api_render_text(&probe, r->change, &spelled);
		ok = vars_can_expand(vs, spelled.data);
		/* from the log only when a value of it went in, not a default */
		has_values = vars_uses_value(vs, spelled.data);
		/* shown after all: its notes are the ones rendering it on ar adds */
		if (ok || !r->fallback) {
			api_render_adopt(ar, &probe);
			vars_expand(vs, spelled.data, &b);
		}
		api_render_release(&probe);
	}
	if (!ok && r->fallback)
		api_render_text(ar, r->fallback, &b);
	if (filled)
		*filled = ok && has_values;
	buf_release(&spelled);
	return buf_detach(&b, NULL);
}

char *
ladder_change_text(const struct ruleset *rs, const struct rung *r, const struct vars *vs,
		   bool *filled)
{
	struct api_render ar;
	char *s;

	ladder_render_init(&ar, rs, vs);
	s = ladder_change_render(&ar, r, vs, filled);
	api_render_release(&ar);
	return s;
}

char *
ladder_message(const struct ruleset *rs, const struct vars *vs, const char *tmpl)
{
	struct api_render ar;
	struct buf spelled = BUF_INIT, b = BUF_INIT;

	ladder_render_init(&ar, rs, vs);
	api_render_prose_into(&ar, tmpl, &spelled);
	vars_expand(vs, spelled.data, &b);
	api_render_release(&ar);
	buf_release(&spelled);
	return buf_detach(&b, NULL);
}

char *
ladder_prose(const struct ruleset *rs, const struct vars *vs, const char *text)
{
	struct api_render ar;
	char *s;

	if (!text)
		return NULL;
	ladder_render_init(&ar, rs, vs);
	s = xstrdup(api_render_prose(&ar, text));
	api_render_release(&ar);
	return s;
}

char *
ladder_change_values(const struct rung *r, const struct vars *vs)
{
	struct buf b = BUF_INIT;
	const char *p = r->change;

	while (p && (p = strstr(p, "${"))) {
		const char *end = strchr(p + 2, '}');
		char *name, *entry;
		const char *val;

		if (!end)
			break;
		name = xstrndup(p + 2, (size_t)(end - p - 2));
		p = end + 1;
		if (strncmp(name, "api:", 4) == 0) {
			free(name);
			continue;
		}
		if (!(val = vars_get(vs, name))) {
			free(name);
			buf_release(&b);
			return NULL;
		}
		entry = xasprintf("%s=%s", name, val);
		if (!b.len || !strstr(b.data, entry))
			buf_addf(&b, "%s%s", b.len ? "; " : "", entry);
		free(entry);
		free(name);
	}
	if (!b.len) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b, NULL);
}

char *
ladder_flag_render(struct api_render *ar, const struct flag_def *f, const struct vars *vs)
{
	struct buf spelled = BUF_INIT, b = BUF_INIT;

	api_render_text(ar, f->snippet ? f->snippet : "", &spelled);
	vars_expand(vs, spelled.data, &b);
	buf_release(&spelled);
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

char *
ladder_api_sentence(const struct api_render *ar)
{
	if (!ar->versioned)
		return NULL;
	if (ar->known)
		return xasprintf("API names are spelled for JAX %s, the version in the log", ar->version);
	if (ar->have_ver) {
		char newest[24];

		jaxver_format(&ar->ver, newest, sizeof(newest));
		return xasprintf("the log does not say which JAX ran, so API names are spelled for JAX "
				 "%s, the newest release (--jax VERSION spells them for yours; "
				 "'pallas-triage explain NAME' lists older spellings)", newest);
	}
	return xstrdup("the log does not say which JAX ran, so API names are spelled for current "
		       "JAX ('pallas-triage explain NAME' lists older spellings)");
}

char *
ladder_api_notes(const struct api_render *ar)
{
	struct buf b = BUF_INIT;

	if (!ar->nnotes)
		return NULL;
	for (size_t i = 0; i < ar->nnotes; i++)
		buf_addf(&b, "%s%s", i ? "; " : "", ar->notes[i]);
	return buf_detach(&b, NULL);
}
