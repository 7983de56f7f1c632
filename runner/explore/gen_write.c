/* gen_write.c — the generator's output: the corpus folder (schema.json,
 * rules.json, one case file per family) and the --report JSON
 * (docs/explore.md). Expectations are the reference's observations. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gauntlet/parse.h"
#include "gauntlet/util.h"
#include "gen_impl.h"

/* ---- output ---- */

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Is candidate `i` written (gt_gen_write_corpus's `keep`)? */
static bool is_written(const gt_gen *gen, const bool *keep, size_t i)
{
    return keep ? keep[i] : gen->cases[i].confirmed && !gen->cases[i].dropped;
}

const char **gt_gen_rules_used(const gt_gen *gen, const bool *keep, size_t *count)
{
    size_t total = 0;
    for (size_t i = 0; i < gen->count; i++)
        total += gen->cases[i].rule_count;
    const char **ids = calloc(total + 1, sizeof *ids);
    if (ids == NULL)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; i < gen->count; i++)
        for (size_t r = 0; is_written(gen, keep, i) && r < gen->cases[i].rule_count; r++)
            ids[n++] = gen->cases[i].rules[r];
    qsort(ids, n, sizeof *ids, compare_strings);
    size_t unique = 0;
    for (size_t i = 0; i < n; i++)
        if (unique == 0 || strcmp(ids[unique - 1], ids[i]) != 0)
            ids[unique++] = ids[i];
    ids[unique] = NULL;
    *count = unique;
    return ids;
}

static cJSON *expectation(const gt_gen_case *kase)
{
    const gt_observed *seen = &kase->reference;
    cJSON *expect = cJSON_CreateObject();
    cJSON_AddStringToObject(expect, "verdict", seen->verdict == GT_VERDICT_ACCEPT ? "accept" : "reject");
    if (seen->verdict == GT_VERDICT_REJECT) {
        cJSON_AddStringToObject(expect, "gate", seen->gate);
        cJSON_AddStringToObject(expect, "reason", seen->reason);
    }
    if (seen->verdict == GT_VERDICT_REJECT && strcmp(seen->gate, "structure") == 0 && kase->script_json == NULL) {
        cJSON *errors = cJSON_AddArrayToObject(expect, "errors");
        for (size_t i = 0; i < seen->error_count; i++) {
            cJSON *error = cJSON_CreateObject();
            cJSON_AddStringToObject(error, "path", seen->errors[i].path ? seen->errors[i].path : "");
            cJSON_AddStringToObject(error, "keyword", seen->errors[i].keyword ? seen->errors[i].keyword : "");
            cJSON_AddItemToArray(errors, error);
        }
    }
    if (seen->subtype != NULL)
        cJSON_AddStringToObject(expect, "subtype", seen->subtype);
    if (seen->has_accounting && kase->script_json != NULL) {
        const gt_accounting *a = &seen->accounting;
        cJSON *accounting = cJSON_AddObjectToObject(expect, "accounting");
        const struct {
            const char *name;
            int value;
        } figures[] = {{"attempts_used", a->attempts_used}, {"attempts_limit", a->attempts_limit},
                       {"retracted", a->retracted},         {"enforce_messages", a->enforce_messages},
                       {"api_attempts", a->api_attempts},   {"model_calls", a->model_calls}};
        for (size_t i = 0; i < sizeof figures / sizeof figures[0]; i++)
            if (figures[i].value >= 0)
                cJSON_AddNumberToObject(accounting, figures[i].name, figures[i].value);
    }
    return expect;
}

static void add_input(cJSON *object, const gt_gen_case *kase)
{
    if (kase->raw == NULL)
        return;
    bool text = gt_utf8_valid((const char *)kase->raw, kase->raw_len) && memchr(kase->raw, 0, kase->raw_len) == NULL;
    if (text) {
        cJSON_AddStringToObject(object, "input", (const char *)kase->raw);
    } else {
        char *encoded = gt_base64_encode(kase->raw, kase->raw_len);
        cJSON_AddStringToObject(object, "input_base64", encoded ? encoded : "");
        free(encoded);
    }
}

