/* SPDX-License-Identifier: MIT */
/*
 * `report --post URL`: the escalation report sent to a webhook as one JSON
 * document (docs/packs.md, "Posting the report"):
 *
 *	{ "schema_version": 1, "tool": "pallas-triage/VERSION",
 *	  "markdown": "<pallas-triage-report.md>", "report": { <pallas-triage-report.json> } }
 *
 * The report files are written to disk before anything is sent and are never
 * removed, whatever the webhook answers.
 */
#ifndef PT_REPORT_POST_H
#define PT_REPORT_POST_H

#include "pt/buf.h"
#include "pt/diag.h"

#define REPORT_POST_SCHEMA 1
#define REPORT_POST_MAX_BYTES (8u << 20)   /* each report file */

/*
 * Build the payload from the report files md and json (report_write_files()
 * names them) into out (appended, compact JSON). Returns 0, or -1 with err:
 * PT_EXIT_FINDING when the files are not there, PT_EXIT_DATA when the JSON
 * file is not JSON or either is not a regular file (a symbolic link is
 * never followed).
 */
int report_post_payload(const char *md, const char *json, struct buf *out, struct pt_err *err);

#endif
