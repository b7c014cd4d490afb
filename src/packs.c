/* SPDX-License-Identifier: MIT */
/*
 * The rule-pack store: metadata, validation, atomic install, removal and
 * loading; see pt/packs.h for the layout and the crash-safety argument.
 * Downloading is not done here (the command layer uses pt/http.h), so this
 * module can be tested without a network.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pt/json.h"
#include "pt/packs.h"
#include "pt/rules_check.h"
#include "pt/sha256.h"
#include "pt/util.h"
#include "pt/xalloc.h"

#define META_MAX_BYTES (64u << 10)
#define META_VERSION 1
#define SUFFIX_META ".json"

void
pack_release(struct pack *p)
{
	if (!p)
		return;
	free(p->name);
	free(p->url);
	free(p->file);
	free(p->sha256);
	free(p->pin);
	free(p->etag);
	free(p->last_modified);
	free(p->fetched);
	free(p->checked);
	memset(p, 0, sizeof(*p));
}

void
packs_free(struct pack *packs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		pack_release(&packs[i]);
	free(packs);
}

char *
packs_dir(void)
{
	/* the same base as rules_user_dir(); not inside it, because a user rules
	 * directory replaces the shipped rules while packs add to them */
	return util_xdg_dir("XDG_DATA_HOME", ".local/share", "packs");
}

static bool
name_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       (!first && (c == '.' || c == '_' || c == '-'));
}

bool
pack_name_valid(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > PACK_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!name_char(name[i], i == 0))
			return false;
	return true;
}

char *
pack_name_from_url(const char *url)
{
	const char *p = strstr(url, "://"), *seg, *end;
	char *name;
	size_t n;

	p = p ? p + 3 : url;
	end = p + strcspn(p, "?#");
	while (end > p && end[-1] == '/')
		end--;
	seg = end;
	while (seg > p && seg[-1] != '/')
		seg--;
	if (seg == p)    /* only a host: no name in it */
		return NULL;
	n = (size_t)(end - seg);
	if (n > 5 && strncasecmp(end - 5, ".yaml", 5) == 0)
		n -= 5;
	else if (n > 4 && strncasecmp(end - 4, ".yml", 4) == 0)
		n -= 4;
	name = xstrndup(seg, n);
	for (char *c = name; *c; c++) {
		if (*c >= 'A' && *c <= 'Z')
			*c = (char)(*c - 'A' + 'a');
		if (!name_char(*c, false))
			*c = '-';
	}
	if (!pack_name_valid(name)) {
		free(name);
		return NULL;
	}
	return name;
}

/* ---- metadata ---- */

static char *
meta_path(const char *dir, const char *name)
{
	return xasprintf("%s/%s" SUFFIX_META, dir, name);
}

static int
meta_str(const struct json *root, const char *key, bool required, char **out, const char *path,
	 struct pt_err *err)
{
	const struct json *v = json_get(root, key);
	const char *s;

	*out = NULL;
	if (!v || json_kind(v) == JSON_NULL) {
		if (required)
			return pt_err_set(err, PT_EXIT_DATA, "%s: '%s' is missing", path, key);
		return 0;
	}
	if (json_str_value(v, &s) < 0)
		return pt_err_set(err, PT_EXIT_DATA, "%s: '%s' must be a string", path, key);
	*out = xstrdup(s);
	return 0;
}

static int
meta_int(const struct json *root, const char *key, long long *out, const char *path,
	 struct pt_err *err)
{
	if (json_int_value(json_get(root, key), out) < 0)
		return pt_err_set(err, PT_EXIT_DATA, "%s: '%s' must be an integer", path, key);
	return 0;
}

/* Parse NAME.json of dir into p; the name and file fields are checked, since
 * the file is opened by name later. */
