/* cli_io.h — small I/O helpers shared by the CLI commands. */
#ifndef GT_CLI_IO_H
#define GT_CLI_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Read a whole file ("-" or NULL = standard input) into a malloc'd buffer with
 * a NUL after the last byte (not counted in *len). Returns NULL and writes a
 * message naming the path into `err` on failure. Caller frees. */
char *gt_read_file(const char *path, size_t *len, char *err, size_t err_len);

/* Largest file gt_read_file reads (schemas, scripts, reports); it stops
 * reading there, so a pipe or a device cannot make it read forever. */
#define GT_CLI_MAX_FILE_BYTES (256u * 1024u * 1024u)

/* gt_read_file that reads at most `max` bytes. With `over` NULL a longer input
 * is an error ("<path>: larger than N bytes"); otherwise the first max + 1
 * bytes are returned with *over set, for the caller to reject as too large.
 * Either way reading stops after max + 1 bytes. */
char *gt_read_file_max(const char *path, size_t max, size_t *len, bool *over, char *err, size_t err_len);

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



/* Standard base64 (RFC 4648, with padding) of `len` bytes, malloc'd and
 * NUL-terminated. NULL when out of memory. */
char *gt_base64_encode(const unsigned char *data, size_t len);

/* Strict base64 (RFC 4648 §4: padding to a multiple of four, no whitespace,
 * zero padding bits) into `out` (room for len / 4 * 3 bytes). Returns the
 * decoded length, or -1 with the offending character's index in *bad_at. */
long gt_base64_decode_into(const char *text, size_t len, unsigned char *out, size_t *bad_at);

/* The same into a malloc'd buffer. NULL on invalid input or out of memory. */
unsigned char *gt_base64_decode(const char *text, size_t len, size_t *out_len);

/* Write `len` bytes as a JSON string literal (quoted, escaped) to `out`.
 * Invalid UTF-8 bytes are written as \ufffd. */
void gt_json_write_string(FILE *out, const char *text, size_t len);

#include "gauntlet/report.h"

struct gt_corpus;
struct gt_load_problem;
/* Print one load problem on stderr as `<file>:<line>: <field>: <message>`
 * (docs/corpus-format.md), escaped for the terminal. */
void gt_print_load_problem(const struct gt_load_problem *problem);
/* The same for every load problem of `corpus`. */
void gt_print_load_problems(const struct gt_corpus *corpus);

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
/* Write one report with `writer` to `path` ("-" = standard output), through
 * a temporary file renamed into place so a reader never sees half a report.
 * Returns 0, or -1 after a message on stderr naming `who` ("gauntlet run"),
 * the format and the path. */
int gt_write_report_file(const char *who, const char *format,
                         int (*writer)(FILE *, const struct gt_run *, const struct gt_report_info *),
                         const char *path, const struct gt_run *run, const struct gt_report_info *info);
#endif
