/* SPDX-License-Identifier: MIT */
/*
 * The JSON wrapper: insertion order, two-space layout, one-line scalar
 * arrays, exact integers, escaping, and the reader.
 */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"

#include "pt/json.h"
#include "pt/xalloc.h"

static void
test_build(void)
{
	struct json *root = json_new_object(), *a, *o;
	struct buf b = BUF_INIT;

	json_add_str(root, "zeta", "first");            /* insertion order, not sorted */
	json_add_int(root, "big", 9007199254740993LL);   /* 2^53 + 1 stays exact */
	json_add_num(root, "ratio", 0.25);
	json_add_bool(root, "ok", true);
	json_add_null(root, "nothing");
	json_add_str(root, "null_str", NULL);
	json_add_str(root, "esc", "a\"b\\c\n\x01");
	a = json_add_array(root, "dims");
	json_push_int(a, 256);
	json_push_int(a, 512);
	json_push_null(a);
	json_add_array(root, "empty");
	json_add_object(root, "none");
	a = json_add_array(root, "objs");
	o = json_push_object(a);
	json_add_int(o, "k", -1);
	json_push_str(a, "s");
	json_write(root, &b);
	CHECK_STREQ(b.data,
		    "{\n"
		    "  \"zeta\": \"first\",\n"
		    "  \"big\": 9007199254740993,\n"
		    "  \"ratio\": 0.25,\n"
		    "  \"ok\": true,\n"
		    "  \"nothing\": null,\n"
		    "  \"null_str\": null,\n"
		    "  \"esc\": \"a\\\"b\\\\c\\n\\u0001\",\n"
		    "  \"dims\": [256, 512, null],\n"
		    "  \"empty\": [],\n"
		    "  \"none\": {},\n"
		    "  \"objs\": [\n"
		    "    {\n"
		    "      \"k\": -1\n"
		    "    },\n"
		    "    \"s\"\n"
		    "  ]\n"
		    "}\n");
	buf_reset(&b);
	json_write_compact(root, &b);
	CHECK(strncmp(b.data, "{\"zeta\": \"first\", \"big\": 9007199254740993, ", 43) == 0);
	CHECK(strchr(b.data, '\n') == NULL);
	buf_release(&b);
	json_free(root);
	json_free(NULL);
}

/* Values typed by their text: JSON numbers digit for digit, flags as booleans. */
static void
test_typed(void)
{
	static const char *const in[][2] = {
		{ "int", "59768832" }, { "neg", "-3" }, { "dec", "0.0078125" }, { "exp", "1e-05" },
		{ "yes", "yes" }, { "no", "no" }, { "t", "true" },
		{ "unit", "45.10M" }, { "lead0", "007" }, { "dot", "1." }, { "hex", "0x10" },
		{ "shape", "(8, 128)" }, { "empty", "" }, { "minus", "-" }, { "e", "1e" },
	};
	struct json *root = json_new_object();
	struct buf b = BUF_INIT;

	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++)
		json_add_typed(root, in[i][0], in[i][1]);
	json_write_compact(root, &b);
	CHECK_STREQ(b.data, "{\"int\": 59768832, \"neg\": -3, \"dec\": 0.0078125, \"exp\": 1e-05, "
		    "\"yes\": true, \"no\": false, \"t\": true, \"unit\": \"45.10M\", \"lead0\": \"007\", "
		    "\"dot\": \"1.\", \"hex\": \"0x10\", \"shape\": \"(8, 128)\", \"empty\": \"\", "
		    "\"minus\": \"-\", \"e\": \"1e\"}");
	buf_release(&b);
	json_free(root);
}

