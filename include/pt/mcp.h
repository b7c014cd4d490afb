/* SPDX-License-Identifier: MIT */
/*
 * The Model Context Protocol server behind `pallas-triage mcp`
 * (docs/mcp.md): JSON-RPC 2.0 messages in, responses out, one line each.
 * This module knows the protocol in both of its eras and the tools
 * (pt/mcp_tools.h); it does not read or write any file descriptor and
 * runs nothing itself. The command layer (src/cmd/mcp.c) reads the lines,
 * writes the responses and is the host that runs a tool's command line.
 *
 * Eras. A request whose params._meta names a protocol version
 * ("io.modelcontextprotocol/protocolVersion") is answered statelessly, by
 * the rules of that version (2026-07-28: resultType, caching hints,
 * serverInfo in each result's _meta). Without it, a request is answered by
 * the version `initialize` negotiated (2025-11-25, 2025-06-18 or
 * 2025-03-26); before any `initialize` only `ping` is. The negotiated
 * version is the server's only state, and it is about the shape of the
 * answers: what a tool works on travels in its arguments.
 */
#ifndef PT_MCP_H
#define PT_MCP_H

#include <stdbool.h>
#include <stddef.h>
#include "pt/buf.h"

/* One command line for the host to run: what a tool call or a resource read comes to. */
struct mcp_call {
	char **argv;                /* the words after "pallas-triage", NULL-terminated */
	int argc;
	const char *input;          /* fed on standard input, or NULL for an empty one */
	size_t input_len;
};

/* How it went. */
struct mcp_ran {
	int status;                 /* its exit status, or -1 when it did not exit by itself */
	struct buf out;             /* its standard output */
	struct buf err;             /* its standard error (the first MCP_RAN_ERR_MAX bytes) */
	char why[256];              /* status -1: what happened ("timed out after 300 s") */
};

#define MCP_RAN_ERR_MAX (64u * 1024)

struct mcp_host {
	/*
	 * Does the binary have the command words[] (NULL-terminated: {"session",
	 * "start", NULL}) and, when option is not NULL, does it take that option?
	 */
	bool (*has)(void *arg, const char *const *words, const char *option);
	/*
	 * Run c and fill r (r->out and r->err are empty buffers on entry; the
	 * caller releases them). Returns 0 when it ran, whatever its exit
	 * status, or -1 with r->why saying why it could not be started.
	 */
	int (*run)(void *arg, const struct mcp_call *c, struct mcp_ran *r);
	/* Note a problem with a message (invalid JSON, say) for whoever reads the logs; may be NULL. */
	void (*log)(void *arg, const char *msg);
	void *arg;
	const char *version;        /* the server's version, for serverInfo */
};

struct mcp_server;

/* Returns a new server for host (borrowed: it must outlive the server); free with mcp_server_free(). */
struct mcp_server *mcp_server_new(const struct mcp_host *host);
void mcp_server_free(struct mcp_server *s);

/*
 * Handle one message (a line without its newline; blank lines are
 * ignored) and append the response, one line with its newline, to out;
 * nothing is appended for a notification or a client's response. Never
 * fails: whatever the line holds, the answer is a JSON-RPC message.
 */
void mcp_handle_line(struct mcp_server *s, const char *line, size_t len, struct buf *out);

/* The answer to a line longer than max bytes, which was not read (-32600, no id). */
void mcp_line_too_long(struct mcp_server *s, size_t max, struct buf *out);

#endif
