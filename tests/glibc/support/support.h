/* support.h - stand-in for glibc's <support/support.h>: checked
 * allocation wrappers, shared memory, async-signal-safe messages.  Every
 * x* function prints one line and exits 1 when the call fails. */
#ifndef HP_GLIBC_SUPPORT_SUPPORT_H
#define HP_GLIBC_SUPPORT_SUPPORT_H

#include <stddef.h>

/* write(2) MSG to stdout: usable in signal handlers. */
void write_message(const char *msg);

void *xmalloc(size_t n) __attribute__((malloc));
void *xcalloc(size_t n, size_t size) __attribute__((malloc));
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s) __attribute__((malloc));
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2), malloc));

/* Zeroed memory shared with forked children (MAP_SHARED). */
void *support_shared_allocate(size_t size);
void support_shared_free(void *p);

#endif