static void
test_read(void)
{
	const char *text = "{\"a\": [1, 2.5, \"x\", true], \"b\": {\"c\": 12345678901}}  \n";
	struct pt_err err = PT_ERR_INIT;
	struct json *root = json_parse(text, strlen(text), "t.json", &err);
	const struct json *a;
	const char *key = NULL, *s = NULL;
	long long i = 0;
	double d = 0;
	bool bo = false;

	CHECK(root != NULL);
	if (!root)
		return;
	CHECK_INTEQ(json_kind(root), JSON_OBJECT);
	CHECK_INTEQ(json_len(root), 2);
	a = json_get(root, "a");
	CHECK_INTEQ(json_len(a), 4);
	CHECK(json_int_value(json_at(a, 0, NULL), &i) == 0 && i == 1);
	CHECK(json_int_value(json_at(a, 1, NULL), &i) == -1);   /* 2.5 is not an integer */
	CHECK(json_num_value(json_at(a, 1, NULL), &d) == 0 && d == 2.5);
	CHECK(json_str_value(json_at(a, 2, NULL), &s) == 0 && strcmp(s, "x") == 0);
	CHECK(json_bool_value(json_at(a, 3, NULL), &bo) == 0 && bo);
	CHECK(json_at(a, 4, NULL) == NULL);
	CHECK(json_at(root, 1, &key) != NULL && strcmp(key, "b") == 0);
	CHECK(json_int_value(json_get(json_get(root, "b"), "c"), &i) == 0 && i == 12345678901LL);
	CHECK(json_get(a, "x") == NULL && json_get(NULL, "x") == NULL);
	CHECK(json_str_value(NULL, &s) == -1);
	json_free(root);

	CHECK(json_parse("{\"a\": }", 7, "bad.json", &err) == NULL);
	CHECK_STREQ(err.msg, "bad.json: invalid JSON near byte 6");
	CHECK_INTEQ(err.status, PT_EXIT_DATA);
	CHECK(json_parse("{} x", 4, "bad.json", &err) == NULL);
	CHECK_STREQ(err.msg, "bad.json: unexpected data after the JSON document at byte 3");
}

/* Strict reading: a key twice in one object, a \u0000 in a string. */
static void
test_strict(void)
{
	static const struct { const char *text, *msg; } bad[] = {
		{ "{\"a\": 1, \"b\": 2, \"a\": 3}", "s.json: duplicate key 'a' in the top object" },
		{ "{\"x\": [{}, {\"k\": {\"r\": 1, \"\\u0072\": 2}}]}",
		  "s.json: duplicate key 'r' in 'x[1].k'" },
		{ "[\"ab\\u0000cd\"]", "s.json: a string holds \\u0000 at byte 4; a NUL would "
		  "cut it short" },
		{ "{\"\\u0000\": 1}", "s.json: a string holds \\u0000 at byte 2; a NUL would cut "
		  "it short" },
		{ "[1, \"\\u00001\"]", "s.json: a string holds \\u0000 at byte 5; a NUL would cut "
		  "it short" },
	};
	static const char *const good[] = {
		"{\"a\": {\"a\": 1}, \"b\": [{\"a\": 1}, {\"a\": 2}]}",   /* one key per object */
		"[\"\\\\u0000\"]",                                    /* an escaped backslash, then text */
	};
	struct pt_err err = PT_ERR_INIT;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		CHECK(json_parse(bad[i].text, strlen(bad[i].text), "s.json", &err) == NULL);
		CHECK_STREQ(err.msg, bad[i].msg);
		CHECK_INTEQ(err.status, PT_EXIT_DATA);
	}
	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		struct json *j = json_parse(good[i], strlen(good[i]), "s.json", &err);

		CHECK(j != NULL);
		json_free(j);
	}
}

/* json_first/json_next visit every element and member once, in order. */
static void
test_walk(void)
{
	const char *text = "{\"a\": 1, \"b\": [10, 20, 30], \"c\": {}}";
	struct pt_err err = PT_ERR_INIT;
	struct json *root = json_parse(text, strlen(text), "w.json", &err);
	const struct json *e;
	const char *key = NULL;
	struct buf seen = BUF_INIT;
	long long v;

	for (e = json_first(root, &key); e; e = json_next(e, &key))
		buf_adds(&seen, key);
	CHECK_STREQ(seen.data, "abc");
	buf_reset(&seen);
	for (e = json_first(json_get(root, "b"), NULL); e; e = json_next(e, NULL))
		if (json_int_value(e, &v) == 0)
			buf_addf(&seen, "%lld,", v);
	CHECK_STREQ(seen.data, "10,20,30,");
	CHECK(json_first(json_get(root, "c"), NULL) == NULL);
	CHECK(json_first(json_get(root, "a"), NULL) == NULL);
	CHECK(json_next(NULL, NULL) == NULL);
	buf_release(&seen);
	json_free(root);
}

/* Bytes that are not well-formed UTF-8 come out as U+FFFD, one per byte;
 * C1 and bidirectional controls as \uXXXX. */
