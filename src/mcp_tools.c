/* SPDX-License-Identifier: MIT */
/*
 * The MCP tools: the table (which command a tool runs, which option each
 * argument becomes, the schema of its result) and what turns a call into a
 * command line and the command's output into a tool result. Nothing here
 * runs or reads anything: the host does (pt/mcp.h). The schemas are
 * written out in docs/mcp.md; tests/mcp checks every result against them.
 */
#include <stdlib.h>
#include <string.h>

#include "pt/mcp_tools.h"
#include "pt/xalloc.h"

/*
 * JSON Schema texts, written as JSON: the preprocessor turns the tokens
 * into one string literal (quotes and all), so they need no escaping.
 * Only keywords that draft-07 and 2020-12 read alike are used, because
 * clients validate with either; keys a result may gain later are allowed.
 */
#define JSON_TEXT(...) #__VA_ARGS__

static const char diagnosis_schema[] = JSON_TEXT({
	"type": "object",
	"description": "the diagnosis, as 'pallas-triage --json' prints it (docs/json.md)",
	"required": ["schema_version", "source", "class", "subkind", "confidence", "title",
		     "rule", "evidence", "environment", "values", "scores", "fingerprint"],
	"properties": {
		"schema_version": {"type": "integer"},
		"source": {"type": "string"},
		"class": {"enum": ["layout", "capacity", "synchronization", "numerics",
				   "unsupported", "unknown"]},
		"subkind": {"type": ["string", "null"]},
		"confidence": {"type": "number", "minimum": 0, "maximum": 1},
		"title": {"type": "string"},
		"message": {"type": ["string", "null"]},
		"reason": {"type": ["string", "null"]},
		"rule": {"type": ["string", "null"]},
		"tier": {"type": "string"},
		"backend": {"type": ["string", "null"]},
		"chip": {"type": ["string", "null"]},
		"evidence": {"type": "array", "items": {"type": "object",
			"required": ["line", "text", "rule", "class"],
			"properties": {"line": {"type": "integer"}, "text": {"type": "string"},
				       "rule": {"type": "string"}, "class": {"type": "string"}}}},
		"runner_up": {"type": ["object", "null"]},
		"location": {"type": ["object", "null"]},
		"environment": {"type": "object", "additionalProperties": {"type": "string"}},
		"values": {"type": "object"},
		"contexts": {"type": "array", "items": {"type": "object"}},
		"scores": {"type": "object", "additionalProperties": {"type": "number"}},
		"fingerprint": {"type": "string"},
		"fingerprint_text": {"type": "string"},
		"ladder": {"type": "array", "items": {"type": "object",
			"required": ["id", "family", "action", "change"],
			"properties": {"id": {"type": "string"}, "family": {"type": "string"},
				       "action": {"type": "string"}, "change": {"type": ["string", "null"]},
				       "from_log": {"type": "boolean"},
				       "expect": {"type": ["string", "null"]},
				       "notes": {"type": "array", "items": {"type": "string"}}}}},
		"snippets_for_jax": {"type": ["string", "null"]},
		"next_steps": {"type": "array", "items": {"type": "string"}},
		"lines": {"type": "integer"},
		"bytes": {"type": "integer"}
	}
});

static const char explain_schema[] = JSON_TEXT({
	"type": "object",
	"required": ["name", "page"],
	"properties": {
		"name": {"type": "string"},
		"page": {"type": "string", "description": "the page 'pallas-triage explain NAME' prints"}
	}
});

static const char check_block_schema[] = JSON_TEXT({
	"type": "object",
	"description": "the verdict of 'pallas-triage check-block --json' (docs/calculators.md)",
	"required": ["chip", "dtype", "block", "verdict", "legal", "proposals", "notes"],
	"properties": {
		"chip": {"type": "string"},
		"backend": {"type": "string"},
		"dtype": {"type": "string"},
		"bits": {"type": "integer"},
		"block": {"type": "array", "items": {"type": ["integer", "null"]}},
		"verdict": {"enum": ["legal", "risk", "illegal"],
			    "description": "risk: legal, but Mosaic may refuse it (E2002); exit 1"},
		"legal": {"type": "boolean"},
		"problem": {"type": ["string", "null"]},
		"proposals": {"type": "array", "items": {"type": "object",
			"required": ["block"],
			"properties": {"block": {"type": "array",
						 "items": {"type": ["integer", "null"]}}}}},
		"warnings": {"type": "array", "items": {"type": "string"}},
		"notes": {"type": "array", "items": {"type": "string"}}
	}
});

