/* SPDX-License-Identifier: MIT */
/*
 * The MCP protocol: JSON-RPC 2.0 envelopes, the two eras (an `initialize`
 * handshake, or the protocol version in each request's _meta), and the
 * methods: initialize, ping, server/discover, tools/list, tools/call,
 * resources/list, resources/templates/list, resources/read. What the
 * tools do is pt/mcp_tools.h; what each revision asks of a result is the
 * version table below (docs/mcp.md cites the specification for each).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "pt/json.h"
#include "pt/mcp.h"
#include "pt/mcp_tools.h"
#include "pt/rules.h"
#include "pt/util.h"
#include "pt/xalloc.h"

enum {
	RPC_PARSE_ERROR = -32700,
	RPC_INVALID_REQUEST = -32600,
	RPC_METHOD_NOT_FOUND = -32601,
	RPC_INVALID_PARAMS = -32602,
	RPC_INTERNAL_ERROR = -32603,
	MCP_LEGACY_NOT_FOUND = -32002,       /* resource not found, 2025-11-25 and before */
	MCP_UNSUPPORTED_VERSION = -32022,    /* 2026-07-28 */
};

#define META_VERSION "io.modelcontextprotocol/protocolVersion"
#define META_CAPABILITIES "io.modelcontextprotocol/clientCapabilities"
#define META_SERVER_INFO "io.modelcontextprotocol/serverInfo"

/* How long a client may keep a list or a page (ms): they change with the binary or the rules. */
#define TTL_LISTS 3600000
#define TTL_PAGES 60000

struct mcp_version {
	const char *name;
	bool modern;        /* stateless (2026-07-28): resultType in every result, caching
			     * hints, serverInfo in each result's _meta; no ping */
	bool structured;    /* title, outputSchema and structuredContent (2025-06-18 on) */
	bool batches;       /* JSON-RPC batches must be read (2025-03-26 only) */
	int not_found;      /* the code of a resource that is not there */
};

/* Newest first: the first legacy one is what initialize offers a version it does not know. */
static const struct mcp_version versions[] = {
	{ "2026-07-28", true, true, false, RPC_INVALID_PARAMS },
	{ "2025-11-25", false, true, false, MCP_LEGACY_NOT_FOUND },
	{ "2025-06-18", false, true, false, MCP_LEGACY_NOT_FOUND },
	{ "2025-03-26", false, false, true, MCP_LEGACY_NOT_FOUND },
};

static const char instructions[] =
	"pallas-triage diagnoses failing JAX Pallas kernels (TPU and GPU). triage classifies a "
	"log given as path or pasted as log, with the evidence and a fix ladder filled with the "
	"log's numbers. To work through the ladder: session_start with dir (the project "
	"directory, absolute) and the log; apply the change of the rung in 'next', rerun, and "
	"record the outcome with attempt; repeat. The walk stops at a fix, at the tenth attempt "
	"or when no rung is left; report gives the escalation report at any time. The server "
	"keeps nothing between calls: every session call names its dir. explain, check_block "
	"and vmem answer questions about rules, block shapes and VMEM.";

struct mcp_server {
	const struct mcp_host *host;
	const struct mcp_version *negotiated; /* by initialize; NULL before */
};

/* A request being answered: what the response needs. */
struct rpc {
	struct mcp_server *s;
	const struct json *id;              /* borrowed from the request; NULL: none */
	const struct json *params;          /* object or NULL */
	const struct mcp_version *v;        /* the version this request is answered by */
};

struct mcp_server *
mcp_server_new(const struct mcp_host *host)
{
	struct mcp_server *s = xcalloc(1, sizeof(*s));

	s->host = host;
	return s;
}

void
mcp_server_free(struct mcp_server *s)
{
	free(s);
}

static void
note(const struct mcp_server *s, const char *fmt, ...) PT_PRINTF(2, 3);

