/* scenario.c — a loop script (docs/loop-scripts.md) as a mock scenario.
 *
 * The script format belongs to the loop layer and so does its parser
 * (gt_loop_script_load): this file only reads the mock's own additions
 * (per-turn `faults` and `expect_request`, a root `mock` object; see
 * docs/mock-server.md), strips them, and loads the clean script once: every
 * session plays that one script read-only from its own cursor, so a session
 * costs no copy of it. Not for: playing turns (server.c). */
#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gauntlet/loop.h"
#include "gauntlet/parse.h"
#include "gauntlet/value.h"
#include "mock_impl.h"

static char *dup_n(const char *text, size_t len)
{
    char *copy = malloc(len + 1);
    if (copy != NULL) {
        memcpy(copy, text, len);
        copy[len] = '\0';
    }
    return copy;
}

static char *dup_str(const char *text)
{
    return text ? dup_n(text, strlen(text)) : NULL;
}

static void fail(char *err, size_t err_len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
}

static const char *str_of(const cJSON *object, const char *key)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);
    return cJSON_IsString(item) ? item->valuestring : NULL;
}

static long num_of(const cJSON *object, const char *key, long fallback)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);
    return cJSON_IsNumber(item) ? (long)item->valuedouble : fallback;
}

static int bool_of(const cJSON *object, const char *key, int fallback)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);
    if (cJSON_IsBool(item))
        return cJSON_IsTrue(item) ? 1 : 0;
    return fallback;
}

static int clamp_delay(long ms)
{
    if (ms < 0)
        return -1;
    return ms > GT_MOCK_MAX_DELAY_MS ? GT_MOCK_MAX_DELAY_MS : (int)ms;
}

void mock_faults_init(mock_faults *faults)
{
    memset(faults, 0, sizeof *faults);
    faults->latency_ms = -1;
    faults->drip_bytes = -1;
    faults->drip_interval_ms = -1;
    faults->cut_after_bytes = -1;
    faults->cut_after_event = -1;
    faults->malformed_after_event = -1;
    faults->oversized_bytes = -1;
    faults->status = -1;
    faults->retry_after = -1;
}

bool mock_faults_any(const mock_faults *faults)
{
    return faults->latency_ms >= 0 || faults->drip_bytes > 0 || faults->cut_after_bytes >= 0 ||
           faults->cut_after_event >= 0 || faults->malformed_after_event >= 0 || faults->content_type ||
           faults->reset || faults->oversized_bytes > 0 || faults->status > 0 || faults->body ||
           faults->retry_after >= 0 || faults->no_request_id;
}

/* Read a `faults` object. Unknown keys are errors: a misspelt fault must not
 * silently turn into a passing test. */
int mock_faults_parse(const cJSON *json, mock_faults *faults, char *err, size_t err_len)
{
    mock_faults_init(faults);
    if (json == NULL)
        return 0;
    if (!cJSON_IsObject(json)) {
        fail(err, err_len, "faults must be an object");
        return -1;
    }
    static const char *const known[] = {"latency_ms",    "drip_bytes",  "drip_interval_ms",   "cut_after_bytes",
                                        "cut_after_event", "malformed_after_event", "malformed_line",
                                        "content_type",  "reset",       "oversized_bytes",    "status",
                                        "body",          "retry_after", "no_request_id",      "http_error"};
    for (const cJSON *item = json->child; item; item = item->next) {
        bool ok = false;
        for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
            ok = ok || strcmp(item->string, known[i]) == 0;
        if (!ok) {
            fail(err, err_len, "unknown fault '%s'", item->string);
            return -1;
        }
    }
    faults->latency_ms = clamp_delay(num_of(json, "latency_ms", -1));
    faults->drip_bytes = (int)num_of(json, "drip_bytes", -1);
    faults->drip_interval_ms = clamp_delay(num_of(json, "drip_interval_ms", faults->drip_bytes > 0 ? 10 : -1));
    faults->cut_after_bytes = num_of(json, "cut_after_bytes", -1);
    faults->cut_after_event = (int)num_of(json, "cut_after_event", -1);
    faults->malformed_after_event = (int)num_of(json, "malformed_after_event", -1);
    const char *line = str_of(json, "malformed_line");
    if (line != NULL && faults->malformed_after_event < 0)
        faults->malformed_after_event = 0;
    if (faults->malformed_after_event >= 0)
        faults->malformed_line = dup_str(line ? line : "data: {\"type\": \"content_block_delta\", \"index\": 0, \"delta\": {");
    faults->content_type = dup_str(str_of(json, "content_type"));
    faults->reset = bool_of(json, "reset", 0) == 1;
    faults->oversized_bytes = num_of(json, "oversized_bytes", -1);
    faults->status = (int)num_of(json, "status", -1);
    faults->body = dup_str(str_of(json, "body"));
    const cJSON *http_error = cJSON_GetObjectItemCaseSensitive(json, "http_error");
    if (cJSON_IsObject(http_error)) {
        faults->status = (int)num_of(http_error, "status", 500);
        if (faults->body == NULL)
            faults->body = dup_str(str_of(http_error, "body"));
    }
    faults->retry_after = (int)num_of(json, "retry_after", -1);
    faults->no_request_id = bool_of(json, "no_request_id", 0) == 1;
    return 0;
}