static const char vmem_schema[] = JSON_TEXT({
	"type": "object",
	"description": "the working set of 'pallas-triage vmem --json' (docs/calculators.md)",
	"required": ["chip", "block", "working_set_bytes", "limit_bytes", "fits", "notes"],
	"properties": {
		"chip": {"type": "string"},
		"block": {"type": "object"},
		"working_set_bytes": {"type": "integer"},
		"limit_bytes": {"type": "integer"},
		"limit_source": {"type": "string"},
		"fits": {"type": "boolean"},
		"over_bytes": {"type": "integer"},
		"bisection": {"type": "object"},
		"vmem_limit_bytes": {"type": ["integer", "null"]},
		"notes": {"type": "array", "items": {"type": "string"}}
	}
});

static const char check_schema[] = JSON_TEXT({
	"type": "object",
	"description": "the findings of 'pallas-triage check --json'",
	"required": ["findings"],
	"properties": {
		"findings": {"type": "array", "items": {"type": "object",
			"required": ["class", "severity", "code", "message"],
			"properties": {
				"class": {"type": "string"},
				"severity": {"type": "string"},
				"code": {"type": "string"},
				"line": {"type": ["integer", "null"]},
				"column": {"type": ["integer", "null"]},
				"message": {"type": "string"},
				"fix": {"type": ["string", "null"]}}}}
	}
});

static const char status_schema[] = JSON_TEXT({
	"type": "object",
	"description": "the session status of 'pallas-triage session status --json' (docs/sessions.md)",
	"required": ["schema_version", "status", "class", "fingerprint", "attempts_used",
		     "attempt_cap", "next", "plan", "messages"],
	"properties": {
		"schema_version": {"type": "integer"},
		"status": {"enum": ["in-progress", "resolved", "blocked"]},
		"class": {"type": ["string", "null"]},
		"subkind": {"type": ["string", "null"]},
		"first_class": {"type": ["string", "null"]},
		"fingerprint": {"type": ["string", "null"]},
		"attempts_used": {"type": "integer"},
		"attempt_cap": {"type": "integer"},
		"same_streak": {"type": "integer"},
		"interpret": {"type": "string"},
		"ruled_out": {"type": "array", "items": {"type": "object"}},
		"last_attempt": {"type": ["object", "null"]},
		"next": {"type": ["object", "null"],
			 "properties": {"rung": {"type": "string"}, "action": {"type": "string"},
					"change": {"type": ["string", "null"]}}},
		"plan": {"type": "array", "items": {"type": "string"}},
		"messages": {"type": "array", "items": {"type": "string"}},
		"report_md": {"type": ["string", "null"]},
		"report_json": {"type": ["string", "null"]}
	}
});

static const char report_schema[] = JSON_TEXT({
	"type": "object",
	"required": ["format", "report"],
	"properties": {
		"format": {"enum": ["md", "json", "text"]},
		"report": {"type": ["string", "object"],
			   "description": "the report 'pallas-triage report --format F' prints: text for md and text, the JSON report (docs/sessions.md) for json"}
	}
});

/* ---------------------------------------------------------------- the table */

static const char *const json_opt[] = { "--json", NULL };
static const char *const results[] = { "fixed", "same", "new", "n-a", NULL };
static const char *const interpret_answers[] = { "yes", "no", "skip", NULL };
static const char *const memories[] = { "vmem", "smem", "any", NULL };
static const char *const mma_roles[] = { "lhs", "rhs", "acc", NULL };
static const char *const report_formats[] = { "md", "json", "text", NULL };

#define DIR_ARG \
	{ "dir", MCP_STRING, MCP_TO_WORKDIR, NULL, NULL, NULL, MCP_ARG_REQUIRED, \
	  "the project directory of the session (absolute): it is kept in DIR/.pallas-triage " \
	  "and its reports are written in DIR, as for pallas-triage run in DIR; one directory " \
	  "per failure being debugged" }
#define CHIP_ARG(what) \
	{ "chip", MCP_STRING, MCP_TO_OPTION, "--chip", NULL, NULL, MCP_ARG_REQUIRED, \
	  "the chip: v5e, v6e, 7x, ... or h100, b200, mi300x, ..., an alias or a device kind " \
	  "such as 'TPU v5 lite'" what }
#define BLOCK_ARG \
	{ "block", MCP_STRING, MCP_TO_OPTION, "--block", NULL, NULL, MCP_ARG_REQUIRED, \
	  "the BlockSpec block shape: '256,512' or '(256, 512)'; None for a squeezed dimension" }
#define DTYPE_ARG \
	{ "dtype", MCP_STRING, MCP_TO_OPTION, "--dtype", NULL, NULL, MCP_ARG_REQUIRED, \
	  "the dtype: float32, bfloat16, int8, fp8_e4m3, ..." }
