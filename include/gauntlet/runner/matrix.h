/* matrix.h — many implementations over one corpus selection, side by side
 * (`gauntlet matrix`, reports/matrix.c).
 *
 * Each column is one gt_run of the same selection against one target, or a
 * target that could not run at all (its smoke failed). The writers only
 * format: a summary per implementation (version, language, the profiles it
 * claims and why, cases played, per-gate and per-tier pass rates, cells per
 * verdict class), a case x implementation grid grouped by gate and category,
 * and per implementation its cells in order of concern: unsafe, refused
 * valid, figures, other reason, error, skip (not applicable cells are counted,
 * not listed). A cell is the result's verdict class (gt_case_result_class,
 * docs/profiles.md), never a heuristic of its own. docs/matrix-format.md. */
#ifndef GAUNTLET_MATRIX_H
#define GAUNTLET_MATRIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "gauntlet/runner/result.h"

/* One implementation. Strings borrowed; any may be NULL. */
/* The labels of a column's red cells (matrix/notes/NAME.labels,
 * docs/matrix-labels.md, reports/matrix_labels.c): each a kind, an id, a
 * one-line title and the case ids it covers. */
typedef enum gt_matrix_label_kind {
    GT_MATRIX_LABEL_DEFECT,     /* a true defect of the library, with its evidence */
    GT_MATRIX_LABEL_DIFFERENCE, /* a figures/profile difference: not a defect */
    GT_MATRIX_LABEL_LIMIT,      /* a wrapper, harness or documented library limit: no verdict */
    GT_MATRIX_LABEL_MOCK,       /* the mock's doing, not the library's */
    GT_MATRIX_LABEL_KIND_COUNT
} gt_matrix_label_kind;

typedef struct gt_matrix_label {
    char *id, *title;
    gt_matrix_label_kind kind;
    int line; /* of its label line */
} gt_matrix_label;

typedef struct gt_matrix_labelled {
    char *id;     /* a case id */
    size_t label; /* index into items */
} gt_matrix_labelled;

typedef struct gt_matrix_labels {
    gt_matrix_label *items;
    size_t count;
    gt_matrix_labelled *cases;
    size_t case_count;
} gt_matrix_labels;

/* Parse a labels file's text; NULL with `err` naming `path` and the line. */
gt_matrix_labels *gt_matrix_labels_parse(const char *text, const char *path, char *err, size_t err_len);
void gt_matrix_labels_free(gt_matrix_labels *labels);
/* The label of `case_id`, or NULL. */
const gt_matrix_label *gt_matrix_labels_find(const gt_matrix_labels *labels, const char *case_id);
/* "defect", "difference", "limit", "mock" / "true defect", "figures/profile difference", ... */
const char *gt_matrix_label_kind_name(gt_matrix_label_kind kind);
const char *gt_matrix_label_kind_title(gt_matrix_label_kind kind);

typedef struct gt_matrix_column {
    const char *name;        /* --target NAME */
    const char *spec;        /* --target ...=SPEC */
    const gt_run *run;       /* NULL when the target could not run */
    const char *unavailable; /* why it could not run (the smoke's explanation) */
    const char *about;       /* the implementation's own name ("ai generateObject + @ai-sdk/anthropic") */
    const char *version;     /* its version */
    const char *language;    /* "JavaScript", "C", ... */
    const char *packages;    /* "ai 7.0.173, @ai-sdk/anthropic 4.0.105, zod 4.6.7" */
    const char *notes;       /* hand-written explanation (Markdown) for the implementation's section */
    const char *labels_text; /* its labels file as read (kept in the JSON for --merge), or NULL */
    const gt_matrix_labels *labels; /* labels_text parsed, or NULL (no labels: red cells shown unlabelled) */
    const char *evidence;    /* why it claims its profiles (the library's docs), one line */
    const char *repos;       /* --repos: the library's own repositories ("owner/repo,owner/repo"), or NULL */
    const char *previous_version;         /* its version in --previous, or NULL (no --previous, no such column) */
    const signed char *previous_outcomes; /* per case: its gt_outcome in --previous, -1 where the case was not
                                           * there; NULL without --previous */
} gt_matrix_column;

/* The "Reported in the field" section of a column: one entry per case source
 * naming an issue thread of one of the column's repos. */
typedef enum gt_matrix_field_status {
    GT_MATRIX_FIELD_STILL,           /* the cell failed: the pinned version still has it */
    GT_MATRIX_FIELD_NOT_REPRODUCED,  /* the cell passed */
    GT_MATRIX_FIELD_NOT_APPLICABLE,  /* outside the claimed profiles */
    GT_MATRIX_FIELD_NOT_EXPRESSIBLE, /* skipped: the case cannot be expressed for this client */
    GT_MATRIX_FIELD_NO_VERDICT,      /* error */
    GT_MATRIX_FIELD_NOT_RUN,         /* the column could not run */
} gt_matrix_field_status;

/* "still_has_it", "not_reproduced", "not_applicable", "not_expressible", "no_verdict", "not_run". */
const char *gt_matrix_field_status_name(gt_matrix_field_status status);
/* Whether a source line ("owner/repo#N URL") names a thread of one of `repos`
 * (comma-separated "owner/repo"); the thread ("owner/repo#N") into `thread`. */
