/* SPDX-License-Identifier: MIT */
/*
 * `pallas-triage rules fetch|sources|update|remove`: rule packs from a URL.
 * A pack is downloaded into memory, checked against an optional sha256 pin,
 * validated together with the base rules and the other packs (examples
 * included), and only then installed; any failure leaves the installed packs
 * as they were (docs/packs.md). These commands do not load the rules
 * through the dispatcher, so a pack that broke the rules can still be
 * updated or removed.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "pt/util.h"
#include "cmd.h"
#include "rules_packs.h"
#include "pt/http.h"
#include "pt/json.h"
#include "pt/packs.h"
#include "pt/rules.h"
#include "pt/sha256.h"
#include "pt/term.h"
#include "pt/xalloc.h"

static int rules_fetch_run(int argc, char **argv, struct pt_ctx *ctx);
static int rules_sources_run(int argc, char **argv, struct pt_ctx *ctx);
static int rules_update_run(int argc, char **argv, struct pt_ctx *ctx);
static int rules_remove_run(int argc, char **argv, struct pt_ctx *ctx);

#define NET_HELP \
	"  --allow-http       allow a plain http:// URL (a server on your own machine);\n" \
	"                     a redirect from https to http is refused even then\n"

const struct cmd_entry cmd_rules_fetch_entry = {
	.name = "fetch",
	.usage = "rules fetch [--sha256 HEX] [--name NAME] [--allow-http] URL | FILE",
	.summary = "download (or read) a rule pack, validate it and install it",
	.help =
	"options:\n"
	"  --sha256 HEX       install only if the download has this SHA-256\n"
	"  --name NAME        the pack's name (default: from the URL's file name)\n"
	NET_HELP
	"\n"
	"FILE (a path, or file://PATH) installs a pack from this machine, such as a\n"
	"team's rules in a checkout; 'rules update' reads it again.\n"
	"The pack (one YAML rules file) is validated with the base rules and the other\n"
	"packs, and its examples are run, before anything is written. A pack rule with\n"
	"the id of another rule must say 'overrides: true'. Fetching a name again\n"
	"replaces that pack.\n"
	"\n"
	"exit status: 0 installed, 2 usage error (also a URL that is not https),\n"
	"3 invalid pack or checksum mismatch, 4 network or file system error\n",
	.min_args = 1, .max_args = 1, .run = rules_fetch_run,
};

const struct cmd_entry cmd_rules_sources_entry = {
	.name = "sources",
	.usage = "rules sources [--json]",
	.summary = "list the installed rule packs with origin, checksum and fetch time",
	.help = "exit status: 0 listed (also when none), 3 corrupt pack metadata\n",
	.min_args = 0, .max_args = 0, .run = rules_sources_run,
};

const struct cmd_entry cmd_rules_update_entry = {
	.name = "update",
	.usage = "rules update [--allow-http] [NAME...]",
	.summary = "refetch the installed rule packs (conditional requests)",
	.help =
	"options:\n"
	NET_HELP
	"\n"
	"Asks each pack's origin whether it changed (If-None-Match, If-Modified-Since)\n"
	"and installs a changed pack after the same checks as fetch. A pack that fails\n"
	"to download or to validate keeps its last good version. A pack fetched with\n"
	"--sha256 stays pinned: a different content is a checksum mismatch.\n"
	"\n"
	"exit status: 0 all up to date, 2 usage error or unknown NAME, 3 an invalid\n"
	"pack or checksum mismatch, 4 a network or file system error (the worst wins)\n",
	.min_args = 0, .max_args = -1, .run = rules_update_run,
};

const struct cmd_entry cmd_rules_remove_entry = {
	.name = "remove",
	.usage = "rules remove NAME",
	.summary = "remove an installed rule pack",
	.help = "exit status: 0 removed, 2 usage error or no such pack, 4 file system error\n",
	.min_args = 1, .max_args = 1, .flags = CMD_DESTRUCTIVE, .run = rules_remove_run,
};

enum { OPT_SHA256 = 1, OPT_NAME, OPT_ALLOW_HTTP, OPT_JSON };

static int
worst(int a, int b)
{
	return a > b ? a : b;
}

static void
lowercase(char *s)
{
	for (; *s; s++)
		if (*s >= 'A' && *s <= 'F')
			*s = (char)(*s - 'A' + 'a');
}

/*
 * A pack may also come from a file on this machine (a team's rules in a
 * checkout): a path, or file://PATH. It is stored as file:// and the
 * absolute path, so that `rules update` reads it again.
 */