void mock_faults_free(mock_faults *faults)
{
    free(faults->malformed_line);
    free(faults->content_type);
    free(faults->body);
}


static int parse_expect(const cJSON *json, mock_expect *expect, char *err, size_t err_len)
{
    expect->stream = -1;
    expect->strict = -1;
    expect->contains = NULL;
    expect->tool_results = true;
    if (json == NULL)
        return 0;
    if (!cJSON_IsObject(json)) {
        fail(err, err_len, "expect_request must be an object");
        return -1;
    }
    for (const cJSON *item = json->child; item; item = item->next)
        if (strcmp(item->string, "stream") && strcmp(item->string, "strict") && strcmp(item->string, "contains") &&
            strcmp(item->string, "tool_results")) {
            fail(err, err_len, "unknown expect_request field '%s'", item->string);
            return -1;
        }
    expect->stream = bool_of(json, "stream", -1);
    expect->strict = bool_of(json, "strict", -1);
    expect->contains = dup_str(str_of(json, "contains"));
    expect->tool_results = bool_of(json, "tool_results", 1) == 1;
    return 0;
}

void mock_scenario_retain(mock_scenario *scenario)
{
    if (scenario)
        __atomic_add_fetch(&scenario->refs, 1, __ATOMIC_ACQ_REL);
}

static void scenario_free(mock_scenario *scenario)
{
    for (size_t i = 0; i < scenario->turn_count; i++) {
        mock_faults_free(&scenario->turns[i].faults);
        free(scenario->turns[i].expect.contains);
        free(scenario->turns[i].error_body);
    }
    free(scenario->turns);
    free(scenario->name);
    free(scenario->script_json);
    gt_loop_script_free(scenario->script);
    free(scenario->default_schema);
    free(scenario->provider);
    free(scenario->model);
    free(scenario->on_deviation.type);
    free(scenario->on_deviation.message);
    free(scenario->side_tool);
    free(scenario->side_text);
    free(scenario);
}

void mock_scenario_release(mock_scenario *scenario)
{
    if (scenario && __atomic_sub_fetch(&scenario->refs, 1, __ATOMIC_ACQ_REL) == 0)
        scenario_free(scenario);
}