static void
note(const struct mcp_server *s, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;

	if (!s->host->log)
		return;
	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	s->host->log(s->host->arg, b.data);
	buf_release(&b);
}

static const struct mcp_version *
find_version(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(versions); i++)
		if (strcmp(versions[i].name, name) == 0)
			return &versions[i];
	return NULL;
}

/* ---------------------------------------------------------------- envelopes */

static struct json *
envelope(const struct json *id)
{
	struct json *m = json_new_object();

	json_add_str(m, "jsonrpc", "2.0");
	/* an id that could not be read is left out (MCP's JSONRPCErrorResponse) */
	if (id)
		json_add_copy(m, "id", id);
	return m;
}

/* An error response; data (taken, may be NULL) goes in error.data. */
static struct json *
error_data(const struct json *id, int code, struct json *data, const char *fmt, ...) PT_PRINTF(4, 5);

static struct json *
error_data(const struct json *id, int code, struct json *data, const char *fmt, ...)
{
	struct json *m = envelope(id), *e = json_add_object(m, "error");
	struct buf b = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	json_add_int(e, "code", code);
	json_add_str(e, "message", b.data);
	if (data)
		json_add_take(e, "data", data);
	buf_release(&b);
	return m;
}

#define rpc_error(id, code, ...) error_data((id), (code), NULL, __VA_ARGS__)

/* A result object, resultType first in the modern era. */
static struct json *
result_new(const struct rpc *q)
{
	struct json *r = json_new_object();

	if (q->v && q->v->modern)
		json_add_str(r, "resultType", "complete");
	return r;
}

static void
add_server_info(const struct mcp_server *s, struct json *o)
{
	json_add_str(o, "name", "pallas-triage");
	json_add_str(o, "version", s->host->version);
}

/*
 * The response for result r (taken). ttl >= 0 marks a cacheable result,
 * which the modern era gives its caching hints; it also names the server in
 * the result's _meta.
 */
static struct json *
respond(const struct rpc *q, struct json *r, long long ttl, const char *scope)
{
	struct json *m = envelope(q->id);

	if (q->v && q->v->modern) {
		if (ttl >= 0) {
			json_add_int(r, "ttlMs", ttl);
			json_add_str(r, "cacheScope", scope);
		}
		add_server_info(q->s, json_add_object(json_add_object(r, "_meta"), META_SERVER_INFO));
	}
	json_add_take(m, "result", r);
	return m;
}

static struct json *
supported_versions(void)
{
	struct json *a = json_new_array();

	for (size_t i = 0; i < ARRAY_SIZE(versions); i++)
		json_push_str(a, versions[i].name);
	return a;
}

static void
add_capabilities(struct json *r)
{
	struct json *c = json_add_object(r, "capabilities");

	json_add_object(c, "tools");
	json_add_object(c, "resources");
}

/* ---------------------------------------------------------------- lifecycle */

static struct json *
do_initialize(struct rpc *q)
{
	const char *asked;
	const struct mcp_version *v;
	struct json *r;

	if (json_str_value(json_get(q->params, "protocolVersion"), &asked) < 0)
		return rpc_error(q->id, RPC_INVALID_PARAMS,
				 "initialize needs params.protocolVersion (a string)");
	/* the version asked for if it has a handshake, else the newest that has one */
	v = find_version(asked);
	if (!v || v->modern)
		v = &versions[1];
	q->s->negotiated = q->v = v;
	r = result_new(q);
	json_add_str(r, "protocolVersion", v->name);
	add_capabilities(r);
	add_server_info(q->s, json_add_object(r, "serverInfo"));
	json_add_str(r, "instructions", instructions);
	return respond(q, r, -1, NULL);
}

static struct json *
do_ping(struct rpc *q)
{
	/* 2026-07-28 removed ping: it is a method of the handshake era only */
	if (q->v && q->v->modern)
		return rpc_error(q->id, RPC_METHOD_NOT_FOUND,
				 "ping is not a method of protocol %s", q->v->name);
	return respond(q, result_new(q), -1, NULL);
}

