/* SPDX-License-Identifier: MIT */
/* A bounded head-and-tail copy of a stream; see pt/logkeep.h. */
#include <stdlib.h>
#include <string.h>

#include "pt/logkeep.h"
#include "pt/xalloc.h"

void
logkeep_init(struct logkeep *k, size_t max)
{
	memset(k, 0, sizeof(*k));
	k->max = max < 2 ? 2 : max;
	k->head = (struct buf)BUF_INIT;
}

static size_t
ring_size(const struct logkeep *k)
{
	return k->max - k->max / 2;
}

void
logkeep_add(struct logkeep *k, const char *data, size_t len)
{
	size_t room = k->max / 2 - k->head.len, ring = ring_size(k);

	k->total += len;
	if (room) {
		size_t n = len < room ? len : room;

		buf_add(&k->head, data, n);
		data += n;
		len -= n;
	}
	if (!len)
		return;
	if (!k->tail)
		k->tail = xmalloc(ring);
	/* only the last `ring` bytes of this piece can survive */
	if (len > ring) {
		data += len - ring;
		len = ring;
	}
	while (len) {
		size_t n = ring - k->tail_end < len ? ring - k->tail_end : len;

		memcpy(k->tail + k->tail_end, data, n);
		k->tail_end = (k->tail_end + n) % ring;
		k->tail_len = k->tail_len + n > ring ? ring : k->tail_len + n;
		data += n;
		len -= n;
	}
}

bool
logkeep_cut(const struct logkeep *k)
{
	return k->total > k->head.len + k->tail_len;
}

/* Append the ring's bytes from the skip-th on, oldest first. */
static void
add_tail(const struct logkeep *k, struct buf *out, size_t skip)
{
	size_t ring = ring_size(k), start = (k->tail_end + ring - k->tail_len) % ring;

	for (size_t i = skip; i < k->tail_len;) {
		size_t at = (start + i) % ring, n = ring - at < k->tail_len - i ? ring - at :
						 k->tail_len - i;

		buf_add(out, k->tail + at, n);
		i += n;
	}
}

/* How many of the ring's oldest bytes precede its first whole line (0: none to skip). */
static size_t
partial_line(const struct logkeep *k)
{
	size_t ring = ring_size(k), start = (k->tail_end + ring - k->tail_len) % ring;

	for (size_t i = 0; i < k->tail_len; i++)
		if (k->tail[(start + i) % ring] == '\n')
			return i + 1;
	return 0;
}

void
logkeep_finish(struct logkeep *k, struct buf *out)
{
	bool cut = logkeep_cut(k);
	size_t head = k->head.len, skip = cut ? partial_line(k) : 0;

	*out = k->head;
	k->head = (struct buf)BUF_INIT;
	if (cut) {
		/* whole lines on both sides of the cut, when there are any */
		while (head > 0 && out->data[head - 1] != '\n')
			head--;
		if (head == 0)
			head = out->len;
		buf_truncate(out, head);
		if (head && out->data[head - 1] != '\n')
			buf_addch(out, '\n');
		buf_addf(out, "[pallas-triage: %llu bytes cut here; the first and last %zu MiB are "
			 "kept]\n", k->total - head - (k->tail_len - skip), (k->max / 2) >> 20);
	}
	add_tail(k, out, skip);
	logkeep_release(k);
}

void
logkeep_release(struct logkeep *k)
{
	buf_release(&k->head);
	free(k->tail);
	k->tail = NULL;
	k->tail_len = k->tail_end = 0;
	k->total = 0;
}
