/* SPDX-License-Identifier: MIT */
/*
 * The synchronization analysis, over the events the kernel walk recorded
 * in program order. Copies are matched by their destination ref and
 * semaphore (the roots, not the slot: a double-buffered copy starts into
 * buf.at[next] and is waited as buf.at[slot]). Everything here errs on the
 * side of silence: a wait the walk could not resolve (a descriptor in a
 * list, a helper from another module) turns the "never waited" checks off
 * for that kernel, and a read races a copy only when it names the same
 * slot the copy writes.
 */
#include <string.h>

#include "pt/check_impl.h"

static bool
same(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

/* Does wait event w complete copy d? (kind: which half of a remote copy) */
static bool
completes(const struct kdma *d, const struct kev *w)
{
	/* a remote copy's wait does not complete a local copy on the same semaphore, nor back;
	 * a barrier wait (plgpu.barrier_wait) names only the barrier */
	return w->dma && w->dma->known && (!w->dma->dst || same(w->dma->dst, d->dst)) &&
	       same(w->dma->sem, d->sem) && w->dma->remote == d->remote;
}

static bool
is_wait(const struct kev *e)
{
	return e->kind == KEV_WAIT || e->kind == KEV_WAIT_RECV || e->kind == KEV_WAIT_SEND;
}

static const char *
slot_text(struct cctx *cx, const char *root, const char *index)
{
	return index && strcmp(index, "...") != 0 ? ck_printf(cx, "%s[%s]", root, index) : root;
}

static void
copy_vars(struct cctx *cx, const struct kdma *d, struct vars *vs)
{
	vars_set(vs, "dst", d->dst_index ? ck_printf(cx, "%s.at[%s]", d->dst, d->dst_index) : d->dst,
		 true);
	vars_set(vs, "sem", d->sem_index ? ck_printf(cx, "%s.at[%s]", d->sem, d->sem_index) : d->sem,
		 true);
	vars_set(vs, "src", d->src ? d->src : "its source", true);
	vars_set(vs, "copy_line", ck_where(cx, d->node), true);
}

/* Do two views name the same slot? By value when both are known, else as written. */
static bool
same_slot(const char *ta, const struct val *a, const char *tb, const struct val *b)
{
	if (a && b)
		return val_same_index(a, b);
	if (!ta && !tb)
		return true;
	return ta && tb && strcmp(ta, tb) == 0;
}

static bool
sem_is_output(const struct kcall *k, const char *sem)
{
	for (size_t i = 0; sem && i < k->nrefs; i++)
		if (k->refs[i]->role == ROLE_OUTPUT && strcmp(k->refs[i]->name, sem) == 0)
			return true;
	return false;
}

/* The first read after event i of what the copy writes: its slot only when exact. */
static const struct kev *
first_read(const struct kcall *k, size_t i, const struct kdma *d, bool exact)
{
	for (size_t j = i + 1; j < k->nev && !d->remote; j++) {
		const struct kev *e = &k->ev[j];

		if (e->kind != KEV_READ || !e->ref || !same(e->ref->name, d->dst))
			continue;
		if (!exact || e->whole || same_slot(e->index, e->ix, d->dst_index, d->dst_ix))
			return e;
	}
	return NULL;
}

/* S001/S002: every started copy is waited (both halves of a remote one). */
static void
check_waits(struct cctx *cx, struct kcall *k)
{
	for (size_t i = 0; i < k->nev; i++) {
		const struct kev *s = &k->ev[i];
		bool full = false, recv = false, send = false;
		struct vars vs = VARS_INIT;

		if (s->kind != KEV_START || !s->dma || !s->dma->known)
			continue;
		/* a semaphore the kernel returns: another kernel waits (a future, started here) */
		if (sem_is_output(k, s->dma->sem))
			continue;
		/* one report per copy site */
		for (size_t j = 0; j < i; j++)
			if (k->ev[j].kind == KEV_START && k->ev[j].dma &&
			    k->ev[j].dma->node == s->dma->node)
				goto next;
		for (size_t j = 0; j < k->nev; j++) {
			const struct kev *w = &k->ev[j];

			if (!is_wait(w) || !completes(s->dma, w))
				continue;
			full |= w->kind == KEV_WAIT;
			recv |= w->kind == KEV_WAIT_RECV;
			send |= w->kind == KEV_WAIT_SEND;
		}
		copy_vars(cx, s->dma, &vs);
		if (!full && !recv && !send) {
			/*
			 * The wait belongs before the first read that takes what the
			 * copy wrote (the whole buffer, or its slot): the finding is
			 * there. Without one, at the start.
			 */
			const struct kev *read = first_read(k, i, s->dma, true);
			const struct py_node *at = s->node;

			/* a slot the walk cannot tell apart (i % 2 against 0) may be the one */
			if (!read)
				read = first_read(k, i, s->dma, false);
			vars_set(&vs, "read_where", "", true);
			if (read) {
				vars_set(&vs, "read_where", ck_printf(cx, "; %s is read here, the copy "
					 "starts at %s", s->dma->dst, ck_where(cx, s->node)), true);
				at = read->node;
			}
			vars_set(&vs, "how", s->dma->remote ? "remote copy" : "copy", true);
			ck_report(cx, "S001", at, at, k, &vs);
		} else if (s->dma->remote && !full && (!recv || !send)) {
			vars_set(&vs, "missing", recv ? "wait_send()" : "wait_recv()", true);
			vars_set(&vs, "has", recv ? "wait_recv()" : "wait_send()", true);
			ck_report(cx, "S002", s->node, s->node, k, &vs);
		}
		vars_release(&vs);
next:
		;
	}
}

/* S004: a read of a copy's destination slot after its start, before its wait. */
static void
check_read_before_wait(struct cctx *cx, struct kcall *k)
{
	for (size_t i = 0; i < k->nev; i++) {
		const struct kev *s = &k->ev[i];

		/* a remote copy writes another device's buffer: local reads do not race it */
		if (s->kind != KEV_START || !s->dma || !s->dma->known || s->dma->remote)
			continue;
		for (size_t j = i + 1; j < k->nev; j++) {
			const struct kev *e = &k->ev[j];
			struct vars vs = VARS_INIT;

			if (is_wait(e) && completes(s->dma, e))
				break;
			if (e->kind != KEV_READ || !e->ref || !same(e->ref->name, s->dma->dst))
				continue;
			if (s->dma->dst_index ? !same_slot(e->index, e->ix, s->dma->dst_index, s->dma->dst_ix)
					      : e->ix != NULL)
				continue;
			copy_vars(cx, s->dma, &vs);
			vars_set(&vs, "read", slot_text(cx, e->ref->name, e->index), true);
			ck_report(cx, "S004", e->node, e->node, k, &vs);
			vars_release(&vs);
			return;
		}
	}
}

/*
 * S004, the loop form: a read of a slot that a later wait in the same pass
 * completes, with no start into that slot in between. That wait is for a
 * copy started earlier (perhaps in the previous iteration, which the walk
 * does not unroll), so the read races it.
 */
static bool
check_read_then_wait(struct cctx *cx, struct kcall *k)
{
	for (size_t j = 0; j < k->nev; j++) {
		const struct kev *w = &k->ev[j];

		if (!is_wait(w) || !w->dma || !w->dma->known || w->dma->remote)
			continue;
		for (size_t i = j; i-- > 0;) {
			const struct kev *e = &k->ev[i];
			struct vars vs = VARS_INIT;

			if ((e->kind == KEV_START || is_wait(e)) && e->dma && same(e->dma->dst, w->dma->dst) &&
			    same_slot(e->dma->dst_index, e->dma->dst_ix, w->dma->dst_index, w->dma->dst_ix))
				break;
			if (e->kind != KEV_READ || !e->ref || !same(e->ref->name, w->dma->dst) ||
			    !w->dma->dst_index ||
			    !same_slot(e->index, e->ix, w->dma->dst_index, w->dma->dst_ix))
				continue;
			copy_vars(cx, w->dma, &vs);
			vars_set(&vs, "read", slot_text(cx, e->ref->name, e->index), true);
			vars_set(&vs, "copy_line", ck_where(cx, w->dma->node), true);
			ck_report(cx, "S004", e->node, e->node, k, &vs);
			vars_release(&vs);
			return true;
		}
	}
	return false;
}

/* S003: two copies in flight on one semaphore slot, to different destinations. */
static void
check_shared_semaphore(struct cctx *cx, struct kcall *k)
{
	const struct kcall *top = k->outer ? k->outer : k;

	/* a Mosaic GPU barrier counts the bytes of every copy that arrives on it: sharing is the rule */
	if (top->backend && strcmp(top->backend, "mosaic-gpu") == 0)
		return;
	for (size_t i = 0; i < k->nev; i++) {
		const struct kev *a = &k->ev[i];

		if (a->kind != KEV_START || !a->dma || !a->dma->known)
			continue;
		for (size_t j = i + 1; j < k->nev; j++) {
			const struct kev *b = &k->ev[j];
			struct vars vs = VARS_INIT;

			if (is_wait(b) && b->dma && same(b->dma->sem, a->dma->sem))
				break;
			if (b->kind != KEV_START || !b->dma || !b->dma->known ||
			    !same(b->dma->sem, a->dma->sem))
				continue;
			if (!same_slot(a->dma->sem_index, a->dma->sem_ix, b->dma->sem_index,
				       b->dma->sem_ix))
				continue;
			if (same(a->dma->dst, b->dma->dst))
				continue;
			copy_vars(cx, a->dma, &vs);
			vars_set(&vs, "other_dst", b->dma->dst_index ? ck_printf(cx, "%s.at[%s]",
				 b->dma->dst, b->dma->dst_index) : b->dma->dst, true);
			vars_set(&vs, "other_line", ck_where(cx, b->dma->node), true);
			/* the semaphore to change: where the second copy's was written */
			{
				const struct py_node *at = b->dma->sem_node ? b->dma->sem_node
									    : b->dma->node;

				ck_report(cx, "S003", at, at, k, &vs);
			}
			vars_release(&vs);
			return;
		}
	}
}

/* S005: a semaphore signalled that nothing in the kernel waits on. */
static void
check_signals(struct cctx *cx, struct kcall *k)
{
	for (size_t i = 0; i < k->nev; i++) {
		const struct kev *s = &k->ev[i];
		bool waited = false;
		struct vars vs = VARS_INIT;

		if (s->kind != KEV_SIGNAL || !s->sem)
			continue;
		for (size_t j = 0; j < k->nev && !waited; j++)
			waited = k->ev[j].kind == KEV_SEMWAIT && same(k->ev[j].sem, s->sem);
		if (waited)
			continue;
		vars_set(&vs, "sem", s->index ? s->index : s->sem, true);
		ck_report(cx, "S005", s->node, s->node, k, &vs);
		vars_release(&vs);
		return;
	}
}

/*
 * The file sets jax_pallas_auto_assign_collective_ids (JAX 0.11.0 and
 * later; default 'no'): JAX gives each kernel a collective id itself.
 */
static bool
auto_collective_ids(const struct cctx *cx)
{
	static const char flag[] = "pallas_auto_assign_collective_ids";

	return memmem(cx->src, cx->len, flag, sizeof(flag) - 1) != NULL;
}

void
ck_sync(struct cctx *cx, struct kcall *k)
{
	if (!k->unknown_wait) {
		check_waits(cx, k);
		check_signals(cx, k);
	}
	if (!check_read_then_wait(cx, k))
		check_read_before_wait(cx, k);
	check_shared_semaphore(cx, k);
	/* S006: the barrier semaphore needs a collective id */
	if (k->barrier_used && !k->collective_id && !auto_collective_ids(cx) &&
	    (!k->params || k->params->kind == VAL_OBJ || k->params->kind == VAL_DICT)) {
		struct vars vs = VARS_INIT;

		vars_set(&vs, "where", ck_where(cx, k->params_node ? k->params_node : k->node), true);
		vars_set(&vs, "barrier_line", ck_where(cx, k->barrier_node), true);
		/* the line to change is the compiler params (or the call that lacks them) */
		ck_report(cx, "S006", k->params_node ? k->params_node : k->node,
			  k->params_node ? k->params_node : k->node, k, &vs);
		vars_release(&vs);
	}
}
