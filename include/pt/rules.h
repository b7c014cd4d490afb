/* SPDX-License-Identifier: MIT */
/*
 * The rule model: classifier rules, classes, ladders, debug flags, error
 * codes and environment facts, all loaded from the rules directory (schema in
 * docs/rules.md). A struct ruleset owns everything in it; one ruleset_free()
 * frees the tree. A set from the cache holds strings that lie in the cache's
 * bytes, so whatever frees a string of a ruleset uses xfree() (pt/xalloc.h).
 * Once loaded (ruleset_finish(), or rules_cache_load()) a ruleset is
 * read-only, its patterns compiled: threads may share it.
 */
#ifndef PT_RULES_H
#define PT_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include "pt/diag.h"

struct match;
struct chiptab;
struct jaxapi;
struct checktab;

/* The prefilter indexes 4-byte windows: a shorter literal cannot be found. */
#define RULE_MIN_LITERAL 4

/* The six verdicts, in this fixed order everywhere (scores, JSON, tables). */
enum pt_class {
	CLASS_LAYOUT,
	CLASS_CAPACITY,
	CLASS_SYNCHRONIZATION,
	CLASS_NUMERICS,
	CLASS_UNSUPPORTED,
	CLASS_UNKNOWN,
	CLASS_COUNT
};

const char *class_name(enum pt_class c);
/*
 * The label of a diagnosis everywhere it is shown: "class", or
 * "class/subkind" when subkind is not NULL. CLASS_COUNT, which a session
 * uses for "no failure any more", is "fixed". Returns a new string (free()).
 */
char *class_label(enum pt_class c, const char *subkind);
/* Returns CLASS_COUNT for an unknown name. */
enum pt_class class_from_name(const char *name);

/*
 * The grammar of names that the rules define and a session records. A name
 * (rung, family, subkind, fingerprint) is 1 to RULES_NAME_MAX bytes of a-z,
 * 0-9, '.', '_' and '-', starting with a letter or digit; a rule id is a
 * name with a '.' inside ("family.kebab-name"); a value's name (a capture,
 * a fact) may also hold A-Z. Nothing else can hold a control byte or a
 * space, so these print as they are wherever they are shown.
 */
#define RULES_NAME_MAX 128
bool rules_name_valid(const char *s);
bool rules_rule_id_valid(const char *s);
bool rules_var_name_valid(const char *s);

enum stage { STAGE_COMPILE, STAGE_RUNTIME, STAGE_NUMERIC };
const char *stage_name(enum stage s);

/* PAT_CAPTURE (`capture`) only reads values (a test id, a shape): it makes no rule fire and is no evidence. */
enum pat_role { PAT_ANY, PAT_ALL, PAT_NONE, PAT_CAPTURE };

/*
 * A rule of the specific tier names one failure; a fallback rule decides
 * from the stage and the words of the innermost error, and is heard only
 * when no specific rule of a kernel class fired; an observed rule reads
 * what `run` saw happen (a result that changes between runs, a hang, a
 * precision sweep), and its class outranks any count of patterns
 * (docs/accuracy.md).
 */
enum rule_tier { TIER_SPECIFIC, TIER_FALLBACK, TIER_OBSERVED };

struct pattern {
	char *src;                 /* the PCRE2 source as written */
	enum pat_role role;
	struct match *m;           /* compiled (never NULL in a loaded ruleset); read-only */
	char **lits;               /* required literals (literal.h), NULL-terminated; set by finish */
	char **ahead;              /* what a top-level lookahead requires of the subject
	                            * (literal_extract_ahead()), NULL-terminated; set by finish */
	char **also;               /* a second requirement of every match (literal_extract_also()),
	                            * NULL-terminated, or NULL for none; set by finish */
	char *tail;                /* literal_lookahead_tail() of src, or NULL; set by finish */
	char **scan_lits;          /* what the prefilter keys it on: lits, or the rule's declared
	                            * literals when some of lits are too short; NULL when it must
	                            * run on every line. Borrowed from one of those; set by finish */
	int line, col;             /* position in the rules file */
	struct rule *rule;         /* owning rule (borrowed back-pointer), NULL for facts and contexts */
	size_t index;              /* position in ruleset->patterns */
};

