/* test_derive.c — schema-derived answers (gauntlet/derive.h): each operator
 * against a fixed schema with the exact text it must give, the schemas that
 * make an operator impossible, bad derive values in a loop script (the
 * pointer and message of the load error, the CLI naming the file), derive
 * turns played in process, and over real HTTP the mock deriving each
 * operator from the schema the client sent, in every answer form (Anthropic
 * tool_use and JSON text, Chat Completions tool call and content, Responses
 * function call and output text), streamed and not; a client schema that
 * rules an operator out is journaled inexpressible. Each HTTP test starts its
 * own server on 127.0.0.1:0. */
#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>

#include "gauntlet/derive.h"
#include "gauntlet/loop.h"
#include "gauntlet/parse.h"
#include "gauntlet/runner/mock.h"
#include "gauntlet/schema.h"
#include "gt_test.h"
#include "gt_test_http.h"

/* The schema the unit tests and the HTTP clients use. */
#define TICKET                                                                                                         \
    "{\"type\":\"object\",\"properties\":{\"title\":{\"type\":\"string\",\"minLength\":6},"                            \
    "\"level\":{\"type\":\"string\",\"enum\":[\"low\",\"high\"]},\"count\":{\"type\":\"integer\",\"minimum\":2},"      \
    "\"meta\":{\"type\":\"object\",\"properties\":{\"by\":{\"type\":\"string\"}},\"required\":[\"by\"]}},"             \
    "\"required\":[\"title\",\"level\",\"count\"]}"
/* The scripts' own schema: different from the client's, so an answer shows which one it came from. */
#define SCRIPT_SCHEMA                                                                                                  \
    "{\"type\":\"object\",\"properties\":{\"cause\":{\"type\":\"string\",\"enum\":[\"disk\",\"net\"]},"                \
    "\"fix\":{\"type\":\"object\",\"properties\":{\"step\":{\"type\":\"string\"}}},\"note\":{\"type\":\"string\"}},"    \
    "\"required\":[\"cause\"]}"
#define PATTERNS                                                                                                       \
    "{\"type\":\"object\",\"properties\":{\"ticket\":{\"type\":\"string\",\"pattern\":\"^T-[0-9]{6}$\"},"                  \
    "\"sku\":{\"type\":\"string\",\"pattern\":\"^[A-Z]{3}-\\\\d{4}$\"},\"ref\":{\"type\":\"string\","                  \
    "\"pattern\":\"^(?:invoice|message)-[0-9]+$\"},\"word\":{\"type\":\"string\",\"pattern\":\"^\\\\w+\\\\.\\\\w+$\"}},"    \
    "\"required\":[\"ticket\",\"sku\",\"ref\",\"word\"]}"
#define FLAT "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}},\"required\":[\"a\"]}"

static gt_derive_spec spec_of(gt_derive_op op)
{
    gt_derive_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.op = op;
    return spec;
}

static gt_derive_spec cut_spec(gt_derive_boundary at, size_t nth, bool max_tokens)
{
    gt_derive_spec spec = spec_of(GT_DERIVE_CUT_AT);
    spec.at = at;
    spec.nth = nth;
    spec.max_tokens = max_tokens;
    return spec;
}

/* The derived text (malloc'd); fails the test unless it is expressible. */
static char *derive_ok(const gt_derive_spec *spec, const char *schema)
{
    char *text = NULL, why[300];
    size_t len;
    int rc = gt_derive_text(spec, schema, strlen(schema), &text, &len, why, sizeof why);
    ck_assert_msg(rc == 0, "%s: rc %d: %s", gt_derive_op_name(spec->op), rc, why);
    ck_assert_uint_eq(strlen(text), len);
    return text;
}

static void assert_derives(const gt_derive_spec spec, const char *schema, const char *expected)
{
    char *text = derive_ok(&spec, schema);
    ck_assert_str_eq(text, expected);
    free(text);
}

/* The reason an operator cannot apply; fails the test when it can. */
static void assert_inexpressible(const gt_derive_spec spec, const char *schema, const char *reason_part)
{
    char *text = NULL, why[300];
    size_t len;
    int rc = gt_derive_text(&spec, schema, strlen(schema), &text, &len, why, sizeof why);
    ck_assert_msg(rc == 1, "%s on %s: rc %d (%s)", gt_derive_op_name(spec.op), schema, rc, text ? text : why);
    ck_assert_ptr_null(text);
    ck_assert_msg(strstr(why, reason_part) != NULL, "reason '%s' lacks '%s'", why, reason_part);
}

