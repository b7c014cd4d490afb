/* SPDX-License-Identifier: MIT */
/* Triage reads the kernel source the log came from (pt/check_triage.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pt/buf.h"
#include "pt/check_print.h"
#include "pt/check_triage.h"
#include "pt/checktab.h"
#include "pt/chips.h"
#include "pt/jaxapi.h"
#include "pt/json.h"
#include "pt/term.h"
#include "pt/vmem.h"
#include "pt/xalloc.h"

/* A finding of the verdict's class raises the confidence by this share of what is left. */
#define SOURCE_WEIGHT 0.5
/* A hang (a synchronization verdict) with a copy the source never waits, the same. */
#define SOURCE_SYNC_WEIGHT 0.8
#define SOURCE_CONFIDENCE_MAX 0.95

/* Is rel a regular .py file inside root (no symbolic link on the last step, no way out)? */
static bool
inside(const char *root, const char *rel)
{
	char real[PATH_MAX];
	struct stat st;
	size_t n = strlen(root), len = strlen(rel);

	if (len < 4 || strcmp(rel + len - 3, ".py") != 0 || rel[0] == '/')
		return false;
	if (lstat(rel, &st) < 0 || !S_ISREG(st.st_mode) || !realpath(rel, real))
		return false;
	return strncmp(real, root, n) == 0 && real[n] == '/';
}

char *
check_triage_find(const struct verdict *v, const char *cwd)
{
	char root[PATH_MAX];
	const char *p;

	if (!v->loc.file || !*v->loc.file || !realpath(cwd, root))
		return NULL;
	/* the longest tail of the logged path that names a file here */
	for (p = v->loc.file; p && *p; p = strchr(p, '/'), p = p ? p + 1 : NULL) {
		bool dots = false;

		for (const char *q = p; *q; q++)
			if (q[0] == '.' && q[1] == '.' && (q == p || q[-1] == '/') && (!q[2] || q[2] == '/'))
				dots = true;
		if (*p == '/' || dots)
			continue;
		if (inside(root, p))
			return xstrdup(p);
	}
	return NULL;
}

static double
raised(double c, double weight)
{
	double r = 1.0 - (1.0 - c) * (1.0 - weight);

	if (r > SOURCE_CONFIDENCE_MAX)
		r = SOURCE_CONFIDENCE_MAX;
	return r > c ? r : c;
}

static bool
is_copy_finding(const struct check_finding *f)
{
	return strcmp(f->def->code, "S001") == 0 || strcmp(f->def->code, "S002") == 0 ||
	       strcmp(f->def->code, "S004") == 0;
}

/* Does f belong to the kernel the log is about (when one was picked)? */
static bool
for_kernel(const struct source_link *l, const struct check_finding *f)
{
	return !l->kernel || !f->call_line || f->call_line == l->kernel->line;
}

static void
vmem_against_log(struct source_link *l, const struct verdict *v)
{
	const char *used = vars_get(&v->vars, "used");
	unsigned long long log_bytes;
	struct buf a = BUF_INIT, b = BUF_INIT, d = BUF_INIT;

	if (!l->kernel || !l->kernel->vmem_known || !used || vmem_parse_size(used, &log_bytes) < 0)
		return;
	vmem_format_size(l->kernel->vmem_bytes, &a);
	vmem_format_size(log_bytes, &b);
	if (log_bytes >= l->kernel->vmem_bytes) {
		vmem_format_size(log_bytes - l->kernel->vmem_bytes, &d);
		l->vmem_note = xasprintf("the source accounts for %s of the %s the log reports; the "
					 "other %s are in-kernel temporaries, Mosaic's internal scratch "
					 "or register spills", a.data, b.data, d.data);
	} else {
		l->vmem_note = xasprintf("the source accounts for %s, more than the %s the log "
					 "reports: the log is from other block sizes or dtypes than "
					 "the file fixes", a.data, b.data);
	}
	buf_release(&a);
	buf_release(&b);
	buf_release(&d);
}