static bool
is_local_source(const char *url)
{
	return strncmp(url, "file://", 7) == 0 || !strstr(url, "://");
}

/* The path of a local source: a new string (absolute), or NULL with err set. */
static char *
local_source_path(const char *url, struct pt_err *err)
{
	const char *path = strncmp(url, "file://", 7) == 0 ? url + 7 : url;
	char *abs = realpath(path, NULL);

	if (!abs)
		pt_err_errno(err, PT_EXIT_DATA, "cannot read the rule pack '%s'", path);
	return abs;
}

/* What messages show of a source: a local path whole, a URL without secrets. */
static char *
source_display(const char *url)
{
	return strncmp(url, "file://", 7) == 0 ? xstrdup(url + 7) : http_url_display(url, true);
}

/*
 * Get the pack text from url into res (status 200; 304 when the server says
 * it is unchanged). A local file is read as it is, with no conditional.
 */
static int
fetch_source(const char *url, const char *etag, const char *last_modified,
	     struct http_response *res, const struct http_opts *ho, struct pt_err *err)
{
	char *path;
	int rc;

	if (!is_local_source(url))
		return http_check_url(url, ho->allow_http, err) < 0 ? -1 :
		       http_get(url, etag, last_modified, res, ho, err);
	if (!(path = local_source_path(url, err)))
		return -1;
	rc = util_read_file(path, &res->body, PACK_MAX_BYTES, err);
	res->status = rc < 0 ? 0 : 200;
	free(path);
	return rc;
}

/* Print a failed pack_add: the schema problems, then the summary. */
static int
report_add_failure(const struct diag *d, const struct pt_err *err, const char *name, bool keep)
{
	fflush(stdout);
	diag_print(d, stderr);
	if (keep) {
		fputs("pallas-triage: error: ", stderr);
		term_puts_untrusted(stderr, name);
		fputs(": ", stderr);
		term_puts_untrusted(stderr, err->msg);
		fputs("; keeping the installed version\n", stderr);
		return err->status ? err->status : PT_EXIT_SYSTEM;
	}
	return pt_report(err);
}

/* Check the download of url against pin, validate and install it as pack name. */
static int
install_download(const char *url, const char *name, const char *pin, const char *base,
		 const struct http_response *res, const struct settings *env)
{
	struct pt_err err = PT_ERR_INIT;
	struct diag d = DIAG_INIT;
	struct pack meta;
	char hex[SHA256_HEX_LEN + 1];
	char *shown = source_display(url), *label = xasprintf("%s.yaml", name);
	struct util_time now;
	long long nrules = 0;
	int rc;

	sha256_hex(res->body.data, res->body.len, hex);
	if (pin && strcmp(hex, pin) != 0) {
		pt_err_set(&err, PT_EXIT_DATA, "checksum mismatch for '%s': expected sha256 %s, got "
			   "%s; nothing was installed", shown, pin, hex);
		rc = pt_report(&err);
		goto out;
	}
	memset(&meta, 0, sizeof(meta));
	meta.name = (char *)name;
	meta.url = (char *)url;
	meta.pin = (char *)pin;
	meta.etag = res->etag;
	meta.last_modified = res->last_modified;
	meta.fetched = meta.checked = (char *)util_now(&now, env->now);
	if (pack_add(base, &meta, res->body.data, res->body.len, label, &d, stderr, &nrules,
		     env->test_crash, &err) < 0) {
		rc = report_add_failure(&d, &err, name, false);
		goto out;
	}
	diag_print(&d, stderr);
	printf("installed rule pack '%s': %lld rule%s from %s\nsha256 %s\n", name, nrules,
	       nrules == 1 ? "" : "s", shown, hex);
	rc = PT_EXIT_OK;
out:
	diag_release(&d);
	free(shown);
	free(label);
	return rc;
}