static gt_schema_result validate(const char *schema_json, const char *instance_json)
{
    gt_schema *schema = gt_schema_compile(schema_json, strlen(schema_json), NULL, NULL);
    ck_assert_ptr_nonnull(schema);
    gt_arena *arena = gt_arena_new();
    gt_parse_error error;
    const gt_value *instance = gt_parse(arena, instance_json, strlen(instance_json), NULL, &error);
    ck_assert_ptr_nonnull(instance);
    gt_schema_result result = gt_schema_validate(schema, instance, NULL);
    gt_arena_free(arena);
    gt_schema_free(schema);
    return result;
}

/* ---- the operators -------------------------------------------------------- */

START_TEST(each_operator_gives_its_exact_text)
{
    assert_derives(spec_of(GT_DERIVE_VALID), TICKET, "{\"title\":\"testaa\",\"level\":\"low\",\"count\":2}");
    assert_derives(spec_of(GT_DERIVE_LOOSE_PLACEHOLDER), TICKET, "{\"title\":\"test\",\"level\":\"test\",\"count\":0}");
    assert_derives(spec_of(GT_DERIVE_ENUM_CASE), TICKET,
                   "{\"title\":\"testaa\",\"level\":\"LOW\",\"count\":2,\"meta\":{\"by\":\"test\"}}");
    assert_derives(spec_of(GT_DERIVE_NESTED_AS_STRING), TICKET,
                   "{\"title\":\"testaa\",\"level\":\"low\",\"count\":2,\"meta\":\"{\\\"by\\\":\\\"test\\\"}\"}");
    assert_derives(spec_of(GT_DERIVE_SCHEMA_ECHO), TICKET, TICKET);
    /* the outer member, not the one inside it */
    assert_derives(spec_of(GT_DERIVE_NESTED_AS_STRING),
                   "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"object\",\"properties\":{\"b\":{\"type\":"
                   "\"array\",\"items\":{\"type\":\"integer\"}}},\"required\":[\"b\"]}},\"required\":[\"a\"]}",
                   "{\"a\":\"{\\\"b\\\":[0]}\"}");
    assert_derives(cut_spec(GT_DERIVE_INSIDE_STRING, 0, false), TICKET, "{\"title\":\"t");
    assert_derives(cut_spec(GT_DERIVE_INSIDE_STRING, 2, false), TICKET, "{\"title\":\"testaa\",\"level\":\"l");
    assert_derives(cut_spec(GT_DERIVE_BETWEEN_MEMBERS, 2, false), TICKET, "{\"title\":\"testaa\",\"level\":\"low\",");
    assert_derives(cut_spec(GT_DERIVE_BEFORE_CLOSE, 0, true), TICKET,
                   "{\"title\":\"testaa\",\"level\":\"low\",\"count\":2,\"meta\":{\"by\":\"test\"}");
    assert_derives(cut_spec(GT_DERIVE_BEFORE_CLOSE, 1, false), TICKET,
                   "{\"title\":\"testaa\",\"level\":\"low\",\"count\":2,\"meta\":{\"by\":\"test\"");
}
END_TEST

START_TEST(valid_is_valid_and_the_faults_are_not)
{
    const char *schemas[] = {
        TICKET,
        PATTERNS,
        SCRIPT_SCHEMA,
        "{\"type\":\"object\",\"properties\":{\"when\":{\"type\":\"string\",\"format\":\"date\"},"
        "\"code\":{\"type\":\"string\",\"pattern\":\"^[A-Z][a-z]+$\"},\"n\":{\"type\":\"number\",\"exclusiveMinimum\":0,"
        "\"exclusiveMaximum\":1},\"k\":{\"type\":\"integer\",\"minimum\":7,\"multipleOf\":5},\"tags\":{\"type\":\"array\","
        "\"items\":{\"type\":\"string\"},\"minItems\":2},\"ok\":{\"type\":\"boolean\"},\"c\":{\"const\":\"x\"}},"
        "\"required\":[\"when\",\"code\",\"n\",\"k\",\"tags\",\"ok\",\"c\"],\"additionalProperties\":false}",
        "{\"$defs\":{\"item\":{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\",\"maximum\":-3}},"
        "\"required\":[\"id\"]}},\"type\":\"object\",\"properties\":{\"items\":{\"type\":\"array\",\"items\":"
        "{\"$ref\":\"#/$defs/item\"},\"minItems\":1},\"mode\":{\"anyOf\":[{\"type\":\"string\",\"enum\":[\"A\"]},"
        "{\"type\":\"null\"}]}},\"required\":[\"items\",\"mode\"],\"allOf\":[{\"required\":[\"extra\"],"
        "\"properties\":{\"extra\":{\"type\":\"integer\"}}}]}",
    };
    for (size_t i = 0; i < sizeof schemas / sizeof *schemas; i++) {
        gt_derive_spec valid = spec_of(GT_DERIVE_VALID);
        if (i == 1) /* patterns are sampled, not guessed */
            assert_derives(valid, PATTERNS,
                           "{\"ticket\":\"T-000000\",\"sku\":\"AAA-0000\",\"ref\":\"invoice-0\",\"word\":\"a.a\"}");
        char *text = derive_ok(&valid, schemas[i]);
        ck_assert_msg(validate(schemas[i], text) == GT_SCHEMA_VALID, "schema %zu: %s is not valid", i, text);
        free(text);
    }
    /* the faults fail the schema they came from */
    gt_derive_op faults[] = {GT_DERIVE_LOOSE_PLACEHOLDER, GT_DERIVE_ENUM_CASE, GT_DERIVE_NESTED_AS_STRING,
                             GT_DERIVE_SCHEMA_ECHO};
    for (size_t i = 0; i < sizeof faults / sizeof *faults; i++) {
        gt_derive_spec spec = spec_of(faults[i]);
        char *text = derive_ok(&spec, TICKET);
        ck_assert_msg(validate(TICKET, text) == GT_SCHEMA_INVALID, "%s: %s passes", gt_derive_op_name(faults[i]),
                      text);
        free(text);
    }
}
END_TEST

