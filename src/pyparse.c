/* SPDX-License-Identifier: MIT */
/*
 * A recursive-descent parser for Python (pt/pyast.h), after the grammar of
 * the language reference, building the tree in an arena. A syntax error
 * longjmps back to the statement loop of the block it happened in, which
 * records the problem and resumes at the next line indented no deeper than
 * the block (pyt_skip_statement()); every allocation is in the arena, so
 * the jump leaks nothing. The nesting depth is counted on every recursive
 * step and bounded by PY_MAX_DEPTH.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt/pyast.h"
#include "pt/pytok.h"
#include "pt/util.h"
#include "pt/xalloc.h"

/* Past this many problems the source is not Python: stop reading it. */
#define GIVE_UP_AFTER 200
#define CHUNK_MIN (64u * 1024)

struct chunk {
	struct chunk *next;
	size_t used, cap;
	_Alignas(16) unsigned char data[];
};

struct py_arena {
	struct chunk *head;
};

void *
py_arena_alloc(struct py_arena *a, size_t n)
{
	struct chunk *c = a->head;

	n = (n + 15) & ~(size_t)15;
	if (!c || c->cap - c->used < n) {
		size_t cap = n > CHUNK_MIN ? n : CHUNK_MIN;

		c = xmalloc(sizeof(*c) + cap);
		c->next = a->head;
		c->used = 0;
		c->cap = cap;
		a->head = c;
	}
	c->used += n;
	return memset(c->data + c->used - n, 0, n);
}

char *
py_arena_strndup(struct py_arena *a, const char *s, size_t n)
{
	char *d = py_arena_alloc(a, n + 1);

	memcpy(d, s, n);
	d[n] = 0;
	return d;
}

struct py_arena *
py_arena_new(void)
{
	return xcalloc(1, sizeof(struct py_arena));
}

void
py_arena_free(struct py_arena *a)
{
	struct chunk *c, *n;

	if (!a)
		return;
	for (c = a->head; c; c = n) {
		n = c->next;
		free(c);
	}
	free(a);
}

struct parser {
	struct pyt_lexer lx;
	struct pyt_token tok, peek;
	bool have_peek;
	int prev_end_line, prev_end_col;    /* end of the last token consumed */
	struct py_module *m;
	struct py_arena *a;
	int depth;
	jmp_buf *jb;
	struct pyt_token err_tok;   /* where the last error was found */
	int stmt_line;              /* the line the statement being parsed starts on */
};

static void
list_push(struct parser *p, struct py_list *l, struct py_node *n)
{
	if (l->n == l->alloc) {
		size_t alloc = l->alloc ? l->alloc * 2 : 4;
		struct py_node **v = py_arena_alloc(p->a, alloc * sizeof(*v));

		if (l->n)
			memcpy(v, l->v, l->n * sizeof(*v));
		l->v = v;
		l->alloc = alloc;
	}
	l->v[l->n++] = n;
}

static void
add_problem(struct py_module *m, int line, int col, const char *fmt, ...) PT_PRINTF(4, 5);

static void
add_problem(struct py_module *m, int line, int col, const char *fmt, ...)
{
	va_list ap;

	m->total_problems++;
	if (m->nproblems >= PY_MAX_PROBLEMS)
		return;
	m->problems[m->nproblems].line = line;
	m->problems[m->nproblems].col = col;
	va_start(ap, fmt);
	vsnprintf(m->problems[m->nproblems].msg, sizeof(m->problems[0].msg), fmt, ap);
	va_end(ap);
	m->nproblems++;
}

/* The token as quoted in a message: "')'", "end of line", "'foo'". */
static void
describe(const struct pyt_token *t, char *out, size_t cap)
{
	switch (t->kind) {
	case PYT_EOF:
		snprintf(out, cap, "end of file");
		return;
	case PYT_NEWLINE:
		snprintf(out, cap, "end of line");
		return;
	case PYT_INDENT:
		snprintf(out, cap, "an indent");
		return;
	case PYT_DEDENT:
		snprintf(out, cap, "a dedent");
		return;
	default:
		break;
	}
	{
		size_t n = t->len > 24 ? 24 : t->len;
		size_t k = 0;

		/* the bytes are shown as printable ASCII only: messages reach terminals */
		out[k++] = '\'';
		for (size_t i = 0; i < n && k + 5 < cap; i++) {
			unsigned char c = (unsigned char)t->p[i];

			if (c >= 0x20 && c < 0x7f) {
				out[k++] = (char)c;
			} else {
				snprintf(out + k, cap - k, "\\x%02x", c);
				k += 4;
			}
		}
		if (t->len > n && k + 4 < cap) {
			memcpy(out + k, "...", 3);
			k += 3;
		}
		out[k++] = '\'';
		out[k] = 0;
	}
}

static _Noreturn void
fail(struct parser *p, const struct pyt_token *t, const char *fmt, ...) PT_PRINTF(3, 4);

/* Does t start its line (only blanks before it)? */
static bool
first_on_line(const struct pyt_token *t)
{
	for (int i = 1; i < t->col; i++)
		if (t->p[-i] != ' ' && t->p[-i] != '\t' && t->p[-i] != '\f')
			return false;
	return true;
}

static bool tok_is_kw(const struct pyt_token *t, const char *kw);

/* A statement keyword at the start of a line inside brackets: the bracket was never closed. */
static bool
starts_statement(const struct pyt_token *t)
{
	static const char *const kws[] = { "def", "class", "if", "for", "while", "with", "try",
					   "return", "import", "from", "async", "elif", "else" };

	if (t->kind == PYT_OP && t->op == '@')
		return true;
	for (size_t i = 0; i < sizeof(kws) / sizeof(kws[0]); i++)
		if (tok_is_kw(t, kws[i]))
			return true;
	return false;
}

static _Noreturn void
fail(struct parser *p, const struct pyt_token *t, const char *fmt, ...)
{
	char msg[160];
	va_list ap;
	int d = p->lx.depth;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	p->err_tok = *t;
	if (d > 0 && t->kind != PYT_EOF && t->line > p->lx.open_line[d - 1] && first_on_line(t) &&
	    starts_statement(t))
		add_problem(p->m, p->lx.open_line[d - 1], p->lx.open_col[d - 1],
			    "'%c' was never closed (a new statement starts at line %d)",
			    p->lx.open_ch[d - 1], t->line);
	else
		add_problem(p->m, t->line, t->col, "%s", msg);
	longjmp(*p->jb, 1);
}

static void
lex(struct parser *p, struct pyt_token *t)
{
	pyt_next(&p->lx, t);
	if (t->kind == PYT_ERROR)
		fail(p, t, "%s", t->msg);
}

static void
next(struct parser *p)
{
	p->prev_end_line = p->tok.end_line;
	p->prev_end_col = p->tok.end_col;
	if (p->have_peek) {
		p->tok = p->peek;
		p->have_peek = false;
	} else {
		lex(p, &p->tok);
	}
}

/* One token of lookahead, never across the end of a line. */
static const struct pyt_token *
peek(struct parser *p)
{
	static const struct pyt_token none = { PYT_NEWLINE, 0, 0, 0, 0, "", 0, 0, NULL, false };

	if (p->tok.kind == PYT_NEWLINE || p->tok.kind == PYT_EOF)
		return &none;
	if (!p->have_peek) {
		lex(p, &p->peek);
		p->have_peek = true;
	}
	return &p->peek;
}

static bool
tok_is_op(const struct pyt_token *t, int op)
{
	return t->kind == PYT_OP && t->op == op;
}

static bool
is_op(const struct parser *p, int op)
{
	return tok_is_op(&p->tok, op);
}