static cJSON *case_object(const gt_gen_case *kase)
{
    cJSON *object = cJSON_CreateObject();
    cJSON_AddStringToObject(object, "id", kase->id);
    cJSON_AddStringToObject(object, "gate", kase->gate);
    char category[64];
    snprintf(category, sizeof category, "%.*s", (int)strcspn(kase->ops, "+"), kase->ops);
    cJSON_AddStringToObject(object, "category", category);
    cJSON *tags = cJSON_AddArrayToObject(object, "tags");
    cJSON_AddItemToArray(tags, cJSON_CreateString("gen"));
    for (const char *op = kase->ops; *op;) {
        size_t len = strcspn(op, "+");
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)len, op);
        cJSON_AddItemToArray(tags, cJSON_CreateString(name));
        op += len + (op[len] == '+');
    }
    if (kase->description != NULL)
        cJSON_AddStringToObject(object, "description", kase->description);
    cJSON *rules = cJSON_AddArrayToObject(object, "rules");
    for (size_t r = 0; r < kase->rule_count; r++)
        cJSON_AddItemToArray(rules, cJSON_CreateString(kase->rules[r]));
    add_input(object, kase);
    if (kase->script_json != NULL)
        cJSON_AddItemToObject(object, "script", cJSON_Parse(kase->script_json));
    cJSON_AddItemToObject(object, "expect", expectation(kase));
    return object;
}

static int write_json_file(const char *path, const cJSON *value, char *err, size_t err_len)
{
    char *text = cJSON_Print(value);
    FILE *out = text ? fopen(path, "w") : NULL;
    bool ok = out != NULL && fputs(text, out) >= 0 && fputc('\n', out) != EOF;
    if (out != NULL && fclose(out) != 0)
        ok = false;
    free(text);
    if (!ok)
        snprintf(err, err_len, "%s: cannot write: %s", path, strerror(errno ? errno : ENOMEM));
    return ok ? 0 : -1;
}

/* Copy one file into `dir` under `name`. */
static int copy_file(const char *from, const char *dir, const char *name, char *err, size_t err_len)
{
    size_t len;
    char *text = gt_read_file(from, &len, err, err_len);
    if (text == NULL)
        return -1;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *out = fopen(path, "wb");
    bool ok = out != NULL && fwrite(text, 1, len, out) == len;
    if (out != NULL && fclose(out) != 0)
        ok = false;
    free(text);
    if (!ok)
        snprintf(err, err_len, "%s: cannot write: %s", path, strerror(errno));
    return ok ? 0 : -1;
}

/* Copy every *.json below `from` into `dir`, flattened (a/b.json becomes
 * PREFIXa-b.json: the loader registers documents by $id, not by name). */
static int copy_json_tree(const char *from, const char *dir, const char *prefix, int depth, char *err, size_t err_len)
{
    DIR *folder = opendir(from);
    if (folder == NULL) {
        snprintf(err, err_len, "%s: %s", from, strerror(errno));
        return -1;
    }
    int status = 0;
    for (struct dirent *entry; status == 0 && (entry = readdir(folder)) != NULL;) {
        if (entry->d_name[0] == '.')
            continue;
        char path[4096], name[1024];
        snprintf(path, sizeof path, "%s/%s", from, entry->d_name);
        snprintf(name, sizeof name, "%s%s", prefix, entry->d_name);
        struct stat info;
        if (stat(path, &info) != 0)
            continue;
        size_t len = strlen(entry->d_name);
        if (S_ISDIR(info.st_mode) && depth < 8) {
            char deeper[1100];
            snprintf(deeper, sizeof deeper, "%s-", name);
            status = copy_json_tree(path, dir, deeper, depth + 1, err, err_len);
        } else if (S_ISREG(info.st_mode) && len > 5 && strcmp(entry->d_name + len - 5, ".json") == 0) {
            status = copy_file(path, dir, name, err, err_len);
        }
    }
    closedir(folder);
    return status;
}

/* The --ref files and --ref-dir folders, into DIR/schemas/. */
static int copy_refs(const gt_gen *gen, const char *dir, char *err, size_t err_len)
{
    if (gen->options.ref_count == 0)
        return 0;
    char schemas[4096];
    snprintf(schemas, sizeof schemas, "%s/schemas", dir);
    if (mkdir(schemas, 0777) != 0 && errno != EEXIST) {
        snprintf(err, err_len, "%s: cannot create the directory: %s", schemas, strerror(errno));
        return -1;
    }
    for (size_t i = 0; i < gen->options.ref_count; i++) {
        const char *path = gen->options.ref_paths[i];
        struct stat info;
        if (stat(path, &info) != 0) {
            snprintf(err, err_len, "%s: %s", path, strerror(errno));
            return -1;
        }
        char prefix[64];
        snprintf(prefix, sizeof prefix, "ref%zu-", i + 1);
        const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        char name[1024];
        snprintf(name, sizeof name, "%s%s", prefix, base);
        int status = S_ISDIR(info.st_mode) ? copy_json_tree(path, schemas, prefix, 0, err, err_len)
                                           : copy_file(path, schemas, name, err, err_len);
        if (status != 0)
            return -1;
    }
    return 0;
}

#define GEN_RULES_DESCRIPTION "the rules the generated cases probe (from gauntlet's rules.json)"
#define GEN_FILE_DESCRIPTION_PREFIX "gauntlet gen: "

