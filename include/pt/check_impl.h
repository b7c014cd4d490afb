/* SPDX-License-Identifier: MIT */
/*
 * Inside the source checker (check*.c only; the API is pt/check.h): the
 * abstract values, scopes and interpreter state, the description of a
 * pallas_call and what walking its kernel recorded, and the entry points of
 * the analyses.
 *
 * Every value, scope and record lives in the file's arena (cx->a) and dies
 * with it; nothing here is freed one by one.
 */
#ifndef PT_CHECK_IMPL_H
#define PT_CHECK_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pt/block.h"
#include "pt/check.h"
#include "pt/checktab.h"
#include "pt/jaxapi.h"
#include "pt/pyast.h"
#include "pt/vars.h"

struct chip;
struct gpu;
struct dtype;

#define CK_MAX_CALL_DEPTH 16        /* user functions inlined inside each other */
#define CK_MAX_STEPS 400000         /* statements and expressions interpreted per file */
#define CK_MAX_EVAL_DEPTH 150       /* nested expressions evaluated */
#define CK_MAX_REFS 64              /* refs of one kernel that reads are tracked for */
#define CK_MAX_UNROLL 8             /* a loop over a literal tuple this short runs per element */

enum val_kind {
	VAL_UNKNOWN,    /* s: the name it needs, or NULL */
	VAL_NONE,
	VAL_BOOL,       /* i */
	VAL_INT,        /* i; origin, origin_name: where the number was written */
	VAL_FLOAT,      /* f */
	VAL_STR,        /* s */
	VAL_TUPLE,      /* elts (lists too) */
	VAL_DICT,       /* kwn/kwv: the entries with string keys; i: all the entries of a literal */
	VAL_DTYPE,      /* dt, or s when the table lacks the name */
	VAL_FUNC,       /* fn, closure; partial's bound args in elts and kwn/kwv */
	VAL_API,        /* s: a module or API member ("pl.BlockSpec"); partial's args; self */
	VAL_OBJ,        /* s: what made it ("pl.BlockSpec"); its call's args in elts, kwn/kwv */
	VAL_ARRAY,      /* an array outside a kernel: shape, dt */
	VAL_REF,        /* a kernel ref or a view of one: ref; s: the view's index text */
	VAL_TRACED,     /* a traced value inside a kernel: dt, shape, flags */
	VAL_CLASS,      /* a class of the file: fn (PY_CLASS), closure (its body's names) */
	VAL_INST,       /* an instance: fn (its class), closure (its attributes, parent the class's) */
	VAL_ALT,        /* one of several functions (a branch chose): elts; calling it calls each */
};

/* What a traced value is known to be made of. */
enum {
	VF_FROM_DOT = 1u << 0,      /* a matmul product, or made from one */
	VF_LOWP_DOT = 1u << 1,      /* a low-precision matmul without preferred_element_type */
	VF_FROM_EXP = 1u << 2,      /* made from an exp */
	VF_RAW_EXP = 1u << 3,       /* an exp of a value with nothing subtracted */
	VF_SUBTRACTED = 1u << 4,    /* a - b (perhaps scaled): a stabilised exponent */
	VF_STATE = 1u << 5,         /* a ref read or a loop carry, unchanged */
	VF_RUNNING_MAX = 1u << 6,   /* maximum(state, ...): an online-softmax running max */
	VF_MAX_REDUCE = 1u << 7,    /* a max reduction */
	VF_NEGATED = 1u << 8,       /* -x */
	VF_ZERO = 1u << 9,          /* zeros (an accumulator's init) */
	VF_CALLED = 1u << 10,       /* OBJ pallas_call: it was called with operands */
	VF_DATACLASS = 1u << 11,    /* CLASS: its annotated fields are its __init__ */
	VF_PROPERTY = 1u << 12,     /* FUNC: a property, called on attribute access */
	VF_SOME = 1u << 13,         /* TUPLE: its one element stands for an unknown number of them */
	VF_ACCUM = 1u << 14,        /* state + product with the state not rescaled (accum_*) */
	VF_CARRY = 1u << 15,        /* a loop carry (with VF_STATE) */
	VF_DS_TRACED = 1u << 16,    /* OBJ pl.ds: its size is traced (legal in a DMA's view only) */
};

enum ref_role { ROLE_PREFETCH, ROLE_INPUT, ROLE_OUTPUT, ROLE_SCRATCH, ROLE_SEM, ROLE_OTHER };

