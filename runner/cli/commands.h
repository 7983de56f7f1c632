/* commands.h — the gauntlet CLI's subcommands, one file each (runner/cmd_*.c).
 *
 * Every command gets argv starting at its own name (argv[0] = "parse") and
 * returns the process exit code. Exit codes follow one convention across
 * commands: 0 success / accepted / all passed, 1 rejected / invalid / a
 * failure, 2 usage, I/O or input-file error. Only runner/ prints. */
#ifndef GT_COMMANDS_H
#define GT_COMMANDS_H

#include "gauntlet/runner/mock.h"

int gt_cmd_parse(int argc, char **argv);
int gt_cmd_run(int argc, char **argv);
int gt_cmd_validate(int argc, char **argv);
int gt_cmd_jsts(int argc, char **argv);
int gt_cmd_bowtie(int argc, char **argv);    /* Bowtie harness (bowtie.report) */
int gt_cmd_loop(int argc, char **argv);      /* issue: loop and stream */
int gt_cmd_strict(int argc, char **argv);    /* wire layer */
int gt_cmd_transform(int argc, char **argv); /* wire layer */
int gt_cmd_lint(int argc, char **argv);      /* wire layer */
int gt_cmd_repair(int argc, char **argv);    /* repair loop */
int gt_cmd_serve(int argc, char **argv);     /* mock model server */
int gt_cmd_record(int argc, char **argv);    /* recording proxy */
/* Run the recording proxy `options` describes until SIGINT/SIGTERM, as
 * `gauntlet record` and `gauntlet serve --record-missing` do (messages start
 * with `who`). Returns the exit code: 0 after a clean stop, 2 on start-up. */
int gt_record_serve(const gt_record_options *options, const char *who);
int gt_cmd_client(int argc, char **argv);    /* libcurl reference client */
int gt_cmd_merge(int argc, char **argv);     /* join shard reports */
int gt_cmd_show(int argc, char **argv);      /* one case, in detail */
int gt_cmd_matrix(int argc, char **argv);    /* many implementations side by side */
int gt_cmd_profiles(int argc, char **argv);  /* the profiles and their cases */
int gt_cmd_rules(int argc, char **argv);     /* rule coverage of the corpus */
int gt_cmd_gen(int argc, char **argv);       /* the adversarial corpus of one contract */
int gt_cmd_explore(int argc, char **argv);   /* generate, run against a target, shrink a disagreement */
int gt_cmd_help(int argc, char **argv);       /* help texts, man pages (cmd_help.c) */
int gt_cmd_version(int argc, char **argv);
int gt_cmd_completion(int argc, char **argv); /* bash/zsh completion from the command table */

#include <stdbool.h>
#include <stddef.h>
/* The bundled corpus directory for run and show (./corpus, else next to the
 * binary) into `out`; false when there is none. cmd_run.c. */
bool gt_cmd_default_corpus(char *out, size_t out_len);
/* "gauntlet ARGS..." shell-quoted (argv starts at the command's name): the
 * command that reproduces a run. Malloc'd, or NULL when out of memory.
 * cmd_run.c. */
char *gt_cmd_command_line(int argc, char **argv);

#endif