#define JAX_ARG \
	{ "jax", MCP_STRING, MCP_TO_OPTION, "--jax", NULL, NULL, 0, \
	  "the JAX release to spell the advice's API names for (0.6.2), when the log does not say" }
#define KERNEL_ARG \
	{ "kernel", MCP_STRING, MCP_TO_OPTION, "--kernel", NULL, NULL, 0, \
	  "the kernel's source file: says the log is that Pallas kernel's" }
#define END_ARGS { NULL, MCP_STRING, MCP_TO_OPTION, NULL, NULL, NULL, 0, NULL }

static const struct mcp_arg triage_args[] = {
	{ "path", MCP_STRING, MCP_TO_OPERAND, NULL, NULL, NULL, MCP_ARG_LOG,
	  "the failure log to classify: a file this server can read" },
	{ "log", MCP_STRING, MCP_TO_INPUT, NULL, NULL, NULL, MCP_ARG_LOG,
	  "the failure log's text, pasted (instead of path)" },
	KERNEL_ARG,
	{ "chip", MCP_STRING, MCP_TO_OPTION, "--chip", NULL, NULL, 0,
	  "the chip the kernel ran on (v5e, h100, ...), when the log does not say" },
	JAX_ARG,
	END_ARGS,
};

static const struct mcp_arg explain_args[] = {
	{ "name", MCP_STRING, MCP_TO_OPERAND, NULL, NULL, NULL, MCP_ARG_REQUIRED | MCP_ARG_ECHO,
	  "a rule id or fix-ladder rung (from a diagnosis), a class (layout, capacity, "
	  "synchronization, numerics, unsupported, unknown), an error code such as E1001, "
	  "or a JAX API name" },
	JAX_ARG,
	END_ARGS,
};

static const struct mcp_arg check_block_args[] = {
	CHIP_ARG(""),
	BLOCK_ARG,
	DTYPE_ARG,
	{ "array", MCP_STRING, MCP_TO_OPTION, "--array", NULL, NULL, 0,
	  "the whole array's shape: a block dimension equal to it is always legal" },
	{ "memory", MCP_STRING, MCP_TO_OPTION, "--memory", memories, NULL, 0,
	  "the memory space of the block (default vmem); any needs array" },
	{ "backend", MCP_STRING, MCP_TO_OPTION, "--backend", NULL, NULL, 0,
	  "GPU: triton or mosaic-gpu (default: the GPU's only backend, else mosaic-gpu)" },
	{ "swizzle", MCP_INTEGER, MCP_TO_OPTION, "--swizzle", NULL, NULL, 0,
	  "Mosaic GPU: the SMEM swizzle of the block in bytes (32, 64 or 128)" },
	{ "mma", MCP_STRING, MCP_TO_OPTION, "--mma", mma_roles, NULL, 0,
	  "the block's place in a matmul: lhs (M, K), rhs (K, N) or acc (M, N)" },
	END_ARGS,
};

static const struct mcp_arg vmem_args[] = {
	CHIP_ARG(" (a TPU)"),
	{ "block", MCP_STRING, MCP_TO_OPTION, "--block", NULL, NULL, MCP_ARG_REQUIRED,
	  "the block shape of every input and output: '512,1024'" },
	DTYPE_ARG,
	{ "buffers", MCP_INTEGER, MCP_TO_OPTION, "--buffers", NULL, NULL, 0,
	  "buffers per input and output (default 2: double-buffering)" },
	{ "operands", MCP_STRING, MCP_TO_OPTION, "--operands", NULL, NULL, 0,
	  "how many inputs and outputs use the block: 'in:2,out:1' (default in:1,out:1)" },
	{ "operand", MCP_STRINGS, MCP_TO_OPTION, "--operand", NULL, NULL, 0,
	  "other inputs or outputs with blocks of their own, each 'DIMS' or 'DIMS:DTYPE' "
	  "(a matmul's weights): buffered like the others, kept as given when the block shrinks" },
	{ "scratch", MCP_STRINGS, MCP_TO_OPTION, "--scratch", NULL, NULL, 0,
	  "scratch buffers, each 'DIMS' or 'DIMS:DTYPE', allocated once" },
	{ "limit", MCP_STRING, MCP_TO_OPTION, "--limit", NULL, NULL, 0,
	  "the scoped VMEM limit: 32M, 48MiB or bytes (default the chip's default scoped limit)" },
	END_ARGS,
};