struct example {
	char *log;                 /* a mini log, may hold several lines */
	char **cap_names, **cap_values; /* expected captures, NULL-terminated */
	int line;
};

struct rule {
	char *id;
	enum pt_class cls;
	char *subkind;             /* may be NULL */
	enum stage stage;
	int weight;                /* 1..100 */
	struct pattern **pats;     /* any, all and none patterns */
	size_t npats;
	size_t nany, nall, nnone;
	char **literals;           /* declared literals, NULL-terminated or NULL */
	char *message;
	char *explain;             /* may be NULL */
	char **links;              /* NULL-terminated, may be NULL */
	bool overrides;
	struct example *match_ex, *nomatch_ex;
	size_t nmatch_ex, nnomatch_ex;
	char *file;                /* where it was defined */
	int line;
	char *origin;              /* pack name, or NULL for shipped rules */
	size_t index;              /* position in ruleset->rules */
	enum rule_tier tier;
	char **requires, **excludes; /* context ids, NULL-terminated or NULL */
	int *req_ctx, *exc_ctx;    /* the same as context indexes, -1-terminated; set by ruleset_finish */
	char **refine;             /* WHEN, SUBKIND, MESSAGE triples, or NULL: once the values are
				    * derived, the first whose value WHEN is known gives the
				    * verdict that subkind and message (physical VMEM exceeded) */
};

/*
 * A log-wide context (rules/contexts.yaml): what kind of program wrote the
 * log. It holds when its evidence, combined like a class's rules
 * (1 - prod(1 - w/100)), reaches `threshold`, every context in `requires`
 * holds and none in `excludes` does; or when a context in `implied_by`
 * holds. Rules name contexts instead of
 * repeating the same tie regex.
 */
struct context_def {
	char *id;
	char *summary;             /* one line: what it means that it holds */
	char *missing;             /* may be NULL: what an unknown verdict says when it does not hold */
	int threshold;             /* 1..100 */
	struct pattern **pats;     /* evidence, role PAT_ANY */
	int *weights;              /* one per pattern, 1..100 */
	size_t npats;
	char **requires, **excludes, **implied_by;
	int *req_ctx, *exc_ctx, *imp_ctx; /* indexes of earlier contexts, -1-terminated; set by ruleset_finish */
	char **sets;               /* NAME, VALUE pairs, NULL-terminated, or NULL: values a verdict
				    * gets while the context holds (backend, platform) */
	struct example *match_ex, *nomatch_ex;
	size_t nmatch_ex, nnomatch_ex;
	char *file;
	int line;
	size_t index;              /* position in ruleset->contexts */
};

/*
 * Caps on the confidence (percent): a kernel class decided without the
 * kernel context, and any verdict decided by the fallback tier.
 */
struct confidence_policy {
	char *kernel_context;      /* context id, or NULL for no cap */
	int kernel_ctx;            /* its index, or -1; set by ruleset_finish */
	int without_context_max;   /* 1..100, default 100 */
	int fallback_max;          /* 1..100, default 100 */
};

/*
 * The two answers to the interpret-mode question that tell something
 * (skipping it tells nothing); a class says what each means for it.
 */
enum interp_outcome { OUTCOME_REPRODUCES, OUTCOME_NO_REPRO, OUTCOME_COUNT };

/* "reproduces", "does-not-reproduce": the keys under rules_out, moves_to, keeps. */
const char *interp_outcome_name(enum interp_outcome o);

