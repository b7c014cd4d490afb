/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the Python tokenizer and parser (pt/pyast.h): the tree of
 * each statement form as an S-expression, positions, operator precedence,
 * recovery after a syntax error (the next statement still parses), and
 * hostile input: NUL bytes, invalid UTF-8, deep nesting, unterminated
 * strings and brackets, bad indentation give problems, never a crash;
 * a source that ends anywhere is read no further than its last byte.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pt/buf.h"
#include "pt/pyast.h"
#include "test.h"

static void dump(struct buf *b, const struct py_node *n, int depth);

static void
dump_list(struct buf *b, const struct py_list *l, int depth)
{
	for (size_t i = 0; i < l->n; i++) {
		buf_addch(b, ' ');
		dump(b, l->v[i], depth + 1);
	}
}

static const char *
opname(int op)
{
	static char s[8];

	switch (op) {
	case PYOP_EQ: return "==";
	case PYOP_NE: return "!=";
	case PYOP_LE: return "<=";
	case PYOP_GE: return ">=";
	case PYOP_POW: return "**";
	case PYOP_FLOORDIV: return "//";
	case PYOP_IN: return "in";
	case PYOP_NOTIN: return "notin";
	case PYOP_IS: return "is";
	case PYOP_ISNOT: return "isnot";
	case PYOP_LSHIFT: return "<<";
	case PYOP_RSHIFT: return ">>";
	case 0: return "";
	default:
		snprintf(s, sizeof(s), "%c", op);
		return s;
	}
}

/* (KIND[:s][/op] x y z [items] {more}) */
static void
dump(struct buf *b, const struct py_node *n, int depth)
{
	if (!n) {
		buf_adds(b, "_");
		return;
	}
	if (depth > 40) {
		buf_adds(b, "...");
		return;
	}
	buf_addf(b, "(%s", py_kind_name(n->kind));
	if (n->s)
		buf_addf(b, ":%s", n->s);
	if (n->s2)
		buf_addf(b, "~%s", n->s2);
	if (n->op)
		buf_addf(b, "/%s", opname(n->op));
	if (n->x || n->y || n->z) {
		buf_addch(b, ' ');
		dump(b, n->x, depth + 1);
	}
	if (n->y || n->z) {
		buf_addch(b, ' ');
		dump(b, n->y, depth + 1);
	}
	if (n->z) {
		buf_addch(b, ' ');
		dump(b, n->z, depth + 1);
	}
	if (n->items.n) {
		buf_adds(b, " [");
		dump_list(b, &n->items, depth);
		buf_adds(b, " ]");
	}
	if (n->more.n) {
		buf_adds(b, " {");
		dump_list(b, &n->more, depth);
		buf_adds(b, " }");
	}
	if (n->extra.n) {
		buf_adds(b, " <");
		dump_list(b, &n->extra, depth);
		buf_adds(b, " >");
	}
	buf_addch(b, ')');
}

/* The tree of src's first statement, and how many problems it had. */
static char *
tree(const char *src, size_t *problems)
{
	struct py_module *m = py_parse(src, strlen(src));
	struct buf b = BUF_INIT;

	if (m->root->items.n)
		dump(&b, m->root->items.v[0], 0);
	if (problems)
		*problems = m->total_problems;
	py_module_free(m);
	return buf_detach(&b, NULL);
}

static void
parses_as(const char *src, const char *want)
{
	size_t np = 0;
	char *got = tree(src, &np);

	CHECK_STREQ(got, want);
	CHECK_INTEQ(np, 0);
	free(got);
}

