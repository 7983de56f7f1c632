/* test_loop.c — the StructuredOutput state machine (seed 000), rule by rule,
 * and the script loader. Scripts are inline JSON; a spy model wraps the
 * script player to see exactly what the loop sent. */
#include <string.h>

#include "gauntlet/loop.h"
#include "gauntlet/parse.h"
#include "gt_test.h"

#define SCHEMA                                                                                                  \
    "{\"type\":\"object\",\"properties\":{\"cause\":{\"type\":\"string\"},\"fixes\":{\"type\":\"array\","       \
    "\"items\":{\"type\":\"string\"}}},\"required\":[\"cause\",\"fixes\"],\"additionalProperties\":false}"
#define VALID "{\"cause\":\"disk full\",\"fixes\":[\"clean the cache\"]}"
#define VALID2 "{\"cause\":\"flaky test\",\"fixes\":[\"retry\"]}"
#define INVALID "{\"cause\":1}"
#define CALL(id, input) "{\"message\":{\"content\":[{\"type\":\"tool_use\",\"id\":\"" id "\",\"name\":\"StructuredOutput\",\"input\":" input "}]}}"
#define TEXT(text) "{\"message\":{\"content\":\"" text "\"}}"

/* ---- the spy ---- */

typedef struct spy {
    gt_loop_model inner;
    size_t requests;
    bool strict[32];
    bool fallback[32];
    char tool_schema[32][512]; /* the StructuredOutput input_schema each request sent */
    size_t message_count[32];
    gt_loop_role last_role[32]; /* role of the last message each request carried */
    gt_buffer tool_errors;   /* every is_error tool_result text the loop sent, "\n"-separated */
    gt_buffer user_texts;    /* every user text block sent, "\n"-separated */
    size_t enforce_seen_max; /* the most enforce messages one request carried */
    size_t longest_tool_result;
} spy;

static int spy_send(void *state, const gt_loop_request *request, gt_arena *arena, gt_loop_reply *reply, char *err,
                    size_t err_len)
{
    spy *s = state;
    size_t n = s->requests++;
    if (n < 32) {
        s->strict[n] = request->strict;
        snprintf(s->tool_schema[n], sizeof s->tool_schema[n], "%s",
                 request->tool_schema_json ? request->tool_schema_json : "");
        s->fallback[n] = request->fallback_model;
        s->message_count[n] = request->message_count;
        s->last_role[n] = request->message_count ? request->messages[request->message_count - 1].role : GT_LOOP_USER;
    }
    size_t enforce = 0;
    s->tool_errors.len = 0;
    s->user_texts.len = 0;
    for (size_t i = 0; i < request->message_count; i++) {
        const gt_loop_entry *entry = &request->messages[i];
        ck_assert(!entry->tombstoned);
        if (entry->role != GT_LOOP_USER)
            continue;
        enforce += entry->is_meta;
        for (size_t b = 0; b < entry->block_count; b++) {
            const gt_block *block = &entry->blocks[b];
            if (block->type == GT_BLOCK_TOOL_RESULT && block->is_error) {
                gt_buffer_append(&s->tool_errors, block->text, block->text_len);
                gt_buffer_append(&s->tool_errors, "\n", 1);
            }
            if (block->type == GT_BLOCK_TOOL_RESULT && block->text_len > s->longest_tool_result)
                s->longest_tool_result = block->text_len;
            if (block->type == GT_BLOCK_TEXT) {
                gt_buffer_append(&s->user_texts, block->text, block->text_len);
                gt_buffer_append(&s->user_texts, "\n", 1);
            }
        }
    }
    if (enforce > s->enforce_seen_max)
        s->enforce_seen_max = enforce;
    return s->inner.send(s->inner.state, request, arena, reply, err, err_len);
}

typedef struct run {
    gt_loop_script *script;
    gt_loop_result result;
    spy spy;
    char *envelope;
    gt_arena *arena;
    const gt_value *env; /* the envelope, parsed */
} run;

static run *play(const char *json)
{
    run *r = calloc(1, sizeof *r);
    gt_loop_script_problem problem;
    r->script = gt_loop_script_load(json, strlen(json), NULL, &problem);
    ck_assert_msg(r->script != NULL, "bad script at %s: %s", problem.pointer, problem.message);
    gt_loop_script_model(r->script, &r->spy.inner);
    gt_loop_model model = {.state = &r->spy, .send = spy_send};
    ck_assert_int_eq(gt_loop_run(gt_loop_script_config(r->script), &model, &r->result), 0);
    r->envelope = gt_loop_envelope_json(&r->result);
    ck_assert_ptr_nonnull(r->envelope);
    r->arena = gt_arena_new();
    gt_parse_error error;
    r->env = gt_parse(r->arena, r->envelope, strlen(r->envelope), NULL, &error);
    ck_assert_ptr_nonnull(r->env);
    return r;
}

static void run_free(run *r)
{
    gt_loop_result_free(&r->result);
    gt_loop_script_free(r->script);
    gt_buffer_free(&r->spy.tool_errors);
    gt_buffer_free(&r->spy.user_texts);
    free(r->envelope);
    gt_arena_free(r->arena);
    free(r);
}

static const gt_value *field(const gt_value *object, const char *key)
{
    return object ? gt_value_get(object, key, strlen(key)) : NULL;
}

static char *json_at(const gt_value *value)
{
    return value ? gt_value_to_json(value, NULL) : strdup("(absent)");
}

static void expect_object(run *r, const char *want)
{
    char *got = json_at(r->result.structured_output);
    ck_assert_str_eq(got, want);
    free(got);
    char *in_envelope = json_at(field(r->env, "structured_output"));
    ck_assert_str_eq(in_envelope, want);
    free(in_envelope);
}

static void expect_accounting(run *r, int used, int limit, int retracted, int enforce, int api, int model)
{
    const gt_loop_accounting *a = &r->result.accounting;
    ck_assert_int_eq(a->attempts_used, used);
    ck_assert_int_eq(a->attempts_limit, limit);
    ck_assert_int_eq(a->retracted, retracted);
    ck_assert_int_eq(a->enforce_messages, enforce);
    ck_assert_int_eq(a->api_attempts, api);
    ck_assert_int_eq(a->model_calls, model);
    const gt_value *block = field(field(r->env, "gauntlet"), "accounting");
    ck_assert_double_eq(field(block, "attempts_used")->u.num.number, used);
    ck_assert_double_eq(field(block, "api_attempts")->u.num.number, api);
}

static void expect_subtype(run *r, gt_loop_subtype subtype)
{
    ck_assert_msg(r->result.subtype == subtype, "subtype %s, want %s\n%s", gt_loop_subtype_name(r->result.subtype),
                  gt_loop_subtype_name(subtype), r->result.transcript);
    ck_assert_str_eq(field(r->env, "subtype")->u.str.chars, gt_loop_subtype_name(subtype));
    ck_assert_str_eq(field(r->env, "type")->u.str.chars, "result");
    ck_assert_int_eq(field(r->env, "is_error")->type == GT_TRUE, subtype != GT_LOOP_SUCCESS);
}

/* ---- the happy paths ---- */

START_TEST(first_try_valid)
{
    run *r = play("{\"json_schema\":" SCHEMA ",\"turns\":[" CALL("t1", VALID) "]}");
    expect_subtype(r, GT_LOOP_SUCCESS);
    expect_object(r, VALID);
    expect_accounting(r, 1, 5, 0, 0, 1, 1);
    ck_assert(r->result.accepted);
    /* No text: the result is the object's JSON text. */
    ck_assert_str_eq(field(r->env, "result")->u.str.chars, VALID);
    ck_assert_double_eq(field(r->env, "num_turns")->u.num.number, 1);
    ck_assert(field(field(r->env, "gauntlet"), "structured_output_present")->type == GT_TRUE);
    run_free(r);
}
END_TEST