static void
test_utf8(void)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"" },
		{ "a\xffz", "\"a\xef\xbf\xbdz\"" },                       /* never valid */
		{ "\xc0\xaf", "\"\xef\xbf\xbd\xef\xbf\xbd\"" },            /* overlong '/' */
		{ "\xe0\x80\xaf", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"" }, /* overlong, 3 bytes */
		{ "\xed\xa0\x80", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"" }, /* surrogate U+D800 */
		{ "\xf4\x90\x80\x80", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"" },
		{ "\x80x", "\"\xef\xbf\xbdx\"" },                         /* lone continuation */
		{ "\xe2\x82", "\"\xef\xbf\xbd\xef\xbf\xbd\"" },              /* cut at the end */
		/* C1 and bidi controls are valid UTF-8, written escaped for terminals */
		{ "\xc2\x9b" "2J", "\"\\u009b2J\"" },
		{ "a\xe2\x80\xae" "b\xe2\x81\xa9", "\"a\\u202eb\\u2069\"" },
		{ "\xe2\x80\xaf", "\"\xe2\x80\xaf\"" },                         /* U+202F is text */
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct json *a = json_new_array();
		struct buf b = BUF_INIT;

		json_push_str(a, cases[i].in);
		json_write_compact(a, &b);
		CHECK(b.len == strlen(cases[i].out) + 2);
		CHECK(b.len >= 2 && memcmp(b.data + 1, cases[i].out, b.len - 2) == 0);
		buf_release(&b);
		json_free(a);
	}
	{
		struct json *o = json_new_object();
		struct buf b = BUF_INIT;

		json_add_int(o, "k\xff", 1);
		json_write_compact(o, &b);
		CHECK_STREQ(b.data, "{\"k\xef\xbf\xbd\": 1}");
		buf_release(&b);
		json_free(o);
	}
}

/* A parsed value copied into another tree, and a parsed tree taken whole. */
static void
test_copy_take(void)
{
	const char doc[] = "{\"id\": \"a\", \"n\": [1, {\"k\": null}]}";
	struct json *src = json_parse(doc, strlen(doc), "doc", NULL);
	struct json *dst = json_new_object(), *arr;
	struct buf b = BUF_INIT;

	CHECK(src != NULL);
	json_add_copy(dst, "id", json_get(src, "id"));
	arr = json_add_array(dst, "list");
	json_push_copy(arr, json_get(src, "n"));
	json_add_take(dst, "whole", src);     /* dst owns src from here */
	json_write_compact(dst, &b);
	CHECK_STREQ(b.data, "{\"id\": \"a\", \"list\": [[1, {\"k\": null}]], "
		    "\"whole\": {\"id\": \"a\", \"n\": [1, {\"k\": null}]}}");
	buf_release(&b);
	json_free(dst);
}

/*
 * Numbers as snprintf would write them: whole doubles below 10^15 and
 * integers take a path of their own, everything else %1.15g or %1.17g.
 */
static void
test_numbers(void)
{
	static const double nums[] = {
		0, -0.0, 1, -1, 7, 10, 99, 100, 118, 0.95, 0.984, 2.5, -2.5, 1e-05, 123456789012345.0,
		-123456789012345.0, 999999999999999.0, 1e15, -1e15, 1e16, 9007199254740993.0, 1e300,
		0.1, 1.0 / 3, 70.51, 93323264,
	};
	static const long long ints[] = {
		0, 1, -1, 9, 10, -10, 59768832, 9007199254740993LL, LLONG_MAX, LLONG_MIN,
	};
	char want[64], *end;

	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		struct json *o = json_new_object();
		struct buf b = BUF_INIT, w = BUF_INIT;

		json_add_num(o, "n", nums[i]);
		json_write_compact(o, &b);
		snprintf(want, sizeof(want), "%1.15g", nums[i]);
		if (strtod(want, &end) != nums[i])
			snprintf(want, sizeof(want), "%1.17g", nums[i]);
		buf_addf(&w, "{\"n\": %s}", want);
		CHECK_STREQ(b.data, w.data);
		json_free(o);
		buf_release(&b);
		buf_release(&w);
	}
	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
		struct json *o = json_new_object();
		struct buf b = BUF_INIT, w = BUF_INIT;

		json_add_int(o, "n", ints[i]);
		json_write_compact(o, &b);
		buf_addf(&w, "{\"n\": %lld}", ints[i]);
		CHECK_STREQ(b.data, w.data);
		json_free(o);
		buf_release(&b);
		buf_release(&w);
	}
}