START_TEST(impossible_operators_are_inexpressible)
{
    assert_inexpressible(spec_of(GT_DERIVE_ENUM_CASE), FLAT, "no enum");
    /* an enum whose values have no letters, or whose other case is in the enum too */
    assert_inexpressible(spec_of(GT_DERIVE_ENUM_CASE),
                         "{\"type\":\"object\",\"properties\":{\"a\":{\"enum\":[\"1\",\"x\",\"X\"]}},\"required\":[\"a\"]}",
                         "no enum");
    assert_inexpressible(spec_of(GT_DERIVE_NESTED_AS_STRING), FLAT, "no object or array member");
    assert_inexpressible(cut_spec(GT_DERIVE_BETWEEN_MEMBERS, 1, false), FLAT, "0 between_members boundaries");
    assert_inexpressible(cut_spec(GT_DERIVE_INSIDE_STRING, 9, false), TICKET, "number 9");
    assert_inexpressible(spec_of(GT_DERIVE_VALID), "[]", "not a JSON object");
    assert_inexpressible(spec_of(GT_DERIVE_SCHEMA_ECHO), "{\"type\":", "not valid JSON");
    assert_inexpressible(spec_of(GT_DERIVE_VALID),
                         "{\"type\":\"object\",\"properties\":{\"a\":false},\"required\":[\"a\"]}", "false");
    assert_inexpressible(spec_of(GT_DERIVE_VALID),
                         "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\",\"pattern\":\"^(?=x)y$\"}},"
                         "\"required\":[\"a\"]}",
                         "fails the schema at /a");
    assert_inexpressible(spec_of(GT_DERIVE_VALID),
                         "{\"type\":\"object\",\"properties\":{\"a\":{\"$ref\":\"#\"}},\"required\":[\"a\"]}",
                         "deeper than 32");
    char *text = NULL, why[200];
    size_t len;
    ck_assert_int_eq(gt_derive_text(&(gt_derive_spec){.op = GT_DERIVE_VALID}, NULL, 0, &text, &len, why, sizeof why), 1);
    ck_assert_ptr_nonnull(strstr(why, "no schema"));
}
END_TEST

/* ---- loop scripts ------------------------------------------------------------ */

static void assert_bad_script(const char *turn, const char *pointer, const char *message_part)
{
    char script[2048];
    snprintf(script, sizeof script, "{\"json_schema\":" TICKET ",\"turns\":[%s]}", turn);
    gt_loop_script_problem problem;
    gt_loop_script *loaded = gt_loop_script_load(script, strlen(script), NULL, &problem);
    ck_assert_msg(loaded == NULL, "loaded %s", turn);
    ck_assert_str_eq(problem.pointer, pointer);
    ck_assert_msg(strstr(problem.message, message_part) != NULL, "%s: '%s' lacks '%s'", turn, problem.message,
                  message_part);
}

