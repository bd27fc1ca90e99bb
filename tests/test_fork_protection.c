/* test_fork_protection.c - a forked child gets hugetlb memory the program
 * mprotect'ed with the protection it had, and the parent's fork survives
 * it.  An 8 MiB block on 2 MiB hugetlb pages (HUGEPOLICY_PAGES=hugetlb),
 * its pages filled with 0x51..0x54, then page 1 made PROT_NONE and page 2
 * read-only, and a 4 MiB one with its page 1 read-only (a mapping the
 * parent can stage); more blocks then take every page the pool has left,
 * so the fork cannot leave the copies to the kernel (pages/hugetlb_fork.c).
 * The child reads its mappings' flags in /proc/self/smaps: page 1 neither
 * readable nor writable, page 2 readable and not writable, pages 0 and 3
 * read+write, the second block's page 1 readable and not writable, page 0
 * read+write; it writes page 0, opens pages 1 and 2 and finds every byte
 * the parent wrote; its report (fork.*) says nothing was lost.  The
 * parent's block keeps its protections and bytes.
 * usage: test_fork_protection single|threads|room
 *   single:  a single-threaded parent (the child copies at fork)
 *   threads: a second thread runs (the parent stages copies before fork,
 *            but not of the first block, and says so once in
 *            HUGEPOLICY_LOG)
 *   room:    no block but the first, so the pool has room for the copy,
 *            in a cgroup with a hugetlb limit (which puts every fork on
 *            the copy path): the child's copy of the block comes from the
 *            pool, still on 2 MiB pages
 * Exit 77 where the block is not on hugetlb pages. */
#define _GNU_SOURCE
#include "check.h"
#include "fill_pool.h"
#include "report_keys.h"
#include "smaps_vma.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define MIB ((size_t)1 << 20)
#define PAGE (2 * MIB)

static unsigned char *blk, *ro;
static atomic_int stop;

static void *idle(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop))
		usleep(1000);
	return NULL;
}

/* "rd"/"wr" of the mapping holding p: its PROT_READ | PROT_WRITE bits */
static int prot_of(const void *p)
{
	char flags[512] = "";
	if (!smaps_vma_field(p, "VmFlags:", flags, sizeof flags))
		return -1;
	return (strstr(flags, " rd") ? PROT_READ : 0) | (strstr(flags, " wr") ? PROT_WRITE : 0);
}

static int pages_hold(unsigned char first)
{
	int ok = 1;
	for (int i = 0; i < 4; i++)
		for (size_t off = 0; off < PAGE; off += 4096)
			ok &= blk[i * PAGE + off] == (unsigned char)(first + i);
	return ok;
}

/* what the child checks; its exit code: 0, or the number of the first
 * failed check */
