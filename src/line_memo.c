/* SPDX-License-Identifier: MIT */
/*
 * The memo of candidate lines' literals; see pt/line_memo.h.
 *
 * Why a hit is exact: the walk it replaces reads nothing but the line's
 * bytes and the set, and a slot holds the set's id (unique in the
 * process, unlike its address) and the line's bytes, compared in full.
 * The walk starts at the first literal the window found, but none starts
 * before it, so its result is that of a walk of the whole line.
 */
#include <stdlib.h>
#include <string.h>

#include "pt/line_memo.h"
#include "pt/util.h"
#include "pt/xalloc.h"

#define LINE_MEMO_SLOTS 4096

struct line_memo_slot {
	uint64_t set;           /* 0: empty (ids start at 1) */
	uint16_t n;
	struct line_found found;
	char text[LINE_MEMO_TEXT];
};

void
line_memo_release(struct line_memo *m)
{
	free(m->slot);
	memset(m, 0, sizeof(*m));
}

/*
 * The slot of line[0..n): a hash of all its bytes, as frames differ by a
 * digit anywhere, mixed so that its high bits depend on all of them.
 */
static size_t
slot_of(const char *p, size_t n)
{
	uint64_t h = util_fnv1a_words(UTIL_FNV1A_INIT, p, n);

	h = (h ^ h >> 29) * 0xC4CEB9FE1A85EC53u;
	return (size_t)(h >> 40) % LINE_MEMO_SLOTS;
}

const struct line_found *
line_memo_get(struct line_memo *m, uint64_t set, const char *line, size_t n)
{
	const struct line_memo_slot *sl;

	m->key.kept = false;
	if (m->asked < LINE_MEMO_AFTER) {
		m->asked++;
		return NULL;
	}
	if (n > LINE_MEMO_TEXT || set == 0)
		return NULL;
	/* calloc: pages that no line reaches are never touched */
	if (!m->slot)
		m->slot = xcalloc(LINE_MEMO_SLOTS, sizeof(*m->slot));
	m->key.line = line;
	m->key.n = n;
	m->key.set = set;
	m->key.slot = slot_of(line, n);
	m->key.kept = true;
	sl = &m->slot[m->key.slot];
	if (sl->set != set || sl->n != n || memcmp(sl->text, line, n) != 0)
		return NULL;
	return &sl->found;
}

void
line_memo_put(struct line_memo *m, const struct line_found *f)
{
	struct line_memo_slot *sl;

	if (!m->key.kept)
		return;
	m->key.kept = false;
	if (f->nids > LINE_MEMO_IDS || f->npieces > LINE_MEMO_PIECES)
		return;
	sl = &m->slot[m->key.slot];
	sl->set = m->key.set;
	sl->n = (uint16_t)m->key.n;
	sl->found.nids = f->nids;
	sl->found.npieces = f->npieces;
	sl->found.fits = f->fits;
	sl->found.fits_known = f->fits_known;
	memcpy(sl->found.ids, f->ids, f->nids * sizeof(f->ids[0]));
	memcpy(sl->found.piece_lit, f->piece_lit, f->npieces * sizeof(f->piece_lit[0]));
	memcpy(sl->found.piece_pos, f->piece_pos, f->npieces * sizeof(f->piece_pos[0]));
	memcpy(sl->text, m->key.line, m->key.n);
}
