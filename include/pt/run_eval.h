/* SPDX-License-Identifier: MIT */
/*
 * Judging runs of the user's command for `pallas-triage run`: the outcome of
 * one run, what repeated runs say about nondeterminism, what the precision
 * sweep says about precision versus logic, and the result of an attempt in
 * the session. No I/O: the command layer prints.
 *
 * The classifier only reads text, so what a log cannot say (a hang, a death
 * by signal, outcomes that differ between runs, the sweep's answer) is handed
 * to it as facts: one line per event, RUN_LINE_PREFIX and NAME=VALUE tokens
 * in a fixed order, like git's porcelain output. The rules in rules/run.yaml
 * match those tokens and give them their class and weight; the sentences
 * `run` prints about them are texts of rules/run.yaml too (pt/run_texts.h),
 * picked by the same facts. No sentence travels from here to a rule.
 * docs/run.md lists the facts.
 */
#ifndef PT_RUN_EVAL_H
#define PT_RUN_EVAL_H

#include <stdbool.h>
#include <stddef.h>
#include "pt/buf.h"
#include "pt/classify.h"
#include "pt/runner.h"
#include "pt/session.h"
#include "pt/vars.h"

#define RUN_LINE_PREFIX "pt-run: "

/*
 * Facts, in the order they are written. The first nline of v go on the
 * fact line; the rest are values shown in the texts only ("exit 1", a class
 * label), which may hold spaces. Release with run_facts_release().
 */
struct run_facts {
	struct vars v;
	size_t nline;
};
#define RUN_FACTS_INIT { VARS_INIT, 0 }
void run_facts_release(struct run_facts *f);
/* "pt-run: NAME=VALUE NAME=VALUE\n" of f's line facts, appended to out. */
void run_facts_line(const struct run_facts *f, struct buf *out);

/* The numbers compared between runs, as rules capture them. */
#define RUN_NNUMBERS 4
/* max_abs, max_rel, mismatched, mismatch_pct */
extern const char *const run_number_names[RUN_NNUMBERS];

enum run_outcome {
	OUTCOME_PASS,               /* exited 0 and no Pallas failure class was recognised */
	OUTCOME_FAIL,               /* a non-zero exit, or failure evidence despite exit 0 */
	OUTCOME_HANG,               /* stopped at the timeout */
	OUTCOME_CRASH,              /* killed by a signal */
	OUTCOME_INTERRUPTED,        /* stopped because we were interrupted */
};

/* One run, reduced to what the comparisons need. Owns its strings. */
struct run_record {
	struct runner_result res;
	const char *precision;      /* sweep level (static string), or NULL */
	enum pt_class cls;
	char *subkind;              /* may be NULL */
	char *fingerprint;
	char *numbers[RUN_NNUMBERS];/* captured values, NULL when the output had none */
	char *backend, *platform;   /* the verdict's (mosaic-tpu, mosaic-gpu, triton; tpu, gpu), or NULL */
	bool small_error;           /* the verdict is only printed errors within run_pass's bounds */
};

/*
 * r from a run that ended as res and gave verdict v (rs: the rules, for
 * their run_pass bounds).
 */
void run_record_fill(struct run_record *r, const struct runner_result *res,
		     const struct verdict *v, const char *precision, const struct ruleset *rs);
void run_record_release(struct run_record *r);
enum run_outcome run_outcome_of(const struct run_record *r);
/* "exit 1", "SIGSEGV", "timeout", "interrupted" */
void run_ending_text(const struct runner_result *res, struct buf *out);

/*
 * The fact line (ending in '\n') of how one run ended, appended to out: a
 * hang at the timeout (timeout in seconds; timeout_default: it was not
 * given), a death by signal, or a shell's 128+N status. Nothing for a
 * plain exit:
 *   pt-run: ending=timeout timeout_s=30 timeout_from=option stopped_by=SIGTERM
 *   pt-run: ending=signal signal=11 signame=SIGSEGV
 *   pt-run: ending=exit exit_code=139 signal=11 signame=SIGSEGV
 */
void run_end_lines(const struct runner_result *res, double timeout, bool timeout_default,
		   struct buf *out);

/* --repeat: do the runs agree? */
enum repeat_kind {
	REPEAT_ALL_PASS,            /* every run passed */
	REPEAT_SAME,                /* the same failure every time: deterministic */
	REPEAT_DIFFERENT,           /* outcomes differ: nondeterministic */
};

struct repeat_cmp {
	enum repeat_kind kind;
	size_t nruns, npass;
	bool ending_differs;        /* exit status, signal or hang */
	bool fingerprint_differs;   /* between failing runs */
	bool number_differs[RUN_NNUMBERS];
};