START_TEST(bad_derive_values_name_the_field)
{
    assert_bad_script("{\"derive\":\"shout\"}", "/turns/0/derive", "unknown derive operator \"shout\"");
    assert_bad_script("{\"derive\":7}", "/turns/0/derive", "operator name or an object");
    assert_bad_script("{\"derive\":{\"op\":\"valid\",\"colour\":1}}", "/turns/0/derive/colour",
                      "unknown derive field 'colour'");
    assert_bad_script("{\"derive\":{\"at\":\"before_close\"}}", "/turns/0/derive/op", "needs an op");
    assert_bad_script("{\"derive\":\"cut-at\"}", "/turns/0/derive", "needs its boundary");
    assert_bad_script("{\"derive\":{\"op\":\"cut-at\",\"at\":\"middle\"}}", "/turns/0/derive/at", "\"inside_string\"");
    assert_bad_script("{\"derive\":{\"op\":\"cut-at\",\"at\":\"before_close\",\"nth\":0}}", "/turns/0/derive/nth",
                      "from 1");
    assert_bad_script("{\"derive\":{\"op\":\"cut-at\",\"at\":\"before_close\",\"end\":\"late\"}}", "/turns/0/derive/end",
                      "\"cut\" or \"max_tokens\"");
    assert_bad_script("{\"derive\":{\"op\":\"valid\",\"nth\":2}}", "/turns/0/derive/nth", "cut-at only");
    assert_bad_script("{\"derive\":{\"op\":\"valid\",\"id\":\"\"}}", "/turns/0/derive/id", "non-empty");
    assert_bad_script("{\"derive\":\"valid\",\"message\":{\"content\":\"x\"}}", "/turns/0", "found message and derive");
    assert_bad_script("{\"message\":{\"content\":\"x\"}},{\"derive\":{\"op\":\"cut-at\",\"at\":\"between_members\","
                      "\"nth\":40}}",
                      "/turns/1/derive", "cut-at cannot be derived from the script's schema");
    /* no schema at all */
    const char *bare = "{\"turns\":[{\"derive\":\"valid\"}]}";
    gt_loop_script_problem problem;
    ck_assert_ptr_null(gt_loop_script_load(bare, strlen(bare), NULL, &problem));
    ck_assert_str_eq(problem.pointer, "/turns/0/derive");
    ck_assert_ptr_nonnull(strstr(problem.message, "needs a schema"));
}
END_TEST

START_TEST(the_cli_names_the_file_and_the_field)
{
    char dir[] = "/tmp/gt-derive-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[256], command[600];
    snprintf(path, sizeof path, "%s/bad.json", dir);
    FILE *file = fopen(path, "w");
    ck_assert_ptr_nonnull(file);
    fputs("{\"json_schema\":" FLAT ",\"turns\":[{\"derive\":\"enum-case\"}]}", file);
    fclose(file);
    snprintf(command, sizeof command, "\"${GAUNTLET:-build/gauntlet}\" loop --script %s 2>&1", path);
    char out[2048];
    ck_assert_int_eq(gt_test_shell(command, out, sizeof out), 2);
    ck_assert_msg(strstr(out, path) && strstr(out, "/turns/0/derive") && strstr(out, "no enum"), "%s", out);
    remove(path);
    rmdir(dir);
}
END_TEST

/* Run a script in process; the result's subtype and attempts. */
static void run_script(const char *turns, const char *extra, gt_loop_subtype subtype, int attempts, int retracted)
{
    char script[4096];
    snprintf(script, sizeof script, "{\"json_schema\":" TICKET "%s,\"turns\":[%s]}", extra, turns);
    gt_loop_result result;
    gt_loop_script_problem problem;
    ck_assert_msg(gt_loop_run_script_text(script, strlen(script), NULL, &result, &problem) == 0, "%s: %s",
                  problem.pointer, problem.message);
    ck_assert_msg(result.subtype == subtype, "%s: subtype %d, wanted %d", turns, result.subtype, subtype);
    ck_assert_int_eq(result.accounting.attempts_used, attempts);
    ck_assert_int_eq(result.accounting.retracted, retracted);
    gt_loop_result_free(&result);
}

START_TEST(derive_turns_play_in_process)
{
    run_script("{\"derive\":\"valid\"}", "", GT_LOOP_SUCCESS, 1, 0);
    run_script("{\"derive\":\"enum-case\"},{\"derive\":\"loose-placeholder\"},{\"derive\":\"valid\"}", "",
               GT_LOOP_SUCCESS, 3, 0);
    /* a cut stream is a transport fault: retracted, resent, then the valid retry */
    run_script("{\"derive\":{\"op\":\"cut-at\",\"at\":\"inside_string\"}},{\"derive\":\"valid\"}", "", GT_LOOP_SUCCESS,
               2, 1);
    run_script("{\"derive\":{\"op\":\"cut-at\",\"at\":\"before_close\",\"end\":\"max_tokens\"}}", "",
               GT_LOOP_ERROR_DURING_EXECUTION, 0, 0);
    run_script("{\"derive\":\"schema-echo\"},{\"derive\":\"schema-echo\"}", ",\"env\":{\"MAX_STRUCTURED_OUTPUT_RETRIES\":\"2\"}",
               GT_LOOP_ERROR_MAX_STRUCTURED_OUTPUT_RETRIES, 2, 0);
    /* the script keeps what it resolved: the accessor names the operator, plain turns have none */
    const char *text = "{\"json_schema\":" TICKET ",\"turns\":[{\"derive\":{\"op\":\"cut-at\",\"at\":\"before_close\","
                       "\"nth\":1,\"id\":\"toolu_x\"}},{\"message\":{\"content\":\"hi\"}}]}";
    gt_loop_script *script = gt_loop_script_load(text, strlen(text), NULL, NULL);
    ck_assert_ptr_nonnull(script);
    const gt_derive_spec *spec = gt_loop_script_turn_derive(script, 0);
    ck_assert_ptr_nonnull(spec);
    ck_assert_int_eq(spec->op, GT_DERIVE_CUT_AT);
    ck_assert_int_eq(spec->at, GT_DERIVE_BEFORE_CLOSE);
    ck_assert_uint_eq(spec->nth, 1);
    ck_assert_str_eq(spec->tool_use_id, "toolu_x");
    ck_assert_ptr_null(gt_loop_script_turn_derive(script, 1));
    ck_assert_ptr_null(gt_loop_script_turn_derive(script, 2));
    gt_loop_script_free(script);
}
END_TEST