bool gt_matrix_source_in_repos(const char *source, const char *repos, char *thread, size_t thread_len);

typedef struct gt_matrix {
    const gt_corpus *corpus; /* the selection every column ran, in order */
    const gt_matrix_column *columns;
    size_t column_count;
    const char *command;       /* the command line that made it */
    const char *corpus_sha256; /* of the whole loaded corpus */
    const char *generated_at;  /* ISO 8601 UTC */
} gt_matrix;

/* A cell: the result's verdict class (the first GT_CLASS_COUNT values are
 * gt_class's, in its order), or NOT_RUN when the implementation could not run
 * at all. */
typedef enum gt_matrix_kind {
    GT_MATRIX_AGREES = GT_CLASS_PASS,
    GT_MATRIX_UNSAFE = GT_CLASS_UNSAFE,               /* accepted what must be refused, or another object */
    GT_MATRIX_REFUSED_VALID = GT_CLASS_REFUSED_VALID, /* refused what is valid */
    GT_MATRIX_FIGURES = GT_CLASS_FIGURES,             /* verdict right; attempts, accounting or subtype differ */
    GT_MATRIX_OTHER_REASON = GT_CLASS_OTHER_REASON,   /* verdict and gate right, other reason code or wording */
    GT_MATRIX_ERROR = GT_CLASS_ERROR,                 /* no verdict: crash, timeout, no envelope, wrapper limit */
    GT_MATRIX_SKIP = GT_CLASS_SKIP,                   /* the case cannot be expressed for this client */
    GT_MATRIX_NOT_APPLICABLE = GT_CLASS_NOT_APPLICABLE, /* outside the profiles it claims: never sent */
    GT_MATRIX_NOT_RUN = GT_CLASS_COUNT,               /* the implementation could not run at all */
    GT_MATRIX_KIND_COUNT
} gt_matrix_kind;

/* Result of case `index` in `column`, or NULL when the column did not run. */
const gt_case_result *gt_matrix_cell(const gt_matrix_column *column, size_t index);
/* The cell's kind: gt_case_result_class(result), NOT_RUN for NULL. */
gt_matrix_kind gt_matrix_classify(const gt_case_result *result);
/* "agrees", "unsafe", "refused_valid", "figures", "other_reason", "error", "skip", "not_applicable", "not_run". */
const char *gt_matrix_kind_name(gt_matrix_kind kind);

/* The JSON's "format", and its "merge_version": what a matrix JSON must
 * carry for `gauntlet matrix --merge` to rebuild its columns exactly (bumped
 * when a member the writers need is added). */
#define GT_MATRIX_FORMAT "gauntlet-matrix/1"
#define GT_MATRIX_MERGE_VERSION 1

/* Writers; 0 or -1 on a write error. */
int gt_matrix_json(FILE *out, const gt_matrix *matrix);     /* "format": "gauntlet-matrix/1" */
int gt_matrix_markdown(FILE *out, const gt_matrix *matrix); /* docs/matrix.md */
int gt_matrix_html(FILE *out, const gt_matrix *matrix);     /* one page, no script, CSP */

/* Matrix JSON files read back and joined column by column (`gauntlet matrix
 * --merge`, reports/matrix_merge.c): the writers format the result exactly as
 * one run over the same columns. */
typedef struct gt_matrix_set gt_matrix_set;

/* An empty set; NULL when out of memory. Free with gt_matrix_set_free. */
gt_matrix_set *gt_matrix_set_new(void);
void gt_matrix_set_free(gt_matrix_set *set);
/* Add the columns of the matrix JSON at `path`, after those added before.
 * 0, or -1 with `err` naming the file (and the column, or the member): not
 * a matrix JSON, another format or merge version, another gauntlet version,
 * another corpus digest or case list, a column already added. */
int gt_matrix_set_add(gt_matrix_set *set, const char *path, char *err, size_t err_len);
/* The joined columns (borrowed, editable: --previous applies to them). */
gt_matrix_column *gt_matrix_set_columns(gt_matrix_set *set, size_t *count);
/* The joined matrix (borrowed from the set, valid until it is freed or
 * added to), stamped with `command` and `generated_at`; NULL when empty. */
const gt_matrix *gt_matrix_set_matrix(gt_matrix_set *set, const char *command, const char *generated_at);

/* A previous matrix JSON (`--previous OLD.json`, any gauntlet-matrix/1 with
 * implementations and cases): what the field section compares with. */
typedef struct gt_matrix_previous gt_matrix_previous;
/* NULL with `err` naming the file when it cannot be read or is not a matrix JSON. */
gt_matrix_previous *gt_matrix_previous_load(const char *path, char *err, size_t err_len);
/* Set previous_version and previous_outcomes (owned by `previous`) of every
 * column the previous matrix has by name, matching cases by id. */
void gt_matrix_previous_apply(gt_matrix_previous *previous, gt_matrix_column *columns, size_t count,
                              const gt_corpus *corpus);
void gt_matrix_previous_free(gt_matrix_previous *previous);

#endif
