/* hp_cli.h - the `hugepolicy` command's sub-commands (cli_*.c). */
#ifndef HP_CLI_H
#define HP_CLI_H

#include <stddef.h>

struct hp_buf;

#ifndef HP_MULTIARCH            /* Debian's multiarch triplet, for ../lib/<it> */
#if defined(__x86_64__)
#define HP_MULTIARCH "x86_64-linux-gnu"
#elif defined(__aarch64__)
#define HP_MULTIARCH "aarch64-linux-gnu"
#else
#define HP_MULTIARCH ""
#endif
#endif

extern const char hp_usage_probe[];
extern const char hp_usage_run[];
extern const char hp_usage_version[];
extern const char hp_usage_inspect[];
extern const char hp_usage_tune[];
/* argv after the sub-command's name; the exit status. */
int hp_cli_probe(int argc, char **argv);
int hp_cli_run(int argc, char **argv);
int hp_cli_version(int argc, char **argv);
int hp_cli_inspect(int argc, char **argv);
int hp_cli_tune(int argc, char **argv);
/* cli_library.c: the absolute path of the libhugepolicy `run` preloads into
 * out (HUGEPOLICY_LIBRARY, else the versioned soname beside the CLI, in
 * ../lib*, in the install libdir), checked to be an ELF shared object that
 * exports hugepolicy_version.  0, or 1 after one line on stderr. */
int hp_cli_library(const char *cmd, char *out, size_t cap);   /* cmd: "run", "tune" for messages */

/* cli_run.c: argv[*i] in the option scan of run and tune: HP_OPTS_END
 * where the options end (at "--", *i moved past it, or at the first word
 * that is not an option, "-" included: CMD), HP_OPTS_HELP after usage is
 * printed for -h/--help, 0 for an option the caller takes */
enum { HP_OPTS_END = 1, HP_OPTS_HELP = 2 };
int hp_cli_option_word(char **argv, int *i, const char *usage);
/* cli_run.c: s for a POSIX shell (as is, or in single quotes) into b */
void hp_cli_quote(struct hp_buf *b, const char *s);
/* cli_version.c: "<version> (<path>)" of the libmimalloc.so.2 the mimalloc
 * backend would dlopen (asked in a forked child), or "not found (<why>)" */
void hp_cli_mimalloc_line(char *buf, size_t cap);

#endif