static int
rules_fetch_run(int argc, char **argv, struct pt_ctx *ctx)
{
	static const struct option opts[] = {
		{ "sha256", required_argument, NULL, OPT_SHA256 },
		{ "name", required_argument, NULL, OPT_NAME },
		{ "allow-http", no_argument, NULL, OPT_ALLOW_HTTP },
		CMD_GLOBAL_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	const struct cmd_entry *e = &cmd_rules_fetch_entry;
	struct http_response res = HTTP_RESPONSE_INIT;
	struct pt_err err = PT_ERR_INIT;
	struct http_opts ho;
	char *pin = NULL, *name = NULL, *base = NULL;
	const char *url;
	char *local = NULL;
	bool allow_http = false, curl_up = false;
	int c, rc;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == OPT_SHA256) {
			free(pin);
			pin = xstrdup(optarg);
		} else if (c == OPT_NAME) {
			free(name);
			name = xstrdup(optarg);
		} else if (c == OPT_ALLOW_HTTP) {
			allow_http = true;
		} else if ((rc = cmd_global_option(e, ctx, c, optarg)) != 0) {
			goto out;
		}
	}
	if ((rc = cmd_check_args(e, argc, optind)) != 0)
		goto out;
	url = argv[optind];
	if (is_local_source(url)) {
		char *path = local_source_path(url, &err);

		if (!path) {
			rc = pt_report(&err);
			goto out;
		}
		url = local = xasprintf("file://%s", path);
		free(path);
	} else if (http_check_url(url, allow_http, &err) < 0) {
		rc = cmd_usage_error(e, "%s", err.msg);
		goto out;
	}
	if (pin && !sha256_hex_valid(pin)) {
		rc = cmd_usage_error(e, "--sha256 takes 64 hex digits, not '%s'", pin);
		goto out;
	}
	if (pin)
		lowercase(pin);
	if (name && !pack_name_valid(name)) {
		rc = cmd_usage_error(e, "'%s' is not a valid pack name: use lowercase letters, "
				     "digits, '.', '_' and '-', starting with a letter or digit", name);
		goto out;
	}
	if (!name && !(name = pack_name_from_url(url))) {
		rc = cmd_usage_error(e, "cannot make a pack name from the URL's file name; give "
				     "one with --name");
		goto out;
	}
	if (http_opts_init(&ho, &ctx->env.http, &err) < 0 || http_global_init(&err) < 0) {
		rc = pt_report(&err);
		goto out;
	}
	curl_up = true;
	ho.allow_http = allow_http;
	ho.max_body = PACK_MAX_BYTES;
	if (!(base = rules_locate(ctx->rules_dir, ctx->env.rules_dir, &err))) {
		rc = pt_report(&err);
		goto out;
	}
	rc = fetch_source(url, NULL, NULL, &res, &ho, &err) < 0 ? pt_report(&err) :
	     install_download(url, name, pin, base, &res, &ctx->env);
out:
	http_response_release(&res);
	free(local);
	free(pin);
	free(name);
	free(base);
	if (curl_up)
		http_global_cleanup();
	return rc;
}

/* One "  label value" line; the value may come from the server (ETag ...). */
static void
print_field(const char *label, const char *value, const char *suffix)
{
	printf("  %-9s ", label);
	term_puts_untrusted(stdout, value);
	printf("%s\n", suffix);
}

