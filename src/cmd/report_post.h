/* SPDX-License-Identifier: MIT */
/*
 * `report --post URL`, the half of the `report` command that sends
 * (src/cmd_report_post.c); src/cmd_report.c parses the options and hands
 * over. The payload itself is built by the report_post module
 * (pt/report_post.h).
 */
#ifndef PT_CMD_REPORT_H
#define PT_CMD_REPORT_H

#include <stdbool.h>

struct pt_ctx;

/*
 * With a session in the current directory the report is built (masked when
 * redact) and written to the report files first; without one, report files
 * already there are posted. The token comes from $PALLAS_TRIAGE_TOKEN
 * (ctx->env). Prints the outcome and returns PT_EXIT_*: 0 posted, 1 nothing
 * to post, 2 usage, 3 corrupt session or report, 4 the webhook could not be
 * reached or refused the report.
 */
int cmd_report_post(const char *url, bool allow_http, bool redact, struct pt_ctx *ctx);

#endif