/* ---- over HTTP: every answer form ------------------------------------------ */

static gt_mock_server *server;

static void start(void)
{
    char err[256];
    gt_mock_options options = {0};
    server = gt_mock_start(&options, err, sizeof err);
    ck_assert_msg(server != NULL, "%s", err);
}

static void stop(void)
{
    gt_mock_stop(server);
    server = NULL;
}

static void add_scenario(const char *name, const char *derive)
{
    char script[2048], err[256];
    snprintf(script, sizeof script, "{\"json_schema\":" SCRIPT_SCHEMA ",\"turns\":[{\"derive\":%s}]}", derive);
    ck_assert_msg(gt_mock_add_scenario(server, name, script, NULL, err, sizeof err) == 0, "%s", err);
}

typedef enum form_id { ANTHROPIC_TOOL, ANTHROPIC_FORCED, ANTHROPIC_JSON, CHAT_TOOL, CHAT_JSON, RESPONSES_TOOL,
                       RESPONSES_JSON, FORM_COUNT } form_id;
static const char *const form_names[FORM_COUNT] = {"anthropic tool_use", "anthropic forced tool",
                                                   "anthropic output_config.format", "chat tool call",
                                                   "chat response_format", "responses function_call",
                                                   "responses text.format"};

static const char *route_of(form_id form)
{
    return form <= ANTHROPIC_JSON ? "/v1/messages" : form <= CHAT_JSON ? "/v1/chat/completions" : "/v1/responses";
}

/* A request asking for its answer in `form`, with `schema`. */
static char *request_body(form_id form, const char *schema, bool stream)
{
    char *body = malloc(4096);
    const char *s = stream ? ",\"stream\":true" : "";
    const char *msgs = "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]";
    switch (form) {
    case ANTHROPIC_TOOL:
        snprintf(body, 4096, "{\"model\":\"c\",\"max_tokens\":50,%s,\"tools\":[{\"name\":\"StructuredOutput\","
                             "\"input_schema\":%s}]%s}", msgs, schema, s);
        break;
    case ANTHROPIC_FORCED:
        snprintf(body, 4096, "{\"model\":\"c\",\"max_tokens\":50,%s,\"tools\":[{\"name\":\"extract\",\"input_schema\":%s}],"
                             "\"tool_choice\":{\"type\":\"tool\",\"name\":\"extract\"}%s}", msgs, schema, s);
        break;
    case ANTHROPIC_JSON:
        snprintf(body, 4096, "{\"model\":\"c\",\"max_tokens\":50,%s,\"output_config\":{\"format\":{\"type\":"
                             "\"json_schema\",\"schema\":%s}}%s}", msgs, schema, s);
        break;
    case CHAT_TOOL:
        snprintf(body, 4096, "{\"model\":\"g\",%s,\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"extract\","
                             "\"parameters\":%s}}]%s}", msgs, schema, s);
        break;
    case CHAT_JSON:
        snprintf(body, 4096, "{\"model\":\"g\",%s,\"response_format\":{\"type\":\"json_schema\",\"json_schema\":"
                             "{\"name\":\"t\",\"schema\":%s}}%s}", msgs, schema, s);
        break;
    case RESPONSES_TOOL:
        snprintf(body, 4096, "{\"model\":\"g\",\"input\":\"hi\",\"tools\":[{\"type\":\"function\",\"name\":\"extract\","
                             "\"parameters\":%s}]%s}", schema, s);
        break;
    default:
        snprintf(body, 4096, "{\"model\":\"g\",\"input\":\"hi\",\"text\":{\"format\":{\"type\":\"json_schema\","
                             "\"name\":\"t\",\"schema\":%s}}%s}", schema, s);
        break;
    }
    return body;
}