START_TEST(result_text_kept_when_present)
{
    run *r = play("{\"json_schema\":" SCHEMA ",\"turns\":[{\"message\":{\"content\":[{\"type\":\"text\",\"text\":"
                  "\"Done.\"},{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"StructuredOutput\",\"input\":" VALID
                  "}]}}]}");
    ck_assert_str_eq(field(r->env, "result")->u.str.chars, "Done.");
    run_free(r);
}
END_TEST

START_TEST(invalid_then_valid_feeds_every_error_back)
{
    run *r = play("{\"json_schema\":" SCHEMA ",\"turns\":[" CALL("t1", "{\"cause\":1,\"extra\":true}") "," CALL(
        "t2", VALID) "]}");
    expect_subtype(r, GT_LOOP_SUCCESS);
    expect_object(r, VALID);
    expect_accounting(r, 2, 5, 0, 0, 2, 2);
    const char *fed = r->spy.tool_errors.data;
    ck_assert_ptr_nonnull(fed);
    ck_assert_msg(strncmp(fed, GT_LOOP_SCHEMA_ERROR_PREFIX, strlen(GT_LOOP_SCHEMA_ERROR_PREFIX)) == 0, "%s", fed);
    ck_assert_msg(strstr(fed, "/cause: ") && strstr(fed, "(type)"), "%s", fed);
    ck_assert_msg(strstr(fed, "root: ") && strstr(fed, "(required)"), "%s", fed);
    ck_assert_msg(strstr(fed, "(additionalProperties)"), "%s", fed);
    run_free(r);
}
END_TEST

START_TEST(five_invalid_hit_the_default_limit)
{
    run *r = play("{\"json_schema\":" SCHEMA ",\"turns\":[" CALL("t1", INVALID) "," CALL("t2", INVALID) "," CALL(
        "t3", INVALID) "," CALL("t4", INVALID) "," CALL("t5", INVALID) "," CALL("t6", VALID) "]}");
    expect_subtype(r, GT_LOOP_ERROR_MAX_STRUCTURED_OUTPUT_RETRIES);
    expect_accounting(r, 5, 5, 0, 0, 5, 5);
    ck_assert_ptr_null(r->result.structured_output);
    ck_assert_ptr_null(field(r->env, "structured_output"));
    ck_assert_str_eq(r->result.errors[0], "Failed to provide valid structured output after 5 attempts");
    ck_assert_uint_eq(gt_loop_script_unplayed(r->script), 1); /* no sixth request */
    ck_assert_str_eq(r->result.reason, "error_max_structured_output_retries");
    ck_assert_str_eq(r->result.gate, "loop");
    run_free(r);
}
END_TEST

START_TEST(fourth_invalid_then_valid_is_success_at_five)
{
    run *r = play("{\"json_schema\":" SCHEMA ",\"turns\":[" CALL("t1", INVALID) "," CALL("t2", INVALID) "," CALL(
        "t3", INVALID) "," CALL("t4", INVALID) "," CALL("t5", VALID) "]}");
    expect_subtype(r, GT_LOOP_SUCCESS);
    expect_accounting(r, 5, 5, 0, 0, 5, 5);
    run_free(r);
}
END_TEST

START_TEST(env_override_applies)
{
    run *r = play("{\"json_schema\":" SCHEMA ",\"env\":{\"MAX_STRUCTURED_OUTPUT_RETRIES\":\"2\"},\"turns\":[" CALL(
        "t1", INVALID) "," CALL("t2", INVALID) "," CALL("t3", VALID) "]}");
    expect_subtype(r, GT_LOOP_ERROR_MAX_STRUCTURED_OUTPUT_RETRIES);
    expect_accounting(r, 2, 2, 0, 0, 2, 2);
    ck_assert_str_eq(r->result.errors[0], "Failed to provide valid structured output after 2 attempts");
    run_free(r);
    r = play("{\"json_schema\":" SCHEMA ",\"env\":{\"MAX_STRUCTURED_OUTPUT_RETRIES\":\"8\"},\"turns\":[" CALL(
        "t1", INVALID) "," CALL("t2", INVALID) "," CALL("t3", INVALID) "," CALL("t4", INVALID) "," CALL(
        "t5", INVALID) "," CALL("t6", VALID) "]}");
    expect_subtype(r, GT_LOOP_SUCCESS);
    expect_accounting(r, 6, 8, 0, 0, 6, 6);
    run_free(r);
}
END_TEST

START_TEST(env_zero_has_no_minimum)
{
    run *r = play("{\"json_schema\":" SCHEMA ",\"env\":{\"MAX_STRUCTURED_OUTPUT_RETRIES\":\"0\"},\"turns\":[" CALL(
        "t1", INVALID) "," CALL("t2", VALID) "]}");
    expect_subtype(r, GT_LOOP_ERROR_MAX_STRUCTURED_OUTPUT_RETRIES);
    expect_accounting(r, 1, 0, 0, 0, 1, 1);
    run_free(r);
    r = play("{\"json_schema\":" SCHEMA ",\"env\":{\"MAX_STRUCTURED_OUTPUT_RETRIES\":\"0\"},\"turns\":[" CALL(
        "t1", VALID) "]}");
    expect_subtype(r, GT_LOOP_SUCCESS);
    run_free(r);
}
END_TEST

/* gt_loop_config_init sets every field, whatever the memory held before. */
START_TEST(config_init_clears_every_field)
{
    gt_loop_config config;
    memset(&config, 0xA5, sizeof config);
    gt_loop_config_init(&config);
    ck_assert_ptr_null(config.json_schema_text);
    ck_assert_uint_eq(config.json_schema_len, 0);
    ck_assert_ptr_null(config.prompt);
    ck_assert_ptr_null(config.history);
    ck_assert_uint_eq(config.history_count, 0);
    ck_assert_int_eq(config.max_attempts, GT_LOOP_DEFAULT_MAX_ATTEMPTS);
    ck_assert_int_eq(config.max_turns, 0);
    ck_assert_int_eq(config.max_api_retries, GT_LOOP_DEFAULT_API_RETRIES);
    ck_assert(!config.strict);
    ck_assert(config.structured_output_tool);
    ck_assert_int_eq(config.tool_choice, GT_LOOP_TOOL_CHOICE_AUTO);
    ck_assert_ptr_null(config.tool_choice_name);
    ck_assert_ptr_null(config.server_tools_json);
}
END_TEST

START_TEST(attempts_env_parser)
{
    int out = -7;
    ck_assert_int_eq(gt_loop_attempts_from_env("12", &out), 0);
    ck_assert_int_eq(out, 12);
    ck_assert_int_eq(gt_loop_attempts_from_env("-1", &out), 0);
    ck_assert_int_eq(out, -1);
    ck_assert_int_eq(gt_loop_attempts_from_env("+3", &out), 0);
    ck_assert_int_eq(out, 3);
    ck_assert_int_eq(gt_loop_attempts_from_env("", &out), -1);
    ck_assert_int_eq(gt_loop_attempts_from_env("5x", &out), -1);
    ck_assert_int_eq(gt_loop_attempts_from_env(" 5", &out), -1);
    ck_assert_int_eq(gt_loop_attempts_from_env("abc", &out), -1);
    ck_assert_int_eq(gt_loop_attempts_from_env("99999999999", &out), -1);
    ck_assert_int_eq(gt_loop_attempts_from_env("1000000000", &out), 0);
    ck_assert_int_eq(out, 1000000000);
    ck_assert_int_eq(gt_loop_attempts_from_env("1000000001", &out), -1);
    ck_assert_int_eq(out, 1000000000);
    ck_assert_int_eq(gt_loop_attempts_from_env("-0", &out), 0);
    ck_assert_int_eq(out, 0);
    ck_assert_int_eq(gt_loop_attempts_from_env(NULL, &out), -1);
}
END_TEST

/* ---- the enforce message ---- */

