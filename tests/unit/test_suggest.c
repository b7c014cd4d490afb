/* SPDX-License-Identifier: MIT */
/* "Did you mean ...?": which typos get a suggestion and which words do not. */
#include <stdbool.h>
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

/* session's subcommands, in table order; start, reset and restore change state */
static const char *
best_session(const char *word)
{
	static const struct { const char *name; bool destructive; } sub[] = {
		{ "log", false }, { "reset", true }, { "restore", true }, { "resume", false },
		{ "start", true }, { "status", false },
	};
	struct suggest s;

	suggest_init(&s, word);
	for (size_t i = 0; i < sizeof(sub) / sizeof(sub[0]); i++)
		suggest_offer_ranked(&s, sub[i].name, sub[i].destructive);
	return suggest_best(&s);
}

static void
test_ranking(void)
{
	CHECK_STREQ(best_session("stat"), "status");   /* a prefix; start is as near, but destructive */
	CHECK_STREQ(best_session("sta"), "status");
	CHECK_STREQ(best_session("strt"), "start");    /* nearer: a destructive one may still win */
	CHECK_STREQ(best_session("rset"), "reset");
	CHECK_STREQ(best_session("resme"), "resume");
	CHECK_STREQ(best("sess"), "session");          /* the prefix rule */
	CHECK(best("se") == NULL);                     /* too short a prefix to say */
}

int
main(void)
{
	test_typos();
	test_no_suggestion();
	test_ranking();
	return TEST_DONE();
}
