/* test_fork_lazy.c - where the pool has room for a copy of every hugetlb page,
 * fork copies nothing and the room stays the children's.
 * The pool is raised by a delta (hugetlb_pool.sh); a two-thread parent
 * holds BLOCKS hugetlb blocks of 2 MiB and a hugetlb region of REGION
 * bytes, written, and forks:
 *   - the child starts out sharing them (smaps Shared_Hugetlb = all of
 *     them: nothing was copied at the fork), and so does the parent;
 *   - while they share, the parent's new hugetlb blocks and regions leave
 *     the pool room for a copy of every shared page: the block that would
 *     eat into it is refused (it falls back, counted), and so is a region
 *     (it steps down, and says why);
 *   - the parent writes half the blocks, the child then writes all of them
 *     and the region and reads them back, and exits 0; the parent's bytes
 *     are its own;
 *   - a second child forked meanwhile makes its copies off the pool;
 *   - once the child is gone nothing is shared and a new block gets the
 *     pool again.
 * usage: test_fork_lazy */
#define _GNU_SOURCE
#include "check.h"
#include "region_info_of.h"
#include "smaps_rollup.h"

#include <hugepolicy.h>
#include <pthread.h>
#include <errno.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { BLOCKS = 8, BLOCK = 2 << 20, MORE = 64, REGION = 4 << 20 };

static unsigned char *blk[BLOCKS], *reg;
static atomic_int stop;

static void *idle(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop))
		usleep(1000);
	return NULL;
}

/* smaps_rollup's Shared_Hugetlb in bytes, or -1 */
static long long shared_hugetlb(void)
{
	long long kb = smaps_rollup_kb("Shared_Hugetlb");
	return kb < 0 ? -1 : kb * 1024;
}

static int all(unsigned char v0, int stride)
{
	for (int i = 0; i < BLOCKS; i++)
		for (size_t off = 0; off < BLOCK; off += (size_t)stride)
			if (blk[i][off] != (unsigned char)(v0 + i))
				return 0;
	return 1;
}

static void stats(struct hugepolicy_stats *st)
{
	st->size = sizeof *st;
	hugepolicy_stats(st);
}