START_TEST(text_only_then_enforce_then_valid)
{
    run *r = play("{\"json_schema\":" SCHEMA ",\"turns\":[" TEXT("Here is the analysis: disk full.") "," CALL(
        "t1", VALID) "]}");
    expect_subtype(r, GT_LOOP_SUCCESS);
    expect_accounting(r, 1, 5, 0, 1, 2, 2);
    ck_assert_msg(strstr(r->spy.user_texts.data, GT_LOOP_ENFORCE_TEXT) != NULL, "%s", r->spy.user_texts.data);
    ck_assert(strncmp(GT_LOOP_ENFORCE_TEXT, "[structured-output-enforce]", 27) == 0);
    ck_assert(strstr(GT_LOOP_ENFORCE_TEXT, "You MUST call the StructuredOutput tool") != NULL);
    ck_assert(strstr(GT_LOOP_ENFORCE_TEXT, "Call this tool now.") != NULL);
    ck_assert_uint_eq(r->spy.enforce_seen_max, 1);
    /* The text is not the result: the object is. */
    ck_assert_str_eq(field(r->env, "result")->u.str.chars, VALID);
    run_free(r);
}
END_TEST

START_TEST(text_only_twice_never_succeeds)
{
    run *r = play("{\"json_schema\":" SCHEMA ",\"turns\":[" TEXT("{\\\"cause\\\":\\\"disk full\\\",\\\"fixes\\\":[]}") "," TEXT(
        "{\\\"cause\\\":\\\"disk full\\\",\\\"fixes\\\":[]}") "," CALL("t1", VALID) "]}");
    expect_subtype(r, GT_LOOP_ERROR_NO_STRUCTURED_OUTPUT);
    expect_accounting(r, 0, 5, 0, 1, 2, 2);
    ck_assert(!r->result.accepted);
    ck_assert_ptr_null(r->result.structured_output);
    ck_assert_str_eq(r->result.reason, "error_no_structured_output");
    ck_assert_uint_eq(r->spy.enforce_seen_max, 1); /* exactly one enforce message */
    ck_assert_ptr_null(field(r->env, "result"));
    run_free(r);
}
END_TEST

START_TEST(invalid_then_text_twice_is_no_structured_output)
{
    run *r = play("{\"json_schema\":" SCHEMA ",\"turns\":[" CALL("t1", INVALID) "," TEXT("giving up") "," TEXT(
        "still no") "]}");
    expect_subtype(r, GT_LOOP_ERROR_NO_STRUCTURED_OUTPUT);
    expect_accounting(r, 1, 5, 0, 1, 3, 3);
    run_free(r);
}
END_TEST

/* ---- requiresStructuredOutput ---- */

START_TEST(tool_filtered_out_means_not_required)
{
    run *r = play("{\"json_schema\":" SCHEMA ",\"disallowed_tools\":[\"StructuredOutput\"],\"turns\":[" TEXT(
        "plain answer") "]}");
    expect_subtype(r, GT_LOOP_SUCCESS);
    expect_accounting(r, 0, 5, 0, 0, 1, 1);
    ck_assert(!r->result.accepted); /* success WITHOUT an object is told apart */
    ck_assert_str_eq(r->result.reason, "success_without_object");
    ck_assert(field(field(r->env, "gauntlet"), "structured_output_present")->type == GT_FALSE);
    ck_assert_str_eq(field(field(r->env, "gauntlet"), "verdict")->u.str.chars, "reject");
    ck_assert_str_eq(field(r->env, "result")->u.str.chars, "plain answer");
    run_free(r);
}
END_TEST

START_TEST(filtered_tool_call_is_an_unknown_tool)
{
    run *r = play("{\"json_schema\":" SCHEMA ",\"disallowed_tools\":[\"StructuredOutput\"],\"turns\":[" CALL(
        "t1", VALID) "," TEXT("ok") "]}");
    expect_subtype(r, GT_LOOP_SUCCESS);
    ck_assert_ptr_null(r->result.structured_output);
    ck_assert_msg(strstr(r->spy.tool_errors.data, "No such tool available: StructuredOutput") != NULL, "%s",
                  r->spy.tool_errors.data);
    run_free(r);
}
END_TEST

START_TEST(no_schema_no_tool)
{
    run *r = play("{\"turns\":[" TEXT("hello") "]}");
    expect_subtype(r, GT_LOOP_SUCCESS);
    ck_assert(!r->result.accepted);
    expect_accounting(r, 0, 5, 0, 0, 1, 1);
    run_free(r);
}
END_TEST

/* ---- --json-schema checks ---- */

static void expect_startup_error(const char *script, const char *text, const char *reason)
{
    run *r = play(script);
    expect_subtype(r, GT_LOOP_ERROR_INVALID_JSON_SCHEMA);
    ck_assert_str_eq(r->result.errors[0], text);
    ck_assert_str_eq(r->result.reason, reason);
    expect_accounting(r, 0, 5, 0, 0, 0, 0); /* the loop never started */
    ck_assert_uint_eq(r->spy.requests, 0);
    run_free(r);
}

START_TEST(json_schema_checks)
{
    expect_startup_error("{\"json_schema_text\":\"{\\\"type\\\": \\\"object\\\",}\",\"turns\":[" CALL("t", "{}") "]}",
                         "--json-schema is not valid JSON", "json_schema_not_json");
    expect_startup_error("{\"json_schema_text\":\"\",\"turns\":[]}", "--json-schema is not valid JSON",
                         "json_schema_not_json");
    expect_startup_error("{\"json_schema\":[{\"type\":\"object\"}],\"turns\":[]}", "--json-schema must be a JSON object",
                         "json_schema_not_object");
    expect_startup_error("{\"json_schema\":null,\"turns\":[]}", "--json-schema must be a JSON object",
                         "json_schema_not_object");
    expect_startup_error("{\"json_schema\":true,\"turns\":[]}", "--json-schema must be a JSON object",
                         "json_schema_not_object");
    expect_startup_error("{\"json_schema\":\"{}\",\"turns\":[]}", "--json-schema must be a JSON object",
                         "json_schema_not_object");
    expect_startup_error("{\"json_schema\":{\"type\":12},\"turns\":[]}", "not a valid JSON Schema", "json_schema_invalid");
    expect_startup_error("{\"json_schema\":{\"type\":\"object\",\"required\":\"cause\"},\"turns\":[]}",
                         "not a valid JSON Schema", "json_schema_invalid");
}
END_TEST

START_TEST(json_schema_size_guard)
{
    /* An enum of 100,001 values is over the 100,000-node guard. */
    size_t count = GT_SCHEMA_MAX_NODES + 1;
    gt_buffer text = {0};
    gt_buffer_appendf(&text, "{\"json_schema\":{\"enum\":[");
    for (size_t i = 0; i < count; i++)
        gt_buffer_append(&text, i ? ",0" : "0", i ? 2 : 1);
    gt_buffer_appendf(&text, "]},\"turns\":[]}");
    ck_assert(!text.failed);
    expect_startup_error(text.data, "not a valid JSON Schema", "json_schema_invalid");
    gt_buffer_free(&text);
}
END_TEST

/* Depth is the size guard's call, as JSON.parse takes any nesting: 10,000
 * levels (root = 1) compile, 10,001 are "not a valid JSON Schema" — never
 * "not valid JSON" (the syntax gate's 256-level model-output limit must not
 * apply to the caller's schema). Big integers are JSON too. */
START_TEST(json_schema_depth_guard)
{
    for (size_t levels = GT_SCHEMA_MAX_DEPTH; levels <= GT_SCHEMA_MAX_DEPTH + 1; levels++) {
        gt_buffer text = {0};
        /* root object, properties, then `levels - 2` nested items nodes */
        gt_buffer_appendf(&text, "{\"json_schema_text\":\"{\\\"type\\\":\\\"object\\\",\\\"maximum\\\":"
                                 "18446744073709551616,\\\"properties\\\":{\\\"a\\\":");
        for (size_t i = 0; i + 3 < levels; i++)
            gt_buffer_appendf(&text, "{\\\"items\\\":");
        gt_buffer_appendf(&text, "{}");
        for (size_t i = 0; i + 3 < levels; i++)
            gt_buffer_append(&text, "}", 1);
        gt_buffer_appendf(&text, "}}\",\"turns\":[" CALL("t1", "{\"a\":[]}") "]}");
        ck_assert(!text.failed);
        if (levels <= GT_SCHEMA_MAX_DEPTH) {
            run *r = play(text.data);
            expect_subtype(r, GT_LOOP_SUCCESS);
            run_free(r);
        } else
            expect_startup_error(text.data, "not a valid JSON Schema", "json_schema_invalid");
        gt_buffer_free(&text);
    }
}
END_TEST