static bool
tok_is_kw(const struct pyt_token *t, const char *kw)
{
	return t->kind == PYT_NAME && t->word && t->p[0] == kw[0] && strncmp(t->p, kw, t->len) == 0 &&
	       !kw[t->len];
}

static bool
is_kw(const struct parser *p, const char *kw)
{
	return tok_is_kw(&p->tok, kw);
}

static const char *const keywords[] = {
	"False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
	"continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global",
	"if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise",
	"return", "try", "while", "with", "yield",
};

static bool
is_keyword(const struct pyt_token *t)
{
	if (t->kind != PYT_NAME || !t->word)
		return false;
	for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
		if (tok_is_kw(t, keywords[i]))
			return true;
	return false;
}

static void
expect_op(struct parser *p, int op, const char *what)
{
	char got[48];

	if (!is_op(p, op)) {
		describe(&p->tok, got, sizeof(got));
		fail(p, &p->tok, "expected %s, found %s", what, got);
	}
	next(p);
}

static void
expect_kw(struct parser *p, const char *kw)
{
	char got[48];

	if (!is_kw(p, kw)) {
		describe(&p->tok, got, sizeof(got));
		fail(p, &p->tok, "expected '%s', found %s", kw, got);
	}
	next(p);
}

static const char *
expect_name(struct parser *p)
{
	char got[48];
	const char *s;

	if (p->tok.kind != PYT_NAME || is_keyword(&p->tok)) {
		describe(&p->tok, got, sizeof(got));
		fail(p, &p->tok, "expected a name, found %s", got);
	}
	s = py_arena_strndup(p->a, p->tok.p, p->tok.len);
	next(p);
	return s;
}

static void
enter(struct parser *p)
{
	if (++p->depth > PY_MAX_DEPTH)
		fail(p, &p->tok, "too deeply nested (more than %d levels)", PY_MAX_DEPTH);
}

static void
leave(struct parser *p)
{
	p->depth--;
}

static struct py_node *
node_at(struct parser *p, enum py_kind k, int line, int col)
{
	struct py_node *n = py_arena_alloc(p->a, sizeof(*n));

	n->kind = k;
	n->line = line;
	n->col = col;
	n->end_line = line;
	n->end_col = col;
	return n;
}

static struct py_node *
node(struct parser *p, enum py_kind k)
{
	return node_at(p, k, p->tok.line, p->tok.col);
}

/* Set n's end to the end of the last token consumed. */
static struct py_node *
done(struct parser *p, struct py_node *n)
{
	n->end_line = p->prev_end_line;
	n->end_col = p->prev_end_col;
	return n;
}

static struct py_node *
node_from(struct parser *p, enum py_kind k, const struct py_node *first)
{
	return node_at(p, k, first->line, first->col);
}

/* ------------------------------------------------------------ literals */

/* Append one literal's value to out (cap bytes, *n used): the common escapes are decoded. */
static void
decode_string(const struct pyt_token *t, char *out, size_t *n, int *kind)
{
	const char *s = t->p, *e = t->p + t->len;
	bool raw = false;
	char q;
	size_t qn;

	while (s < e && *s != '\'' && *s != '"') {
		if (*s == 'r' || *s == 'R')
			raw = true;
		else if (*s == 'b' || *s == 'B')
			*kind = 'b';
		else if (*s == 'f' || *s == 'F' || *s == 't' || *s == 'T')
			*kind = 'f';
		s++;
	}
	q = *s;
	qn = (s + 2 < e && s[1] == q && s[2] == q && e - s >= 6) ? 3 : 1;
	s += qn;
	e -= qn;
	while (s < e) {
		if (*s != '\\' || raw || *kind == 'f' || s + 1 >= e) {
			out[(*n)++] = *s++;
			continue;
		}
		s++;
		switch (*s) {
		case 'n': out[(*n)++] = '\n'; s++; break;
		case 't': out[(*n)++] = '\t'; s++; break;
		case 'r': out[(*n)++] = '\r'; s++; break;
		case '0': out[(*n)++] = '\0'; s++; break;
		case '\\': case '\'': case '"': out[(*n)++] = *s++; break;
		case '\n': s++; break;
		case 'x':
			if (s + 2 < e && util_hex_digit(s[1]) >= 0 && util_hex_digit(s[2]) >= 0) {
				out[(*n)++] = (char)(util_hex_digit(s[1]) * 16 + util_hex_digit(s[2]));
				s += 3;
				break;
			}
			/* fall through */
		default:
			out[(*n)++] = '\\';
			break;
		}
	}
}

static struct py_node *
parse_strings(struct parser *p)
{
	struct py_node *n = node(p, PY_STR);
	size_t cap = p->tok.len + 1, len = 0;
	char *buf = py_arena_alloc(p->a, cap);
	int kind = 0;

	/* adjacent literals are one string; a decoded value is never longer than its token */
	while (p->tok.kind == PYT_STRING) {
		if (len + p->tok.len + 1 > cap) {
			char *bigger;

			cap = 2 * (len + p->tok.len + 1);
			bigger = py_arena_alloc(p->a, cap);
			memcpy(bigger, buf, len);
			buf = bigger;
		}
		decode_string(&p->tok, buf, &len, &kind);
		next(p);
	}
	buf[len] = 0;
	n->s = buf;
	n->slen = len;
	n->op = kind;
	return done(p, n);
}

static struct py_node *
parse_number(struct parser *p)
{
	char text[128];
	size_t k = 0;
	bool is_float = false;
	struct py_node *n;
	int base = 10;
	const char *digits;

	for (size_t i = 0; i < p->tok.len && k + 1 < sizeof(text); i++)
		if (p->tok.p[i] != '_')
			text[k++] = p->tok.p[i];
	text[k] = 0;
	if (k >= 2 && text[0] == '0' && strchr("xXoObB", text[1]))
		base = (text[1] == 'x' || text[1] == 'X') ? 16 : (text[1] == 'o' || text[1] == 'O') ? 8 : 2;
	else if (strpbrk(text, ".eEjJ"))
		is_float = true;
	n = node(p, is_float ? PY_FLOAT : PY_INT);
	n->s = py_arena_strndup(p->a, text, k);
	if (is_float) {
		n->fval = strtod(text, NULL);
	} else {
		errno = 0;
		digits = base == 10 ? text : text + 2;
		n->ival = (long long)strtoull(digits, NULL, base);
		if (errno == ERANGE || strtoull(digits, NULL, base) > (unsigned long long)INT64_MAX)
			n->big = true;
	}
	next(p);
	return done(p, n);
}

/* ------------------------------------------------------------ expressions */

static struct py_node *parse_test(struct parser *p);
static struct py_node *parse_expr(struct parser *p);
static struct py_node *parse_or_test(struct parser *p);
static struct py_node *parse_star_expr(struct parser *p);
static void parse_params(struct parser *p, struct py_list *out, int close, bool annotations);
static struct py_node *parse_targets(struct parser *p);

/* A comma list after `first` up to a closer; sets *trailing when it ended in a comma. */
static bool
at_closer(const struct parser *p)
{
	return is_op(p, ')') || is_op(p, ']') || is_op(p, '}') || is_op(p, '=') ||
	       is_op(p, ':') || p->tok.kind == PYT_NEWLINE || p->tok.kind == PYT_EOF ||
	       is_op(p, ';') || is_kw(p, "in") || (p->tok.kind == PYT_OP && p->tok.op >= PYOP_AUG);
}

/* for x in y if c ... clauses after a comprehension's element */
static void
parse_comp_clauses(struct parser *p, struct py_node *comp)
{
	while (is_kw(p, "for") || is_kw(p, "async")) {
		struct py_node *f = node(p, PY_FOR);
		struct py_node *tgt;

		if (is_kw(p, "async"))
			next(p);
		expect_kw(p, "for");
		tgt = parse_targets(p);
		f->x = tgt;
		expect_kw(p, "in");
		f->y = parse_or_test(p);
		while (is_kw(p, "if")) {
			next(p);
			list_push(p, &f->more, parse_or_test(p));
		}
		list_push(p, &comp->items, done(p, f));
	}
}

