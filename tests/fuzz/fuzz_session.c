/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the session loader. Arbitrary bytes go to session_parse(); a
 * session that loads is then used the way the commands use it: the plan
 * against the shipped ladders, the --json summaries, the escalation report
 * in every format. Invariants besides memory safety:
 *   - a rejected file always says why (err.msg set, status PT_EXIT_DATA);
 *   - what session_format() writes loads again, and formats to the same text
 *     (a saved session always loads).
 */
#include <string.h>

#include "fuzz.h"
#include "pt/report.h"
#include "pt/session.h"

static struct ruleset *rs;

int LLVMFuzzerInitialize(int *argc, char ***argv);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	rs = fuzz_shipped_rules("fuzz_session");
	return 0;
}

static void
use(struct session *s)
{
	static const char *const formats[] = { "text", "md", "json" };
	struct session_news nw = SESSION_NEWS_INIT;
	const struct rung **plan = NULL;
	size_t nplan = session_plan(s, rs, &plan);
	struct pt_err err = PT_ERR_INIT;
	char *j;

	j = session_status_json(s, rs, plan, nplan, &nw);
	free(j);
	j = session_log_json(s);
	free(j);
	free(plan);
	for (size_t i = 0; i < ARRAY_SIZE(formats); i++) {
		struct report r = REPORT_INIT;

		report_build(&r, s, rs, i == 1);
		report_write(&r, formats[i], fuzz_devnull(), &err);
		report_release(&r);
	}
	session_news_release(&nw);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pt_err err = PT_ERR_INIT;
	struct session *s = NULL, *again = NULL;
	char *text, *text2;

	if (session_parse((const char *)data, size, "fuzz.json", &s, &err) < 0) {
		if (!err.msg[0] || err.status != PT_EXIT_DATA)
			FUZZ_FAIL("a rejected session without a message or with status %d", err.status);
		return 0;
	}
	text = session_format(s);
	if (session_parse(text, strlen(text), "saved.json", &again, &err) < 0)
		FUZZ_FAIL("a saved session does not load: %s\n%s", err.msg, text);
	text2 = session_format(again);
	if (strcmp(text, text2) != 0)
		FUZZ_FAIL("saving a loaded session changes it:\n%s\n---\n%s", text, text2);
	use(s);
	free(text);
	free(text2);
	session_free(again);
	session_free(s);
	return 0;
}
