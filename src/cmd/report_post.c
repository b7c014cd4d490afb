/* SPDX-License-Identifier: MIT */
/*
 * `pallas-triage report --post URL`, the command-layer half: cmd_report.c
 * parses the options and hands over here. The report is on disk before the
 * first byte is sent, and stays there whatever the webhook does; the token
 * from $PALLAS_TRIAGE_TOKEN goes into one request header and nowhere else
 * (not in output, messages, the report or the session).
 */
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "report_post.h"
#include "pt/http.h"
#include "pt/report.h"
#include "pt/report_post.h"
#include "pt/session.h"
#include "pt/xalloc.h"

/*
 * With a session here, (re)write its report files (report_write_files()
 * names them: a report of another session is never overwritten). Without
 * one, the files already there are posted. *md and *json get the paths
 * (free()). Returns -1 on error.
 */
static int
write_report_files(struct pt_ctx *ctx, const char *report_dir, bool redact, char **md,
		   char **json, struct pt_err *err)
{
	struct session *s = NULL;
	struct report r;
	int rc;

	if (session_load(cmd_session_dir(ctx), &s, err) < 0) {
		if (err->status != PT_EXIT_FINDING)
			return -1;
		*md = xasprintf("%s/%s", report_dir, REPORT_MD_FILE);
		*json = xasprintf("%s/%s", report_dir, REPORT_JSON_FILE);
		return 0;
	}
	report_build(&r, s, ctx->rules, redact);
	rc = report_write_files(&r, report_dir, md, json, err);
	report_release(&r);
	session_free(s);
	return rc;
}

int
cmd_report_post(const char *url, bool allow_http, bool redact, struct pt_ctx *ctx)
{
	struct http_response res = HTTP_RESPONSE_INIT;
	struct pt_err err = PT_ERR_INIT;
	struct buf payload = BUF_INIT;
	struct http_opts ho;
	char *shown = NULL, *report_dir = NULL, *md = NULL, *json = NULL;
	int rc;

	if (http_check_url(url, allow_http, &err) < 0)
		return cmd_usage_error(&cmd_report_entry, "%s", err.msg);
	if (http_opts_init(&ho, &ctx->env.http, &err) < 0 || http_global_init(&err) < 0)
		return pt_report(&err);
	ho.allow_http = allow_http;
	ho.max_body = 64u << 10;   /* the webhook's answer is not used */
	ho.bearer = ctx->env.token;
	ho.progress = stderr;
	report_dir = session_report_dir(cmd_session_dir(ctx));
	if (write_report_files(ctx, report_dir, redact, &md, &json, &err) < 0 ||
	    report_post_payload(md, json, &payload, &err) < 0) {
		rc = pt_report(&err);
		goto out;
	}
	shown = http_url_display(url, true);
	fflush(stdout);
	if (http_post_json(url, payload.data, payload.len, &res, &ho, &err) < 0) {
		rc = pt_report(&err);
		fprintf(stderr, "pallas-triage: the report is kept in %s and %s\n", md, json);
		goto out;
	}
	printf("posted the escalation report to %s (HTTP %ld%s)\n", shown, res.status,
	       res.attempts > 1 ? ", after retries" : "");
	printf("the report is also in %s and %s\n", md, json);
	rc = PT_EXIT_OK;
out:
	http_response_release(&res);
	buf_release(&payload);
	free(shown);
	free(report_dir);
	free(md);
	free(json);
	http_global_cleanup();
	return rc;
}