static struct json *
do_discover(struct rpc *q)
{
	struct json *r = result_new(q);

	json_add_take(r, "supportedVersions", supported_versions());
	add_capabilities(r);
	json_add_str(r, "instructions", instructions);
	return respond(q, r, TTL_LISTS, "public");
}

/* ---------------------------------------------------------------- tools */

/* No list is long enough to be paged, so no cursor was ever handed out. */
static struct json *
refuse_cursor(const struct rpc *q)
{
	if (!json_get(q->params, "cursor"))
		return NULL;
	return rpc_error(q->id, RPC_INVALID_PARAMS, "invalid cursor: this server hands out none");
}

static struct json *
do_tools_list(struct rpc *q)
{
	struct json *r, *bad = refuse_cursor(q);

	if (bad)
		return bad;
	r = result_new(q);
	mcp_tools_describe(q->s->host, q->v->structured, json_add_array(r, "tools"));
	return respond(q, r, TTL_LISTS, "public");
}

static struct json *
do_tools_call(struct rpc *q)
{
	const struct json *args = json_get(q->params, "arguments");
	const struct mcp_tool *t;
	const char *name;
	struct json *r;

	if (json_str_value(json_get(q->params, "name"), &name) < 0)
		return rpc_error(q->id, RPC_INVALID_PARAMS, "tools/call needs params.name (a string)");
	if (!(t = mcp_tool_find(q->s->host, name)))
		return rpc_error(q->id, RPC_INVALID_PARAMS, "unknown tool '%s'", name);
	if (args && json_kind(args) != JSON_OBJECT)
		return rpc_error(q->id, RPC_INVALID_PARAMS, "params.arguments must be an object");
	r = result_new(q);
	mcp_tool_call(q->s->host, t, args, q->v->structured, r);
	return respond(q, r, -1, NULL);
}

/* ---------------------------------------------------------------- resources */

#define EXPLAIN_URI "pallas-triage://explain/"
#define REPORT_URI "pallas-triage://report/"

static void
add_resource(const struct rpc *q, struct json *arr, const char *cls)
{
	struct json *o = json_push_object(arr);
	char *uri = xasprintf(EXPLAIN_URI "%s", cls);
	char *title = xasprintf("the %s class and its fix ladder", cls);

	json_add_str(o, "uri", uri);
	json_add_str(o, "name", cls);
	if (q->v->structured)
		json_add_str(o, "title", title);
	json_add_str(o, "description", strcmp(cls, "unknown") == 0 ?
		     "what pallas-triage says of a log that shows no Pallas kernel failure" :
		     "what this class of Pallas failure is, and its fix ladder, cheapest rung first");
	json_add_str(o, "mimeType", "text/plain");
	free(uri);
	free(title);
}

static struct json *
do_resources_list(struct rpc *q)
{
	struct json *r, *arr, *bad = refuse_cursor(q);

	if (bad)
		return bad;
	r = result_new(q);
	arr = json_add_array(r, "resources");
	if (mcp_tool_find(q->s->host, "explain"))
		for (int c = 0; c < CLASS_COUNT; c++)
			add_resource(q, arr, class_name((enum pt_class)c));
	return respond(q, r, TTL_LISTS, "public");
}

static void
add_template(const struct rpc *q, struct json *arr, const char *uri, const char *name,
	     const char *title, const char *description, const char *mime)
{
	struct json *o = json_push_object(arr);

	json_add_str(o, "uriTemplate", uri);
	json_add_str(o, "name", name);
	if (q->v->structured)
		json_add_str(o, "title", title);
	json_add_str(o, "description", description);
	if (mime)
		json_add_str(o, "mimeType", mime);
}

