/* SPDX-License-Identifier: MIT */
/* "Did you mean ...?": which typos get a suggestion and which words do not. */
#include <string.h>

#include "pt/suggest.h"
#include "test.h"

static const char *const commands[] = {
	"triage", "session", "attempt", "report", "explain", "rules", "run", "scan", "vmem",
	"check-block", "help", "version",
};

static const char *
best(const char *word)
{
	struct suggest s;

	suggest_init(&s, word);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		suggest_offer(&s, commands[i]);
	return suggest_best(&s);
}

static void
test_typos(void)
{
	CHECK_STREQ(best("sesion"), "session");      /* a letter missing */
	CHECK_STREQ(best("explian"), "explain");     /* two letters swapped */
	CHECK_STREQ(best("raport"), "report");       /* a letter changed */
	CHECK_STREQ(best("scann"), "scan");          /* a letter too many */
	CHECK_STREQ(best("Session"), "session");     /* case only */
	CHECK_STREQ(best("chek-block"), "check-block");
}

static void
test_no_suggestion(void)
{
	CHECK(best("session") == NULL);              /* the word itself */
	CHECK(best("kernel.log") == NULL);           /* nothing near */
	CHECK(best("ab") == NULL);                   /* two edits from "run" is half the word */
	CHECK(best("") == NULL);
	CHECK(best("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx") == NULL);
}

int
main(void)
{
	test_typos();
	test_no_suggestion();
	return TEST_DONE();
}
