/* SPDX-License-Identifier: MIT */
/*
 * Many logs at once; see pt/scan.h. The work list is built first (so the
 * output order is the walk order, not the order workers finish in), then
 * workers take items by index and park each result in a ring of slots; the
 * calling thread delivers the slots in order. A worker never runs more than
 * RING items ahead of the delivery, so memory stays bounded for any number
 * of logs. This file does not print except in scan_summary_write().
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pt/advice.h"
#include "pt/buf.h"
#include "pt/classify.h"
#include "pt/litset.h"
#include "pt/match.h"
#include "pt/diagnosis.h"
#include "pt/github.h"
#include "pt/jaxapi.h"
#include "pt/json.h"
#include "pt/scan.h"
#include "pt/term.h"
#include "pt/util.h"
#include "pt/xalloc.h"

#define SCAN_MAX_JOBS 64
#define RING 256                    /* results parked ahead of delivery */
#define SUMMARY_TEXT_MAX 100        /* bytes of masked key line per row */

/* ---------------------------------------------------------------- the list */

static void
list_push(struct scan_list *l, char *path, char *error)
{
	XGROW(l->items, l->alloc, l->n + 1);
	l->items[l->n].path = path;
	l->items[l->n].error = error;
	l->n++;
	if (error)
		l->nerrors++;
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *
path_join(const char *dir, const char *name)
{
	size_t n = strlen(dir);

	return n && dir[n - 1] == '/' ? xasprintf("%s%s", dir, name) : xasprintf("%s/%s", dir, name);
}

static void
walk_dir(struct scan_list *l, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, alloc = 0;

	if (!d) {
		list_push(l, xstrdup(dir), xasprintf("cannot read directory '%s': %s", dir, strerror(errno)));
		return;
	}
	while ((e = readdir(d)))
		if (e->d_name[0] != '.') {
			XGROW(names, alloc, n + 1);
			names[n++] = xstrdup(e->d_name);
		}
	closedir(d);
	if (n > 1)
		qsort(names, n, sizeof(*names), name_cmp);
	for (size_t i = 0; i < n; i++) {
		char *child = path_join(dir, names[i]);
		struct stat st, lst;

		free(names[i]);
		if (lstat(child, &st) < 0 || (S_ISLNK(st.st_mode) && stat(child, &st) < 0)) {
			list_push(l, child, xasprintf("cannot open '%s': %s", child, strerror(errno)));
			continue;
		}
		if (S_ISDIR(st.st_mode) && lstat(child, &lst) == 0 && S_ISLNK(lst.st_mode)) {
			free(child);        /* follow links to files, not to directories: no cycles */
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			walk_dir(l, child);
			free(child);
		} else if (S_ISREG(st.st_mode)) {
			list_push(l, child, NULL);
		} else {
			free(child);        /* fifos, sockets, devices inside a tree */
		}
	}
	free(names);
}

void
scan_list_add(struct scan_list *l, const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		list_push(l, xstrdup(path), xasprintf("cannot open '%s': %s", path, strerror(errno)));
	else if (S_ISDIR(st.st_mode))
		walk_dir(l, path);
	else
		list_push(l, xstrdup(path), NULL);
}

void
scan_list_release(struct scan_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->items[i].path);
		free(l->items[i].error);
	}
	free(l->items);
	memset(l, 0, sizeof(*l));
}

/* ---------------------------------------------------------------- one log */

/* A result with its own strings, parked between a worker and the delivery. */
struct slot {
	bool done;
	enum pt_class cls;
	char *error, *rule, *fp, *fp_text, *message, *json, *github;
	unsigned long long nbytes;
	size_t nlines;
};

static void
slot_clear(struct slot *s)
{
	free(s->error);
	free(s->rule);
	free(s->fp);
	free(s->fp_text);
	free(s->message);
	free(s->json);
	free(s->github);
	memset(s, 0, sizeof(*s));
}

/* pf: the prefilter every log starts from (built once: it is most of the
 * work on a small log); mt: this thread's match state, kept across logs so
 * that a pattern is JIT-compiled once per thread, not once per log. */
/* The annotation of v for GitHub Actions (pt/github.h), as a string; NULL for none. */
static char *
github_line(const struct ruleset *rs, const struct verdict *v, const char *path,
	    const char *workspace)
{
	char *mem = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&mem, &len);

	if (!fp)
		return NULL;
	github_annotate(fp, rs, v, path, workspace, true);
	fclose(fp);
	if (len == 0) {
		free(mem);
		return NULL;
	}
	return mem;
}