/* The root `mock` object: on_deviation, side_requests. */
static int parse_mock_options(const cJSON *mock, mock_scenario *scenario, char *err, size_t err_len)
{
    scenario->on_deviation.serve = true;
    if (mock == NULL)
        return 0;
    if (!cJSON_IsObject(mock)) {
        fail(err, err_len, "/mock must be an object");
        return -1;
    }
    for (const cJSON *item = mock->child; item; item = item->next)
        if (strcmp(item->string, "on_deviation") && strcmp(item->string, "side_requests") &&
            strcmp(item->string, "after_script")) {
            fail(err, err_len, "/mock: unknown field '%s'", item->string);
            return -1;
        }
    const cJSON *deviation = cJSON_GetObjectItemCaseSensitive(mock, "on_deviation");
    if (cJSON_IsObject(deviation)) {
        scenario->on_deviation.serve = false;
        scenario->on_deviation.status = (int)num_of(deviation, "status", 400);
        scenario->on_deviation.type = dup_str(str_of(deviation, "type"));
        scenario->on_deviation.message = dup_str(str_of(deviation, "message"));
    }
    const cJSON *after = cJSON_GetObjectItemCaseSensitive(mock, "after_script");
    if (after != NULL) {
        static const char *const policies[] = {"end_turn_text", "repeat_last", "error_400"};
        size_t which = 0;
        while (which < 3 && !(cJSON_IsString(after) && strcmp(after->valuestring, policies[which]) == 0))
            which++;
        if (which == 3) {
            fail(err, err_len, "/mock/after_script must be \"end_turn_text\", \"repeat_last\" or \"error_400\"");
            return -1;
        }
        scenario->after_script = which == 0   ? MOCK_AFTER_END_TURN_TEXT
                                 : which == 1 ? MOCK_AFTER_REPEAT_LAST
                                              : MOCK_AFTER_ERROR_400;
    }
    const cJSON *side = cJSON_GetObjectItemCaseSensitive(mock, "side_requests");
    if (cJSON_IsObject(side)) {
        const char *tool = str_of(side, "unless_tool");
        const char *text = str_of(side, "text");
        scenario->side_tool = dup_str(tool ? tool : GT_LOOP_TOOL_NAME);
        scenario->side_text = dup_str(text ? text : "ok");
    }
    return 0;
}

/* A gt_value member by NUL-terminated name. */
static const gt_value *member(const gt_value *object, const char *key)
{
    return gt_value_get(object, key, strlen(key));
}

/* A mock extension value as cJSON (they are small, plain objects). */
static cJSON *extension(const gt_value *value)
{
    if (value == NULL)
        return NULL;
    char *text = gt_value_to_json(value, NULL);
    if (text == NULL)
        return NULL;
    cJSON *json = cJSON_Parse(text);
    free(text);
    return json;
}

/* Copy of `object` without the members named in `drop` (NULL-terminated). */
static gt_value *without(gt_arena *arena, const gt_value *object, const char *const *drop)
{
    gt_value *copy = gt_value_new_object(arena);
    if (copy == NULL)
        return NULL;
    for (size_t i = 0; i < object->u.obj.count; i++) {
        const gt_member *m = &object->u.obj.members[i];
        bool dropped = false;
        for (const char *const *d = drop; *d && !dropped; d++)
            dropped = strcmp(m->key, *d) == 0;
        if (!dropped && gt_value_object_append(arena, copy, m->key, m->key_len, m->value) != 0)
            return NULL;
    }
    return copy;
}

static char *string_member(const gt_value *object, const char *key)
{
    const gt_value *value = member(object, key);
    return value && value->type == GT_STRING ? dup_n(value->u.str.chars, value->u.str.len) : NULL;
}

/* The script keeps every byte it was given: it is read with gauntlet's own
 * parser (number literals and string bytes exact) and written back with
 * gt_value_to_json, minus the mock's extensions. */