void run_compare(const struct run_record *r, size_t n, struct repeat_cmp *out);
/*
 * The facts of comparison c of runs r, into out (empty):
 *   pt-run: repeat=nondeterministic runs=3 differs=max_abs,max_rel passed=0
 * shown: differs_text ("max_abs, max_rel"), failure ("exit 1,
 * numerics/mismatch, max_abs 0.25": the first failing run).
 */
void run_compare_facts(const struct repeat_cmp *c, const struct run_record *r,
		       struct run_facts *out);

/* --sweep-precision: the levels of JAX_DEFAULT_MATMUL_PRECISION, in order. */
#define RUN_PRECISION_ENV "JAX_DEFAULT_MATMUL_PRECISION"
#define RUN_NLEVELS 3
/* "default", "high", "highest": the canonical names every JAX accepts
 * (bfloat16, tensorfloat32 and float32 are older names for the same levels) */
extern const char *const run_precision_levels[RUN_NLEVELS];

enum sweep_kind {
	SWEEP_NO_FAILURE,           /* right at every level */
	SWEEP_POLICY,               /* right at highest, wrong at default: precision policy */
	SWEEP_LOGIC,                /* wrong at every level: not precision, a logic bug */
	SWEEP_INCONCLUSIVE,         /* anything else (hangs, other classes, no pattern) */
};

/*
 * On a GPU the levels mean TF32 at default and high and IEEE f32 at highest
 * for Pallas Triton's dots, while Mosaic GPU's WGMMA and tcgen05 run f32
 * operands as TF32 at every level: there "wrong at every level" is no proof
 * of a logic bug, and the sweep says it cannot tell.
 */
struct sweep_verdict {
	enum sweep_kind kind;
	bool gpu;                   /* some run's verdict placed the kernel on a GPU */
	char *text;                 /* for people, from rules/run.yaml; a new string */
	enum pt_class ruled_cls;    /* what it rules out; CLASS_COUNT: nothing */
	char *ruled_subkind;        /* may be NULL */
	char *ruled_reason;         /* the ruled-out entry's reason, or NULL */
};

/*
 * r holds RUN_NLEVELS runs, in the order of run_precision_levels: their
 * kind into out and their facts into facts (empty; the text and what it
 * rules out come from the rules, in run_judge()):
 *   pt-run: sweep=precision-policy default=wrong high=right highest=right
 *           platform=tpu backend=mosaic-tpu error=shrinks
 * with reason=error-shrinks|mosaic-gpu-tf32|other-outcome|no-pattern after
 * sweep=inconclusive; shown: max_abs_default, max_abs_highest, other_level,
 * other_ending, other_class.
 */
void run_sweep_judge(const struct run_record *r, struct sweep_verdict *out,
		     struct run_facts *facts);
void sweep_verdict_release(struct sweep_verdict *sv);
/* "precision-policy", "logic-bug", "no-failure", "inconclusive" */
const char *sweep_kind_name(enum sweep_kind k);

/*
 * The result of this run as an attempt: fixed when it passed; same when the
 * failure fingerprint equals the previous attempt's (or, before the first
 * attempt, the session's); new otherwise.
 */
enum attempt_result run_attempt_result(const struct session *s, bool passed,
				       const struct verdict *v);

/*
 * Is a run with result res an attempt? Only when something says a change
 * was made: the user named it (change_stated: --change or --rung), or the
 * outcome differs from the failure the session stands on (fixed, or a new
 * failure). Rerunning an unchanged command reproduces the failure: that is
 * no attempt, and recording the rung's suggestion as made would be false.
 */
bool run_is_attempt(enum attempt_result res, bool change_stated);

/* True when runs r[0..n) all passed (and there was one). */
bool run_all_passed(const struct run_record *r, size_t n);

/*
 * What runs r[0..n) say together: for a sweep (all RUN_NLEVELS runs) its
 * verdict in sv, else for n > 1 the comparison in cmp (both are set either
 * way: zero, and sv->ruled_cls CLASS_COUNT, when they do not apply). The
 * facts go to facts, their line to lines (for the classifier); the text of
 * rs that the facts pick is the conclusion for people, appended to
 * conclusion, and for a sweep it also says what is ruled out. Release sv
 * with sweep_verdict_release(), facts with run_facts_release().
 */
void run_judge(const struct ruleset *rs, const struct run_record *r, size_t n, bool sweep,
	       struct repeat_cmp *cmp, struct sweep_verdict *sv, struct run_facts *facts,
	       struct buf *conclusion, struct buf *lines);

/*
 * The note a recorded attempt keeps of the runs r[0..n) (n >= 1; cmp when
 * n > 1; timeout: --timeout in seconds): "pallas-triage run --repeat 3:
 * nondeterministic, last run: exit 1". Returns a new string.
 */
char *run_attempt_note(const struct run_record *r, size_t n, const struct repeat_cmp *cmp,
		       double timeout);

#endif
