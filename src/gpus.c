/* SPDX-License-Identifier: MIT */
/*
 * The GPU table: schema validation of the `gpus` section and the lookups
 * the GPU calculators and the verdict use; see pt/gpus.h. It holds no GPU
 * numbers itself (rules/gpu-chips.yaml does).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pt/chiptab_parse.h"
#include "pt/gpus.h"
#include "pt/xalloc.h"
#include "pt/ytree.h"


static const char *const gpu_keys[] = {
	"name", "vendor", "device_kinds", "aliases", "arch", "compute_capability", "sms",
	"warp_size", "smem_per_block_bytes", "smem_per_block_optin_bytes", "smem_per_sm_bytes",
	"registers_per_sm", "registers_per_block", "max_registers_per_thread", "tmem_columns",
	"l2_bytes", "memory_bytes", "mma", "backends", "note", NULL,
};
static const char *const vendors[] = { "nvidia", "amd", NULL };
static const char *const mmas[] = { "mma", "wgmma", "tcgen05", NULL };
static const char *const backends[] = { "triton", "mosaic-gpu", NULL };

static void
gpu_free(struct gpu *g)
{
	if (!g)
		return;
	xfree(g->name);
	strv_free(g->aliases);
	strv_free(g->device_kinds);
	xfree(g->vendor);
	xfree(g->arch);
	xfree(g->compute_capability);
	xfree(g->mma);
	strv_free(g->backends);
	xfree(g->note);
	xfree(g->file);
	xfree(g);
}

void
gputab_release(struct chiptab *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->ngpus; i++)
		gpu_free(t->gpus[i]);
	xfree(t->gpus);
	t->gpus = NULL;
	t->ngpus = t->alloc_gpus = 0;
}


/* Which entry of the table (TPU chip or GPU) already uses name s, as a name or alias? */
static const char *
name_owner(const struct chiptab *t, const char *s)
{
	for (size_t i = 0; t && i < t->nchips; i++)
		if (chiptab_is_named(t->chips[i]->name, t->chips[i]->aliases, s))
			return t->chips[i]->name;
	for (size_t i = 0; t && i < t->ngpus; i++)
		if (chiptab_is_named(t->gpus[i]->name, t->gpus[i]->aliases, s))
			return t->gpus[i]->name;
	return NULL;
}

static const char *
kind_owner(const struct chiptab *t, const char *s)
{
	for (size_t i = 0; t && i < t->nchips; i++)
		if (chiptab_strv_has(t->chips[i]->device_kinds, s))
			return t->chips[i]->name;
	for (size_t i = 0; t && i < t->ngpus; i++)
		if (chiptab_strv_has(t->gpus[i]->device_kinds, s))
			return t->gpus[i]->name;
	return NULL;
}

static int
names_free(const struct chiptab *t, const struct gpu *g, const struct ynode *m, const char *file,
	   struct diag *d)
{
	const char *o;
	int ret = 0;

	if ((o = name_owner(t, g->name))) {
		diag_error(d, file, m->line, m->col, "the name of gpu '%s' is already taken by '%s'",
			   g->name, o);
		ret = -1;
	}
	for (char **a = g->aliases; *a; a++)
		if ((o = name_owner(t, *a)) || strcasecmp(*a, g->name) == 0) {
			diag_error(d, file, m->line, m->col, "alias '%s' of gpu '%s' is already taken "
				   "by '%s'", *a, g->name, o ? o : g->name);
			ret = -1;
		}
	for (char **k = g->device_kinds; *k; k++)
		if ((o = kind_owner(t, *k))) {
			diag_error(d, file, m->line, m->col, "device kind '%s' of gpu '%s' is already "
				   "taken by '%s'", *k, g->name, o);
			ret = -1;
		}
	return ret;
}


/* A string field whose value must be one of `allowed` (NULL-terminated). */
static int
want_enum(const struct ynode *m, const char *key, bool required, const char *const *allowed,
	  char **out, const char *file, const char *what, struct diag *d)
{
	const char *s = NULL;

	if (ynode_want_str(m, key, required, &s, file, what, d) < 0)
		return -1;
	if (s && !chiptab_strv_has((char *const *)allowed, s)) {
		const struct ynode *n = ynode_get(m, key);
		char list[128] = "";
		size_t len = 0;

		for (const char *const *a = allowed; *a && len < sizeof(list); a++)
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
						a == allowed ? "" : ", ", *a);
		diag_error(d, file, n->line, n->col, "'%s' in %s must be one of %s, not '%s'", key,
			   what, list, s);
		return -1;
	}
	*out = dup_or_null(s);
	return 0;
}

/* Non-empty names, each from `allowed` when given. */
static int
want_list(const struct ynode *m, const char *key, bool required, const char *const *allowed,
	  char ***out, const char *file, const char *what, struct diag *d)
{
	const struct ynode *v = ynode_get(m, key);
	size_t n = 0;

	if (chiptab_want_list(m, key, required, out, &n, file, what, d) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!(*out)[i][0] || (allowed && !chiptab_strv_has((char *const *)allowed, (*out)[i]))) {
			diag_error(d, file, v->line, v->col, "'%s' in %s: '%s' is not allowed%s", key,
				   what, (*out)[i], allowed ? " (triton, mosaic-gpu)" : "");
			return -1;
		}
	return 0;
}

static int
parse_numbers(struct gpu *g, const struct ynode *m, const char *what, const char *file,
	      struct diag *d)
{
	int err = 0;