static struct json *
do_templates_list(struct rpc *q)
{
	struct json *r, *arr, *bad = refuse_cursor(q);

	if (bad)
		return bad;
	r = result_new(q);
	arr = json_add_array(r, "resourceTemplates");
	if (mcp_tool_find(q->s->host, "explain"))
		add_template(q, arr, EXPLAIN_URI "{name}", "explain", "an explain page",
			     "the page 'pallas-triage explain NAME' prints: a rule id, a rung, a "
			     "class, an error code such as E1001 or a JAX API name",
			     "text/plain");
	if (mcp_tool_find(q->s->host, "report"))
		add_template(q, arr, REPORT_URI "{format}{?dir}", "report",
			     "the escalation report of a session",
			     "the report of the session of the project directory dir "
			     "(percent-encoded, absolute), as md, json or text", NULL);
	return respond(q, r, TTL_LISTS, "public");
}

/* s[0..n) with %XX decoded, or NULL when an escape is bad or a NUL. Free it. */
static char *
percent_decode(const char *s, size_t n)
{
	char *out = xmalloc(n + 1), *o = out;

	for (size_t i = 0; i < n; i++) {
		int hi, lo;

		if (s[i] != '%') {
			*o++ = s[i];
			continue;
		}
		if (n - i < 3 || (hi = util_hex_digit(s[i + 1])) < 0 || (lo = util_hex_digit(s[i + 2])) < 0 ||
		    (hi == 0 && lo == 0)) {
			free(out);
			return NULL;
		}
		*o++ = (char)(hi * 16 + lo);
		i += 2;
	}
	*o = '\0';
	return out;
}

/* The decoded value of key in the query q ("a=1&dir=%2Fx"), or NULL. Free it. */
static char *
query_value(const char *q, const char *key)
{
	size_t klen = strlen(key);

	while (q && *q) {
		size_t n = strcspn(q, "&");

		if (n > klen && strncmp(q, key, klen) == 0 && q[klen] == '=')
			return percent_decode(q + klen + 1, n - klen - 1);
		q = q[n] ? q + n + 1 : NULL;
	}
	return NULL;
}

/* What a resource URI asks for: a tool and its arguments (new object), or NULL. */
static struct json *
resource_args(const char *uri, const char **tool, const char **mime)
{
	struct json *args = NULL;
	char *a = NULL, *b = NULL;

	if (strncmp(uri, EXPLAIN_URI, strlen(EXPLAIN_URI)) == 0) {
		const char *name = uri + strlen(EXPLAIN_URI);

		if ((a = percent_decode(name, strlen(name))) && *a) {
			args = json_new_object();
			json_add_str(args, "name", a);
			*tool = "explain";
			*mime = "text/plain";
		}
	} else if (strncmp(uri, REPORT_URI, strlen(REPORT_URI)) == 0) {
		const char *fmt = uri + strlen(REPORT_URI), *q = strchr(fmt, '?');
		size_t n = q ? (size_t)(q - fmt) : strlen(fmt);

		a = xasprintf("%.*s", (int)n, fmt);
		*mime = strcmp(a, "md") == 0 ? "text/markdown" : strcmp(a, "json") == 0 ?
			"application/json" : strcmp(a, "text") == 0 ? "text/plain" : NULL;
		if (*mime && q && (b = query_value(q + 1, "dir")) && *b) {
			args = json_new_object();
			json_add_str(args, "dir", b);
			json_add_str(args, "format", a);
			*tool = "report";
		}
	}
	free(a);
	free(b);
	return args;
}

static struct json *
not_found(const struct rpc *q, const char *uri, const char *why)
{
	struct json *data = json_new_object();

	json_add_str(data, "uri", uri);
	if (why)
		json_add_str(data, "reason", why);
	return error_data(q->id, q->v->not_found, data, "Resource not found");
}

