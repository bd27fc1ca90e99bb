/*
 * plan_mthp.c - which THP sizes below the PMD size (mTHP, Linux >= 6.8:
 * transparent_hugepage/hugepages-<size>kB/enabled) `auto` uses, and how.
 * Pure: the probe and the rest of the plan in, the plan's mthp fields out.
 *
 * The kernel's rule (admin-guide/mm/transhuge.rst): an anonymous fault
 * takes the largest enabled order whose aligned range lies inside the VMA
 * and is wholly unpopulated; sizes in `always` are enabled everywhere,
 * sizes in `madvise` only in MADV_HUGEPAGE VMAs, `inherit` follows the
 * top-level `enabled`, which also rules the PMD size where it inherits.
 *
 * The decision (one row per case, first that holds):
 * - no sub-PMD size in always/madvise for this process: none;
 * - advised sizes, and auto on THP with blocks >= threshold advised
 *   (scope LARGE): advise, memory fresh from the kernel in pieces of at
 *   least twice the smallest advised size gets MADV_HUGEPAGE once, at the
 *   backend's mmap (pages/thp_mid.c; glibc: its mmapped blocks below the
 *   threshold); the RSS a fault may add is one folio of the largest
 *   advised size.  Where the PMD size comes with the advice
 *   too (its mode madvise or always), a whole advised PMD-aligned window
 *   could fault or be collapsed by khugepaged into a PMD THP, so the advice
 *   leaves the first base page of every such window out (guard): no VMA
 *   made of mid-size advice holds a whole window;
 * - advised sizes with any other plan, or the allocator's mappings made
 *   MADV_NOHUGEPAGE (small_nohuge: THP always without the except-advised
 *   switch): unused (the reason says why);
 * - only always sizes: kernel, the kernel uses them without advice.
 */
#include "hp_policy.h"

#include <stdio.h>
#include <string.h>

const char *hp_mthp_name(int mthp)
{
	switch (mthp) {
	case HP_MTHP_KERNEL: return "kernel";
	case HP_MTHP_ADVISE: return "advise";
	case HP_MTHP_UNUSED: return "unused";
	default: return "none";
	}
}

static uint64_t pmd_of(const struct hp_probe *p)
{
	return p->pmd_size ? p->pmd_size : HP_HUGE_2M;
}

int hp_thp_size_mode(const struct hp_probe *p, uint64_t size, int thp_off)
{
	int mode = size == pmd_of(p) ? p->thp_enabled : HP_THP_NEVER;
	for (int i = 0; i < p->nthp_sizes; i++)
		if (p->thp_sizes[i].size == size)
			mode = p->thp_sizes[i].enabled == HP_THP_INHERIT ? p->thp_enabled : p->thp_sizes[i].enabled;
	if (mode != HP_THP_ALWAYS && mode != HP_THP_MADVISE)
		return HP_THP_NEVER;
	if (thp_off == HP_THP_OFF_ALL)
		return HP_THP_NEVER;
	return thp_off == HP_THP_OFF_EXCEPT_ADVISED ? HP_THP_MADVISE : mode;
}

static int log2_of(uint64_t v)
{
	int k = 0;
	while (v > 1) {
		v >>= 1;
		k++;
	}
	return k;
}

/* "16 KiB, 64 KiB" from a mask */
static void size_list(uint32_t mask, char *buf, size_t cap)
{
	struct hp_buf b = { buf, cap, 0 };
	char s[24];
	buf[0] = '\0';
	for (int k = 0; k < 32; k++)
		if (mask & (1u << k)) {
			hp_size_name((uint64_t)1 << k, s, sizeof s);
			hp_buf_printf(&b, "%s%s", b.len ? ", " : "", s);
		}
}