static void
test_expressions(void)
{
	parses_as("x = 1 + 2 * 3\n",
		  "(ASSIGN (BINOP/+ (INT:1) (BINOP/* (INT:2) (INT:3))) [ (NAME:x) ])");
	parses_as("a + 2 * 3\n", "(EXPR (BINOP/+ (NAME:a) (BINOP/* (INT:2) (INT:3))))");
	parses_as("-a ** 2\n", "(EXPR (UNARY/- (BINOP/** (NAME:a) (INT:2))))");
	parses_as("a // b % c\n", "(EXPR (BINOP/% (BINOP/// (NAME:a) (NAME:b)) (NAME:c)))");
	parses_as("pl.cdiv(m, bm)\n", "(EXPR (CALL (ATTR:cdiv (NAME:pl)) [ (NAME:m) (NAME:bm) ]))");
	parses_as("f(a, *b, k=1, **kw)\n",
		  "(EXPR (CALL (NAME:f) [ (NAME:a) (STARRED/* (NAME:b)) ] { (KEYWORD:k (INT:1)) (KEYWORD (NAME:kw)) }))");
	parses_as("x[0, :, ::2, ...]\n",
		  "(EXPR (SUBSCRIPT (NAME:x) (TUPLE [ (INT:0) (SLICE) (SLICE _ _ (INT:2)) (ELLIPSIS) ])))");
	parses_as("a < b <= c\n",
		  "(EXPR (BOOLOP/a [ (COMPARE/< (NAME:a) (NAME:b)) (COMPARE/<= (NAME:b) (NAME:c)) ]))");
	parses_as("a not in b and not c\n",
		  "(EXPR (BOOLOP/a [ (COMPARE/notin (NAME:a) (NAME:b)) (UNARY/n (NAME:c)) ]))");
	parses_as("x if c else y\n", "(EXPR (IFEXP (NAME:c) (NAME:x) (NAME:y)))");
	parses_as("lambda i, j, k=2: (i, k)\n",
		  "(EXPR (LAMBDA (TUPLE [ (NAME:i) (NAME:k) ]) { (PARAM:i) (PARAM:j) (PARAM:k (INT:2)) }))");
	parses_as("[x * 2 for x in xs if x]\n",
		  "(EXPR (COMP/[ (BINOP/* (NAME:x) (INT:2)) [ (FOR (NAME:x) (NAME:xs) { (NAME:x) }) ]))");
	parses_as("{'a': 1, **d}\n", "(EXPR (DICT [ (STR:a) _ ] { (INT:1) (NAME:d) }))");
	parses_as("(y := 3)\n", "(EXPR (NAMED (NAME:y) (INT:3)))");
	parses_as("'a' 'b' \"c\"\n", "(EXPR (STR:abc))");
	parses_as("b'\\x41\\n'\n", "(EXPR (STR:A\n/b))");
	parses_as("f'{x[\"k\"]} y'\n", "(EXPR (STR:{x[\"k\"]} y/f))");
	parses_as("0x10 + 1_000 + 1e3 + 2j\n",
		  "(EXPR (BINOP/+ (BINOP/+ (BINOP/+ (INT:0x10) (INT:1000)) (FLOAT:1e3)) (FLOAT:2j)))");
	parses_as("()\n", "(EXPR (TUPLE))");
	parses_as("(1,)\n", "(EXPR (TUPLE [ (INT:1) ]))");
	parses_as("f(x for x in y)\n",
		  "(EXPR (CALL (NAME:f) [ (COMP/( (NAME:x) [ (FOR (NAME:x) (NAME:y)) ]) ]))");
}

static void
test_values(void)
{
	struct py_module *m = py_parse("x = 0x10 + 99999999999999999999\n", 32);
	const struct py_node *e = m->root->items.v[0]->x;

	CHECK(e->kind == PY_BINOP);
	CHECK_INTEQ(e->x->ival, 16);
	CHECK(!e->x->big);
	CHECK(e->y->big);
	py_module_free(m);
}