static void
classify_one(const struct ruleset *rs, const struct litset *pf, struct matcher *mt,
	     const struct scan_item *it, const struct scan_opts *o, struct slot *s)
{
	struct pt_err err = PT_ERR_INIT;
	struct verdict v;
	const char *msg;
	int fd, rc;

	memset(s, 0, sizeof(*s));
	s->cls = CLASS_UNKNOWN;
	if (it->error) {
		s->error = xstrdup(it->error);
		return;
	}
	if ((fd = open(it->path, O_RDONLY | O_CLOEXEC)) < 0) {
		s->error = xasprintf("cannot open '%s': %s", it->path, strerror(errno));
		return;
	}
	/* One thread per log: the workers already use every core. */
	rc = classify_fd(rs, fd, it->path,
			 &(struct classify_opts){ .threads = 1, .prefilter = pf, .matcher = mt },
			 &v, &err);
	close(fd);
	if (rc < 0) {
		s->error = xstrdup(err.msg);
		return;
	}
	verdict_derive(rs, &v);
	s->cls = v.cls;
	s->rule = v.top_rule ? xstrdup(v.top_rule->id) : NULL;
	s->fp = xstrdup(v.fingerprint);
	s->fp_text = xstrdup(v.fingerprint_text ? v.fingerprint_text : "");
	msg = v.cls == CLASS_UNKNOWN && v.reason ? v.reason : v.message;
	s->message = msg ? xstrdup(msg) : NULL;
	s->nbytes = v.nbytes;
	s->nlines = v.nlines;
	if (o->github)
		s->github = github_line(rs, &v, it->path, o->workspace);
	if (o->jsonl) {
		struct json *j;
		struct buf b = BUF_INIT;

		/* built, written and dropped: its nodes need no malloc() each */
		json_arena_begin();
		j = diagnosis_json(rs, &v, it->path);
		json_write_compact(j, &b);
		json_free(j);
		json_arena_end();
		s->json = buf_detach(&b, NULL);
	}
	verdict_release(&v);
}

static void
deliver(const struct scan_list *l, size_t i, const struct slot *s, scan_sink sink, void *arg)
{
	struct scan_result r = {
		.index = i,
		.path = l->items[i].path,
		.error = s->error,
		.cls = s->cls,
		.rule = s->rule,
		.fingerprint = s->error ? NULL : s->fp,
		.fingerprint_text = s->fp_text,
		.message = s->message,
		.json = s->json,
		.github = s->github,
		.nbytes = s->nbytes,
		.nlines = s->nlines,
	};

	sink(&r, arg);
}

/* ---------------------------------------------------------------- the pool */

struct pool {
	const struct scan_list *l;
	const struct ruleset *rs;   /* shared, read-only */
	const struct litset *pf;    /* shared, read-only */
	const struct scan_opts *o;
	pthread_mutex_t mu;
	pthread_cond_t filled;      /* a worker parked a result */
	pthread_cond_t room;        /* the delivery freed a slot */
	size_t next;                /* next item to take */
	size_t delivered;           /* items handed to the sink */
	bool stop;
	struct slot ring[RING];
};

struct worker {
	pthread_t th;
	struct pool *p;
	bool started;
};

static void *
worker_main(void *arg)
{
	struct worker *w = arg;
	struct pool *p = w->p;
	struct matcher *mt = matcher_new(p->rs->npatterns);

	/* the same ladders, log after log */
	api_render_memo_begin();
	pthread_mutex_lock(&p->mu);
	for (;;) {
		struct slot s;
		size_t i;

		while (!p->stop && p->next < p->l->n && p->next >= p->delivered + RING)
			pthread_cond_wait(&p->room, &p->mu);
		if (p->stop || p->next >= p->l->n)
			break;
		i = p->next++;
		pthread_mutex_unlock(&p->mu);
		classify_one(p->rs, p->pf, mt, &p->l->items[i], p->o, &s);
		s.done = true;
		pthread_mutex_lock(&p->mu);
		p->ring[i % RING] = s;
		pthread_cond_broadcast(&p->filled);
	}
	pthread_mutex_unlock(&p->mu);
	api_render_memo_end();
	matcher_free(mt);
	return NULL;
}

static unsigned
pick_jobs(const struct scan_opts *o, size_t nitems)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t jobs = o->jobs ? o->jobs : (cpus > 0 ? (size_t)cpus : 1);

	if (jobs > SCAN_MAX_JOBS)
		jobs = SCAN_MAX_JOBS;
	if (jobs > nitems)
		jobs = nitems;
	return jobs ? (unsigned)jobs : 1;
}