static const struct mcp_arg check_tool_args[] = {
	{ "path", MCP_STRING, MCP_TO_OPERAND, NULL, NULL, NULL, MCP_ARG_REQUIRED,
	  "the kernel's Python source file" },
	{ "chip", MCP_STRING, MCP_TO_OPTION, "--chip", NULL, NULL, 0,
	  "the chip the kernel is for (v5e, h100, ...)" },
	JAX_ARG,
	END_ARGS,
};

static const struct mcp_arg session_start_args[] = {
	DIR_ARG,
	{ "path", MCP_STRING, MCP_TO_OPERAND, NULL, NULL, NULL, MCP_ARG_LOG,
	  "the failure log: a file this server can read" },
	{ "log", MCP_STRING, MCP_TO_INPUT, NULL, NULL, NULL, MCP_ARG_LOG,
	  "the failure log's text, pasted (instead of path); kept in the session" },
	{ "kernel", MCP_STRING, MCP_TO_OPTION, "--kernel", NULL, NULL, 0,
	  "the kernel's source file: KERNEL.pre-debug is saved before the first attempt" },
	{ "interpret", MCP_STRING, MCP_TO_OPTION, "--interpret", interpret_answers, NULL, 0,
	  "does the failure reproduce with interpret=True: yes, no, or skip the question" },
	JAX_ARG,
	END_ARGS,
};

static const struct mcp_arg attempt_args[] = {
	DIR_ARG,
	{ "result", MCP_STRING, MCP_TO_OPTION, "--result", results, NULL, MCP_ARG_REQUIRED,
	  "what the change did: fixed, same (the same error), new (a different error: give "
	  "its log) or n-a (the rung does not apply; no attempt is used)" },
	{ "rung", MCP_STRING, MCP_TO_OPTION, "--rung", NULL, NULL, 0,
	  "the rung tried (default: the next one); 'custom' for a change off the ladder" },
	{ "change", MCP_STRING, MCP_TO_OPTION, "--change", NULL, NULL, 0,
	  "what was changed (default: the rung's suggested change; needed with rung custom)" },
	{ "path", MCP_STRING, MCP_TO_OPTION, "--log", NULL, NULL, MCP_ARG_LOG,
	  "the log of the rerun: a file this server can read" },
	{ "log", MCP_STRING, MCP_TO_INPUT, "--log", NULL, NULL, MCP_ARG_LOG,
	  "the log of the rerun, pasted (instead of path)" },
	END_ARGS,
};

static const struct mcp_arg session_status_args[] = {
	DIR_ARG,
	END_ARGS,
};

static const struct mcp_arg report_args[] = {
	DIR_ARG,
	{ "format", MCP_STRING, MCP_TO_OPTION, "--format", report_formats, "md", MCP_ARG_ECHO,
	  "md (Markdown, to paste into a bug; the default), json or text" },
	{ "redact", MCP_BOOLEAN, MCP_TO_OPTION, "--redact", NULL, NULL, 0,
	  "mask home directories and host names" },
	END_ARGS,
};