static void
print_pack_text(const struct pack *p)
{
	char *shown = http_url_display(p->url, false);
	char num[32];

	term_puts_untrusted(stdout, p->name);
	putchar('\n');
	print_field("origin:", shown, "");
	print_field("sha256:", p->sha256, p->pin ? " (pinned)" : "");
	print_field("fetched:", p->fetched, "");
	print_field("checked:", p->checked, "");
	snprintf(num, sizeof(num), "%lld", p->nrules);
	print_field("rules:", num, "");
	snprintf(num, sizeof(num), "%lld", p->size);
	print_field("size:", num, " bytes");
	if (p->etag)
		print_field("etag:", p->etag, "");
	if (p->last_modified)
		print_field("modified:", p->last_modified, "");
	free(shown);
}

static void
add_pack_json(struct json *arr, const struct pack *p)
{
	struct json *o = json_push_object(arr);
	char *shown = http_url_display(p->url, false);

	json_add_str(o, "name", p->name);
	json_add_str(o, "origin", shown);
	json_add_str(o, "sha256", p->sha256);
	json_add_bool(o, "pinned", p->pin != NULL);
	json_add_str(o, "fetched", p->fetched);
	json_add_str(o, "checked", p->checked);
	json_add_int(o, "rules", p->nrules);
	json_add_int(o, "size", p->size);
	json_add_str(o, "etag", p->etag);
	json_add_str(o, "last_modified", p->last_modified);
	free(shown);
}

static int
rules_sources_run(int argc, char **argv, struct pt_ctx *ctx)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		CMD_GLOBAL_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	const struct cmd_entry *e = &cmd_rules_sources_entry;
	struct pt_err err = PT_ERR_INIT;
	struct pack *packs = NULL;
	size_t n = 0;
	bool json = false;
	int c, rc;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == OPT_JSON)
			json = true;
		else if ((rc = cmd_global_option(e, ctx, c, optarg)) != 0)
			return rc;
	}
	if ((rc = cmd_check_args(e, argc, optind)) != 0)
		return rc;
	if (packs_list(&packs, &n, &err) < 0)
		return pt_report(&err);
	if (json) {
		struct json *root = json_new_array();

		for (size_t i = 0; i < n; i++)
			add_pack_json(root, &packs[i]);
		json_print(root, stdout);
		json_free(root);
	} else if (n == 0) {
		printf("no rule packs installed; add one with 'pallas-triage rules fetch URL'\n");
	} else {
		for (size_t i = 0; i < n; i++) {
			if (i)
				putchar('\n');
			print_pack_text(&packs[i]);
		}
	}
	packs_free(packs, n);
	return PT_EXIT_OK;
}

/* Refetch one pack; prints its outcome and returns its PT_EXIT_* status. */
static int
update_one(const struct pack *p, const char *base, const struct http_opts *ho,
	   const struct settings *env)
{
	struct http_response res = HTTP_RESPONSE_INIT;
	struct pt_err err = PT_ERR_INIT;
	struct diag d = DIAG_INIT;
	struct pack meta;
	char hex[SHA256_HEX_LEN + 1];
	char *shown = source_display(p->url), *label = xasprintf("%s.yaml", p->name);
	struct util_time t;
	const char *now = util_now(&t, env->now);
	long long nrules = 0;
	int rc = PT_EXIT_OK;

	memset(&meta, 0, sizeof(meta));
	if (fetch_source(p->url, p->etag, p->last_modified, &res, ho, &err) < 0) {
		rc = report_add_failure(&d, &err, p->name, true);
		goto out;
	}
	if (res.status == 304) {
		if (pack_mark_checked(p->name, p->sha256, res.etag, res.last_modified, now, &err) < 0)
			rc = report_add_failure(&d, &err, p->name, true);
		else
			printf("%s: not modified\n", p->name);
		goto out;
	}
	sha256_hex(res.body.data, res.body.len, hex);
	if (strcmp(hex, p->sha256) == 0) {
		if (pack_mark_checked(p->name, p->sha256, res.etag, res.last_modified, now, &err) < 0)
			rc = report_add_failure(&d, &err, p->name, true);
		else
			printf("%s: unchanged\n", p->name);
		goto out;
	}
	if (p->pin && strcmp(hex, p->pin) != 0) {
		pt_err_set(&err, PT_EXIT_DATA, "checksum mismatch for '%s': the pack is pinned to "
			   "sha256 %s, the origin now has %s", shown, p->pin, hex);
		rc = report_add_failure(&d, &err, p->name, true);
		goto out;
	}
	meta.name = p->name;
	meta.url = p->url;
	meta.pin = p->pin;
	meta.etag = res.etag;
	meta.last_modified = res.last_modified;
	meta.fetched = meta.checked = (char *)now;
	if (pack_add(base, &meta, res.body.data, res.body.len, label, &d, stderr, &nrules,
		     env->test_crash, &err) < 0) {
		rc = report_add_failure(&d, &err, p->name, true);
		goto out;
	}
	diag_print(&d, stderr);
	printf("%s: updated: %lld rule%s, sha256 %s\n", p->name, nrules, nrules == 1 ? "" : "s",
	       hex);
out:
	http_response_release(&res);
	diag_release(&d);
	free(shown);
	free(label);
	return rc;
}

