/* report.h — report writers, the report reader, shard merging and the
 * baseline diff. Every writer formats one gt_run (plus a gt_report_info
 * saying how the run was made); none re-runs anything.
 *
 * Formats: console (human; colour only when `tty`), json (docs/report-json.md,
 * "gauntlet-report/1"), junit (JUnit XML), tap (TAP version 13), html (one
 * self-contained page, everything escaped), md (Markdown for a pull-request
 * comment). Writers return 0, or -1 on an I/O error.
 *
 * A JSON report can be read back (gt_report_load) to compare a run with a
 * baseline (gt_baseline_compare) or to join shard reports into one run
 * (gt_report_merge); the joined run formats exactly like an unsharded one.
 * Not for: running cases (run.h) or printing progress (runner/). */
#ifndef GAUNTLET_REPORT_H
#define GAUNTLET_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "gauntlet/runner/result.h"

#define GT_REPORT_JSON_FORMAT "gauntlet-report/1"
/* Markdown lists at most this many cases that did not pass (a pull-request
 * comment is limited to 65,536 characters); the rest are counted. */
#define GT_REPORT_MD_MAX_CASES 50
/* HTML shows at most this many bytes of one raw input (the rest is counted). */
#define GT_REPORT_HTML_MAX_INPUT 65536
/* The HTML filter's gate and reason menus offer at most this many values
 * (the text filter still finds the rest). */
#define GT_REPORT_HTML_MAX_OPTIONS 200
/* A JUnit failure body shows at most this many bytes of the raw input: a CI
 * page shows why at a glance, the HTML report has the rest. */
#define GT_REPORT_JUNIT_MAX_INPUT 2048
/* The Markdown and HTML certification blocks list at most this many skip
 * reasons (a certificate is read at a glance; the rest are counted, and the
 * skipped cases further down the report have them all). */
#define GT_REPORT_CERT_SKIP_REASONS 10

/* ---- baseline diff ------------------------------------------------------ */

typedef enum gt_baseline_kind {
    GT_BASELINE_REGRESSED = 0, /* passed in the baseline, fails or errors now: gates CI */
    GT_BASELINE_FIXED,         /* did not pass in the baseline, passes now */
    GT_BASELINE_NEW,           /* not in the baseline */
    GT_BASELINE_NOW_SKIPPED,   /* passed in the baseline, skipped now (listed, does not gate) */
    GT_BASELINE_KIND_COUNT
} gt_baseline_kind;

const char *gt_baseline_kind_name(gt_baseline_kind kind); /* "regressed", "fixed", "new", "now_skipped" */

typedef struct gt_baseline_entry {
    char *id;
    gt_baseline_kind kind;
    int before; /* gt_outcome in the baseline, -1 for a new case */
    gt_outcome after;
} gt_baseline_entry;

typedef struct gt_baseline_diff {
    char *file;                 /* the baseline report's path */
    size_t baseline_cases;      /* cases in the baseline report */
    size_t not_run;             /* baseline cases absent from this run (filters, shards, removed) */
    gt_baseline_entry *entries; /* in the run's case order */
    size_t entry_count;
    size_t counts[GT_BASELINE_KIND_COUNT];
} gt_baseline_diff;

/* ---- what a report shows besides the results ---------------------------- */

/* How the run was made. Every pointer may be NULL and every number 0 (the
 * JSON report then writes null). Strings are borrowed. */
typedef struct gt_report_info {
    const char *command;        /* shell-quoted command line that reproduces the run */
    const char *corpus_version; /* VERSION file at the corpus root, or NULL */
    const char *corpus_sha256;  /* gt_report_corpus_hash of every loaded case, 64 hex digits */
    size_t corpus_cases;        /* cases loaded, before filters and sharding */
    size_t selected_cases;      /* cases after filters, before sharding */
    unsigned shard_index;       /* 1-based shard of this run; 0 = not sharded */
    unsigned shard_count;
    const gt_load_problem *problems; /* load problems when run->corpus is NULL (a merged run) */
    size_t problem_count;
    const gt_baseline_diff *baseline; /* or NULL */
    bool certify;                     /* console: print the certification footer */
    /* Required-tier cases of the loaded corpus (before filters and sharding)
     * by their exact set of profiles (index = gt_profile mask): what the
     * coverage of a claim is measured against. Unknown (all 0) unless
     * profiles_known; the run's own cases are used then. */
    bool profiles_known;
    size_t required_by_profiles[1u << GT_PROFILE_COUNT];
} gt_report_info;

