/* SPDX-License-Identifier: MIT */
/*
 * A bounded copy of a stream that the session keeps: a piped log (a pipe
 * cannot be read twice) or the output of `run`. At most max bytes are
 * kept: all of a short stream, else its first half and its last half,
 * since a failure shows at the end of a log and what led to it often at
 * the start. Where the middle was cut, one line says so and how much.
 * Memory: at most max bytes, the second half allocated only when needed.
 */
#ifndef PT_LOGKEEP_H
#define PT_LOGKEEP_H

#include <stdbool.h>
#include <stddef.h>
#include "pt/buf.h"

struct logkeep {
	size_t max;                 /* bytes kept at most (head + tail) */
	struct buf head;            /* the first max/2 bytes (no cap: it becomes the copy) */
	char *tail;                 /* a ring of the last max/2 bytes past head, or NULL */
	size_t tail_len;            /* bytes in the ring (at most max/2) */
	size_t tail_end;            /* where the next byte goes */
	unsigned long long total;   /* bytes seen */
};

void logkeep_init(struct logkeep *k, size_t max);
void logkeep_add(struct logkeep *k, const char *data, size_t len);
/* More was seen than is kept. */
bool logkeep_cut(const struct logkeep *k);
/*
 * Move the kept copy into out (which is overwritten: release it first) and
 * release k: the stream itself, or its head up to the end of a line, the
 * line
 *   [pallas-triage: N bytes cut here; the first and last M MiB are kept]
 * and its tail from the start of a line.
 */
void logkeep_finish(struct logkeep *k, struct buf *out);
void logkeep_release(struct logkeep *k);

#endif
