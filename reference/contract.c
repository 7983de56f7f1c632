/* contract.c — contract versions, the support-triage v1 -> v2 adapter, the
 * compatibility window and the trace record; see contract.h. */
#include "gauntlet/contract.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gt_contract_ref_parse(const char *text, gt_contract_ref *out)
{
    memset(out, 0, sizeof *out);
    if (text == NULL)
        return -1;
    const char *dash = strrchr(text, '-');
    if (dash == NULL || dash == text || dash[1] != 'v' || !isdigit((unsigned char)dash[2]) || dash[2] == '0')
        return -1;
    size_t name_len = (size_t)(dash - text);
    if (name_len >= sizeof out->name)
        return -1;
    unsigned long version = 0;
    for (const char *p = dash + 2; *p; p++) {
        if (!isdigit((unsigned char)*p) || version > 100000)
            return -1;
        version = version * 10 + (unsigned long)(*p - '0');
    }
    for (size_t i = 0; i < name_len; i++)
        if (!(islower((unsigned char)text[i]) || isdigit((unsigned char)text[i]) || text[i] == '-' || text[i] == '_'))
            return -1;
    memcpy(out->name, text, name_len);
    out->version = (unsigned)version;
    return 0;
}

void gt_contract_ref_format(const gt_contract_ref *ref, char *out, size_t out_len)
{
    snprintf(out, out_len, "%s-v%u", ref->name, ref->version);
}

/* ---- the built-in adapter ------------------------------------------------- */

int gt_contract_support_triage_v1_to_v2(gt_arena *arena, const gt_value *older, gt_value **newer, char *message,
                                        size_t message_len)
{
    if (older == NULL || older->type != GT_OBJECT) {
        snprintf(message, message_len, "a support-triage-v1 output must be an object");
        return -1;
    }
    const gt_value *priority = gt_value_get(older, "priority", 8);
    if (priority == NULL || !gt_value_is_integer(priority) || priority->u.num.number < 1 ||
        priority->u.num.number > 5) {
        snprintf(message, message_len, "priority must be an integer from 1 through 5 to map to severity");
        return -1;
    }
    int level = (int)priority->u.num.number;
    const char *severity = level <= 2 ? "low" : level == 3 ? "medium" : "high";
    gt_value *object = gt_value_new_object(arena);
    gt_value *version = gt_value_new_string(arena, "support-triage-v2", 17);
    if (object == NULL || version == NULL)
        goto out_of_memory;
    if (gt_value_object_append(arena, object, GT_CONTRACT_VERSION_FIELD, strlen(GT_CONTRACT_VERSION_FIELD),
                               version) != 0)
        goto out_of_memory;
    for (size_t i = 0; i < older->u.obj.count; i++) {
        const gt_member *m = &older->u.obj.members[i];
        if (m->key_len == strlen(GT_CONTRACT_VERSION_FIELD) &&
            memcmp(m->key, GT_CONTRACT_VERSION_FIELD, m->key_len) == 0)
            continue;
        if (m->key_len == 8 && memcmp(m->key, "priority", 8) == 0) {
            gt_value *mapped = gt_value_new_string(arena, severity, strlen(severity));
            if (mapped == NULL || gt_value_object_append(arena, object, "severity", 8, mapped) != 0)
                goto out_of_memory;
            continue;
        }
        if (gt_value_object_append(arena, object, m->key, m->key_len, m->value) != 0)
            goto out_of_memory;
    }
    *newer = object;
    return 0;
out_of_memory:
    snprintf(message, message_len, "out of memory");
    return -1;
}

static const gt_contract_adapter builtin_adapters[] = {
    {"support-triage", 1, gt_contract_support_triage_v1_to_v2},
};

const gt_contract_adapter *gt_contract_builtin_adapters(size_t *count)
{
    *count = sizeof builtin_adapters / sizeof builtin_adapters[0];
    return builtin_adapters;
}

/* support-triage-v2, the current internal type (identical to
 * corpus/schemas/support-triage-v2.json; suite/test_contract.c checks that). */