/*
 * Strings are scanned 16 bytes at a time for what needs escaping: each
 * such byte at every place of strings up to 40 bytes long must come back
 * from the strict reader as it went in, a control byte written escaped.
 */
static void
test_escape_places(void)
{
	static const char *const special[] = { "\"", "\\", "\n", "\x01", "\xc3\xa9", "\x7f" };
	struct pt_err err = PT_ERR_INIT;
	size_t bad = 0, unescaped = 0;

	for (size_t len = 1; len <= 40; len++)
		for (size_t at = 0; at < len; at++)
			for (size_t k = 0; k < sizeof(special) / sizeof(special[0]); k++) {
				struct json *o = json_new_object(), *back;
				struct buf text = BUF_INIT, out = BUF_INIT;
				const char *got = NULL;

				for (size_t i = 0; i < len; i++)
					buf_adds(&text, i == at ? special[k] : "a");
				json_add_str(o, "s", text.data);
				json_write_compact(o, &out);
				back = json_parse(out.data, out.len, "t.json", &err);
				if (!back || json_str_value(json_get(back, "s"), &got) < 0 ||
				    strcmp(got, text.data) != 0)
					bad++;
				/* a control byte never goes out raw */
				if ((k == 2 || k == 3) && strstr(out.data, special[k]))
					unescaped++;
				json_free(back);
				json_free(o);
				buf_release(&text);
				buf_release(&out);
			}
	CHECK_INTEQ(bad, 0);
	CHECK_INTEQ(unescaped, 0);
}

/*
 * A document built in an arena writes what the same calls write without
 * one; a tree made before the arena (taken into the arena's, and freed by
 * free() inside it) and a string larger than a block survive, and parsing
 * works there too. ASan and valgrind (make check) see the blocks' frees.
 */
static void
test_arena(void)
{
	static const char doc[] = "{\"p\": [1, \"two\"]}";
	size_t big_len = 200 * 1024;
	char *big = xmalloc(big_len + 1);
	struct buf plain = BUF_INIT, in_arena = BUF_INIT;
	struct pt_err err = PT_ERR_INIT;

	memset(big, 'x', big_len);
	big[big_len] = '\0';
	for (int pass = 0; pass < 2; pass++) {
		struct json *before = json_new_object(), *root, *a, *parsed;
		struct buf *out = pass ? &in_arena : &plain;

		json_add_str(before, "made", "before");
		if (pass)
			json_arena_begin();
		root = json_new_object();
		json_add_take(root, "before", before);
		for (int i = 0; i < 2000; i++) {
			char key[16];

			snprintf(key, sizeof(key), "k%d", i);
			a = json_add_array(root, key);
			json_push_int(a, i);
			json_push_str(a, "some text");
		}
		json_add_str(root, "big", big);
		parsed = json_parse(doc, strlen(doc), "t.json", &err);
		CHECK(parsed != NULL);
		json_add_take(root, "parsed", parsed);
		json_write_compact(root, out);
		json_free(root);
		if (pass)
			json_arena_end();
	}
	CHECK(plain.len > big_len);
	CHECK_STREQ(in_arena.data, plain.data);
	buf_release(&plain);
	buf_release(&in_arena);
	free(big);
}

/*
 * A key added twice is a bug. Only make check's builds (PT_SELF_CHECKS)
 * compare keys, so only there does the child die of the abort.
 */
static void
test_duplicate_key(void)
{
#ifdef PT_SELF_CHECKS
	int status = 0;
	pid_t pid = fork();

	if (pid == 0) {
		struct json *o = json_new_object();

		if (!freopen("/dev/null", "w", stderr))
			_exit(2);
		json_add_int(o, "k", 1);
		json_add_int(o, "k", 2);
		_exit(0);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
#endif
}

int
main(void)
{
	test_build();
	test_duplicate_key();
	test_escape_places();
	test_arena();
	test_numbers();
	test_copy_take();
	test_typed();
	test_utf8();
	test_read();
	test_strict();
	test_walk();
	return TEST_DONE();
}
