/* SPDX-License-Identifier: MIT */
/*
 * Pieces of the rules loader shared by the modules that parse a section of
 * their own (contexts.c): patterns and examples are read the same way
 * everywhere. Not for commands: they use pt/rules.h.
 */
#ifndef PT_RULES_PARSE_H
#define PT_RULES_PARSE_H

#include "pt/diag.h"
#include "pt/rules.h"
#include "pt/ytree.h"

/* Where examples_parse() stores the two lists (owned by the caller's object). */
struct example_lists {
	struct example **match;
	size_t *nmatch;
	struct example **nomatch;
	size_t *nnomatch;
};

/* Compile one pattern node; a bad regex is reported at the node with its
 * offset. Returns a new pattern (pattern_free()), or NULL. */
struct pattern *pattern_parse(const struct ynode *n, enum pat_role role, const char *file,
			      struct diag *d);
void pattern_free(struct pattern *p);
/* An `examples` mapping (match, no_match) into out. Returns -1 on errors in d. */
int examples_parse(const struct ynode *en, struct example_lists *out, const char *file,
		   struct diag *d);
void examples_free(struct example *ex, size_t n);

/* contexts.c: the `contexts` list and the `confidence` mapping. */
int contexts_parse_section(struct ruleset *rs, const struct ynode *list, const char *file,
			   struct diag *d);
int confidence_parse(struct ruleset *rs, const struct ynode *map, const char *file,
		     struct diag *d);
/* Resolve context names (rules, contexts, the policy) into indexes; errors into d. */
void contexts_link(struct ruleset *rs, struct diag *d);
void contexts_free(struct ruleset *rs);

/* rules_method.c: a class's method keys (rules_out, moves_to, keeps, undecided,
 * explanations, more_info) from class node cn into cd; -1 on errors in d. */
int class_method_parse(struct class_def *cd, const struct ynode *cn, const char *file,
		       struct diag *d);
void class_method_release(struct class_def *cd);
/* The top-level `more_info` list of a file, appended to rs->more_info. */
int more_info_parse(struct ruleset *rs, const struct ynode *root, const char *file, struct diag *d);
/* A rule's `refine` list ({when, subkind, message}) into r->refine; -1 on errors in d. */
int rule_refine_parse(struct rule *r, const struct ynode *rn, const char *file, struct diag *d);
/* Cross-checks once every file is in: each rung's hypothesis is an explanation of its class. */
void method_check(const struct ruleset *rs, struct diag *d);

#endif
