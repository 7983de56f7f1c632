/* gen_cli.h — what `gauntlet gen` and `gauntlet explore` share on the
 * command line (gen_cli.c): the contract options, reading the schema and the
 * samples, and building the generator with messages on stderr. */
#ifndef GT_GEN_CLI_H
#define GT_GEN_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli_io.h"
#include "runner/explore/gen.h"

#define GT_GEN_CLI_MAX_SAMPLES 64

typedef struct gt_gen_cli {
    const char *schema_path;
    const char *root;     /* --root POINTER: the definition that is the contract, or NULL */
    const char *id_scope; /* case ids gen.<id_scope>.* (one corpus per definition), or NULL */
    const char *samples[GT_GEN_CLI_MAX_SAMPLES];
    size_t sample_count;
    uint64_t seed;
    unsigned gates;
    bool formats;
    struct gt_schema_registry *registry; /* --ref / --ref-dir (free with gt_gen_cli_free) */
    const char *refs[GT_GEN_CLI_MAX_SAMPLES];
    size_t ref_count;
} gt_gen_cli;

/* The definitions a schema document that constrains nothing at its root
 * offers as contracts: "#/$defs/NAME" and "#/definitions/NAME" pointers
 * (malloc'd, NULL-terminated; free with gt_gen_cli_roots_free), or NULL when
 * the root constrains something (or the file cannot be read: build says so). */
char **gt_gen_cli_roots(const char *schema_path);
void gt_gen_cli_roots_free(char **roots);

/* Release what gt_gen_cli_option allocated. */
void gt_gen_cli_free(gt_gen_cli *cli);

/* When argv[*i] is --schema, --root, --sample, --seed, --gates or --formats, take it
 * (and its value) into `cli` and step *i past it. Returns 1 when taken, 0 for
 * another argument, -1 after a message on stderr naming `who`. */
int gt_gen_cli_option(const char *who, int argc, char **argv, int *i, gt_gen_cli *cli);

/* Read the schema and samples and generate every candidate. Returns the
 * generator, or NULL after a message on stderr (a schema or sample that
 * cannot be read, is not strict JSON, does not compile or is rejected).
 * Synthesis shortfalls are reported on stderr and are not an error. */
gt_gen *gt_gen_cli_build(const char *who, const gt_gen_cli *cli);

/* Parse a command line (argv[0] = the command): the shared options into
 * `cli`, the value of each option of `names` (NULL-terminated) into the same
 * index of `values` (NULL when absent). Returns 0, 1 after printing `usage`
 * on stdout for --help (exit 0), or 2 after a message on stderr (exit 2). */
int gt_gen_cli_parse(const char *who, int argc, char **argv, gt_gen_cli *cli, const char *const *names,
                     const char **values, void (*usage)(FILE *));

/* A positive count argument ("200"); false when it is not one. */
bool gt_gen_cli_count(const char *text, size_t *out);

/* Write the corpus folder `dir` with the bundled rules.json's statements
 * (cmd_gen.c). `keep` as gt_gen_write_corpus. Returns 0, or -1 after a
 * message on stderr. */
int gt_gen_cli_write(const char *who, const gt_gen *gen, const char *dir, const bool *keep);

/* `gauntlet gen --from FROM --out OUT` with the bundled rules.json's
 * statements (gt_gen_from_recording). Returns 0, or -1 after a message on
 * stderr. */
int gt_gen_cli_from_recording(const char *from, const char *out, gt_gen_from_counts *counts);

/* Refuse an output folder gt_gen_cli_write would clobber
 * (gt_gen_check_out_dir). Returns 0, or -1 after a message on stderr. */
int gt_gen_cli_check_out(const char *who, const char *dir, bool no_cases);

#define GT_GEN_CLI_HELP                                                                                                \
    "  --schema FILE          the contract: a JSON Schema (required)\n"                                                \
    "  --root POINTER         the contract is this definition of the schema ('#/$defs/money'): schema.json\n"         \
    "                         of the corpus is the document with its root $ref set to it\n"                           \
    "  --sample FILE          a valid instance to start from (repeatable); without one a minimal and a\n"              \
    "                         full instance are synthesised from the schema\n"                                         \
    "  --seed N               the random stream (default 1): the same seed gives the same bytes\n"                     \
    "  --gates LIST           operator families, comma-separated: syntax, structure, loop (default all;\n"             \
    "                         valid cases are always generated)\n"                                                     \
    "  --formats              assert `format` (case option \"formats\") and add format near-misses\n" GT_CLI_REF_HELP  \
    "                         (copied into DIR/schemas/ of a written corpus, whose loader registers them)\n"

#endif
