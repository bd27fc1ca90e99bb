/* fresh_buffer: time malloc + fill + free of fresh large buffers.
 *
 * For each size N (MiB) in --sizes (default 1,4,16,32,33,64,256) it runs
 * --iters K (default 20) rounds of malloc(N MiB), memset, free, and prints
 *   fresh-buffer size_mib=N iters=K seconds=S cold_s=C warm_s=W
 * with S the total monotonic time over the K rounds, C the first round (the
 * process has never had memory of that size: every page is a first touch)
 * and W the median of the other rounds (whatever the allocator reuses).  Plain malloc/free, so
 * whatever allocator the process has (hugepolicy's when preloaded) serves
 * them; the cost measured is mostly page faults on the fresh memory.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_SIZES 32
#define MAX_ITERS 100000

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void usage(FILE *out)
{
    fprintf(out, "usage: fresh_buffer [--sizes N,N,...] [--iters K]\n"
                 "  sizes in MiB (default 1,4,16,32,33,64,256), K rounds (default 20)\n");
}

/* Parse a positive integer; returns 0 on error. */
static unsigned long parse_positive(const char *s, const char **end)
{
    char *e = NULL;
    errno = 0;
    unsigned long v = strtoul(s, &e, 10);
    if (e == s || errno != 0 || v == 0 || *s == '-')
        return 0;
    if (end)
        *end = e;
    return v;
}

static int parse_sizes(const char *arg, unsigned long *sizes, int *count)
{
    int n = 0;
    const char *p = arg;
    while (*p) {
        const char *e = NULL;
        unsigned long v = parse_positive(p, &e);
        if (v == 0 || v > (1UL << 20) || n >= MAX_SIZES)
            return -1;
        sizes[n++] = v;
        if (*e == ',')
            e++;
        else if (*e != '\0')
            return -1;
        p = e;
    }
    if (n == 0)
        return -1;
    *count = n;
    return 0;
}

int main(int argc, char **argv)
{
    unsigned long sizes[MAX_SIZES] = {1, 4, 16, 32, 33, 64, 256};
    int nsizes = 7;
    unsigned long iters = 20;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--sizes") == 0 && i + 1 < argc) {
            if (parse_sizes(argv[++i], sizes, &nsizes) != 0) {
                fprintf(stderr, "fresh_buffer: bad --sizes '%s'\n", argv[i]);
                return 2;
            }
        } else if (strcmp(argv[i], "--iters") == 0 && i + 1 < argc) {
            const char *e = NULL;
            iters = parse_positive(argv[++i], &e);
            if (iters == 0 || iters > MAX_ITERS || *e != '\0') {
                fprintf(stderr, "fresh_buffer: bad --iters '%s'\n", argv[i]);
                return 2;
            }
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else {
            usage(stderr);
            return 2;
        }
    }

    unsigned long checksum = 0;
    static double round_s[MAX_ITERS];
    for (int s = 0; s < nsizes; s++) {
        size_t bytes = (size_t)sizes[s] << 20;
        double start = now_seconds();
        for (unsigned long k = 0; k < iters; k++) {
            double t0 = now_seconds();
            volatile unsigned char *buf = malloc(bytes);
            if (buf == NULL) {
                fprintf(stderr, "fresh_buffer: malloc(%lu MiB) failed\n", sizes[s]);
                return 1;
            }
            memset((void *)buf, (int)(k & 0x7f) + 1, bytes);
            /* Read one byte back per round so the fill cannot be elided. */
            checksum += buf[bytes / 2];
            free((void *)buf);
            round_s[k] = now_seconds() - t0;
        }
        double elapsed = now_seconds() - start;
        double cold = round_s[0], warm = cold;
        if (iters > 1) {
            qsort(round_s + 1, iters - 1, sizeof round_s[0], cmp_double);
            warm = round_s[1 + (iters - 1) / 2];
        }
        printf("fresh-buffer size_mib=%lu iters=%lu seconds=%.6f cold_s=%.6f warm_s=%.6f\n",
               sizes[s], iters, elapsed, cold, warm);
        fflush(stdout);
    }
    if (checksum == 0)
        fprintf(stderr, "fresh_buffer: unexpected zero checksum\n");
    return 0;
}