START_TEST(formats_not_asserted)
{
    run *r = play("{\"json_schema\":{\"type\":\"object\",\"properties\":{\"email\":{\"type\":\"string\",\"format\":"
                  "\"email\"}}},\"turns\":[" CALL("t1", "{\"email\":\"not an email\"}") "]}");
    expect_subtype(r, GT_LOOP_SUCCESS);
    ck_assert(r->result.accepted);
    run_free(r);
}
END_TEST

/* ---- tool input shapes ---- */

START_TEST(tool_input_not_json)
{
    run *r = play("{\"json_schema\":" SCHEMA ",\"turns\":[{\"message\":{\"content\":[{\"type\":\"tool_use\",\"id\":"
                  "\"t1\",\"name\":\"StructuredOutput\",\"input_text\":\"{\\\"cause\\\": \\\"disk\"}]}}," CALL(
                      "t2", "[1,2]") "," CALL("t3", VALID) "]}");
    expect_subtype(r, GT_LOOP_SUCCESS);
    expect_accounting(r, 3, 5, 0, 0, 3, 3);
    const char *fed = r->spy.tool_errors.data;
    ck_assert_msg(strstr(fed, "StructuredOutput input is not valid JSON: unexpected_end") != NULL, "%s", fed);
    ck_assert_msg(strstr(fed, "StructuredOutput input must be a JSON object, not an array") != NULL, "%s", fed);
    run_free(r);
}
END_TEST

START_TEST(two_calls_in_one_turn)
{
    run *r = play("{\"json_schema\":" SCHEMA ",\"turns\":[{\"message\":{\"content\":[{\"type\":\"tool_use\",\"id\":"
                  "\"t1\",\"name\":\"StructuredOutput\",\"input\":" INVALID "},{\"type\":\"tool_use\",\"id\":\"t2\","
                  "\"name\":\"StructuredOutput\",\"input\":" VALID "}]}}]}");
    expect_subtype(r, GT_LOOP_SUCCESS);
    expect_object(r, VALID);
    expect_accounting(r, 2, 5, 0, 0, 1, 1);
    run_free(r);
    /* Both valid: the last one is the result (tr.at(-1)). */
    r = play("{\"json_schema\":" SCHEMA ",\"turns\":[{\"message\":{\"content\":[{\"type\":\"tool_use\",\"id\":"
             "\"t1\",\"name\":\"StructuredOutput\",\"input\":" VALID "},{\"type\":\"tool_use\",\"id\":\"t2\","
             "\"name\":\"StructuredOutput\",\"input\":" VALID2 "}]}}]}");
    expect_object(r, VALID2);
    expect_accounting(r, 2, 5, 0, 0, 1, 1);
    run_free(r);
}
END_TEST

START_TEST(tool_result_capped)
{
    /* 30,000 wrong items give far more than 100,000 characters of errors. */
    gt_buffer text = {0};
    gt_buffer_appendf(&text, "{\"json_schema\":" SCHEMA ",\"turns\":[{\"message\":{\"content\":[{\"type\":\"tool_use\","
                             "\"id\":\"t1\",\"name\":\"StructuredOutput\",\"input\":{\"cause\":\"x\",\"fixes\":[");
    for (int i = 0; i < 30000; i++)
        gt_buffer_append(&text, i ? ",1" : "1", i ? 2 : 1);
    gt_buffer_appendf(&text, "]}}]}}," CALL("t2", VALID) "]}");
    run *r = play(text.data);
    expect_subtype(r, GT_LOOP_SUCCESS);
    ck_assert_uint_eq(r->spy.longest_tool_result, GT_LOOP_TOOL_RESULT_CAP);
    run_free(r);
    gt_buffer_free(&text);
}
END_TEST

/* ---- tombstones and late attachments ---- */

START_TEST(tombstoned_valid_call_then_new_valid_call)
{
    run *r = play("{\"json_schema\":" SCHEMA ",\"turns\":[" CALL("t1", VALID) ",{\"fallback\":{}}," CALL("t2", VALID2) "]}");
    expect_subtype(r, GT_LOOP_SUCCESS);
    expect_object(r, VALID2); /* the retracted object never leaks */
    expect_accounting(r, 2, 5, 1, 0, 2, 2);
    ck_assert(r->spy.fallback[1]);
    ck_assert_uint_eq(r->spy.message_count[1], 1); /* the retracted message is not sent again */
    run_free(r);
}
END_TEST

START_TEST(tombstone_only)
{
    run *r = play("{\"json_schema\":" SCHEMA ",\"turns\":[" CALL("t1", VALID) ",{\"fallback\":{\"retract\":\"msg_t0\"}}," TEXT(
        "done") "," TEXT("done again") "]}");
    expect_subtype(r, GT_LOOP_ERROR_MAX_STRUCTURED_OUTPUT_RETRIES);
    ck_assert_ptr_null(r->result.structured_output);
    expect_accounting(r, 1, 5, 1, 1, 3, 3);
    ck_assert_msg(strstr(r->result.errors[0], "retracted") != NULL, "%s", r->result.errors[0]);
    run_free(r);
}
END_TEST

START_TEST(late_attachment_for_retracted_id_dropped)
{
    run *r = play("{\"json_schema\":" SCHEMA ",\"turns\":[" CALL("t1", VALID) ",{\"fallback\":{}},{\"late_attachment\":"
                  "{\"tool_use_id\":\"t1\",\"input\":" VALID "}}," TEXT("text") "," TEXT("text") "]}");
    expect_subtype(r, GT_LOOP_ERROR_MAX_STRUCTURED_OUTPUT_RETRIES);
    ck_assert_ptr_null(r->result.structured_output);
    ck_assert_int_eq(r->result.late_attachments_dropped, 1);
    run_free(r);
}
END_TEST

START_TEST(fallback_retracting_older_message_keeps_current)
{
    run *r = play("{\"json_schema\":" SCHEMA ",\"turns\":[" CALL("t1", INVALID) "," CALL("t2", VALID) ",{\"fallback\":"
                  "{\"retract\":\"msg_t0\"}}]}");
    expect_subtype(r, GT_LOOP_SUCCESS);
    expect_object(r, VALID);
    expect_accounting(r, 2, 5, 1, 0, 2, 2);
    run_free(r);
}
END_TEST

/* gauntlet.feedback: every block the loop sent back after the prompt, in
 * order, with the seed's exact texts; a retracted tool result is marked. */
START_TEST(feedback_lists_what_was_sent_back)
{
    run *r = play("{\"json_schema\":" SCHEMA ",\"history\":[{\"role\":\"user\",\"content\":\"earlier\"}],"
                  "\"turns\":[" TEXT("disk full") "," CALL("t1", INVALID) "," CALL("t2", VALID) ",{\"fallback\":"
                  "{\"retract\":\"msg_t1\"}}]}");
    expect_subtype(r, GT_LOOP_SUCCESS);
    ck_assert_uint_eq(r->result.feedback_count, 2);
    const gt_value *feedback = field(field(r->env, "gauntlet"), "feedback");
    ck_assert_uint_eq(feedback->u.arr.count, 2);
    char *enforce = gt_value_to_json(feedback->u.arr.items[0], NULL);
    ck_assert_str_eq(enforce, "{\"type\":\"text\",\"meta\":true,\"content\":\"" GT_LOOP_ENFORCE_TEXT "\"}");
    free(enforce);
    char *error = gt_value_to_json(feedback->u.arr.items[1], NULL);
    ck_assert_str_eq(error, "{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"is_error\":true,\"retracted\":true,"
                            "\"content\":\"Output does not match required schema: /cause: expected string, got "
                            "integer (type); root: missing required property \\\"fixes\\\" (required)\"}");
    free(error);
    ck_assert(r->result.feedback[1].retracted && !r->result.feedback[0].retracted);
    run_free(r);

    /* nothing sent back: an empty list, never absent */
    r = play("{\"json_schema\":" SCHEMA ",\"turns\":[" CALL("t1", VALID) "]}");
    ck_assert_uint_eq(field(field(r->env, "gauntlet"), "feedback")->u.arr.count, 0);
    run_free(r);
}
END_TEST