const struct mcp_tool mcp_tools[] = {
	{ "triage", "Triage a Pallas failure log",
	  "Classify a JAX Pallas kernel failure log (Mosaic compiler diagnostics, Python "
	  "tracebacks, XLA runtime errors, interpret-mode race reports, assert_allclose "
	  "output) as layout, capacity, synchronization, numerics or unsupported, or say that "
	  "it is no Pallas kernel failure; with the evidence lines, the values read from the "
	  "log and the fix ladder, cheapest rung first, filled with the log's numbers. Give "
	  "path or log. Changes nothing; to track attempts, use session_start.",
	  { "triage", NULL }, json_opt, triage_args, true, MCP_OUT_JSON, NULL, NULL,
	  diagnosis_schema, true, true },
	{ "explain", "Explain a rule, class, rung or error code",
	  "The page of a classifier rule, a failure class with its fix ladder, a rung of a "
	  "ladder, an error code such as E1001, or a JAX API name.",
	  { "explain", NULL }, NULL, explain_args, false, MCP_OUT_TEXT, "page", NULL,
	  explain_schema, true, true },
	{ "check_block", "Check a block shape",
	  "Whether a Pallas BlockSpec block shape is legal for a dtype on a TPU or GPU, why "
	  "not, and the nearest legal shapes.",
	  { "check-block", NULL }, json_opt, check_block_args, false, MCP_OUT_JSON, NULL, NULL,
	  check_block_schema, true, true },
	{ "vmem", "Compute a kernel's VMEM working set",
	  "A TPU kernel's VMEM working set from its block shapes, buffers and scratch and, "
	  "when it does not fit the scoped limit, the block and the vmem_limit_bytes that "
	  "would fit.",
	  { "vmem", NULL }, json_opt, vmem_args, false, MCP_OUT_JSON, NULL, NULL,
	  vmem_schema, true, true },
	{ "check", "Check a kernel's source",
	  "Check a Pallas kernel's Python source without running it, and list the findings: "
	  "class, severity, code, line, column, message and fix.",
	  { "check", NULL }, json_opt, check_tool_args, false, MCP_OUT_JSON, NULL, NULL,
	  check_schema, true, true },
	{ "session_start", "Start a debugging session",
	  "Start, or resume for the same failure, the debugging session of the project in "
	  "dir: classifies the log and returns the session status with the next rung of the "
	  "fix ladder to try. Apply that rung's change, rerun, and record what happened with "
	  "attempt. Another failure's session in dir is archived first (restorable).",
	  { "session", "start", NULL }, json_opt, session_start_args, true, MCP_OUT_JSON,
	  NULL, NULL, status_schema, false, true },
	{ "attempt", "Record an attempt",
	  "Record what trying a rung did in the session of dir: fixed, same, new (a different "
	  "error: give the new log) or n-a. Returns the session status with the next rung. "
	  "The tenth attempt, or no rung left, stops the walk and writes the escalation "
	  "report in dir (see report).",
	  { "attempt", NULL }, json_opt, attempt_args, false, MCP_OUT_JSON, NULL, NULL,
	  status_schema, false, false },
	{ "session_status", "Show the session status",
	  "Where the debugging session of dir stands: attempts used, class, what was ruled "
	  "out, the next rung.",
	  { "session", "status", NULL }, json_opt, session_status_args, false, MCP_OUT_JSON,
	  NULL, NULL, status_schema, true, true },
	{ "report", "Write the escalation report",
	  "The escalation report of the session of dir, to paste into an upstream bug: what "
	  "was tried and what each attempt did, the classes ruled out and why, the "
	  "environment, and what to try next.",
	  { "report", NULL }, NULL, report_args, false, MCP_OUT_TEXT, "report", "format=json",
	  report_schema, true, true },
	{ NULL, NULL, NULL, { NULL }, NULL, NULL, false, MCP_OUT_JSON, NULL, NULL, NULL,
	  false, false },
};

/* ---------------------------------------------------------------- lookup */

static bool
has_command(const struct mcp_host *h, const struct mcp_tool *t)
{
	return h->has(h->arg, t->command, NULL);
}

/* An argument is offered when its option is one its command takes. */
static bool
offered(const struct mcp_host *h, const struct mcp_tool *t, const struct mcp_arg *a)
{
	if (a->to == MCP_TO_WORKDIR || !a->option)
		return true;
	return h->has(h->arg, t->command, a->option);
}

const struct mcp_tool *
mcp_tool_find(const struct mcp_host *h, const char *name)
{
	for (const struct mcp_tool *t = mcp_tools; t->name; t++)
		if (strcmp(t->name, name) == 0)
			return has_command(h, t) ? t : NULL;
	return NULL;
}

/* ---------------------------------------------------------------- tools/list */

static const char *
json_type_name(enum mcp_arg_type type)
{
	switch (type) {
	case MCP_INTEGER: return "integer";
	case MCP_BOOLEAN: return "boolean";
	case MCP_STRINGS: return "array";
	case MCP_STRING: break;
	}
	return "string";
}

static void
describe_arg(struct json *props, const struct mcp_arg *a)
{
	struct json *p = json_add_object(props, a->name);

	json_add_str(p, "type", json_type_name(a->type));
	if (a->type == MCP_STRINGS)
		json_add_str(json_add_object(p, "items"), "type", "string");
	json_add_str(p, "description", a->description);
	if (a->choices) {
		struct json *e = json_add_array(p, "enum");

		for (const char *const *c = a->choices; *c; c++)
			json_push_str(e, *c);
	}
	if (a->def)
		json_add_str(p, "default", a->def);
}

static struct json *
input_schema(const struct mcp_host *h, const struct mcp_tool *t)
{
	struct json *s = json_new_object(), *props, *req;

	json_add_str(s, "type", "object");
	props = json_add_object(s, "properties");
	for (const struct mcp_arg *a = t->args; a->name; a++)
		if (offered(h, t, a))
			describe_arg(props, a);
	req = json_add_array(s, "required");
	for (const struct mcp_arg *a = t->args; a->name; a++)
		if ((a->flags & MCP_ARG_REQUIRED) && offered(h, t, a))
			json_push_str(req, a->name);
	json_add_bool(s, "additionalProperties", false);
	return s;
}

