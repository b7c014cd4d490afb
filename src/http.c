/* SPDX-License-Identifier: MIT */
/*
 * The libcurl wrapper (the only file that includes <curl/curl.h>); the
 * contract is in pt/http.h.
 *
 * libcurl rules kept here: the error buffer lives in struct conn next to the
 * handle, so it cannot be freed first; every curl_slist is freed with
 * curl_slist_free_all and the handle with curl_easy_cleanup on every path;
 * CURLOPT_NOSIGNAL is set because timeouts must not use SIGALRM in a tool
 * that has its own signal handlers. Redirects are libcurl's own
 * (CURLOPT_FOLLOWLOCATION with CURLOPT_MAXREDIRS and
 * CURLOPT_REDIR_PROTOCOLS_STR), never followed for a POST.
 *
 * libcurl is opened with dlopen() on first use instead of being linked:
 * loading it and the thirty libraries it pulls in (TLS, Kerberos, LDAP, ...)
 * cost about 7 ms on every exec here, more than a whole triage of a small
 * log, and only the HTTP commands need it. The calls below keep their
 * libcurl names; the macros after struct curl_api route them through it.
 * Those macros must replace curl.h's own, which check the type of every
 * curl_easy_setopt() argument at compile time; so `make check` also
 * builds this file with PT_HTTP_LINKED, linked to libcurl the ordinary
 * way with those checks on (-Werror), and runs tests/http against it.
 */
#ifndef PT_HTTP_LINKED
#define CURL_DISABLE_TYPECHECK 1	/* its macros would hide our routing below */
#endif
#include <curl/curl.h>
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "pt/http.h"
#include "pt/util.h"
#include "pt/xalloc.h"

#define USER_AGENT "pallas-triage/" PT_VERSION
#define BACKOFF_MAX_MS 30000L

struct conn {
	CURL *h;
	char errbuf[CURL_ERROR_SIZE];
	struct curl_slist *headers;
	struct buf *body;
	bool discard_excess;      /* post: drop bytes past the cap instead of failing */
	bool overflow;            /* the body went past its cap */
};

#ifdef PT_HTTP_LINKED
/* Linked for the type-checked build: nothing to load. */
static struct { bool ok; char why[8]; } api = { true, "" };

static bool
api_load(void)
{
	return true;
}
#else
#define LIBCURL_SONAME "libcurl.so.4"

static struct curl_api {
	bool tried, ok;
	void *dl;
	__typeof__(&curl_global_init) global_init;
	__typeof__(&curl_global_cleanup) global_cleanup;
	__typeof__(&curl_easy_init) easy_init;
	__typeof__(&curl_easy_setopt) easy_setopt;
	__typeof__(&curl_easy_perform) easy_perform;
	__typeof__(&curl_easy_getinfo) easy_getinfo;
	__typeof__(&curl_easy_header) easy_header;
	__typeof__(&curl_easy_reset) easy_reset;
	__typeof__(&curl_easy_cleanup) easy_cleanup;
	__typeof__(&curl_easy_strerror) easy_strerror;
	__typeof__(&curl_free) free_;
	__typeof__(&curl_slist_append) slist_append;
	__typeof__(&curl_slist_free_all) slist_free_all;
	__typeof__(&curl_url) url;
	__typeof__(&curl_url_set) url_set;
	__typeof__(&curl_url_get) url_get;
	__typeof__(&curl_url_cleanup) url_cleanup;
	__typeof__(&curl_version) version;
	char why[256];
} api;

/* The one process-wide state of this module: a library handle is global by nature. */
static bool
api_load(void)
{
	static const struct { const char *name; size_t off; } syms[] = {
#define SYM(f, field) { #f, offsetof(struct curl_api, field) }
		SYM(curl_global_init, global_init), SYM(curl_global_cleanup, global_cleanup),
		SYM(curl_easy_init, easy_init), SYM(curl_easy_setopt, easy_setopt),
		SYM(curl_easy_perform, easy_perform), SYM(curl_easy_getinfo, easy_getinfo),
		SYM(curl_easy_header, easy_header), SYM(curl_easy_reset, easy_reset),
		SYM(curl_easy_cleanup, easy_cleanup), SYM(curl_easy_strerror, easy_strerror),
		SYM(curl_free, free_), SYM(curl_slist_append, slist_append),
		SYM(curl_slist_free_all, slist_free_all), SYM(curl_url, url),
		SYM(curl_url_set, url_set), SYM(curl_url_get, url_get),
		SYM(curl_url_cleanup, url_cleanup), SYM(curl_version, version),
#undef SYM
	};

	if (api.tried)
		return api.ok;
	api.tried = true;
	if (!(api.dl = dlopen(LIBCURL_SONAME, RTLD_NOW | RTLD_LOCAL))) {
		snprintf(api.why, sizeof(api.why), "cannot load libcurl: %s", dlerror());
		return false;
	}
	for (size_t i = 0; i < ARRAY_SIZE(syms); i++) {
		void *f = dlsym(api.dl, syms[i].name);

		if (!f) {
			snprintf(api.why, sizeof(api.why), "libcurl (" LIBCURL_SONAME ") lacks %s; "
				 "version 7.84 or newer is needed", syms[i].name);
			return false;
		}
		/* POSIX guarantees that a data pointer from dlsym holds a function */
		memcpy((char *)&api + syms[i].off, &f, sizeof(f));
	}
	api.ok = true;
	return true;
}