static struct py_node *
parse_namedexpr(struct parser *p)
{
	struct py_node *e = parse_test(p);

	if (is_op(p, PYOP_WALRUS)) {
		struct py_node *n = node_from(p, PY_NAMED, e);

		next(p);
		n->x = e;
		n->y = parse_test(p);
		return done(p, n);
	}
	return e;
}

/* Inside ( ): a tuple, a parenthesised expression, a generator or yield. */
static struct py_node *
parse_paren(struct parser *p, int line, int col)
{
	struct py_node *first, *t;

	if (is_op(p, ')')) {
		t = node_at(p, PY_TUPLE, line, col);
		next(p);
		return done(p, t);
	}
	if (is_kw(p, "yield")) {
		first = parse_test(p);
		expect_op(p, ')', "')'");
		return first;
	}
	first = is_op(p, '*') ? parse_star_expr(p) : parse_namedexpr(p);
	if (is_kw(p, "for") || is_kw(p, "async")) {
		struct py_node *c = node_at(p, PY_COMP, line, col);

		c->op = '(';
		c->x = first;
		parse_comp_clauses(p, c);
		expect_op(p, ')', "')'");
		return done(p, c);
	}
	if (is_op(p, ')')) {
		next(p);
		return first;
	}
	t = node_at(p, PY_TUPLE, line, col);
	list_push(p, &t->items, first);
	while (is_op(p, ',')) {
		next(p);
		if (is_op(p, ')'))
			break;
		list_push(p, &t->items, is_op(p, '*') ? parse_star_expr(p) : parse_namedexpr(p));
	}
	expect_op(p, ')', "')' or ','");
	return done(p, t);
}

static struct py_node *
parse_list(struct parser *p, int line, int col)
{
	struct py_node *l = node_at(p, PY_LIST, line, col), *first;

	if (is_op(p, ']')) {
		next(p);
		return done(p, l);
	}
	first = is_op(p, '*') ? parse_star_expr(p) : parse_namedexpr(p);
	if (is_kw(p, "for") || is_kw(p, "async")) {
		struct py_node *c = node_at(p, PY_COMP, line, col);

		c->op = '[';
		c->x = first;
		parse_comp_clauses(p, c);
		expect_op(p, ']', "']'");
		return done(p, c);
	}
	list_push(p, &l->items, first);
	while (is_op(p, ',')) {
		next(p);
		if (is_op(p, ']'))
			break;
		list_push(p, &l->items, is_op(p, '*') ? parse_star_expr(p) : parse_namedexpr(p));
	}
	expect_op(p, ']', "']' or ','");
	return done(p, l);
}

static struct py_node *
parse_brace(struct parser *p, int line, int col)
{
	struct py_node *d, *k = NULL, *v;

	if (is_op(p, '}')) {
		d = node_at(p, PY_DICT, line, col);
		next(p);
		return done(p, d);
	}
	if (is_op(p, PYOP_POW)) {
		next(p);
		v = parse_expr(p);
		d = node_at(p, PY_DICT, line, col);
	} else {
		k = is_op(p, '*') ? parse_star_expr(p) : parse_test(p);
		if (is_op(p, PYOP_WALRUS)) {
			struct py_node *nm = node_from(p, PY_NAMED, k);

			next(p);
			nm->x = k;
			nm->y = parse_test(p);
			k = done(p, nm);
		}
		if (!is_op(p, ':')) {
			/* a set */
			struct py_node *s = node_at(p, PY_SET, line, col);

			if (is_kw(p, "for") || is_kw(p, "async")) {
				struct py_node *c = node_at(p, PY_COMP, line, col);

				c->op = '{';
				c->x = k;
				parse_comp_clauses(p, c);
				expect_op(p, '}', "'}'");
				return done(p, c);
			}
			list_push(p, &s->items, k);
			while (is_op(p, ',')) {
				next(p);
				if (is_op(p, '}'))
					break;
				list_push(p, &s->items, is_op(p, '*') ? parse_star_expr(p) : parse_namedexpr(p));
			}
			expect_op(p, '}', "'}' or ','");
			return done(p, s);
		}
		next(p);
		v = parse_test(p);
		d = node_at(p, PY_DICT, line, col);
		if (is_kw(p, "for") || is_kw(p, "async")) {
			struct py_node *c = node_at(p, PY_COMP, line, col);

			c->op = '{';
			c->x = k;
			c->y = v;
			parse_comp_clauses(p, c);
			expect_op(p, '}', "'}'");
			return done(p, c);
		}
	}
	for (;;) {
		list_push(p, &d->items, k);
		list_push(p, &d->more, v);
		if (!is_op(p, ','))
			break;
		next(p);
		if (is_op(p, '}'))
			break;
		if (is_op(p, PYOP_POW)) {
			next(p);
			k = NULL;
			v = parse_expr(p);
		} else {
			k = parse_test(p);
			expect_op(p, ':', "':'");
			v = parse_test(p);
		}
	}
	expect_op(p, '}', "'}' or ','");
	return done(p, d);
}

static struct py_node *
parse_atom(struct parser *p)
{
	struct py_node *n;
	char got[48];
	int line = p->tok.line, col = p->tok.col;

	switch (p->tok.kind) {
	case PYT_STRING:
		return parse_strings(p);
	case PYT_NUMBER:
		return parse_number(p);
	case PYT_NAME:
		if (is_kw(p, "None") || is_kw(p, "True") || is_kw(p, "False")) {
			n = node(p, PY_CONST);
			n->s = py_arena_strndup(p->a, p->tok.p, p->tok.len);
			next(p);
			return done(p, n);
		}
		if (is_keyword(&p->tok))
			break;
		n = node(p, PY_NAME);
		n->s = py_arena_strndup(p->a, p->tok.p, p->tok.len);
		n->slen = p->tok.len;
		next(p);
		return done(p, n);
	case PYT_OP:
		if (is_op(p, PYOP_ELLIPSIS)) {
			n = node(p, PY_ELLIPSIS);
			next(p);
			return done(p, n);
		}
		if (is_op(p, '(')) {
			next(p);
			return parse_paren(p, line, col);
		}
		if (is_op(p, '[')) {
			next(p);
			return parse_list(p, line, col);
		}
		if (is_op(p, '{')) {
			next(p);
			return parse_brace(p, line, col);
		}
		break;
	default:
		break;
	}
	describe(&p->tok, got, sizeof(got));
	fail(p, &p->tok, "expected an expression, found %s", got);
}

static void
parse_call_args(struct parser *p, struct py_node *call)
{
	while (!is_op(p, ')')) {
		if (is_op(p, '*') || is_op(p, PYOP_POW)) {
			struct py_node *s = node(p, PY_STARRED);
			bool dbl = is_op(p, PYOP_POW);

			next(p);
			s->op = dbl ? 'd' : '*';
			s->x = parse_test(p);
			if (dbl) {
				struct py_node *k = node_from(p, PY_KEYWORD, s);

				k->x = s->x;
				list_push(p, &call->more, done(p, k));
			} else {
				list_push(p, &call->items, done(p, s));
			}
		} else if (p->tok.kind == PYT_NAME && tok_is_op(peek(p), '=') && !is_keyword(&p->tok)) {
			struct py_node *k = node(p, PY_KEYWORD);

			k->s = expect_name(p);
			next(p);
			k->x = parse_test(p);
			list_push(p, &call->more, done(p, k));
		} else {
			struct py_node *a = parse_namedexpr(p);

			if (is_kw(p, "for") || is_kw(p, "async")) {
				struct py_node *c = node_from(p, PY_COMP, a);

				c->op = '(';
				c->x = a;
				parse_comp_clauses(p, c);
				a = done(p, c);
			}
			list_push(p, &call->items, a);
		}
		if (!is_op(p, ','))
			break;
		next(p);
	}
	expect_op(p, ')', "')' or ','");
}