int
scan_run(const struct scan_list *l, const struct ruleset *rs, const struct scan_opts *o,
	 scan_sink sink, void *arg, struct pt_err *err)
{
	unsigned jobs = pick_jobs(o, l->n - l->nerrors);
	/* the rules' own when they have it (pt/rules.h): the same build */
	struct litset *own = rs->prefilter ? NULL : classify_prefilter_new(rs);
	const struct litset *pf = own ? own : rs->prefilter;
	struct worker *w;
	struct pool *p;
	int ret = -1;

	if (jobs <= 1) {
		struct matcher *mt = matcher_new(rs->npatterns);

		api_render_memo_begin();
		for (size_t i = 0; i < l->n; i++) {
			struct slot s;

			classify_one(rs, pf, mt, &l->items[i], o, &s);
			deliver(l, i, &s, sink, arg);
			slot_clear(&s);
		}
		api_render_memo_end();
		matcher_free(mt);
		litset_free(own);
		return 0;
	}
	p = xcalloc(1, sizeof(*p));
	w = xcalloc(jobs, sizeof(*w));
	p->l = l;
	p->rs = rs;
	p->pf = pf;
	p->o = o;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->filled, NULL);
	pthread_cond_init(&p->room, NULL);
	for (unsigned k = 0; k < jobs; k++) {
		w[k].p = p;
		if (pthread_create(&w[k].th, NULL, worker_main, &w[k]) != 0) {
			pt_err_set(err, PT_EXIT_SYSTEM, "cannot start a scan worker thread");
			goto out;
		}
		w[k].started = true;
	}
	for (size_t i = 0; i < l->n; i++) {
		struct slot s;

		pthread_mutex_lock(&p->mu);
		while (!p->ring[i % RING].done)
			pthread_cond_wait(&p->filled, &p->mu);
		s = p->ring[i % RING];
		memset(&p->ring[i % RING], 0, sizeof(s));
		p->delivered = i + 1;
		pthread_cond_broadcast(&p->room);
		pthread_mutex_unlock(&p->mu);
		deliver(l, i, &s, sink, arg);
		s.done = false;
		slot_clear(&s);
	}
	ret = 0;
out:
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	pthread_cond_broadcast(&p->room);
	pthread_mutex_unlock(&p->mu);
	for (unsigned k = 0; k < jobs; k++) {
		if (w[k].started)
			pthread_join(w[k].th, NULL);
	}
	for (size_t i = 0; i < RING; i++)
		slot_clear(&p->ring[i]);
	pthread_cond_destroy(&p->room);
	pthread_cond_destroy(&p->filled);
	pthread_mutex_destroy(&p->mu);
	free(w);
	free(p);
	litset_free(own);
	return ret;
}

/* ---------------------------------------------------------------- summary */

static uint64_t
str_hash(const char *s)
{
	return util_fnv1a(UTIL_FNV1A_INIT, s, strlen(s));
}

static void
summary_rehash(struct scan_summary *s)
{
	size_t n = s->nslots ? s->nslots * 2 : 64;

	free(s->slots);
	s->slots = xcalloc(n, sizeof(*s->slots));
	s->nslots = n;
	for (size_t g = 0; g < s->ngroups; g++) {
		size_t k = (size_t)str_hash(s->groups[g].fingerprint) & (n - 1);

		while (s->slots[k])
			k = (k + 1) & (n - 1);
		s->slots[k] = g + 1;
	}
}

void
scan_summary_add(struct scan_summary *s, const struct scan_result *r)
{
	struct scan_group *g;
	size_t k;

	if (r->error) {
		s->errors++;
		return;
	}
	s->logs++;
	s->bytes += r->nbytes;
	s->per_class[r->cls]++;
	if (2 * (s->ngroups + 1) > s->nslots)
		summary_rehash(s);
	k = (size_t)str_hash(r->fingerprint) & (s->nslots - 1);
	for (; s->slots[k]; k = (k + 1) & (s->nslots - 1)) {
		g = &s->groups[s->slots[k] - 1];
		if (strcmp(g->fingerprint, r->fingerprint) == 0) {
			g->count++;
			return;
		}
	}
	XGROW(s->groups, s->alloc_groups, s->ngroups + 1);
	g = &s->groups[s->ngroups++];
	g->fingerprint = xstrdup(r->fingerprint);
	g->cls = r->cls;
	g->count = 1;
	g->example = xstrdup(r->path);
	g->rule = r->rule ? xstrdup(r->rule) : NULL;
	/* the reason of an unknown log names its line count: not the group's */
	g->text = xstrdup(r->fingerprint_text && *r->fingerprint_text ? r->fingerprint_text
			  : "(no error line)");
	s->slots[k] = s->ngroups;
}

