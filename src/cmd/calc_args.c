/* SPDX-License-Identifier: MIT */
/* Arguments and output pieces shared by check-block, vmem and smem; see calc_args.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calc_args.h"
#include "pt/buf.h"
#include "pt/gpus.h"
#include "pt/suggest.h"
#include "pt/vmem.h"
#include "pt/xalloc.h"

int
calc_option(const struct cmd_entry *e, struct pt_ctx *ctx, struct calc_target *t, int ch,
	    const char *arg)
{
	switch (ch) {
	case OPT_CALC_CHIP: t->chip = arg; return 0;
	case OPT_CALC_BLOCK: t->block = arg; return 0;
	case OPT_CALC_DTYPE: t->dtype = arg; return 0;
	case OPT_CALC_JSON: t->json = true; return 0;
	}
	return cmd_global_option(e, ctx, ch, arg);
}

int
calc_check_target(const struct cmd_entry *e, int argc, int optind_, const struct calc_target *t)
{
	int rc = cmd_check_args(e, argc, optind_);

	if (rc || (t->chip && t->block && t->dtype))
		return rc;
	return cmd_usage_error(e, "missing %s", !t->chip ? "--chip" : !t->block ? "--block" :
			       "--dtype");
}

int
calc_push(const struct cmd_entry *e, const char *what, const char **v, size_t *n, size_t max,
	  const char *arg)
{
	if (*n == max)
		return cmd_usage_error(e, "at most %zu %s", max, what);
	v[(*n)++] = arg;
	return 0;
}

int
calc_missing_table(const struct pt_ctx *ctx, const char *what)
{
	fprintf(stderr, "pallas-triage: error: the rules at '%s' have no %s\n",
		ctx->rules_origin ? ctx->rules_origin : "?", what);
	return PT_EXIT_DATA;
}

int
calc_gpu_backend(const struct cmd_entry *e, const char *opt, const struct gpu *g,
		 const char *given, const char **backend)
{
	*backend = given ? given : gpu_runs(g, "mosaic-gpu") ? "mosaic-gpu" : g->backends[0];
	if (strcmp(*backend, "triton") && strcmp(*backend, "mosaic-gpu"))
		return cmd_usage_error(e, "%s takes triton or mosaic-gpu, not '%s'", opt, *backend);
	if (!gpu_runs(g, *backend))
		return cmd_usage_error(e, "%s does not run the %s backend (it runs: %s)", g->name,
				       *backend, g->backends[0]);
	return 0;
}

/*
 * Moves b's text into the next of the buffers calc_size() and calc_shape()
 * share. Eight, because one printf takes at most three of them today; a
 * shape is at most SHAPE_MAX_RANK numbers, so 128 bytes hold any.
 */
static const char *
ring_take(struct buf *b)
{
	static char out[8][128];
	static int k;

	k = (k + 1) % 8;
	snprintf(out[k], sizeof(out[k]), "%s", b->data);
	buf_release(b);
	return out[k];
}

const char *
calc_size(unsigned long long v)
{
	struct buf b = BUF_INIT;

	vmem_format_size(v, &b);
	return ring_take(&b);
}

const char *
calc_shape(const struct shape *s)
{
	struct buf b = BUF_INIT;

	shape_format(s, &b);
	return ring_take(&b);
}

void
calc_json_shape(struct json *obj, const char *key, const struct shape *s)
{
	struct json *a = json_add_array(obj, key);

	for (int i = 0; i < s->rank; i++)
		json_push_int(a, s->dims[i]);
}

void
calc_print_verdict(unsigned long long need, unsigned long long avail)
{
	if (need <= avail)
		printf("fits: %s to spare\n", calc_size(avail - need));
	else
		printf("does not fit: over by %s\n", calc_size(need - avail));
}

void
calc_json_verdict(struct json *root, unsigned long long need, unsigned long long avail)
{
	json_add_bool(root, "fits", need <= avail);
	json_add_int(root, "over_bytes", need <= avail ? 0 : (long long)(need - avail));
}

void
calc_print_lines(const char *prefix, const struct buf *lines)
{
	const char *p = lines->data;

	while (*p) {
		const char *nl = strchr(p, '\n');

		printf("%s%.*s\n", prefix, (int)(nl - p), p);
		p = nl + 1;
	}
}

void
calc_json_lines(struct json *obj, const char *key, const struct buf *lines)
{
	struct json *a = json_add_array(obj, key);
	const char *p = lines->data;

	while (*p) {
		const char *nl = strchr(p, '\n');
		char *line = xstrndup(p, (size_t)(nl - p));

		json_push_str(a, line);
		free(line);
		p = nl + 1;
	}
}

