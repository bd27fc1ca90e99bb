/* hp_cli.h - the `hugepolicy` command's sub-commands (cli_*.c). */
#ifndef HP_CLI_H
#define HP_CLI_H

extern const char hp_usage_probe[];
extern const char hp_usage_run[];
/* argv after the sub-command's name; the exit status. */
int hp_cli_probe(int argc, char **argv);
int hp_cli_run(int argc, char **argv);

#endif
