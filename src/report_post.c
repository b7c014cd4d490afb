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

/* Copy the value v into the container dst: as member key of an object, or
 * as the next element of an array when key is NULL. */
static void
copy_value(struct json *dst, const char *key, const struct json *v)
{
	const char *s;
	long long i;
	double d;
	bool b;
	struct json *sub;

	switch (json_kind(v)) {
	case JSON_NULL:
		key ? json_add_null(dst, key) : json_push_null(dst);
		break;
	case JSON_BOOL:
		json_bool_value(v, &b);
		key ? json_add_bool(dst, key, b) : json_push_bool(dst, b);
		break;
	case JSON_NUMBER:
		if (json_int_value(v, &i) == 0) {
			key ? json_add_int(dst, key, i) : json_push_int(dst, i);
		} else {
			json_num_value(v, &d);
			key ? json_add_num(dst, key, d) : json_push_num(dst, d);
		}
		break;
	case JSON_STRING:
		json_str_value(v, &s);
		key ? json_add_str(dst, key, s) : json_push_str(dst, s);
		break;
	case JSON_ARRAY:
	case JSON_OBJECT:
		if (json_kind(v) == JSON_ARRAY)
			sub = key ? json_add_array(dst, key) : json_push_array(dst);
		else
			sub = key ? json_add_object(dst, key) : json_push_object(dst);
		for (size_t k = 0; k < json_len(v); k++) {
			const char *mk = NULL;
			const struct json *m = json_at(v, k, &mk);

			copy_value(sub, json_kind(v) == JSON_OBJECT ? mk : NULL, m);
		}
		break;
	}
}

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
	 * ~/.aws/credentials: what is sent must be a file of its own */
	if (util_read_regular(pm, &md, REPORT_POST_MAX_BYTES, err) < 0 ||
	    util_read_regular(pj, &js, REPORT_POST_MAX_BYTES, err) < 0)
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
	copy_value(root, "report", report);
	json_write_compact(root, out);
	ret = 0;
out:
	json_free(report);
	json_free(root);
	buf_release(&md);
	buf_release(&js);
	return ret;
}