static int
rules_update_run(int argc, char **argv, struct pt_ctx *ctx)
{
	static const struct option opts[] = {
		{ "allow-http", no_argument, NULL, OPT_ALLOW_HTTP },
		CMD_GLOBAL_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	const struct cmd_entry *e = &cmd_rules_update_entry;
	struct pt_err err = PT_ERR_INIT;
	struct pack *packs = NULL;
	struct http_opts ho;
	size_t n = 0;
	char *base = NULL;
	bool allow_http = false;
	int c, rc;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == OPT_ALLOW_HTTP)
			allow_http = true;
		else if ((rc = cmd_global_option(e, ctx, c, optarg)) != 0)
			return rc;
	}
	if ((rc = cmd_check_args(e, argc, optind)) != 0)
		return rc;
	for (int i = optind; i < argc; i++) {
		struct pack p;
		int got = pack_get(argv[i], &p, &err);

		if (got < 0)
			return pt_report(&err);
		if (got == 1)
			return cmd_not_found(NULL, "no rule pack named '%s' (see 'pallas-triage "
					     "rules sources')", argv[i]);
		pack_release(&p);
	}
	if (http_opts_init(&ho, &ctx->env.http, &err) < 0 || packs_list(&packs, &n, &err) < 0)
		return pt_report(&err);
	ho.allow_http = allow_http;
	ho.max_body = PACK_MAX_BYTES;
	if (n == 0) {
		printf("no rule packs installed; add one with 'pallas-triage rules fetch URL'\n");
		goto out;
	}
	if (!(base = rules_locate(ctx->rules_dir, ctx->env.rules_dir, &err))) {
		rc = pt_report(&err);
		goto out;
	}
	if (http_global_init(&err) < 0) {
		rc = pt_report(&err);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		bool wanted = optind == argc;

		for (int k = optind; k < argc && !wanted; k++)
			wanted = strcmp(argv[k], packs[i].name) == 0;
		if (wanted)
			rc = worst(rc, update_one(&packs[i], base, &ho, &ctx->env));
	}
	http_global_cleanup();
out:
	packs_free(packs, n);
	free(base);
	return rc;
}

static int
rules_remove_run(int argc, char **argv, struct pt_ctx *ctx)
{
	const struct cmd_entry *e = &cmd_rules_remove_entry;
	static const struct option opts[] = {
		CMD_GLOBAL_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct pt_err err = PT_ERR_INIT;
	int c, rc;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1)
		if ((rc = cmd_global_option(e, ctx, c, optarg)) != 0)
			return rc;
	if ((rc = cmd_check_args(e, argc, optind)) != 0)
		return rc;
	rc = pack_remove(argv[optind], &err);
	if (rc < 0)
		return pt_report(&err);
	if (rc == 1)
		return cmd_not_found(NULL, "no rule pack named '%s' (see 'pallas-triage rules sources')",
				     argv[optind]);
	printf("removed rule pack '%s'\n", argv[optind]);
	return PT_EXIT_OK;
}
