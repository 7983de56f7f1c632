/* read.c — a JSON report ("gauntlet-report/1") read back into a run.
 *
 * The baseline diff and `gauntlet merge` work on reports, never on re-runs:
 * this file turns a report into a gt_run (with its own gt_case records) that
 * every writer formats exactly like the run that wrote it. Reports written
 * before a field existed still load (the field is then absent). Not for:
 * writing reports (json.c) or joining shards (merge.c). */
#include <cJSON.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "gauntlet/arena.h"
#include "gauntlet/parse.h"
#include "gauntlet/util.h"
#include "gauntlet/runner/report.h"
#include "report_util.h"
#include "report_doc.h"

static void fail(char *err, size_t err_len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void fail(char *err, size_t err_len, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(err, err_len, fmt, args);
    va_end(args);
}

typedef struct reader {
    gt_report_doc *doc;
    const char *name;
    char *err;
    size_t err_len;
    bool bad;
} reader;

static const cJSON *member(const cJSON *object, const char *name)
{
    return cJSON_GetObjectItemCaseSensitive(object, name);
}

static void bad_field(reader *r, const char *where, const char *name, const char *want)
{
    if (!r->bad)
        fail(r->err, r->err_len, "%s: %s%s%s is not %s", r->name, where, where[0] ? "." : "", name, want);
    r->bad = true;
}

/* A string member copied into the arena; NULL when absent or null. */
static const char *text_of(reader *r, const cJSON *object, const char *name, const char *where, bool required)
{
    const cJSON *item = member(object, name);
    if (item == NULL || cJSON_IsNull(item)) {
        if (required)
            bad_field(r, where, name, "a string");
        return NULL;
    }
    if (!cJSON_IsString(item)) {
        bad_field(r, where, name, "a string");
        return NULL;
    }
    const char *copy = gt_arena_strndup(r->doc->arena, item->valuestring, strlen(item->valuestring));
    if (copy == NULL)
        bad_field(r, where, name, "storable (out of memory)");
    return copy;
}

static char *malloc_text_of(reader *r, const cJSON *object, const char *name, const char *where)
{
    const cJSON *item = member(object, name);
    if (item == NULL || cJSON_IsNull(item))
        return NULL;
    if (!cJSON_IsString(item)) {
        bad_field(r, where, name, "a string");
        return NULL;
    }
    char *copy = strdup(item->valuestring);
    if (copy == NULL)
        bad_field(r, where, name, "storable (out of memory)");
    return copy;
}

static double number_of(reader *r, const cJSON *object, const char *name, const char *where, double fallback)
{
    const cJSON *item = member(object, name);
    if (item == NULL || cJSON_IsNull(item))
        return fallback;
    if (!cJSON_IsNumber(item)) {
        bad_field(r, where, name, "a number");
        return fallback;
    }
    return item->valuedouble;
}

/* A whole number from `minimum` to `maximum` (a report is input: a negative
 * or huge count must not wrap when converted). */
static double whole_of(reader *r, const cJSON *object, const char *name, const char *where, double fallback,
                       double minimum, double maximum)
{
    double value = number_of(r, object, name, where, fallback);
    if (value != value || value < minimum || value > maximum || value != (double)(long long)value) {
        bad_field(r, where, name, "a whole number in range");
        return fallback;
    }
    return value;
}

#define READ_MAX_COUNT 1e12 /* more cases than any corpus holds, far below SIZE_MAX */

static gt_verdict verdict_of(reader *r, const cJSON *object, const char *where)
{
    const cJSON *item = member(object, "verdict");
    if (item == NULL || cJSON_IsNull(item))
        return GT_VERDICT_NONE;
    if (cJSON_IsString(item) && strcmp(item->valuestring, "accept") == 0)
        return GT_VERDICT_ACCEPT;
    if (cJSON_IsString(item) && strcmp(item->valuestring, "reject") == 0)
        return GT_VERDICT_REJECT;
    bad_field(r, where, "verdict", "\"accept\", \"reject\" or null");
    return GT_VERDICT_NONE;
}

static bool read_accounting(reader *r, const cJSON *object, const char *where, gt_accounting *accounting)
{
    gt_accounting_init(accounting);
    const cJSON *item = member(object, "accounting");
    if (item == NULL || cJSON_IsNull(item))
        return false;
    if (!cJSON_IsObject(item)) {
        bad_field(r, where, "accounting", "an object");
        return false;
    }
    int *figures[6] = {&accounting->attempts_used,    &accounting->attempts_limit, &accounting->retracted,
                       &accounting->enforce_messages, &accounting->api_attempts,   &accounting->model_calls};
    for (size_t i = 0; i < 6; i++)
        *figures[i] = (int)whole_of(r, item, gt_report_accounting_names[i], "accounting", -1, -1, INT_MAX);
    return true;
}

static void read_expected(reader *r, const cJSON *object, gt_expect *expect)
{
    if (object == NULL || cJSON_IsNull(object))
        return; /* a baseline may list only ids and outcomes */
    if (!cJSON_IsObject(object)) {
        bad_field(r, "case", "expected", "an object");
        return;
    }
    expect->verdict = verdict_of(r, object, "expected");
    expect->gate = text_of(r, object, "gate", "expected", false);
    expect->reason = text_of(r, object, "reason", "expected", false);
    expect->subtype = text_of(r, object, "subtype", "expected", false);
    expect->output_json = text_of(r, object, "output", "expected", false);
    expect->structured_output_json = text_of(r, object, "structured_output", "expected", false);
    expect->accounting_given = read_accounting(r, object, "expected", &expect->accounting);
    const cJSON *errors = member(object, "errors");
    if (errors == NULL || cJSON_IsNull(errors))
        return;
    if (!cJSON_IsArray(errors)) {
        bad_field(r, "expected", "errors", "an array or null");
        return;
    }
    size_t count = (size_t)cJSON_GetArraySize(errors);
    gt_expected_error *list = gt_arena_alloc(r->doc->arena, (count ? count : 1) * sizeof *list);
    if (list == NULL) {
        bad_field(r, "expected", "errors", "storable (out of memory)");
        return;
    }
    size_t i = 0;
    for (const cJSON *error = errors->child; error != NULL; error = error->next, i++) {
        list[i].path = text_of(r, error, "path", "expected.errors[]", true);
        list[i].keyword = text_of(r, error, "keyword", "expected.errors[]", true);
    }
    expect->errors = list;
    expect->error_count = count;
    expect->errors_given = true;
}

static void read_observed(reader *r, const cJSON *object, gt_observed *observed)
{
    if (object == NULL || cJSON_IsNull(object))
        return;
    if (!cJSON_IsObject(object)) {
        bad_field(r, "case", "observed", "an object");
        return;
    }
    observed->verdict = verdict_of(r, object, "observed");
    observed->gate = malloc_text_of(r, object, "gate", "observed");
    observed->reason = malloc_text_of(r, object, "reason", "observed");
    observed->message = malloc_text_of(r, object, "message", "observed");
    observed->subtype = malloc_text_of(r, object, "subtype", "observed");
    observed->output_json = malloc_text_of(r, object, "output", "observed");
    observed->transcript = malloc_text_of(r, object, "transcript", "observed");
    observed->violation = malloc_text_of(r, object, "violation", "observed");
    observed->black_box = cJSON_IsTrue(member(object, "black_box"));
    const cJSON *beyond = member(object, "beyond_script_calls");
    if (cJSON_IsNumber(beyond) && beyond->valuedouble >= 0 && beyond->valuedouble <= 1e9)
        observed->beyond_script_calls = (int)beyond->valuedouble;
    observed->has_accounting = read_accounting(r, object, "observed", &observed->accounting);
    const cJSON *errors = member(object, "errors");
    if (errors != NULL && !cJSON_IsNull(errors)) {
        if (!cJSON_IsArray(errors))
            bad_field(r, "observed", "errors", "an array");
        else
            for (const cJSON *error = errors->child; error != NULL; error = error->next) {
                const cJSON *path = member(error, "path"), *keyword = member(error, "keyword"),
                            *message = member(error, "message");
                if (!cJSON_IsString(path) || !cJSON_IsString(keyword)) {
                    bad_field(r, "observed.errors[]", "path or keyword", "a string");
                    break;
                }
                if (gt_observed_add_error(observed, path->valuestring, keyword->valuestring,
                                          cJSON_IsString(message) ? message->valuestring : NULL) != 0)
                    bad_field(r, "observed", "errors", "storable (out of memory)");
            }
    }
    const cJSON *gates = member(object, "gates");
    if (cJSON_IsObject(gates))
        for (const cJSON *gate = gates->child; gate != NULL; gate = gate->next) {
            int index = gt_gate_from_name(gate->string);
            if (index < 0 || !cJSON_IsString(gate))
                continue;
            observed->gates[index] = strcmp(gate->valuestring, "passed") == 0   ? GT_GATE_PASSED
                                     : strcmp(gate->valuestring, "failed") == 0 ? GT_GATE_FAILED
                                                                                : GT_GATE_NOT_RUN;
        }
}

static int outcome_of(const char *name)
{
    static const char *const names[] = {"pass", "fail", "error", "skip"};
    for (int i = 0; i < 4; i++)
        if (name != NULL && strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

/* A JSON array of profile names as a mask; unknown names are a bad field. */
static unsigned profiles_of(reader *r, const cJSON *array, const char *where, const char *name)
{
    unsigned mask = 0;
    if (array == NULL || cJSON_IsNull(array))
        return 0;
    if (!cJSON_IsArray(array)) {
        bad_field(r, where, name, "an array of profile names");
        return 0;
    }
    for (const cJSON *item = array->child; item != NULL; item = item->next) {
        int profile = cJSON_IsString(item) ? gt_profile_from_name(item->valuestring, strlen(item->valuestring)) : -1;
        if (profile < 0) {
            bad_field(r, where, name, "known profile names (" GT_PROFILE_NAMES ")");
            return 0;
        }
        mask |= 1u << profile;
    }
    return mask;
}

/* Profiles of a case read back: its own list, else the default of its gate. */
static void read_case_profiles(reader *r, const cJSON *object, gt_case *kase)
{
    kase->profiles = profiles_of(r, member(object, "profiles"), "case", "profiles");
    kase->profiles_given = kase->profiles != 0;
    if (kase->profiles == 0)
        kase->profiles = gt_profiles_default(kase->input.gate, (int)kase->tier, kase->category, kase->rules,
                                             kase->rule_count);
}

/* One element of "not_applicable": a case never sent to the target. */
static void read_not_applicable(reader *r, const cJSON *object, size_t position)
{
    gt_report_doc *doc = r->doc;
    gt_case *kase = &doc->cases[position];
    gt_case_result *result = &doc->run.results[position];
    result->kase = kase;
    if (!cJSON_IsObject(object)) {
        bad_field(r, "not_applicable[]", "element", "an object");
        return;
    }
    doc->indices[position] = (size_t)whole_of(r, object, "index", "not_applicable[]", (double)position, 0, READ_MAX_COUNT);
    kase->input.id = text_of(r, object, "id", "not_applicable[]", true);
    kase->input.gate = text_of(r, object, "gate", "not_applicable[]", true);
    kase->category = text_of(r, object, "category", "not_applicable[]", false);
    kase->file = text_of(r, object, "file", "not_applicable[]", false);
    kase->line = (unsigned)whole_of(r, object, "line", "not_applicable[]", 0, 0, UINT_MAX);
    const char *tier = text_of(r, object, "tier", "not_applicable[]", false);
    kase->tier = tier != NULL && gt_tier_from_name(tier) == GT_TIER_OPTIONAL ? GT_TIER_OPTIONAL : GT_TIER_REQUIRED;
    gt_accounting_init(&kase->expect.accounting);
    gt_accounting_init(&result->observed.accounting);
    read_case_profiles(r, object, kase);
    result->outcome = GT_OUTCOME_NOT_APPLICABLE;
    result->verdict_class = GT_CLASS_NOT_APPLICABLE;
}

typedef struct placed_at {
    size_t index, position;
} placed_at;

static int by_index(const void *a, const void *b)
{
    const placed_at *x = a, *y = b;
    return x->index != y->index ? (x->index < y->index ? -1 : 1) : (x->position < y->position ? -1 : 1);
}

/* Put the results (cases[] and not_applicable[] read one after the other)
 * back in the order of their index, as the run that wrote them had them.
 * Returns false when out of memory. */
static bool sort_by_index(gt_report_doc *doc)
{
    size_t count = doc->run.count;
    bool sorted = true;
    for (size_t i = 1; i < count && sorted; i++)
        sorted = doc->indices[i - 1] <= doc->indices[i];
    if (sorted)
        return true;
    placed_at *order = malloc(count * sizeof *order);
    gt_case *cases = malloc(count * sizeof *cases);
    gt_case_result *results = malloc(count * sizeof *results);
    size_t *indices = malloc(count * sizeof *indices);
    if (order == NULL || cases == NULL || results == NULL || indices == NULL) {
        free(order), free(cases), free(results), free(indices);
        return false;
    }
    for (size_t i = 0; i < count; i++)
        order[i] = (placed_at){doc->indices[i], i};
    qsort(order, count, sizeof *order, by_index);
    for (size_t i = 0; i < count; i++) {
        cases[i] = doc->cases[order[i].position];
        results[i] = doc->run.results[order[i].position];
        results[i].kase = &cases[i];
        indices[i] = order[i].index;
    }
    free(doc->cases), free(doc->run.results), free(doc->indices);
    doc->cases = cases, doc->run.results = results, doc->indices = indices;
    free(order);
    return true;
}

/* The strings of an array (tags, rules) copied into the document's arena;
 * other items are left out. NULL with *count 0 when `array` is not one. */
static const char *const *string_list(gt_report_doc *doc, const cJSON *array, size_t *count)
{
    *count = 0;
    if (!cJSON_IsArray(array))
        return NULL;
    size_t size = (size_t)cJSON_GetArraySize(array);
    const char **list = gt_arena_alloc(doc->arena, (size ? size : 1) * sizeof *list);
    for (const cJSON *item = array->child; list != NULL && item != NULL; item = item->next)
        if (cJSON_IsString(item))
            list[(*count)++] = gt_arena_strndup(doc->arena, item->valuestring, strlen(item->valuestring));
    return list;
}

static void read_case(reader *r, const cJSON *object, size_t position)
{
    gt_report_doc *doc = r->doc;
    gt_case *kase = &doc->cases[position];
    gt_case_result *result = &doc->run.results[position];
    result->kase = kase;
    if (!cJSON_IsObject(object)) {
        bad_field(r, "cases[]", "element", "an object");
        return;
    }
    doc->indices[position] = (size_t)whole_of(r, object, "index", "case", (double)position, 0, READ_MAX_COUNT);
    kase->input.id = text_of(r, object, "id", "case", true);
    kase->input.gate = text_of(r, object, "gate", "case", true);
    kase->category = text_of(r, object, "category", "case", false);
    kase->description = text_of(r, object, "description", "case", false);
    kase->file = text_of(r, object, "file", "case", false);
    kase->line = (unsigned)whole_of(r, object, "line", "case", 0, 0, UINT_MAX);
    kase->tags = string_list(doc, member(object, "tags"), &kase->tag_count);
    const char *tier = text_of(r, object, "tier", "case", false);
    if (tier != NULL && gt_tier_from_name(tier) < 0)
        bad_field(r, "case", "tier", "\"required\" or \"optional\"");
    kase->tier = tier != NULL && gt_tier_from_name(tier) == GT_TIER_OPTIONAL ? GT_TIER_OPTIONAL : GT_TIER_REQUIRED;
    kase->rules = string_list(doc, member(object, "rules"), &kase->rule_count);
    kase->sources = string_list(doc, member(object, "source"), &kase->source_count);
    const char *base64 = text_of(r, object, "input_base64", "case", false);
    if (base64 != NULL) {
        size_t len = 0;
        unsigned char *raw = gt_report_base64_decode(base64, &len);
        if (raw == NULL)
            bad_field(r, "case", "input_base64", "base64");
        else {
            unsigned char *copy = (unsigned char *)gt_arena_strndup(doc->arena, (const char *)raw, len);
            free(raw);
            kase->input.raw = copy;
            kase->input.raw_len = len;
        }
    }
    gt_accounting_init(&kase->expect.accounting);
    read_expected(r, member(object, "expected"), &kase->expect);
    read_observed(r, member(object, "observed"), &result->observed);
    const cJSON *outcome = member(object, "outcome");
    int value = cJSON_IsString(outcome) ? outcome_of(outcome->valuestring) : -1;
    if (value < 0)
        bad_field(r, "case", "outcome", "\"pass\", \"fail\", \"error\" or \"skip\"");
    result->outcome = value < 0 ? GT_OUTCOME_ERROR : (gt_outcome)value;
    read_case_profiles(r, object, kase);
    const char *verdict_class = text_of(r, object, "class", "case", false);
    int class_value = verdict_class ? gt_class_from_name(verdict_class) : -1;
    if (verdict_class != NULL && (class_value < 0 || class_value == GT_CLASS_NOT_APPLICABLE))
        bad_field(r, "case", "class", "a verdict class (pass, unsafe, refused_valid, figures, other_reason, error, skip)");
    result->verdict_class = class_value >= 0 ? (gt_class)class_value : GT_CLASS_PASS;
    result->verdict_class = gt_case_result_class(result);
    result->note = malloc_text_of(r, object, "note", "case");
    result->elapsed_ms = number_of(r, object, "elapsed_ms", "case", 0);
}

static void read_info(reader *r, const cJSON *root)
{
    gt_report_doc *doc = r->doc;
    gt_report_info *info = &doc->info;
    info->command = text_of(r, root, "command", "", false);
    const cJSON *corpus = member(root, "corpus");
    if (cJSON_IsObject(corpus)) {
        info->corpus_version = text_of(r, corpus, "version", "corpus", false);
        info->corpus_sha256 = text_of(r, corpus, "sha256", "corpus", false);
        info->corpus_cases = (size_t)whole_of(r, corpus, "cases", "corpus", 0, 0, READ_MAX_COUNT);
        info->selected_cases = (size_t)whole_of(r, corpus, "selected", "corpus", 0, 0, READ_MAX_COUNT);
        const cJSON *by_profiles = member(corpus, "required_by_profiles");
        if (cJSON_IsObject(by_profiles)) {
            info->profiles_known = true;
            for (const cJSON *entry = by_profiles->child; entry != NULL; entry = entry->next) {
                unsigned mask = 0;
                char err[256];
                if (entry->string == NULL || gt_profiles_parse(entry->string, &mask, err, sizeof err) != 0 ||
                    !cJSON_IsNumber(entry) || entry->valuedouble < 0 || entry->valuedouble > READ_MAX_COUNT) {
                    bad_field(r, "corpus", "required_by_profiles", "{\"profile,...\": count}");
                    break;
                }
                info->required_by_profiles[mask & GT_PROFILES_ALL] += (size_t)entry->valuedouble;
            }
        } else if (by_profiles != NULL && !cJSON_IsNull(by_profiles))
            bad_field(r, "corpus", "required_by_profiles", "an object or null");
    }
    const cJSON *shard = member(root, "shard");
    if (cJSON_IsObject(shard)) {
        info->shard_index = (unsigned)whole_of(r, shard, "index", "shard", 0, 0, UINT_MAX);
        info->shard_count = (unsigned)whole_of(r, shard, "count", "shard", 0, 0, UINT_MAX);
        if (info->shard_index == 0 || info->shard_index > info->shard_count)
            bad_field(r, "", "shard", "a valid {index, count} (1 <= index <= count)");
    }
    const cJSON *problems = member(root, "problems");
    if (cJSON_IsArray(problems)) {
        size_t count = (size_t)cJSON_GetArraySize(problems);
        gt_load_problem *list = gt_arena_alloc(doc->arena, (count ? count : 1) * sizeof *list);
        size_t i = 0;
        for (const cJSON *p = problems->child; list != NULL && p != NULL; p = p->next, i++) {
            list[i].file = text_of(r, p, "file", "problems[]", true);
            list[i].line = (unsigned)whole_of(r, p, "line", "problems[]", 0, 0, UINT_MAX);
            list[i].field = text_of(r, p, "field", "problems[]", true);
            list[i].message = text_of(r, p, "message", "problems[]", true);
        }
        info->problems = list;
        info->problem_count = list ? count : 0;
    }
}

gt_report_doc *gt_report_doc_new(size_t count)
{
    gt_report_doc *doc = calloc(1, sizeof *doc);
    if (doc == NULL)
        return NULL;
    doc->arena = gt_arena_new();
    doc->cases = calloc(count ? count : 1, sizeof *doc->cases);
    doc->indices = calloc(count ? count : 1, sizeof *doc->indices);
    doc->run.results = calloc(count ? count : 1, sizeof *doc->run.results);
    doc->run.count = count;
    if (doc->arena == NULL || doc->cases == NULL || doc->indices == NULL || doc->run.results == NULL) {
        gt_report_doc_free(doc);
        return NULL;
    }
    return doc;
}

gt_report_doc *gt_report_load_text(const char *name, const char *text, size_t len, char *err, size_t err_len)
{
    cJSON *root = cJSON_ParseWithLength(text, len);
    if (root == NULL) { /* where it breaks: a truncated report ends early */
        gt_arena *arena = gt_arena_new();
        gt_parse_options options;
        gt_parse_options_init(&options);
        options.rfc8259 = true;
        options.max_bytes = len + 1;
        options.max_depth = 100000;
        gt_parse_error perr;
        memset(&perr, 0, sizeof perr);
        if (arena != NULL && gt_parse(arena, text, len, &options, &perr) == NULL)
            fail(err, err_len, "%s: not JSON at line %u, column %u (byte %zu of %zu): %s", name, perr.line,
                 perr.column, perr.offset, len, perr.message);
        else
            fail(err, err_len, "%s: not JSON (a gauntlet JSON report is expected)", name);
        gt_arena_free(arena);
        return NULL;
    }
    if (!cJSON_IsObject(root)) {
        fail(err, err_len, "%s: not a JSON object (a gauntlet JSON report is expected)", name);
        cJSON_Delete(root);
        return NULL;
    }
    const cJSON *format = member(root, "format");
    if (!cJSON_IsString(format) || strcmp(format->valuestring, GT_REPORT_JSON_FORMAT) != 0) {
        fail(err, err_len, "%s: format is not \"%s\"", name, GT_REPORT_JSON_FORMAT);
        cJSON_Delete(root);
        return NULL;
    }
    const cJSON *cases = member(root, "cases");
    if (!cJSON_IsArray(cases)) {
        fail(err, err_len, "%s: cases is not an array", name);
        cJSON_Delete(root);
        return NULL;
    }
    const cJSON *not_applicable = member(root, "not_applicable");
    size_t applicable_count = (size_t)cJSON_GetArraySize(cases);
    size_t not_applicable_count = cJSON_IsArray(not_applicable) ? (size_t)cJSON_GetArraySize(not_applicable) : 0;
    gt_report_doc *doc = gt_report_doc_new(applicable_count + not_applicable_count);
    if (doc == NULL) {
        fail(err, err_len, "%s: out of memory", name);
        cJSON_Delete(root);
        return NULL;
    }
    reader r = {doc, name, err, err_len, false};
    doc->run.target = malloc_text_of(&r, root, "target", "");
    doc->run.target_name = malloc_text_of(&r, root, "target_name", "");
    const char *started = text_of(&r, root, "started_at", "", false);
    snprintf(doc->run.started_at, sizeof doc->run.started_at, "%s", started ? started : "");
    doc->run.elapsed_ms = number_of(&r, root, "elapsed_ms", "", 0);
    doc->run.jobs = (unsigned)whole_of(&r, root, "jobs", "", 1, 0, UINT_MAX);
    read_info(&r, root);
    const cJSON *profiles = member(root, "profiles");
    doc->run.profiles = cJSON_IsObject(profiles) ? profiles_of(&r, member(profiles, "claimed"), "profiles", "claimed")
                                                 : GT_PROFILES_ALL; /* written before profiles: judged on everything */
    if (not_applicable != NULL && !cJSON_IsNull(not_applicable) && !cJSON_IsArray(not_applicable))
        bad_field(&r, "", "not_applicable", "an array");
    size_t position = 0;
    for (const cJSON *item = cases->child; item != NULL && !r.bad; item = item->next)
        read_case(&r, item, position++);
    for (const cJSON *item = not_applicable_count ? not_applicable->child : NULL; item != NULL && !r.bad;
         item = item->next)
        read_not_applicable(&r, item, position++);
    cJSON_Delete(root);
    if (!r.bad && !sort_by_index(doc))
        fail(err, err_len, "%s: out of memory", name), r.bad = true;
    if (r.bad) {
        gt_report_doc_free(doc);
        return NULL;
    }
    return doc;
}

gt_report_doc *gt_report_load(const char *path, char *err, size_t err_len)
{
    /* a report is read whole, up to GT_READ_FILE_MAX_BYTES (checked before
     * and while reading); a FIFO or a device is refused, never waited on */
    char why[512];
    size_t len = 0;
    char *text = gt_read_file(path, &len, why, sizeof why);
    if (text == NULL) {
        const char *after = strncmp(why, path, strlen(path)) == 0 && why[strlen(path)] == ':' ? why + strlen(path) + 2
                                                                                               : why;
        if (strncmp(after, "larger than", 11) == 0 || strncmp(after, "is not a regular", 16) == 0 ||
            strncmp(after, "out of memory", 13) == 0)
            fail(err, err_len, "%s: %s", path, after);
        else
            fail(err, err_len, "cannot open '%s': %s", path, after);
        return NULL;
    }
    gt_report_doc *doc = gt_report_load_text(path, text, len, err, err_len);
    free(text);
    return doc;
}

void gt_report_doc_free(gt_report_doc *doc)
{
    if (doc == NULL)
        return;
    gt_run_clear(&doc->run);
    free(doc->cases);
    free(doc->indices);
    free(doc->problems);
    free(doc->command);
    gt_arena_free(doc->arena);
    free(doc);
}

const gt_run *gt_report_doc_run(const gt_report_doc *doc)
{
    return &doc->run;
}

const gt_report_info *gt_report_doc_info(const gt_report_doc *doc)
{
    return &doc->info;
}
