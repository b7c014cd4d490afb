/* SPDX-License-Identifier: MIT */
/*
 * The cJSON wrapper behind pt/json.h; the only file that includes cJSON.
 *
 * cJSON rules kept here:
 *  - a `struct json *` is a `cJSON *` in disguise; the cast happens only in
 *    this file (J() and C() below);
 *  - after a successful cJSON_AddItemTo{Object,Array} the parent owns the
 *    item; if the call fails the item is still ours and is deleted;
 *  - a NULL from any cJSON_Create* is out of memory and ends the run;
 *  - parsing uses cJSON_ParseWithLengthOpts with an end pointer, never the
 *    global cJSON_GetErrorPtr;
 *  - exact integers are stored as cJSON "raw" items holding their decimal
 *    text, because cJSON numbers are doubles.
 * Printing is our own walker, for two-space indentation and one-line scalar
 * arrays; cJSON's printer uses tabs.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "pt/json.h"
#include "pt/keyset.h"
#include "pt/term.h"
#include "pt/xalloc.h"

#define J(c) ((struct json *)(c))
#define C(j) ((cJSON *)(j))
#define CC(j) ((const cJSON *)(j))

/*
 * The arenas (pt/json.h). cJSON allocates through hooks, set before main
 * while no other thread runs; outside an arena they are malloc() and free().
 * A pointer is the arena's when it lies in one of the thread's blocks: a
 * tree made before json_arena_begin() is still freed by free().
 */
struct arena_block {
	struct arena_block *next;
	size_t used, size;
	max_align_t data[];
};

#define ARENA_BLOCK ((size_t)64 * 1024)

static _Thread_local bool arena_on;
static _Thread_local struct arena_block *arena;   /* the newest block first */

static bool
in_arena(const void *p)
{
	for (const struct arena_block *b = arena; b; b = b->next)
		if ((const char *)p >= (const char *)b->data &&
		    (const char *)p < (const char *)b->data + b->size)
			return true;
	return false;
}

static void *
hook_malloc(size_t n)
{
	void *p;

	if (!arena_on)
		return malloc(n);
	n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
	if (!arena || arena->size - arena->used < n) {
		size_t size = n > ARENA_BLOCK ? n : ARENA_BLOCK;
		struct arena_block *b = malloc(sizeof(*b) + size);

		if (!b)
			return NULL;    /* cJSON's NULL: checked() ends the run */
		b->next = arena;
		b->used = 0;
		b->size = size;
		arena = b;
	}
	p = (char *)arena->data + arena->used;
	arena->used += n;
	return p;
}

static void
hook_free(void *p)
{
	if (!arena_on || !in_arena(p))
		free(p);
}

__attribute__((constructor)) static void
install_hooks(void)
{
	cJSON_Hooks hooks = { hook_malloc, hook_free };

	cJSON_InitHooks(&hooks);
}

void
json_arena_begin(void)
{
	if (arena_on)
		PT_BUG("json_arena_begin() inside an arena");
	arena_on = true;
}

void
json_arena_end(void)
{
	while (arena) {
		struct arena_block *next = arena->next;

		free(arena);
		arena = next;
	}
	arena_on = false;
}

static cJSON *
checked(cJSON *item)
{
	if (!item)
		pt_die(PT_EXIT_SYSTEM, "out of memory");
	return item;
}

struct json *
json_new_object(void)
{
	return J(checked(cJSON_CreateObject()));
}

struct json *
json_new_array(void)
{
	return J(checked(cJSON_CreateArray()));
}

void
json_free(struct json *j)
{
	cJSON_Delete(C(j));
}

static cJSON *
add(struct json *obj, const char *key, cJSON *item)
{
	checked(item);
	if (!cJSON_IsObject(C(obj)))
		PT_BUG("json_add_* on a value that is not an object");
#ifdef PT_SELF_CHECKS
	/* n^2 compares per object, a tenth of `scan`'s time: only in make
	 * check's builds, whose suites run every writer */
	if (cJSON_GetObjectItemCaseSensitive(C(obj), key))
		PT_BUG("json_add_* with a key that is already there");
#endif
	if (!cJSON_AddItemToObject(C(obj), key, item)) {
		cJSON_Delete(item);
		pt_die(PT_EXIT_SYSTEM, "out of memory");
	}
	return item;
}