#undef curl_easy_setopt	/* curl.h's argument-count check macros */
#undef curl_easy_getinfo
#define curl_global_init (*api.global_init)
#define curl_global_cleanup (*api.global_cleanup)
#define curl_easy_init (*api.easy_init)
#define curl_easy_setopt (*api.easy_setopt)
#define curl_easy_perform (*api.easy_perform)
#define curl_easy_getinfo (*api.easy_getinfo)
#define curl_easy_header (*api.easy_header)
#define curl_easy_reset (*api.easy_reset)
#define curl_easy_cleanup (*api.easy_cleanup)
#define curl_easy_strerror (*api.easy_strerror)
#define curl_free (*api.free_)
#define curl_slist_append (*api.slist_append)
#define curl_slist_free_all (*api.slist_free_all)
#define curl_url (*api.url)
#define curl_url_set (*api.url_set)
#define curl_url_get (*api.url_get)
#define curl_url_cleanup (*api.url_cleanup)
#define curl_version (*api.version)
#endif /* PT_HTTP_LINKED */

int
http_global_init(struct pt_err *err)
{
	if (!api_load())
		return pt_err_set(err, PT_EXIT_SYSTEM, "%s", api.why);
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return pt_err_set(err, PT_EXIT_SYSTEM, "cannot initialise libcurl");
	return 0;
}

void
http_global_cleanup(void)
{
#ifndef PT_HTTP_LINKED
	/* libcurl stays mapped until exit: unloading it (and the TLS library
	 * it pulled in) leaves thread-local destructors and atexit handlers
	 * pointing into unmapped code, which LeakSanitizer's exit-time scan
	 * crashed on; the process ends right after anyway */
	if (api.ok)
		curl_global_cleanup();
#else
	curl_global_cleanup();
#endif
}

void
http_response_release(struct http_response *r)
{
	free(r->etag);
	free(r->last_modified);
	buf_release(&r->body);
	r->etag = r->last_modified = NULL;
	r->status = 0;
	r->attempts = 0;
}

/* ---- options ---- */

static int
env_seconds(const char *name, const char *v, long *ms, struct pt_err *err)
{
	char *end;
	double s;

	if (!v || !*v)
		return 0;
	errno = 0;
	s = strtod(v, &end);
	if (errno || *end || !(s > 0) || s > 86400)
		return pt_err_set(err, PT_EXIT_USAGE, "%s='%s' is not a number of seconds "
				  "between 0 and 86400", name, v);
	*ms = (long)(s * 1000 + 0.5);
	if (*ms < 1)
		*ms = 1;
	return 0;
}

int
http_opts_init(struct http_opts *o, const struct http_env *env, struct pt_err *err)
{
	static const struct http_env none;
	const char *ca;

	if (!env)
		env = &none;
	ca = env->ca_bundle;
	memset(o, 0, sizeof(*o));
	o->connect_timeout_ms = 10000;
	o->timeout_ms = 60000;
	o->deadline_ms = 120000;
	o->backoff_ms = 1000;
	o->max_attempts = 5;
	o->max_redirects = 5;
	o->max_body = 4u << 20;
	if (env_seconds("PALLAS_TRIAGE_HTTP_TIMEOUT", env->timeout, &o->timeout_ms, err) < 0 ||
	    env_seconds("PALLAS_TRIAGE_HTTP_CONNECT_TIMEOUT", env->connect_timeout,
			&o->connect_timeout_ms, err) < 0 ||
	    env_seconds("PALLAS_TRIAGE_HTTP_DEADLINE", env->deadline, &o->deadline_ms, err) < 0 ||
	    env_seconds("PALLAS_TRIAGE_HTTP_BACKOFF", env->backoff, &o->backoff_ms, err) < 0)
		return -1;
	if (ca && *ca) {
		if (!util_is_file(ca))
			return pt_err_set(err, PT_EXIT_USAGE, "PALLAS_TRIAGE_CA_BUNDLE='%s' is not a file",
					  ca);
		o->ca_bundle = ca;
	}
	return 0;
}

