/* SPDX-License-Identifier: MIT */
/*
 * The webhook payload of `report --post`; see pt/report_post.h. The report
 * JSON is parsed and copied into the payload tree rather than pasted in as
 * text, so a damaged file is refused instead of sent as broken JSON.
 */
#include <stdlib.h>
#include <string.h>

#include "pt/json.h"
#include "pt/report.h"
#include "pt/report_post.h"
#include "pt/util.h"
#include "pt/xalloc.h"

int
report_post_payload(const char *pm, const char *pj, struct buf *out, struct pt_err *err)
{
	struct buf md = BUF_INIT, js = BUF_INIT;
	struct json *report = NULL, *root = NULL;
	int ret = -1;

	if (!util_is_file(pm) || !util_is_file(pj)) {
		pt_err_set(err, PT_EXIT_FINDING, "no report to post: '%s' and '%s' are not both "
			   "there", pm, pj);
		goto out;
	}
	/* a cloned repository may plant pallas-triage-report.md as a link to
	 * ~/.aws/credentials, symbolic or hard: what is sent must be a file of
	 * its own */
	if (util_read_own(pm, &md, REPORT_POST_MAX_BYTES, err) < 0 ||
	    util_read_own(pj, &js, REPORT_POST_MAX_BYTES, err) < 0)
		goto out;
	if (!(report = json_parse(js.data, js.len, pj, err)))
		goto out;
	if (json_kind(report) != JSON_OBJECT) {
		pt_err_set(err, PT_EXIT_DATA, "%s: the report must be a JSON object", pj);
		goto out;
	}
	root = json_new_object();
	json_add_int(root, "schema_version", REPORT_POST_SCHEMA);
	json_add_str(root, "tool", "pallas-triage/" PT_VERSION);
	json_add_str(root, "markdown", md.data);
	json_add_copy(root, "report", report);
	json_write_compact(root, out);
	ret = 0;
out:
	json_free(report);
	json_free(root);
	buf_release(&md);
	buf_release(&js);
	return ret;
}