static struct json *
do_resources_read(struct rpc *q)
{
	struct mcp_ran run = { .status = -1, .out = BUF_INIT, .err = BUF_INIT };
	const char *uri, *tool = NULL, *mime = NULL;
	const struct mcp_tool *t;
	struct buf msg = BUF_INIT;
	struct json *args, *json = NULL, *m, *r, *c;

	if (json_str_value(json_get(q->params, "uri"), &uri) < 0)
		return rpc_error(q->id, RPC_INVALID_PARAMS, "resources/read needs params.uri (a string)");
	if (!(args = resource_args(uri, &tool, &mime)) || !(t = mcp_tool_find(q->s->host, tool))) {
		json_free(args);
		return not_found(q, uri, NULL);
	}
	if (mcp_tool_exec(q->s->host, t, args, &run, &json, &msg) < 0) {
		/* 1 and 2: no session there, nothing of that name; the rest is ours */
		if (run.status == 1 || run.status == 2)
			m = not_found(q, uri, msg.data);
		else
			m = error_data(q->id, RPC_INTERNAL_ERROR, NULL, "%s", msg.data);
	} else {
		r = result_new(q);
		c = json_push_object(json_add_array(r, "contents"));
		json_add_str(c, "uri", uri);
		json_add_str(c, "mimeType", mime);
		json_add_str(c, "text", run.out.data);
		/* a report is the user's own data, and changes with every attempt */
		m = strcmp(tool, "report") == 0 ? respond(q, r, 0, "private") :
			respond(q, r, TTL_PAGES, "public");
	}
	json_free(json);
	json_free(args);
	buf_release(&msg);
	buf_release(&run.out);
	buf_release(&run.err);
	return m;
}

/* ---------------------------------------------------------------- dispatch */

struct method {
	const char *name;
	struct json *(*run)(struct rpc *q);
};

static const struct method methods[] = {
	{ "ping", do_ping },
	{ "server/discover", do_discover },
	{ "tools/list", do_tools_list },
	{ "tools/call", do_tools_call },
	{ "resources/list", do_resources_list },
	{ "resources/templates/list", do_templates_list },
	{ "resources/read", do_resources_read },
};

/*
 * The version q is answered by: the one its _meta names (which must come
 * with the client's capabilities), else the one initialize negotiated;
 * ping needs neither. Returns NULL, or the error response.
 */
static struct json *
pick_version(struct rpc *q, const char *method)
{
	const struct json *meta = json_get(q->params, "_meta"), *pv = json_get(meta, META_VERSION);
	const char *name;
	struct json *data;

	if (pv) {
		if (json_str_value(pv, &name) < 0)
			return rpc_error(q->id, RPC_INVALID_PARAMS,
					 "_meta '" META_VERSION "' must be a string");
		if (!(q->v = find_version(name))) {
			data = json_new_object();
			json_add_take(data, "supported", supported_versions());
			json_add_str(data, "requested", name);
			return error_data(q->id, MCP_UNSUPPORTED_VERSION, data,
					  "Unsupported protocol version");
		}
		if (json_kind(json_get(meta, META_CAPABILITIES)) != JSON_OBJECT)
			return rpc_error(q->id, RPC_INVALID_PARAMS, "_meta needs '" META_CAPABILITIES
					 "' (an object; {} for none)");
		return NULL;
	}
	if ((q->v = q->s->negotiated) || strcmp(method, "ping") == 0)
		return NULL;
	return rpc_error(q->id, RPC_INVALID_PARAMS, "no protocol version: name it in "
			 "params._meta['" META_VERSION "'] (2026-07-28), or send initialize first "
			 "(2025-11-25 and older)");
}

static bool
valid_id(const struct json *id)
{
	long long n;

	/* MCP: a string or an integer, never null */
	return json_kind(id) == JSON_STRING || json_int_value(id, &n) == 0;
}

