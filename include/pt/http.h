/* SPDX-License-Identifier: MIT */
/*
 * HTTP for rule packs and the escalation webhook: a small wrapper over
 * libcurl, which src/http.c alone includes. Every libcurl detail (options,
 * the error buffer, the handle and header list lifetimes) stays there; the
 * rest of the tool sees these types.
 *
 * Safe defaults, always on: HTTPS only with certificate verification
 * (http:// only when allow_http is set, for a server on your own machine);
 * connect and total timeouts; a cap on the response body that holds even
 * when the server lies about Content-Length or sends chunks; at most
 * max_redirects redirects, never from https to http; the user agent
 * "pallas-triage/VERSION". Redirects are followed here, not by libcurl,
 * because libcurl can restrict the protocols of a redirect but cannot refuse
 * only the https-to-http downgrade when http is allowed.
 *
 * Nothing here prints except the retry notices of http_post_json(), which go
 * to opts->progress when it is set. A bearer token is sent in one header and
 * never appears in a message.
 */
#ifndef PT_HTTP_H
#define PT_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "pt/buf.h"
#include "pt/diag.h"

struct http_opts {
	bool allow_http;          /* accept http:// URLs and http redirects (never https -> http) */
	long connect_timeout_ms;  /* per connection attempt */
	long timeout_ms;          /* one request, redirects included */
	long deadline_ms;         /* http_post_json: every attempt and wait together */
	long backoff_ms;          /* http_post_json: first wait between attempts; doubles */
	int max_attempts;         /* http_post_json: tries in all */
	int max_redirects;        /* http_get: 0 refuses every redirect */
	size_t max_body;          /* bytes; http_get fails past it, http_post_json drops the rest */
	const char *ca_bundle;    /* CA certificates file, or NULL for the system store */
	const char *bearer;       /* http_post_json: token for "Authorization: Bearer", or NULL */
	FILE *progress;           /* retry notices for the user, or NULL */
};

/*
 * What the user asked for in the environment (pt/settings.h reads it), as
 * given; NULL where unset. Messages name the variables.
 */
struct http_env {
	const char *timeout;         /* PALLAS_TRIAGE_HTTP_TIMEOUT, seconds */
	const char *connect_timeout; /* PALLAS_TRIAGE_HTTP_CONNECT_TIMEOUT, seconds */
	const char *deadline;        /* PALLAS_TRIAGE_HTTP_DEADLINE, seconds */
	const char *backoff;         /* PALLAS_TRIAGE_HTTP_BACKOFF, seconds */
	const char *ca_bundle;       /* PALLAS_TRIAGE_CA_BUNDLE, a file */
};

/*
 * Fill o with the defaults (timeouts 10 s connect / 60 s total, post
 * deadline 120 s, backoff 1 s, 5 attempts, 5 redirects, 4 MiB body), then
 * apply env (may be NULL): the seconds may have fractions; o keeps a
 * borrowed pointer to the CA file name. A malformed value is an error
 * (PT_EXIT_USAGE).
 */
int http_opts_init(struct http_opts *o, const struct http_env *env, struct pt_err *err);

struct http_response {
	long status;              /* HTTP status of the final answer, 0 if none came */
	char *etag;               /* its ETag header, or NULL */
	char *last_modified;      /* its Last-Modified header, or NULL */
	int attempts;             /* http_post_json: requests made */
	struct buf body;          /* the body, at most opts->max_body bytes */
};

#define HTTP_RESPONSE_INIT { 0, NULL, NULL, 0, BUF_INIT }

/* Frees everything in r and resets it to HTTP_RESPONSE_INIT. */
void http_response_release(struct http_response *r);

/*
 * GET url into res. etag and last_modified (may be NULL) make the request
 * conditional (If-None-Match, If-Modified-Since). Returns 0 for 200 (body
 * filled) and for 304 (not modified; body empty), else -1 with err:
 * PT_EXIT_USAGE for a URL that is not allowed, PT_EXIT_SYSTEM for every
 * network failure, refused redirect, other HTTP status, timeout, truncated
 * or oversize body. res is filled as far as the transfer got; release it
 * either way.
 */
int http_get(const char *url, const char *etag, const char *last_modified,
	     struct http_response *res, const struct http_opts *o, struct pt_err *err);

/*
 * POST body[0..len) as application/json to url. Connection errors,
 * timeouts, 5xx and 429 answers are retried after backoff_ms, doubling,
 * until max_attempts or deadline_ms runs out; other answers are final.
 * Redirects are not followed (the body and the token stay with the host
 * that was named). Returns 0 on a 2xx answer, else -1 with err
 * (PT_EXIT_USAGE for a URL that is not allowed, PT_EXIT_SYSTEM otherwise).
 */
int http_post_json(const char *url, const char *body, size_t len, struct http_response *res,
		   const struct http_opts *o, struct pt_err *err);

/*
 * Check that url is an absolute https:// URL with a host (or http:// when
 * allow_http). Returns 0, or -1 with err (PT_EXIT_USAGE) saying why.
 */
int http_check_url(const char *url, bool allow_http, struct pt_err *err);

/*
 * Returns a new string (free()) to show url: with host_only, for every
 * message, only scheme://host[:port] (user name, password, path, query and
 * fragment removed: webhook paths and queries are often secrets, as git
 * hides credentials); without, for the `rules sources` listing, the path is
 * kept and a query shown as "?...". Works on any text, URL or not.
 */
char *http_url_display(const char *url, bool host_only);

/*
 * libcurl's global setup and teardown (curl_global_init/cleanup). Call
 * http_global_init() once before the first request and http_global_cleanup()
 * after the last. The commands that use HTTP (rules fetch/update, report
 * --post) do it themselves rather than main(), so that triage and the other
 * commands never pay for the TLS library's start-up. Returns 0, or -1 with
 * err (PT_EXIT_SYSTEM).
 */
int http_global_init(struct pt_err *err);
void http_global_cleanup(void);

#endif
