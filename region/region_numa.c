/*
 * region_numa.c - a region's NUMA policy, with mbind(2) on its range before
 * it is populated (so the pages come from where the policy says): interleave
 * over every online node, local (the faulting CPU's node), or one node
 * (MPOL_PREFERRED; MPOL_BIND when strict).  On a one-node machine every
 * policy is applied all the same - a later hotplugged node would follow it -
 * and reported as a no-op.  The raw system call: no libnuma.
 */
#define _GNU_SOURCE
#include "hp_region.h"
#include "../policy/hp_policy.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_NODES 1024                  /* the kernel's MAX_NUMNODES at most */
#define WORDS (MAX_NODES / 64)
enum { MPOL_PREFERRED_ = 1, MPOL_BIND_ = 2, MPOL_INTERLEAVE_ = 3, MPOL_LOCAL_ = 4 };

/* The online nodes ("0", "0-3", "0,2-3") into mask: their number, or 1 with
 * node 0 when the file is missing or malformed. */
static int online(uint64_t mask[WORDS])
{
	char buf[256];
	int count = 0;
	memset(mask, 0, WORDS * sizeof mask[0]);
	if (hp_read_small("/sys/devices/system/node/online", buf, sizeof buf) > 0) {
		for (char *s = buf; *s >= '0' && *s <= '9';) {
			long a = strtol(s, &s, 10), b = a;
			if (*s == '-')
				b = strtol(s + 1, &s, 10);
			for (long n = a; n <= b && n < MAX_NODES; n++, count++)
				mask[n / 64] |= 1ull << (n % 64);
			if (*s == ',')
				s++;
		}
	}
	if (count == 0) {
		mask[0] = 1;
		count = 1;
	}
	return count;
}

int hp_region_numa(struct hp_region *r, void *p, size_t len)
{
	static const char *const names[4] = { "default", "interleave", "local", "node" };
	int want = r->opt.numa, strict = (r->opt.flags & HUGEPOLICY_REGION_STRICT) != 0;
	if (want == HUGEPOLICY_REGION_NUMA_DEFAULT)
		return 0;
	uint64_t nodes[WORDS], mask[WORDS] = { 0 };
	int n = online(nodes), mode = MPOL_LOCAL_, node = r->opt.node;
	const char *mpol = "MPOL_LOCAL";
	if (want == HUGEPOLICY_REGION_NUMA_INTERLEAVE) {
		mode = MPOL_INTERLEAVE_, mpol = "MPOL_INTERLEAVE";
		memcpy(mask, nodes, sizeof mask);
	} else if (want == HUGEPOLICY_REGION_NUMA_NODE) {
		if (node >= MAX_NODES || !(nodes[node / 64] >> (node % 64) & 1)) {
			hp_region_why(r, "numa: node %d is not online (%d online)", node, n);
			return EINVAL;
		}
		mode = strict ? MPOL_BIND_ : MPOL_PREFERRED_, mpol = strict ? "MPOL_BIND" : "MPOL_PREFERRED";
		mask[node / 64] = 1ull << (node % 64);
	}
	long rc = syscall(SYS_mbind, p, len, mode, mode == MPOL_LOCAL_ ? NULL : mask,
			  mode == MPOL_LOCAL_ ? 0 : MAX_NODES + 1, 0);
	if (rc != 0) {
		int e = errno;
		const char *en = strerrorname_np(e);
		hp_region_why(r, "numa: %s not applied: mbind(%s) refused (%s)", names[want], mpol, en ? en : "?");
		return !strict ? 0 : e == ENOMEM ? ENOMEM : EOPNOTSUPP;
	}
	r->numa = want;
	r->numa_noop = n <= 1;
	if (want == HUGEPOLICY_REGION_NUMA_NODE)
		hp_region_why(r, "numa: node %d (mbind %s)%s", node, mpol,
			      n <= 1 ? ": a no-op, the only online node" : "");
	else
		hp_region_why(r, "numa: %s over %d online node%s (mbind %s)%s", names[want], n, n == 1 ? "" : "s",
			      mpol, n <= 1 ? ": a no-op on this one-node machine" : "");
	return 0;
}