/* The response to one message, or NULL for a notification or a client's response. */
static struct json *
handle_message(struct mcp_server *s, const struct json *msg)
{
	struct rpc q = { s, NULL, NULL, NULL };
	const char *method, *jsonrpc;
	struct json *bad;

	if (json_kind(msg) != JSON_OBJECT)
		return rpc_error(NULL, RPC_INVALID_REQUEST, "a message must be a JSON object");
	q.id = json_get(msg, "id");
	if (q.id && !valid_id(q.id)) {
		q.id = NULL;
		return rpc_error(NULL, RPC_INVALID_REQUEST, "id must be a string or an integer");
	}
	if (json_str_value(json_get(msg, "method"), &method) < 0) {
		/* a response: this server sends no requests, so nobody waits for it */
		if (!json_get(msg, "method") && (json_get(msg, "result") || json_get(msg, "error")))
			return NULL;
		return rpc_error(q.id, RPC_INVALID_REQUEST, "method must be a string");
	}
	if (json_str_value(json_get(msg, "jsonrpc"), &jsonrpc) < 0 || strcmp(jsonrpc, "2.0") != 0)
		return rpc_error(q.id, RPC_INVALID_REQUEST, "jsonrpc must be \"2.0\"");
	q.params = json_get(msg, "params");
	if (q.params && json_kind(q.params) != JSON_OBJECT)
		return q.id ? rpc_error(q.id, RPC_INVALID_PARAMS, "params must be an object") : NULL;
	/* notifications/initialized, notifications/cancelled (a call is over
	 * before the next line is read) and the rest ask for nothing */
	if (!q.id)
		return NULL;
	if (strcmp(method, "initialize") == 0)
		return do_initialize(&q);
	if ((bad = pick_version(&q, method)))
		return bad;
	for (size_t i = 0; i < ARRAY_SIZE(methods); i++)
		if (strcmp(methods[i].name, method) == 0)
			return methods[i].run(&q);
	note(s, "unknown method '%s'", method);
	return rpc_error(q.id, RPC_METHOD_NOT_FOUND, "method '%s' not found", method);
}

/* Append m (taken) to out as one line. */
static void
emit(struct buf *out, struct json *m)
{
	json_write_compact(m, out);
	buf_addch(out, '\n');
	json_free(m);
}

/* JSON-RPC batches are part of 2025-03-26 only (2025-06-18 removed them). */
static void
handle_batch(struct mcp_server *s, const struct json *batch, struct buf *out)
{
	struct json *answers;

	if (!s->negotiated || !s->negotiated->batches) {
		emit(out, rpc_error(NULL, RPC_INVALID_REQUEST, "JSON-RPC batches are part of "
				    "protocol 2025-03-26 only; send one message per line"));
		return;
	}
	if (!json_len(batch)) {
		emit(out, rpc_error(NULL, RPC_INVALID_REQUEST, "an empty batch"));
		return;
	}
	answers = json_new_array();
	for (size_t i = 0; i < json_len(batch); i++) {
		struct json *r = handle_message(s, json_at(batch, i, NULL));

		if (r)
			json_push_copy(answers, r);
		json_free(r);
	}
	if (json_len(answers))
		emit(out, answers);
	else
		json_free(answers);
}

void
mcp_handle_line(struct mcp_server *s, const char *line, size_t len, struct buf *out)
{
	struct pt_err err = PT_ERR_INIT;
	struct json *msg, *r;
	size_t i = 0;

	while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
		i++;
	if (i == len)
		return;
	if (!(msg = json_parse(line, len, "the message", &err))) {
		note(s, "%s", err.msg);
		emit(out, rpc_error(NULL, RPC_PARSE_ERROR, "Parse error: %s", err.msg));
		return;
	}
	if (json_kind(msg) == JSON_ARRAY)
		handle_batch(s, msg, out);
	else if ((r = handle_message(s, msg)))
		emit(out, r);
	json_free(msg);
}

void
mcp_line_too_long(struct mcp_server *s, size_t max, struct buf *out)
{
	note(s, "a message longer than %zu bytes was skipped", max);
	emit(out, rpc_error(NULL, RPC_INVALID_REQUEST, "the message is longer than %zu bytes and "
			    "was not read", max));
}
