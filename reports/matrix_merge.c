/* matrix_merge.c — matrix JSON files ("gauntlet-matrix/1", merge_version 1)
 * read back and joined column by column, for `gauntlet matrix --merge`.
 *
 * The first file gives the case list (rebuilt as a gt_corpus of the cases'
 * id, gate, category, tier, expectation, profiles and sources); every column
 * becomes a gt_run whose results carry exactly what the matrix writers read
 * (outcome, class, verdict, subtype, note, output, beyond-script calls), so
 * reports/matrix.c formats the merge as it formats one run over the same
 * columns. A later file must have the same corpus digest and case list, and
 * no column twice. Not for: run reports (read.c, merge.c). */
#include <cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "gauntlet/runner/corpus.h"
#include "gauntlet/runner/matrix.h"
#include "gauntlet/util.h"
#include "gauntlet/version.h"
#include "report_util.h"

#define MATRIX_SET_MAX_COLUMNS 256

struct gt_matrix_set {
    cJSON *roots[MATRIX_SET_MAX_COLUMNS]; /* the parsed files: every column string points into one */
    size_t root_count;
    gt_corpus *corpus;         /* the first file's cases */
    char *first_path, *sha256; /* the file the cases came from, its corpus digest */
    gt_matrix_column columns[MATRIX_SET_MAX_COLUMNS];
    const char *column_files[MATRIX_SET_MAX_COLUMNS];
    gt_run *runs[MATRIX_SET_MAX_COLUMNS];
    signed char *previous[MATRIX_SET_MAX_COLUMNS]; /* each column's previous_outcomes, or NULL */
    size_t column_count;
    gt_matrix matrix;
};

gt_matrix_set *gt_matrix_set_new(void)
{
    return calloc(1, sizeof(gt_matrix_set));
}

void gt_matrix_set_free(gt_matrix_set *set)
{
    if (set == NULL)
        return;
    for (size_t c = 0; c < set->column_count; c++) {
        gt_run_free(set->runs[c]);
        free(set->previous[c]);
    }
    for (size_t r = 0; r < set->root_count; r++)
        cJSON_Delete(set->roots[r]);
    gt_corpus_free(set->corpus);
    free(set->first_path);
    free(set->sha256);
    free(set);
}

static const cJSON *member(const cJSON *object, const char *name)
{
    return cJSON_GetObjectItemCaseSensitive(object, name);
}

/* A string member, NULL when absent or null; *bad when present and not a string. */
static const char *text(const cJSON *object, const char *name, bool *bad)
{
    const cJSON *item = member(object, name);
    if (item == NULL || cJSON_IsNull(item))
        return NULL;
    if (!cJSON_IsString(item))
        *bad = true;
    return cJSON_GetStringValue(item);
}

static char *dup_or_null(const char *value)
{
    return value ? strdup(value) : NULL;
}

static int outcome_from_name(const char *name)
{
    for (int o = GT_OUTCOME_PASS; name != NULL && o <= GT_OUTCOME_NOT_APPLICABLE; o++)
        if (strcmp(name, gt_outcome_name((gt_outcome)o)) == 0)
            return o;
    return -1;
}