/* Fill info->required_by_profiles from a loaded corpus (call before
 * filtering). */
void gt_report_count_profiles(const gt_corpus *corpus, gt_report_info *info);

/* A badge is green only when at least this share of the required cases of
 * the claimed profiles ran to a verdict (docs/ci.md#badge). */
#define GT_REPORT_BADGE_MIN_COVERAGE 0.90

typedef int (*gt_report_writer)(FILE *out, const gt_run *run, const gt_report_info *info);

/* Writers. `info` may be NULL. */
int gt_report_console(FILE *out, const gt_run *run, const gt_report_info *info, bool tty);
int gt_report_json(FILE *out, const gt_run *run, const gt_report_info *info);
int gt_report_junit(FILE *out, const gt_run *run, const gt_report_info *info);
int gt_report_tap(FILE *out, const gt_run *run, const gt_report_info *info);
int gt_report_html(FILE *out, const gt_run *run, const gt_report_info *info);
int gt_report_markdown(FILE *out, const gt_run *run, const gt_report_info *info);
/* A README badge of the required tier's pass rate: a shields.io endpoint
 * document (JSON) and the same badge as a static SVG (reports/badge.c). */
int gt_report_badge(FILE *out, const gt_run *run, const gt_report_info *info);
int gt_report_badge_svg(FILE *out, const gt_run *run, const gt_report_info *info);
#define GT_REPORT_BADGE_LABEL "gauntlet"

/* Writer by format name ("console", "json", "junit", "tap", "html", "md" or
 * "markdown", "badge", "svg"); NULL when unknown. */
gt_report_writer gt_report_writer_for(const char *format);
/* The known format names, comma-separated, for usage messages. */
#define GT_REPORT_FORMATS "console, json, junit, tap, html, md, badge, svg"

/* SHA-256 over the content of every case of `corpus` (id, case object,
 * schema, expectation, raw input) in corpus order, as 64 lowercase hex digits
 * plus NUL into `hex`. Paths do not count, so a moved corpus keeps its hash.
 * Call before filtering to identify the whole corpus. */
void gt_report_corpus_hash(const gt_corpus *corpus, char hex[65]);

/* ---- reading JSON reports back ------------------------------------------ */

/* A JSON report read back: `run` formats like the run that wrote it (its
 * corpus is NULL; cases, problems and strings live in the document). */
typedef struct gt_report_doc gt_report_doc;

/* Read a "gauntlet-report/1" file. Returns the document, or NULL with `err`
 * filled (cannot read, not JSON, wrong format, a field of the wrong type).
 * Free with gt_report_doc_free. */
gt_report_doc *gt_report_load(const char *path, char *err, size_t err_len);
/* Same, from text in memory; `name` is used in messages. */
gt_report_doc *gt_report_load_text(const char *name, const char *text, size_t len, char *err, size_t err_len);
void gt_report_doc_free(gt_report_doc *doc);
const gt_run *gt_report_doc_run(const gt_report_doc *doc);
/* The document's run information (command, corpus hash, shard, problems). */
const gt_report_info *gt_report_doc_info(const gt_report_doc *doc);

/* Join the reports of every shard of one sharded run (any order) into one
 * document whose run has every case in corpus order, as an unsharded run
 * would. Refuses (NULL, `err` filled) shards of different corpora, commands
 * or shard counts, a shard given twice or missing, and cases that overlap.
 * The result borrows from `shards`: free it before them. */
gt_report_doc *gt_report_merge(gt_report_doc *const *shards, size_t count, char *err, size_t err_len);

/* ---- baseline ----------------------------------------------------------- */

/* Compare `run` with an earlier report (by case id). Returns a diff to free
 * with gt_baseline_diff_free, or NULL when out of memory. `file` is copied. */
gt_baseline_diff *gt_baseline_compare(const gt_run *baseline, const char *file, const gt_run *run);
void gt_baseline_diff_free(gt_baseline_diff *diff);

#endif
