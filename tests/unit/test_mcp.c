/* SPDX-License-Identifier: MIT */
/*
 * The MCP module with a host that runs nothing: the command lines the
 * tools come to (the table's mapping of arguments to options), which tools
 * and arguments a binary without a command or an option offers, and how a
 * command's exit status and output become a tool result. The server as
 * agents see it is tests/mcp.
 */
#include "test.h"

#include "pt/json.h"
#include "pt/mcp.h"
#include "pt/mcp_tools.h"

/* The fake binary: no `check`, and --jax only where explain has it today. */
struct fake {
	struct buf argv;            /* the last command line, words joined by '|' */
	struct buf input;           /* what it got on stdin */
	int status;                 /* what it exits with */
	const char *out, *err;      /* what it prints */
	bool has_check, triage_jax;
};

static bool
fake_has(void *arg, const char *const *words, const char *option)
{
	struct fake *f = arg;

	if (strcmp(words[0], "check") == 0)
		return f->has_check;
	if (option && strcmp(option, "--jax") == 0)
		return strcmp(words[0], "explain") == 0 || f->triage_jax;
	return !option || strcmp(option, "--chip") != 0 || strcmp(words[0], "triage") != 0;
}

static int
fake_run(void *arg, const struct mcp_call *c, struct mcp_ran *r)
{
	struct fake *f = arg;

	buf_reset(&f->argv);
	for (int i = 0; i < c->argc; i++)
		buf_addf(&f->argv, "%s%s", i ? "|" : "", c->argv[i]);
	CHECK(c->argv[c->argc] == NULL);
	buf_reset(&f->input);
	if (c->input)
		buf_add(&f->input, c->input, c->input_len);
	r->status = f->status;
	buf_adds(&r->out, f->out);
	buf_adds(&r->err, f->err);
	return 0;
}

static struct fake fk = { BUF_INIT, BUF_INIT, 0, "{\"ok\": true}\n", "", false, false };
static const struct mcp_host host = { fake_has, fake_run, NULL, &fk, "9.9" };

static struct json *
parse(const char *s)
{
	struct json *j = json_parse(s, strlen(s), "test", NULL);

	CHECK(j != NULL);
	return j;
}

/* Call tool name with args (JSON text); returns the result, and the argv in fk.argv. */
static struct json *
call(const char *name, const char *args)
{
	const struct mcp_tool *t = mcp_tool_find(&host, name);
	struct json *a = parse(args), *res = json_new_object();

	CHECK(t != NULL);
	buf_reset(&fk.argv);
	if (t)
		mcp_tool_call(&host, t, a, true, res);
	json_free(a);
	return res;
}

static bool
is_error(const struct json *res)
{
	bool b = false;

	return json_bool_value(json_get(res, "isError"), &b) == 0 && b;
}

static const char *
first_text(const struct json *res)
{
	const char *s = NULL;

	json_str_value(json_get(json_at(json_get(res, "content"), 0, NULL), "text"), &s);
	return s ? s : "";
}

static void
test_command_lines(void)
{
	struct json *r;

	r = call("triage", "{\"path\": \"-odd.log\", \"kernel\": \"k.py\"}");
	CHECK_STREQ(fk.argv.data, "triage|--json|--kernel=k.py|--|-odd.log");
	CHECK(!is_error(r));
	json_free(r);

	r = call("triage", "{\"path\": \"a.log\", \"kernel\": null, \"log\": null}");   /* null: not given */
	CHECK_STREQ(fk.argv.data, "triage|--json|--|a.log");
	CHECK(!is_error(r));
	json_free(r);

	r = call("triage", "{\"log\": \"line 1\\nline 2\\n\"}");
	CHECK_STREQ(fk.argv.data, "triage|--json|--|-");
	CHECK_STREQ(fk.input.data, "line 1\nline 2\n");
	json_free(r);

	r = call("session_start", "{\"dir\": \"/p\", \"path\": \"a.log\", \"interpret\": \"no\"}");
	CHECK_STREQ(fk.argv.data,
		    "session|start|--json|--session-dir=/p/.pallas-triage|--interpret=no|--|a.log");
	json_free(r);

	r = call("attempt", "{\"dir\": \"/p\", \"result\": \"new\", \"change\": \"--x\", \"log\": \"L\"}");
	CHECK_STREQ(fk.argv.data,
		    "attempt|--json|--session-dir=/p/.pallas-triage|--result=new|--change=--x|--log=-");
	CHECK_STREQ(fk.input.data, "L");
	json_free(r);

	r = call("vmem", "{\"chip\": \"v5e\", \"block\": \"8,128\", \"dtype\": \"bf16\", "
		 "\"buffers\": 3, \"operand\": [\"8,128\", \"16,128:int8\"]}");
	CHECK_STREQ(fk.argv.data, "vmem|--json|--chip=v5e|--block=8,128|--dtype=bf16|--buffers=3|"
		    "--operand=8,128|--operand=16,128:int8");
	json_free(r);

	/* a default is passed, and a boolean is a bare option */
	r = call("report", "{\"dir\": \"/p\", \"redact\": true}");
	CHECK_STREQ(fk.argv.data, "report|--session-dir=/p/.pallas-triage|--format=md|--redact");
	json_free(r);
	r = call("report", "{\"dir\": \"/p\", \"redact\": false}");
	CHECK_STREQ(fk.argv.data, "report|--session-dir=/p/.pallas-triage|--format=md");
	json_free(r);
}