	err |= chiptab_want_int(m, "sms", true, 1, 4096, &g->sms, file, what, d);
	err |= chiptab_want_int(m, "warp_size", true, 1, 128, &g->warp_size, file, what, d);
	err |= chiptab_want_bytes(m, "smem_per_block_bytes", true, &g->smem_block, file, what, d);
	err |= chiptab_want_bytes(m, "smem_per_block_optin_bytes", true, &g->smem_block_optin, file, what, d);
	err |= chiptab_want_bytes(m, "smem_per_sm_bytes", true, &g->smem_sm, file, what, d);
	err |= chiptab_want_bytes(m, "registers_per_sm", true, &g->regs_sm, file, what, d);
	err |= chiptab_want_bytes(m, "registers_per_block", true, &g->regs_block, file, what, d);
	err |= chiptab_want_int(m, "max_registers_per_thread", false, 1, 4096, &g->max_regs_thread,
				file, what, d);
	err |= chiptab_want_int(m, "tmem_columns", false, 1, 65536, &g->tmem_columns, file, what, d);
	err |= chiptab_want_bytes(m, "l2_bytes", false, &g->l2_bytes, file, what, d);
	err |= chiptab_want_bytes(m, "memory_bytes", false, &g->memory_bytes, file, what, d);
	if (g->smem_block && g->smem_block_optin && g->smem_block_optin < g->smem_block) {
		diag_error(d, file, m->line, m->col, "%s: the opt-in shared memory per block is less "
			   "than the default", what);
		err = -1;
	}
	return err ? -1 : 0;
}

/* A chiptab_add_fn: the GPU goes into t only when it has no errors. */
static int
add_gpu(struct chiptab *t, const struct ynode *m, const char *what, const char *file,
	struct diag *d)
{
	struct gpu *g = xcalloc(1, sizeof(*g));
	const char *name = NULL, *arch = NULL, *cc = NULL, *note = NULL;
	int err = 0;

	err |= ynode_check_keys(m, gpu_keys, file, what, d);
	err |= ynode_want_str(m, "name", true, &name, file, what, d);
	err |= want_enum(m, "vendor", true, vendors, &g->vendor, file, what, d);
	err |= want_list(m, "device_kinds", true, NULL, &g->device_kinds, file, what, d);
	err |= want_list(m, "aliases", false, NULL, &g->aliases, file, what, d);
	err |= ynode_want_str(m, "arch", true, &arch, file, what, d);
	err |= ynode_want_str(m, "compute_capability", false, &cc, file, what, d);
	err |= parse_numbers(g, m, what, file, d);
	err |= want_enum(m, "mma", false, mmas, &g->mma, file, what, d);
	err |= want_list(m, "backends", true, backends, &g->backends, file, what, d);
	err |= ynode_want_str(m, "note", false, &note, file, what, d);
	g->name = dup_or_null(name);
	g->arch = dup_or_null(arch);
	g->compute_capability = dup_or_null(cc);
	g->note = dup_or_null(note);
	g->file = xstrdup(file);
	g->line = m->line;
	if (!g->aliases)
		g->aliases = xcalloc(1, sizeof(char *));
	if (!g->device_kinds)
		g->device_kinds = xcalloc(1, sizeof(char *));
	if (!g->backends)
		g->backends = xcalloc(1, sizeof(char *));
	if (!err && names_free(t, g, m, file, d) < 0)
		err = -1;
	if (err) {
		gpu_free(g);
		return -1;
	}
	XGROW(t->gpus, t->alloc_gpus, t->ngpus + 1);
	t->gpus[t->ngpus++] = g;
	return 0;
}

int
gputab_parse(struct chiptab **out, const struct ynode *seq, const char *file, struct diag *d)
{
	if (!seq)
		return 0;
	return chiptab_parse_each(out, seq, "gpus", "gpu", add_gpu, file, d);
}

/* ---- lookups ---- */

const struct gpu *
chiptab_find_gpu(const struct chiptab *t, const char *s)
{
	const struct gpu *best = NULL;
	size_t best_len = 0;

	if (!t || !s)
		return NULL;
	for (size_t i = 0; i < t->ngpus; i++)
		if (chiptab_is_named(t->gpus[i]->name, t->gpus[i]->aliases, s))
			return t->gpus[i];
	for (size_t i = 0; i < t->ngpus; i++) {
		size_t len = chiptab_kind_len(t->gpus[i]->device_kinds, s);

		if (len > best_len) {
			best_len = len;
			best = t->gpus[i];
		}
	}
	return best;
}

bool
gpu_runs(const struct gpu *g, const char *backend)
{
	return g && backend && chiptab_strv_has(g->backends, backend);
}

int
chiptab_want_target(const struct chiptab *t, const char *s, const struct chip **chip,
		    const struct gpu **gpu, struct pt_err *err)
{
	struct pt_err ignored = PT_ERR_INIT;
	char known[400] = "";
	size_t len = 0;

	*gpu = NULL;
	if (chiptab_ambiguous_name(t, s, err))
		return -1;
	if ((*chip = chiptab_want_chip(t, s, &ignored)))
		return 0;
	if ((*gpu = chiptab_find_gpu(t, s)))
		return 0;
	for (size_t i = 0; t && i < t->nchips && len < sizeof(known); i++)
		len += (size_t)snprintf(known + len, sizeof(known) - len, "%s%s", len ? ", " : "",
					t->chips[i]->name);
	for (size_t i = 0; t && i < t->ngpus && len < sizeof(known); i++)
		len += (size_t)snprintf(known + len, sizeof(known) - len, "%s%s", len ? ", " : "",
					t->gpus[i]->name);
	pt_err_set(err, PT_EXIT_USAGE, "unknown chip '%s' (known: %s)", s, known);
	return -1;
}
