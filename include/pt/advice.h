/* SPDX-License-Identifier: MIT */
/*
 * The calculators' values for the advice: what a verdict's captures and the
 * chip table imply (vmem_limit_bytes, block_legal, block_halved_minor, ...;
 * docs/calculators.md, "Values for the advice"). The classifier does not
 * call this: it reports what the log says, and whoever presents or records a
 * verdict (diagnosis, ladder, walk, session, report, run, scan) calls
 * verdict_derive() right after classification.
 */
#ifndef PT_ADVICE_H
#define PT_ADVICE_H

#include "pt/classify.h"
#include "pt/rules.h"
#include "pt/vars.h"

/*
 * Add the derived values to vs from the captures in it and rs's chip and
 * JAX API tables (rs may be NULL: no tables). Values already in vs are
 * kept. Never fails: what cannot be derived is left unset.
 */
void advice_derive(const struct ruleset *rs, struct vars *vs);
/*
 * The GPU values (chip_name of a GPU, smem_over, num_stages_fit,
 * gpu_block_legal, ...) from the captures, the contexts' backend and the
 * GPU table. Implemented in gpu_advice.c; advice_derive() calls it.
 */
void gpu_advice_derive(const struct ruleset *rs, struct vars *vs);

/*
 * advice_derive() on v->vars, then `chip` from the derived `chip_name` when
 * the log named no chip. Call it once per verdict, after classify_fd() or
 * classifier_finish(), before anything reads v->vars.
 */
void verdict_derive(const struct ruleset *rs, struct verdict *v);
/*
 * The user says which JAX ran (--jax VERSION): it replaces the log's
 * jax_version in v, the upgrade values are derived again and the message
 * (or an unknown's reason) is spelled for it. Call after verdict_derive().
 */
void verdict_set_jax(const struct ruleset *rs, struct verdict *v, const char *version);

#endif