int
calc_small_int(const char *s, int min, int max, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -1;
	*out = (int)v;
	return 0;
}

int
calc_parse_operands(const char *s, int *n_in, int *n_out)
{
	char copy[64], *save = NULL;

	if (strlen(s) >= sizeof(copy))
		return -1;
	memcpy(copy, s, strlen(s) + 1);
	/* a part not given keeps the default the caller set: in:2 is in:2,out:1 */
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':');

		if (!colon)
			return -1;
		*colon = '\0';
		if (strcmp(tok, "in") == 0 ? calc_small_int(colon + 1, 0, 64, n_in) :
		    strcmp(tok, "out") == 0 ? calc_small_int(colon + 1, 0, 64, n_out) : -1)
			return -1;
	}
	return *n_in + *n_out > 0 ? 0 : -1;
}

int
calc_want_limit(const struct cmd_entry *e, const char *s, unsigned long long floor,
		const char *unit, unsigned long long *out)
{
	size_t n = strspn(s, "0123456789.");

	if (vmem_parse_size(s, out) < 0 || *out == 0)
		return cmd_usage_error(e, "--limit takes a size such as 32M, 48MiB, 227K or 33554432, "
				       "not '%s'", s);
	/* a bare number is bytes; one this small is almost surely in the unit limits are
	 * written in: say so rather than compute with 16 bytes */
	if (s[n] == '\0' && *out < floor && *out < 1024)
		return cmd_usage_error(e, "--limit %s is %s bytes, less than any kernel needs: a "
				       "number without a unit is bytes. Write %s%s for %s %siB, or %sB "
				       "if bytes are meant", s, s, s, unit, s, unit, s);
	if (s[n] == '\0' && *out < floor)
		return cmd_usage_error(e, "--limit %s is %s bytes, less than any kernel needs: a "
				       "number without a unit is bytes. Write its unit (K, M or G), or "
				       "%sB if bytes are meant", s, s, s);
	return 0;
}

/* Offer a name and its aliases. */
static void
offer_all(struct suggest *sg, const char *name, char *const *aliases)
{
	suggest_offer(sg, name);
	for (char *const *a = aliases; a && *a; a++)
		suggest_offer(sg, *a);
}

const char *
calc_near(const struct chiptab *t, const char *word, bool dtype)
{
	struct suggest sg;

	/* "v9" is no typo of "v2": two letters say too little */
	if (!t || !word || strlen(word) < 3)
		return NULL;
	suggest_init(&sg, word);
	for (size_t i = 0; dtype && i < t->ndtypes; i++)
		offer_all(&sg, t->dtypes[i]->name, t->dtypes[i]->aliases);
	for (size_t i = 0; !dtype && i < t->nchips; i++)
		offer_all(&sg, t->chips[i]->name, t->chips[i]->aliases);
	for (size_t i = 0; !dtype && i < t->ngpus; i++)
		offer_all(&sg, t->gpus[i]->name, t->gpus[i]->aliases);
	return suggest_best(&sg);
}

const struct dtype *
calc_want_dtype(const struct chiptab *t, const char *s, bool gpu, struct pt_err *err)
{
	const struct dtype *dt = chiptab_find_dtype(t, s);

	return dt && gpu ? dt : chiptab_want_dtype(t, s, err);
}

int
calc_operand(const struct cmd_entry *e, const char *opt, const char *arg,
	     const struct chiptab *t, bool gpu, const struct dtype *dflt, struct shape *shape,
	     const struct dtype **dtype)
{
	struct pt_err err = PT_ERR_INIT;
	const char *colon = strrchr(arg, ':');
	char dims[256];

	if (strlen(arg) >= sizeof(dims))
		return cmd_usage_error(e, "bad %s '%s': too long", opt, arg);
	snprintf(dims, sizeof(dims), "%.*s", colon ? (int)(colon - arg) : (int)strlen(arg), arg);
	if (!(*dtype = colon ? calc_want_dtype(t, colon + 1, gpu, &err) : dflt))
		return cmd_not_found(calc_near(t, colon + 1, true), "bad %s '%s': %s", opt, arg,
				     err.msg);
	if (shape_parse(shape, dims, false, &err) < 0)
		return cmd_usage_error(e, "bad %s '%s': %s", opt, arg, err.msg);
	return 0;
}