static int child(int room)
{
	static const int want[4] = { PROT_READ | PROT_WRITE, 0, PROT_READ, PROT_READ | PROT_WRITE };
	for (int i = 0; i < 4; i++)
		if (prot_of(blk + i * PAGE) != want[i]) {
			fprintf(stderr, "child: page %d has protection %d, not %d\n", i, prot_of(blk + i * PAGE),
				want[i]);
			return 10 + i;
		}
	if (prot_of(ro) != (PROT_READ | PROT_WRITE) || prot_of(ro + PAGE) != PROT_READ || ro[0] != 0x71 ||
	    ro[2 * PAGE - 1] != 0x72) {
		fprintf(stderr, "child: the second block's pages have protections %d and %d, bytes %#x %#x\n",
			prot_of(ro), prot_of(ro + PAGE), ro[0], ro[2 * PAGE - 1]);
		return 15;
	}
	if (room && smaps_vma_page_kb(blk + PAGE) != 2048) {
		fprintf(stderr, "child: the block's copy is on %ld kB pages, not the pool's\n",
			smaps_vma_page_kb(blk + PAGE));
		return 20;
	}
	memset(blk, 0x51, PAGE);        /* page 0 is the child's to write */
	if (mprotect(blk + PAGE, 2 * PAGE, PROT_READ | PROT_WRITE) != 0)
		return 21;
	if (!pages_hold(0x51))
		return 22;
	memset(blk, 0x61, 4 * PAGE);
	static char rep[16384];
	report_text(rep, sizeof rep);
	if (report_num(rep, "fork.lost_bytes") != 0 ||
	    report_num(rep, "fork.copied_bytes") + report_num(rep, "fork.moved_bytes") < (long long)(4 * PAGE)) {
		fprintf(stderr, "child: fork.copied_bytes %lld, moved_bytes %lld, lost_bytes %lld\n",
			report_num(rep, "fork.copied_bytes"), report_num(rep, "fork.moved_bytes"),
			report_num(rep, "fork.lost_bytes"));
		return 23;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "single";
	int threads = strcmp(mode, "threads") == 0, room = strcmp(mode, "room") == 0;
	blk = aligned_alloc(PAGE, 4 * PAGE);
	CHECK(blk != NULL);
	if (!blk)
		return check_result("test_fork_protection");
	if (smaps_vma_page_kb(blk) != 2048) {
		printf("SKIP: the block is on %ld kB pages, not 2 MiB hugetlb pages\n", smaps_vma_page_kb(blk));
		return 77;
	}
	for (int i = 0; i < 4; i++)
		memset(blk + i * PAGE, 0x51 + i, PAGE);
	ro = aligned_alloc(PAGE, 2 * PAGE);
	CHECK(ro != NULL);
	if (!ro)
		return check_result("test_fork_protection");
	memset(ro, 0x71, PAGE);
	memset(ro + PAGE, 0x72, PAGE);
	/* every page the pool has left, but where the child's copy comes from the pool */
	struct hugepolicy_stats st;
	unsigned char *more[64];
	int nmore = room ? 0 : fill_pool(more, 64, 2 * PAGE, &st);
	CHECK(mprotect(blk + PAGE, PAGE, PROT_NONE) == 0);
	CHECK(mprotect(blk + 2 * PAGE, PAGE, PROT_READ) == 0);
	CHECK(mprotect(ro + PAGE, PAGE, PROT_READ) == 0);
	pthread_t t;
	if (threads)
		CHECK(pthread_create(&t, NULL, idle, NULL) == 0);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0)
		_exit(child(room));
	int status = 0;
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: the child %s %d", mode,
		  WIFSIGNALED(status) ? "was killed by signal" : "exited", WIFSIGNALED(status) ? WTERMSIG(status)
		  : WEXITSTATUS(status));
	if (threads) {
		atomic_store(&stop, 1);
		pthread_join(t, NULL);
		char log[8192] = "";
		FILE *f = getenv("HUGEPOLICY_LOG") ? fopen(getenv("HUGEPOLICY_LOG"), "r") : NULL;
		if (f) {
			log[fread(log, 1, sizeof log - 1, f)] = '\0';
			fclose(f);
		}
		CHECK_MSG(strstr(log, "with a PROT_NONE part are not staged") != NULL,
			  "the parent did not say it left the block unstaged:\n%s", log);
	}
	CHECK_MSG(prot_of(blk + PAGE) == 0 && prot_of(blk + 2 * PAGE) == PROT_READ,
		  "the parent's pages 1 and 2 have protections %d and %d", prot_of(blk + PAGE), prot_of(blk + 2 * PAGE));
	CHECK(mprotect(blk + PAGE, 2 * PAGE, PROT_READ | PROT_WRITE) == 0);
	CHECK_MSG(pages_hold(0x51), "the parent's bytes changed");
	CHECK_MSG(prot_of(ro + PAGE) == PROT_READ, "the parent's second block lost its protection");
	CHECK(mprotect(ro + PAGE, PAGE, PROT_READ | PROT_WRITE) == 0);
	free(ro);
	printf("%s: the child exited %d; the parent's block kept its protections and bytes\n", mode,
	       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	while (nmore > 0)
		free(more[--nmore]);
	free(blk);
	return check_result("test_fork_protection");
}