int main(void)
{
	struct hugepolicy_stats st;
	for (int i = 0; i < BLOCKS; i++) {
		blk[i] = malloc(BLOCK);
		if (!blk[i])
			return 1;
		memset(blk[i], 1 + i, BLOCK);
	}
	struct hugepolicy_region_options ro = { .size = sizeof ro, .pages = HUGEPOLICY_REGION_HUGETLB,
						 .flags = HUGEPOLICY_REGION_STRICT };
	reg = hugepolicy_region_alloc(REGION, &ro);
	if (!reg)
		SKIP("no hugetlb region of %d bytes (errno %d): the pool is short", REGION, errno);
	memset(reg, 33, REGION);
	stats(&st);
	if (st.hugetlb_bytes < (uint64_t)BLOCKS * BLOCK || st.hugetlb_fallbacks)
		SKIP("the pool gave %llu B for %d blocks (another process holds pages?)",
		     (unsigned long long)st.hugetlb_bytes, BLOCKS);
	uint64_t held = st.hugetlb_bytes;
	pthread_t t;
	pthread_create(&t, NULL, idle, NULL);   /* a multi-threaded parent */
	int up[2], go[2];
	if (pipe(up) || pipe(go))
		return 1;
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		long long sh = shared_hugetlb();
		char c;
		if (write(up[1], &sh, sizeof sh) != sizeof sh || read(go[0], &c, 1) != 1)
			_exit(3);
		for (int i = 0; i < BLOCKS; i++)
			memset(blk[i], 101 + i, BLOCK);
		memset(reg, 77, REGION);
		_exit(all(101, 4096) && reg[0] == 77 && reg[REGION - 1] == 77 ? 0 : 2);
	}
	long long child_shared = -1;
	CHECK(read(up[0], &child_shared, sizeof child_shared) == sizeof child_shared);
	printf("child: Shared_Hugetlb %lld B of %llu B held\n", child_shared, (unsigned long long)held);
	CHECK_MSG(child_shared >= (long long)BLOCKS * BLOCK + REGION, "the child shares %lld B: it was copied at the fork",
		  child_shared);
	CHECK(shared_hugetlb() >= (long long)BLOCKS * BLOCK + REGION);

	/* a second child while the first shares: its copies never come from the
	 * pool (every free page may be owed to the first child's copies) */
	fflush(stdout);
	pid_t second = fork();
	if (second == 0)
		_exit(smaps_rollup_kb("Private_Hugetlb") == 0 ? 0 : 4);
	int st2 = 0;
	waitpid(second, &st2, 0);
	CHECK_MSG(WIFEXITED(st2) && WEXITSTATUS(st2) == 0, "the second child took pool pages for its copies (%d)", st2);

	/* new blocks while shared: each taken only with room left for the copies
	 * (a pool with more free pages than MORE cannot be filled here) */
	long long room = -1, f = -1, r = -1;
	char line[128];
	FILE *mi = fopen("/proc/meminfo", "r");
	while (mi && fgets(line, sizeof line, mi)) {
		sscanf(line, "HugePages_Free: %lld", &f);
		sscanf(line, "HugePages_Rsvd: %lld", &r);
	}
	if (mi)
		fclose(mi);
	room = f >= 0 && r >= 0 ? f - r : -1;
	if (room < 0 || room >= MORE) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		SKIP("the pool has %lld free pages: more than this test can fill", room);
	}
	unsigned char *more[MORE];
	int got = 0;
	stats(&st);
	uint64_t fell = st.hugetlb_fallbacks;
	while (got < MORE) {
		more[got] = malloc(BLOCK);
		if (!more[got])
			break;
		memset(more[got++], 7, BLOCK);
		stats(&st);
		if (st.hugetlb_fallbacks > fell)
			break;
	}
	printf("parent: %d new blocks, %llu B on the pool, fallbacks %llu -> %llu\n", got,
	       (unsigned long long)(st.hugetlb_bytes - held), (unsigned long long)fell,
	       (unsigned long long)st.hugetlb_fallbacks);
	CHECK_MSG(st.hugetlb_fallbacks > fell, "%d new blocks all on the pool: the room for the copies was taken", got);
	ro.flags = 0;                   /* a region steps down rather than take the room */
	unsigned char *r2 = hugepolicy_region_alloc(2 << 20, &ro);
	CHECK(r2 != NULL);
	if (r2) {
		struct hugepolicy_region_info in = info_of(r2);
		printf("region after the fork: %s\n", in.reason);
		CHECK_MSG(in.kind != HUGEPOLICY_REGION_HUGETLB && strstr(in.reason, "kept for copies") != NULL,
			  "a region took the pool's room: %s", in.reason);
		hugepolicy_region_free(r2);
	}

	for (int i = 0; i < BLOCKS / 2; i++)    /* the parent's copy-on-write first */
		memset(blk[i], 51 + i, BLOCK);
	CHECK(write(go[1], "g", 1) == 1);
	int status = 0;
	waitpid(pid, &status, 0);
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child: %s %d",
		  WIFSIGNALED(status) ? "killed by signal" : "exit",
		  WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	for (int i = 0; i < BLOCKS; i++)
		CHECK(blk[i][0] == (unsigned char)((i < BLOCKS / 2 ? 51 : 1) + i) &&
		      blk[i][BLOCK - 1] == (unsigned char)((i < BLOCKS / 2 ? 51 : 1) + i));
	CHECK(reg[0] == 33 && reg[REGION - 1] == 33);
	hugepolicy_region_free(reg);

	/* nothing shared now: the next block takes the pool again */
	CHECK(shared_hugetlb() == 0);
	while (got > 0)
		free(more[--got]);
	stats(&st);
	uint64_t before = st.hugetlb_bytes;
	unsigned char *again = malloc(BLOCK);
	stats(&st);
	CHECK_MSG(again && st.hugetlb_bytes > before, "after the child: %llu -> %llu B on the pool",
		  (unsigned long long)before, (unsigned long long)st.hugetlb_bytes);
	free(again);
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	return check_result("test_fork_lazy");
}
