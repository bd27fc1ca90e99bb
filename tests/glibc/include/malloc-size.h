/* malloc-size.h - stand-in for glibc's internal <malloc-size.h>, reduced
 * to the one public promise tst-mallocalign1 checks: every malloc block is
 * aligned for any object with a fundamental alignment (C11 7.22.3),
 * _Alignof(max_align_t), which is glibc's MALLOC_ALIGNMENT (16 on x86-64). */
#ifndef HP_GLIBC_MALLOC_SIZE_H
#define HP_GLIBC_MALLOC_SIZE_H

#include <stddef.h>

#define MALLOC_ALIGNMENT _Alignof(max_align_t)
#define MALLOC_ALIGN_MASK (MALLOC_ALIGNMENT - 1)

#endif