static cJSON *
push(struct json *arr, cJSON *item)
{
	checked(item);
	if (!cJSON_IsArray(C(arr)))
		PT_BUG("json_push_* on a value that is not an array");
	if (!cJSON_AddItemToArray(C(arr), item)) {
		cJSON_Delete(item);
		pt_die(PT_EXIT_SYSTEM, "out of memory");
	}
	return item;
}

/* v in decimal into num (at least 21 bytes); returns its length. What
 * snprintf's %lld gives, without its cost on every number of every line
 * `scan` writes. */
static size_t
format_integer(char *num, long long v)
{
	char tmp[24];
	unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
	size_t n = 0, len = 0;

	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		num[len++] = '-';
	while (n)
		num[len++] = tmp[--n];
	num[len] = '\0';
	return len;
}

static cJSON *
make_int(long long v)
{
	char num[32];

	format_integer(num, v);
	return cJSON_CreateRaw(num);
}

static cJSON *
make_num(double v)
{
	if (isnan(v) || isinf(v))
		return cJSON_CreateNull();
	return cJSON_CreateNumber(v);
}

/* Is s a number by JSON's grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool
is_json_number(const char *s)
{
	const char *p = s + (*s == '-');

	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		p += strspn(p, "0123456789");
	else
		return false;
	if (*p == '.') {
		size_t n = strspn(p + 1, "0123456789");

		if (!n)
			return false;
		p += 1 + n;
	}
	if (*p == 'e' || *p == 'E') {
		size_t n;

		p += 1 + (p[1] == '+' || p[1] == '-');
		if (!(n = strspn(p, "0123456789")))
			return false;
		p += n;
	}
	return *p == '\0';
}

void
json_add_typed(struct json *o, const char *k, const char *v)
{
	/* the number is written as the text it was, digit for digit: a value
	 * read from a log ("0.0078125", "1e-05") is not rounded through a double */
	if (v && strlen(v) <= 64 && is_json_number(v))
		add(o, k, cJSON_CreateRaw(v));
	/* the calculators' flags say yes and no (docs/calculators.md) */
	else if (v && (strcmp(v, "true") == 0 || strcmp(v, "yes") == 0))
		add(o, k, cJSON_CreateBool(true));
	else if (v && (strcmp(v, "false") == 0 || strcmp(v, "no") == 0))
		add(o, k, cJSON_CreateBool(false));
	else
		json_add_str(o, k, v);
}

void json_add_str(struct json *o, const char *k, const char *v)
{
	add(o, k, v ? cJSON_CreateString(v) : cJSON_CreateNull());
}
void json_add_int(struct json *o, const char *k, long long v) { add(o, k, make_int(v)); }
void json_add_num(struct json *o, const char *k, double v) { add(o, k, make_num(v)); }
void json_add_bool(struct json *o, const char *k, bool v) { add(o, k, cJSON_CreateBool(v)); }
void json_add_null(struct json *o, const char *k) { add(o, k, cJSON_CreateNull()); }
struct json *
json_add_copy(struct json *o, const char *k, const struct json *v)
{
	/* one deep copy: adding member by member checks each key against the
	 * ones before it, which made a large object quadratic */
	return J(add(o, k, cJSON_Duplicate(CC(v), true)));
}

struct json *json_add_object(struct json *o, const char *k) { return J(add(o, k, cJSON_CreateObject())); }
struct json *json_add_array(struct json *o, const char *k) { return J(add(o, k, cJSON_CreateArray())); }

void
json_add_take(struct json *o, const char *k, struct json *v)
{
	add(o, k, C(v));
}

void
json_push_copy(struct json *a, const struct json *v)
{
	push(a, cJSON_Duplicate(CC(v), 1));
}

void json_push_str(struct json *a, const char *v)
{
	push(a, v ? cJSON_CreateString(v) : cJSON_CreateNull());
}
void json_push_int(struct json *a, long long v) { push(a, make_int(v)); }
void json_push_num(struct json *a, double v) { push(a, make_num(v)); }
void json_push_bool(struct json *a, bool v) { push(a, cJSON_CreateBool(v)); }
void json_push_null(struct json *a) { push(a, cJSON_CreateNull()); }
struct json *json_push_object(struct json *a) { return J(push(a, cJSON_CreateObject())); }
struct json *json_push_array(struct json *a) { return J(push(a, cJSON_CreateArray())); }

/* ---- printing ---- */