static int
meta_read(const char *dir, const char *name, struct pack *p, struct pt_err *err)
{
	struct buf b = BUF_INIT;
	struct json *root = NULL;
	char *path = meta_path(dir, name);
	long long version = 0;
	int ret = -1;

	memset(p, 0, sizeof(*p));
	if (util_read_file(path, &b, META_MAX_BYTES, err) < 0)
		goto out;
	if (!(root = json_parse(b.data, b.len, path, err)))
		goto out;
	if (meta_int(root, "version", &version, path, err) < 0)
		goto out;
	if (version != META_VERSION) {
		pt_err_set(err, PT_EXIT_DATA, "%s: metadata version %lld is not supported", path,
			   version);
		goto out;
	}
	if (meta_str(root, "name", true, &p->name, path, err) < 0 ||
	    meta_str(root, "url", true, &p->url, path, err) < 0 ||
	    meta_str(root, "file", true, &p->file, path, err) < 0 ||
	    meta_str(root, "sha256", true, &p->sha256, path, err) < 0 ||
	    meta_str(root, "pin", false, &p->pin, path, err) < 0 ||
	    meta_str(root, "etag", false, &p->etag, path, err) < 0 ||
	    meta_str(root, "last_modified", false, &p->last_modified, path, err) < 0 ||
	    meta_str(root, "fetched", true, &p->fetched, path, err) < 0 ||
	    meta_str(root, "checked", true, &p->checked, path, err) < 0 ||
	    meta_int(root, "size", &p->size, path, err) < 0 ||
	    meta_int(root, "rules", &p->nrules, path, err) < 0)
		goto out;
	if (strcmp(p->name, name) != 0 || strchr(p->file, '/') || p->file[0] == '.' ||
	    !sha256_hex_valid(p->sha256)) {
		pt_err_set(err, PT_EXIT_DATA, "%s: the name, file or sha256 is not valid", path);
		goto out;
	}
	ret = 0;
out:
	if (ret < 0)
		pack_release(p);
	json_free(root);
	buf_release(&b);
	free(path);
	return ret;
}

static int
meta_write(const char *dir, const struct pack *p, struct pt_err *err)
{
	struct json *root = json_new_object();
	struct buf b = BUF_INIT;
	char *path = meta_path(dir, p->name);
	int ret;

	json_add_int(root, "version", META_VERSION);
	json_add_str(root, "name", p->name);
	json_add_str(root, "url", p->url);
	json_add_str(root, "file", p->file);
	json_add_str(root, "sha256", p->sha256);
	json_add_int(root, "size", p->size);
	json_add_int(root, "rules", p->nrules);
	json_add_str(root, "pin", p->pin);
	json_add_str(root, "etag", p->etag);
	json_add_str(root, "last_modified", p->last_modified);
	json_add_str(root, "fetched", p->fetched);
	json_add_str(root, "checked", p->checked);
	json_write(root, &b);
	ret = util_write_atomic(path, b.data, b.len, err);
	buf_release(&b);
	json_free(root);
	free(path);
	return ret;
}

static bool
has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n > m && strcmp(s + n - m, suffix) == 0;
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of the installed packs (from NAME.json), sorted; NULL-terminated. */
static char **
installed_names(const char *dir)
{
	char **names = NULL;
	size_t n = 0, alloc = 0;
	struct dirent *de;
	DIR *dp = dir ? opendir(dir) : NULL;

	XGROW(names, alloc, 1);
	if (dp) {
		while ((de = readdir(dp))) {
			size_t len = strlen(de->d_name);
			char *name;

			if (!has_suffix(de->d_name, SUFFIX_META))
				continue;
			name = xstrndup(de->d_name, len - strlen(SUFFIX_META));
			if (!pack_name_valid(name)) {
				free(name);
				continue;
			}
			XGROW(names, alloc, n + 2);
			names[n++] = name;
		}
		closedir(dp);
	}
	if (n > 1)
		qsort(names, n, sizeof(*names), name_cmp);
	names[n] = NULL;
	return names;
}

static void
names_free(char **names)
{
	for (char **p = names; p && *p; p++)
		free(*p);
	free(names);
}

int
packs_list(struct pack **out, size_t *n, struct pt_err *err)
{
	char *dir = packs_dir();
	char **names = installed_names(dir);
	struct pack *packs = NULL;
	size_t count = 0, alloc = 0;
	int ret = 0;

	for (char **p = names; *p; p++) {
		XGROW(packs, alloc, count + 1);
		if (meta_read(dir, *p, &packs[count], err) < 0) {
			ret = -1;
			break;
		}
		count++;
	}
	names_free(names);
	free(dir);
	if (ret < 0) {
		packs_free(packs, count);
		return -1;
	}
	*out = packs;
	*n = count;
	return 0;
}