/* Was the JSON file `path` written by gauntlet gen (its description)? */
static bool written_by_gen(const char *path, bool rules)
{
    char err[256];
    size_t len;
    char *text = gt_read_file(path, &len, err, sizeof err);
    cJSON *doc = text ? cJSON_ParseWithLength(text, len) : NULL;
    free(text);
    const char *description = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "description"));
    bool ours = description != NULL && (rules ? strcmp(description, GEN_RULES_DESCRIPTION) == 0
                                              : strncmp(description, GEN_FILE_DESCRIPTION_PREFIX,
                                                        strlen(GEN_FILE_DESCRIPTION_PREFIX)) == 0);
    cJSON_Delete(doc);
    return ours;
}

int gt_gen_check_out_dir(const char *dir, bool no_cases, char *err, size_t err_len)
{
    DIR *folder = opendir(dir);
    if (folder == NULL)
        return 0; /* missing (created), or not a folder (the write says so) */
    int status = 0;
    for (struct dirent *entry; status == 0 && (entry = readdir(folder)) != NULL;) {
        const char *name = entry->d_name;
        size_t len = strlen(name);
        bool cases = len > 11 && strcmp(name + len - 11, ".cases.json") == 0;
        bool rules = strcmp(name, "rules.json") == 0;
        if (!cases && !rules && strcmp(name, "schema.json") != 0)
            continue;
        char path[4096], rules_path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        snprintf(rules_path, sizeof rules_path, "%s/rules.json", dir);
        if (cases && no_cases) {
            snprintf(err, err_len, "%s already holds %s (an earlier case would be lost): give a new or empty folder",
                     dir, name);
            status = -1;
        } else if (!written_by_gen(cases ? path : rules_path, !cases)) {
            snprintf(err, err_len,
                     "%s holds %s, which gauntlet gen did not write: give a new or empty folder",
                     dir, cases ? name : rules ? name : "schema.json without gauntlet gen's rules.json");
            status = -1;
        }
    }
    closedir(folder);
    return status;
}

int gt_gen_write_corpus(const gt_gen *gen, const char *dir, const bool *keep, const struct gt_rule *rules,
                        size_t rule_count, char *err, size_t err_len)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        snprintf(err, err_len, "%s: cannot create the directory: %s", dir, strerror(errno));
        return -1;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/schema.json", dir);
    FILE *out = fopen(path, "w");
    if (out == NULL || fputs(gen->schema_text, out) < 0 || fclose(out) != 0) {
        snprintf(err, err_len, "%s: cannot write: %s", path, strerror(errno));
        return -1;
    }
    if (copy_refs(gen, dir, err, err_len) != 0)
        return -1;
    /* the rules the written cases name, with their statements */
    cJSON *list = cJSON_CreateObject();
    cJSON_AddStringToObject(list, "format", GT_CORPUS_RULES_FORMAT);
    cJSON_AddStringToObject(list, "description", GEN_RULES_DESCRIPTION);
    cJSON *items = cJSON_AddArrayToObject(list, "rules");
    size_t used_count = 0;
    const char **used = gt_gen_rules_used(gen, keep, &used_count);
    for (size_t u = 0; used != NULL && u < used_count; u++) {
        const struct gt_rule *rule = NULL;
        for (size_t r = 0; r < rule_count && rule == NULL; r++)
            if (strcmp(rules[r].id, used[u]) == 0)
                rule = &rules[r];
        if (rule == NULL) {
            snprintf(err, err_len, "rule id '%s' is not in gauntlet's rules.json", used[u]);
            free(used);
            cJSON_Delete(list);
            return -1;
        }
        cJSON *item = cJSON_CreateObject();
        cJSON_AddStringToObject(item, "id", rule->id);
        if (rule->source != NULL)
            cJSON_AddStringToObject(item, "source", rule->source);
        cJSON_AddStringToObject(item, "statement", rule->statement);
        cJSON_AddItemToArray(items, item);
    }
    free(used);
    snprintf(path, sizeof path, "%s/rules.json", dir);
    int status = write_json_file(path, list, err, err_len);
    cJSON_Delete(list);
    static const char *const families[] = {"valid", "syntax", "structure", "loop"};
    for (size_t f = 0; status == 0 && f < 4; f++) {
        cJSON *file = cJSON_CreateObject();
        cJSON_AddStringToObject(file, "format", GT_CORPUS_FORMAT);
        char *description = gen_format_text(GEN_FILE_DESCRIPTION_PREFIX "%s cases for %s (seed %llu)", families[f],
                                            gen->options.origin, (unsigned long long)gen->options.seed);
        cJSON_AddStringToObject(file, "description", description ? description : "gauntlet gen");
        free(description);
        if (f < 3) {
            cJSON *defaults = cJSON_AddObjectToObject(file, "defaults");
            cJSON_AddStringToObject(defaults, "schema_file", "schema.json");
            if (gen->options.formats)
                cJSON_AddBoolToObject(defaults, "formats", true);
        }
        cJSON *cases = cJSON_AddArrayToObject(file, "cases");
        size_t written = 0;
        for (size_t i = 0; i < gen->count; i++) {
            const gt_gen_case *kase = &gen->cases[i];
            if (!is_written(gen, keep, i) || strcmp(kase->family, families[f]) != 0)
                continue;
            cJSON_AddItemToArray(cases, case_object(kase));
            written++;
        }
        snprintf(path, sizeof path, "%s/%s.cases.json", dir, families[f]);
        if (written > 0)
            status = write_json_file(path, file, err, err_len);
        else
            remove(path); /* a file left by an earlier run with other options */
        cJSON_Delete(file);
    }
    return status;
}

