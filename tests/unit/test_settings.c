/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of settings_read(): the PALLAS_TRIAGE_* environment, read once.
 * An empty value is unset; threads out of range mean "the machine decides".
 */
#include <stdlib.h>
#include <string.h>

#include "pt/settings.h"
#include "test.h"

static const char *const vars[] = {
	"PALLAS_TRIAGE_RULES", "PALLAS_TRIAGE_NOW", "PALLAS_TRIAGE_THREADS",
	"PALLAS_TRIAGE_NO_CACHE", "PALLAS_TRIAGE_TOKEN", "PALLAS_TRIAGE_TEST_CRASH",
	"PALLAS_TRIAGE_HTTP_TIMEOUT", "PALLAS_TRIAGE_HTTP_CONNECT_TIMEOUT",
	"PALLAS_TRIAGE_HTTP_DEADLINE", "PALLAS_TRIAGE_HTTP_BACKOFF", "PALLAS_TRIAGE_CA_BUNDLE",
	"PALLAS_TRIAGE_SESSION_DIR",
};

static void
clear(void)
{
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		unsetenv(vars[i]);
}

static unsigned
threads_for(const char *value)
{
	struct settings s;

	setenv("PALLAS_TRIAGE_THREADS", value, 1);
	settings_read(&s);
	return s.threads;
}

int
main(void)
{
	struct settings s;

	clear();
	settings_read(&s);
	CHECK(!s.rules_dir && !s.now && !s.token && !s.test_crash && !s.http.ca_bundle);
	CHECK(!s.session_dir);
	CHECK(s.threads == 0 && !s.no_cache);

	setenv("PALLAS_TRIAGE_RULES", "/r", 1);
	setenv("PALLAS_TRIAGE_NOW", "2026-01-02T03:04:05Z", 1);
	setenv("PALLAS_TRIAGE_TOKEN", "", 1);
	setenv("PALLAS_TRIAGE_HTTP_BACKOFF", "0.5", 1);
	setenv("PALLAS_TRIAGE_NO_CACHE", "1", 1);
	setenv("PALLAS_TRIAGE_SESSION_DIR", "/tmp/s", 1);
	settings_read(&s);
	CHECK_STREQ(s.session_dir, "/tmp/s");
	CHECK_STREQ(s.rules_dir, "/r");
	CHECK_STREQ(s.now, "2026-01-02T03:04:05Z");
	CHECK(s.token == NULL);                  /* empty is unset */
	CHECK_STREQ(s.http.backoff, "0.5");      /* checked by http_opts_init() */
	CHECK(s.no_cache);
	setenv("PALLAS_TRIAGE_NO_CACHE", "0", 1);
	settings_read(&s);
	CHECK(!s.no_cache);

	CHECK_INTEQ(threads_for("1"), 1);
	CHECK_INTEQ(threads_for("64"), 64);
	CHECK_INTEQ(threads_for("65"), 0);
	CHECK_INTEQ(threads_for("2x"), 0);
	CHECK_INTEQ(threads_for("0"), 0);
	clear();
	return TEST_DONE();
}