static void
test_bad_arguments(void)
{
	struct json *r;

	r = call("triage", "{}");
	CHECK(is_error(r));
	CHECK(fk.argv.len == 0);   /* nothing ran */
	json_free(r);
	r = call("triage", "{\"path\": \"a\", \"chip\": \"v5e\"}");   /* triage has no --chip */
	CHECK(is_error(r));
	CHECK(strstr(first_text(r), "no argument 'chip'; its arguments are: path, log, kernel") != NULL);
	json_free(r);
	r = call("session_status", "{\"dir\": \"\"}");
	CHECK(is_error(r));
	CHECK(strstr(first_text(r), "'dir' is empty") != NULL);
	json_free(r);
	r = call("check_block", "{\"chip\": \"v5e\", \"block\": \"8,128\", \"dtype\": \"bf16\", \"swizzle\": 1.5}");
	CHECK(is_error(r));
	json_free(r);
}

/* Which exit statuses and outputs are results, and which are errors. */
static void
test_outcomes(void)
{
	struct json *r;

	fk.status = 1;                   /* a negative finding that printed its result */
	r = call("check_block", "{\"chip\": \"v5e\", \"block\": \"7,100\", \"dtype\": \"bf16\"}");
	CHECK(!is_error(r));
	CHECK(json_get(r, "structuredContent") != NULL);
	json_free(r);
	fk.status = 5;                   /* a verdict with a status of its own */
	r = call("check_block", "{\"chip\": \"v5e\", \"block\": \"7,100\", \"dtype\": \"bf16\"}");
	CHECK(!is_error(r));
	json_free(r);
	fk.status = 3;                   /* a data error is one, whatever it printed */
	r = call("check_block", "{\"chip\": \"v5e\", \"block\": \"7,100\", \"dtype\": \"bf16\"}");
	CHECK(is_error(r));
	json_free(r);
	fk.status = 1;
	fk.out = "";                     /* 1 with nothing on stdout: no session, say */
	fk.err = "pallas-triage: error: no session in '/p/.pallas-triage'\n";
	r = call("session_status", "{\"dir\": \"/p\"}");
	CHECK(is_error(r));
	CHECK_STREQ(first_text(r), "pallas-triage: error: no session in '/p/.pallas-triage'\n"
		    "(pallas-triage session status: exit status 1)");
	CHECK(json_get(r, "structuredContent") == NULL);
	json_free(r);
	fk.status = 0;                   /* text tools: the text, and the arguments echoed */
	fk.out = "capacity: VMEM\n";
	fk.err = "";
	r = call("explain", "{\"name\": \"capacity\"}");
	CHECK(!is_error(r));
	{
		const struct json *sc = json_get(r, "structuredContent");
		const char *name = NULL, *page = NULL;

		json_str_value(json_get(sc, "name"), &name);
		json_str_value(json_get(sc, "page"), &page);
		CHECK_STREQ(name, "capacity");
		CHECK_STREQ(page, "capacity: VMEM\n");
	}
	json_free(r);
	fk.out = "{\"schema_version\": 2}\n";   /* report --format json: the object itself */
	r = call("report", "{\"dir\": \"/p\", \"format\": \"json\"}");
	CHECK(json_kind(json_get(json_get(r, "structuredContent"), "report")) == JSON_OBJECT);
	json_free(r);
	fk.out = "not json";             /* a JSON tool that printed no JSON */
	r = call("triage", "{\"path\": \"a\"}");
	CHECK(is_error(r));
	json_free(r);
	fk.out = "{\"ok\": true}\n";
}

/* A command or an option the binary lacks is not offered; one it has is. */
static void
test_offered(void)
{
	struct json *tools = json_new_array();
	bool saw_check = false, saw_jax = false;

	CHECK(mcp_tool_find(&host, "check") == NULL);
	fk.has_check = fk.triage_jax = true;
	CHECK(mcp_tool_find(&host, "check") != NULL);
	mcp_tools_describe(&host, true, tools);
	for (size_t i = 0; i < json_len(tools); i++) {
		const struct json *t = json_at(tools, i, NULL);
		const char *name = NULL;

		json_str_value(json_get(t, "name"), &name);
		saw_check |= strcmp(name, "check") == 0;
		if (strcmp(name, "triage") == 0)
			saw_jax = json_get(json_get(json_get(t, "inputSchema"), "properties"), "jax") != NULL;
		/* every output schema in the table is JSON */
		CHECK(json_kind(json_get(t, "outputSchema")) == JSON_OBJECT);
	}
	CHECK(saw_check);
	CHECK(saw_jax);
	json_free(tools);
	fk.has_check = fk.triage_jax = false;
}

/* The protocol module on a few lines; the whole of it is tests/mcp. */
static void
test_lines(void)
{
	struct mcp_server *s = mcp_server_new(&host);
	struct buf out = BUF_INIT;

	mcp_handle_line(s, "  \r", 3, &out);
	CHECK(out.len == 0);
	{
		const char *n = "{\"jsonrpc\": \"2.0\", \"method\": \"notifications/initialized\"}";

		mcp_handle_line(s, n, strlen(n), &out);
	}
	CHECK(out.len == 0);
	mcp_handle_line(s, "{nope", 5, &out);
	CHECK(strstr(out.data, "\"code\": -32700") != NULL);
	CHECK(out.data[out.len - 1] == '\n' && !memchr(out.data, '\n', out.len - 1));
	buf_reset(&out);
	mcp_line_too_long(s, 10, &out);
	CHECK(strstr(out.data, "\"code\": -32600") != NULL);
	buf_release(&out);
	mcp_server_free(s);
}

int
main(void)
{
	test_command_lines();
	test_bad_arguments();
	test_outcomes();
	test_offered();
	test_lines();
	buf_release(&fk.argv);
	buf_release(&fk.input);
	return TEST_DONE();
}