mock_scenario *mock_scenario_parse(const char *name, const char *json, const char *default_schema, char *err,
                                   size_t err_len)
{
    gt_arena *arena = gt_arena_new();
    mock_scenario *scenario = calloc(1, sizeof *scenario);
    if (arena == NULL || scenario == NULL) {
        gt_arena_free(arena);
        free(scenario);
        fail(err, err_len, "out of memory");
        return NULL;
    }
    scenario->refs = 1;
    scenario->name = dup_str(name);
    scenario->default_schema = default_schema ? dup_str(default_schema) : NULL;
    gt_parse_options options;
    gt_parse_options_init(&options);
    options.allow_big_integers = true;
    options.max_depth = 20000;
    gt_parse_error perr;
    const gt_value *root = gt_parse(arena, json, strlen(json), &options, &perr);
    if (root == NULL || root->type != GT_OBJECT) {
        if (root == NULL)
            fail(err, err_len, "script is not JSON: %s at %u:%u", gt_syntax_reason_code(perr.reason), perr.line,
                 perr.column);
        else
            fail(err, err_len, "a script must be a JSON object");
        goto bad;
    }
    const gt_value *script = root;
    /* a corpus case: the script is its "script", the schema its "schema" */
    const gt_value *case_script = member(root, "script");
    if (case_script && case_script->type == GT_OBJECT && member(root, "turns") == NULL) {
        script = case_script;
        const gt_value *schema = member(root, "schema");
        if (scenario->default_schema == NULL && schema && schema->type == GT_OBJECT)
            scenario->default_schema = gt_value_to_json(schema, NULL);
    }
    scenario->provider = string_member(script, "provider");
    scenario->model = string_member(script, "model");
    cJSON *mock = extension(member(script, "mock"));
    int rc = parse_mock_options(mock, scenario, err, err_len);
    cJSON_Delete(mock);
    if (rc != 0)
        goto bad;
    static const char *const root_drop[] = {"mock", NULL};
    static const char *const turn_drop[] = {"faults", "expect_request", NULL};
    gt_value *clean = without(arena, script, root_drop);
    if (clean == NULL)
        goto oom;
    const gt_value *turns = member(script, "turns");
    if (turns && turns->type == GT_ARRAY) {
        gt_value *clean_turns = gt_value_new_array(arena);
        scenario->turns = calloc(turns->u.arr.count ? turns->u.arr.count : 1, sizeof *scenario->turns);
        if (clean_turns == NULL || scenario->turns == NULL)
            goto oom;
        for (size_t i = 0; i < turns->u.arr.count; i++) {
            const gt_value *turn = turns->u.arr.items[i];
            mock_turn_ext *ext = &scenario->turns[scenario->turn_count++];
            mock_faults_init(&ext->faults);
            ext->expect.stream = ext->expect.strict = -1;
            ext->expect.tool_results = true;
            gt_value *clean_turn = (gt_value *)turn;
            if (turn->type == GT_OBJECT) {
                char inner[200] = "";
                cJSON *faults = extension(member(turn, "faults"));
                cJSON *expect = extension(member(turn, "expect_request"));
                int bad_ext = mock_faults_parse(faults, &ext->faults, inner, sizeof inner) != 0 ||
                              parse_expect(expect, &ext->expect, inner, sizeof inner) != 0;
                cJSON_Delete(faults);
                cJSON_Delete(expect);
                if (bad_ext) {
                    fail(err, err_len, "/turns/%zu: %s", i, inner);
                    goto bad;
                }
                const gt_value *stream = member(turn, "stream");
                ext->cut = stream && stream->type == GT_OBJECT && member(stream, "cut") != NULL;
                const gt_value *error = member(turn, "error");
                if (error && error->type == GT_OBJECT)
                    ext->error_body = string_member(error, "body");
                clean_turn = without(arena, turn, turn_drop);
                if (clean_turn == NULL)
                    goto oom;
            }
            if (gt_value_array_append(arena, clean_turns, clean_turn) != 0)
                goto oom;
        }
        /* replace "turns" in the clean copy */
        for (size_t i = 0; i < clean->u.obj.count; i++)
            if (strcmp(clean->u.obj.members[i].key, "turns") == 0)
                clean->u.obj.members[i].value = clean_turns;
    }
    scenario->script_json = gt_value_to_json(clean, &scenario->script_len);
    if (scenario->script_json == NULL)
        goto oom;
    /* the loop layer's loader is the judge of the script itself */
    gt_loop_script_problem problem;
    gt_loop_script *check =
        gt_loop_script_load(scenario->script_json, scenario->script_len, scenario->default_schema, &problem);
    if (check == NULL) {
        fail(err, err_len, "%s%s%s", problem.pointer, problem.pointer[0] ? ": " : "", problem.message);
        goto bad;
    }
    if (gt_loop_script_turn_count(check) != scenario->turn_count) {
        gt_loop_script_free(check);
        fail(err, err_len, "turn count mismatch");
        goto bad;
    }
    scenario->script = check; /* every session plays this one, read-only, from its own cursor */
    gt_arena_free(arena);
    return scenario;
oom:
    fail(err, err_len, "out of memory");
bad:
    gt_arena_free(arena);
    scenario_free(scenario);
    return NULL;
}

char *gt_mock_script_text(const char *json, char **schema_out, char *err, size_t err_len)
{
    mock_scenario *scenario = mock_scenario_parse("script", json, NULL, err, err_len);
    if (scenario == NULL)
        return NULL;
    char *text = scenario->script_json;
    scenario->script_json = NULL;
    if (schema_out) {
        *schema_out = scenario->default_schema;
        scenario->default_schema = NULL;
    }
    mock_scenario_release(scenario);
    return text;
}