/* ---- URLs ---- */

static bool
has_scheme(const char *url, const char *scheme)
{
	size_t n = strlen(scheme);

	return strncasecmp(url, scheme, n) == 0 && strncmp(url + n, "://", 3) == 0;
}

int
http_check_url(const char *url, bool allow_http, struct pt_err *err)
{
	CURLU *u;
	char *host = NULL, *shown;
	int ret = -1;

	if (!api_load())
		return pt_err_set(err, PT_EXIT_SYSTEM, "%s", api.why);
	if (!(u = curl_url()))
		pt_die(PT_EXIT_SYSTEM, "out of memory");
	/* messages show scheme://host[:port] only: a URL may carry a password,
	 * a token in its query, or a secret webhook path */
	shown = http_url_display(url, true);
	if (!has_scheme(url, "https") && !has_scheme(url, "http")) {
		pt_err_set(err, PT_EXIT_USAGE, "'%s' is not an https:// URL", shown);
		goto out;
	}
	if (curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK || !host || !*host) {
		pt_err_set(err, PT_EXIT_USAGE, "'%s' is not a valid URL", shown);
		goto out;
	}
	if (!allow_http && !has_scheme(url, "https")) {
		pt_err_set(err, PT_EXIT_USAGE, "refusing plain http URL '%s': use https, or "
			   "--allow-http for a server on your own machine", shown);
		goto out;
	}
	ret = 0;
out:
	free(shown);
	curl_free(host);
	curl_url_cleanup(u);
	return ret;
}

/*
 * Plain string work, no URL parser: it must also cope with what is not a
 * URL at all (the text of a "not a URL" message) and without libcurl.
 */
char *
http_url_display(const char *url, bool host_only)
{
	const char *sep = strstr(url, "://"), *auth = url, *end, *at, *q;
	size_t slen = 0;

	if (sep && sep > url && strspn(url, "abcdefghijklmnopqrstuvwxyz"
				      "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-") == (size_t)(sep - url)) {
		slen = (size_t)(sep - url) + 3;
		auth = sep + 3;
	}
	end = auth + strcspn(auth, "/?#");
	if ((at = memrchr(auth, '@', (size_t)(end - auth))))
		auth = at + 1;
	if (host_only || *end != '/')
		return xasprintf("%.*s%.*s", (int)slen, url, (int)(end - auth), auth);
	q = end + strcspn(end, "?#");
	return xasprintf("%.*s%.*s%.*s%s", (int)slen, url, (int)(end - auth), auth, (int)(q - end),
			 end, *q == '?' ? "?..." : "");
}

/* ---- one transfer ---- */

static long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static size_t
on_body(char *p, size_t size, size_t n, void *arg)
{
	struct conn *c = arg;
	size_t len = size * n;

	if (c->overflow)
		return c->discard_excess ? len : 0;
	if (buf_add(c->body, p, len) < 0) {
		c->overflow = true;
		/* returning less than len makes libcurl stop with CURLE_WRITE_ERROR */
		return c->discard_excess ? len : 0;
	}
	return len;
}

static void
conn_free_headers(struct conn *c)
{
	/* the header list may hold the bearer token: wipe it before freeing */
	for (struct curl_slist *l = c->headers; l; l = l->next)
		explicit_bzero(l->data, strlen(l->data));
	curl_slist_free_all(c->headers);
	c->headers = NULL;
}

static void
conn_add_header(struct conn *c, const char *h)
{
	struct curl_slist *l = curl_slist_append(c->headers, h);

	if (!l)
		pt_die(PT_EXIT_SYSTEM, "out of memory");
	c->headers = l;
}

/*
 * Configure c->h for one request to url; the caller adds method and
 * headers. follow: let libcurl follow up to o->max_redirects redirects,
 * never from https to anything else, even with --allow-http (which is for
 * a server on the user's own machine, not for a downgrade).
 */