/*
 * Length of the well-formed UTF-8 sequence at p (RFC 3629: no overlong
 * forms, no surrogates, nothing past U+10FFFF), or 0. Reads no further than
 * a NUL: every byte is checked before the next is looked at.
 */
static size_t
utf8_len(const unsigned char *p)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (p[0] == 0xe0)
		lo = 0xa0;
	else if (p[0] == 0xed)
		hi = 0x9f;
	else if (p[0] == 0xf0)
		lo = 0x90;
	else if (p[0] == 0xf4)
		hi = 0x8f;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t k = 2; k < n; k++)
		if ((p[k] & 0xc0) != 0x80)
			return 0;
	return n;
}

typedef unsigned char byte16 __attribute__((vector_size(16)));

/* Past the bytes at p that are printable ASCII but a quote or a backslash,
 * 16 at a time (GCC vector extension, as in window.c), up to the block that
 * holds another byte or the last few bytes: the caller goes on byte-wise. */
static const unsigned char *
plain_run(const unsigned char *p, const unsigned char *end)
{
	while (end - p >= 16) {
		byte16 v, bad;
		uint64_t a, b;

		memcpy(&v, p, 16);
		bad = (byte16)(v < 0x20) | (byte16)(v >= 0x80) | (byte16)(v == '"') |
		      (byte16)(v == '\\');
		memcpy(&a, &bad, 8);
		memcpy(&b, (char *)&bad + 8, 8);
		if (a | b)
			break;
		p += 16;
	}
	return p;
}

/*
 * Strings come from logs, file names and servers: bytes that are not UTF-8
 * become U+FFFD, one per byte, so that every document we write is valid
 * UTF-8 (RFC 8259 8.1) and strict decoders read it.
 */
