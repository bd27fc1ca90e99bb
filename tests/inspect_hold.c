/*
 * inspect_hold.c - a process for `hugepolicy inspect` to look at: maps
 * MIB (argument, default 64) MiB 2 MiB-aligned, MADV_HUGEPAGE, fills it,
 * prints "PID START END\n" (START, END in hex) on stdout and waits until
 * stdin ends.  "inspect_hold MIB blank" first writes zeros over its start-up
 * environment, as a program setting its process title does (redis).
 * Exit 1 if the mapping fails.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define HUGE (2u << 20)

extern char **environ;

int main(int argc, char **argv)
{
	if (argc > 2 && strcmp(argv[2], "blank") == 0)
		for (char **e = environ; *e; e++)
			memset(*e, 0, strlen(*e));
	size_t len = (size_t)(argc > 1 ? atoi(argv[1]) : 64) << 20;
	char *raw = mmap(NULL, len + HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED || len == 0)
		return 1;
	char *p = (char *)(((uintptr_t)raw + HUGE - 1) & ~(uintptr_t)(HUGE - 1));
	if (p > raw)
		munmap(raw, (size_t)(p - raw));
	if (p + len < raw + len + HUGE)
		munmap(p + len, (size_t)(raw + len + HUGE - (p + len)));
	madvise(p, len, MADV_HUGEPAGE);
	memset(p, 1, len);
	printf("%d %lx %lx\n", (int)getpid(), (unsigned long)(uintptr_t)p, (unsigned long)(uintptr_t)(p + len));
	fflush(stdout);
	char c;
	while (read(0, &c, 1) > 0)
		;
	return 0;
}