static void
test_statements(void)
{
	parses_as("def f(a, b: int = 1, *args, c, **kw) -> int:\n    return a\n",
		  "(DEF:f (NAME:int) [ (RETURN (NAME:a)) ] { (PARAM:a) (PARAM:b (INT:1) (NAME:int)) "
		  "(PARAM:args/*) (PARAM:c/k) (PARAM:kw/d) })");
	parses_as("def f(a, /, b, *, c):\n    pass\n",
		  "(DEF:f [ (PASS) ] { (PARAM:a/p) (PARAM:b) (PARAM:c/k) })");
	parses_as("@functools.partial(pl.pallas_call, grid=(2,))\ndef k(x_ref):\n  pass\n",
		  "(DEF:k [ (PASS) ] { (PARAM:x_ref) } < (CALL (ATTR:partial (NAME:functools)) "
		  "[ (ATTR:pallas_call (NAME:pl)) ] { (KEYWORD:grid (TUPLE [ (INT:2) ])) }) >)");
	parses_as("if a:\n  x = 1\nelif b:\n  x = 2\nelse:\n  x = 3\n",
		  "(IF (NAME:a) [ (ASSIGN (INT:1) [ (NAME:x) ]) ] { (IF (NAME:b) [ (ASSIGN (INT:2) [ (NAME:x) ]) ] "
		  "{ (ASSIGN (INT:3) [ (NAME:x) ]) }) })");
	parses_as("for i, j in zip(a, b):\n    s += i\n",
		  "(FOR (TUPLE [ (NAME:i) (NAME:j) ]) (CALL (NAME:zip) [ (NAME:a) (NAME:b) ]) "
		  "[ (AUGASSIGN/+ (NAME:s) (NAME:i)) ])");
	parses_as("with open(f) as fp, x:\n  pass\n",
		  "(WITH [ (PASS) ] { (WITHITEM (CALL (NAME:open) [ (NAME:f) ]) (NAME:fp)) (WITHITEM (NAME:x)) })");
	parses_as("with (open(f) as fp, g as h):\n  pass\n",
		  "(WITH [ (PASS) ] { (WITHITEM (CALL (NAME:open) [ (NAME:f) ]) (NAME:fp)) "
		  "(WITHITEM (NAME:g) (NAME:h)) })");
	parses_as("try:\n  x\nexcept (A, B) as e:\n  y\nfinally:\n  z\n",
		  "(TRY [ (EXPR (NAME:x)) ] { (HANDLER~e (TUPLE [ (NAME:A) (NAME:B) ]) [ (EXPR (NAME:y)) ]) } "
		  "< (EXPR (NAME:z)) >)");
	parses_as("from jax.experimental import pallas as pl, foo\n",
		  "(FROM:jax.experimental { (ALIAS:pallas~pl) (ALIAS:foo) })");
	parses_as("import jax.numpy as jnp\n", "(IMPORT { (ALIAS:jax.numpy~jnp) })");
	parses_as("from . import (a,\n   b,)\n", "(FROM/\001 { (ALIAS:a) (ALIAS:b) })");
	parses_as("x: int = 3\n", "(ANNASSIGN (NAME:x) (NAME:int) (INT:3))");
	parses_as("a, b = b, a\n",
		  "(ASSIGN (TUPLE [ (NAME:b) (NAME:a) ]) [ (TUPLE [ (NAME:a) (NAME:b) ]) ])");
	parses_as("a = b = 1\n", "(ASSIGN (INT:1) [ (NAME:a) (NAME:b) ])");
	parses_as("class K(Base, metaclass=M):\n  x = 1\n",
		  "(CLASS:K [ (ASSIGN (INT:1) [ (NAME:x) ]) ] { (NAME:Base) (KEYWORD:metaclass (NAME:M)) })");
	parses_as("x = 1; y = 2\n", "(ASSIGN (INT:1) [ (NAME:x) ])");
	parses_as("async def f():\n  await g()\n",
		  "(DEF:f [ (EXPR (YIELD/a (CALL (NAME:g)))) ])");
	parses_as("match cmd:\n  case 1:\n    pass\n", "(SKIPPED)");
	parses_as("type Shape = tuple[int, int]\n", "(SKIPPED)");
	parses_as("match = 3\n", "(ASSIGN (INT:3) [ (NAME:match) ])");
	parses_as("while x:\n  break\nelse:\n  pass\n", "(WHILE (NAME:x) [ (BREAK) ] { (PASS) })");
	parses_as("if x: y = 1\n", "(IF (NAME:x) [ (ASSIGN (INT:1) [ (NAME:y) ]) ])");
	parses_as("x = (1 +\n     2)  # comment\n", "(ASSIGN (BINOP/+ (INT:1) (INT:2)) [ (NAME:x) ])");
	parses_as("x = 1 + \\\n    2\n", "(ASSIGN (BINOP/+ (INT:1) (INT:2)) [ (NAME:x) ])");
	parses_as("s = '''a\nb'''\n", "(ASSIGN (STR:a\nb) [ (NAME:s) ])");
	parses_as("\n\n# c\n  \ndef f():\n\n    # c\n    pass\n", "(DEF:f [ (PASS) ])");
	parses_as("def f():\n\tif x:\n\t\treturn 1\n\treturn 2\n",
		  "(DEF:f [ (IF (NAME:x) [ (RETURN (INT:1)) ]) (RETURN (INT:2)) ])");
}

/* Note: ASSIGN's x is the value; dump order is x, then items (the targets). */
static void
test_positions(void)
{
	const char *src = "import jax\n\ndef k(x_ref, o_ref):\n    o_ref[...] = x_ref[...] * 2\n";
	struct py_module *m = py_parse(src, strlen(src));
	const struct py_node *def = m->root->items.v[1], *st = def->items.v[0];

	CHECK_INTEQ(def->line, 3);
	CHECK_INTEQ(def->col, 1);
	CHECK_INTEQ(st->line, 4);
	CHECK_INTEQ(st->col, 5);
	CHECK_INTEQ(st->x->line, 4);
	CHECK_INTEQ(st->x->col, 18);
	CHECK_INTEQ(st->x->end_col, 32);
	CHECK_INTEQ(m->lines, 4);
	py_module_free(m);
}

