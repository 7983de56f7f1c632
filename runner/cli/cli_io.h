/* cli_io.h — small I/O helpers shared by the CLI commands: argument parsing,
 * reading a model output for a gate, report files and load problems. The
 * helpers every layer uses (gt_read_file, base64, atomic writes) are in
 * gauntlet/util.h, which this header includes. */
#ifndef GT_CLI_IO_H
#define GT_CLI_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "gauntlet/util.h"

struct gt_arena;
struct gt_parse_error;
struct gt_parse_options;
struct gt_value;
/* Read a model output for the syntax gate (at most `max_bytes` + 1 bytes) and
 * parse it; an input over the limit is rejected as too_large without being read
 * in full. Returns the value, or NULL with `error` filled; *text (malloc'd, the
 * caller frees) is NULL when the input could not be read (message in `err`). */
struct gt_value *gt_read_and_parse(struct gt_arena *arena, const char *path, const struct gt_parse_options *options,
                                   char **text, struct gt_parse_error *error, char *err, size_t err_len);

/* Parse a non-negative size argument ("1048576", "16M", "64k"). Returns 0, or
 * -1 when it is not a number. */
int gt_parse_size(const char *text, size_t *out);

/* The NUL policy flags of every command that parses JSON: "--reject-nul"
 * sets *reject_nul (\u0000 is then rejected as nul_character); "--allow-nul",
 * the default since RFC 8259 allows it, is accepted as a no-op so that old
 * command lines keep working. True when `arg` was one of them. */
bool gt_cli_nul_flag(const char *arg, bool *reject_nul);

struct gt_schema_registry;
/* --ref FILE and --ref-dir DIR (validate, jsts): when argv[*i] is one of them,
 * register FILE (or every *.json below DIR) into *registry, created on first
 * use (free it with gt_schema_registry_free), and step *i past the value.
 * Returns 1 when consumed, 0 when argv[*i] is another argument, -1 after a
 * message on stderr naming `who` ("gauntlet validate"). */
int gt_cli_ref_flag(const char *who, int argc, char **argv, int *i, struct gt_schema_registry **registry);

#define GT_CLI_REF_HELP                                                                                          \
    "  --ref FILE             register a schema document under its $id (or its file URI when it has\n"       \
    "                         none) so that $ref can name it; repeatable. Nothing is fetched.\n"            \
    "  --ref-dir DIR          register every *.json below DIR the same way\n"

/* Help line for the NUL flags above. */
#define GT_CLI_NUL_HELP "  --reject-nul           reject \\u0000 in strings (nul_character) for C-string consumers\n"



#include "gauntlet/runner/report.h"

struct gt_corpus;
struct gt_load_problem;
/* Print one load problem on stderr as `<file>:<line>: <field>: <message>`
 * (docs/corpus-format.md), escaped for the terminal. */
void gt_print_load_problem(const struct gt_load_problem *problem);
/* The same for every load problem of `corpus`. */
void gt_print_load_problems(const struct gt_corpus *corpus);

/* Load `paths` (none: the bundled corpus) into a new corpus, with their rule
 * lists when `rules`. On failure prints "gauntlet WHO: ..." and returns
 * NULL; load problems stay in the corpus for the caller to print. */
struct gt_corpus *gt_cli_load_corpus(const char *who, const char *const *paths, size_t count, bool rules);

/* One --report FORMAT:FILE. */
typedef struct gt_report_spec {
    const char *format;
    const char *path; /* "-" = standard output */
    gt_report_writer writer;
} gt_report_spec;

/* Split a --report value ("json:a.json,junit:b.xml"; modified in place, the
 * specs point into it) and append to specs[*count], at most `max`. Returns 0,
 * or -1 with a message in `err`. */
int gt_report_specs_parse(char *value, gt_report_spec *specs, size_t *count, size_t max, char *err, size_t err_len);

struct gt_run;
struct gt_report_info;
/* Create the folders above the file `path` that are missing (`mkdir -p` of
 * its parent; `out/report.json` creates `out/`). Returns 0, or -1 with a
 * message in `err` naming the folder that cannot be made and why. */
int gt_make_parent_dirs(const char *path, char *err, size_t err_len);

/* Write one report with `writer` to `path` ("-" = standard output), through
 * a temporary file renamed into place so a reader never sees half a report;
 * missing parent folders are created first. Returns 0, or -1 after a message on stderr naming `who` ("gauntlet run"),
 * the format and the path. */
int gt_write_report_file(const char *who, const char *format,
                         int (*writer)(FILE *, const struct gt_run *, const struct gt_report_info *),
                         const char *path, const struct gt_run *run, const struct gt_report_info *info);

/* Between these two, gt_write_report_file writes each report to a
 * temporary only (fsynced); the commit renames them all into place, or, if
 * one could not be written, removes every temporary so that the old reports
 * stay (a run's reports are all new or all old). Returns 0, or -1 after a
 * message naming `who`. */
void gt_report_set_begin(void);
int gt_report_set_commit(const char *who);
#endif
