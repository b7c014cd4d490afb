/* SPDX-License-Identifier: MIT */
/*
 * A tokenizer and parser for the Python that Pallas kernels are written in,
 * for `pallas-triage check` (pt/check.h). It reads source without running it
 * and builds a syntax tree; it is not a Python implementation and keeps only
 * what the checker reads: every statement and expression form of Python 3.12
 * is recognised, the rarely used ones (match, type aliases, PEP 695 generics)
 * are skipped as one statement with a note.
 *
 * Any bytes are accepted. Bytes above 0x7f are identifier characters (as
 * Python's Unicode identifiers are); a NUL, a stray control byte, an
 * unterminated string or bracket, bad indentation or a syntax error is a
 * problem at line:col, and the parser resumes at the next statement, so a
 * file with one bad line is still checked elsewhere. Recursion is bounded
 * (PY_MAX_DEPTH nesting levels), so deeply nested input is an error, never a
 * stack overflow.
 *
 * Everything the parser makes lives in one arena: py_module_free() frees the
 * tree, its strings and its problems at once. Nodes point into the arena
 * only, never into the source buffer, which the caller may free after
 * py_parse().
 */
#ifndef PT_PYAST_H
#define PT_PYAST_H

#include <stdbool.h>
#include <stddef.h>

#define PY_MAX_DEPTH 200            /* nested brackets, blocks, operators */
#define PY_MAX_PROBLEMS 20          /* problems kept; more are counted */
#define PY_MAX_SOURCE (16u << 20)   /* larger sources are refused */

enum py_kind {
	/* expressions */
	PY_NAME,        /* s */
	PY_INT,         /* s = text; ival (valid when !big) */
	PY_FLOAT,       /* s = text; fval (imaginary literals too) */
	PY_STR,         /* s = decoded value (adjacent literals joined); op = 'b' bytes, 'f' f-string */
	PY_CONST,       /* s = "None", "True", "False" */
	PY_ELLIPSIS,
	PY_ATTR,        /* x.s */
	PY_CALL,        /* x(items..., more = PY_KEYWORD...) */
	PY_KEYWORD,     /* s=x; s NULL for **x */
	PY_SUBSCRIPT,   /* x[y] (y a PY_TUPLE for x[a, b]) */
	PY_SLICE,       /* x:y:z, each may be NULL */
	PY_TUPLE,       /* items */
	PY_LIST,        /* items */
	PY_SET,         /* items */
	PY_DICT,        /* items = keys (NULL for **v), more = values */
	PY_BINOP,       /* x op y */
	PY_UNARY,       /* op x: '-', '+', '~', 'n' (not) */
	PY_BOOLOP,      /* items joined by op: 'a' (and), 'o' (or) */
	PY_COMPARE,     /* x op y (a chain a < b < c is a BOOLOP 'a' of COMPAREs) */
	PY_IFEXP,       /* y if x else z */
	PY_LAMBDA,      /* params in more (PY_PARAM), body x */
	PY_STARRED,     /* *x (op '*') or **x (op 'd') */
	PY_COMP,        /* x (and y for a dict) for...: items = PY_FOR clauses (x target, y iter, more = ifs); op '(', '[', '{' */
	PY_NAMED,       /* x := y */
	PY_YIELD,       /* yield x / yield from x / await x (op 'y', 'f', 'a') */
	/* statements */
	PY_MODULE,      /* items = body */
	PY_DEF,         /* s = name; more = params; items = body; extra = decorators; x = return annotation */
	PY_PARAM,       /* s = name; x = default; y = annotation; op: 0 plain, '*' *args, 'd' **kw, 'k' keyword-only, 'p' positional-only */
	PY_CLASS,       /* s = name; more = bases and keywords; items = body; extra = decorators */
	PY_ASSIGN,      /* items = targets (a = b = v), x = value */
	PY_AUGASSIGN,   /* x op= y (op as for BINOP) */
	PY_ANNASSIGN,   /* x: y = z (z may be NULL) */
	PY_EXPR,        /* x */
	PY_IF,          /* if x: items else: more (elif is an IF alone in more) */
	PY_FOR,         /* for x in y: items else: more */
	PY_WHILE,       /* while x: items else: more */
	PY_WITH,        /* with more (PY_WITHITEM: x as y): items */
	PY_WITHITEM,
	PY_RETURN,      /* x may be NULL */
	PY_IMPORT,      /* more = PY_ALIAS */
	PY_FROM,        /* from s import more (PY_ALIAS); op = leading dots */
	PY_ALIAS,       /* s = dotted name ("*" for import *), s2 = as-name or NULL */
	PY_TRY,         /* items = body, more = handlers (PY_HANDLER: x type, s2 name, items body), extra = else and finally */
	PY_HANDLER,
	PY_RAISE,       /* x */
	PY_ASSERT,      /* x, y */
	PY_DEL,         /* items */
	PY_PASS,
	PY_BREAK,
	PY_CONTINUE,
	PY_GLOBAL,      /* global or nonlocal: names skipped */
	PY_SKIPPED,     /* a statement recognised but not modelled (match, type X = ...) */
};