struct kref {
	const char *name;           /* the kernel's parameter name */
	int bit;                    /* index in refmask, or -1 */
	enum ref_role role;
	enum block_memory mem;
	bool any;                   /* memory_space ANY/HBM: the whole array, copied by hand */
	bool has_shape;
	struct shape shape;         /* the block as the kernel sees it */
	const struct dtype *dt;     /* NULL when not known */
	int spec;                   /* index among inputs / outputs / scratch */
	unsigned red_axes;          /* outputs: grid axes its index map ignores (revisits) */
	bool red_known;
	bool aliased;               /* an output that input_output_aliases fills */
	bool unnamed;               /* made by run_scoped or get_barrier_semaphore: the first
				     * name it is bound to names it */
};

struct val {
	enum val_kind kind;
	unsigned flags;             /* VF_* */
	long long i;
	double f;
	const char *s;
	struct val **elts;
	size_t n;
	const char **kwn;
	struct val **kwv;
	size_t nkw;
	const struct dtype *dt;
	const struct py_node *node;     /* the expression that made it */
	const struct py_node *origin;   /* a number's literal */
	const char *origin_name;        /* the name it was bound to where it was written */
	const struct py_node *fn;       /* FUNC: PY_DEF or PY_LAMBDA */
	struct scope *closure;
	struct val *self;               /* a bound method's receiver */
	unsigned pid_mask;              /* grid axes it depends on */
	int pid_axis;                   /* exactly program_id(axis), else -1 */
	unsigned eq0_mask;              /* a test that holds only where program_id(a) == 0 */
	uint64_t refmask;               /* refs whose reads it is made from */
	bool has_shape;
	struct shape shape;
	struct kref *ref;
	struct kdma *dma;               /* OBJ "dma": the copy it describes */
	struct val *index;              /* REF view (ref.at[i]): the index value */
	const struct py_node *exp_node; /* VF_RAW_EXP: the exp call */
	const struct py_node *dot_node; /* VF_LOWP_DOT: the dot call */
	const struct py_node *accum_node; /* VF_ACCUM: the addition */
	const struct py_node *accum_state; /* VF_ACCUM: the state operand as written */
	struct val *accum_other;        /* VF_ACCUM: what was added */
	uint64_t accum_refs;            /* VF_ACCUM: the refs the state was read from */
};

struct scope {
	struct scope *parent;
	const char **names;             /* unique, in the order they were first bound */
	struct val **vals;
	unsigned *hashes;               /* of each name (scope_hash()): most misses cost no strcmp */
	size_t n, alloc;
	bool module;
	struct val *cls;                /* a class body's scope: the class */
};

/* One event of a kernel walk, in program order. */
enum kev_kind {
	KEV_WRITE,      /* ref store: ref, node; rmw when the value reads the ref itself */
	KEV_READ,       /* ref load: ref, index text */
	KEV_START,      /* a DMA started: dma */
	KEV_WAIT,       /* .wait(): both semaphores of a remote copy */
	KEV_WAIT_SEND,
	KEV_WAIT_RECV,
	KEV_SIGNAL,     /* semaphore_signal: sem root in s */
	KEV_SEMWAIT,    /* semaphore_wait */
	KEV_ACCUM,      /* state + product, unscaled (online softmax without rescale) */
};

struct kdma {
	const char *dst, *dst_index;    /* the destination's root ref and view index text */
	const char *src;
	const char *sem, *sem_index;    /* the (receive) semaphore */
	struct val *dst_ix, *sem_ix;    /* the views' index values (NULL: the whole ref) */
	const struct py_node *sem_node; /* where the semaphore (view) passed was written */
	const char *send_sem;           /* a remote copy's send semaphore, else NULL */
	bool remote;
	bool known;                     /* dst and sem resolved to kernel refs */
	const struct py_node *node;     /* where the descriptor was made */
};

