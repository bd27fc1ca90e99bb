/*
 * live_block.c - the seqlock of the live block (hp_live.h): its writer,
 * used by the library's one writer at a time (live.c), and its reader,
 * used by `hugepolicy inspect` through a function that reads the other
 * process's memory.  Invariants: the writer makes seq odd before the first
 * byte of the copy changes and even after the last; a reader returns a
 * copy only when seq was even and equal before and after it, and never
 * trusts a block of another layout.
 */
#include "hp_live.h"

#include <errno.h>
#include <string.h>

void hp_live_write(struct hp_live *l, const struct hp_report_snap *snap, int64_t counters_ns, int64_t stats_ns)
{
	uint64_t s = atomic_load_explicit(&l->seq, memory_order_relaxed);
	atomic_store_explicit(&l->seq, s + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);      /* odd before any byte below */
	l->counters_ns = counters_ns;
	l->stats_ns = stats_ns;
	if (&l->snap != snap)
		memcpy(&l->snap, snap, sizeof *snap);
	atomic_store_explicit(&l->seq, s + 2, memory_order_release);
}

int hp_live_read(hp_live_read_fn read, void *ctx, uint64_t addr, int tries, struct hp_live *out)
{
	const uint64_t at_seq = addr + offsetof(struct hp_live, seq);
	for (int i = 0; i < tries; i++) {
		uint64_t before, after;
		int err = read(ctx, at_seq, &before, sizeof before);
		if (!err)
			err = read(ctx, addr, out, sizeof *out);
		if (err)
			return err;
		if (memcmp(out->magic, HP_LIVE_MAGIC, sizeof out->magic) != 0 || out->version != HP_LIVE_VERSION ||
		    out->size != sizeof *out)
			return EPROTO;
		if ((err = read(ctx, at_seq, &after, sizeof after)) != 0)
			return err;
		uint64_t copied = atomic_load_explicit(&out->seq, memory_order_relaxed);
		if (before == 0 && after == 0)
			return ENODATA;
		if (!(before & 1) && before == after && copied == before)
			return 0;
	}
	return EAGAIN;
}