static int
conn_setup(struct conn *c, const char *url, const struct http_opts *o, long timeout_ms,
	   bool follow, struct pt_err *err)
{
	const char *protos = o->allow_http ? "http,https" : "https";
	const char *redir = o->allow_http && !has_scheme(url, "https") ? "http,https" : "https";
	CURL *h = c->h;

	curl_easy_reset(h);
	c->errbuf[0] = '\0';
	c->overflow = false;
	if (curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, protos) != CURLE_OK ||
	    curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, redir) != CURLE_OK)
		return pt_err_set(err, PT_EXIT_SYSTEM, "this libcurl (%s) cannot restrict protocols; "
				  "7.85 or newer is needed", curl_version());
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, c->errbuf);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, follow ? 1L : 0L);
	curl_easy_setopt(h, CURLOPT_MAXREDIRS, follow ? (long)o->max_redirects : 0L);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, o->connect_timeout_ms);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout_ms);
	curl_easy_setopt(h, CURLOPT_USERAGENT, USER_AGENT);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
	if (o->ca_bundle)
		curl_easy_setopt(h, CURLOPT_CAINFO, o->ca_bundle);
	curl_easy_setopt(h, CURLOPT_NETRC, (long)CURL_NETRC_IGNORED);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, c);
	if (o->max_body && !c->discard_excess)
		curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)o->max_body);
	return 0;
}

/* A header of the last response as a new string, or NULL. */
static char *
last_header(CURL *h, const char *name)
{
	struct curl_header *hd = NULL;

	if (curl_easy_header(h, name, 0, CURLH_HEADER, -1, &hd) != CURLHE_OK || !hd || !hd->value)
		return NULL;
	return xstrdup(hd->value);
}

static void
lower_first(char *s)
{
	if (s[0] >= 'A' && s[0] <= 'Z' && !(s[1] >= 'A' && s[1] <= 'Z'))
		s[0] = (char)(s[0] - 'A' + 'a');
}

/*
 * Say which limit fired. libcurl applies the connect timeout to the TCP
 * connect and the TLS handshake, and the total timeout to everything: a
 * server that accepts but never answers the handshake stops the transfer
 * at the connect timeout, which must not be reported as the total one.
 * libcurl's connect time stays 0 until the handshake is done, so the time
 * the transfer took tells which of the two limits it ran into.
 */
static void
describe_timeout(const struct conn *c, const struct http_opts *o, long timeout_ms, char *msg,
		 size_t len)
{
	curl_off_t took_us = 0;
	bool tls = strstr(c->errbuf, "SSL") || strstr(c->errbuf, "TLS");

	curl_easy_getinfo(c->h, CURLINFO_TOTAL_TIME_T, &took_us);
	if (o->connect_timeout_ms < timeout_ms &&
	    took_us / 1000 < (o->connect_timeout_ms + timeout_ms) / 2)
		snprintf(msg, len, "timed out after %.1f s, the connect timeout: %s",
			 (double)o->connect_timeout_ms / 1000, tls ?
			 "the TLS handshake did not finish" : "no connection was made");
	else
		snprintf(msg, len, "timed out after %.1f s", (double)timeout_ms / 1000);
}

/* Describe a failed transfer into msg (one clause, no URL). */
static void
describe(const struct conn *c, CURLcode rc, const struct http_opts *o, long timeout_ms, char *msg,
	 size_t len)
{
	char detail[CURL_ERROR_SIZE + 1];

	snprintf(detail, sizeof(detail), "%s", c->errbuf[0] ? c->errbuf : curl_easy_strerror(rc));
	lower_first(detail);
	if (c->overflow || rc == CURLE_FILESIZE_EXCEEDED) {
		snprintf(msg, len, "the response is larger than the %zu-byte limit", o->max_body);
		return;
	}
	switch (rc) {
	case CURLE_OPERATION_TIMEDOUT:
		describe_timeout(c, o, timeout_ms, msg, len);
		break;
	case CURLE_PARTIAL_FILE:
		snprintf(msg, len, "the response was cut short (%s)", detail);
		break;
	case CURLE_COULDNT_CONNECT:
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
		snprintf(msg, len, "cannot connect (%s)", detail);
		break;
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_CONNECT_ERROR:
		snprintf(msg, len, "TLS failed, the certificate is not trusted or the handshake "
			 "failed (%s)", detail);
		break;
	case CURLE_UNSUPPORTED_PROTOCOL:
		snprintf(msg, len, "protocol not allowed (%s)", detail);
		break;
	default:
		snprintf(msg, len, "%s", detail);
		break;
	}
}

