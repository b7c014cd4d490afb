/* SPDX-License-Identifier: MIT */
/*
 * The parts of rule packs and HTTP that need no network: pack names and
 * the names derived from URLs, URL checks (https only unless allowed) and
 * the URL shown in messages (no credentials, no query, host only for
 * webhooks), and the store directory.
 */
#include <stdlib.h>
#include <string.h>

#include "pt/http.h"
#include "pt/packs.h"
#include "test.h"

static void
check_name(const char *url, const char *want)
{
	char *got = pack_name_from_url(url);

	if (want)
		CHECK_STREQ(got, want);
	else
		CHECK(got == NULL);
	free(got);
}

static void
check_display(const char *url, bool host_only, const char *want)
{
	char *got = http_url_display(url, host_only);

	CHECK_STREQ(got, want);
	free(got);
}

int
main(void)
{
	struct pt_err err = PT_ERR_INIT;
	char *dir;

	CHECK(pack_name_valid("team-kernels"));
	CHECK(pack_name_valid("a"));
	CHECK(pack_name_valid("v5e.splash_2"));
	CHECK(!pack_name_valid(""));
	CHECK(!pack_name_valid(".hidden"));
	CHECK(!pack_name_valid("-dash"));
	CHECK(!pack_name_valid("Upper"));
	CHECK(!pack_name_valid("a/b"));
	CHECK(!pack_name_valid("a b"));
	CHECK(!pack_name_valid("0123456789012345678901234567890123456789012345678901234567890123x"));
	CHECK(pack_name_valid("0123456789012345678901234567890123456789012345678901234567890123"));

	check_name("https://example.com/packs/team-kernels.yaml", "team-kernels");
	check_name("https://example.com/packs/Team Kernels.YML?token=x#frag", "team-kernels");
	check_name("https://example.com/a/b/splash/", "splash");
	check_name("https://example.com/raw/v5e.rules.yaml", "v5e.rules");
	check_name("https://example.com/", NULL);
	check_name("https://example.com", NULL);
	check_name("https://example.com/.yaml", NULL);
	check_name("https://example.com/-x.yaml", NULL);

	CHECK(http_check_url("https://example.com/p.yaml", false, &err) == 0);
	CHECK(http_check_url("HTTPS://example.com/p.yaml", false, &err) == 0);
	CHECK(http_check_url("http://127.0.0.1:8080/p.yaml", false, &err) < 0);
	CHECK_INTEQ(err.status, PT_EXIT_USAGE);
	CHECK(strstr(err.msg, "--allow-http") != NULL);
	CHECK(http_check_url("http://127.0.0.1:8080/p.yaml", true, &err) == 0);
	CHECK(http_check_url("ftp://example.com/p.yaml", true, &err) < 0);
	CHECK(http_check_url("file:///etc/passwd", true, &err) < 0);
	CHECK(http_check_url("https://", true, &err) < 0);
	CHECK(http_check_url("example.com/p.yaml", true, &err) < 0);

	check_display("https://user:pw@example.com:8443/packs/t.yaml?token=abc", false,
		      "https://example.com:8443/packs/t.yaml?...");
	check_display("https://hooks.example.com/services/T0/B0/SECRET", true,
		      "https://hooks.example.com");
	check_display("http://127.0.0.1:9/hook", true, "http://127.0.0.1:9");
	check_display("not a url", false, "not a url");
	/* messages: scheme://host[:port] only, whatever the text is */
	check_display("https://alice:PW@example.com/packs/t.yaml?token=abc#f", true,
		      "https://example.com");
	check_display("https://[::1]:8443/x?y", true, "https://[::1]:8443");
	check_display("alice:PW@example.com/hook?token=x", true, "example.com");
	check_display("ftp://u:p@h@example.com:21/x", true, "ftp://example.com:21");
	check_display("https://example.com?token=abc", false, "https://example.com");
	check_display("https://example.com/p#secret", false, "https://example.com/p");

	setenv("XDG_DATA_HOME", "/tmp/xdg-test", 1);
	dir = packs_dir();
	CHECK_STREQ(dir, "/tmp/xdg-test/pallas-triage/packs");
	free(dir);
	setenv("XDG_DATA_HOME", "relative/ignored", 1);
	setenv("HOME", "/home/u", 1);
	dir = packs_dir();
	CHECK_STREQ(dir, "/home/u/.local/share/pallas-triage/packs");
	free(dir);
	return TEST_DONE();
}
