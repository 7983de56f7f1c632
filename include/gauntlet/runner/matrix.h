/* matrix.h — many implementations over one corpus selection, side by side
 * (`gauntlet matrix`, reports/matrix.c).
 *
 * Each column is one gt_run of the same selection against one target, or a
 * target that could not run at all (its smoke failed). The writers only
 * format: a summary per implementation (version, language, cases played,
 * per-gate and per-tier pass rates, deviations), a case x implementation grid
 * grouped by gate and category, and per implementation its deviations in
 * order of concern: accepted what the reference refuses (or acted on another
 * object), refused what the reference accepts (fail-closed but different),
 * then harness limits (error, skip). docs/matrix-format.md. */
#ifndef GAUNTLET_MATRIX_H
#define GAUNTLET_MATRIX_H

#include <stddef.h>
#include <stdio.h>

#include "gauntlet/runner/result.h"

/* One implementation. Strings borrowed; any may be NULL. */
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
} gt_matrix_column;

typedef struct gt_matrix {
    const gt_corpus *corpus; /* the selection every column ran, in order */
    const gt_matrix_column *columns;
    size_t column_count;
    const char *command;       /* the command line that made it */
    const char *corpus_sha256; /* of the whole loaded corpus */
    const char *generated_at;  /* ISO 8601 UTC */
} gt_matrix;

/* How one cell deviates from the reference, in order of concern. */
typedef enum gt_matrix_kind {
    GT_MATRIX_AGREES = 0,  /* pass */
    GT_MATRIX_UNSAFE,      /* fail with an accept where the reference refuses, of another object, or of an
                              earlier answer than the one the reference accepts (fewer API calls) */
    GT_MATRIX_FAIL_CLOSED, /* fail with a reject where the reference accepts, or the same verdict with other
                              figures (more calls, a protocol violation): fail-closed but different */
    GT_MATRIX_LIMIT,       /* error or skip: no verdict to judge (harness or client limit) */
    GT_MATRIX_NOT_RUN      /* the implementation could not run at all */
} gt_matrix_kind;

/* Result of case `index` in `column`, or NULL when the column did not run. */
const gt_case_result *gt_matrix_cell(const gt_matrix_column *column, size_t index);
gt_matrix_kind gt_matrix_classify(const gt_case_result *result);

/* Writers; 0 or -1 on a write error. */
int gt_matrix_json(FILE *out, const gt_matrix *matrix);     /* "format": "gauntlet-matrix/1" */
int gt_matrix_markdown(FILE *out, const gt_matrix *matrix); /* docs/matrix.md */
int gt_matrix_html(FILE *out, const gt_matrix *matrix);     /* one page, no script, CSP */

#endif