static struct json *
output_schema(const struct mcp_tool *t)
{
	struct json *s = json_parse(t->output_schema, strlen(t->output_schema), t->name, NULL);

	if (!s)
		PT_BUG("an MCP tool's output schema is not JSON");
	return s;
}

void
mcp_tools_describe(const struct mcp_host *h, bool structured, struct json *arr)
{
	for (const struct mcp_tool *t = mcp_tools; t->name; t++) {
		struct json *o, *ann;

		if (!has_command(h, t))
			continue;
		o = json_push_object(arr);
		json_add_str(o, "name", t->name);
		if (structured)
			json_add_str(o, "title", t->title);
		json_add_str(o, "description", t->description);
		json_add_take(o, "inputSchema", input_schema(h, t));
		if (structured)
			json_add_take(o, "outputSchema", output_schema(t));
		ann = json_add_object(o, "annotations");
		json_add_str(ann, "title", t->title);
		json_add_bool(ann, "readOnlyHint", t->read_only);
		json_add_bool(ann, "destructiveHint", false);
		json_add_bool(ann, "idempotentHint", t->idempotent);
		json_add_bool(ann, "openWorldHint", false);
	}
}

/* ---------------------------------------------------------------- tools/call */

/* A command line being built: owned strings, NULL-terminated. */
struct words {
	char **v;
	int n, alloc;
};

static void
words_add(struct words *w, char *s)
{
	if (w->n + 2 > w->alloc) {
		w->alloc = w->alloc ? 2 * w->alloc : 16;
		w->v = xrealloc(w->v, (size_t)w->alloc * sizeof(*w->v));
	}
	w->v[w->n++] = s;
	w->v[w->n] = NULL;
}

static void
words_release(struct words *w)
{
	for (int i = 0; i < w->n; i++)
		free(w->v[i]);
	free(w->v);
	memset(w, 0, sizeof(*w));
}

/* The value of argument name, or NULL when it is absent or null (as clients send for "not given"). */
static const struct json *
given(const struct json *args, const char *name)
{
	const struct json *v = json_get(args, name);

	return json_kind(v) == JSON_NULL ? NULL : v;
}

static const struct mcp_arg *
find_arg(const struct mcp_host *h, const struct mcp_tool *t, const char *name)
{
	for (const struct mcp_arg *a = t->args; a->name; a++)
		if (strcmp(a->name, name) == 0)
			return offered(h, t, a) ? a : NULL;
	return NULL;
}

static void
list_args(const struct mcp_host *h, const struct mcp_tool *t, struct buf *msg)
{
	const char *sep = "";

	for (const struct mcp_arg *a = t->args; a->name; a++)
		if (offered(h, t, a)) {
			buf_addf(msg, "%s%s", sep, a->name);
			sep = ", ";
		}
}

static bool
is_choice(const struct mcp_arg *a, const char *s)
{
	for (const char *const *c = a->choices; *c; c++)
		if (strcmp(*c, s) == 0)
			return true;
	return false;
}

/* Is v a value a takes? Says why not in msg. */
static int
check_value(const struct mcp_arg *a, const struct json *v, struct buf *msg)
{
	const char *s;
	long long n;
	bool b;

	switch (a->type) {
	case MCP_INTEGER:
		if (json_int_value(v, &n) == 0)
			return 0;
		buf_addf(msg, "argument '%s' must be an integer", a->name);
		return -1;
	case MCP_BOOLEAN:
		if (json_bool_value(v, &b) == 0)
			return 0;
		buf_addf(msg, "argument '%s' must be true or false", a->name);
		return -1;
	case MCP_STRINGS:
		if (json_kind(v) != JSON_ARRAY) {
			buf_addf(msg, "argument '%s' must be a list of strings", a->name);
			return -1;
		}
		for (size_t i = 0; i < json_len(v); i++)
			if (json_str_value(json_at(v, i, NULL), &s) < 0 || !*s) {
				buf_addf(msg, "argument '%s' must be a list of non-empty strings",
					 a->name);
				return -1;
			}
		return 0;
	case MCP_STRING:
		break;
	}
	if (json_str_value(v, &s) < 0) {
		buf_addf(msg, "argument '%s' must be a string", a->name);
		return -1;
	}
	/* an empty directory would put the session in /.pallas-triage */
	if (!*s && a->to != MCP_TO_INPUT) {
		buf_addf(msg, "argument '%s' is empty", a->name);
		return -1;
	}
	if (a->choices && !is_choice(a, s)) {
		buf_addf(msg, "argument '%s' is '%s'; it takes", a->name, s);
		for (const char *const *c = a->choices; *c; c++)
			buf_addf(msg, "%s %s", c == a->choices ? "" : ",", *c);
		return -1;
	}
	return 0;
}

