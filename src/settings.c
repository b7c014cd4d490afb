/* SPDX-License-Identifier: MIT */
/* The PALLAS_TRIAGE_* environment, read once; see pt/settings.h. */
#include <stdlib.h>
#include <string.h>

#include "pt/settings.h"

/* An empty value counts as unset, as it always has for these variables. */
static const char *
env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

static unsigned
env_threads(const char *name)
{
	const char *v = env(name);
	char *end;
	long n;

	if (!v)
		return 0;
	n = strtol(v, &end, 10);
	return *end == '\0' && n >= 1 && n <= 64 ? (unsigned)n : 0;
}

void
settings_read(struct settings *s)
{
	const char *no_cache = env("PALLAS_TRIAGE_NO_CACHE");

	memset(s, 0, sizeof(*s));
	s->rules_dir = env("PALLAS_TRIAGE_RULES");
	s->now = env("PALLAS_TRIAGE_NOW");
	s->threads = env_threads("PALLAS_TRIAGE_THREADS");
	s->no_cache = no_cache && strcmp(no_cache, "0") != 0;
	s->token = env("PALLAS_TRIAGE_TOKEN");
	s->session_dir = env("PALLAS_TRIAGE_SESSION_DIR");
	s->test_crash = env("PALLAS_TRIAGE_TEST_CRASH");
	s->http.timeout = env("PALLAS_TRIAGE_HTTP_TIMEOUT");
	s->http.connect_timeout = env("PALLAS_TRIAGE_HTTP_CONNECT_TIMEOUT");
	s->http.deadline = env("PALLAS_TRIAGE_HTTP_DEADLINE");
	s->http.backoff = env("PALLAS_TRIAGE_HTTP_BACKOFF");
	s->http.ca_bundle = env("PALLAS_TRIAGE_CA_BUNDLE");
}
