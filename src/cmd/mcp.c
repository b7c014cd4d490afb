/* SPDX-License-Identifier: MIT */
/*
 * `pallas-triage mcp`: the Model Context Protocol server for coding agents
 * (docs/mcp.md). It reads newline-delimited JSON-RPC from standard input
 * and writes the answers, and nothing else, to standard output; notes go to
 * standard error. The protocol is pt/mcp.h; this file is the transport and
 * the host: which commands and options the binary has (cmd_table) and
 * running a tool's command line in a child (mcp_child.c).
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "mcp_child.h"
#include "pt/mcp.h"
#include "pt/term.h"

static int cmd_mcp_run(int argc, char **argv, struct pt_ctx *ctx);

#define DEFAULT_TIMEOUT 300
#define DEFAULT_MAX_LINE (16u * 1024 * 1024)

const struct cmd_entry cmd_mcp_entry = {
	.name = "mcp",
	.usage = "mcp [--timeout SECONDS] [--max-line BYTES]",
	.summary = "serve the tools to coding agents over the Model Context Protocol (stdio)",
	.help =
	"options:\n"
	"  --timeout SECONDS  stop a tool call that runs longer (default 300)\n"
	"  --max-line BYTES   the longest request line read (default 16 MiB); a longer\n"
	"                     one is skipped and answered with an error\n"
	"\n"
	"Reads JSON-RPC 2.0 messages, one per line, on standard input and answers on\n"
	"standard output until standard input ends. Speaks MCP 2026-07-28 (stateless:\n"
	"the version in each request's _meta, server/discover) and, after initialize,\n"
	"2025-11-25, 2025-06-18 and 2025-03-26. The tools are triage, explain,\n"
	"check_block, vmem, session_start, attempt, session_status, report (and check\n"
	"when the binary has it); each runs the command of the same name, so an agent\n"
	"gets what the command line gives. An agent starts it; see docs/mcp.md.\n"
	"\n"
	"exit status: 0 standard input ended, 2 usage error, 4 standard output failed\n",
	.min_args = 0,
	.max_args = 0,
	.run = cmd_mcp_run,
};

enum { OPT_TIMEOUT = 1, OPT_MAX_LINE };

static const struct option mcp_options[] = {
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "max-line", required_argument, NULL, OPT_MAX_LINE },
	CMD_GLOBAL_LONGOPTS,
	{ NULL, 0, NULL, 0 },
};

struct server {
	struct pt_ctx *ctx;
	double timeout;             /* seconds per tool call */
	size_t max_line;            /* bytes */
};

/* ---------------------------------------------------------------- the host */

static bool
is_word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
}

/* Does text name option ("--jax") as a whole word? Usage and help list every option. */
static bool
mentions(const char *text, const char *option)
{
	size_t n = strlen(option);

	for (const char *p = text; p && (p = strstr(p, option)); p += n)
		if ((p == text || !is_word_char(p[-1])) && !is_word_char(p[n]))
			return true;
	return false;
}

static bool
host_has(void *arg, const char *const *words, const char *option)
{
	const struct cmd_entry *const *table = cmd_table;
	const struct cmd_entry *e = NULL;

	(void)arg;
	for (int i = 0; words[i]; i++) {
		if (!table || !(e = cmd_lookup(table, words[i])))
			return false;
		table = e->sub;
	}
	if (!e || (e->flags & CMD_GROUP))
		return false;
	return !option || mentions(e->usage, option) || mentions(e->help, option);
}

static int
host_run(void *arg, const struct mcp_call *c, struct mcp_ran *r)
{
	struct server *sv = arg;

	return mcp_child_run(sv->ctx, sv->timeout, c, r);
}

static void
host_log(void *arg, const char *msg)
{
	(void)arg;
	fputs("pallas-triage mcp: ", stderr);
	term_puts_untrusted(stderr, msg);
	fputc('\n', stderr);
}

/* ---------------------------------------------------------------- the transport */

static int
write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Answer one line; returns -1 when standard output failed. */
static int
answer(struct mcp_server *s, const struct buf *line, bool too_long, size_t max)
{
	struct buf out = BUF_INIT;
	int rc;

	if (too_long)
		mcp_line_too_long(s, max, &out);
	else
		mcp_handle_line(s, line->data, line->len, &out);
	rc = write_all(STDOUT_FILENO, out.data, out.len);
	buf_release(&out);
	return rc;
}

/*
 * Read lines until standard input ends. A line longer than max is
 * answered as soon as it is known to be, and the rest of it is skipped
 * without being kept.
 */
static int
serve(struct mcp_server *s, size_t max)
{
	struct buf line = BUF_INIT;
	char chunk[64 * 1024];
	bool skipping = false;
	int rc = 0;

	for (;;) {
		ssize_t n = read(STDIN_FILENO, chunk, sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (char *p = chunk, *end = chunk + n; p < end && rc == 0;) {
			char *nl = memchr(p, '\n', (size_t)(end - p));
			size_t seg = (size_t)((nl ? nl : end) - p);

			if (!skipping && line.len + seg > max) {
				rc = answer(s, NULL, true, max);
				skipping = true;
				buf_release(&line);
			} else if (!skipping) {
				buf_add(&line, p, seg);
			}
			if (nl) {
				if (!skipping && rc == 0)
					rc = answer(s, &line, false, max);
				buf_reset(&line);
				skipping = false;
			}
			p += seg + (nl != NULL);
		}
		if (rc < 0)
			break;
	}
	/* the last message may lack its newline */
	if (rc == 0 && !skipping && line.len)
		rc = answer(s, &line, false, max);
	buf_release(&line);
	return rc;
}

static int
parse_number(const struct cmd_entry *e, const char *opt, const char *s, double lo, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= lo) || v > 1e9)
		return cmd_usage_error(e, "%s takes a number of at least %g, not '%s'", opt, lo, s);
	*out = v;
	return 0;
}

static int
cmd_mcp_run(int argc, char **argv, struct pt_ctx *ctx)
{
	const struct cmd_entry *e = &cmd_mcp_entry;
	struct server sv = { ctx, DEFAULT_TIMEOUT, DEFAULT_MAX_LINE };
	struct mcp_host host = { host_has, host_run, host_log, &sv, PT_VERSION };
	struct mcp_server *s;
	double max = (double)DEFAULT_MAX_LINE;
	int c, rc;

	while ((c = getopt_long(argc, argv, "", mcp_options, NULL)) != -1) {
		if (c == OPT_TIMEOUT)
			rc = parse_number(e, "--timeout", optarg, 0.001, &sv.timeout);
		else if (c == OPT_MAX_LINE)
			rc = parse_number(e, "--max-line", optarg, 1, &max);
		else
			rc = cmd_global_option(e, ctx, c, optarg);
		if (rc)
			return rc;
	}
	if ((rc = cmd_check_args(e, argc, optind)) != 0)
		return rc;
	sv.max_line = (size_t)max;
	if (isatty(STDIN_FILENO))
		fputs("pallas-triage mcp: a Model Context Protocol server; it reads JSON-RPC "
		      "messages, one per line, until end of input (docs/mcp.md)\n", stderr);
	/* a client that goes away must be an error to write, not our death */
	signal(SIGPIPE, SIG_IGN);
	s = mcp_server_new(&host);
	rc = serve(s, sv.max_line);
	mcp_server_free(s);
	if (rc < 0) {
		fprintf(stderr, "pallas-triage mcp: error: cannot write to standard output: %s\n",
			strerror(errno));
		return PT_EXIT_SYSTEM;
	}
	return PT_EXIT_OK;
}