struct kev {
	enum kev_kind kind;
	const struct py_node *node;
	struct kref *ref;
	const char *index;              /* the view's index text */
	struct val *ix;                 /* READ/WRITE: the index value, or NULL */
	bool whole;                     /* READ: x[...] of the ref or of a view of it */
	struct kdma *dma;
	const char *sem;
	struct val *v;                  /* WRITE: the value stored; ACCUM: the product added */
	const struct py_node *state;    /* ACCUM: the state operand as written */
	bool rmw, aug, zero;            /* WRITE: read-modify-write, written as +=, a zeros init */
	bool identity;                  /* WRITE: x[...] = x[...] (neither an init nor an update) */
	bool scaled;                    /* WRITE: the ref's value times something (a rescale) */
	unsigned cond_eq0;              /* program_id(a) == 0 for a in mask holds here */
	int cond_depth;                 /* conditions around it (pl.when, cond, if) */
	bool cond_unknown;              /* some condition around it is not a program_id test */
	bool in_loop;
};

/* A BlockSpec as the checker sees it. */
struct kspec {
	const struct py_node *node;     /* the BlockSpec call (or the in_specs entry) */
	bool present;                   /* a spec was given (else the whole array) */
	struct val *block;              /* the block_shape value, or NULL */
	struct val *index_map;          /* FUNC, or NULL */
	bool any;                       /* memory_space ANY / HBM */
	bool smem;
	bool sem;                       /* memory_space SEMAPHORE: a semaphore, not data */
	int buffers;                    /* pipeline_mode=Buffered(n); 2 by default */
};

/* An operand (input or output) of a pallas_call. */
struct karg {
	struct val *v;                  /* ARRAY (shape, dtype), or UNKNOWN */
	const char *name;               /* the expression passed ("x", "q"), or NULL */
	struct kspec spec;
};

struct kscratch {
	const struct py_node *node;
	const char *kind;               /* "vmem", "smem", "dma", "regular", "barrier", "gpu-smem" */
	bool has_shape;
	struct shape shape;
	const struct dtype *dt;
	struct val *shape_val;
};

/* One pallas_call (or emit_pipeline) as called. */
struct kcall {
	const struct py_node *node;     /* the pallas_call(...) call */
	const struct py_node *kernel;   /* PY_DEF or PY_LAMBDA of the kernel, or NULL */
	struct scope *kernel_scope;     /* its closure */
	struct val *kernel_fn;          /* FUNC with partial's bound keywords */
	const char *backend;            /* "mosaic-tpu", "triton", "mosaic-gpu" */
	bool backend_assumed;           /* nothing in the file or options said which: TPU assumed */
	struct val *grid;               /* TUPLE, INT, or NULL (no grid: one step) */
	int grid_rank;                  /* -1 when not known */
	long long grid_dims[8];         /* 0 when a dim is not known */
	int nprefetch;
	struct karg *in, *out;
	size_t nin, nout;
	bool in_known, out_known;       /* the lists were readable */
	struct kscratch *scratch;
	size_t nscratch;
	bool scratch_known;
	struct val *params;             /* compiler_params OBJ or DICT */
	struct val *semantics;          /* dimension_semantics TUPLE */
	unsigned arbitrary_axes;        /* from dimension_semantics */
	bool semantics_known;
	unsigned long long vmem_limit;  /* vmem_limit_bytes, 0 = not given */
	const struct py_node *vmem_limit_node;
	const struct py_node *params_node;
	bool collective_id;
	bool aliases;                   /* input_output_aliases given */
	int num_stages, num_warps, max_concurrent_steps;  /* 0 = default */
	bool from_call_site;            /* reached through a call with arguments */
	bool is_pipeline;               /* emit_pipeline inside a kernel */
	bool interpret;                 /* interpret=True or InterpretParams: no compiler runs */
	struct kcall *outer;            /* emit_pipeline: the kernel it runs in */
	unsigned long long inner_vmem;  /* emit_pipeline buffers inside this kernel */
	bool inner_vmem_unknown;
	/* what walking the kernel recorded */
	struct kev *ev;
	size_t nev, alloc_ev;
	struct kref **refs;
	size_t nrefs, alloc_refs;
	bool unknown_wait;              /* a wait on a descriptor the walk could not resolve */
	bool unknown_start;
	bool running_max;               /* an online-softmax running max exists */
	bool barrier_used;
	const struct py_node *barrier_node;
	const struct py_node *first_step[8];  /* a pl.when(program_id(a) == 0) body, per axis */
	bool layout_known;              /* every block, array and dtype was known to the layout check */
	bool need_noted;                /* a note about a missing value was made */
	bool vmem_known;                /* the working set was computed */
	unsigned long long vmem_total;
	char *vmem_detail;
	const char *halve_fix[2];       /* the capacity ladder's halved blocks, where to write them */
};

