/* cli.h — the gauntlet command table and what is generated from it.
 *
 * One table (cli.c) names every subcommand with its entry point and one-line
 * summary. Each command's --help text (in its cmd_*.c) is the only source of
 * its documentation: `gauntlet help CMD` prints it, `gauntlet help --man CMD`
 * turns it into a man page, `gauntlet completion bash|zsh` takes the option
 * names from it. Not for: the commands themselves (commands.h). */
#ifndef GT_CLI_H
#define GT_CLI_H

#include <stddef.h>
#include <stdio.h>

typedef struct gt_cli_command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} gt_cli_command;

/* The command table, in the order `gauntlet --help` lists it. */
const gt_cli_command *gt_cli_commands(size_t *count);
/* The command called `name`, or NULL. */
const gt_cli_command *gt_cli_find(const char *name);
/* `gauntlet --help`: synopsis and the command list. */
void gt_cli_usage(FILE *out);
/* The whole CLI: dispatch argv[1] to its command. Returns the exit code. */
int gt_cli_main(int argc, char **argv);

/* The word of `candidates` nearest to `word` by edit distance (insert,
 * delete, replace, or swap two neighbours: one edit each), or NULL when none
 * is close: at most 1 edit for words of up to 4 characters, 2 up to 8, 3
 * beyond; the first of equally near ones wins. Used for "did you mean". */
const char *gt_cli_nearest(const char *word, const char *const *candidates, size_t count);
/* The option of `command`'s help text nearest to the unknown option `arg`
 * (an `=value` part ignored), copied into `out`; NULL when none is close or
 * `arg` is not a long option. */
const char *gt_cli_suggest_option(const gt_cli_command *command, const char *arg, char *out, size_t out_len);
/* Print "gauntlet CMD: did you mean '--x'?" to stderr when the unknown
 * option `arg` of the command called `name` is near one of its options. */
void gt_cli_hint_option(const char *name, const char *arg);

/* The --help text of `command` (or of gauntlet itself when NULL), as the
 * command prints it, captured into a malloc'd string; NULL when out of
 * memory. */
char *gt_cli_help_text(const gt_cli_command *command);
/* A man page (roff, man(7) macros) for `command` (gauntlet(1) when NULL),
 * generated from its help text. Returns 0, or -1 when out of memory. */
int gt_cli_man_page(FILE *out, const gt_cli_command *command);
/* A completion script for `shell` ("bash" or "zsh") generated from the
 * command table and each command's help text. Returns 0, -1 for an unknown
 * shell or out of memory. */
int gt_cli_completion(FILE *out, const char *shell);

#endif