static struct py_node *
parse_slice_item(struct parser *p)
{
	struct py_node *lo = NULL, *s;
	int line = p->tok.line, col = p->tok.col;

	if (is_op(p, '*'))
		return parse_star_expr(p);
	if (!is_op(p, ':'))
		lo = parse_namedexpr(p);
	if (!is_op(p, ':'))
		return lo;
	s = node_at(p, PY_SLICE, line, col);
	s->x = lo;
	next(p);
	if (!is_op(p, ':') && !is_op(p, ']') && !is_op(p, ','))
		s->y = parse_test(p);
	if (is_op(p, ':')) {
		next(p);
		if (!is_op(p, ']') && !is_op(p, ','))
			s->z = parse_test(p);
	}
	return done(p, s);
}

static struct py_node *
parse_subscript(struct parser *p, struct py_node *value)
{
	struct py_node *sub = node_from(p, PY_SUBSCRIPT, value), *first, *t;
	int line = p->tok.line, col = p->tok.col;

	next(p);
	sub->x = value;
	first = parse_slice_item(p);
	if (is_op(p, ',')) {
		t = node_at(p, PY_TUPLE, line, col);
		list_push(p, &t->items, first);
		while (is_op(p, ',')) {
			next(p);
			if (is_op(p, ']'))
				break;
			list_push(p, &t->items, parse_slice_item(p));
		}
		first = done(p, t);
	}
	sub->y = first;
	expect_op(p, ']', "']'");
	return done(p, sub);
}

static struct py_node *
parse_primary(struct parser *p)
{
	struct py_node *e = parse_atom(p);

	for (;;) {
		if (is_op(p, '.')) {
			struct py_node *a = node_from(p, PY_ATTR, e);

			next(p);
			a->x = e;
			if (p->tok.kind != PYT_NAME)
				fail(p, &p->tok, "expected an attribute name after '.'");
			a->s = py_arena_strndup(p->a, p->tok.p, p->tok.len);
			next(p);
			e = done(p, a);
		} else if (is_op(p, '(')) {
			struct py_node *c = node_from(p, PY_CALL, e);

			enter(p);
			next(p);
			c->x = e;
			parse_call_args(p, c);
			leave(p);
			e = done(p, c);
		} else if (is_op(p, '[')) {
			enter(p);
			e = parse_subscript(p, e);
			leave(p);
		} else {
			return e;
		}
	}
}

static struct py_node *parse_factor(struct parser *p);

static struct py_node *
parse_power(struct parser *p)
{
	struct py_node *e;

	if (is_kw(p, "await")) {
		struct py_node *w = node(p, PY_YIELD);

		next(p);
		w->op = 'a';
		w->x = parse_primary(p);
		e = done(p, w);
	} else {
		e = parse_primary(p);
	}
	if (is_op(p, PYOP_POW)) {
		struct py_node *b = node_from(p, PY_BINOP, e);

		next(p);
		b->op = PYOP_POW;
		b->x = e;
		enter(p);
		b->y = parse_factor(p);
		leave(p);
		return done(p, b);
	}
	return e;
}

static struct py_node *
parse_factor(struct parser *p)
{
	if (is_op(p, '-') || is_op(p, '+') || is_op(p, '~')) {
		struct py_node *u = node(p, PY_UNARY);

		u->op = p->tok.op;
		next(p);
		enter(p);
		u->x = parse_factor(p);
		leave(p);
		return done(p, u);
	}
	return parse_power(p);
}

/* One level of left-associative binary operators. */
static struct py_node *
binary_level(struct parser *p, struct py_node *(*sub)(struct parser *), const int *ops)
{
	struct py_node *e = sub(p);

	for (;;) {
		const int *o = ops;

		while (*o && !is_op(p, *o))
			o++;
		if (!*o)
			return e;
		{
			struct py_node *b = node_from(p, PY_BINOP, e);

			b->op = *o;
			next(p);
			b->x = e;
			enter(p);
			b->y = sub(p);
			leave(p);
			e = done(p, b);
		}
	}
}

static struct py_node *
parse_term(struct parser *p)
{
	static const int ops[] = { '*', '/', PYOP_FLOORDIV, '%', '@', 0 };

	return binary_level(p, parse_factor, ops);
}

static struct py_node *
parse_arith(struct parser *p)
{
	static const int ops[] = { '+', '-', 0 };

	return binary_level(p, parse_term, ops);
}

static struct py_node *
parse_shift(struct parser *p)
{
	static const int ops[] = { PYOP_LSHIFT, PYOP_RSHIFT, 0 };

	return binary_level(p, parse_arith, ops);
}

static struct py_node *
parse_bitand(struct parser *p)
{
	static const int ops[] = { '&', 0 };

	return binary_level(p, parse_shift, ops);
}

static struct py_node *
parse_bitxor(struct parser *p)
{
	static const int ops[] = { '^', 0 };

	return binary_level(p, parse_bitand, ops);
}

static struct py_node *
parse_expr(struct parser *p)
{
	static const int ops[] = { '|', 0 };

	return binary_level(p, parse_bitxor, ops);
}

/* The comparison operator at the current token (consumed), or 0. */
static int
comp_op(struct parser *p)
{
	static const int simple[] = { '<', '>', PYOP_EQ, PYOP_NE, PYOP_LE, PYOP_GE };

	for (size_t i = 0; i < sizeof(simple) / sizeof(simple[0]); i++)
		if (is_op(p, simple[i])) {
			next(p);
			return simple[i];
		}
	if (is_kw(p, "in")) {
		next(p);
		return PYOP_IN;
	}
	if (is_kw(p, "not") && tok_is_kw(peek(p), "in")) {
		next(p);
		next(p);
		return PYOP_NOTIN;
	}
	if (is_kw(p, "is")) {
		next(p);
		if (is_kw(p, "not")) {
			next(p);
			return PYOP_ISNOT;
		}
		return PYOP_IS;
	}
	return 0;
}

static struct py_node *
parse_comparison(struct parser *p)
{
	struct py_node *left = parse_expr(p), *chain = NULL, *last = NULL;
	int op;

	while ((op = comp_op(p)) != 0) {
		struct py_node *c = node_from(p, PY_COMPARE, left);

		c->op = op;
		c->x = last ? last : left;
		enter(p);
		c->y = parse_expr(p);
		leave(p);
		done(p, c);
		if (!last) {
			chain = c;
		} else {
			if (chain->kind != PY_BOOLOP) {
				struct py_node *b = node_from(p, PY_BOOLOP, left);

				b->op = 'a';
				list_push(p, &b->items, chain);
				chain = b;
			}
			list_push(p, &chain->items, c);
			done(p, chain);
		}
		last = c->y;
	}
	return chain ? chain : left;
}

static struct py_node *
parse_not_test(struct parser *p)
{
	if (is_kw(p, "not")) {
		struct py_node *u = node(p, PY_UNARY);

		next(p);
		u->op = 'n';
		enter(p);
		u->x = parse_not_test(p);
		leave(p);
		return done(p, u);
	}
	return parse_comparison(p);
}