static const char *jstr(const cJSON *item)
{
    return cJSON_IsString(item) ? item->valuestring : NULL;
}

static const cJSON *get_path(const cJSON *item, const char *path)
{
    return gt_test_json_at(item, path);
}

/* The answer a client reads from a JSON body, and the stop it gives. */
static char *answer_of_json(form_id form, const char *body, char *stop, size_t stop_len)
{
    cJSON *json = cJSON_Parse(body);
    if (json == NULL)
        return NULL;
    char *out = NULL;
    const char *stop_at = form <= ANTHROPIC_JSON ? "stop_reason" : form <= CHAT_JSON ? "choices.0.finish_reason"
                                                                                      : "status";
    snprintf(stop, stop_len, "%s", jstr(get_path(json, stop_at)) ? jstr(get_path(json, stop_at)) : "");
    switch (form) {
    case ANTHROPIC_TOOL:
    case ANTHROPIC_FORCED: {
        const cJSON *raw = get_path(json, "content.0.gauntlet_raw_input");
        out = raw ? strdup(jstr(raw)) : cJSON_PrintUnformatted(get_path(json, "content.0.input"));
        break;
    }
    case ANTHROPIC_JSON: out = strdup(jstr(get_path(json, "content.0.text"))); break;
    case CHAT_TOOL: out = strdup(jstr(get_path(json, "choices.0.message.tool_calls.0.function.arguments"))); break;
    case CHAT_JSON: out = strdup(jstr(get_path(json, "choices.0.message.content"))); break;
    case RESPONSES_TOOL: out = strdup(jstr(get_path(json, "output.0.arguments"))); break;
    default: out = strdup(jstr(get_path(json, "output.0.content.0.text"))); break;
    }
    cJSON_Delete(json);
    return out;
}

/* The answer a client accumulates from an event stream (every delta of the answer, in order); `*finished`: the
 * stream's terminal event arrived. */
static char *answer_of_stream(form_id form, const char *body, bool *finished)
{
    size_t cap = strlen(body) + 1, len = 0;
    char *out = calloc(1, cap);
    *finished = strstr(body, "message_stop") || strstr(body, "data: [DONE]") || strstr(body, "response.completed") ||
                strstr(body, "response.incomplete");
    for (const char *line = strstr(body, "data: "); line; line = strstr(line + 1, "\ndata: ")) {
        const char *start = line[0] == '\n' ? line + 7 : line + 6;
        const char *end = strchr(start, '\n');
        if (end == NULL)
            break;
        char *data = strndup(start, (size_t)(end - start));
        cJSON *json = cJSON_Parse(data);
        free(data);
        const char *piece = NULL;
        if (form <= ANTHROPIC_JSON) {
            piece = jstr(get_path(json, "delta.partial_json"));
            if (piece == NULL && jstr(get_path(json, "delta.type")) &&
                strcmp(jstr(get_path(json, "delta.type")), "text_delta") == 0)
                piece = jstr(get_path(json, "delta.text"));
        } else if (form <= CHAT_JSON) {
            piece = form == CHAT_TOOL ? jstr(get_path(json, "choices.0.delta.tool_calls.0.function.arguments"))
                                      : jstr(get_path(json, "choices.0.delta.content"));
        } else {
            const char *type = jstr(get_path(json, "type"));
            const char *wanted = form == RESPONSES_TOOL ? "response.function_call_arguments.delta"
                                                        : "response.output_text.delta";
            if (type && strcmp(type, wanted) == 0)
                piece = jstr(get_path(json, "delta"));
        }
        if (piece) {
            size_t n = strlen(piece);
            memcpy(out + len, piece, n);
            len += n;
            out[len] = '\0';
        }
        cJSON_Delete(json);
    }
    return out;
}

static bool same_json_text(const char *a, const char *b)
{
    if (strcmp(a, b) == 0)
        return true;
    cJSON *x = cJSON_Parse(a), *y = cJSON_Parse(b);
    bool same = x && y && cJSON_Compare(x, y, true);
    cJSON_Delete(x);
    cJSON_Delete(y);
    return same;
}

static int run_counter;

/* One request of `form`; its journal entry's derive object must name `schema_from`. */
static gt_test_response play(const char *scenario, form_id form, const char *schema, bool stream, char *run,
                             size_t run_len)
{
    snprintf(run, run_len, "r%d", ++run_counter);
    char path[256];
    snprintf(path, sizeof path, "/s/%s/%s%s", scenario, run, route_of(form));
    char *body = request_body(form, schema, stream);
    gt_test_response r = gt_test_mock_request(server, NULL, path, body, NULL);
    free(body);
    return r;
}