void hp_plan_mthp(const struct hp_probe *p, struct hp_plan *pl)
{
	int off = pl->thp_process == HP_THP_PROC_DISABLE ? p->thp_process_off : hp_plan_thp_off(p, pl->thp_process);
	uint64_t pmd = pmd_of(p);
	pl->mthp = HP_MTHP_NONE;
	pl->mthp_advised = pl->mthp_kernel = 0;
	pl->mthp_min = 0;
	pl->mthp_guard = 0;
	pl->mthp_pmd = pmd;
	for (int i = 0; i < p->nthp_sizes; i++) {
		uint64_t size = p->thp_sizes[i].size;
		if (size >= pmd || size >= ((uint64_t)1 << 32))
			continue;
		int mode = hp_thp_size_mode(p, size, off);
		if (mode == HP_THP_MADVISE)
			pl->mthp_advised |= 1u << log2_of(size);
		else if (mode == HP_THP_ALWAYS)
			pl->mthp_kernel |= 1u << log2_of(size);
	}
	char adv[96], ker[96], pn[24], mn[24], tn[24], big[24];
	size_list(pl->mthp_advised, adv, sizeof adv);
	size_list(pl->mthp_kernel, ker, sizeof ker);
	hp_size_name(pmd, pn, sizeof pn);
	char kernel_note[192] = "";
	struct hp_buf kb = { kernel_note, sizeof kernel_note, 0 };
	if (pl->mthp_kernel)
		hp_buf_printf(&kb, "; %s always: the kernel uses %s for every anonymous fault, nothing to advise",
			      ker, pl->mthp_kernel & (pl->mthp_kernel - 1) ? "them" : "it");
	if (!pl->mthp_advised && !pl->mthp_kernel) {
		snprintf(pl->mthp_reason, sizeof pl->mthp_reason, "%s", !p->nthp_sizes
			 ? "no per-size THP (kernel < 6.8, or not probed)" : off == HP_THP_OFF_ALL
			 ? "THP is off for this process (PR_SET_THP_DISABLE)" : "no size below the PMD size is "
			 "enabled (hugepages-<size>kB/enabled: never)");
		return;
	}
	if (!pl->mthp_advised) {
		pl->mthp = HP_MTHP_KERNEL;
		snprintf(pl->mthp_reason, sizeof pl->mthp_reason, "%s", kernel_note + 2);
		return;
	}
	int smallest = __builtin_ctz(pl->mthp_advised), largest = 31 - __builtin_clz(pl->mthp_advised);
	uint64_t min = (uint64_t)2 << smallest;
	hp_size_name((uint64_t)1 << largest, big, sizeof big);
	if (pl->pages_requested != HP_PAGES_AUTO || pl->pages != HP_PAGES_THP || pl->thp_scope != HP_THP_LARGE) {
		pl->mthp = HP_MTHP_UNUSED;
		snprintf(pl->mthp_reason, sizeof pl->mthp_reason, "%s madvise, not used: %s%s", adv,
			 pl->pages_requested != HP_PAGES_AUTO ? "only pages=auto advises mid-size blocks"
			 : pl->pages != HP_PAGES_THP ? "auto is not on THP here" : "the allocator's whole-heap "
			 "THP covers them", kernel_note);
		return;
	}
	if (pl->thp_small_nohuge) {
		/* THP always without the except-advised switch: the allocator's
		 * mappings get MADV_NOHUGEPAGE (mimalloc_os.c, jemalloc's
		 * opt.thp=never), which takes every size's advice off again */
		pl->mthp = HP_MTHP_UNUSED;
		snprintf(pl->mthp_reason, sizeof pl->mthp_reason, "%s madvise, not used: the allocator's mappings "
			 "are MADV_NOHUGEPAGE (small blocks kept off THP always), no size comes to them%s", adv,
			 kernel_note);
		return;
	}
	if (min >= pl->threshold) {
		pl->mthp = HP_MTHP_UNUSED;
		snprintf(pl->mthp_reason, sizeof pl->mthp_reason, "%s madvise, not used: no block is both at "
			 "least twice the smallest of them and below the threshold (%llu B)%s", adv,
			 (unsigned long long)pl->threshold, kernel_note);
		return;
	}
	pl->mthp = HP_MTHP_ADVISE;
	pl->mthp_min = min;
	pl->mthp_guard = hp_thp_size_mode(p, pmd, off) != HP_THP_NEVER;
	hp_size_name(min, mn, sizeof mn);
	hp_size_name(pl->threshold, tn, sizeof tn);
	struct hp_buf r = { pl->mthp_reason, sizeof pl->mthp_reason, 0 };
	hp_buf_printf(&r, "auto: %s madvise: MADV_HUGEPAGE once per mapping the allocator makes, from %s on "
		      "(glibc: its mmapped blocks below %s), not per malloc (a fault adds at most %s); ", adv, mn, tn,
		      big);
	if (pl->mthp_guard)
		hp_buf_printf(&r, "the first page of each %s-aligned %s left unadvised, as %s THP comes with the "
			      "advice too and would take the window whole", pn, pn, pn);
	else
		hp_buf_printf(&r, "%s THP does not come with the advice, so the whole block is advised", pn);
	hp_buf_printf(&r, "%s", kernel_note);
}

/* The boundaries are visited in order; with max reached the rest of the
 * block stays unadvised (never a segment across a boundary). */
int hp_mthp_segments(uint64_t first, uint64_t last, uint64_t page, uint64_t pmd, int guard,
		     uint64_t seg[][2], int max)
{
	int n = 0;
	uint64_t at = first;
	if (guard && pmd > page) {
		/* each window boundary B inside [first, last): [at, B), then on from B + page */
		for (uint64_t b = (first + pmd - 1) & ~(pmd - 1); b < last; b += pmd) {
			if (b > at) {
				if (n == max)
					return n;
				seg[n][0] = at, seg[n][1] = b, n++;
			}
			at = b + page > at ? b + page : at;
		}
	}
	if (at < last && n < max)
		seg[n][0] = at, seg[n][1] = last, n++;
	return n;
}
