/* SPDX-License-Identifier: MIT */
/*
 * The scout thread; see pt/scout.h.
 *
 * Ownership of blocks: the scout claims blocks in order from 1, at most
 * SLOTS past the last one the classifier gave up; the classifier takes any
 * block it asks about before the scout claimed it (and the scout then goes
 * on after it), and when it reaches the block the scout is on, it takes
 * the rest of that block: the scout stops at its next PIECE boundary and
 * records how far it got (done_to), and the classifier searches from
 * there. So block j's records are in slot j % SLOTS exactly when the scout
 * claimed j, they are exact below its done_to, the classifier waits at
 * most for a piece, and the threads share the prefilter in the ratio of
 * their speeds. (Waiting for the whole block instead, and taking the next
 * one, left the classifier idle a quarter of the time on a 1 GiB log.)
 *
 * Why blocks are mapped, not read: the classifier reads every byte of the
 * file itself, and copying it out of the page cache a second time was a
 * tenth of a Pallas-heavy log's CPU time. A mapped file that shrinks under
 * us raises SIGBUS on the pages past its new end; the scout's thread turns
 * that into a failed block (the classifier's own read() then sees the end),
 * and any other thread's SIGBUS goes to the disposition it had before.
 *
 * Why a candidate walk that starts mid-line is still exact: the scout scans
 * a block from its first byte and, after each record, from the next line's
 * start; the classifier asks from line starts only. The first record at or
 * after a line start p is the first occurrence at or after p: the scout
 * resumed at or before p (the last record before p is on an earlier line)
 * and scanned every byte from there.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pt/scout.h"
#include "pt/xalloc.h"

#define SLOTS 4
#define SCOUT_READ ((size_t)128 << 10)
#define PIECE ((size_t)16 << 10)
#define SPINS 4096u

static inline void
spin_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

struct slot {
	uint64_t block;          /* valid when claimed */
	bool claimed, failed;
	atomic_bool ready;       /* set last, with release: the rest is the classifier's to read */
	atomic_bool cut;         /* the classifier takes the rest: stop at the next piece */
	size_t done_to;          /* records are exact for starts below it, in the block */
	uint32_t *rec;           /* candidate starts, from the block's start, ascending */
	size_t n, alloc;
	size_t cursor;           /* the classifier's place in rec */
};

struct scout {
	int fd;
	off_t base;
	uint64_t size, nblocks;
	size_t overlap;          /* bytes read past a block: the longest literal */
	char *buf;               /* the block being scanned, mapped or read */
	void *map;               /* the block's mapping, or NULL */
	size_t maplen;
	char *readbuf;           /* where blocks are read if they cannot be mapped */
	bool shrank;             /* a block's pages were gone: the file shrank */

	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;       /* a block became ready, or room for a claim */
	uint64_t next_claim;     /* blocks below it are claimed or taken */
	uint64_t released;       /* blocks below it are given up by the classifier */
	bool stop;
	struct litset *ls, *pending;
	struct scout_skip skip, pending_skip;
	struct scout_memo memo;
	struct slot slot[SLOTS];
	/* Touched by the classifier alone: the block asked about last, plus 1
	 * (0: none), and whether it is the classifier's to search. Either way
	 * nothing about it changes before a later block is asked about (the
	 * scout never goes back, and a ready slot is not reused before), so
	 * asks within it need no lock. */
	uint64_t held;
	size_t held_from;        /* the block's bytes from here on are the classifier's */
	size_t cuts;             /* blocks whose rest the classifier took */
};

static enum scout_line
judge_line(const struct litset *ls, const struct scout_skip *sk, const char *buf, size_t len,
	   size_t start, size_t hit, size_t end)
{
	if (litset_find_range(ls, buf, len, hit + 1, end, NULL) < len)
		return SCOUT_LINE_CANDIDATE;
	return sk->quiet(buf + start, end - start) ? SCOUT_LINE_SKIP : SCOUT_LINE_ALONE;
}

enum scout_line
scout_line_kind(const struct litset *ls, const struct scout_skip *sk, struct scout_memo *memo,
		const char *buf, size_t len, size_t start, size_t hit, size_t lit, size_t end)
{
	size_t n = end - start;
	enum scout_line kind;

	if (!sk || sk->lit == SIZE_MAX || lit != sk->lit)
		return SCOUT_LINE_CANDIDATE;
	if (memo && scout_memo_get(memo, ls, sk, buf + start, n, hit - start, &kind))
		return kind;
	kind = judge_line(ls, sk, buf, len, start, hit, end);
	if (memo)
		scout_memo_put(memo, kind);
	return kind;
}