/* The case list of the first file, as a corpus. */
static int build_corpus(gt_matrix_set *set, const char *path, const cJSON *cases, char *err, size_t err_len)
{
    set->corpus = gt_corpus_new();
    if (set->corpus == NULL)
        return gt_report_errorf(err, err_len, "%s: out of memory", path), -1;
    size_t index = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, cases)
    {
        bool bad = false;
        gt_case kase;
        memset(&kase, 0, sizeof kase);
        kase.input.id = text(item, "id", &bad);
        kase.input.gate = text(item, "gate", &bad);
        kase.category = text(item, "category", &bad);
        const char *tier = text(item, "tier", &bad), *expect = text(item, "expect", &bad);
        const char *profiles = text(item, "profiles", &bad);
        int tier_value = tier ? gt_tier_from_name(tier) : -1;
        char why[256];
        unsigned mask = 0;
        if (bad || kase.input.id == NULL || kase.input.gate == NULL || tier_value < 0 || expect == NULL ||
            (strcmp(expect, "accept") != 0 && strcmp(expect, "reject") != 0) ||
            (profiles && profiles[0] && gt_profiles_parse(profiles, &mask, why, sizeof why) != 0))
            return gt_report_errorf(err, err_len,
                                    "%s: cases[%zu] needs an id, a gate, a tier, expect accept or reject and known "
                                    "profiles",
                                    path, index),
                   -1;
        kase.tier = (gt_tier)tier_value;
        kase.expect.verdict = strcmp(expect, "accept") == 0 ? GT_VERDICT_ACCEPT : GT_VERDICT_REJECT;
        kase.profiles = mask;
        kase.profiles_given = mask != 0;
        kase.file = path;
        const char *sources[64];
        const cJSON *source;
        cJSON_ArrayForEach(source, member(item, "sources"))
        {
            if (!cJSON_IsString(source) || kase.source_count == sizeof sources / sizeof sources[0])
                return gt_report_errorf(err, err_len, "%s: cases[%zu].sources must be at most 64 strings", path, index),
                       -1;
            sources[kase.source_count++] = cJSON_GetStringValue(source);
        }
        kase.sources = sources;
        int added = gt_corpus_add_case(set->corpus, &kase);
        if (added <= 0)
            return gt_report_errorf(err, err_len, "%s: cases[%zu] (%s): %s", path, index, kase.input.id,
                                    added < 0 ? "out of memory" : "a duplicate id or an unknown gate"),
                   -1;
        index++;
    }
    return 0;
}

/* The later file's case list must be the first one's, in order. */
static int same_cases(const gt_matrix_set *set, const char *path, const cJSON *cases, char *err, size_t err_len)
{
    size_t count = gt_corpus_count(set->corpus), index = 0;
    if ((size_t)cJSON_GetArraySize(cases) != count)
        return gt_report_errorf(err, err_len, "%s: %d cases, %s has %zu: not the same case selection", path,
                                cJSON_GetArraySize(cases), set->first_path, count),
               -1;
    const cJSON *item;
    cJSON_ArrayForEach(item, cases)
    {
        bool bad = false;
        const char *id = text(item, "id", &bad);
        const char *want = gt_corpus_case(set->corpus, index)->input.id;
        if (id == NULL || strcmp(id, want) != 0)
            return gt_report_errorf(err, err_len, "%s: cases[%zu] is %s, %s has %s there: not the same case selection",
                                    path, index, id ? id : "(no id)", set->first_path, want),
                   -1;
        index++;
    }
    return 0;
}

/* One column's results from the cells at position `at` of every case. */
static gt_run *build_run(gt_matrix_set *set, const char *path, const cJSON *cases, size_t at, const char *name,
                         const char *profiles, char *err, size_t err_len)
{
    size_t count = gt_corpus_count(set->corpus);
    gt_run *run = calloc(1, sizeof *run);
    if (run == NULL || (run->results = calloc(count ? count : 1, sizeof *run->results)) == NULL) {
        free(run);
        return gt_report_errorf(err, err_len, "%s: out of memory", path), NULL;
    }
    run->count = count;
    run->corpus = set->corpus;
    char why[256];
    if (profiles == NULL || gt_profiles_parse(profiles, &run->profiles, why, sizeof why) != 0) {
        gt_report_errorf(err, err_len, "%s: column %s: profiles %s: %s", path, name, profiles ? profiles : "missing",
                         profiles ? why : "an available column names its profiles");
        gt_run_free(run);
        return NULL;
    }
    for (size_t i = 0; i < count; i++) {
        const cJSON *cell = cJSON_GetArrayItem(member(cJSON_GetArrayItem(cases, (int)i), "cells"), (int)at);
        gt_case_result *result = &run->results[i];
        bool bad = false;
        const char *owner = text(cell, "implementation", &bad);
        int outcome = outcome_from_name(text(cell, "outcome", &bad));
        const char *class_name = text(cell, "class", &bad), *verdict = text(cell, "verdict", &bad);
        int class_value = gt_class_from_name(class_name);
        const cJSON *beyond = member(cell, "beyond_script_calls");
        result->kase = gt_corpus_case(set->corpus, i);
        result->observed.subtype = dup_or_null(text(cell, "subtype", &bad));
        result->note = dup_or_null(text(cell, "note", &bad));
        result->observed.output_json = dup_or_null(text(cell, "output", &bad));
        if (bad || owner == NULL || strcmp(owner, name) != 0 || outcome < 0 || class_value < 0 ||
            (verdict && strcmp(verdict, "accept") != 0 && strcmp(verdict, "reject") != 0) ||
            (beyond && !cJSON_IsNumber(beyond))) {
            gt_report_errorf(err, err_len,
                             "%s: column %s: cases[%zu].cells[%zu] (%s) is not this column's cell with an "
                             "outcome, a class and a verdict",
                             path, name, i, at, result->kase->input.id);
            gt_run_free(run);
            return NULL;
        }
        result->outcome = (gt_outcome)outcome;
        result->verdict_class = (gt_class)class_value;
        result->observed.verdict = verdict == NULL                  ? GT_VERDICT_NONE
                                   : strcmp(verdict, "accept") == 0 ? GT_VERDICT_ACCEPT
                                                                    : GT_VERDICT_REJECT;
        result->observed.beyond_script_calls = beyond ? (int)cJSON_GetNumberValue(beyond) : 0;
    }
    return run;
}

