/* SPDX-License-Identifier: MIT */
/*
 * Running one command line of the table (cmd_table) for the MCP server
 * (src/cmd/mcp_child.c): in a forked child, with standard input the text
 * given (or empty), standard output and error captured through pipes, and
 * a deadline. The child is the command as the CLI runs it, so nothing it
 * does (its state, its exit(), a crash) reaches the server; the server's
 * own standard input, the protocol, is never the child's.
 */
#ifndef PT_CMD_MCP_CHILD_H
#define PT_CMD_MCP_CHILD_H

#include "cmd.h"
#include "pt/mcp.h"

/* A command printing more than this on standard output is stopped. */
#define MCP_CHILD_OUT_MAX (64u * 1024 * 1024)

/*
 * Run c as `pallas-triage ARGV...` with the global options of ctx, stopping
 * it (its whole process group) after timeout seconds. Fills r as
 * struct mcp_host's run() says: returns 0 when it ran, -1 with r->why when
 * it could not be started.
 */
int mcp_child_run(const struct pt_ctx *ctx, double timeout, const struct mcp_call *c,
		  struct mcp_ran *r);

#endif