/* A record: a candidate's offset in its block, and whether it is ALONE. */
#define REC_ALONE ((uint32_t)1 << 31)

/*
 * The candidate walk over one block read into s->buf[0..got), a piece at
 * a time, until the classifier takes the rest (sl->done_to says how far it
 * got). A line is judged (scout_line_kind()) only when its start is in the
 * block: a line from the block before is that block's to judge.
 */
static void
scan_block(struct scout *s, struct slot *sl, size_t blen, size_t got)
{
	size_t p = 0, piece_end = 0;

	sl->n = 0;
	while (p < blen) {
		size_t lit = SIZE_MAX, q;
		enum scout_line kind = SCOUT_LINE_CANDIDATE;
		const char *nl, *prev;

		if (p >= piece_end) {
			if (atomic_load_explicit(&sl->cut, memory_order_relaxed))
				break;
			piece_end = (p / PIECE + 1) * PIECE < blen ? (p / PIECE + 1) * PIECE : blen;
		}
		q = litset_find_range(s->ls, s->buf, got, p, piece_end, &lit);
		if (q >= got) {
			p = piece_end;
			continue;
		}
		nl = memchr(s->buf + q, '\n', got - q);
		prev = q ? memrchr(s->buf, '\n', q) : NULL;
		if (nl && prev)
			kind = scout_line_kind(s->ls, &s->skip, &s->memo, s->buf, got,
					       (size_t)(prev - s->buf) + 1, q, lit, (size_t)(nl - s->buf));
		if (kind != SCOUT_LINE_SKIP) {
			XGROW(sl->rec, sl->alloc, sl->n + 1);
			sl->rec[sl->n++] = (uint32_t)q | (kind == SCOUT_LINE_ALONE ? REC_ALONE : 0);
		}
		if (!nl) {      /* the rest of the block is on this line */
			p = blen;
			break;
		}
		p = (size_t)(nl - s->buf) + 1;
	}
	sl->done_to = p < blen ? p : blen;
}

/*
 * Read block j whole, plus up to the overlap past it (less at the end of
 * the file); false on an error or a short block (the file shrank).
 */
static bool
read_block(struct scout *s, uint64_t j, size_t *blen, size_t *got)
{
	uint64_t off = j * SCOUT_BLOCK, rest = s->size - off;
	size_t n = 0, want;

	*blen = (size_t)(rest < SCOUT_BLOCK ? rest : SCOUT_BLOCK);
	want = *blen + s->overlap;
	if (!s->readbuf)
		s->readbuf = xmalloc(SCOUT_BLOCK + s->overlap);
	s->buf = s->readbuf;
	while (n < want) {
		/* page cache reads above 128 KiB fall off a cliff (window.c) */
		size_t piece = want - n < SCOUT_READ ? want - n : SCOUT_READ;
		ssize_t r = pread(s->fd, s->buf + n, piece, s->base + (off_t)(off + n));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return false;
		if (r == 0)
			break;
		n += (size_t)r;
	}
	*got = n;
	return n >= *blen;
}

static void
unmap_block(struct scout *s)
{
	if (s->map)
		munmap(s->map, s->maplen);
	s->map = NULL;
}

/* Map block j and the overlap past it; false when it cannot be mapped,
 * or when the overlap runs past the size the scout was given (the last
 * block: the file may have grown, and read_block() reads what it has). */
static bool
map_block(struct scout *s, uint64_t j, size_t *blen, size_t *got)
{
	uint64_t off = j * SCOUT_BLOCK, rest = s->size - off;
	uint64_t at = (uint64_t)s->base + off, page = at - at % (uint64_t)sysconf(_SC_PAGESIZE);

	if (rest < SCOUT_BLOCK + s->overlap)
		return false;
	*blen = SCOUT_BLOCK;
	*got = SCOUT_BLOCK + s->overlap;
	unmap_block(s);
	s->maplen = *got + (size_t)(at - page);
	s->map = mmap(NULL, s->maplen, PROT_READ, MAP_PRIVATE, s->fd, (off_t)page);
	if (s->map == MAP_FAILED) {
		s->map = NULL;
		return false;
	}
	s->buf = (char *)s->map + (at - page);
	return true;
}