START_TEST(retracted_calls_count_toward_the_limit)
{
    run *r = play("{\"json_schema\":" SCHEMA ",\"env\":{\"MAX_STRUCTURED_OUTPUT_RETRIES\":\"2\"},\"turns\":[" CALL(
        "t1", VALID) ",{\"fallback\":{}}," CALL("t2", INVALID) "," CALL("t3", VALID) "]}");
    expect_subtype(r, GT_LOOP_ERROR_MAX_STRUCTURED_OUTPUT_RETRIES);
    expect_accounting(r, 2, 2, 1, 0, 2, 2);
    run_free(r);
}
END_TEST

/* ---- resumed history ---- */

#define HIST_CALL(n)                                                                                         \
    "{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"h" n "\",\"name\":\"StructuredOutput\"," \
    "\"input\":" VALID "}]},{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"h" n      \
    "\",\"content\":\"Structured output provided successfully\"}]}"

START_TEST(resumed_history_never_counts)
{
    run *r = play("{\"json_schema\":" SCHEMA ",\"history\":[" HIST_CALL("1") "," HIST_CALL("2") "," HIST_CALL(
        "3") "," HIST_CALL("4") "," HIST_CALL("5") "],\"turns\":[" CALL("t1", INVALID) "," CALL("t2", VALID) "]}");
    expect_subtype(r, GT_LOOP_SUCCESS);
    expect_accounting(r, 2, 5, 0, 0, 2, 2);
    expect_object(r, VALID);
    ck_assert_uint_eq(r->spy.message_count[0], 11); /* 10 history messages + the query */
    run_free(r);
    /* History objects are not this query's result. */
    r = play("{\"json_schema\":" SCHEMA ",\"history\":[" HIST_CALL("1") "],\"turns\":[" TEXT("a") "," TEXT("b") "]}");
    expect_subtype(r, GT_LOOP_ERROR_NO_STRUCTURED_OUTPUT);
    expect_accounting(r, 0, 5, 0, 1, 2, 2);
    run_free(r);
}
END_TEST

/* ---- provider errors ---- */

START_TEST(strict_sends_the_strict_subset_or_falls_back)
{
    /* convertible: the wire tool carries the seed-000 conversion */
    run *r = play("{\"json_schema\":{\"type\":\"object\",\"properties\":{\"cause\":{\"type\":\"string\"}},"
                  "\"required\":[\"cause\"]},\"strict\":true,\"turns\":[" CALL("t1", "{\"cause\":\"x\"}") "]}");
    expect_subtype(r, GT_LOOP_SUCCESS);
    ck_assert(r->spy.strict[0]);
    ck_assert_msg(strstr(r->spy.tool_schema[0], "\"additionalProperties\":false") != NULL, "%s", r->spy.tool_schema[0]);
    ck_assert_ptr_null(r->result.strict_fallback);
    run_free(r);
    /* outside the subset (pattern): the original schema goes out without strict */
    r = play("{\"json_schema\":{\"type\":\"object\",\"properties\":{\"cause\":{\"type\":\"string\",\"pattern\":\"^a\"}}},"
             "\"strict\":true,\"turns\":[" CALL("t1", "{\"cause\":\"ab\"}") "]}");
    expect_subtype(r, GT_LOOP_SUCCESS);
    ck_assert(!r->spy.strict[0]);
    ck_assert_ptr_nonnull(strstr(r->spy.tool_schema[0], "\"pattern\""));
    ck_assert_str_eq(r->result.strict_fallback, "strict_unsupported_keyword");
    char *envelope = gt_loop_envelope_json(&r->result);
    ck_assert_ptr_nonnull(strstr(envelope, "\"strict_fallback\":\"strict_unsupported_keyword\""));
    free(envelope);
    run_free(r);
}
END_TEST

START_TEST(capability_400_strips_strict_and_remembers)
{
    run *r = play("{\"json_schema\":" SCHEMA ",\"strict\":true,\"turns\":[{\"error\":{\"status\":400,\"type\":"
                  "\"invalid_request_error\",\"message\":\"structured_outputs is not supported for this deployment "
                  "(strict tools)\"}}," CALL("t1", INVALID) "," CALL("t2", VALID) "]}");
    expect_subtype(r, GT_LOOP_SUCCESS);
    expect_accounting(r, 2, 5, 0, 0, 3, 2); /* an API attempt, not a structured attempt */
    ck_assert_uint_eq(r->spy.requests, 3);
    ck_assert(r->spy.strict[0]);
    ck_assert(!r->spy.strict[1]); /* the retry drops strict */
    ck_assert(!r->spy.strict[2]); /* and later requests remember it */
    ck_assert(r->result.strict_stripped);
    run_free(r);
}
END_TEST

START_TEST(plain_400_is_an_execution_error)
{
    run *r = play("{\"json_schema\":" SCHEMA ",\"turns\":[{\"error\":{\"status\":400,\"type\":\"invalid_request_error\","
                  "\"message\":\"strict is not supported\"}}," CALL("t1", VALID) "]}");
    expect_subtype(r, GT_LOOP_ERROR_DURING_EXECUTION); /* no strict was sent: nothing to strip */
    expect_accounting(r, 0, 5, 0, 0, 1, 0);
    ck_assert_msg(strstr(r->result.errors[0], "API Error: 400") != NULL, "%s", r->result.errors[0]);
    run_free(r);
}
END_TEST

START_TEST(retryable_errors_retry_then_give_up)
{
    run *r = play("{\"json_schema\":" SCHEMA ",\"turns\":[{\"error\":{\"status\":529,\"type\":\"overloaded_error\"}}," CALL(
        "t1", VALID) "]}");
    expect_subtype(r, GT_LOOP_SUCCESS);
    expect_accounting(r, 1, 5, 0, 0, 2, 1);
    run_free(r);
    r = play("{\"json_schema\":" SCHEMA ",\"turns\":[{\"error\":{\"status\":529}},{\"error\":{\"status\":500}},{\"error\":"
             "{\"status\":503}}," CALL("t1", VALID) "]}");
    expect_subtype(r, GT_LOOP_ERROR_DURING_EXECUTION);
    expect_accounting(r, 0, 5, 0, 0, 3, 0);
    run_free(r);
}
END_TEST

START_TEST(script_exhausted_is_an_execution_error)
{
    run *r = play("{\"json_schema\":" SCHEMA ",\"turns\":[" CALL("t1", INVALID) "]}");
    expect_subtype(r, GT_LOOP_ERROR_DURING_EXECUTION);
    ck_assert_msg(strstr(r->result.errors[0], "no turn left") != NULL, "%s", r->result.errors[0]);
    run_free(r);
}
END_TEST

/* ---- turns ---- */

START_TEST(max_turns)
{
    run *r = play("{\"json_schema\":" SCHEMA ",\"max_turns\":2,\"turns\":[{\"message\":{\"content\":[{\"type\":"
                  "\"tool_use\",\"id\":\"r1\",\"name\":\"Read\",\"input\":{\"path\":\"build.log\"},\"result\":\"error: "
                  "disk full\"}]}},{\"message\":{\"content\":[{\"type\":\"tool_use\",\"id\":\"r2\",\"name\":\"Bash\","
                  "\"input\":{\"cmd\":\"df\"}}]}}," CALL("t1", VALID) "]}");
    expect_subtype(r, GT_LOOP_ERROR_MAX_TURNS);
    expect_accounting(r, 0, 5, 0, 0, 2, 2);
    ck_assert_str_eq(r->result.reason, "error_max_turns");
    run_free(r);
    /* The last allowed turn may still succeed. */
    r = play("{\"json_schema\":" SCHEMA ",\"max_turns\":2,\"turns\":[" TEXT("hm") "," CALL("t1", VALID) "]}");
    expect_subtype(r, GT_LOOP_SUCCESS);
    run_free(r);
}
END_TEST