static int
group_cmp(const void *a, const void *b)
{
	const struct scan_group *ga = *(const struct scan_group *const *)a;
	const struct scan_group *gb = *(const struct scan_group *const *)b;

	if (ga->count != gb->count)
		return ga->count > gb->count ? -1 : 1;
	if (ga->cls != gb->cls)
		return ga->cls < gb->cls ? -1 : 1;
	return strcmp(ga->fingerprint, gb->fingerprint);
}

/* s's groups in the order of the table: most frequent first. A new array (free() it). */
static const struct scan_group **
groups_in_order(const struct scan_summary *s)
{
	const struct scan_group **order = xcalloc(s->ngroups + 1, sizeof(*order));

	for (size_t g = 0; g < s->ngroups; g++)
		order[g] = &s->groups[g];
	qsort(order, s->ngroups, sizeof(*order), group_cmp);
	return order;
}

int
scan_summary_json(const struct scan_summary *s, FILE *fp)
{
	const struct scan_group **order = groups_in_order(s);
	struct json *root = json_new_object(), *o, *a;
	int rc;

	json_add_int(root, "schema_version", SCAN_SUMMARY_SCHEMA_VERSION);
	json_add_int(root, "logs", (long long)s->logs);
	json_add_int(root, "bytes", (long long)s->bytes);
	json_add_int(root, "unreadable", (long long)s->errors);
	o = json_add_object(root, "classes");
	for (int c = 0; c < CLASS_COUNT; c++)
		json_add_int(o, class_name((enum pt_class)c), (long long)s->per_class[c]);
	a = json_add_array(root, "groups");
	for (size_t g = 0; g < s->ngroups; g++) {
		const struct scan_group *e = order[g];

		o = json_push_object(a);
		json_add_int(o, "logs", (long long)e->count);
		json_add_str(o, "fingerprint", e->fingerprint);
		json_add_str(o, "class", class_name(e->cls));
		json_add_str(o, "rule", e->rule);
		json_add_str(o, "example", e->example);
		json_add_str(o, "fingerprint_text", e->text);
	}
	rc = json_print(root, fp);
	json_free(root);
	free(order);
	return rc < 0 || ferror(fp) ? -1 : 0;
}

int
scan_summary_write(const struct scan_summary *s, FILE *fp)
{
	const struct scan_group **order = groups_in_order(s);

	fprintf(fp, "%zu log%s, %llu bytes", s->logs, s->logs == 1 ? "" : "s", s->bytes);
	if (s->errors)
		fprintf(fp, "; %zu path%s could not be read", s->errors, s->errors == 1 ? "" : "s");
	fputs("\n\nclass               logs\n", fp);
	for (int c = 0; c < CLASS_COUNT; c++)
		fprintf(fp, "%-17s %6zu\n", class_name((enum pt_class)c), s->per_class[c]);
	if (s->ngroups)
		fprintf(fp, "\n  logs  %-32s  %-40s  %s\n", "fingerprint", "rule", "example");
	for (size_t g = 0; g < s->ngroups; g++) {
		const struct scan_group *e = order[g];
		size_t tl = strlen(e->text), cut = tl;

		if (cut > SUMMARY_TEXT_MAX) {
			cut = SUMMARY_TEXT_MAX;
			while (cut > 0 && ((unsigned char)e->text[cut] & 0xC0) == 0x80)
				cut--;      /* not inside a UTF-8 sequence */
		}

		fprintf(fp, "%6zu  %-32s  %-40s  ", e->count, e->fingerprint, e->rule ? e->rule : "-");
		term_put_untrusted(fp, e->example, strlen(e->example));
		fputs("\n        ", fp);
		term_put_untrusted(fp, e->text, cut);
		fputs(cut < tl ? "...\n" : "\n", fp);
	}
	free(order);
	return ferror(fp) ? -1 : 0;
}

void
scan_summary_release(struct scan_summary *s)
{
	for (size_t g = 0; g < s->ngroups; g++) {
		free(s->groups[g].fingerprint);
		free(s->groups[g].example);
		free(s->groups[g].rule);
		free(s->groups[g].text);
	}
	free(s->groups);
	free(s->slots);
	memset(s, 0, sizeof(*s));
}