static cJSON *journal_entry(const char *scenario, const char *run, cJSON **root)
{
    char session[256];
    snprintf(session, sizeof session, "%s/%s", scenario, run);
    char *text = gt_mock_journal_json(server, session);
    *root = cJSON_Parse(text);
    free(text);
    ck_assert_ptr_nonnull(*root);
    cJSON *entry = cJSON_GetArrayItem(cJSON_GetObjectItem(*root, "entries"), 0);
    ck_assert_ptr_nonnull(entry);
    return entry;
}

START_TEST(each_operator_in_each_form_from_the_clients_schema)
{
    static const struct {
        const char *name, *derive;
        gt_derive_op op;
    } ops[] = {{"d-echo", "\"schema-echo\"", GT_DERIVE_SCHEMA_ECHO},
               {"d-nested", "\"nested-as-string\"", GT_DERIVE_NESTED_AS_STRING},
               {"d-loose", "\"loose-placeholder\"", GT_DERIVE_LOOSE_PLACEHOLDER},
               {"d-enum", "\"enum-case\"", GT_DERIVE_ENUM_CASE},
               {"d-valid", "\"valid\"", GT_DERIVE_VALID}};
    for (size_t o = 0; o < sizeof ops / sizeof *ops; o++) {
        add_scenario(ops[o].name, ops[o].derive);
        gt_derive_spec spec = spec_of(ops[o].op);
        char *expected = derive_ok(&spec, TICKET), *scripted = derive_ok(&spec, SCRIPT_SCHEMA);
        ck_assert_str_ne(expected, scripted);
        for (int f = 0; f < FORM_COUNT; f++)
            for (int stream = 0; stream < 2; stream++) {
                char run[32], stop[40];
                gt_test_response r = play(ops[o].name, (form_id)f, TICKET, stream, run, sizeof run);
                ck_assert_msg(r.status == 200, "%s %s: status %ld", ops[o].name, form_names[f], r.status);
                bool finished = true;
                char *got = stream ? answer_of_stream((form_id)f, r.body, &finished)
                                   : answer_of_json((form_id)f, r.body, stop, sizeof stop);
                ck_assert_msg(got && same_json_text(got, expected) && finished, "%s, %s, %s: got %s, wanted %s\n%s",
                              ops[o].name, form_names[f], stream ? "streamed" : "JSON", got ? got : "(none)",
                              expected, r.body);
                free(got);
                gt_test_response_free(&r);
                cJSON *root, *entry = journal_entry(ops[o].name, run, &root);
                ck_assert_str_eq(jstr(get_path(entry, "derive.op")), gt_derive_op_name(ops[o].op));
                ck_assert(cJSON_IsTrue(get_path(entry, "derive.expressible")));
                const char *from = jstr(get_path(entry, "derive.schema_from"));
                ck_assert_msg(from && strcmp(from, "script") != 0 && (strstr(from, "schema") || strstr(from, "parameters")),
                              "%s", from ? from : "(none)");
                cJSON_Delete(root);
            }
        free(expected);
        free(scripted);
    }
}
END_TEST

START_TEST(cut_at_in_each_form)
{
    add_scenario("d-cut", "{\"op\":\"cut-at\",\"at\":\"between_members\",\"nth\":2}");
    add_scenario("d-cut-mt", "{\"op\":\"cut-at\",\"at\":\"inside_string\",\"nth\":2,\"end\":\"max_tokens\"}");
    gt_derive_spec between = cut_spec(GT_DERIVE_BETWEEN_MEMBERS, 2, false);
    gt_derive_spec inside = cut_spec(GT_DERIVE_INSIDE_STRING, 2, true);
    char *prefix = derive_ok(&between, TICKET), *prefix_mt = derive_ok(&inside, TICKET);
    for (int f = 0; f < FORM_COUNT; f++) {
        char run[32], stop[40];
        /* streamed: every byte of the prefix, then the connection drops before the terminal event */
        gt_test_response r = play("d-cut", (form_id)f, TICKET, true, run, sizeof run);
        bool finished = true;
        char *got = answer_of_stream((form_id)f, r.body, &finished);
        ck_assert_msg(strcmp(got, prefix) == 0 && !finished, "%s: got %s, wanted %s, finished %d\n%s", form_names[f],
                      got, prefix, finished, r.body);
        ck_assert_msg(r.code != CURLE_OK, "%s: the cut stream ended cleanly", form_names[f]);
        free(got);
        gt_test_response_free(&r);
        cJSON *root, *entry = journal_entry("d-cut", run, &root);
        ck_assert_str_eq(jstr(get_path(entry, "derive.at")), "between_members");
        cJSON_Delete(root);
        /* not streamed: a JSON body that never finishes */
        r = play("d-cut", (form_id)f, TICKET, false, run, sizeof run);
        cJSON *json = cJSON_Parse(r.body);
        ck_assert_msg(json == NULL, "%s: a whole JSON body for a cut answer: %s", form_names[f], r.body);
        gt_test_response_free(&r);
        /* end max_tokens: a complete response holding the prefix, stopped for length */
        for (int stream = 0; stream < 2; stream++) {
            r = play("d-cut-mt", (form_id)f, TICKET, stream, run, sizeof run);
            ck_assert_int_eq(r.status, 200);
            got = stream ? answer_of_stream((form_id)f, r.body, &finished)
                         : answer_of_json((form_id)f, r.body, stop, sizeof stop);
            ck_assert_msg(got && strcmp(got, prefix_mt) == 0, "%s max_tokens %d: got %s, wanted %s\n%s",
                          form_names[f], stream, got ? got : "(none)", prefix_mt, r.body);
            if (!stream)
                ck_assert_msg(strcmp(stop, f <= ANTHROPIC_JSON ? "max_tokens" : f <= CHAT_JSON ? "length" : "incomplete")
                                  == 0,
                              "%s: stop %s", form_names[f], stop);
            free(got);
            gt_test_response_free(&r);
        }
    }
    free(prefix);
    free(prefix_mt);
}
END_TEST

