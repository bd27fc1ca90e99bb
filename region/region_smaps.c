/*
 * region_smaps.c - what the kernel says about one region: the VMAs of
 * /proc/self/smaps inside its range (a region is its own VMA: hugetlb
 * mappings never merge, the others have guard pages), summed: Rss,
 * AnonHugePages (THP), Private_Hugetlb + Shared_Hugetlb.  Read line by line
 * through a fixed buffer (policy/'s hp_read_lines): no malloc, any number
 * of mappings.
 */
#define _GNU_SOURCE
#include "hp_region.h"
#include "../policy/hp_policy.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct ctx {
	uintptr_t a, b;
	int in;
	struct hp_range_smaps *o;
};

static uint64_t kb(const char *s)
{
	return strtoull(s, NULL, 10) * 1024;
}

static int field(void *arg, char *line, size_t len, int whole)
{
	struct ctx *c = arg;
	(void)len, (void)whole;
	if ((line[0] >= '0' && line[0] <= '9') || (line[0] >= 'a' && line[0] <= 'f')) {
		char *s;
		uintptr_t start = (uintptr_t)strtoull(line, &s, 16), end = 0;
		if (*s == '-')
			end = (uintptr_t)strtoull(s + 1, NULL, 16);
		c->in = start < c->b && end > c->a;
		c->o->vmas += c->in;
		return 0;
	}
	if (!c->in)
		return 0;
	if (strncmp(line, "Rss:", 4) == 0)
		c->o->rss += kb(line + 4);
	else if (strncmp(line, "AnonHugePages:", 14) == 0)
		c->o->anon_huge += kb(line + 14);
	else if (strncmp(line, "Shared_Hugetlb:", 15) == 0 || strncmp(line, "Private_Hugetlb:", 16) == 0)
		c->o->hugetlb += kb(strchr(line, ':') + 1);
	else if (strncmp(line, "VmFlags:", 8) == 0 && c->o->vmas == 1)
		hp_strlcpy(c->o->vmflags, line + 9, sizeof c->o->vmflags);
	return 0;
}

int hp_region_smaps(uintptr_t base, size_t len, struct hp_range_smaps *out)
{
	char buf[512];
	memset(out, 0, sizeof *out);
	struct ctx c = { base, base + len, 0, out };
	int err = hp_read_lines("/proc/self/smaps", buf, sizeof buf, field, &c);
	return err ? err : out->vmas ? 0 : ENOENT;
}

int hp_region_os_measure(const struct hp_region *r, struct hugepolicy_region_info *info)
{
	struct hp_range_smaps sm;
	int err = hp_region_smaps(r->base, r->len, &sm);
	if (err)
		return err;
	info->hugetlb_bytes = sm.hugetlb;
	info->thp_bytes = sm.anon_huge;
	info->base_bytes = sm.rss > sm.anon_huge ? sm.rss - sm.anon_huge : 0;
	info->rss = sm.rss + sm.hugetlb;
	info->vmas = sm.vmas;
	return 0;
}