static void
fold(struct source_link *l, struct verdict *v)
{
	bool raised_once = false;

	l->confidence_before = v->confidence;
	for (size_t i = 0; i < l->res.n; i++) {
		const struct check_finding *f = &l->res.f[i];

		if (f->severity == CHECK_NOTE || !for_kernel(l, f))
			continue;
		if (f->def->cls != v->cls)
			continue;
		if (!raised_once) {
			bool hang = v->cls == CLASS_SYNCHRONIZATION && is_copy_finding(f);

			v->confidence = raised(v->confidence, hang ? SOURCE_SYNC_WEIGHT : SOURCE_WEIGHT);
			vars_set(&v->vars, "source_finding", f->message, false);
			raised_once = true;
		}
		for (size_t r = 0; f->rung_ids[r]; r++) {
			char key[160];

			snprintf(key, sizeof(key), "source_fix:%s", f->rung_ids[r]);
			vars_set(&v->vars, key, f->rung_fixes[r], false);
		}
	}
	/* any capacity verdict: the ladder's halved blocks, named where they are written */
	if (v->cls == CLASS_CAPACITY && l->kernel) {
		if (l->kernel->halve_fix[0])
			vars_set(&v->vars, "source_fix:capacity.halve-minor-block", l->kernel->halve_fix[0],
				 false);
		if (l->kernel->halve_fix[1])
			vars_set(&v->vars, "source_fix:capacity.halve-second-minor-block",
				 l->kernel->halve_fix[1], false);
	}
	vmem_against_log(l, v);
	if (l->kernel && l->kernel->vmem_known) {
		char n[32];

		snprintf(n, sizeof(n), "%llu", l->kernel->vmem_bytes);
		vars_set(&v->vars, "source_vmem_bytes", n, true);
	}
	if (l->vmem_note)
		vars_set(&v->vars, "source_vmem_note", l->vmem_note, true);
}

int
check_triage_link(const struct ruleset *rs, struct verdict *v, const char *path,
		  const char *how, struct source_link *l, struct pt_err *err)
{
	struct check_opts o;
	const char *chip = vars_get(&v->vars, "chip"), *jax = vars_get(&v->vars, "jax_version");
	struct jaxver jv;

	memset(&o, 0, sizeof(o));
	o.rs = rs;
	/* the log's chip and JAX, when the tables know them */
	if (chip && rs->chips && chiptab_find_chip(rs->chips, chip))
		o.chip = chiptab_find_chip(rs->chips, chip)->name;
	if (jax && jaxver_parse(jax, &jv) == 0)
		o.jax_version = jax;
	l->path = xstrdup(path);
	l->how = how;
	if (check_file(&o, path, &l->res, err) < 0)
		return -1;
	l->kernel = check_kernel_at(&l->res, path, strcmp(how, "traceback") == 0 ? v->loc.line : 0);
	if (!l->kernel && l->res.nk == 1)
		l->kernel = &l->res.k[0];
	fold(l, v);
	return 0;
}

void
source_link_release(struct source_link *l)
{
	free(l->path);
	free(l->vmem_note);
	check_result_release(&l->res);
	memset(l, 0, sizeof(*l));
}

void
check_triage_print(FILE *fp, const struct source_link *l, bool color)
{
	size_t shown = 0;

	fprintf(fp, "%ssource%s       ", color ? TERM_BOLD : "", color ? TERM_RESET : "");
	term_puts_untrusted(fp, l->path);
	fprintf(fp, " (%s%s)\n", strcmp(l->how, "traceback") == 0 ? "named by the traceback; "
		"--no-kernel turns this off" : "--kernel",
		l->kernel && l->kernel->name ? "" : "");
	for (size_t i = 0; i < l->res.np; i++) {
		fputs("             cannot check: ", fp);
		term_puts_untrusted(fp, l->res.p[i].message);
		fputc('\n', fp);
	}
	for (size_t i = 0; i < l->res.n; i++) {
		const struct check_finding *f = &l->res.f[i];

		if (f->severity == CHECK_NOTE || !for_kernel(l, f))
			continue;
		check_print_finding_line(fp, f, color, 13);
		shown++;
	}
	if (!shown && !l->res.np)
		fprintf(fp, "             no error or warning in the source (%zu kernel%s checked)\n",
			l->res.nk, l->res.nk == 1 ? "" : "s");
	if (l->vmem_note) {
		fputs("             vmem: ", fp);
		term_puts_untrusted(fp, l->vmem_note);
		fputc('\n', fp);
	}
}

void
check_triage_json(struct json *o, const struct source_link *l)
{
	struct json *s, *arr;

	if (!l) {
		json_add_null(o, "kernel_source");
		return;
	}
	s = json_add_object(o, "kernel_source");
	json_add_str(s, "file", l->path);
	json_add_str(s, "how", l->how);
	if (l->kernel && l->kernel->name)
		json_add_str(s, "kernel", l->kernel->name);
	else
		json_add_null(s, "kernel");
	if (l->kernel && l->kernel->vmem_known)
		json_add_int(s, "working_set_bytes", (long long)l->kernel->vmem_bytes);
	else
		json_add_null(s, "working_set_bytes");
	if (l->vmem_note)
		json_add_str(s, "vmem_note", l->vmem_note);
	else
		json_add_null(s, "vmem_note");
	json_add_num(s, "confidence_before", (double)(long)(l->confidence_before * 1000.0 + 0.5) / 1000.0);
	arr = json_add_array(s, "findings");
	for (size_t i = 0; i < l->res.n; i++)
		if (for_kernel(l, &l->res.f[i]))
			check_json_finding(arr, &l->res.f[i]);
	arr = json_add_array(s, "problems");
	for (size_t i = 0; i < l->res.np; i++)
		json_push_str(arr, l->res.p[i].message);
}