/* The case of the set with this id, or -1. */
static long case_index(const gt_corpus *corpus, const char *id)
{
    for (size_t i = 0; id != NULL && i < gt_corpus_count(corpus); i++)
        if (strcmp(gt_corpus_case(corpus, i)->input.id, id) == 0)
            return (long)i;
    return -1;
}

/* A column's previous outcomes from its "field" entries ("previous"), when
 * it names a previous version; -1 for the other cases. */
static int read_previous(gt_matrix_set *set, const char *path, const cJSON *impl, gt_matrix_column *column,
                         signed char **outcomes, char *err, size_t err_len)
{
    *outcomes = NULL;
    if (column->previous_version == NULL)
        return 0;
    size_t count = gt_corpus_count(set->corpus);
    *outcomes = malloc(count ? count : 1);
    if (*outcomes == NULL)
        return gt_report_errorf(err, err_len, "%s: out of memory", path), -1;
    memset(*outcomes, -1, count ? count : 1);
    const cJSON *entry;
    cJSON_ArrayForEach(entry, member(impl, "field"))
    {
        bool bad = false;
        const char *before = text(entry, "previous", &bad), *id = text(entry, "case", &bad);
        long index = case_index(set->corpus, id);
        int outcome = outcome_from_name(before);
        if (bad || index < 0 || (before != NULL && outcome < 0))
            return gt_report_errorf(err, err_len,
                                    "%s: column %s: field entry %s names no case of the matrix or no outcome", path,
                                    column->name, id ? id : "(no case)"),
                   -1;
        if (before != NULL)
            (*outcomes)[index] = (signed char)outcome;
    }
    column->previous_outcomes = *outcomes;
    return 0;
}

static int add_columns(gt_matrix_set *set, const char *path, const cJSON *root, char *err, size_t err_len)
{
    const cJSON *cases = member(root, "cases");
    size_t at = 0;
    const cJSON *impl;
    cJSON_ArrayForEach(impl, member(root, "implementations"))
    {
        bool bad = false;
        const char *name = text(impl, "name", &bad);
        if (name == NULL || bad)
            return gt_report_errorf(err, err_len, "%s: implementations[%zu] has no name", path, at), -1;
        for (size_t c = 0; c < set->column_count; c++)
            if (strcmp(set->columns[c].name, name) == 0)
                return gt_report_errorf(err, err_len, "%s: column %s is already in %s: a column may be merged once",
                                        path, name, set->column_files[c]),
                       -1;
        if (set->column_count == MATRIX_SET_MAX_COLUMNS)
            return gt_report_errorf(err, err_len, "%s: column %s: more than %d columns", path, name,
                                    MATRIX_SET_MAX_COLUMNS),
                   -1;
        const cJSON *available = member(impl, "available");
        gt_matrix_column column = {
            .name = name,
            .spec = text(impl, "spec", &bad),
            .unavailable = text(impl, "unavailable", &bad),
            .about = text(impl, "about", &bad),
            .version = text(impl, "version", &bad),
            .language = text(impl, "language", &bad),
            .packages = text(impl, "packages", &bad),
            .notes = text(impl, "notes", &bad),
            .labels_text = text(impl, "labels_text", &bad),
            .evidence = text(impl, "evidence", &bad),
            .repos = text(impl, "repos", &bad),
            .previous_version = text(impl, "previous_version", &bad),
        };
        if (bad || !cJSON_IsBool(available) || column.spec == NULL)
            return gt_report_errorf(err, err_len, "%s: column %s: spec, available and the texts must be strings", path,
                                    name),
                   -1;
        gt_run *run = NULL;
        if (cJSON_IsTrue(available)) {
            run = build_run(set, path, cases, at, name, text(impl, "profiles", &bad), err, err_len);
            if (run == NULL)
                return -1;
        }
        column.run = run;
        set->runs[set->column_count] = run;
        if (read_previous(set, path, impl, &column, &set->previous[set->column_count], err, err_len) != 0) {
            gt_run_free(run);
            free(set->previous[set->column_count]);
            set->previous[set->column_count] = NULL;
            set->runs[set->column_count] = NULL;
            return -1;
        }
        set->column_files[set->column_count] = path;
        set->columns[set->column_count++] = column;
        at++;
    }
    if (at == 0)
        return gt_report_errorf(err, err_len, "%s: no implementations", path), -1;
    return 0;
}