static struct py_node *
bool_level(struct parser *p, struct py_node *(*sub)(struct parser *), const char *kw, int op)
{
	struct py_node *e = sub(p), *b = NULL;

	while (is_kw(p, kw)) {
		if (!b) {
			b = node_from(p, PY_BOOLOP, e);
			b->op = op;
			list_push(p, &b->items, e);
		}
		next(p);
		enter(p);
		list_push(p, &b->items, sub(p));
		leave(p);
	}
	return b ? done(p, b) : e;
}

static struct py_node *
parse_and_test(struct parser *p)
{
	return bool_level(p, parse_not_test, "and", 'a');
}

static struct py_node *
parse_or_test(struct parser *p)
{
	return bool_level(p, parse_and_test, "or", 'o');
}

static struct py_node *
parse_lambda(struct parser *p)
{
	struct py_node *l = node(p, PY_LAMBDA);

	next(p);
	parse_params(p, &l->more, ':', false);
	expect_op(p, ':', "':'");
	l->x = parse_test(p);
	return done(p, l);
}

static struct py_node *
parse_test(struct parser *p)
{
	struct py_node *e;

	enter(p);
	if (is_kw(p, "lambda")) {
		e = parse_lambda(p);
	} else if (is_kw(p, "yield")) {
		struct py_node *y = node(p, PY_YIELD);

		next(p);
		y->op = 'y';
		if (is_kw(p, "from")) {
			next(p);
			y->op = 'f';
			y->x = parse_test(p);
		} else if (!at_closer(p)) {
			y->x = parse_test(p);
		}
		e = done(p, y);
	} else {
		e = parse_or_test(p);
		if (is_kw(p, "if")) {
			struct py_node *c = node_from(p, PY_IFEXP, e);

			next(p);
			c->y = e;
			c->x = parse_or_test(p);
			expect_kw(p, "else");
			c->z = parse_test(p);
			e = done(p, c);
		}
	}
	leave(p);
	return e;
}

static struct py_node *
parse_star_expr(struct parser *p)
{
	if (is_op(p, '*')) {
		struct py_node *s = node(p, PY_STARRED);

		next(p);
		s->op = '*';
		s->x = parse_expr(p);
		return done(p, s);
	}
	return parse_test(p);
}

/* Expressions separated by commas without brackets: a tuple when there is a comma. */
static struct py_node *
parse_exprlist(struct parser *p, bool named)
{
	struct py_node *first = named && !is_op(p, '*') ? parse_namedexpr(p) : parse_star_expr(p), *t;

	if (!is_op(p, ','))
		return first;
	t = node_from(p, PY_TUPLE, first);
	list_push(p, &t->items, first);
	while (is_op(p, ',')) {
		next(p);
		if (at_closer(p))
			break;
		list_push(p, &t->items, parse_star_expr(p));
	}
	return done(p, t);
}

/* Assignment targets of for (no comparisons: `in` ends them), a tuple when there is a comma. */
static struct py_node *
parse_targets(struct parser *p)
{
	struct py_node *first, *t;

	first = is_op(p, '*') ? parse_star_expr(p) : parse_expr(p);
	if (!is_op(p, ','))
		return first;
	t = node_from(p, PY_TUPLE, first);
	list_push(p, &t->items, first);
	while (is_op(p, ',')) {
		next(p);
		if (is_kw(p, "in") || at_closer(p))
			break;
		list_push(p, &t->items, is_op(p, '*') ? parse_star_expr(p) : parse_expr(p));
	}
	return done(p, t);
}

/* Parameters of a def (annotations allowed) or a lambda, up to `close`. */
static void
parse_params(struct parser *p, struct py_list *out, int close, bool annotations)
{
	int mode = 0;

	while (!is_op(p, close)) {
		struct py_node *prm;

		if (is_op(p, '/')) {
			for (size_t i = 0; i < out->n; i++)
				out->v[i]->op = 'p';
			next(p);
		} else if (is_op(p, '*') && (tok_is_op(peek(p), ',') || tok_is_op(peek(p), close))) {
			mode = 'k';
			next(p);
		} else {
			prm = node(p, PY_PARAM);
			if (is_op(p, '*')) {
				prm->op = '*';
				mode = 'k';
				next(p);
			} else if (is_op(p, PYOP_POW)) {
				prm->op = 'd';
				next(p);
			} else {
				prm->op = mode;
			}
			prm->s = expect_name(p);
			if (annotations && is_op(p, ':')) {
				next(p);
				prm->y = is_op(p, '*') ? parse_star_expr(p) : parse_test(p);
			}
			if (is_op(p, '=')) {
				next(p);
				prm->x = parse_test(p);
			}
			list_push(p, out, done(p, prm));
		}
		if (!is_op(p, ','))
			break;
		next(p);
	}
}

/* ------------------------------------------------------------ statements */

static void parse_statements(struct parser *p, struct py_list *body, bool until_dedent);
static void parse_statement(struct parser *p, struct py_list *body);

static void
end_simple(struct parser *p)
{
	char got[48];

	if (p->tok.kind == PYT_NEWLINE || is_op(p, ';'))
		return;
	if (p->tok.kind == PYT_EOF)
		return;
	describe(&p->tok, got, sizeof(got));
	fail(p, &p->tok, "expected the end of the statement, found %s", got);
}

static struct py_node *
parse_dotted(struct parser *p)
{
	char buf[512];
	size_t n = 0;
	struct py_node *a = node(p, PY_ALIAS);

	for (;;) {
		const char *part = expect_name(p);
		size_t len = strlen(part);

		if (n + len + 2 < sizeof(buf)) {
			memcpy(buf + n, part, len);
			n += len;
		}
		if (!is_op(p, '.'))
			break;
		buf[n++] = '.';
		next(p);
	}
	a->s = py_arena_strndup(p->a, buf, n);
	return a;
}

static struct py_node *
parse_import(struct parser *p)
{
	struct py_node *s = node(p, PY_IMPORT);

	next(p);
	for (;;) {
		struct py_node *a = parse_dotted(p);

		if (is_kw(p, "as")) {
			next(p);
			a->s2 = expect_name(p);
		}
		list_push(p, &s->more, done(p, a));
		if (!is_op(p, ','))
			break;
		next(p);
	}
	return done(p, s);
}

static struct py_node *
parse_from(struct parser *p)
{
	struct py_node *s = node(p, PY_FROM);
	bool paren;

	next(p);
	while (is_op(p, '.') || is_op(p, PYOP_ELLIPSIS)) {
		s->op += is_op(p, '.') ? 1 : 3;
		next(p);
	}
	if (!is_kw(p, "import"))
		s->s = parse_dotted(p)->s;
	expect_kw(p, "import");
	if (is_op(p, '*')) {
		struct py_node *a = node(p, PY_ALIAS);

		a->s = "*";
		next(p);
		list_push(p, &s->more, done(p, a));
		return done(p, s);
	}
	paren = is_op(p, '(');
	if (paren)
		next(p);
	for (;;) {
		struct py_node *a = node(p, PY_ALIAS);

		a->s = expect_name(p);
		if (is_kw(p, "as")) {
			next(p);
			a->s2 = expect_name(p);
		}
		list_push(p, &s->more, done(p, a));
		if (!is_op(p, ','))
			break;
		next(p);
		if (paren && is_op(p, ')'))
			break;
	}
	if (paren)
		expect_op(p, ')', "')'");
	return done(p, s);
}

