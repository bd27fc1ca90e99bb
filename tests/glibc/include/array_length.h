/* array_length.h - stand-in for glibc's internal <array_length.h>. */
#ifndef HP_GLIBC_ARRAY_LENGTH_H
#define HP_GLIBC_ARRAY_LENGTH_H

#define array_length(var) (sizeof(var) / sizeof((var)[0]))
#define array_end(var) (&(var)[array_length(var)])

#endif