static void
test_render(void)
{
	const char *src = "pl.when(pl.program_id(2) == 0)\nx_ref.at[slot, pl.ds(i * 8, 8)]\n";
	struct py_module *m = py_parse(src, strlen(src));
	char out[128], d[64];

	py_render(m->root->items.v[0]->x, out, sizeof(out));
	CHECK_STREQ(out, "pl.when(pl.program_id(2) == 0)");
	py_render(m->root->items.v[1]->x, out, sizeof(out));
	CHECK_STREQ(out, "x_ref.at[slot, pl.ds(i * 8, 8)]");
	CHECK(py_dotted(m->root->items.v[0]->x->x, d, sizeof(d)));
	CHECK_STREQ(d, "pl.when");
	CHECK(!py_dotted(m->root->items.v[0]->x, d, sizeof(d)));
	py_render(m->root->items.v[0]->x, out, 8);
	CHECK_INTEQ(strlen(out), 7);
	py_module_free(m);
}

/* After a broken statement the next one parses, at the same level or outside. */
static void
test_recovery(void)
{
	const char *src =
		"x = (1 +\n"
		"y = 2\n"
		"def f(:\n"
		"    bad body\n"
		"def g():\n"
		"    a = )\n"
		"    b = 3\n"
		"c = 4\n";
	struct py_module *m = py_parse(src, strlen(src));
	const struct py_list *top = &m->root->items;
	bool have_g = false, have_c = false, have_b = false;

	CHECK(m->total_problems >= 2);
	for (size_t i = 0; i < top->n; i++) {
		if (top->v[i]->kind == PY_DEF && strcmp(top->v[i]->s, "g") == 0) {
			have_g = true;
			for (size_t k = 0; k < top->v[i]->items.n; k++)
				if (top->v[i]->items.v[k]->kind == PY_ASSIGN)
					have_b = true;
		}
		if (top->v[i]->kind == PY_ASSIGN && top->v[i]->x->kind == PY_INT &&
		    top->v[i]->x->ival == 4)
			have_c = true;
	}
	CHECK(have_g);
	CHECK(have_b);
	CHECK(have_c);
	CHECK(m->problems[0].line >= 1);
	py_module_free(m);
}

/* An unclosed bracket is reported where it opens, and the next def still parses. */
static void
test_unclosed(void)
{
	const char *src = "x = (1 +\n\ndef k(a):\n    return a\n";
	struct py_module *m = py_parse(src, strlen(src));

	CHECK_INTEQ(m->total_problems, 1);
	CHECK_INTEQ(m->problems[0].line, 1);
	CHECK_INTEQ(m->problems[0].col, 5);
	CHECK(strstr(m->problems[0].msg, "never closed") != NULL);
	CHECK(m->root->items.n == 1 && m->root->items.v[0]->kind == PY_DEF);
	py_module_free(m);
}

static void
problem_at(const char *src, size_t len, int line, const char *words)
{
	struct py_module *m = py_parse(src, len);

	CHECK(m->nproblems >= 1);
	if (m->nproblems) {
		CHECK_INTEQ(m->problems[0].line, line);
		if (!strstr(m->problems[0].msg, words))
			fprintf(stderr, "problem: %s\n", m->problems[0].msg);
		CHECK(strstr(m->problems[0].msg, words) != NULL);
	}
	py_module_free(m);
}

static void
test_problems(void)
{
	problem_at("x = 'abc\n", 9, 1, "unterminated string");
	problem_at("x = 1\n  y = 2\n", 14, 2, "unexpected indent");
	problem_at("if x:\n    y\n  z\n", 16, 3, "unindent does not match");
	problem_at("x = 1\0\n", 7, 1, "NUL byte");
	problem_at("x = $\n", 6, 1, "starts no token");
	problem_at("def f(\n", 7, 2, "expected");
	problem_at("if x:\npass\n", 11, 2, "indented block");
	problem_at("x = [1, 2\n", 10, 2, "expected");
}