/* Every argument given is one of t's with a value it takes; the required ones are there. */
static int
validate_args(const struct mcp_host *h, const struct mcp_tool *t, const struct json *args,
	   struct buf *msg)
{
	int logs = 0;

	for (size_t i = 0; i < json_len(args); i++) {
		const char *key;
		const struct json *v = json_at(args, i, &key);
		const struct mcp_arg *a = find_arg(h, t, key);

		if (!a) {
			buf_addf(msg, "'%s' takes no argument '%s'; its arguments are: ", t->name, key);
			list_args(h, t, msg);
			return -1;
		}
		if (json_kind(v) == JSON_NULL)
			continue;
		if (check_value(a, v, msg) < 0)
			return -1;
		logs += (a->flags & MCP_ARG_LOG) != 0;
	}
	for (const struct mcp_arg *a = t->args; a->name; a++)
		if ((a->flags & MCP_ARG_REQUIRED) && offered(h, t, a) && !given(args, a->name)) {
			buf_addf(msg, "'%s' needs the argument '%s'", t->name, a->name);
			return -1;
		}
	if (logs > 1) {
		buf_adds(msg, "give the log as path (a file) or as log (its text), not both");
		return -1;
	}
	if (!logs && t->log_required) {
		buf_adds(msg, "give the log as path (a file the server can read) or as log (its text)");
		return -1;
	}
	return 0;
}

/* The value of a as text: given, else its default; NULL when neither. */
static const char *
arg_text(const struct mcp_arg *a, const struct json *args)
{
	const char *s;

	if (json_str_value(given(args, a->name), &s) == 0)
		return s;
	return a->def;
}

static void
add_option(struct words *w, const struct mcp_arg *a, const struct json *v)
{
	const char *s;
	long long n;
	bool b;

	if (a->type == MCP_INTEGER && json_int_value(v, &n) == 0)
		words_add(w, xasprintf("%s=%lld", a->option, n));
	else if (a->type == MCP_BOOLEAN && json_bool_value(v, &b) == 0 && b)
		words_add(w, xstrdup(a->option));
	else if (a->type == MCP_STRINGS)
		for (size_t i = 0; i < json_len(v); i++) {
			if (json_str_value(json_at(v, i, NULL), &s) == 0)
				words_add(w, xasprintf("%s=%s", a->option, s));
		}
	else if (json_str_value(v, &s) == 0)
		words_add(w, xasprintf("%s=%s", a->option, s));
}

/*
 * The command line of t for args (checked): the command words, the fixed
 * options, then each argument in the table's order as --option=VALUE (so a
 * value that starts with '-' is never read as an option), then "--" and the
 * operands.
 */
static void
build_call(const struct mcp_host *h, const struct mcp_tool *t, const struct json *args,
	   struct words *w, struct mcp_call *c)
{
	struct words operands = { 0 };

	memset(c, 0, sizeof(*c));
	for (int i = 0; t->command[i]; i++)
		words_add(w, xstrdup(t->command[i]));
	for (const char *const *f = t->fixed; f && *f; f++)
		words_add(w, xstrdup(*f));
	for (const struct mcp_arg *a = t->args; a->name; a++) {
		const struct json *v = given(args, a->name);
		const char *s = arg_text(a, args);

		if (!offered(h, t, a) || (!v && !s))
			continue;
		if (a->to == MCP_TO_WORKDIR) {
			words_add(w, xasprintf("--session-dir=%s/.pallas-triage", s));
		} else if (a->to == MCP_TO_INPUT) {
			c->input = s;
			c->input_len = strlen(s);
			words_add(a->option ? w : &operands,
				  a->option ? xasprintf("%s=-", a->option) : xstrdup("-"));
		} else if (a->to == MCP_TO_OPERAND) {
			words_add(&operands, xstrdup(s));
		} else if (v) {
			add_option(w, a, v);
		} else {
			words_add(w, xasprintf("%s=%s", a->option, s));
		}
	}
	if (operands.n) {
		words_add(w, xstrdup("--"));
		for (int i = 0; i < operands.n; i++)
			words_add(w, operands.v[i]);
		operands.n = 0;
	}
	words_release(&operands);
	c->argv = w->v;
	c->argc = w->n;
}