/* The scout thread's way out of a fault on a mapped block. */
static _Thread_local sigjmp_buf *bus_guard;
static struct sigaction bus_before;
static pthread_once_t bus_once = PTHREAD_ONCE_INIT;

static void
on_bus(int sig, siginfo_t *si, void *ctx)
{
	(void)ctx;
	if (bus_guard && si->si_code > 0)
		siglongjmp(*bus_guard, 1);
	/* Not ours: back to what it was, and a fault faults again on return. */
	sigaction(sig, &bus_before, NULL);
	if (si->si_code <= 0)
		raise(sig);
}

static void
bus_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_sigaction = on_bus;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGBUS, &sa, &bus_before);
}

/* scan_block() on a mapped block; false when its pages were gone. */
static bool
scan_mapped(struct scout *s, struct slot *sl, size_t blen, size_t got)
{
	sigjmp_buf jb;

	/* 1: the jump out of on_bus() unblocks SIGBUS again */
	if (sigsetjmp(jb, 1)) {
		bus_guard = NULL;
		/* the memo may hold half a line taken from the lost pages */
		scout_memo_release(&s->memo);
		unmap_block(s);
		s->shrank = true;
		return false;
	}
	bus_guard = &jb;
	scan_block(s, sl, blen, got);
	bus_guard = NULL;
	return true;
}

/* Block j's candidate records, from its mapping or else read; false when
 * the block is not all there. */
static bool
scout_block(struct scout *s, struct slot *sl, uint64_t j)
{
	size_t blen = 0, got = 0;

	if (s->shrank)
		return false;
	if (map_block(s, j, &blen, &got))
		return scan_mapped(s, sl, blen, got);
	if (!read_block(s, j, &blen, &got))
		return false;
	scan_block(s, sl, blen, got);
	return true;
}

static void *
scout_main(void *arg)
{
	struct scout *s = arg;
	sigset_t bus;

	/* A fault on a mapped block must reach on_bus(), not kill us. */
	sigemptyset(&bus);
	sigaddset(&bus, SIGBUS);
	pthread_sigmask(SIG_UNBLOCK, &bus, NULL);
	for (;;) {
		struct slot *sl;
		uint64_t j;
		bool ok;

		pthread_mutex_lock(&s->mu);
		while (!s->stop && s->next_claim < s->nblocks && s->next_claim >= s->released + SLOTS)
			pthread_cond_wait(&s->cv, &s->mu);
		if (s->stop || s->next_claim >= s->nblocks) {
			pthread_mutex_unlock(&s->mu);
			return NULL;
		}
		j = s->next_claim++;
		sl = &s->slot[j % SLOTS];
		sl->block = j;
		sl->claimed = true;
		sl->failed = false;
		atomic_store_explicit(&sl->ready, false, memory_order_relaxed);
		atomic_store_explicit(&sl->cut, false, memory_order_relaxed);
		sl->cursor = 0;
		if (s->pending) {
			litset_free(s->ls);
			s->ls = s->pending;
			s->skip = s->pending_skip;
			s->pending = NULL;
		}
		pthread_mutex_unlock(&s->mu);

		ok = scout_block(s, sl, j);

		pthread_mutex_lock(&s->mu);
		sl->failed = !ok;
		atomic_store_explicit(&sl->ready, true, memory_order_release);
		pthread_cond_broadcast(&s->cv);
		pthread_mutex_unlock(&s->mu);
	}
}

static struct scout_skip
skip_or_none(const struct scout_skip *sk)
{
	return sk ? *sk : (struct scout_skip){ SIZE_MAX, NULL, NULL, NULL };
}

