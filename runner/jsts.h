/* jsts.h — JSON-Schema-Test-Suite folders: walking them (`gauntlet jsts`) and
 * turning every test into a structure case (`gauntlet run --jsts DIR`).
 *
 * The suite is read at run time from where the user keeps it, never copied.
 * A DIR is <suite>/tests/<draft> (its dialect follows the name), one of its
 * .json files, or its optional/ folder. Not for: validating (schema.h) or
 * running cases (run.h). */
#ifndef GAUNTLET_JSTS_H
#define GAUNTLET_JSTS_H

#include <stdbool.h>
#include <stddef.h>

#include "gauntlet/runner/corpus.h"
#include "gauntlet/value.h"

/* Which part of a dialect folder a file belongs to. */
typedef enum gt_jsts_part {
    GT_JSTS_REQUIRED = 0, /* <draft>/ *.json files */
    GT_JSTS_OPTIONAL,     /* <draft>/optional/ files */
    GT_JSTS_FORMAT        /* <draft>/optional/format/ files: `format` as an assertion */
} gt_jsts_part;

/* One parsed test file, as handed to a gt_jsts_visit. */
typedef struct gt_jsts_file {
    const char *path;     /* as reached from the DIR given */
    const char *text;     /* the file's bytes (for line numbers) */
    size_t len;
    const gt_value *root; /* the array of groups {description, schema, tests} */
    int dialect;          /* gt_schema_dialect */
    const char *remotes;  /* the directory standing in for http://localhost:1234/, or NULL */
    gt_jsts_part part;
} gt_jsts_file;

/* Called once per file; a non-zero return makes the walk's result -1. */
typedef int (*gt_jsts_visit)(void *user, const gt_jsts_file *file);

typedef struct gt_jsts_walk_options {
    const char *remotes; /* --remotes DIR, or NULL: <suite>/remotes when DIR is <suite>/tests/<draft> */
    bool optional;       /* also the files in DIR/optional/ */
    bool format;         /* also the files in DIR/optional/format/ */
} gt_jsts_walk_options;

/* Walk DIR (a dialect folder, a file, or an optional/ folder) in sorted name
 * order and visit every test file. Problems (no dialect in the path, a
 * folder or file that cannot be read or is not a test file) are printed on
 * stderr prefixed with `prog`; the walk goes on with the other files.
 * Returns 0, or -1 after such a problem or a visitor's non-zero return. */
int gt_jsts_walk(const char *prog, const char *dir, const gt_jsts_walk_options *options, gt_jsts_visit visit,
                 void *user);

/* 1-based line of byte `offset` in `file`. */
unsigned gt_jsts_line(const gt_jsts_file *file, size_t offset);

/* Add every test below DIR to `corpus` as a structure case (docs/jsts.md):
 * required files (tier required) and optional/ (tier optional), and with
 * `formats` optional/format/ too (tier optional, `format` asserted). Ids are
 * jsts.<dialect>.<file>.<group>.<test>, slugged, unique and stable.
 * Returns the number of cases added, or -1 after a problem printed on stderr
 * (prefix `prog`). */
long gt_jsts_load_cases(gt_corpus *corpus, const char *prog, const char *dir, bool formats);

#endif
