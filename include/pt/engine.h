/* SPDX-License-Identifier: MIT */
/*
 * Inside the classifier: what the line matcher (linematch.c) hands to the
 * scorer (score.c) and to the verdict builder (verdict.c) once the log has
 * been read. Commands use pt/classify.h, not this.
 *
 * Everything here is borrowed from the classifier and lives until
 * classifier_free().
 */
#ifndef PT_ENGINE_H
#define PT_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include "pt/classify.h"
#include "pt/rules.h"
#include "pt/vars.h"

/* A user source frame: from a Python traceback or a Mosaic loc(...). */
struct snap_frame {
	char *file, *func;
	long line, col;
};

/* A pattern's first hit, if any. */
struct pat_state {
	bool hit;
	size_t line;
	char *text;                 /* the hit line (or joined lines), capped at EVIDENCE_MAX_TEXT */
	size_t mstart, mend;
	struct snap_frame where;    /* the last user frame seen before the hit */
};

struct engine_result {
	const struct ruleset *rs;
	const struct pat_state *ps;        /* one per ruleset pattern */
	const struct vars *rcaps;          /* one per rule: its captures */
	const struct vars *env;            /* facts */
	const struct snap_frame *loc_frame, *last_frame;
	const char *last_error;            /* the last error-looking line, or NULL */
	size_t last_error_line;
	const struct context_assertion *asserted;  /* contexts held on someone's word */
	size_t nasserted;
	/* Filled by score_contexts(), one per ruleset context. */
	bool *ctx_held;
	double *ctx_score;
	size_t *ctx_done;                  /* the line where it held on its own evidence, or SIZE_MAX */
};

/* Why context id holds on someone's word (struct context_assertion), or NULL. */
const char *engine_asserted_why(const struct engine_result *e, const char *id);
/*
 * Evaluate every context into e->ctx_held, e->ctx_score and e->ctx_done
 * (arrays the caller allocated). A context counts its own evidence up to
 * the line where it reaches its threshold: what made it hold.
 */
void score_contexts(struct engine_result *e);
/* A context's score from its own evidence (no assertion), and *done as in ctx_done. */
double score_context_own(const struct engine_result *e, const struct context_def *cx, size_t *done);

/*
 * While the log is read: which patterns can no longer change the verdict,
 * whatever the rest of the log holds. Quiet are the patterns of a context
 * that held on its own evidence, and those of a rule that can no longer
 * fire: a `none` pattern of it hit, a context it requires can no longer
 * hold or one it excludes holds for good, or it is of the fallback tier
 * and a specific rule of a kernel class has fired for good (no `none`
 * pattern, its contexts settled). Facts stay until they hit. Only ps,
 * rs and asserted of e are read.
 */
struct settle {
	bool *quiet;                /* one per ruleset pattern, caller-allocated: filled */
	unsigned char *ctx;         /* one per context, caller-allocated scratch */
	bool rule_fired_final;      /* a rule with a key line has fired for good: the
	                             * last error line can no longer reach the verdict */
};
void score_settle(const struct engine_result *e, struct settle *st);
/* Did rule r fire: its patterns, and the contexts it requires or excludes. */
bool score_rule_fired(const struct engine_result *e, const struct rule *r);
/* The rule's key line: its first `any` hit, else its first `all` hit, or NULL. */
const struct pat_state *score_rule_key(const struct engine_result *e, const struct rule *r);
/*
 * The fired rules that count (the fallback tier only when no specific rule
 * of a kernel class fired), the class scores, the winner and runner-up, and
 * the confidence with the policy's caps.
 */
void score_verdict(const struct engine_result *e, struct verdict *v);

/* Evidence, values, location, key line, message, reason, fingerprint, contexts. */
void verdict_build(const struct engine_result *e, struct verdict *v);

#endif