struct class_def {
	enum pt_class cls;
	char *title, *summary, *interpret, *interpret_note, *explain;
	char *gpu_interpret_note;  /* the same for a GPU kernel (GPU interpret mode), or NULL */
	char **next_steps;         /* what to capture or try next, NULL-terminated or NULL */
	/* The method as data (docs/rules.md, "Classes"); each list is
	 * NULL-terminated, or NULL when the class does not say. */
	char **rules_out[OUTCOME_COUNT]; /* what the answer rules out of this class: SUBKIND,
					  * REASON pairs, SUBKIND "" for the whole class */
	char **moves_to[OUTCOME_COUNT];  /* where a diagnosis of this class goes when the answer
					  * rules it out: "class" or "class/subkind", tried by the
					  * first log's score, the last one the default */
	char *keeps[OUTCOME_COUNT];      /* why the diagnosis stands when the answer could be
					  * read against it, or NULL */
	char **undecided;          /* subkinds (and no subkind) not settled yet: any answer
				    * moves such a diagnosis along moves_to */
	char **explanations;       /* subkinds evidence rules out one by one; all of them out
				    * leaves nothing to believe and stops the walk */
	char **more_info;          /* what the escalation report asks for, for this class */
	char **fingerprint;        /* values that tell one failure of the class from another
				    * (the test, the file, the dtype, the size): hashed into
				    * the fingerprint with the masked key line */
	char **next_steps_run;     /* the same under a verdict of `run` (the value `command` is
				    * set: run captured both streams itself), or NULL */
};

/* Is subkind (may be NULL) undecided for class cd (no subkind counts as undecided)? */
bool class_undecided(const struct class_def *cd, const char *subkind);

struct flag_def {
	char *id, *snippet, *why;
	char *file;                 /* where it was defined, for the API lint */
	int line, col;
};

struct rung {
	char *id, *family, *action, *change, *fallback, *expect;
	char **requires, **subkinds, **flags;  /* NULL-terminated, may be NULL */
	char **unless;              /* values that hide the rung when known, may be NULL */
	char **backends;            /* NULL-terminated, or NULL for every backend: the backends
				     * (or, when the backend is not known, platforms) it is for */
	char *hypothesis;           /* a subkind of its class (one of the class's
				     * explanations) the rung tests: the same error after it
				     * rules that subkind out; NULL for a rung that only fixes */
	size_t index;               /* position in its ladder */
	char *file;                 /* where it was defined, for the API lint */
	int line, col;
};

/*
 * A class's ladder may be given in several entries (a TPU one, a GPU one):
 * their rungs are appended in file order. At most one entry per class
 * leaves out `backends`.
 */
struct ladder {
	enum pt_class cls;
	struct rung *rungs;
	size_t nrungs;
	bool have_plain;            /* an entry without `backends` was read */
};

struct code_def {
	char *code, *name, *summary, *link;   /* name and link may be NULL */
	enum pt_class cls;
};

struct fact_def {
	char *id, *sets, *file;
	struct pattern *pat;
	char **examples;
};

/*
 * A sentence of `pallas-triage run` (rules/run.yaml, `run_texts`): the
 * first entry whose `when` facts all hold says what the runs' facts mean
 * (run_text_pick(), pt/run_texts.h). Nothing of it is read back by a rule.
 */
struct run_text {
	char **when;                /* NAME, VALUE pairs, NULL-terminated */
	char *text;                 /* the conclusion, with ${fact} placeholders */
	char *rules_out;            /* "class" or "class/subkind" the session rules out, or NULL */
	char *reason;               /* why, for the ruled-out list; set with rules_out */
	char *file;
	int line;
};

/*
 * When a run that exits 0 still passes although rules fired (`run_pass`):
 * every rule of the verdict's class that fired is one of `rules` (rules that
 * only measure, such as a printed error metric), and every max_abs and
 * max_rel it captured is at most the bound.
 */
struct run_pass {
	char **rules;               /* rule ids, NULL-terminated, or NULL: no such pass */
	char *max_abs, *max_rel;    /* the bounds as written (numbers), or NULL */
	char *file;                 /* where it was defined, or NULL */
};

struct litset;