static void
write_string(struct buf *out, const char *s)
{
	const unsigned char *end = (const unsigned char *)s + strlen(s);

	buf_addch(out, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		const unsigned char *run = p;

		/* printable ASCII but the quote and the backslash, in one append:
		 * scan's JSON lines are most of its output */
		p = plain_run(p, end);
		while (*p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\')
			p++;
		if (p > run)
			buf_add(out, run, (size_t)(p - run));
		if (!*p)
			break;
		if (*p >= 0x80) {
			size_t n = utf8_len(p);
			unsigned long cp;

			if (n == 0) {
				buf_adds(out, "\xef\xbf\xbd");
			} else if (term_utf8_is_control(p, n, &cp)) {
				/* valid JSON text, but a terminal showing the file
				 * acts on it: as \uXXXX a decoder reads the same */
				buf_addf(out, "\\u%04lx", cp);
				p += n - 1;
			} else {
				buf_add(out, p, n);
				p += n - 1;
			}
			continue;
		}
		switch (*p) {
		case '"': buf_adds(out, "\\\""); break;
		case '\\': buf_adds(out, "\\\\"); break;
		case '\b': buf_adds(out, "\\b"); break;
		case '\f': buf_adds(out, "\\f"); break;
		case '\n': buf_adds(out, "\\n"); break;
		case '\r': buf_adds(out, "\\r"); break;
		case '\t': buf_adds(out, "\\t"); break;
		default:
			if (*p < 0x20)
				buf_addf(out, "\\u%04x", *p);
			else
				buf_addch(out, *p);
		}
	}
	buf_addch(out, '"');
}

/* A whole number below 10^15, which %1.15g prints digit for digit (-0 aside):
 * most numbers of a document are (scores of 0, line numbers). NaN is not. */
static bool
small_whole(double d)
{
	return d > -1e15 && d < 1e15 && d == (double)(long long)d && !(d == 0 && signbit(d));
}

/* Shortest of %.15g and %.17g that reads back as the same double (cJSON's way). */
static void
write_double(struct buf *out, double d)
{
	char num[64];
	char *end;

	if (small_whole(d)) {
		buf_add(out, num, format_integer(num, (long long)d));
		return;
	}
	snprintf(num, sizeof(num), "%1.15g", d);
	if (strtod(num, &end) != d)
		snprintf(num, sizeof(num), "%1.17g", d);
	buf_adds(out, num);
}

static bool
is_container(const cJSON *c)
{
	return cJSON_IsArray(c) || cJSON_IsObject(c);
}

static void
write_scalar(struct buf *out, const cJSON *c)
{
	if (cJSON_IsString(c))
		write_string(out, c->valuestring);
	else if (cJSON_IsRaw(c))
		buf_adds(out, c->valuestring);
	else if (cJSON_IsNumber(c))
		write_double(out, c->valuedouble);
	else if (cJSON_IsTrue(c))
		buf_adds(out, "true");
	else if (cJSON_IsFalse(c))
		buf_adds(out, "false");
	else
		buf_adds(out, "null");
}

static void
indent(struct buf *out, int depth)
{
	for (int i = 0; i < depth; i++)
		buf_adds(out, "  ");
}

/* depth < 0: compact output on one line. */
static void
write_value(struct buf *out, const cJSON *c, int depth)
{
	bool obj = cJSON_IsObject(c), flat = depth < 0;

	if (!is_container(c)) {
		write_scalar(out, c);
		return;
	}
	if (!c->child) {
		buf_adds(out, obj ? "{}" : "[]");
		return;
	}
	if (!obj && !flat) {
		flat = true;
		for (const cJSON *e = c->child; e; e = e->next)
			if (is_container(e))
				flat = false;
	}
	buf_addch(out, obj ? '{' : '[');
	for (const cJSON *e = c->child; e; e = e->next) {
		if (!flat) {
			buf_addch(out, '\n');
			indent(out, depth + 1);
		}
		if (obj) {
			write_string(out, e->string);
			buf_adds(out, ": ");
		}
		write_value(out, e, depth < 0 ? -1 : depth + 1);
		if (e->next)
			buf_adds(out, flat ? ", " : ",");
	}
	if (!flat) {
		buf_addch(out, '\n');
		indent(out, depth);
	}
	buf_addch(out, obj ? '}' : ']');
}

void
json_write(const struct json *j, struct buf *out)
{
	write_value(out, CC(j), 0);
	buf_addch(out, '\n');
}

void
json_write_compact(const struct json *j, struct buf *out)
{
	write_value(out, CC(j), -1);
}

int
json_print(const struct json *j, FILE *fp)
{
	struct buf b = BUF_INIT;
	int ret = 0;

	json_write(j, &b);
	if (fwrite(b.data, 1, b.len, fp) != b.len)
		ret = -1;
	buf_release(&b);
	return ret;
}

/* ---- reading ---- */

/*
 * cJSON decodes "\u0000" into a NUL that ends the string: what follows it
 * would be dropped without a word. In valid JSON a backslash only occurs
 * inside a string, so a scan of escapes finds every such NUL. Returns the
 * offset of the first, or len when there is none.
 */
static size_t
find_nul_escape(const char *buf, size_t len)
{
	for (size_t i = 0; i + 1 < len; i++) {
		if (buf[i] != '\\')
			continue;
		if (buf[i + 1] == 'u' && len - i >= 6 && memcmp(buf + i + 2, "0000", 4) == 0)
			return i;
		i++;
	}
	return len;
}

/*
 * cJSON keeps both members of a duplicate key and json_get() sees the
 * first, so a file could say one thing to us and another to a reader that
 * takes the last (RFC 8259 4 leaves it open). Refuse them, naming where:
 * path holds the place of c ("attempts[2]"). Linear in the members: each
 * object's keys go into a hash set.
 */
static int
check_keys(const cJSON *c, struct buf *path, const char *name, struct pt_err *err)
{
	size_t at = path->len, i = 0;
	struct keyset ks = KEYSET_INIT;

	if (!is_container(c))
		return 0;
	for (const cJSON *e = c->child; cJSON_IsObject(c) && e; e = e->next)
		if (!keyset_add(&ks, e->string, strlen(e->string), 0, NULL)) {
			pt_err_set(err, PT_EXIT_DATA, "%s: duplicate key '%s' in %s%s%s", name,
				   e->string, path->len ? "'" : "the top object", path->data,
				   path->len ? "'" : "");
			keyset_release(&ks);
			return -1;
		}
	keyset_release(&ks);
	for (const cJSON *e = c->child; e; e = e->next, i++) {
		if (!is_container(e))
			continue;
		if (cJSON_IsObject(c))
			buf_addf(path, "%s%s", path->len ? "." : "", e->string);
		else
			buf_addf(path, "[%zu]", i);
		if (check_keys(e, path, name, err) < 0)
			return -1;
		buf_truncate(path, at);
	}
	return 0;
}

static int
json_check_strict(const char *buf, size_t len, const struct json *root, const char *name,
		  struct pt_err *err)
{
	struct buf path = BUF_INIT;
	size_t nul = find_nul_escape(buf, len);
	int ret;

	if (nul < len)
		return pt_err_set(err, PT_EXIT_DATA, "%s: a string holds \\u0000 at byte %zu; a NUL "
				  "would cut it short", name, nul);
	ret = check_keys(CC(root), &path, name, err);
	buf_release(&path);
	return ret;
}

struct json *
json_parse(const char *buf, size_t len, const char *name, struct pt_err *err)
{
	const char *end = NULL;
	cJSON *root = cJSON_ParseWithLengthOpts(buf, len, &end, 0);

	if (!root) {
		size_t off = end && end >= buf && end <= buf + len ? (size_t)(end - buf) : 0;

		pt_err_set(err, PT_EXIT_DATA, "%s: invalid JSON near byte %zu", name, off);
		return NULL;
	}
	/* anything but white space after the document is an error too */
	while (end && end < buf + len && *end && strchr(" \t\r\n", *end))
		end++;
	if (end && end < buf + len) {
		pt_err_set(err, PT_EXIT_DATA, "%s: unexpected data after the JSON document at byte %zu",
			   name, (size_t)(end - buf));
		cJSON_Delete(root);
		return NULL;
	}
	if (json_check_strict(buf, len, J(root), name, err) < 0) {
		cJSON_Delete(root);
		return NULL;
	}
	return J(root);
}

enum json_kind
json_kind(const struct json *j)
{
	const cJSON *c = CC(j);

	if (cJSON_IsBool(c))
		return JSON_BOOL;
	if (cJSON_IsNumber(c) || cJSON_IsRaw(c))
		return JSON_NUMBER;
	if (cJSON_IsString(c))
		return JSON_STRING;
	if (cJSON_IsArray(c))
		return JSON_ARRAY;
	if (cJSON_IsObject(c))
		return JSON_OBJECT;
	return JSON_NULL;
}

const struct json *
json_get(const struct json *obj, const char *key)
{
	if (!cJSON_IsObject(CC(obj)))
		return NULL;
	return J(cJSON_GetObjectItemCaseSensitive(CC(obj), key));
}

size_t
json_len(const struct json *j)
{
	size_t n = 0;

	if (!is_container(CC(j)))
		return 0;
	for (const cJSON *e = CC(j)->child; e; e = e->next)
		n++;
	return n;
}

const struct json *
json_first(const struct json *j, const char **key)
{
	const cJSON *e = is_container(CC(j)) ? CC(j)->child : NULL;

	if (e && key)
		*key = e->string;
	return J(e);
}

const struct json *
json_next(const struct json *e, const char **key)
{
	const cJSON *n = e ? CC(e)->next : NULL;

	if (n && key)
		*key = n->string;
	return J(n);
}

const struct json *
json_at(const struct json *j, size_t i, const char **key)
{
	if (!is_container(CC(j)))
		return NULL;
	for (const cJSON *e = CC(j)->child; e; e = e->next, i--)
		if (i == 0) {
			if (key)
				*key = e->string;
			return J(e);
		}
	return NULL;
}

int
json_str_value(const struct json *j, const char **out)
{
	if (!cJSON_IsString(CC(j)))
		return -1;
	*out = CC(j)->valuestring;
	return 0;
}

int
json_num_value(const struct json *j, double *out)
{
	if (cJSON_IsRaw(CC(j))) {
		*out = strtod(CC(j)->valuestring, NULL);
		return 0;
	}
	if (!cJSON_IsNumber(CC(j)))
		return -1;
	*out = CC(j)->valuedouble;
	return 0;
}

int
json_int_value(const struct json *j, long long *out)
{
	double d;

	if (cJSON_IsRaw(CC(j))) {
		char *end;
		long long v;

		errno = 0;
		v = strtoll(CC(j)->valuestring, &end, 10);
		if (errno || *end)
			return -1;
		*out = v;
		return 0;
	}
	/* range first: converting an out-of-range double is undefined */
	if (json_num_value(j, &d) < 0 || !(d >= -9.2233720368547758e18 && d < 9.2233720368547758e18) ||
	    d != (double)(long long)d)
		return -1;
	*out = (long long)d;
	return 0;
}

int
json_bool_value(const struct json *j, bool *out)
{
	if (!cJSON_IsBool(CC(j)))
		return -1;
	*out = cJSON_IsTrue(CC(j));
	return 0;
}
