/* report_doc.h — the insides of gt_report_doc, shared by read.c and merge.c.
 * Private to reports/. */
#ifndef GT_REPORT_DOC_H
#define GT_REPORT_DOC_H

#include "gauntlet/arena.h"
#include "gauntlet/runner/report.h"

struct gt_report_doc {
    gt_run run;       /* results malloc'd; run.corpus is NULL */
    gt_case *cases;   /* one per result (unused by a merged document, whose results point into its shards) */
    size_t *indices;  /* each result's position in the selected corpus (the report's "index") */
    gt_arena *arena;  /* strings of cases, problems and info */
    gt_report_info info;
    gt_load_problem *problems; /* malloc'd copy for a merged document, else NULL */
    char *command;             /* malloc'd command of a merged document, else NULL */
};

/* An empty document with room for `count` results. NULL when out of memory. */
gt_report_doc *gt_report_doc_new(size_t count);

#endif