int
pack_get(const char *name, struct pack *p, struct pt_err *err)
{
	char *dir = packs_dir(), *path = dir ? meta_path(dir, name) : NULL;
	int ret;

	if (!pack_name_valid(name) || !path || !util_is_file(path))
		ret = 1;
	else
		ret = meta_read(dir, name, p, err);
	free(path);
	free(dir);
	return ret;
}

/* ---- loading ---- */

/* Read the pack's file and check it is what the metadata says. */
static int
pack_read_text(const char *dir, const struct pack *p, struct buf *text, char **path_out,
	       struct pt_err *err)
{
	char hex[SHA256_HEX_LEN + 1];
	char *path = xasprintf("%s/%s", dir, p->file);

	*path_out = path;
	if (util_read_file(path, text, PACK_MAX_BYTES, err) < 0)
		return -1;
	sha256_hex(text->data, text->len, hex);
	if (strcmp(hex, p->sha256) != 0)
		return pt_err_set(err, PT_EXIT_DATA, "%s: the file was changed after it was installed "
				  "(its sha256 is not the recorded one)", path);
	return 0;
}

/* Load installed pack `name` into rs. skip: a name to leave out, or NULL. */
static int
load_one(struct ruleset *rs, const char *dir, const char *name, struct diag *d)
{
	struct pt_err err = PT_ERR_INIT;
	struct pack p;
	struct buf text = BUF_INIT;
	char *path = NULL;
	size_t before = d->nerrors;
	int ret = -1;

	if (meta_read(dir, name, &p, &err) < 0) {
		diag_error(d, "rule pack", 0, 0, "%s", err.msg);
		goto hint;
	}
	if (pack_read_text(dir, &p, &text, &path, &err) < 0) {
		/* a concurrent update may have replaced the pack between the two
		 * reads: the metadata names the new file then, so read it again */
		pack_release(&p);
		buf_reset(&text);
		free(path);
		path = NULL;
		if (meta_read(dir, name, &p, NULL) < 0 || pack_read_text(dir, &p, &text, &path, NULL) < 0) {
			diag_error(d, "rule pack", 0, 0, "%s", err.msg);
			goto hint;
		}
	}
	if (ruleset_load_buf(rs, text.data, text.len, path, name, d) < 0 || d->nerrors > before)
		goto hint;
	ret = 0;
	goto out;
hint:
	diag_error(d, "rule pack", 0, 0, "pack '%s' cannot be used with these rules; refetch it "
		   "with 'pallas-triage rules update %s' or remove it with 'pallas-triage rules "
		   "remove %s'", name, name, name);
out:
	pack_release(&p);
	buf_release(&text);
	free(path);
	return ret;
}

static int
load_installed(struct ruleset *rs, const char *dir, const char *skip, struct diag *d)
{
	char **names = installed_names(dir);
	int ret = 0;

	for (char **n = names; *n; n++)
		if ((!skip || strcmp(*n, skip) != 0) && load_one(rs, dir, *n, d) < 0)
			ret = -1;
	names_free(names);
	return ret;
}

int
packs_load(struct ruleset *rs, struct diag *d)
{
	char *dir = packs_dir();
	int ret = dir && util_is_dir(dir) ? load_installed(rs, dir, NULL, d) : 0;

	free(dir);
	return ret;
}

static bool
is_pack_file(const char *name)
{
	return name[0] != '.' && (has_suffix(name, SUFFIX_META) || has_suffix(name, ".yaml"));
}

char *
packs_cache_key(void)
{
	char *dir = packs_dir();
	char **names = dir ? util_list_dir(dir, is_pack_file) : NULL;
	struct buf key = BUF_INIT;

	buf_addf(&key, "packs %s\n", dir ? dir : "(none)");
	util_stat_key(&key, dir, names);
	util_names_free(names);
	free(dir);
	return buf_detach(&key, NULL);
}

/* ---- changing the store ---- */

struct store_lock {
	int fd;
};