/* An expression statement, an assignment of any kind. */
static struct py_node *
parse_expr_stmt(struct parser *p)
{
	struct py_node *e = parse_exprlist(p, true), *s;

	if (is_op(p, '=')) {
		s = node_from(p, PY_ASSIGN, e);
		list_push(p, &s->items, e);
		while (is_op(p, '=')) {
			struct py_node *v;

			next(p);
			v = is_kw(p, "yield") ? parse_test(p) : parse_exprlist(p, false);
			if (is_op(p, '='))
				list_push(p, &s->items, v);
			else
				s->x = v;
		}
		return done(p, s);
	}
	if (is_op(p, ':')) {
		s = node_from(p, PY_ANNASSIGN, e);
		next(p);
		s->x = e;
		s->y = parse_test(p);
		if (is_op(p, '=')) {
			next(p);
			s->z = is_kw(p, "yield") ? parse_test(p) : parse_exprlist(p, false);
		}
		return done(p, s);
	}
	if (p->tok.kind == PYT_OP && p->tok.op > PYOP_AUG) {
		s = node_from(p, PY_AUGASSIGN, e);
		s->op = p->tok.op - PYOP_AUG;
		next(p);
		s->x = e;
		s->y = is_kw(p, "yield") ? parse_test(p) : parse_exprlist(p, false);
		return done(p, s);
	}
	s = node_from(p, PY_EXPR, e);
	s->x = e;
	return done(p, s);
}

static struct py_node *
parse_simple(struct parser *p)
{
	struct py_node *s;

	if (is_kw(p, "pass") || is_kw(p, "break") || is_kw(p, "continue")) {
		s = node(p, is_kw(p, "pass") ? PY_PASS : is_kw(p, "break") ? PY_BREAK : PY_CONTINUE);
		next(p);
		return done(p, s);
	}
	if (is_kw(p, "return")) {
		s = node(p, PY_RETURN);
		next(p);
		if (!at_closer(p))
			s->x = parse_exprlist(p, false);
		return done(p, s);
	}
	if (is_kw(p, "raise")) {
		s = node(p, PY_RAISE);
		next(p);
		if (!at_closer(p)) {
			s->x = parse_test(p);
			if (is_kw(p, "from")) {
				next(p);
				s->y = parse_test(p);
			}
		}
		return done(p, s);
	}
	if (is_kw(p, "global") || is_kw(p, "nonlocal")) {
		s = node(p, PY_GLOBAL);
		next(p);
		expect_name(p);
		while (is_op(p, ',')) {
			next(p);
			expect_name(p);
		}
		return done(p, s);
	}
	if (is_kw(p, "del")) {
		s = node(p, PY_DEL);
		next(p);
		list_push(p, &s->items, parse_exprlist(p, false));
		return done(p, s);
	}
	if (is_kw(p, "assert")) {
		s = node(p, PY_ASSERT);
		next(p);
		s->x = parse_test(p);
		if (is_op(p, ',')) {
			next(p);
			s->y = parse_test(p);
		}
		return done(p, s);
	}
	if (is_kw(p, "import"))
		return parse_import(p);
	if (is_kw(p, "from"))
		return parse_from(p);
	return parse_expr_stmt(p);
}

static void
parse_simple_line(struct parser *p, struct py_list *body)
{
	for (;;) {
		list_push(p, body, parse_simple(p));
		end_simple(p);
		if (!is_op(p, ';'))
			break;
		next(p);
		if (p->tok.kind == PYT_NEWLINE || p->tok.kind == PYT_EOF)
			break;
	}
	if (p->tok.kind == PYT_NEWLINE)
		next(p);
}

/* After a compound statement's ':': an indented block or simple statements on the line. */
static void
parse_suite(struct parser *p, struct py_list *body)
{
	char got[48];

	expect_op(p, ':', "':'");
	if (p->tok.kind != PYT_NEWLINE) {
		parse_simple_line(p, body);
		return;
	}
	next(p);
	if (p->tok.kind != PYT_INDENT) {
		describe(&p->tok, got, sizeof(got));
		fail(p, &p->tok, "expected an indented block, found %s", got);
	}
	next(p);
	enter(p);
	parse_statements(p, body, true);
	leave(p);
}

static struct py_node *
parse_if(struct parser *p)
{
	struct py_node *top = node(p, PY_IF), *cur = top;

	next(p);
	top->x = parse_namedexpr(p);
	parse_suite(p, &top->items);
	/* elif chains are nested IFs, built in a loop: a long chain costs no stack */
	while (is_kw(p, "elif")) {
		struct py_node *e = node(p, PY_IF);

		next(p);
		e->x = parse_namedexpr(p);
		parse_suite(p, &e->items);
		list_push(p, &cur->more, e);
		cur = e;
	}
	if (is_kw(p, "else")) {
		next(p);
		parse_suite(p, &cur->more);
	}
	return top;
}

static struct py_node *
parse_loop(struct parser *p)
{
	struct py_node *s;

	if (is_kw(p, "while")) {
		s = node(p, PY_WHILE);
		next(p);
		s->x = parse_namedexpr(p);
	} else {
		s = node(p, PY_FOR);
		next(p);
		s->x = parse_targets(p);
		expect_kw(p, "in");
		s->y = parse_exprlist(p, false);
	}
	parse_suite(p, &s->items);
	if (is_kw(p, "else")) {
		next(p);
		parse_suite(p, &s->more);
	}
	return s;
}

static struct py_node *
parse_with(struct parser *p)
{
	struct py_node *s = node(p, PY_WITH);
	bool paren = false;

	next(p);
	/* with (a as b, c as d): is ambiguous with a parenthesised expression; take the items form */
	if (is_op(p, '(')) {
		struct pyt_lexer save = p->lx;
		struct pyt_token t;
		int depth = 1;
		bool has_as = false;

		if (!p->have_peek) {
			while (depth > 0) {
				pyt_next(&p->lx, &t);
				if (t.kind == PYT_EOF || t.kind == PYT_ERROR || t.kind == PYT_NEWLINE)
					break;
				if (t.kind == PYT_OP && (t.op == '(' || t.op == '[' || t.op == '{'))
					depth++;
				else if (t.kind == PYT_OP && (t.op == ')' || t.op == ']' || t.op == '}'))
					depth--;
				else if (depth == 1 && tok_is_kw(&t, "as"))
					has_as = true;
			}
			pyt_next(&p->lx, &t);
			paren = has_as && tok_is_op(&t, ':');
			p->lx = save;
		}
		if (paren)
			next(p);
	}
	for (;;) {
		struct py_node *it = node(p, PY_WITHITEM);

		it->x = parse_test(p);
		if (is_kw(p, "as")) {
			next(p);
			it->y = parse_star_expr(p);
		}
		list_push(p, &s->more, done(p, it));
		if (!is_op(p, ','))
			break;
		next(p);
		if (paren && is_op(p, ')'))
			break;
	}
	if (paren)
		expect_op(p, ')', "')'");
	parse_suite(p, &s->items);
	return s;
}

static struct py_node *
parse_try(struct parser *p)
{
	struct py_node *s = node(p, PY_TRY);

	next(p);
	parse_suite(p, &s->items);
	while (is_kw(p, "except")) {
		struct py_node *h = node(p, PY_HANDLER);

		next(p);
		if (is_op(p, '*'))
			next(p);
		if (!is_op(p, ':')) {
			h->x = parse_test(p);
			if (is_op(p, ',')) {
				struct py_node *t = node_from(p, PY_TUPLE, h->x);

				list_push(p, &t->items, h->x);
				while (is_op(p, ',')) {
					next(p);
					list_push(p, &t->items, parse_test(p));
				}
				h->x = done(p, t);
			}
			if (is_kw(p, "as")) {
				next(p);
				h->s2 = expect_name(p);
			}
		}
		parse_suite(p, &h->items);
		list_push(p, &s->more, h);
	}
	if (is_kw(p, "else")) {
		next(p);
		parse_suite(p, &s->extra);
	}
	if (is_kw(p, "finally")) {
		next(p);
		parse_suite(p, &s->extra);
	}
	return s;
}

