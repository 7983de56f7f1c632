/* baseline.c — compare a run with an earlier JSON report, case by case (by
 * id), so CI can fail only on regressions: a case that passed in the
 * baseline and fails or errors now. Fixed cases, new cases and cases that
 * passed but are skipped now are listed without gating. Not for: reading the
 * report (read.c) or deciding the exit code (runner/cli/cmd_run.c). */
#include <stdlib.h>
#include <string.h>

#include "gauntlet/runner/report.h"
#include "report_util.h"

const char *gt_baseline_kind_name(gt_baseline_kind kind)
{
    switch (kind) {
    case GT_BASELINE_REGRESSED: return "regressed";
    case GT_BASELINE_FIXED: return "fixed";
    case GT_BASELINE_NEW: return "new";
    case GT_BASELINE_NOW_SKIPPED: return "now_skipped";
    case GT_BASELINE_KIND_COUNT: break;
    }
    return "unknown";
}

typedef struct known_case {
    const char *id;
    gt_outcome outcome;
    bool seen;
} known_case;

static int compare_known(const void *a, const void *b)
{
    return strcmp(((const known_case *)a)->id, ((const known_case *)b)->id);
}

static int add_entry(gt_baseline_diff *diff, const char *id, gt_baseline_kind kind, int before, gt_outcome after)
{
    gt_baseline_entry *grown = realloc(diff->entries, (diff->entry_count + 1) * sizeof *grown);
    if (grown == NULL)
        return -1;
    diff->entries = grown;
    char *copy = strdup(id);
    if (copy == NULL)
        return -1;
    grown[diff->entry_count++] = (gt_baseline_entry){copy, kind, before, after};
    diff->counts[kind]++;
    return 0;
}

gt_baseline_diff *gt_baseline_compare(const gt_run *baseline, const char *file, const gt_run *run)
{
    gt_baseline_diff *diff = calloc(1, sizeof *diff);
    known_case *known = calloc(baseline->count ? baseline->count : 1, sizeof *known);
    if (diff == NULL || known == NULL || (diff->file = strdup(file ? file : "")) == NULL) {
        free(known);
        gt_baseline_diff_free(diff);
        return NULL;
    }
    size_t known_count = 0;
    for (size_t i = 0; i < baseline->count; i++) {
        const gt_case_result *result = &baseline->results[i];
        /* a case not applicable there was not run there: it is new here */
        if (result->kase != NULL && result->kase->input.id != NULL && result->outcome != GT_OUTCOME_NOT_APPLICABLE)
            known[known_count++] = (known_case){result->kase->input.id, result->outcome, false};
    }
    qsort(known, known_count, sizeof *known, compare_known);
    diff->baseline_cases = known_count;

    size_t matched = 0;
    for (size_t i = 0; i < run->count; i++) {
        const gt_case_result *result = &run->results[i];
        if (result->outcome == GT_OUTCOME_NOT_APPLICABLE)
            continue; /* not run here: a baseline case it matches counts as not run */
        known_case key = {result->kase->input.id, GT_OUTCOME_PASS, false};
        known_case *before = bsearch(&key, known, known_count, sizeof *known, compare_known);
        gt_outcome after = result->outcome;
        int status = 0;
        if (before == NULL) {
            status = add_entry(diff, key.id, GT_BASELINE_NEW, -1, after);
        } else {
            if (!before->seen)
                matched++;
            before->seen = true;
            bool passed = before->outcome == GT_OUTCOME_PASS;
            if (passed && (after == GT_OUTCOME_FAIL || after == GT_OUTCOME_ERROR))
                status = add_entry(diff, key.id, GT_BASELINE_REGRESSED, (int)before->outcome, after);
            else if (passed && after == GT_OUTCOME_SKIP)
                status = add_entry(diff, key.id, GT_BASELINE_NOW_SKIPPED, (int)before->outcome, after);
            else if (!passed && after == GT_OUTCOME_PASS)
                status = add_entry(diff, key.id, GT_BASELINE_FIXED, (int)before->outcome, after);
        }
        if (status != 0) {
            free(known);
            gt_baseline_diff_free(diff);
            return NULL;
        }
    }
    diff->not_run = known_count - matched;
    free(known);
    return diff;
}

void gt_baseline_diff_free(gt_baseline_diff *diff)
{
    if (diff == NULL)
        return;
    for (size_t i = 0; i < diff->entry_count; i++)
        free(diff->entries[i].id);
    free(diff->entries);
    free(diff->file);
    free(diff);
}