static int
store_lock(const char *dir, struct store_lock *l, struct pt_err *err)
{
	char *path = NULL;
	int ret = -1;

	l->fd = -1;
	if (!dir) {
		pt_err_set(err, PT_EXIT_SYSTEM, "no directory for rule packs: neither $XDG_DATA_HOME "
			   "nor $HOME is an absolute path");
		goto out;
	}
	path = xasprintf("%s/.lock", dir);
	if (util_mkdirs(dir, err) < 0)
		goto out;
	if ((l->fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0) {
		pt_err_errno(err, PT_EXIT_SYSTEM, "cannot open '%s'", path);
		goto out;
	}
	while (flock(l->fd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			pt_err_errno(err, PT_EXIT_SYSTEM, "cannot lock '%s'", path);
			close(l->fd);
			l->fd = -1;
			goto out;
		}
	}
	ret = 0;
out:
	free(path);
	return ret;
}

static void
store_unlock(struct store_lock *l)
{
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
}

/* The test hook of pack_add(): see pt/packs.h. */
static void
crash_point(const char *crash_at, const char *step)
{
	if (crash_at && strcmp(crash_at, step) == 0)
		raise(SIGKILL);
}

/*
 * Remove what no metadata names: pack files of replaced or removed packs and
 * temp files of interrupted writes. Runs under the lock; skipped entirely if
 * any metadata is unreadable, since the file it names cannot be known.
 */
static void
collect_garbage(const char *dir)
{
	char **names = installed_names(dir), **keep = NULL;
	size_t nkeep = 0, alloc = 0;
	struct dirent *de;
	DIR *dp = NULL;

	for (char **n = names; *n; n++) {
		struct pack p;

		if (meta_read(dir, *n, &p, NULL) < 0)
			goto out;
		XGROW(keep, alloc, nkeep + 1);
		keep[nkeep++] = xstrdup(p.file);
		pack_release(&p);
	}
	if (!(dp = opendir(dir)))
		goto out;
	while ((de = readdir(dp))) {
		bool kept = false;

		if (de->d_name[0] == '.' ||
		    (!has_suffix(de->d_name, ".yaml") && !strstr(de->d_name, ".tmp.")))
			continue;
		for (size_t i = 0; i < nkeep && !kept; i++)
			kept = strcmp(keep[i], de->d_name) == 0;
		if (!kept) {
			char *path = xasprintf("%s/%s", dir, de->d_name);

			unlink(path);
			free(path);
		}
	}
out:
	if (dp)
		closedir(dp);
	for (size_t i = 0; i < nkeep; i++)
		free(keep[i]);
	free(keep);
	names_free(names);
}

/* Run the pack's own examples in a ruleset holding only the pack, which is
 * enough (a rule fires on its own patterns) and much faster than all rules. */
/* The pack's own examples, against the whole validated set: its rules may
 * name the base rules' contexts. */
static int
check_examples(const struct ruleset *rs, const char *shown, FILE *out, struct pt_err *err)
{
	struct check_result res = { 0, 0 };

	rules_check_examples(rs, shown, out, &res);
	if (res.failed)
		return pt_err_set(err, PT_EXIT_DATA, "%s: %zu example check%s of the pack failed; "
				  "the pack is not installed", shown, res.failed,
				  res.failed == 1 ? "" : "s");
	return 0;
}

static long long
count_rules(const struct ruleset *rs, const char *name)
{
	long long n = 0;

	for (size_t i = 0; i < rs->nrules; i++)
		if (rs->rules[i]->origin && strcmp(rs->rules[i]->origin, name) == 0)
			n++;
	return n;
}

static int
validate(const char *base_dir, const char *dir, const char *name, const char *text, size_t len,
	 const char *shown, struct diag *d, FILE *out, long long *nrules, struct pt_err *err)
{
	struct ruleset *rs = ruleset_new();
	struct diag base = DIAG_INIT;
	int ret = -1;

	if (ruleset_load_dir(rs, base_dir, NULL, &base, err) < 0 || base.nerrors) {
		if (base.nerrors)
			pt_err_set(err, PT_EXIT_DATA, "the rules at '%s' do not load (%zu problem%s); "
				   "run 'pallas-triage rules validate'", base_dir, base.nerrors,
				   base.nerrors == 1 ? "" : "s");
		goto out;
	}
	if (util_is_dir(dir) && load_installed(rs, dir, name, &base) < 0) {
		diag_print(&base, out);
		pt_err_set(err, PT_EXIT_DATA, "the installed rule packs do not load; fix them "
			   "before adding '%s'", name);
		goto out;
	}
	if (ruleset_load_buf(rs, text, len, shown, name, d) < 0 || ruleset_finish(rs, d) < 0 ||
	    d->nerrors) {
		pt_err_set(err, PT_EXIT_DATA, "%s: the pack is not valid (%zu problem%s); it is not "
			   "installed", shown, d->nerrors, d->nerrors == 1 ? "" : "s");
		goto out;
	}
	*nrules = count_rules(rs, name);
	if (check_examples(rs, shown, out, err) < 0)
		goto out;
	ret = 0;
out:
	diag_release(&base);
	ruleset_free(rs);
	return ret;
}

int
pack_add(const char *base_dir, const struct pack *meta, const char *text, size_t len,
	 const char *shown, struct diag *d, FILE *out, long long *nrules, const char *crash_at,
	 struct pt_err *err)
{
	char hex[SHA256_HEX_LEN + 1];
	struct store_lock lock = { -1 };
	struct pack p;
	char *dir = packs_dir(), *path = NULL;
	int ret = -1;

	memset(&p, 0, sizeof(p));
	if (!pack_name_valid(meta->name)) {
		pt_err_set(err, PT_EXIT_USAGE, "'%s' is not a valid pack name", meta->name);
		goto out;
	}
	if (store_lock(dir, &lock, err) < 0)
		goto out;
	if (validate(base_dir, dir, meta->name, text, len, shown, d, out, &p.nrules, err) < 0)
		goto out;
	sha256_hex(text, len, hex);
	p.name = xstrdup(meta->name);
	p.url = xstrdup(meta->url);
	p.file = xasprintf("%s.%.16s.yaml", meta->name, hex);
	p.sha256 = xstrdup(hex);
	p.pin = meta->pin ? xstrdup(meta->pin) : NULL;
	p.etag = meta->etag ? xstrdup(meta->etag) : NULL;
	p.last_modified = meta->last_modified ? xstrdup(meta->last_modified) : NULL;
	p.fetched = xstrdup(meta->fetched);
	p.checked = xstrdup(meta->checked ? meta->checked : meta->fetched);
	p.size = (long long)len;
	/* the file first (nothing refers to it yet), then the metadata: that
	 * rename is the commit; old files go only after it */
	path = xasprintf("%s/%s", dir, p.file);
	if (util_write_atomic(path, text, len, err) < 0)
		goto out;
	crash_point(crash_at, "after-file");
	if (meta_write(dir, &p, err) < 0)
		goto out;
	crash_point(crash_at, "after-metadata");
	collect_garbage(dir);
	if (nrules)
		*nrules = p.nrules;
	ret = 0;
out:
	store_unlock(&lock);
	pack_release(&p);
	free(path);
	free(dir);
	return ret;
}

static void
replace_str(char **field, const char *val)
{
	if (!val)
		return;
	free(*field);
	*field = xstrdup(val);
}

int
pack_mark_checked(const char *name, const char *sha256, const char *etag,
		  const char *last_modified, const char *checked, struct pt_err *err)
{
	struct store_lock lock = { -1 };
	struct pack p;
	char *dir = packs_dir();
	int ret = -1;

	memset(&p, 0, sizeof(p));
	if (store_lock(dir, &lock, err) < 0)
		goto out;
	if (meta_read(dir, name, &p, err) < 0)
		goto out;
	if (strcmp(p.sha256, sha256) == 0) {
		replace_str(&p.etag, etag);
		replace_str(&p.last_modified, last_modified);
		replace_str(&p.checked, checked);
		if (meta_write(dir, &p, err) < 0)
			goto out;
	}
	ret = 0;
out:
	store_unlock(&lock);
	pack_release(&p);
	free(dir);
	return ret;
}

int
pack_remove(const char *name, struct pt_err *err)
{
	struct store_lock lock = { -1 };
	char *dir = packs_dir(), *path = NULL;
	int ret = -1;

	if (!pack_name_valid(name) || !dir) {
		ret = 1;
		goto out;
	}
	path = meta_path(dir, name);
	if (!util_is_file(path)) {
		ret = 1;
		goto out;
	}
	if (store_lock(dir, &lock, err) < 0)
		goto out;
	/* the metadata goes first: from then on the pack is not installed */
	if (unlink(path) < 0) {
		if (errno == ENOENT) {
			ret = 1;
			goto out;
		}
		pt_err_errno(err, PT_EXIT_SYSTEM, "cannot remove '%s'", path);
		goto out;
	}
	collect_garbage(dir);
	ret = 0;
out:
	store_unlock(&lock);
	free(path);
	free(dir);
	return ret;
}