int gt_matrix_set_add(gt_matrix_set *set, const char *path, char *err, size_t err_len)
{
    size_t len = 0;
    char why[256] = "";
    char *body = gt_read_file(path, &len, why, sizeof why);
    if (body == NULL)
        return gt_report_errorf(err, err_len, "%s: cannot read: %s", path, why), -1;
    cJSON *root = cJSON_ParseWithLength(body, len);
    free(body);
    const char *format = cJSON_GetStringValue(member(root, "format"));
    const cJSON *merge_version = member(root, "merge_version");
    const char *version = cJSON_GetStringValue(member(root, "gauntlet_version"));
    const char *sha256 = cJSON_GetStringValue(member(root, "corpus_sha256"));
    int status = -1;
    if (root == NULL || format == NULL || strncmp(format, "gauntlet-matrix/", 16) != 0)
        gt_report_errorf(err, err_len, "%s: not a matrix JSON (no \"format\": \"%s\")", path, GT_MATRIX_FORMAT);
    else if (strcmp(format, GT_MATRIX_FORMAT) != 0)
        gt_report_errorf(err, err_len, "%s: format %s, this gauntlet reads %s", path, format, GT_MATRIX_FORMAT);
    else if (!cJSON_IsNumber(merge_version) || cJSON_GetNumberValue(merge_version) != GT_MATRIX_MERGE_VERSION)
        gt_report_errorf(err, err_len,
                         "%s: merge_version %g, this gauntlet merges %d (a matrix JSON written before or after "
                         "this one's columns format: regenerate the column)",
                         path, cJSON_IsNumber(merge_version) ? cJSON_GetNumberValue(merge_version) : 0.0,
                         GT_MATRIX_MERGE_VERSION);
    else if (version == NULL || strcmp(version, GAUNTLET_VERSION) != 0)
        gt_report_errorf(err, err_len, "%s: written by gauntlet %s, this is gauntlet %s", path,
                         version ? version : "(none)", GAUNTLET_VERSION);
    else if (sha256 == NULL || !cJSON_IsArray(member(root, "cases")) || !cJSON_IsArray(member(root, "implementations")))
        gt_report_errorf(err, err_len, "%s: a matrix JSON needs corpus_sha256, cases and implementations", path);
    else if (set->sha256 != NULL && strcmp(set->sha256, sha256) != 0)
        gt_report_errorf(err, err_len,
                         "%s: corpus %.16s, %s has corpus %.16s: columns of different corpora do not merge", path,
                         sha256, set->first_path, set->sha256);
    else if (set->root_count == MATRIX_SET_MAX_COLUMNS)
        gt_report_errorf(err, err_len, "%s: too many files", path);
    else if (set->corpus == NULL ? build_corpus(set, path, member(root, "cases"), err, err_len) == 0
                                 : same_cases(set, path, member(root, "cases"), err, err_len) == 0)
        status = 0;
    if (status == 0 && set->sha256 == NULL) {
        set->sha256 = strdup(sha256);
        set->first_path = strdup(path);
    }
    if (status == 0) {
        set->roots[set->root_count++] = root;
        return add_columns(set, path, root, err, err_len);
    }
    cJSON_Delete(root);
    return -1;
}

