/* test_dispatch.c - white box, hugepolicy linked statically: malloc and free
 * are a check and one jump to the backend's own functions, no table load
 * (integration/hp_dispatch.h).
 * usage: test_dispatch BACKEND direct|impossible
 *   direct      malloc and free jump to the backend's own functions (the
 *               published ops'), not the bootstrap ops' any more
 *   impossible  malloc of more than PTRDIFF_MAX bytes is NULL with ENOMEM
 *               (run per page mode: the wrappers in front see it too) */
#include "../integration/hp_dispatch.h"
#include "../integration/hp_init.h"
#include "check.h"

#include <errno.h>
#include <hugepolicy.h>
#include <string.h>

static void *volatile sink;

static void start(const char *want)
{
	sink = malloc(10);              /* start-up has run (constructor), or runs now */
	free(sink);
	CHECK_MSG(strcmp(hugepolicy_backend(), want) == 0, "backend %s, want %s", hugepolicy_backend(), want);
	CHECK(hp_ops() != &hp_boot_ops);
}

static void direct(void)
{
	const struct hp_alloc_ops *o = hp_ops();
	CHECK_MSG(hp_hot(hp_free_fn) == o->free, "free jumps to %p, not the backend's %p",
		  (void *)hp_hot(hp_free_fn), (void *)o->free);
	CHECK_MSG(hp_hot(hp_malloc_fn) == o->malloc, "malloc jumps to %p, not the backend's %p",
		  (void *)hp_hot(hp_malloc_fn), (void *)o->malloc);
}

static volatile size_t vol;

static void impossible(void)
{
	static const size_t sizes[] = { (size_t)PTRDIFF_MAX + 1, (size_t)PTRDIFF_MAX + 4096,
					SIZE_MAX - 4095, SIZE_MAX };
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		vol = sizes[i];
		errno = 0;
		void *p = malloc(vol);
		CHECK_MSG(p == NULL && errno == ENOMEM, "malloc(%#zx) = %p, errno %d (%s); want NULL, ENOMEM",
			  (size_t)vol, p, errno, strerror(errno));
	}
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: test_dispatch BACKEND direct|impossible\n");
		return 2;
	}
	start(argv[1]);
	if (strcmp(argv[2], "direct") == 0)
		direct();
	else if (strcmp(argv[2], "impossible") == 0)
		impossible();
	else
		return fprintf(stderr, "test_dispatch: unknown case %s\n", argv[2]), 2;
	return check_result("test_dispatch");
}