/* Does t print JSON for args: always, or when an argument says so ("format=json")? */
static bool
prints_json(const struct mcp_tool *t, const struct json *args)
{
	const char *eq, *val;

	if (t->output == MCP_OUT_JSON)
		return true;
	if (!t->json_when || !(eq = strchr(t->json_when, '=')))
		return false;
	for (const struct mcp_arg *a = t->args; a->name; a++)
		if (strlen(a->name) == (size_t)(eq - t->json_when) &&
		    strncmp(a->name, t->json_when, (size_t)(eq - t->json_when)) == 0)
			return (val = arg_text(a, args)) && strcmp(val, eq + 1) == 0;
	return false;
}

static void
command_name(const struct mcp_tool *t, struct buf *b)
{
	buf_adds(b, "pallas-triage");
	for (int i = 0; t->command[i]; i++)
		buf_addf(b, " %s", t->command[i]);
}

/* The command's own words on stderr, and how it ended. */
static void
failure_message(const struct mcp_tool *t, const struct mcp_ran *r, struct buf *msg)
{
	size_t len = r->err.len;

	while (len && (r->err.data[len - 1] == '\n' || r->err.data[len - 1] == '\r'))
		len--;
	if (len) {
		buf_add(msg, r->err.data, len);
		buf_addch(msg, '\n');
	}
	buf_adds(msg, "(");
	command_name(t, msg);
	if (r->status >= 0)
		buf_addf(msg, ": exit status %d%s)", r->status, len ? "" : ", and it said nothing");
	else
		buf_addf(msg, " did not finish: %s)", r->why);
}

int
mcp_tool_exec(const struct mcp_host *h, const struct mcp_tool *t, const struct json *args,
	      struct mcp_ran *r, struct json **json, struct buf *msg)
{
	struct words w = { 0 };
	struct mcp_call c;
	bool want_json = prints_json(t, args);
	int ret = -1;

	*json = NULL;
	if (validate_args(h, t, args, msg) < 0)
		return -1;
	build_call(h, t, args, &w, &c);
	if (h->run(h->arg, &c, r) < 0) {
		buf_adds(msg, "could not run ");
		command_name(t, msg);
		buf_addf(msg, ": %s", r->why);
		goto out;
	}
	/* a status other than 0 is a verdict (1: an illegal block, a walk that
	 * stopped) when the command printed its result, except usage, data and
	 * system errors; without a result it is an error */
	if (r->status == 0 || (want_json && r->status > 0 && r->status != PT_EXIT_USAGE &&
			       r->status != PT_EXIT_DATA && r->status != PT_EXIT_SYSTEM)) {
		if (!want_json) {
			ret = 0;
			goto out;
		}
		*json = json_parse(r->out.data, r->out.len, "output", NULL);
		if (*json && json_kind(*json) == JSON_OBJECT) {
			ret = 0;
			goto out;
		}
		json_free(*json);
		*json = NULL;
	}
	failure_message(t, r, msg);
out:
	words_release(&w);
	return ret;
}

static void
add_text_block(struct json *content, const char *text)
{
	struct json *b = json_push_object(content);

	json_add_str(b, "type", "text");
	json_add_str(b, "text", text);
}

/* structuredContent of a text tool: the echoed arguments, then the text (or its JSON). */
static struct json *
text_structure(const struct mcp_tool *t, const struct json *args, const struct mcp_ran *r,
	       struct json *json)
{
	struct json *o = json_new_object();

	for (const struct mcp_arg *a = t->args; a->name; a++)
		if ((a->flags & MCP_ARG_ECHO) && arg_text(a, args))
			json_add_str(o, a->name, arg_text(a, args));
	if (json)
		json_add_take(o, t->text_key, json);
	else
		json_add_str(o, t->text_key, r->out.data);
	return o;
}

void
mcp_tool_call(const struct mcp_host *h, const struct mcp_tool *t, const struct json *args,
	      bool structured, struct json *res)
{
	struct mcp_ran r = { .status = -1, .out = BUF_INIT, .err = BUF_INIT };
	struct buf msg = BUF_INIT;
	struct json *content, *json = NULL;

	content = json_add_array(res, "content");
	if (mcp_tool_exec(h, t, args, &r, &json, &msg) < 0) {
		add_text_block(content, msg.data);
		json_add_bool(res, "isError", true);
		goto out;
	}
	add_text_block(content, r.out.data);
	/* a warning the command gave (a log kept in part, say) is part of the answer */
	if (r.err.len)
		add_text_block(content, r.err.data);
	if (structured && t->output == MCP_OUT_JSON)
		json_add_take(res, "structuredContent", json);
	else if (structured)
		json_add_take(res, "structuredContent", text_structure(t, args, &r, json));
	else
		json_free(json);
	json_add_bool(res, "isError", false);
out:
	buf_release(&msg);
	buf_release(&r.out);
	buf_release(&r.err);
}