gt_matrix_column *gt_matrix_set_columns(gt_matrix_set *set, size_t *count)
{
    *count = set->column_count;
    return set->columns;
}

const gt_matrix *gt_matrix_set_matrix(gt_matrix_set *set, const char *command, const char *generated_at)
{
    if (set->column_count == 0)
        return NULL;
    set->matrix = (gt_matrix){set->corpus, set->columns, set->column_count, command, set->sha256, generated_at};
    return &set->matrix;
}

/* ---- --previous ---------------------------------------------------------------- */

struct gt_matrix_previous {
    cJSON *root;
    signed char *outcomes[MATRIX_SET_MAX_COLUMNS];
    size_t outcome_count;
};

gt_matrix_previous *gt_matrix_previous_load(const char *path, char *err, size_t err_len)
{
    size_t len = 0;
    char why[256] = "";
    char *body = gt_read_file(path, &len, why, sizeof why);
    if (body == NULL)
        return gt_report_errorf(err, err_len, "%s: cannot read: %s", path, why), NULL;
    cJSON *root = cJSON_ParseWithLength(body, len);
    free(body);
    const char *format = cJSON_GetStringValue(member(root, "format"));
    if (root == NULL || format == NULL || strcmp(format, GT_MATRIX_FORMAT) != 0 ||
        !cJSON_IsArray(member(root, "implementations")) || !cJSON_IsArray(member(root, "cases"))) {
        cJSON_Delete(root);
        gt_report_errorf(err, err_len, "%s: not a matrix JSON (\"format\": \"%s\" with implementations and cases)",
                         path, GT_MATRIX_FORMAT);
        return NULL;
    }
    gt_matrix_previous *previous = calloc(1, sizeof *previous);
    if (previous == NULL) {
        cJSON_Delete(root);
        gt_report_errorf(err, err_len, "%s: out of memory", path);
        return NULL;
    }
    previous->root = root;
    return previous;
}

void gt_matrix_previous_apply(gt_matrix_previous *previous, gt_matrix_column *columns, size_t count,
                              const gt_corpus *corpus)
{
    const cJSON *cases = member(previous->root, "cases");
    size_t total = gt_corpus_count(corpus);
    for (size_t c = 0; c < count && previous->outcome_count < MATRIX_SET_MAX_COLUMNS; c++) {
        const cJSON *impl;
        int at = 0, found = -1;
        cJSON_ArrayForEach(impl, member(previous->root, "implementations"))
        {
            const char *name = cJSON_GetStringValue(member(impl, "name"));
            if (found < 0 && name != NULL && strcmp(name, columns[c].name) == 0)
                found = at;
            at++;
        }
        columns[c].previous_version = NULL;
        columns[c].previous_outcomes = NULL;
        if (found < 0)
            continue;
        signed char *outcomes = malloc(total ? total : 1);
        if (outcomes == NULL)
            continue;
        memset(outcomes, -1, total ? total : 1);
        const cJSON *kase;
        cJSON_ArrayForEach(kase, cases)
        {
            long index = case_index(corpus, cJSON_GetStringValue(member(kase, "id")));
            const cJSON *cell = cJSON_GetArrayItem(member(kase, "cells"), found);
            const char *owner = cJSON_GetStringValue(member(cell, "implementation"));
            int outcome = outcome_from_name(cJSON_GetStringValue(member(cell, "outcome")));
            if (index >= 0 && owner != NULL && strcmp(owner, columns[c].name) == 0 && outcome >= 0)
                outcomes[index] = (signed char)outcome;
        }
        const char *version = cJSON_GetStringValue(
            member(cJSON_GetArrayItem(member(previous->root, "implementations"), found), "version"));
        columns[c].previous_version = version ? version : "(no version)";
        columns[c].previous_outcomes = outcomes;
        previous->outcomes[previous->outcome_count++] = outcomes;
    }
}

void gt_matrix_previous_free(gt_matrix_previous *previous)
{
    if (previous == NULL)
        return;
    for (size_t i = 0; i < previous->outcome_count; i++)
        free(previous->outcomes[i]);
    cJSON_Delete(previous->root);
    free(previous);
}