static void
test_hostile(void)
{
	struct buf b = BUF_INIT;
	struct py_module *m;

	/* deep brackets: a problem, not a stack overflow */
	for (int i = 0; i < 100000; i++)
		buf_addch(&b, '(');
	m = py_parse(b.data, b.len);
	CHECK(m->nproblems >= 1);
	CHECK(strstr(m->problems[0].msg, "deeply nested") != NULL);
	py_module_free(m);
	buf_reset(&b);
	/* deep indentation */
	for (int i = 0; i < 400; i++) {
		for (int k = 0; k < i; k++)
			buf_addch(&b, ' ');
		buf_adds(&b, "if x:\n");
	}
	m = py_parse(b.data, b.len);
	CHECK(m->nproblems >= 1);
	py_module_free(m);
	buf_reset(&b);
	/* a long flat expression parses: the tree is deep, the parser's stack is not */
	buf_adds(&b, "x = 1");
	for (int i = 0; i < 50000; i++)
		buf_adds(&b, " + 1");
	buf_addch(&b, '\n');
	m = py_parse(b.data, b.len);
	CHECK_INTEQ(m->total_problems, 0);
	py_module_free(m);
	buf_reset(&b);
	/* invalid UTF-8 and high bytes are identifier characters */
	buf_adds(&b, "\xff\xfe = \xc3\xa9t\xe9 + 1\n");
	m = py_parse(b.data, b.len);
	CHECK_INTEQ(m->total_problems, 0);
	CHECK_INTEQ(m->root->items.n, 1);
	py_module_free(m);
	buf_reset(&b);
	/* random junk: problems, then the parser gives up */
	for (int i = 0; i < 20000; i++)
		buf_addch(&b, (char)("$?!\x01)]}:\n"[i % 10]));
	m = py_parse(b.data, b.len);
	CHECK(m->total_problems > 0);
	CHECK(m->nproblems <= PY_MAX_PROBLEMS);
	py_module_free(m);
	/* empty and whitespace-only sources */
	m = py_parse("", 0);
	CHECK_INTEQ(m->root->items.n, 0);
	CHECK_INTEQ(m->total_problems, 0);
	py_module_free(m);
	m = py_parse("   \n\t\n", 6);
	CHECK_INTEQ(m->total_problems, 0);
	py_module_free(m);
	buf_release(&b);
}

/*
 * Sources that end without a newline, mid-token: each is parsed from the
 * end of a page whose next page is unmapped, so a read past the last byte
 * faults in any build, not only under a sanitizer.
 */
static void
test_ends(void)
{
	static const char *const srcs[] = {
		"#", "##", "x = 1  # c", "if x:\n    #", "x = 'a", "x = '''a", "x = (", "\\", "x \\",
		"  ", "\t", "x = 1\r", "def f():\n  \\", "x = 0x", "x = 1e", "x = 1.", "f'", "@", "x.",
		"x = [1,", "  # c", "\f", "b'\\",
	};
	long pg = sysconf(_SC_PAGESIZE);
	char *map = mmap(NULL, (size_t)pg * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CHECK(map != MAP_FAILED);
	if (map == MAP_FAILED)
		return;
	CHECK_INTEQ(mprotect(map + pg, (size_t)pg, PROT_NONE), 0);
	for (size_t i = 0; i < sizeof(srcs) / sizeof(srcs[0]); i++) {
		size_t n = strlen(srcs[i]);
		char *at = map + pg - n;
		struct py_module *m;

		memcpy(at, srcs[i], n);
		m = py_parse(at, n);
		CHECK(m->root != NULL);
		py_module_free(m);
	}
	munmap(map, (size_t)pg * 2);
}

/* Lines end at \n, \r\n and a lone \r, for the tokenizer and for everything that counts lines. */
static void
test_lines(void)
{
	static const char src[] = "a = 1\rb = 2\r\nc = 3\nd";
	struct py_module *m = py_parse(src, sizeof(src) - 1);
	size_t n = 0;
	const char *p;

	CHECK_INTEQ(m->lines, 4);
	CHECK_INTEQ(m->root->items.n, 4);
	if (m->root->items.n == 4)
		CHECK_INTEQ(m->root->items.v[3]->line, 4);
	py_module_free(m);
	p = py_line_at(src, sizeof(src) - 1, 2, &n);
	CHECK(p && n == 5 && strncmp(p, "b = 2", 5) == 0);
	p = py_line_at(src, sizeof(src) - 1, 4, &n);
	CHECK(p && n == 1 && *p == 'd');
	CHECK(py_line_at(src, sizeof(src) - 1, 5, &n) == NULL);
	CHECK(py_line_at(src, sizeof(src) - 1, 0, &n) == NULL);
	p = py_line_at("x\n", 2, 2, &n);
	CHECK(p == NULL || n == 0);
}

int
main(void)
{
	test_expressions();
	test_values();
	test_statements();
	test_positions();
	test_render();
	test_recovery();
	test_unclosed();
	test_problems();
	test_hostile();
	test_ends();
	test_lines();
	return TEST_DONE();
}
