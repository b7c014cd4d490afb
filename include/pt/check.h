/* SPDX-License-Identifier: MIT */
/*
 * `pallas-triage check`: read Pallas kernel source without running it and
 * report what will fail or is likely wrong (docs/check.md). The source is
 * parsed (pt/pyast.h) and interpreted abstractly: module constants,
 * defaults, call-site arguments, functools.partial, arithmetic and the
 * shapes of example arrays give values; each pallas_call (and the
 * emit_pipeline calls inside its kernel) is described by its grid, block
 * specs, operands, scratch and compiler params; the kernel body is walked
 * with its refs bound, recording copies, semaphores, reads, writes, dots and
 * exps. Five analyses read that record: layout and capacity through the
 * block and VMEM calculators (block.c, vmem.c, gpu_block.c, smem.c),
 * synchronization, numerics and unsupported operations. The texts of the
 * findings, the modules the checker knows and the primitives that do not
 * lower come from the rules (`checks`, `check_modules`, `check_primitives`
 * sections; pt/checktab.h).
 *
 * The module never prints: results are data (struct check_result), and
 * check_print.c writes them. It is meant to be called by other commands:
 * triage (pt/check_triage.h), and the session, which re-checks the kernel on
 * every attempt and reports the difference (check_compare()).
 *
 * A value the file does not fix stays unknown and carries the name it
 * needs; a finding that depends on one is not made: a note names the value
 * (--shape NAME=DIMS[:DTYPE], --set NAME=VALUE supply it). Nothing is
 * guessed.
 */
#ifndef PT_CHECK_H
#define PT_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include "pt/buf.h"
#include "pt/diag.h"
#include "pt/rules.h"
#include "pt/vars.h"

struct chip;
struct gpu;
struct check_def;

#define CHECK_MAX_FILES 100000      /* a directory walk stops after this many .py files */

enum check_severity { CHECK_ERROR, CHECK_WARNING, CHECK_NOTE };

const char *check_severity_name(enum check_severity s);   /* "error", "warning", "note" */

/* A value for a name the file leaves open: --shape x=1024,512:bf16 or --set bk=512. */
struct check_binding {
	const char *name;           /* borrowed */
	const char *value;          /* "1024,512:bfloat16" (shape) or "512" (set) */
	bool shape;                 /* --shape: an array of that shape and dtype */
};

struct check_opts {
	const struct ruleset *rs;   /* borrowed: the checks, modules, primitives, chips, API table */
	const char *chip;           /* --chip (a TPU or a GPU of the chip table), or NULL */
	const char *jax_version;    /* --jax, or NULL: API names and lowerings as of that release */
	const struct check_binding *bind;
	size_t nbind;
};

struct check_finding {
	const struct check_def *def;    /* borrowed from the ruleset: code, name, class */
	int severity;                   /* enum check_severity: the code's, or a note where a
					 * compiler rule meets a backend the file does not name */
	char *file;                     /* as given (a path under the directory walked) */
	int line, col, end_col;         /* 1-based; end_col 0 when not known. The line to change:
					 * where the wrong value is written (a constant, a
					 * default) when that is not where it is used */
	int use_line, use_col, use_end_col; /* where the value is used (the BlockSpec), when that is
					 * not line; 0 otherwise */
	char *message;                  /* one line, with the numbers */
	char *source;                   /* the source line it points at (at most 400 bytes) */
	char *use_source;               /* the source line at use_line, or NULL */
	char *fix;                      /* the concrete change, or NULL */
	int fix_line;                   /* the line the fix changes (the value's definition) */
	char *kernel;                   /* the kernel function, or NULL */
	int call_line;                  /* the pallas_call the finding belongs to, 0 for none */
	struct vars vars;               /* the values the texts were filled from */
	char **rung_ids;                /* NULL-terminated: ladder rungs this fix makes concrete */
	char **rung_fixes;              /* the same length: the change text for each */
};

/* What the checker understood of one pallas_call (for JSON, triage, the session). */
struct check_kernel {
	char *file;
	char *name;                     /* the kernel function, or NULL */
	int line;                       /* the pallas_call */
	int def_line, def_end;          /* the kernel function's lines, 0 when not found */
	const char *backend;            /* "mosaic-tpu", "triton", "mosaic-gpu" (static text) */
	char *grid;                     /* "(8, 4, 16)", or NULL when not known */
	unsigned long long vmem_bytes;  /* the static working set (TPU VMEM or GPU shared memory) */
	bool vmem_known;                /* every block and scratch shape was known */
	char *vmem_detail;              /* "2 x 1 MiB blocks + ... ", or NULL */
	char *halve_fix[2];             /* "k.py:12: bn=1024 -> 512": the largest block's last and
					 * second-to-last dim halved, where written; NULL if none */
};

struct check_problem {
	char *file;
	int line, col;                  /* 0 when the whole file is meant */
	char *message;
	bool fatal;                     /* nothing of the file was checked */
};

struct check_result {
	struct check_finding *f;        /* sorted by file, line, column, code */
	size_t n, alloc;
	struct check_kernel *k;
	size_t nk, alloc_k;
	struct check_problem *p;
	size_t np, alloc_p;
	size_t files, lines;            /* read and checked */
};

#define CHECK_RESULT_INIT { NULL, 0, 0, NULL, 0, 0, NULL, 0, 0, 0, 0 }

/*
 * Check one file, or every *.py file under a directory (hidden directories,
 * __pycache__ and symbolic links are skipped; names in sorted order). The
 * results are appended to r. A path that cannot be read, a file that is not
 * a regular file or is too large, and syntax errors are problems in r, not
 * errors: the rest is still checked. Returns 0, or -1 with err set when opts
 * are unusable (an unknown chip, a bad --shape: PT_EXIT_USAGE; rules without
 * a `checks` section: PT_EXIT_DATA).
 */
int check_path(const struct check_opts *o, const char *path, struct check_result *r,
	       struct pt_err *err);
/* check_path() for one file: the API other commands call. */
int check_file(const struct check_opts *o, const char *path, struct check_result *r,
	       struct pt_err *err);
/* Check source held in memory, named `name` in the results. Same errors as check_path(). */
int check_source(const struct check_opts *o, const char *name, const char *src, size_t len,
		 struct check_result *r, struct pt_err *err);

/* Counts of errors, warnings and notes in r. */
void check_counts(const struct check_result *r, size_t *errors, size_t *warnings, size_t *notes);
/* The first finding of class cls with severity error or warning, or NULL. */
const struct check_finding *check_first_of(const struct check_result *r, enum pt_class cls);
/* The kernel whose function or pallas_call spans `line` of file, else the only one, else NULL. */
const struct check_kernel *check_kernel_at(const struct check_result *r, const char *file, long line);

void check_result_release(struct check_result *r);

/*
 * What changed between two checks of the same kernel (the session's
 * attempts): findings that went away, findings that are new, and kernels
 * whose working set or grid changed, one sentence per line appended to out.
 * A finding is the same in both when its code and message are (the line
 * may move). Returns the number of lines written; 0 means no difference.
 */
size_t check_compare(const struct check_result *before, const struct check_result *after,
		     struct buf *out);

#endif