START_TEST(unusable_responses_are_quarantined)
{
    static const char *const stops[] = {"max_tokens", "refusal"};
    static const char *const reasons[] = {"max_tokens_truncated", "refusal"};
    for (int i = 0; i < 2; i++) {
        char script[1024];
        snprintf(script, sizeof script,
                 "{\"json_schema\":" SCHEMA ",\"turns\":[{\"message\":{\"stop_reason\":\"%s\",\"content\":[{\"type\":"
                 "\"tool_use\",\"id\":\"t1\",\"name\":\"StructuredOutput\",\"input\":" VALID "}]}}]}",
                 stops[i]);
        run *r = play(script);
        expect_subtype(r, GT_LOOP_ERROR_DURING_EXECUTION);
        ck_assert_str_eq(r->result.gate, "stream");
        ck_assert_str_eq(r->result.reason, reasons[i]);
        ck_assert_ptr_null(r->result.structured_output); /* classified before parsing: nothing ran */
        expect_accounting(r, 0, 5, 0, 0, 1, 1);
        run_free(r);
    }
    run *r = play("{\"json_schema\":" SCHEMA ",\"turns\":[{\"message\":{\"content\":[]}}]}");
    ck_assert_str_eq(r->result.reason, "empty_content");
    run_free(r);
}
END_TEST

START_TEST(stream_turns_in_the_loop)
{
    /* a retry budget of 0: the cut ends the query, the started call is retracted */
    run *r = play("{\"json_schema\":" SCHEMA ",\"max_api_retries\":0,\"turns\":[{\"stream\":{\"from_message\":{"
                  "\"content\":[{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"StructuredOutput\",\"input\":" VALID
                  "}],\"usage\":{\"input_tokens\":7,\"output_tokens\":3}},\"cut\":{\"inside_event\":3,\"keep_bytes\":40}}}]}");
    ck_assert_str_eq(r->result.gate, "stream");
    ck_assert_str_eq(r->result.reason, "stream_truncated");
    ck_assert_ptr_null(r->result.structured_output);
    ck_assert_int_eq(r->result.usage.input_tokens, 7); /* a cut stream was still paid for */
    expect_accounting(r, 1, 5, 1, 0, 1, 1);
    run_free(r);
    r = play("{\"json_schema\":" SCHEMA ",\"provider\":\"openai\",\"turns\":[{\"stream\":{\"from_message\":{\"content\":"
             "[{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"StructuredOutput\",\"input\":" INVALID "}],\"usage\":{"
             "\"input_tokens\":7,\"output_tokens\":3}}}},{\"stream\":{\"provider\":\"anthropic\",\"from_message\":{"
             "\"content\":[{\"type\":\"tool_use\",\"id\":\"t2\",\"name\":\"StructuredOutput\",\"input\":" VALID
             "}],\"usage\":{\"input_tokens\":9,\"output_tokens\":4}}}}]}");
    expect_subtype(r, GT_LOOP_SUCCESS);
    expect_accounting(r, 2, 5, 0, 0, 2, 2);
    ck_assert_int_eq(r->result.usage.input_tokens, 16);
    ck_assert_int_eq(r->result.usage.output_tokens, 7);
    run_free(r);
}
END_TEST


/* Seed 000's fallback for a stream cut inside the StructuredOutput block:
 * the partial message is tombstoned (never sent back), its call retracted
 * and counted, the request sent again; the valid call then succeeds. */
#define CUT_IN_SO(id)                                                                                            \
    "{\"stream\":{\"from_message\":{\"content\":[{\"type\":\"tool_use\",\"id\":\"" id "\",\"name\":"                \
    "\"StructuredOutput\",\"input\":" VALID "}]},\"cut\":{\"inside_event\":3,\"keep_bytes\":20}}}"

START_TEST(cut_stream_is_tombstoned_and_sent_again)
{
    run *r = play("{\"json_schema\":" SCHEMA ",\"turns\":[" CUT_IN_SO("t1") "," CALL("t2", VALID2) "]}");
    expect_subtype(r, GT_LOOP_SUCCESS);
    expect_object(r, VALID2);
    expect_accounting(r, 2, 5, 1, 0, 2, 2);
    ck_assert_uint_eq(r->spy.requests, 2);
    ck_assert_uint_eq(r->spy.message_count[1], 1); /* the same request again: the partial message is not in it */
    ck_assert_ptr_nonnull(strstr(r->result.transcript, "tombstoned: 1 block, 1 StructuredOutput call retracted"));
    run_free(r);

    /* the budget is spent: the query ends with the stream reason, nothing survives */
    r = play("{\"json_schema\":" SCHEMA ",\"max_api_retries\":1,\"turns\":[" CUT_IN_SO("t1") "," CUT_IN_SO("t2") ","
             CALL("t3", VALID) "]}");
    expect_subtype(r, GT_LOOP_ERROR_DURING_EXECUTION);
    ck_assert_str_eq(r->result.reason, "stream_truncated");
    ck_assert_ptr_null(r->result.structured_output);
    expect_accounting(r, 2, 5, 2, 0, 2, 2);
    ck_assert_uint_eq(gt_loop_script_unplayed(r->script), 1);
    run_free(r);

    /* malformed SSE is a transport fault too; a refusal is the model's answer, never resent */
    r = play("{\"json_schema\":" SCHEMA ",\"turns\":[{\"stream\":{\"sse\":\"event: message_start\\ndata: {'x'}\\n\\n\"}},"
             CALL("t2", VALID) "]}");
    expect_subtype(r, GT_LOOP_SUCCESS);
    expect_accounting(r, 1, 5, 0, 0, 2, 2);
    run_free(r);
    r = play("{\"json_schema\":" SCHEMA ",\"turns\":[{\"message\":{\"stop_reason\":\"refusal\",\"content\":\"no\"}},"
             CALL("t2", VALID) "]}");
    ck_assert_str_eq(r->result.reason, "refusal");
    expect_accounting(r, 0, 5, 0, 0, 1, 1);
    run_free(r);
}
END_TEST

/* A retracted partial call counts toward the limit (MAX_STRUCTURED_OUTPUT_RETRIES=2). */
START_TEST(cut_call_counts_toward_the_limit)
{
    run *r = play("{\"json_schema\":" SCHEMA ",\"env\":{\"MAX_STRUCTURED_OUTPUT_RETRIES\":\"2\"},\"turns\":["
                  CUT_IN_SO("t1") "," CALL("t2", INVALID) "," CALL("t3", VALID) "]}");
    expect_subtype(r, GT_LOOP_ERROR_MAX_STRUCTURED_OUTPUT_RETRIES);
    expect_accounting(r, 2, 2, 1, 0, 2, 2);
    run_free(r);
}
END_TEST

/* pause_turn is the server pausing, not the model stopping: the paused
 * message is sent back and no enforce message is spent; a later real stop
 * still gets it. */
#define PAUSE "{\"message\":{\"stop_reason\":\"pause_turn\",\"content\":\"searching\"}}"