/* Would trying again help? Network trouble yes; a bad certificate or URL no. */
static bool
transient(CURLcode rc)
{
	switch (rc) {
	case CURLE_COULDNT_CONNECT:
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
		return true;
	default:
		return false;
	}
}

/*
 * The host answered and said nothing listens there (ECONNREFUSED): a wrong
 * port or a service that is not running, which waiting does not change. A
 * connect that timed out or a network that is unreachable may come back.
 */
static bool
refused(struct conn *c, CURLcode rc)
{
	long os_errno = 0;

	if (rc != CURLE_COULDNT_CONNECT)
		return false;
	return curl_easy_getinfo(c->h, CURLINFO_OS_ERRNO, &os_errno) == CURLE_OK &&
	       os_errno == ECONNREFUSED;
}

static int
conn_open(struct conn *c, struct buf *body, struct pt_err *err)
{
	memset(c, 0, sizeof(*c));
	c->body = body;
	if (!(c->h = curl_easy_init()))
		return pt_err_set(err, PT_EXIT_SYSTEM, "cannot start libcurl");
	return 0;
}

static void
conn_close(struct conn *c)
{
	conn_free_headers(c);
	if (c->h)
		curl_easy_cleanup(c->h);
	c->h = NULL;
}

/* ---- GET ---- */

/*
 * A transfer that libcurl stopped at a redirect: too many, or to a
 * protocol it was not allowed. The message names the target's scheme and
 * host only, never its credentials.
 */
static bool
describe_redirect(const struct conn *c, CURLcode rc, const char *url, const struct http_opts *o,
		  const char *shown, struct pt_err *err)
{
	char *to, *target = NULL;
	long hops = 0;

	if (rc == CURLE_TOO_MANY_REDIRECTS) {
		pt_err_set(err, PT_EXIT_SYSTEM, "cannot fetch '%s': too many redirects (more than %d)",
			   shown, o->max_redirects);
		return true;
	}
	curl_easy_getinfo(c->h, CURLINFO_REDIRECT_COUNT, &hops);
	curl_easy_getinfo(c->h, CURLINFO_EFFECTIVE_URL, &target);
	if (rc != CURLE_UNSUPPORTED_PROTOCOL || hops == 0 || !target)
		return false;
	to = http_url_display(target, true);
	if (has_scheme(url, "https") && !has_scheme(target, "https"))
		pt_err_set(err, PT_EXIT_SYSTEM, "cannot fetch '%s': refusing the redirect from "
			   "https to '%s'", shown, to);
	else
		pt_err_set(err, PT_EXIT_SYSTEM, "cannot fetch '%s': refusing the redirect to '%s'",
			   shown, to);
	free(to);
	return true;
}

int
http_get(const char *url, const char *etag, const char *last_modified,
	 struct http_response *res, const struct http_opts *o, struct pt_err *err)
{
	struct conn c;
	char *shown = NULL, *line, msg[400];
	CURLcode rc;
	int ret = -1;

	if (http_check_url(url, o->allow_http, err) < 0)
		return -1;
	buf_init(&res->body, o->max_body);
	if (conn_open(&c, &res->body, err) < 0)
		return -1;
	shown = http_url_display(url, true);
	if (conn_setup(&c, url, o, o->timeout_ms, true, err) < 0)
		goto out;
	if (etag) {
		line = xasprintf("If-None-Match: %s", etag);
		conn_add_header(&c, line);
		free(line);
	}
	if (last_modified) {
		line = xasprintf("If-Modified-Since: %s", last_modified);
		conn_add_header(&c, line);
		free(line);
	}
	curl_easy_setopt(c.h, CURLOPT_HTTPHEADER, c.headers);
	if ((rc = curl_easy_perform(c.h)) != CURLE_OK) {
		if (!describe_redirect(&c, rc, url, o, shown, err)) {
			describe(&c, rc, o, o->timeout_ms, msg, sizeof(msg));
			pt_err_set(err, PT_EXIT_SYSTEM, "cannot fetch '%s': %s", shown, msg);
		}
		goto out;
	}
	curl_easy_getinfo(c.h, CURLINFO_RESPONSE_CODE, &res->status);
	if (res->status >= 300 && res->status < 400 && res->status != 304) {
		/* libcurl follows every redirect that has a Location */
		pt_err_set(err, PT_EXIT_SYSTEM, "cannot fetch '%s': HTTP %ld without a Location",
			   shown, res->status);
		goto out;
	}
	if (res->status != 200 && res->status != 304) {
		pt_err_set(err, PT_EXIT_SYSTEM, "cannot fetch '%s': HTTP %ld", shown, res->status);
		goto out;
	}
	res->etag = last_header(c.h, "ETag");
	res->last_modified = last_header(c.h, "Last-Modified");
	if (res->status == 304)
		buf_reset(&res->body);
	ret = 0;
out:
	conn_close(&c);
	free(shown);
	return ret;
}