struct scout *
scout_start(int fd, off_t base, uint64_t size, struct litset *ls, const struct scout_skip *sk)
{
	struct scout *s = xcalloc(1, sizeof(*s));
	sigset_t all, old;
	bool started;

	s->skip = skip_or_none(sk);
	s->fd = fd;
	s->base = base;
	s->size = size;
	s->nblocks = (size + SCOUT_BLOCK - 1) / SCOUT_BLOCK;
	s->overlap = litset_longest(ls);
	s->ls = ls;
	s->next_claim = 1;
	pthread_once(&bus_once, bus_install);
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	/* Signals are the caller's business: the thread starts with all blocked. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	started = pthread_create(&s->th, NULL, scout_main, s) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!started) {
		pthread_cond_destroy(&s->cv);
		pthread_mutex_destroy(&s->mu);
		litset_free(ls);
		free(s);
		return NULL;
	}
	return s;
}

void
scout_update(struct scout *s, struct litset *ls, const struct scout_skip *sk)
{
	pthread_mutex_lock(&s->mu);
	litset_free(s->pending);
	s->pending = ls;
	s->pending_skip = skip_or_none(sk);
	pthread_mutex_unlock(&s->mu);
}

/* The first record of a ready slot in [from, covered), block start `start`. */
static enum scout_answer
slot_answer(struct slot *sl, uint64_t start, uint64_t from, uint64_t covered, uint64_t *at,
	    bool *alone)
{
	while (sl->cursor < sl->n && start + (sl->rec[sl->cursor] & ~REC_ALONE) < from)
		sl->cursor++;
	if (sl->cursor < sl->n && start + (sl->rec[sl->cursor] & ~REC_ALONE) < covered) {
		*at = start + (sl->rec[sl->cursor] & ~REC_ALONE);
		*alone = (sl->rec[sl->cursor] & REC_ALONE) != 0;
		return SCOUT_FOUND;
	}
	return SCOUT_NONE;
}

/*
 * Wait for the scout to finish the slot's block (or its piece of it). A
 * piece takes some microseconds, less than a sleep and a wake-up on a
 * virtual machine, so the classifier spins a while before it sleeps.
 */
static void
wait_ready(struct scout *s, struct slot *sl)
{
	for (unsigned i = 0; i < SPINS; i++) {
		if (atomic_load_explicit(&sl->ready, memory_order_acquire))
			return;
		spin_pause();
	}
	pthread_mutex_lock(&s->mu);
	while (!atomic_load_explicit(&sl->ready, memory_order_acquire))
		pthread_cond_wait(&s->cv, &s->mu);
	pthread_mutex_unlock(&s->mu);
}

/* About [from, *covered) in the block held: the scout's records below
 * held_from, the classifier's own search from there. */
static enum scout_answer
held_answer(const struct scout *s, struct slot *sl, uint64_t start, uint64_t from,
	    uint64_t *covered, uint64_t *at, bool *alone)
{
	if (from >= start + s->held_from)
		return SCOUT_YOURS;
	if (*covered > start + s->held_from)
		*covered = start + s->held_from;
	return slot_answer(sl, start, from, *covered, at, alone);
}

enum scout_answer
scout_ask(struct scout *s, uint64_t from, uint64_t to, uint64_t *at, uint64_t *covered,
	  bool *alone)
{
	uint64_t j = from / SCOUT_BLOCK, start = j * SCOUT_BLOCK;
	struct slot *sl = &s->slot[j % SLOTS];
	bool mine;

	*covered = start + SCOUT_BLOCK < to ? start + SCOUT_BLOCK : to;
	/* Bytes past the size the scout was given (the file grew) are the
	 * caller's. */
	if (from >= s->size)
		return SCOUT_YOURS;
	if (*covered > s->size)
		*covered = s->size;
	if (s->held == j + 1)
		return held_answer(s, sl, start, from, covered, at, alone);
	pthread_mutex_lock(&s->mu);
	if (j > s->released) {
		s->released = j;
		pthread_cond_broadcast(&s->cv);
	}
	if (j >= s->next_claim && j < s->nblocks)
		s->next_claim = j + 1;        /* take it: the scout goes on after it */
	mine = sl->claimed && sl->block == j;
	if (mine && !atomic_load_explicit(&sl->ready, memory_order_relaxed))
		atomic_store_explicit(&sl->cut, true, memory_order_relaxed);
	pthread_mutex_unlock(&s->mu);
	if (mine)
		wait_ready(s, sl);
	s->held = j + 1;
	s->held_from = !mine || sl->failed ? 0 : sl->done_to;
	if (mine && !sl->failed && start + sl->done_to < s->size && sl->done_to < SCOUT_BLOCK)
		s->cuts++;
	return held_answer(s, sl, start, from, covered, at, alone);
}

size_t
scout_cuts(const struct scout *s)
{
	return s->cuts;
}

void
scout_stop(struct scout *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->mu);
	s->stop = true;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->th, NULL);
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mu);
	litset_free(s->ls);
	litset_free(s->pending);
	scout_memo_release(&s->memo);
	for (size_t i = 0; i < SLOTS; i++)
		free(s->slot[i].rec);
	unmap_block(s);
	free(s->readbuf);
	free(s);
}