START_TEST(pause_turn_resumes_without_enforce)
{
    run *r = play("{\"json_schema\":" SCHEMA ",\"turns\":[" PAUSE "," CALL("t1", VALID) "]}");
    expect_subtype(r, GT_LOOP_SUCCESS);
    expect_accounting(r, 1, 5, 0, 0, 2, 2);
    ck_assert_uint_eq(r->spy.message_count[1], 2); /* the prompt and the paused turn, sent back */
    ck_assert_int_eq(r->spy.last_role[1], GT_LOOP_ASSISTANT);
    run_free(r);

    r = play("{\"json_schema\":" SCHEMA ",\"turns\":[" PAUSE "," TEXT("done") "," CALL("t1", VALID) "]}");
    expect_subtype(r, GT_LOOP_SUCCESS);
    expect_accounting(r, 1, 5, 0, 1, 3, 3);
    ck_assert_ptr_nonnull(strstr(r->spy.user_texts.data, GT_LOOP_ENFORCE_SENTINEL));
    run_free(r);

    /* an empty paused turn (server-tool blocks only) is resumed, not empty_content */
    r = play("{\"json_schema\":" SCHEMA ",\"turns\":[{\"message\":{\"stop_reason\":\"pause_turn\",\"content\":[]}},"
             CALL("t1", VALID) "]}");
    expect_subtype(r, GT_LOOP_SUCCESS);
    expect_accounting(r, 1, 5, 0, 0, 2, 2);
    run_free(r);
}
END_TEST

START_TEST(usage_sums_every_attempt)
{
    run *r = play("{\"json_schema\":" SCHEMA ",\"turns\":[{\"message\":{\"content\":[{\"type\":\"tool_use\",\"id\":\"t1\","
                  "\"name\":\"StructuredOutput\",\"input\":" INVALID "}],\"usage\":{\"input_tokens\":100,"
                  "\"output_tokens\":10,\"cache_read_input_tokens\":50,\"cache_creation_input_tokens\":5}}},{\"message\":"
                  "{\"content\":[{\"type\":\"tool_use\",\"id\":\"t2\",\"name\":\"StructuredOutput\",\"input\":" VALID
                  "}],\"usage\":{\"input_tokens\":120,\"output_tokens\":12,\"cache_read_input_tokens\":60}}}]}");
    const gt_value *usage = field(r->env, "usage");
    ck_assert_double_eq(field(usage, "input_tokens")->u.num.number, 220);
    ck_assert_double_eq(field(usage, "output_tokens")->u.num.number, 22);
    ck_assert_double_eq(field(usage, "cache_read_input_tokens")->u.num.number, 110);
    ck_assert_double_eq(field(usage, "cache_creation_input_tokens")->u.num.number, 5);
    ck_assert_str_eq(field(usage, "input_tokens")->u.num.text, "220");
    run_free(r);
}
END_TEST

/* ---- the script loader ---- */

static void expect_bad_script(const char *json, const char *pointer, const char *fragment)
{
    gt_loop_script_problem problem;
    gt_loop_script *script = gt_loop_script_load(json, strlen(json), NULL, &problem);
    ck_assert_msg(script == NULL, "accepted: %s", json);
    ck_assert_str_eq(problem.pointer, pointer);
    ck_assert_msg(strstr(problem.message, fragment) != NULL, "message '%s' lacks '%s'", problem.message, fragment);
}

/* tool_choice (seed 002): auto lets the model answer in text (enforce
 * message); any and a named tool oblige a call, and a response that ignores
 * them is quarantined (tool_choice_ignored), its tools never run. */
START_TEST(tool_choice_semantics)
{
    run *r = play("{\"json_schema\":" SCHEMA ",\"tool_choice\":\"any\",\"turns\":[" TEXT("disk full") "," CALL("t1", VALID) "]}");
    expect_subtype(r, GT_LOOP_ERROR_DURING_EXECUTION);
    ck_assert_str_eq(r->result.gate, "loop");
    ck_assert_str_eq(r->result.reason, "tool_choice_ignored");
    expect_accounting(r, 0, 5, 0, 0, 1, 1);
    run_free(r);
    r = play("{\"json_schema\":" SCHEMA ",\"tool_choice\":{\"type\":\"tool\",\"name\":\"StructuredOutput\"},\"turns\":["
             "{\"message\":{\"content\":[{\"type\":\"tool_use\",\"id\":\"b1\",\"name\":\"Bash\",\"input\":{}}]}}]}");
    ck_assert_str_eq(r->result.reason, "tool_choice_ignored");
    ck_assert_uint_eq(r->result.feedback_count, 0); /* Bash never ran */
    run_free(r);
    r = play("{\"json_schema\":" SCHEMA ",\"tool_choice\":\"any\",\"turns\":[{\"message\":{\"content\":[{\"type\":"
             "\"tool_use\",\"id\":\"b1\",\"name\":\"Bash\",\"input\":{}}]}}," CALL("t1", VALID) "]}");
    expect_subtype(r, GT_LOOP_SUCCESS);
    run_free(r);
    r = play("{\"json_schema\":" SCHEMA ",\"tool_choice\":\"auto\",\"turns\":[" TEXT("disk full") "," CALL("t1", VALID) "]}");
    expect_subtype(r, GT_LOOP_SUCCESS);
    expect_accounting(r, 1, 5, 0, 1, 2, 2);
    run_free(r);
    expect_bad_script("{\"tool_choice\":\"required\",\"turns\":[]}", "/tool_choice", "must be \"auto\"");
    expect_bad_script("{\"tool_choice\":{\"type\":\"tool\"},\"turns\":[]}", "/tool_choice", "NAME");
    expect_bad_script("{\"server_tools\":[],\"turns\":[]}", "/server_tools", "non-empty array");
    expect_bad_script("{\"server_tools\":[{\"type\":\"custom\",\"name\":\"x\"}],\"turns\":[]}", "/server_tools/0",
                      "other than \"custom\"");
}
END_TEST

START_TEST(bad_scripts_name_the_field)
{
    expect_bad_script("{\"turns\":[", "", "not valid JSON");
    expect_bad_script("[]", "", "must be an object");
    expect_bad_script("{}", "/turns", "required");
    expect_bad_script("{\"turns\":[],\"tunrs\":1}", "/tunrs", "unknown field");
    expect_bad_script("{\"turns\":[{\"message\":{\"content\":\"x\",\"stop_reason\":1}}]}",
                      "/turns/0/message/stop_reason", "must be a string");
    expect_bad_script("{\"turns\":[" TEXT("a") ",{\"message\":{\"content\":[{\"type\":\"tool_use\",\"id\":\"x\"}]}}]}",
                      "/turns/1/message/content/0/name", "required");
    expect_bad_script("{\"turns\":[{\"message\":{\"content\":[{\"type\":\"tool_use\",\"id\":\"x\",\"name\":\"n\"}]}}]}",
                      "/turns/0/message/content/0", "exactly one of input");
    expect_bad_script("{\"turns\":[{\"message\":{\"content\":[{\"type\":\"tool_result\"}]}}]}",
                      "/turns/0/message/content/0/type", "not a content block type");
    expect_bad_script("{\"turns\":[{\"fallback\":{}}]}", "/turns/0", "cannot be the first turn");
    expect_bad_script("{\"turns\":[{\"message\":{\"content\":\"a\"},\"error\":{\"status\":500}}]}", "/turns/0",
                      "exactly one of");
    expect_bad_script("{\"turns\":[{}]}", "/turns/0", "needs one of");
    expect_bad_script("{\"turns\":[{\"error\":{}}]}", "/turns/0/error/status", "required");
    expect_bad_script("{\"turns\":[{\"error\":{\"status\":42}}]}", "/turns/0/error/status", "100 through 599");
    expect_bad_script("{\"env\":{\"MAX_STRUCTURED_OUTPUT_RETRIES\":\"five\"},\"turns\":[]}",
                      "/env/MAX_STRUCTURED_OUTPUT_RETRIES", "must be an integer");
    expect_bad_script("{\"env\":{\"MAX_STRUCTURED_OUTPUT_RETRIES\":5},\"turns\":[]}",
                      "/env/MAX_STRUCTURED_OUTPUT_RETRIES", "strings");
    expect_bad_script("{\"json_schema\":{},\"json_schema_text\":\"{}\",\"turns\":[]}", "/json_schema_text", "not both");
    expect_bad_script("{\"turns\":[{\"stream\":{\"from_message\":{\"content\":\"hi\"},\"cut\":{\"after_event\":99}}}]}",
                      "/turns/0/stream/cut/after_event", "events");
    expect_bad_script("{\"turns\":[{\"stream\":{\"from_message\":{\"content\":\"hi\"},\"cut\":{\"inside_event\":1}}}]}",
                      "/turns/0/stream/cut", "go together");
    expect_bad_script("{\"turns\":[{\"stream\":{\"sse\":\"data: x\\n\\n\",\"cut\":{\"after_event\":0}}}]}",
                      "/turns/0/stream/cut", "use at_byte");
    expect_bad_script("{\"turns\":[{\"stream\":{\"events\":[{\"type\":\"ping\"},7]}}]}", "/turns/0/stream/events/1",
                      "an event must be");
    expect_bad_script("{\"turns\":[{\"stream\":{\"provider\":\"gemini\",\"sse\":\"\"}}]}", "/turns/0/stream/provider",
                      "anthropic");
    expect_bad_script("{\"history\":[{\"role\":\"system\",\"content\":\"x\"}],\"turns\":[]}", "/history/0/role",
                      "user");
    expect_bad_script("{\"max_turns\":-1,\"turns\":[]}", "/max_turns", "integer");
    expect_bad_script("{\"format\":\"gauntlet-loop-script/9\",\"turns\":[]}", "/format", "gauntlet-loop-script/1");
    expect_bad_script("{\"env\":{\"a/b\":1},\"turns\":[]}", "/env/a~1b", "strings");
}
END_TEST