/* A pending check of one file: the interpreter's state and what it found. */
struct cctx {
	const struct check_opts *o;
	const struct ruleset *rs;
	const struct checktab *tab;
	const struct chip *chip;        /* --chip when a TPU */
	const struct gpu *gpu;          /* --chip when a GPU */
	bool jv_known;
	struct jaxver jv;
	const char *file;
	const char *src;
	size_t len;
	struct py_module *m;
	struct py_arena *a;
	struct scope *module;
	const char *file_backend;       /* from the modules the file uses, or NULL */
	bool sparsecore;                /* the file imports Pallas SparseCore (plsc) */
	struct kcall **calls;           /* every pallas_call analysed */
	size_t ncalls, alloc_calls;
	struct val **pending;           /* pallas_call objects made but not (yet) called */
	size_t npending, alloc_pending;
	struct val **defs;              /* functions defined, to run standalone if nothing calls them */
	size_t ndefs, alloc_defs;
	const struct py_node **entered; /* functions interpreted at least once */
	size_t nentered, alloc_entered;
	const struct py_node **kernels; /* functions used as kernels */
	size_t nkernels, alloc_kernels;
	long steps;
	unsigned scoped_seq;            /* numbers the refs run_scoped makes */
	struct check_result *r;
	struct check_finding *found;    /* this file's findings before merging */
	size_t nfound, alloc_found;
};

/* The interpreter's registers for one function activation. */
struct interp {
	struct cctx *cx;
	struct scope *scope;
	struct kcall *k;                /* walking a kernel body, else NULL */
	const struct interp *caller;    /* the call this one is inlined in, else NULL */
	const struct py_node *fn;       /* the function being run, else NULL */
	int call_depth, eval_depth;
	struct val *ret;
	bool returned;
	bool from_call_site;            /* the outermost user call had real arguments */
	unsigned cond_eq0;              /* conditions around the current statement */
	int cond_depth;
	bool cond_unknown;
	int loop_depth;
	int aug_op;                     /* the operator of the augmented assignment being stored */
	int try_depth;                  /* inside try bodies that have handlers: errors are caught */
};

/* memcpy of n elements that may be none (and then come from a NULL array). */
static inline void
ck_copy(void *dst, const void *src, size_t n, size_t size)
{
	if (n)
		memcpy(dst, src, n * size);
}

/* ---- values (check_value.c) ---- */
struct val *val_new(struct cctx *cx, enum val_kind k, const struct py_node *node);
struct val *val_unknown(struct cctx *cx, const char *need, const struct py_node *node);
struct val *val_int(struct cctx *cx, long long i, const struct py_node *node);
struct val *val_copy(struct cctx *cx, const struct val *v);
struct val *val_tuple(struct cctx *cx, size_t n, const struct py_node *node);
struct val *val_traced(struct cctx *cx, const struct dtype *dt, const struct py_node *node);
bool val_is_int(const struct val *v);
/* A tuple of known ints as a shape (None and pl.Squeezed() count 1, noted in squeezed). */
bool val_shape(const struct val *v, struct shape *out);
/* The first unknown name a value needs, or NULL (tuples: their elements). */
const char *val_need(const struct val *v);
/* "(256, 1000)", "bk", "512" ... into out. */
void val_format(const struct val *v, char *out, size_t cap);
const char *val_kwarg(const struct val *v, const char *name, struct val **out);
struct val *val_arg(const struct val *v, size_t pos, const char *name);
/* The merge of two values at a join: the same value, or unknown naming `name`. */
struct val *val_join(struct cctx *cx, struct val *a, struct val *b, const char *name);
char *ck_strdup(struct cctx *cx, const char *s);
char *ck_printf(struct cctx *cx, const char *fmt, ...) PT_PRINTF(2, 3);
struct scope *scope_new(struct cctx *cx, struct scope *parent);
unsigned scope_hash(const char *name);
void scope_set(struct cctx *cx, struct scope *s, const char *name, struct val *v);
void scope_append(struct cctx *cx, struct scope *s, const char *name, unsigned hash, struct val *v);
struct val *scope_get(const struct scope *s, const char *name);

/* Do two index values name the same slot (the same value, equal ints, or tuples of such)? */
bool val_same_index(const struct val *a, const struct val *b);

