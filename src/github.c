/* SPDX-License-Identifier: MIT */
/* GitHub Actions annotations for a diagnosis; see pt/github.h. */
#include <stdlib.h>
#include <string.h>

#include "pt/buf.h"
#include "pt/github.h"
#include "pt/ladder.h"
#include "pt/term.h"
#include "pt/xalloc.h"

char *
github_escape(const char *s, bool property)
{
	struct buf b = BUF_INIT, c = BUF_INIT;
	char *safe;

	/* the rules of actions/toolkit's command.ts (escapeData, escapeProperty);
	 * line ends first, so that term_escape() leaves no raw control behind */
	for (const char *p = s; *p; p++) {
		if (*p == '%')
			buf_adds(&b, "%25");
		else if (*p == '\r')
			buf_adds(&b, "%0D");
		else if (*p == '\n')
			buf_adds(&b, "%0A");
		else
			buf_addch(&b, *p);
	}
	safe = term_escape(b.data, b.len);
	buf_release(&b);
	for (const char *p = safe; *p; p++) {
		if (property && *p == ':')
			buf_adds(&c, "%3A");
		else if (property && *p == ',')
			buf_adds(&c, "%2C");
		else
			buf_addch(&c, *p);
	}
	free(safe);
	return buf_detach(&c, NULL);
}

/* file relative to workspace when it lies inside it. */
static const char *
relative_to(const char *file, const char *workspace)
{
	size_t n = workspace ? strlen(workspace) : 0;

	while (n > 1 && workspace[n - 1] == '/')
		n--;
	if (n && strncmp(file, workspace, n) == 0 && file[n] == '/')
		return file + n + 1;
	return file;
}

static void
add_property(struct buf *b, const char *key, const char *value)
{
	char *esc = github_escape(value, true);

	buf_addf(b, "%s%s=%s", b->len ? "," : " ", key, esc);
	free(esc);
}

/* The message: what failed, where in the log, and the cheapest fix. */
static char *
message_of(const struct ruleset *rs, const struct verdict *v, const char *source)
{
	const struct rung **sel = NULL;
	struct buf m = BUF_INIT;
	size_t n;

	buf_adds(&m, v->message ? v->message : v->reason ? v->reason : class_name(v->cls));
	if (v->key_lineno)
		buf_addf(&m, "\nlog: %s, line %zu", source, v->key_lineno);
	if (v->top_rule)
		buf_addf(&m, " (rule %s)", v->top_rule->id);
	n = v->cls == CLASS_UNKNOWN ? 0 : ladder_select(rs, v->cls, v->subkind, &v->vars, &sel);
	if (n) {
		char *change = ladder_change_text(rs, sel[0], &v->vars, NULL);
		char *action = ladder_prose(rs, &v->vars, sel[0]->action);

		buf_addf(&m, "\nfirst fix (%s): %s", sel[0]->id, action ? action : "");
		if (*change)
			buf_addf(&m, "\n  change: %s", change);
		free(change);
		free(action);
	}
	free(sel);
	return buf_detach(&m, NULL);
}

int
github_annotation(FILE *out, const char *level, const char *file, long line, long col,
		  const char *title, const char *message, const char *workspace)
{
	struct buf props = BUF_INIT;
	char *emsg;

	if (file) {
		add_property(&props, "file", relative_to(file, workspace));
		if (line > 0)
			buf_addf(&props, ",line=%ld", line);
		if (col > 0)
			buf_addf(&props, ",col=%ld", col);
	}
	add_property(&props, "title", title);
	emsg = github_escape(message, false);
	fprintf(out, "::%s%s::%s\n", level, props.data, emsg);
	free(emsg);
	buf_release(&props);
	return ferror(out) ? -1 : 0;
}

int
github_annotate(FILE *out, const struct ruleset *rs, const struct verdict *v,
		const char *source, const char *workspace, bool quiet_unknown)
{
	char *lab = class_label(v->cls, v->subkind), *title, *msg;
	int ret;

	if (v->cls == CLASS_UNKNOWN && quiet_unknown) {
		free(lab);
		return 0;
	}
	title = v->cls == CLASS_UNKNOWN ? xstrdup("pallas-triage: no Pallas failure recognised") :
		xasprintf("pallas-triage: %s", lab);
	msg = message_of(rs, v, source);
	ret = github_annotation(out, v->cls == CLASS_UNKNOWN ? "notice" : "error", v->loc.file,
				v->loc.line, v->loc.col, title, msg, workspace);
	free(lab);
	free(title);
	free(msg);
	return ret;
}