/*
 * Operators in py_node.op: a one-character operator is its character ('+',
 * '<', '@'); the others are these. An augmented assignment's op is the
 * binary operator's ('+' for +=).
 */
enum py_op {
	PYOP_EQ = 256,              /* == */
	PYOP_NE,                    /* != */
	PYOP_LE,                    /* <= */
	PYOP_GE,                    /* >= */
	PYOP_LSHIFT,                /* << */
	PYOP_RSHIFT,                /* >> */
	PYOP_POW,                   /* ** */
	PYOP_FLOORDIV,              /* // */
	PYOP_ARROW,                 /* -> */
	PYOP_ELLIPSIS,              /* ... */
	PYOP_WALRUS,                /* := */
	PYOP_IN, PYOP_NOTIN, PYOP_IS, PYOP_ISNOT,
	PYOP_AUG = 512,             /* tokens only: PYOP_AUG + op is op= */
};

struct py_node;

struct py_list {
	struct py_node **v;
	size_t n, alloc;
};

struct py_node {
	enum py_kind kind;
	int line, col;              /* 1-based; col counts bytes */
	int end_line, end_col;      /* just past the node (expressions and simple statements) */
	int op;
	const char *s, *s2;         /* NUL-terminated, in the arena */
	size_t slen;                /* bytes of s (a string value may hold NULs) */
	long long ival;
	double fval;
	bool big;                   /* an integer literal that does not fit ival */
	struct py_node *x, *y, *z;
	struct py_list items, more, extra;
};

struct py_problem {
	int line, col;
	char msg[160];
};

struct py_arena;

struct py_module {
	struct py_node *root;       /* PY_MODULE; never NULL after py_parse() */
	struct py_problem problems[PY_MAX_PROBLEMS];
	size_t nproblems;           /* kept */
	size_t total_problems;      /* including those not kept */
	size_t lines;               /* lines in the source */
	bool gave_up;               /* too many problems: the rest of the file was not read */
	struct py_arena *arena;
};

/*
 * Parse src[0..len) (named `name` nowhere: problems carry positions only).
 * Returns a new module; free it with py_module_free(). Never fails: a
 * problem in the source is in m->problems, and the tree holds every
 * statement that parsed. A source over PY_MAX_SOURCE bytes is not read at
 * all (one problem at 1:1 says so).
 */
struct py_module *py_parse(const char *src, size_t len);

/*
 * Line `line` (1-based) of src as the tokenizer counts lines: "\n", "\r\n"
 * and a lone "\r" each end one. Returns its first byte and sets *n to its
 * length without the line break; NULL past the last line.
 */
const char *py_line_at(const char *src, size_t len, int line, size_t *n);
void py_module_free(struct py_module *m);

/*
 * The arena behind a module: blocks of zeroed, 16-byte aligned memory that
 * live until py_arena_free() (the checker keeps its values in one too).
 * Allocation never fails (out of memory ends the run).
 */
struct py_arena *py_arena_new(void);
void *py_arena_alloc(struct py_arena *a, size_t n);
/* A NUL-terminated copy of s[0..n) in a. */
char *py_arena_strndup(struct py_arena *a, const char *s, size_t n);
void py_arena_free(struct py_arena *a);

/* "and", "BINOP", ...: the name of a kind, for tests and messages. */
const char *py_kind_name(enum py_kind k);

/*
 * The dotted name an expression spells ("pl.BlockSpec" for the attribute
 * chain pl . BlockSpec, "x" for a name), appended to out with its length
 * capped at cap-1 bytes; false (out empty) when the expression is not a
 * chain of names.
 */
bool py_dotted(const struct py_node *n, char *out, size_t cap);

/*
 * A short source-like rendering of an expression ("x_ref.at[slot]",
 * "pl.program_id(2) == 0"), for messages and for telling two expressions
 * apart; cut at cap-1 bytes.
 */
void py_render(const struct py_node *n, char *out, size_t cap);

#endif
