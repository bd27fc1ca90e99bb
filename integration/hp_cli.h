/* hp_cli.h - the `hugepolicy` command's sub-commands (cli_*.c). */
#ifndef HP_CLI_H
#define HP_CLI_H

#include <stddef.h>

extern const char hp_usage_probe[];
extern const char hp_usage_run[];
extern const char hp_usage_version[];
extern const char hp_usage_inspect[];
/* argv after the sub-command's name; the exit status. */
int hp_cli_probe(int argc, char **argv);
int hp_cli_run(int argc, char **argv);
int hp_cli_version(int argc, char **argv);
int hp_cli_inspect(int argc, char **argv);
/* cli_library.c: the absolute path of the libhugepolicy `run` preloads into
 * out (HUGEPOLICY_LIBRARY, else the versioned soname beside the CLI, in
 * ../lib*, in the install libdir), checked to be an ELF shared object that
 * exports hugepolicy_version.  0, or 1 after one line on stderr. */
int hp_cli_library(char *out, size_t cap);

#endif