/* ---- the interpreter (check_eval.c) ---- */
struct val *ck_eval(struct interp *in, const struct py_node *n);
void ck_exec_block(struct interp *in, const struct py_list *body);
/* Call f with positional args and keywords; node is the call site. */
struct val *ck_call(struct interp *in, struct val *f, struct val **args, size_t nargs,
		    const char **kwn, struct val **kwv, size_t nkw, const struct py_node *node);
/* Run a user function (FUNC) with bound arguments in a fresh activation. */
struct val *ck_call_user(struct interp *in, struct val *f, struct val **args, size_t nargs,
			 const char **kwn, struct val **kwv, size_t nkw, const struct py_node *node);
void ck_assign(struct interp *in, const struct py_node *target, struct val *v);
void ck_run_module(struct cctx *cx);

/* ---- the API and builtins (check_api.c) ---- */
/* The current API name for a dotted name, through the JAX API table. */
const char *ck_api_current(struct cctx *cx, const char *name);
struct val *ck_attr(struct interp *in, struct val *obj, const char *attr, const struct py_node *node);
struct val *ck_call_api(struct interp *in, struct val *f, struct val **args, size_t nargs,
			const char **kwn, struct val **kwv, size_t nkw, const struct py_node *node);
struct val *ck_subscript(struct interp *in, struct val *obj, struct val *idx,
			 const struct py_node *node);
void ck_store_subscript(struct interp *in, const struct py_node *target, struct val *obj,
			struct val *idx, struct val *v, bool aug);
struct val *ck_binop(struct interp *in, int op, struct val *a, struct val *b,
		     const struct py_node *node);
struct val *ck_compare(struct interp *in, int op, struct val *a, struct val *b,
		       const struct py_node *node);
/* A traced value reached a place that needs a Python bool (if, while, and/or ...). */
void ck_traced_bool(struct interp *in, struct val *v, const struct py_node *node, const char *what);
const struct dtype *ck_dtype(struct cctx *cx, const char *name);

/* ---- kernels (check_kernel.c) ---- */
struct val *ck_pallas_call_made(struct interp *in, struct val *obj);
struct val *ck_pallas_call_run(struct interp *in, struct val *obj, struct val **args, size_t nargs,
			       const struct py_node *node);
struct val *ck_pipeline_run(struct interp *in, struct val *obj, struct val **args, size_t nargs,
			    struct val **kwv, size_t nkw, const struct py_node *node);
void ck_kernel_event(struct interp *in, struct kev *e);
/* An index map called with program ids (and scalar-prefetch refs): its result, or NULL. */
struct val *ck_index_map_result(struct cctx *cx, const struct kcall *k, const struct kspec *s);
void ck_finish_pending(struct cctx *cx);

/* ---- the analyses ---- */
void ck_layout(struct cctx *cx, struct kcall *k);       /* check_layout.c */
void ck_capacity(struct cctx *cx, struct kcall *k);     /* check_capacity.c */
void ck_sync(struct cctx *cx, struct kcall *k);         /* check_sync.c */
void ck_numerics(struct cctx *cx, struct kcall *k);     /* check_numerics.c */

/*
 * Make a finding of code at node (check.c): its message and fix from the
 * rules' templates, filled from vs; rung fixes likewise. fix_at (may be
 * NULL) is the node the fix changes. k (may be NULL) names the kernel.
 */
void ck_report(struct cctx *cx, const char *code, const struct py_node *node,
	       const struct py_node *fix_at, const struct kcall *k, struct vars *vs);
/*
 * The fix for dim idx of a block value: set PREFIX_where to where its
 * number was written and PREFIX_change to "bk=1000 -> 1024 (or 896)" (alt
 * 0: no second choice), or to the whole block literal -> proposal when the
 * number has no name. Returns the node the fix changes.
 */
const struct py_node *ck_dim_fix(struct cctx *cx, const struct val *block, int idx, long long to,
				 long long alt, const struct shape *proposal, struct vars *vs,
				 const char *prefix);
/* What an operand's shape (what = "shape") or dtype needs, as a note says it: "the shape of x". */
const char *ck_operand_need(struct cctx *cx, const struct karg *a, const char *what);
/* "file.py:31" of a node, for fixes. */
const char *ck_where(struct cctx *cx, const struct py_node *n);
/* The source text of node n (its first line only), cut at cap-1 bytes. */
void ck_source_text(const struct cctx *cx, const struct py_node *n, char *out, size_t cap);

#endif