int gt_gen_write_report(const gt_gen *gen, const char *path, char *err, size_t err_len)
{
    cJSON *report = cJSON_CreateObject();
    cJSON_AddStringToObject(report, "format", "gauntlet-gen-report/1");
    cJSON_AddStringToObject(report, "schema", gen->options.origin);
    cJSON_AddNumberToObject(report, "seed", (double)gen->options.seed);
    size_t confirmed = 0, kept = 0;
    for (size_t i = 0; i < gen->count; i++) {
        confirmed += gen->cases[i].confirmed;
        kept += gen->cases[i].confirmed && !gen->cases[i].dropped;
    }
    cJSON_AddNumberToObject(report, "candidates", (double)gen->count);
    cJSON_AddNumberToObject(report, "cases", (double)kept);
    cJSON_AddNumberToObject(report, "capped", (double)(confirmed - kept));
    cJSON_AddNumberToObject(report, "ambiguous", (double)(gen->count - confirmed));
    if (gen->note != NULL)
        cJSON_AddStringToObject(report, "synthesis", gen->note);
    cJSON *operators = cJSON_AddArrayToObject(report, "operators");
    for (size_t i = 0; i < gen->count; i++) {
        const gt_gen_case *kase = &gen->cases[i];
        cJSON *row = NULL, *item;
        cJSON_ArrayForEach(item, operators) if (strcmp(cJSON_GetObjectItem(item, "operator")->valuestring, kase->ops) ==
                                                0) row = item;
        if (row == NULL) {
            row = cJSON_CreateObject();
            cJSON_AddStringToObject(row, "operator", kase->ops);
            cJSON_AddStringToObject(row, "family", kase->family);
            cJSON *ids = cJSON_AddArrayToObject(row, "rules");
            for (size_t r = 0; r < kase->rule_count; r++)
                cJSON_AddItemToArray(ids, cJSON_CreateString(kase->rules[r]));
            cJSON_AddNumberToObject(row, "cases", 0);
            cJSON_AddNumberToObject(row, "ambiguous", 0);
            cJSON_AddItemToArray(operators, row);
        }
        cJSON *counter = cJSON_GetObjectItem(row, kase->confirmed ? "cases" : "ambiguous");
        if (!kase->confirmed || !kase->dropped)
            cJSON_SetNumberValue(counter, counter->valuedouble + 1);
    }
    cJSON *ambiguous = cJSON_AddArrayToObject(report, "ambiguous_candidates");
    for (size_t i = 0; i < gen->count; i++) {
        const gt_gen_case *kase = &gen->cases[i];
        if (kase->confirmed)
            continue;
        cJSON *row = cJSON_CreateObject();
        cJSON_AddStringToObject(row, "id", kase->id);
        cJSON_AddStringToObject(row, "operator", kase->ops);
        cJSON_AddStringToObject(row, "path", kase->path);
        if (kase->description)
            cJSON_AddStringToObject(row, "description", kase->description);
        char text[200];
        gt_gen_outcome_text(kase->want_verdict, kase->want_gate, kase->want_reason ? kase->want_reason : "*", text,
                            sizeof text);
        cJSON_AddStringToObject(row, "intended", text);
        const gt_observed *seen = &kase->reference;
        gt_gen_outcome_text(seen->verdict, seen->gate, seen->reason, text, sizeof text);
        cJSON_AddStringToObject(row, "reference", text);
        if (seen->error_count > 0)
            cJSON_AddStringToObject(row, "reference_error_path", seen->errors[0].path ? seen->errors[0].path : "");
        if (seen->message != NULL)
            cJSON_AddStringToObject(row, "reference_message", seen->message);
        add_input(row, kase);
        if (kase->script_json != NULL)
            cJSON_AddItemToObject(row, "script", cJSON_Parse(kase->script_json));
        cJSON_AddItemToArray(ambiguous, row);
    }
    int status = write_json_file(path, report, err, err_len);
    cJSON_Delete(report);
    return status;
}