static const char support_triage_v2_schema[] =
    "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"$id\":\"support-triage-v2\",\"descr"
    "iption\":\"Seed 002's triage contract, version 2: priority 1..5 became severity low/medium/h"
    "igh, the output names its contract_version, and evidence_ids is a bounded array of bounded"
    " strings. The reference's built-in copy (reference/contract.c) must stay identical; suite/"
    "test_contract.c checks that.\",\"type\":\"object\",\"required\":[\"contract_version\",\"category\",\"s"
    "everity\",\"summary\",\"needs_human\"],\"additionalProperties\":false,\"properties\":{\"contract_ver"
    "sion\":{\"const\":\"support-triage-v2\"},\"category\":{\"type\":\"string\",\"enum\":[\"billing\",\"bug\",\"a"
    "ccount\",\"other\"]},\"severity\":{\"type\":\"string\",\"enum\":[\"low\",\"medium\",\"high\"]},\"summary\":{\""
    "type\":\"string\",\"minLength\":1,\"maxLength\":240},\"needs_human\":{\"type\":\"boolean\"},\"uncertaint"
    "y\":{\"type\":\"string\",\"enum\":[\"low\",\"medium\",\"high\"]},\"evidence_ids\":{\"type\":\"array\",\"maxIte"
    "ms\":5,\"uniqueItems\":true,\"items\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":64}}}}";

const char *gt_contract_builtin_schema(const char *name, unsigned version)
{
    if (name != NULL && strcmp(name, "support-triage") == 0 && version == 2)
        return support_triage_v2_schema;
    return NULL;
}

/* ---- declarations --------------------------------------------------------- */

