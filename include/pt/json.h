/* SPDX-License-Identifier: MIT */
/*
 * JSON output (and a little input) for every --json in pallas-triage: a thin
 * wrapper over cJSON, so that <cjson/cJSON.h> is included by src/json.c
 * only and no other file has to know cJSON's ownership rules.
 *
 * Building. A document is a tree of `struct json` values. Make the root with
 * json_new_object() or json_new_array(); everything added below it belongs
 * to the root, and one json_free(root) frees the whole tree. The json_add_*
 * functions append a member to an object, the json_push_* functions append
 * an element to an array. Members keep their insertion order, and printing
 * writes them in that order, so output is deterministic and diffs cleanly.
 * Adding the same key twice is a bug: keys are fixed in code. make check's
 * builds (PT_SELF_CHECKS) stop at it (PT_BUG); others do not compare keys.
 *
 *	struct json *root = json_new_object();
 *	struct json *dims;
 *
 *	json_add_str(root, "chip", "v6e");
 *	json_add_bool(root, "legal", true);
 *	dims = json_add_array(root, "block");
 *	json_push_int(dims, 256);
 *	json_push_int(dims, 512);
 *	if (json_print(root, stdout) < 0) ... write error ...
 *	json_free(root);
 *
 * prints
 *
 *	{
 *	  "chip": "v6e",
 *	  "legal": true,
 *	  "block": [256, 512]
 *	}
 *
 * Numbers. json_add_int/json_push_int write the exact decimal value of a
 * long long (byte counts above 2^53 stay exact); json_add_num writes a double
 * with up to 17 significant digits (NaN and infinities become null). Strings
 * are copied and may hold any bytes except NUL; control characters, quotes
 * and backslashes are escaped, and each byte that is not part of well-formed
 * UTF-8 is written as U+FFFD, so every document is valid UTF-8 (keys too).
 *
 * Out of memory ends the run (PT_EXIT_SYSTEM), as everywhere in the tool, so
 * no builder function can fail.
 *
 * Reading. json_parse() reads a document (for session files and tests) and
 * json_get()/json_at() and the json_*_value() accessors walk it. Values
 * returned by the readers are borrowed from the tree and stay valid until
 * json_free() of its root.
 */
#ifndef PT_JSON_H
#define PT_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "pt/buf.h"
#include "pt/diag.h"

struct json;

enum json_kind {
	JSON_NULL,
	JSON_BOOL,
	JSON_NUMBER,
	JSON_STRING,
	JSON_ARRAY,
	JSON_OBJECT,
};

/* Returns a new empty object or array; free with json_free(). */
struct json *json_new_object(void);
struct json *json_new_array(void);
/* Frees j and everything below it. j must be a root (not added to a parent). NULL is fine. */
void json_free(struct json *j);

/*
 * An arena for the calling thread: until json_arena_end(), the nodes and
 * strings of the trees it builds or reads come from a few large blocks, and
 * json_free() of them costs no free(). json_arena_end() gives the blocks
 * back, so every tree made in the arena must be freed, or never used again,
 * before it. Arenas do not nest. For a caller that builds, writes and drops
 * one document after another (`scan --jsonl`).
 */
void json_arena_begin(void);
void json_arena_end(void);

/* Object members. `key` and string values are copied; a NULL `val` writes null. */
void json_add_str(struct json *obj, const char *key, const char *val);
void json_add_int(struct json *obj, const char *key, long long val);
void json_add_num(struct json *obj, const char *key, double val);
void json_add_bool(struct json *obj, const char *key, bool val);
void json_add_null(struct json *obj, const char *key);
/*
 * A value that is text elsewhere (a captured or derived value): a JSON
 * number when val is one by JSON's grammar (written as val, digit for
 * digit), a boolean for "true"/"yes" and "false"/"no", else a string.
 */
void json_add_typed(struct json *obj, const char *key, const char *val);
/* Add a deep copy of val (borrowed; any kind of value, of another tree) as member key; returns the copy (owned by obj). */
struct json *json_add_copy(struct json *obj, const char *key, const struct json *val);
/* Add an empty object/array member; returns a borrowed pointer to it (owned by obj). */
struct json *json_add_object(struct json *obj, const char *key);
struct json *json_add_array(struct json *obj, const char *key);

/* Takes ownership of val, a root (from json_new_*() or json_parse()), as member key. */
void json_add_take(struct json *obj, const char *key, struct json *val);

/* Array elements, same rules as the object members. */
void json_push_str(struct json *arr, const char *val);
void json_push_int(struct json *arr, long long val);
void json_push_num(struct json *arr, double val);
void json_push_bool(struct json *arr, bool val);
void json_push_null(struct json *arr);
struct json *json_push_object(struct json *arr);
struct json *json_push_array(struct json *arr);
void json_push_copy(struct json *arr, const struct json *val);

/*
 * Write j to out as UTF-8 JSON text followed by a newline, indented
 * by two spaces per level. Arrays whose elements are all scalars are written
 * on one line ("[256, 512]"); empty containers are "{}" and "[]".
 * json_print() returns 0, or -1 when writing to fp failed (check ferror).
 */
int json_print(const struct json *j, FILE *fp);
void json_write(const struct json *j, struct buf *out);
/* The same text on one line, without the final newline (for JSON Lines). */
void json_write_compact(const struct json *j, struct buf *out);

/*
 * Parse buf[0..len) as one JSON document. Returns a new tree (free with
 * json_free()), or NULL with err set (PT_EXIT_DATA) naming `name` and the
 * byte offset where parsing stopped. Stricter than RFC 8259 requires: an
 * object with a key twice and a string holding \u0000 are refused too
 * (the first would read differently elsewhere, the second be cut short).
 * Linear in the size of the document.
 */
struct json *json_parse(const char *buf, size_t len, const char *name, struct pt_err *err);

enum json_kind json_kind(const struct json *j);
/* The member `key` of an object, or NULL (also when obj is NULL or not an object). */
const struct json *json_get(const struct json *obj, const char *key);
/*
 * Number of elements of an array or members of an object; 0 for anything
 * else. It counts them: call it once, not in a loop condition.
 */
size_t json_len(const struct json *j);
/*
 * The first element of an array or member of an object, or NULL (also for
 * anything else); json_next() the one after e, or NULL after the last. The
 * member's key goes to *key when key != NULL. Walk a container with these:
 * a walk is linear in its length.
 */
const struct json *json_first(const struct json *j, const char **key);
const struct json *json_next(const struct json *e, const char **key);
/* Element i of an array or member i of an object (key in *key if key != NULL), or
 * NULL. It walks from the first each time: for one look-up, not for a loop. */
const struct json *json_at(const struct json *j, size_t i, const char **key);
/* Typed reads: return 0 and set *out, or -1 when j is NULL or of another kind. */
int json_str_value(const struct json *j, const char **out);
int json_num_value(const struct json *j, double *out);
/* Fails also when the number is not an integer or does not fit a long long. */
int json_int_value(const struct json *j, long long *out);
int json_bool_value(const struct json *j, bool *out);

#endif