struct ruleset {
	struct rule **rules;
	size_t nrules, alloc_rules;
	struct pattern **patterns;  /* every pattern of every rule and fact, for the scanner */
	size_t npatterns, alloc_patterns;
	size_t *always;             /* indices of the patterns without scan_lits; set by finish */
	size_t nalways;
	const char **env_fields;    /* ruleset_env_fields(); names borrowed; set by finish */
	struct litset *prefilter;   /* owned, may be NULL: the classifier's first prefilter
	                             * built without a sample (classify_prefilter_new()),
	                             * kept in the rules cache; a finish drops it */
	struct class_def classes[CLASS_COUNT];
	bool have_class[CLASS_COUNT];
	struct ladder ladders[CLASS_COUNT];
	struct flag_def *flags;
	size_t nflags, alloc_flags;
	struct code_def *codes;
	size_t ncodes, alloc_codes;
	struct fact_def *facts;
	size_t nfacts, alloc_facts;
	struct context_def *contexts;
	size_t ncontexts, alloc_contexts;
	struct confidence_policy policy;
	struct run_text *run_texts; /* in file order: the first match wins */
	size_t nrun_texts, alloc_run_texts;
	struct run_pass run_pass;
	struct chiptab *chips;      /* may be NULL when no chips.yaml was loaded */
	struct jaxapi *api;         /* the JAX API table; NULL when no jax-api.yaml was loaded */
	char **more_info;           /* what every escalation report asks for (top-level
				     * `more_info`), after the classes' own; may be NULL */
	struct checktab *checks;    /* the source checker's data (check.yaml); may be NULL */
	bool from_cache;            /* loaded from the rules cache, which holds only checked sets */
	void *cache_bytes;          /* owned, or NULL: the cache file's bytes, lent (pt/xalloc.h)
	                             * while its strings and prefilter point into them */
	size_t cache_len;
	bool cache_mapped;          /* cache_bytes is a private mapping (munmap()), else malloc'd */
	struct xarena *cache_arena; /* owned, or NULL: where a cached set's records and lists lie */
	char **files;               /* files read, in order */
	size_t nfiles, alloc_files;
};

/* Returns a new empty ruleset; free with ruleset_free(). */
struct ruleset *ruleset_new(void);
void ruleset_free(struct ruleset *rs);

/*
 * Load every *.yaml file of dir (in name order) into rs. Problems go to d;
 * returns -1 when any error was found (the ruleset must then not be used)
 * or when dir cannot be read (err says why).
 */
int ruleset_load_dir(struct ruleset *rs, const char *dir, const char *origin, struct diag *d,
		     struct pt_err *err);
/* Load one file's text (a rule pack from memory); `name` is used in diagnostics. */
int ruleset_load_buf(struct ruleset *rs, const char *buf, size_t len, const char *name,
		     const char *origin, struct diag *d);
/*
 * Cross-file checks after all files are loaded: every class defined, ladders
 * refer to known flags, at least one rule. Returns -1 if d got errors.
 */
int ruleset_finish(struct ruleset *rs, struct diag *d);

const struct rule *ruleset_find_rule(const struct ruleset *rs, const char *id);
const struct code_def *ruleset_find_code(const struct ruleset *rs, const char *code);
const struct flag_def *ruleset_find_flag(const struct ruleset *rs, const char *id);
/* Returns the context's index, or -1. */
int ruleset_find_context(const struct ruleset *rs, const char *id);

/*
 * The environment fields (jax_version, chip, ...): the names the contexts
 * and facts set (`sets`), each once, the contexts' first. This is the one
 * list of them: every printer of the environment asks the rules. Returns a
 * NULL-terminated array owned by rs, valid until ruleset_free(); set by
 * ruleset_finish().
 */
const char *const *ruleset_env_fields(const struct ruleset *rs);
/* Does a context or fact of rs set name? */
bool ruleset_is_env_field(const struct ruleset *rs, const char *name);

/*
 * Find the rules directory: opt (from --rules), env (from
 * $PALLAS_TRIAGE_RULES; may be NULL), $XDG_DATA_HOME/pallas-triage/rules
 * (or ~/.local/share/...), the installed data directory, the source tree's
 * rules/. Returns a new string (free()), or NULL with err set when none exists.
 */
char *rules_locate(const char *opt, const char *env, struct pt_err *err);
/* The user's rules directory: a new string, or NULL when neither
 * $XDG_DATA_HOME nor $HOME is an absolute path (util_xdg_dir()). */
char *rules_user_dir(void);

#endif
