/* SPDX-License-Identifier: MIT */
/*
 * The tools of `pallas-triage mcp` (docs/mcp.md). A tool is a command of
 * the command line: its arguments become that command's options and
 * operands, the host runs it (struct mcp_host, pt/mcp.h), and its --json
 * output (or its text) becomes the result. So the MCP server and the CLI
 * run the same code, and src/mcp_tools.c holds the one table that says
 * which command each tool runs and which option each argument becomes.
 *
 * The table names commands and options; whether this binary has them is
 * the host's answer. A tool whose command is missing is not offered, nor is
 * an argument whose option its command does not take: `check` and
 * `triage --jax` appear by themselves in a binary that has them.
 */
#ifndef PT_MCP_TOOLS_H
#define PT_MCP_TOOLS_H

#include <stdbool.h>
#include "pt/json.h"
#include "pt/mcp.h"

enum mcp_arg_type { MCP_STRING, MCP_INTEGER, MCP_BOOLEAN, MCP_STRINGS };

enum mcp_arg_to {
	MCP_TO_OPTION,              /* --option=VALUE (once per element of MCP_STRINGS; a true
				     * MCP_BOOLEAN is the bare option, false nothing) */
	MCP_TO_OPERAND,             /* an operand, after "--" */
	MCP_TO_INPUT,               /* the text on standard input; the option (the operand when
				     * there is none) is "-" */
	MCP_TO_WORKDIR,             /* --session-dir=VALUE/.pallas-triage: the session a CLI
				     * user in directory VALUE has, reports written in VALUE */
};

enum mcp_arg_flags {
	MCP_ARG_REQUIRED = 1 << 0,
	MCP_ARG_LOG = 1 << 1,       /* one of the tool's log arguments (path, log): at most one
				     * is given, and one must be when the tool says so */
	MCP_ARG_ECHO = 1 << 2,      /* MCP_OUT_TEXT: copied into structuredContent */
};

struct mcp_arg {
	const char *name;           /* "path" */
	enum mcp_arg_type type;
	enum mcp_arg_to to;
	const char *option;         /* "--kernel"; NULL for an operand */
	const char *const *choices; /* the values allowed (NULL-terminated), or NULL: any */
	const char *def;            /* the value passed when the argument is absent, or NULL */
	unsigned flags;             /* enum mcp_arg_flags */
	const char *description;
};

enum mcp_output {
	MCP_OUT_JSON,               /* stdout is one JSON object: the structuredContent */
	MCP_OUT_TEXT,               /* stdout is text: structuredContent {text_key: it} */
};

struct mcp_tool {
	const char *name;           /* "check_block" */
	const char *title;
	const char *description;
	const char *command[3];     /* the command words, NULL-terminated */
	const char *const *fixed;   /* options always passed ("--json"), NULL-terminated, or NULL */
	const struct mcp_arg *args; /* ends with an entry whose name is NULL */
	bool log_required;          /* one MCP_ARG_LOG argument must be given */
	enum mcp_output output;
	const char *text_key;       /* MCP_OUT_TEXT: where the text goes */
	const char *json_when;      /* "format=json": with that argument, the text is JSON and
				     * text_key holds the parsed object */
	const char *output_schema;  /* JSON Schema text of structuredContent */
	bool read_only;             /* annotations: changes nothing (readOnlyHint) */
	bool idempotent;            /* the same call again changes nothing more */
};

/* The table, ending with an entry whose name is NULL. */
extern const struct mcp_tool mcp_tools[];

/* The tool called name if host has its command, else NULL (borrowed from the table). */
const struct mcp_tool *mcp_tool_find(const struct mcp_host *h, const char *name);

/*
 * Append the Tool object of each tool host has to arr, in the table's
 * order. structured (protocol 2025-06-18 and later): with title and
 * outputSchema; without, the title goes in annotations only.
 */
void mcp_tools_describe(const struct mcp_host *h, bool structured, struct json *arr);

/*
 * Check args (an object, or NULL for none) against t, build its command
 * line and have the host run it. Returns 0 when the command did its job
 * (exit status 0, or another that is not 2, 3 or 4 with the JSON its tool
 * expects: a negative finding such as an illegal block), with r filled
 * and, when the output is JSON, *json set to a new tree of it (free with
 * json_free()); or -1 with msg holding what an agent should read: the
 * argument that is wrong, or the command's own error and exit status. r is
 * released by the caller either way.
 */
int mcp_tool_exec(const struct mcp_host *h, const struct mcp_tool *t, const struct json *args,
		  struct mcp_ran *r, struct json **json, struct buf *msg);

/*
 * Add the members of the CallToolResult of t with args to res: content (a
 * text block: the command's output, or why the call failed), with
 * structured also structuredContent matching t's outputSchema, and
 * isError.
 */
void mcp_tool_call(const struct mcp_host *h, const struct mcp_tool *t, const struct json *args,
		   bool structured, struct json *res);

#endif