START_TEST(script_accessors_and_default_schema)
{
    const char *json = "{\"turns\":[" CALL("t1", "{\"a\":1}") "],\"env\":{\"OTHER\":\"x\"}}";
    gt_loop_script_problem problem;
    gt_loop_script *script = gt_loop_script_load(json, strlen(json), "{\"type\":\"object\"}", &problem);
    ck_assert_ptr_nonnull(script);
    ck_assert(!gt_loop_script_sets_env(script, GT_LOOP_ATTEMPTS_ENV));
    ck_assert_uint_eq(gt_loop_script_turn_count(script), 1);
    ck_assert_str_eq(gt_loop_script_config(script)->json_schema_text, "{\"type\":\"object\"}");
    gt_loop_model model;
    gt_loop_result result;
    /* Two plays of one script give the same result (the player rewinds). */
    for (int i = 0; i < 2; i++) {
        gt_loop_script_model(script, &model);
        ck_assert_int_eq(gt_loop_run(gt_loop_script_config(script), &model, &result), 0);
        ck_assert_int_eq(result.subtype, GT_LOOP_SUCCESS);
        ck_assert(result.accepted);
        ck_assert_uint_eq(gt_loop_script_unplayed(script), 0);
        gt_loop_result_free(&result);
    }
    gt_loop_script_free(script);

    gt_loop_result quick;
    ck_assert_int_eq(gt_loop_run_script_text("{\"turns\":", 9, NULL, &quick, &problem), 1);
    ck_assert_int_eq(gt_loop_run_script_text(json, strlen(json), "{}", &quick, NULL), 0);
    ck_assert(quick.accepted);
    gt_loop_result_free(&quick);
}
END_TEST

START_TEST(subtype_names)
{
    ck_assert_str_eq(gt_loop_subtype_name(GT_LOOP_SUCCESS), "success");
    ck_assert_str_eq(gt_loop_subtype_name(GT_LOOP_ERROR_MAX_STRUCTURED_OUTPUT_RETRIES),
                     "error_max_structured_output_retries");
    ck_assert_str_eq(gt_loop_subtype_name(GT_LOOP_ERROR_MAX_TURNS), "error_max_turns");
    ck_assert_str_eq(gt_loop_subtype_name(GT_LOOP_ERROR_DURING_EXECUTION), "error_during_execution");
    ck_assert_str_eq(gt_loop_subtype_name(GT_LOOP_ERROR_NO_STRUCTURED_OUTPUT), "error_no_structured_output");
    ck_assert_str_eq(gt_loop_subtype_name(GT_LOOP_ERROR_INVALID_JSON_SCHEMA), "error_invalid_json_schema");
    ck_assert_str_eq(gt_loop_subtype_name(GT_LOOP_SUBTYPE_COUNT), "unknown");
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("loop");
    TCase *attempts = tcase_create("attempts");
    tcase_add_test(attempts, first_try_valid);
    tcase_add_test(attempts, result_text_kept_when_present);
    tcase_add_test(attempts, invalid_then_valid_feeds_every_error_back);
    tcase_add_test(attempts, five_invalid_hit_the_default_limit);
    tcase_add_test(attempts, fourth_invalid_then_valid_is_success_at_five);
    tcase_add_test(attempts, env_override_applies);
    tcase_add_test(attempts, env_zero_has_no_minimum);
    tcase_add_test(attempts, attempts_env_parser);
    tcase_add_test(attempts, config_init_clears_every_field);
    tcase_add_test(attempts, two_calls_in_one_turn);
    tcase_add_test(attempts, tool_input_not_json);
    tcase_add_test(attempts, tool_result_capped);
    tcase_add_test(attempts, usage_sums_every_attempt);
    suite_add_tcase(suite, attempts);
    TCase *enforce = tcase_create("enforce");
    tcase_add_test(enforce, text_only_then_enforce_then_valid);
    tcase_add_test(enforce, text_only_twice_never_succeeds);
    tcase_add_test(enforce, invalid_then_text_twice_is_no_structured_output);
    tcase_add_test(enforce, tool_filtered_out_means_not_required);
    tcase_add_test(enforce, filtered_tool_call_is_an_unknown_tool);
    tcase_add_test(enforce, no_schema_no_tool);
    suite_add_tcase(suite, enforce);
    TCase *schema = tcase_create("json_schema");
    tcase_set_timeout(schema, 30);
    tcase_add_test(schema, json_schema_checks);
    tcase_add_test(schema, json_schema_size_guard);
    tcase_add_test(schema, json_schema_depth_guard);
    tcase_add_test(schema, formats_not_asserted);
    suite_add_tcase(suite, schema);
    TCase *tombstone = tcase_create("tombstone");
    tcase_add_test(tombstone, tombstoned_valid_call_then_new_valid_call);
    tcase_add_test(tombstone, tombstone_only);
    tcase_add_test(tombstone, late_attachment_for_retracted_id_dropped);
    tcase_add_test(tombstone, fallback_retracting_older_message_keeps_current);
    tcase_add_test(tombstone, feedback_lists_what_was_sent_back);
    tcase_add_test(tombstone, tool_choice_semantics);
    tcase_add_test(tombstone, retracted_calls_count_toward_the_limit);
    tcase_add_test(tombstone, resumed_history_never_counts);
    suite_add_tcase(suite, tombstone);
    TCase *provider = tcase_create("provider");
    tcase_add_test(provider, strict_sends_the_strict_subset_or_falls_back);
    tcase_add_test(provider, capability_400_strips_strict_and_remembers);
    tcase_add_test(provider, plain_400_is_an_execution_error);
    tcase_add_test(provider, retryable_errors_retry_then_give_up);
    tcase_add_test(provider, script_exhausted_is_an_execution_error);
    tcase_add_test(provider, max_turns);
    tcase_add_test(provider, unusable_responses_are_quarantined);
    tcase_add_test(provider, stream_turns_in_the_loop);
    tcase_add_test(provider, cut_stream_is_tombstoned_and_sent_again);
    tcase_add_test(provider, cut_call_counts_toward_the_limit);
    tcase_add_test(provider, pause_turn_resumes_without_enforce);
    suite_add_tcase(suite, provider);
    TCase *scripts = tcase_create("scripts");
    tcase_add_test(scripts, bad_scripts_name_the_field);
    tcase_add_test(scripts, script_accessors_and_default_schema);
    tcase_add_test(scripts, subtype_names);
    suite_add_tcase(suite, scripts);
    return suite;
}

GT_TEST_MAIN()
