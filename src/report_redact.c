/* SPDX-License-Identifier: MIT */
/*
 * --redact for reports: home directories become "~" and host names
 * "<host>"; see report_redact() in pt/report.h. Masking is done on the
 * escaped text, while the report model is built, so every writer prints
 * the same masked strings.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pt/buf.h"
#include "pt/report.h"
#include "pt/util.h"

static bool
path_char(char c)
{
	return c && !strchr(" \t\n\"'`:,;()[]{}<>|=", c);
}

/* Length of the home-directory prefix at p ("/home/NAME", "/Users/NAME", "/root"), or 0. */
static size_t
home_prefix(const char *p, const char *start)
{
	static const char *const bases[] = { "/home/", "/Users/" };
	const char *home = getenv("HOME");
	size_t n;

	if (p > start && path_char(p[-1]))
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(bases); i++)
		if (strncmp(p, bases[i], strlen(bases[i])) == 0) {
			n = strlen(bases[i]);
			while (path_char(p[n]) && p[n] != '/')
				n++;
			return n > strlen(bases[i]) ? n : 0;
		}
	if (strncmp(p, "/root", 5) == 0 && (p[5] == '/' || !path_char(p[5])))
		return 5;
	if (home && strlen(home) > 1 && strncmp(p, home, n = strlen(home)) == 0 &&
	    (p[n] == '/' || !path_char(p[n])))
		return n;
	return 0;
}

static bool
host_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '.' || c == '_';
}

/*
 * Length of a host name at p: this machine's name, or a TPU VM name
 * (t1v-n-...). The machine's name counts only when it has a digit or a dash,
 * so a host called "main" does not mask every "in main" of a traceback.
 */
static size_t
host_at(const char *p, const char *start, const char *host, size_t hlen)
{
	size_t n = 0;

	if (p > start && host_char(p[-1]))
		return 0;
	if (hlen >= 4 && strncmp(p, host, hlen) == 0 && (!host_char(p[hlen]) || p[hlen] == '.'))
		n = hlen;   /* and its domain, if any */
	else if (strncmp(p, "t1v-n-", 6) != 0)
		return 0;
	while (host_char(p[n]))
		n++;
	return n;
}

char *
report_redact(const char *s)
{
	struct buf b = BUF_INIT;
	char host[256] = "";
	size_t hlen;

	if (!s)
		return NULL;
	if (gethostname(host, sizeof(host) - 1) != 0)
		host[0] = '\0';
	host[strcspn(host, ".")] = '\0';   /* the short name also masks the FQDN's head */
	hlen = strcspn(host, "0123456789-") < strlen(host) ? strlen(host) : 0;
	for (const char *p = s; *p; ) {
		size_t n;

		if (*p == '/' && (n = home_prefix(p, s))) {
			buf_addch(&b, '~');
			p += n;
		} else if ((n = host_at(p, s, host, hlen))) {
			buf_adds(&b, "<host>");
			p += n;
		} else {
			buf_addch(&b, *p++);
		}
	}
	return buf_detach(&b, NULL);
}