/* ---- POST ---- */

static long
retry_after_ms(CURL *h)
{
	char *v = last_header(h, "Retry-After");
	char *end;
	long s;

	if (!v)
		return 0;
	errno = 0;
	s = strtol(v, &end, 10);
	free(v);
	if (errno || *end || s < 0 || s > 600)
		return 0;
	return s * 1000;
}

static bool
token_ok(const char *t)
{
	if (!*t)
		return false;
	for (; *t; t++)
		if ((unsigned char)*t < 0x21 || (unsigned char)*t == 0x7f)
			return false;
	return true;
}

int
http_post_json(const char *url, const char *body, size_t len, struct http_response *res,
	       const struct http_opts *o, struct pt_err *err)
{
	struct conn c;
	char *shown = NULL, last[400] = "";
	long start = now_ms(), wait = o->backoff_ms;
	int ret = -1;

	if (http_check_url(url, o->allow_http, err) < 0)
		return -1;
	if (o->bearer && !token_ok(o->bearer))
		return pt_err_set(err, PT_EXIT_USAGE, "PALLAS_TRIAGE_TOKEN is empty or holds spaces "
				  "or control characters");
	buf_init(&res->body, o->max_body);
	if (conn_open(&c, &res->body, err) < 0)
		return -1;
	c.discard_excess = true;
	shown = http_url_display(url, true);
	for (res->attempts = 1;; res->attempts++) {
		long left = o->deadline_ms - (now_ms() - start);
		long tmo = o->timeout_ms < left ? o->timeout_ms : left > 0 ? left : 1;
		CURLcode rc;
		bool retry;

		buf_reset(&res->body);
		conn_free_headers(&c);
		if (conn_setup(&c, url, o, tmo, false, err) < 0)
			goto out;
		conn_add_header(&c, "Content-Type: application/json");
		conn_add_header(&c, "Expect:");
		if (o->bearer) {
			char *line = xasprintf("Authorization: Bearer %s", o->bearer);

			conn_add_header(&c, line);
			explicit_bzero(line, strlen(line));
			free(line);
		}
		curl_easy_setopt(c.h, CURLOPT_HTTPHEADER, c.headers);
		curl_easy_setopt(c.h, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(c.h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
		rc = curl_easy_perform(c.h);
		res->status = 0;
		if (rc == CURLE_OK) {
			curl_easy_getinfo(c.h, CURLINFO_RESPONSE_CODE, &res->status);
			if (res->status >= 200 && res->status < 300) {
				ret = 0;
				goto out;
			}
			snprintf(last, sizeof(last), "HTTP %ld", res->status);
			retry = res->status >= 500 || res->status == 429;
			if (res->status >= 300 && res->status < 400)
				snprintf(last, sizeof(last), "HTTP %ld: the webhook redirects, and the "
					 "report is not sent on to another address", res->status);
		} else {
			describe(&c, rc, o, tmo, last, sizeof(last));
			retry = transient(rc) && !refused(&c, rc);
		}
		if (!retry) {
			pt_err_set(err, PT_EXIT_SYSTEM, "cannot post to '%s': %s", shown, last);
			goto out;
		}
		if (res->status) {
			long ra = retry_after_ms(c.h);

			if (ra > wait)
				wait = ra;
		}
		left = o->deadline_ms - (now_ms() - start);
		if (res->attempts >= o->max_attempts || wait >= left) {
			pt_err_set(err, PT_EXIT_SYSTEM, "cannot post to '%s': gave up after %d attempt%s "
				   "in %.1f s; the last one: %s", shown, res->attempts,
				   res->attempts == 1 ? "" : "s", (double)(now_ms() - start) / 1000, last);
			goto out;
		}
		if (o->progress)
			fprintf(o->progress, "pallas-triage: warning: posting to '%s' failed (%s); "
				"retrying in %.1f s (attempt %d of %d)\n", shown, last,
				(double)wait / 1000, res->attempts + 1, o->max_attempts);
		sleep_ms(wait);
		wait = wait * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : wait * 2;
	}
out:
	conn_close(&c);
	free(shown);
	return ret;
}