START_TEST(a_client_schema_that_rules_the_operator_out_is_inexpressible)
{
    add_scenario("d-enum2", "\"enum-case\"");
    add_scenario("d-cut2", "{\"op\":\"cut-at\",\"at\":\"between_members\",\"nth\":1}");
    struct {
        const char *scenario;
        form_id form;
        bool stream;
    } plays[] = {{"d-enum2", CHAT_JSON, false}, {"d-enum2", ANTHROPIC_TOOL, false}, {"d-cut2", ANTHROPIC_TOOL, true},
                 {"d-cut2", RESPONSES_TOOL, true}};
    for (size_t i = 0; i < sizeof plays / sizeof *plays; i++) {
        char run[32];
        gt_test_response r = play(plays[i].scenario, plays[i].form, FLAT, plays[i].stream, run, sizeof run);
        /* the script's own answer is served (from its schema, with an enum and two members) */
        ck_assert_msg(strstr(r.body, "cause") != NULL, "%s: %s", form_names[plays[i].form], r.body);
        gt_test_response_free(&r);
        cJSON *root, *entry = journal_entry(plays[i].scenario, run, &root);
        ck_assert_msg(cJSON_IsFalse(get_path(entry, "answer_form.expressible")), "%s %s: no inexpressible mark",
                      plays[i].scenario, form_names[plays[i].form]);
        const char *why = jstr(get_path(entry, "answer_form.inexpressible"));
        ck_assert_msg(why && strstr(why, "cannot apply to the client's schema") != NULL,
                      "%s", why ? why : "(none)");
        ck_assert(cJSON_IsFalse(get_path(entry, "derive.expressible")));
        cJSON_Delete(root);
    }
    /* json_object carries no schema, and the mirroring reference client keeps the script's resolution */
    char run[32];
    snprintf(run, sizeof run, "r%d", ++run_counter);
    char path[128];
    snprintf(path, sizeof path, "/s/d-enum2/%s/v1/chat/completions", run);
    gt_test_response r = gt_test_mock_request(server, NULL, path,
                                              "{\"model\":\"g\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
                                              "\"response_format\":{\"type\":\"json_object\"}}",
                                              NULL);
    ck_assert_ptr_nonnull(strstr(r.body, "DISK"));
    gt_test_response_free(&r);
    cJSON *root, *entry = journal_entry("d-enum2", run, &root);
    ck_assert_str_eq(jstr(get_path(entry, "derive.schema_from")), "script");
    cJSON_Delete(root);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("derive");
    TCase *ops = tcase_create("operators");
    tcase_add_test(ops, each_operator_gives_its_exact_text);
    tcase_add_test(ops, valid_is_valid_and_the_faults_are_not);
    tcase_add_test(ops, impossible_operators_are_inexpressible);
    suite_add_tcase(suite, ops);
    TCase *scripts = tcase_create("scripts");
    tcase_add_test(scripts, bad_derive_values_name_the_field);
    tcase_add_test(scripts, the_cli_names_the_file_and_the_field);
    tcase_add_test(scripts, derive_turns_play_in_process);
    suite_add_tcase(suite, scripts);
    TCase *http = tcase_create("mock");
    tcase_add_checked_fixture(http, start, stop);
    tcase_set_timeout(http, 60);
    tcase_add_test(http, each_operator_in_each_form_from_the_clients_schema);
    tcase_add_test(http, cut_at_in_each_form);
    tcase_add_test(http, a_client_schema_that_rules_the_operator_out_is_inexpressible);
    suite_add_tcase(suite, http);
    return suite;
}

GT_TEST_MAIN()