static bool is_date(const char *text, size_t len)
{
    if (len != 10)
        return false;
    for (size_t i = 0; i < 10; i++)
        if (i == 4 || i == 7 ? text[i] != '-' : !isdigit((unsigned char)text[i]))
            return false;
    int month = (text[5] - '0') * 10 + (text[6] - '0'), day = (text[8] - '0') * 10 + (text[9] - '0');
    return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

static int load_problem(gt_contract_problem *problem, const char *location, const char *message)
{
    if (problem != NULL) {
        snprintf(problem->location, sizeof problem->location, "%s", location);
        snprintf(problem->message, sizeof problem->message, "%s", message);
    }
    return -1;
}

static bool version_number(const gt_value *value, unsigned *out)
{
    if (value == NULL || !gt_value_is_integer(value) || value->u.num.number < 1 || value->u.num.number > 100000)
        return false;
    *out = (unsigned)value->u.num.number;
    return true;
}

int gt_contract_load(const gt_value *declaration, gt_contract *out, gt_contract_problem *problem)
{
    memset(out, 0, sizeof *out);
    if (declaration == NULL || declaration->type != GT_OBJECT)
        return load_problem(problem, "", "a contract declaration must be an object {\"name\", \"current\", ...}");
    static const char *const known[] = {"name", "current", "oldest_accepted", "accept_until", "current_schema",
                                        "description"};
    for (size_t i = 0; i < declaration->u.obj.count; i++) {
        bool ok = false;
        for (size_t j = 0; j < sizeof known / sizeof known[0] && !ok; j++)
            ok = strcmp(declaration->u.obj.members[i].key, known[j]) == 0;
        if (!ok)
            return load_problem(problem, "", "unknown member in the contract declaration");
    }
    const gt_value *name = gt_value_get(declaration, "name", 4);
    if (name == NULL || name->type != GT_STRING || name->u.str.len == 0 || name->u.str.len >= sizeof out->name ||
        strlen(name->u.str.chars) != name->u.str.len)
        return load_problem(problem, "/name", "\"name\" must be a contract name such as \"support-triage\"");
    memcpy(out->name, name->u.str.chars, name->u.str.len + 1);
    if (!version_number(gt_value_get(declaration, "current", 7), &out->current))
        return load_problem(problem, "/current", "\"current\" must be a version number from 1");
    out->oldest_accepted = out->current;
    const gt_value *oldest = gt_value_get(declaration, "oldest_accepted", 15);
    if (oldest != NULL && (!version_number(oldest, &out->oldest_accepted) || out->oldest_accepted > out->current))
        return load_problem(problem, "/oldest_accepted", "\"oldest_accepted\" must be a version from 1 to current");
    const gt_value *until = gt_value_get(declaration, "accept_until", 12);
    if (until != NULL) {
        if (until->type != GT_STRING || !is_date(until->u.str.chars, until->u.str.len))
            return load_problem(problem, "/accept_until", "\"accept_until\" must be a date \"YYYY-MM-DD\"");
        memcpy(out->accept_until, until->u.str.chars, 11);
    }
    const gt_value *schema = gt_value_get(declaration, "current_schema", 14);
    const char *builtin = gt_contract_builtin_schema(out->name, out->current);
    gt_schema_problem schema_problem;
    if (schema != NULL)
        out->current_schema = gt_schema_compile_value(schema, NULL, &schema_problem);
    else if (builtin != NULL)
        out->current_schema = gt_schema_compile(builtin, strlen(builtin), NULL, &schema_problem);
    if ((schema != NULL || builtin != NULL) && out->current_schema == NULL)
        return load_problem(problem, "/current_schema", schema_problem.message);
    return 0;
}

void gt_contract_clear(gt_contract *contract)
{
    gt_schema_free(contract->current_schema);
    contract->current_schema = NULL;
}

/* ---- upgrade -------------------------------------------------------------- */

static int reject(gt_contract_result *result, const char *reason)
{
    result->status = GT_CONTRACT_REJECTED;
    result->reason = reason;
    result->value = NULL;
    return 0;
}

static gt_contract_adapter_fn adapter_for(const char *name, unsigned from_version)
{
    size_t count = 0;
    const gt_contract_adapter *adapters = gt_contract_builtin_adapters(&count);
    for (size_t i = 0; i < count; i++)
        if (adapters[i].from_version == from_version && strcmp(adapters[i].name, name) == 0)
            return adapters[i].migrate;
    return NULL;
}

int gt_contract_upgrade(const gt_contract *contract, const gt_value *value, unsigned declared_version,
                        const char *today, gt_arena *arena, gt_contract_result *result)
{
    memset(result, 0, sizeof *result);
    unsigned version = declared_version;
    const gt_value *named = value != NULL && value->type == GT_OBJECT
                                ? gt_value_get(value, GT_CONTRACT_VERSION_FIELD, strlen(GT_CONTRACT_VERSION_FIELD))
                                : NULL;
    if (named != NULL) {
        gt_contract_ref ref;
        if (named->type != GT_STRING || strlen(named->u.str.chars) != named->u.str.len ||
            gt_contract_ref_parse(named->u.str.chars, &ref) != 0 || strcmp(ref.name, contract->name) != 0) {
            snprintf(result->message, sizeof result->message, "%s does not name a version of %s",
                     GT_CONTRACT_VERSION_FIELD, contract->name);
            return reject(result, GT_REASON_CONTRACT_VERSION_UNKNOWN);
        }
        version = ref.version;
    }
    result->from_version = version;
    if (version == 0) {
        snprintf(result->message, sizeof result->message,
                 "the output names no %s and the caller declared none", GT_CONTRACT_VERSION_FIELD);
        return reject(result, GT_REASON_CONTRACT_VERSION_UNKNOWN);
    }
    if (version > contract->current) {
        snprintf(result->message, sizeof result->message, "%s-v%u is not known (current is %s-v%u)", contract->name,
                 version, contract->name, contract->current);
        return reject(result, GT_REASON_CONTRACT_VERSION_UNKNOWN);
    }
    if (version == contract->current) {
        result->status = GT_CONTRACT_CURRENT;
        result->value = value;
        return 0;
    }
    if (version < contract->oldest_accepted) {
        snprintf(result->message, sizeof result->message,
                 "%s-v%u is outside the compatibility window (oldest accepted: v%u)", contract->name, version,
                 contract->oldest_accepted);
        return reject(result, GT_REASON_CONTRACT_VERSION_RETIRED);
    }
    if (contract->accept_until[0] != '\0' && today != NULL && strcmp(today, contract->accept_until) > 0) {
        snprintf(result->message, sizeof result->message, "%s-v%u was accepted until %s; today is %.10s",
                 contract->name, version, contract->accept_until, today);
        return reject(result, GT_REASON_CONTRACT_VERSION_RETIRED);
    }
    const gt_value *at = value;
    for (unsigned step = version; step < contract->current; step++) {
        gt_contract_adapter_fn migrate = adapter_for(contract->name, step);
        if (migrate == NULL) {
            snprintf(result->message, sizeof result->message, "no adapter migrates %s-v%u to v%u", contract->name,
                     step, step + 1);
            return reject(result, GT_REASON_CONTRACT_NO_ADAPTER);
        }
        gt_value *next = NULL;
        char why[160] = "";
        if (migrate(arena, at, &next, why, sizeof why) != 0) {
            if (strcmp(why, "out of memory") == 0)
                return -1;
            snprintf(result->message, sizeof result->message, "%s-v%u -> v%u: %s", contract->name, step, step + 1,
                     why);
            return reject(result, GT_REASON_CONTRACT_ADAPTER_FAILED);
        }
        at = next;
    }
    if (contract->current_schema != NULL) {
        gt_schema_errors errors;
        gt_schema_errors_init(&errors);
        gt_schema_result verdict = gt_schema_validate(contract->current_schema, at, &errors);
        /* a bound hit (schema_ref_cycle, evaluation_budget, ...) rejects with the
         * bound as the reason, as the structure gate does; only out of memory is an error */
        const char *limit = verdict == GT_SCHEMA_ERROR && gt_schema_failure_is_limit(errors.failure)
                                ? gt_schema_failure_code_str(errors.failure)
                                : NULL;
        if ((verdict == GT_SCHEMA_INVALID || limit != NULL) && errors.count > 0)
            snprintf(result->message, sizeof result->message, "the migrated value fails %s-v%u: %s: %s",
                     contract->name, contract->current, errors.items[0].instance_path_dollar, errors.items[0].message);
        gt_schema_errors_free(&errors);
        if (limit != NULL)
            return reject(result, limit);
        if (verdict == GT_SCHEMA_ERROR)
            return -1;
        if (verdict == GT_SCHEMA_INVALID)
            return reject(result, GT_REASON_CONTRACT_ADAPTER_INVALID);
    }
    result->status = GT_CONTRACT_MIGRATED;
    result->value = at;
    return 0;
}

/* ---- trace ---------------------------------------------------------------- */

static int trace_member(gt_arena *arena, gt_value *object, const char *key, const char *text)
{
    gt_value *item = text != NULL ? gt_value_new_string(arena, text, strlen(text)) : gt_value_new_null(arena);
    return item == NULL ? -1 : gt_value_object_append(arena, object, key, strlen(key), item);
}

char *gt_trace_to_json(const gt_trace *trace)
{
    gt_arena *arena = gt_arena_new();
    if (arena == NULL)
        return NULL;
    gt_value *object = gt_value_new_object(arena);
    char *json = NULL;
    if (object != NULL && trace_member(arena, object, "trace", "gauntlet-trace/1") == 0 &&
        trace_member(arena, object, "case", trace->case_id) == 0 &&
        trace_member(arena, object, "schema", trace->schema) == 0 &&
        trace_member(arena, object, "prompt_version", trace->prompt_version) == 0 &&
        trace_member(arena, object, "model", trace->model) == 0 &&
        trace_member(arena, object, "validator", trace->validator_version) == 0 &&
        trace_member(arena, object, "contract_in", trace->contract_in) == 0 &&
        trace_member(arena, object, "contract_out", trace->contract_out) == 0 &&
        trace_member(arena, object, "verdict", trace->verdict) == 0 &&
        trace_member(arena, object, "gate", trace->gate) == 0 &&
        trace_member(arena, object, "reason", trace->reason) == 0)
        json = gt_value_to_json(object, NULL);
    gt_arena_free(arena);
    return json;
}
