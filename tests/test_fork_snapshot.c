/* test_fork_snapshot.c - what a forked child of a multi-threaded parent
 * sees in hugetlb memory while another thread writes it (hugepolicy(7),
 * HUGEPOLICY_FORK): a hugetlb mapping the child could not copy from the
 * pool holds the copy staged in the prepare handler, so its content is of
 * an instant between the call of fork and the fork itself; the rest of the
 * child's memory is of the fork.  A writer thread counts in a hugetlb block
 * (h) and then in ordinary memory (n), so h >= n at every instant; with the
 * pool left without a page, each child must see
 *     before <= h, h <= n + 1, n <= after
 * (before: n read just before fork(); after: h read just after it returned
 * in the parent).  A child seeing h < n saw the documented older snapshot.
 * Run under HUGEPOLICY_PAGES=hugetlb HUGEPOLICY_THRESHOLD=2M with pages in
 * the pool (hugetlb_pool.sh); the test takes every page left. */
#define _GNU_SOURCE
#include "check.h"
#include "fill_pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

enum { BLOCK = 2 << 20, MAXBLOCKS = 256, FORKS = 40 };

static unsigned char *blk[MAXBLOCKS];
static _Atomic uint64_t *h;             /* in a hugetlb block */
static _Atomic uint64_t n;              /* ordinary memory */
static atomic_int stop;

static void *writer(void *arg)
{
	(void)arg;
	for (uint64_t k = 1; !atomic_load(&stop); k++) {
		atomic_store(h, k);
		atomic_store(&n, k);
	}
	return NULL;
}

int main(void)
{
	unsigned char *hb = malloc(BLOCK);
	CHECK(hb != NULL);
	memset(hb, 0, BLOCK);
	struct hugepolicy_stats st;
	st.size = sizeof st;
	hugepolicy_stats(&st);
	if (st.hugetlb_bytes < BLOCK)
		SKIP("the counter's block is not on the pool (backend %s, pages %s)", hugepolicy_backend(),
		     hugepolicy_pages());
	h = (_Atomic uint64_t *)hb;
	int nblk = fill_pool(blk, MAXBLOCKS, BLOCK, &st);
	if (st.hugetlb_fallbacks == 0)
		SKIP("the pool still has room after %d blocks", nblk);
	pthread_t w;
	CHECK(pthread_create(&w, NULL, writer, NULL) == 0);
	while (atomic_load(&n) < 1000)
		;
	int bad = 0, older = 0;
	for (int i = 0; i < FORKS && !bad; i++) {
		int fds[2];
		CHECK(pipe(fds) == 0);
		uint64_t before = atomic_load(&n);
		pid_t pid = fork();
		if (pid == 0) {
			uint64_t seen[2] = { atomic_load(h), atomic_load(&n) };
			_exit(write(fds[1], seen, sizeof seen) == sizeof seen ? 0 : 1);
		}
		uint64_t after = atomic_load(h);
		CHECK(pid > 0);
		close(fds[1]);
		uint64_t seen[2] = { 0, 0 };
		ssize_t got = read(fds[0], seen, sizeof seen);
		close(fds[0]);
		int status = -1;
		waitpid(pid, &status, 0);
		CHECK_MSG(got == sizeof seen && WIFEXITED(status) && WEXITSTATUS(status) == 0, "fork %d: child status %d",
			  i, status);
		if (got != sizeof seen)
			break;
		CHECK_MSG(before <= seen[0] && seen[0] <= seen[1] + 1 && seen[1] <= after,
			  "fork %d: before %llu, child h %llu n %llu, after %llu", i, (unsigned long long)before,
			  (unsigned long long)seen[0], (unsigned long long)seen[1], (unsigned long long)after);
		bad = !(before <= seen[0] && seen[0] <= seen[1] + 1 && seen[1] <= after);
		older += seen[0] < seen[1];
	}
	atomic_store(&stop, 1);
	pthread_join(w, NULL);
	printf("%d forks: %d children saw the hugetlb block older than ordinary memory (the staged copy)\n", FORKS,
	       older);
	return check_result("fork_snapshot");
}