static struct py_node *
parse_def(struct parser *p, struct py_list *decorators)
{
	struct py_node *s = node(p, PY_DEF);

	next(p);
	s->s = expect_name(p);
	if (is_op(p, '[')) {
		/* PEP 695 type parameters: not modelled */
		int depth = 0;

		do {
			if (is_op(p, '['))
				depth++;
			else if (is_op(p, ']'))
				depth--;
			next(p);
		} while (depth > 0 && p->tok.kind != PYT_EOF);
	}
	expect_op(p, '(', "'('");
	enter(p);
	parse_params(p, &s->more, ')', true);
	expect_op(p, ')', "')'");
	leave(p);
	if (is_op(p, PYOP_ARROW)) {
		next(p);
		s->x = parse_test(p);
	}
	if (decorators)
		s->extra = *decorators;
	parse_suite(p, &s->items);
	return s;
}

static struct py_node *
parse_class(struct parser *p, struct py_list *decorators)
{
	struct py_node *s = node(p, PY_CLASS);

	next(p);
	s->s = expect_name(p);
	if (is_op(p, '(')) {
		struct py_node *c = node(p, PY_CALL);

		enter(p);
		next(p);
		parse_call_args(p, c);
		leave(p);
		s->more = c->items;
		for (size_t i = 0; i < c->more.n; i++)
			list_push(p, &s->more, c->more.v[i]);
	}
	if (decorators)
		s->extra = *decorators;
	parse_suite(p, &s->items);
	return s;
}

/* Does the logical line starting here end with ':'? (match x: / case y:) */
static bool
line_ends_with_colon(struct parser *p)
{
	struct pyt_lexer save = p->lx;
	struct pyt_token t, last = p->have_peek ? p->peek : p->tok;

	if (last.kind == PYT_NEWLINE || last.kind == PYT_EOF)
		return false;
	for (;;) {
		pyt_next(&p->lx, &t);
		if (t.kind == PYT_NEWLINE || t.kind == PYT_EOF || t.kind == PYT_ERROR)
			break;
		last = t;
	}
	p->lx = save;
	return tok_is_op(&last, ':');
}

/* A statement the checker does not model, header and block: consumed as tokens. */
static struct py_node *
skip_compound(struct parser *p)
{
	struct py_node *s = node(p, PY_SKIPPED);
	int depth = 0;

	while (p->tok.kind != PYT_NEWLINE && p->tok.kind != PYT_EOF)
		next(p);
	if (p->tok.kind == PYT_NEWLINE)
		next(p);
	if (p->tok.kind != PYT_INDENT)
		return s;
	do {
		if (p->tok.kind == PYT_INDENT)
			depth++;
		else if (p->tok.kind == PYT_DEDENT)
			depth--;
		if (p->tok.kind == PYT_EOF)
			break;
		next(p);
	} while (depth > 0);
	return s;
}

static void
parse_statement(struct parser *p, struct py_list *body)
{
	struct py_list deco = { NULL, 0, 0 };

	if (p->tok.kind == PYT_INDENT)
		fail(p, &p->tok, "unexpected indent");
	while (is_op(p, '@')) {
		next(p);
		list_push(p, &deco, parse_namedexpr(p));
		if (p->tok.kind != PYT_NEWLINE)
			fail(p, &p->tok, "expected the end of the line after a decorator");
		next(p);
	}
	if (is_kw(p, "async") && (tok_is_kw(peek(p), "def") || tok_is_kw(peek(p), "for") ||
				  tok_is_kw(peek(p), "with")))
		next(p);
	if (is_kw(p, "def")) {
		list_push(p, body, parse_def(p, &deco));
	} else if (is_kw(p, "class")) {
		list_push(p, body, parse_class(p, &deco));
	} else if (deco.n) {
		fail(p, &p->tok, "expected 'def' or 'class' after a decorator");
	} else if (is_kw(p, "if")) {
		list_push(p, body, parse_if(p));
	} else if (is_kw(p, "for") || is_kw(p, "while")) {
		list_push(p, body, parse_loop(p));
	} else if (is_kw(p, "with")) {
		list_push(p, body, parse_with(p));
	} else if (is_kw(p, "try")) {
		list_push(p, body, parse_try(p));
	} else if ((is_kw(p, "type") && peek(p)->kind == PYT_NAME && !is_keyword(peek(p))) ||
		   (is_kw(p, "match") && !tok_is_op(peek(p), '=') && !tok_is_op(peek(p), '.') &&
		    peek(p)->kind != PYT_NEWLINE && line_ends_with_colon(p))) {
		/* soft keywords: `type X = ...` and `match x:` with its cases */
		list_push(p, body, skip_compound(p));
	} else {
		parse_simple_line(p, body);
	}
}

static void
recover(struct parser *p, int level)
{
	if (p->m->total_problems >= GIVE_UP_AFTER) {
		p->m->gave_up = true;
		return;
	}
	p->have_peek = false;
	/* an unclosed bracket ran into the next statement: resume at that statement */
	if (p->err_tok.kind != PYT_EOF && p->err_tok.kind != PYT_ERROR && p->err_tok.p &&
	    p->err_tok.line > p->stmt_line && first_on_line(&p->err_tok) && starts_statement(&p->err_tok))
		pyt_resume_at_line(&p->lx, &p->err_tok, level);
	else
		pyt_skip_statement(&p->lx, level);
	p->err_tok.kind = PYT_EOF;
	p->tok.kind = PYT_NEWLINE;
	/* the first token after the skip may itself be bad: report it in the next round */
	pyt_next(&p->lx, &p->tok);
	if (p->tok.kind == PYT_ERROR) {
		add_problem(p->m, p->tok.line, p->tok.col, "%s", p->tok.msg);
		pyt_skip_statement(&p->lx, level);
		pyt_next(&p->lx, &p->tok);
		if (p->tok.kind == PYT_ERROR)
			p->tok.kind = PYT_NEWLINE;
	}
}

static void
parse_statements(struct parser *p, struct py_list *body, bool until_dedent)
{
	jmp_buf jb;
	jmp_buf *saved = p->jb;
	int level = p->lx.nindent, depth = p->depth;

	for (;;) {
		if (p->m->gave_up)
			break;
		if (setjmp(jb)) {
			p->jb = saved;
			p->depth = depth;
			recover(p, level);
			continue;
		}
		p->jb = &jb;
		while (p->tok.kind == PYT_NEWLINE)
			next(p);
		if (p->tok.kind == PYT_EOF)
			break;
		if (p->tok.kind == PYT_DEDENT) {
			if (until_dedent) {
				next(p);
				break;
			}
			next(p);
			continue;
		}
		p->stmt_line = p->tok.line;
		parse_statement(p, body);
	}
	p->jb = saved;
}

const char *
py_line_at(const char *src, size_t len, int line, size_t *n)
{
	const char *p = src, *end = src + len, *q;

	for (int at = 1; at < line; at++) {
		while (p < end && *p != '\n' && *p != '\r')
			p++;
		if (p == end)
			return NULL;
		p += (*p == '\r' && p + 1 < end && p[1] == '\n') ? 2 : 1;
	}
	if (line < 1 || (p == end && line > 1))
		return NULL;
	for (q = p; q < end && *q != '\n' && *q != '\r'; q++)
		;
	*n = (size_t)(q - p);
	return p;
}

struct py_module *
py_parse(const char *src, size_t len)
{
	struct py_module *m = xcalloc(1, sizeof(*m));
	struct parser p;
	jmp_buf jb;

	m->arena = py_arena_new();
	memset(&p, 0, sizeof(p));
	p.m = m;
	p.a = m->arena;
	m->root = node_at(&p, PY_MODULE, 1, 1);
	for (size_t i = 0; i < len; i++)
		if (src[i] == '\n' || (src[i] == '\r' && (i + 1 == len || src[i + 1] != '\n')))
			m->lines++;
	if (len && src[len - 1] != '\n' && src[len - 1] != '\r')
		m->lines++;
	if (len > PY_MAX_SOURCE) {
		add_problem(m, 1, 1, "the source is %zu MiB; at most %u MiB are read", len >> 20,
			    PY_MAX_SOURCE >> 20);
		m->gave_up = true;
		return m;
	}
	pyt_init(&p.lx, src, len);
	p.jb = &jb;
	if (setjmp(jb) == 0) {
		lex(&p, &p.tok);
		parse_statements(&p, &m->root->items, false);
	} else {
		/* the first token was bad: start over past it */
		recover(&p, 1);
		if (!m->gave_up && setjmp(jb) == 0)
			parse_statements(&p, &m->root->items, false);
	}
	m->root->end_line = (int)m->lines;
	return m;
}

void
py_module_free(struct py_module *m)
{
	if (!m)
		return;
	py_arena_free(m->arena);
	free(m);
}

/* ------------------------------------------------------------ helpers */

static const char *const kind_names[] = {
	"NAME", "INT", "FLOAT", "STR", "CONST", "ELLIPSIS", "ATTR", "CALL", "KEYWORD",
	"SUBSCRIPT", "SLICE", "TUPLE", "LIST", "SET", "DICT", "BINOP", "UNARY", "BOOLOP",
	"COMPARE", "IFEXP", "LAMBDA", "STARRED", "COMP", "NAMED", "YIELD", "MODULE", "DEF",
	"PARAM", "CLASS", "ASSIGN", "AUGASSIGN", "ANNASSIGN", "EXPR", "IF", "FOR", "WHILE",
	"WITH", "WITHITEM", "RETURN", "IMPORT", "FROM", "ALIAS", "TRY", "HANDLER", "RAISE",
	"ASSERT", "DEL", "PASS", "BREAK", "CONTINUE", "GLOBAL", "SKIPPED",
};

const char *
py_kind_name(enum py_kind k)
{
	if ((size_t)k < sizeof(kind_names) / sizeof(kind_names[0]))
		return kind_names[k];
	return "?";
}

bool
py_dotted(const struct py_node *n, char *out, size_t cap)
{
	const struct py_node *chain[32];
	size_t depth = 0, len = 0;

	out[0] = 0;
	while (n && n->kind == PY_ATTR && depth < 31) {
		chain[depth++] = n;
		n = n->x;
	}
	if (!n || n->kind != PY_NAME)
		return false;
	chain[depth++] = n;
	while (depth--) {
		size_t k = strlen(chain[depth]->s);

		if (len + k + 2 > cap) {
			out[0] = 0;
			return false;
		}
		if (chain[depth]->kind == PY_ATTR)
			out[len++] = '.';
		memcpy(out + len, chain[depth]->s, k);
		len += k;
	}
	out[len] = 0;
	return true;
}

struct rbuf {
	char *p;
	size_t cap, len;
};

static void
radd(struct rbuf *r, const char *s)
{
	while (*s && r->len + 1 < r->cap)
		r->p[r->len++] = *s++;
	r->p[r->len] = 0;
}

static const char *
op_text(int op)
{
	static char one[2];

	switch (op) {
	case PYOP_EQ: return " == ";
	case PYOP_NE: return " != ";
	case PYOP_LE: return " <= ";
	case PYOP_GE: return " >= ";
	case PYOP_LSHIFT: return " << ";
	case PYOP_RSHIFT: return " >> ";
	case PYOP_POW: return " ** ";
	case PYOP_FLOORDIV: return " // ";
	case PYOP_IN: return " in ";
	case PYOP_NOTIN: return " not in ";
	case PYOP_IS: return " is ";
	case PYOP_ISNOT: return " is not ";
	case '<': return " < ";
	case '>': return " > ";
	case '+': return " + ";
	case '-': return " - ";
	case '*': return " * ";
	case '/': return " / ";
	case '%': return " % ";
	case '@': return " @ ";
	case '&': return " & ";
	case '|': return " | ";
	case '^': return " ^ ";
	default:
		one[0] = (char)op;
		one[1] = 0;
		return one;
	}
}

static void render(struct rbuf *r, const struct py_node *n, int depth);

static void
render_list(struct rbuf *r, const struct py_list *l, int depth)
{
	for (size_t i = 0; i < l->n; i++) {
		if (i)
			radd(r, ", ");
		render(r, l->v[i], depth + 1);
	}
}

static void
render(struct rbuf *r, const struct py_node *n, int depth)
{
	if (!n || depth > 12 || r->len + 1 >= r->cap) {
		radd(r, n ? "..." : "");
		return;
	}
	switch (n->kind) {
	case PY_NAME: case PY_INT: case PY_FLOAT: case PY_CONST:
		radd(r, n->s);
		break;
	case PY_STR:
		radd(r, "'");
		radd(r, n->s);
		radd(r, "'");
		break;
	case PY_ELLIPSIS:
		radd(r, "...");
		break;
	case PY_ATTR:
		render(r, n->x, depth + 1);
		radd(r, ".");
		radd(r, n->s);
		break;
	case PY_CALL:
		render(r, n->x, depth + 1);
		radd(r, "(");
		render_list(r, &n->items, depth);
		for (size_t i = 0; i < n->more.n; i++) {
			if (i || n->items.n)
				radd(r, ", ");
			render(r, n->more.v[i], depth + 1);
		}
		radd(r, ")");
		break;
	case PY_KEYWORD:
		radd(r, n->s ? n->s : "**");
		if (n->s)
			radd(r, "=");
		render(r, n->x, depth + 1);
		break;
	case PY_SUBSCRIPT:
		render(r, n->x, depth + 1);
		radd(r, "[");
		if (n->y && n->y->kind == PY_TUPLE)
			render_list(r, &n->y->items, depth);
		else
			render(r, n->y, depth + 1);
		radd(r, "]");
		break;
	case PY_SLICE:
		render(r, n->x, depth + 1);
		radd(r, ":");
		render(r, n->y, depth + 1);
		if (n->z) {
			radd(r, ":");
			render(r, n->z, depth + 1);
		}
		break;
	case PY_TUPLE:
		radd(r, "(");
		render_list(r, &n->items, depth);
		radd(r, n->items.n == 1 ? ",)" : ")");
		break;
	case PY_LIST:
		radd(r, "[");
		render_list(r, &n->items, depth);
		radd(r, "]");
		break;
	case PY_BINOP: case PY_COMPARE:
		render(r, n->x, depth + 1);
		radd(r, op_text(n->op));
		render(r, n->y, depth + 1);
		break;
	case PY_UNARY:
		radd(r, n->op == 'n' ? "not " : n->op == '-' ? "-" : n->op == '+' ? "+" : "~");
		render(r, n->x, depth + 1);
		break;
	case PY_BOOLOP:
		for (size_t i = 0; i < n->items.n; i++) {
			if (i)
				radd(r, n->op == 'a' ? " and " : " or ");
			render(r, n->items.v[i], depth + 1);
		}
		break;
	case PY_STARRED:
		radd(r, n->op == 'd' ? "**" : "*");
		render(r, n->x, depth + 1);
		break;
	case PY_IFEXP:
		render(r, n->y, depth + 1);
		radd(r, " if ");
		render(r, n->x, depth + 1);
		radd(r, " else ");
		render(r, n->z, depth + 1);
		break;
	case PY_LAMBDA:
		radd(r, "lambda ...");
		break;
	default:
		radd(r, "...");
		break;
	}
}

void
py_render(const struct py_node *n, char *out, size_t cap)
{
	struct rbuf r = { out, cap, 0 };

	if (!cap)
		return;
	out[0] = 0;
	render(&r, n, 0);
}
