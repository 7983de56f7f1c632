/* loop.c — the StructuredOutput agent loop of seed 000, as a state machine.
 *
 * One call runs one query: check the caller's schema, then alternate model
 * turns and tool execution until a validated StructuredOutput call survives
 * (success), the attempt limit is reached with nothing surviving
 * (error_max_structured_output_retries), the model stops for good
 * (error_no_structured_output, or the retracted variant), the turn limit hits
 * (error_max_turns), or a response is unusable (error_during_execution with
 * the stream reason). A stream that fails in transport (cut, malformed, an
 * error event) is seed 000's fallback: its partial message is tombstoned and
 * the request sent again within the API retry budget. A pause_turn response
 * is sent back to resume the turn; it is not the model stopping. Every figure of the accounting is computed the way the
 * seed defines it, from the message graph, not from a running counter.
 * Not for: transport (the gt_loop_model does it) or script parsing. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gauntlet/loop.h"
#include "gauntlet/wire.h"
#include "gauntlet/parse.h"
#include "gauntlet/schema.h"

static const char *const subtype_names[GT_LOOP_SUBTYPE_COUNT] = {
    [GT_LOOP_SUCCESS] = "success",
    [GT_LOOP_ERROR_MAX_STRUCTURED_OUTPUT_RETRIES] = "error_max_structured_output_retries",
    [GT_LOOP_ERROR_MAX_TURNS] = "error_max_turns",
    [GT_LOOP_ERROR_DURING_EXECUTION] = "error_during_execution",
    [GT_LOOP_ERROR_NO_STRUCTURED_OUTPUT] = "error_no_structured_output",
    [GT_LOOP_ERROR_INVALID_JSON_SCHEMA] = "error_invalid_json_schema",
};

const char *gt_loop_subtype_name(gt_loop_subtype subtype)
{
    return (unsigned)subtype < GT_LOOP_SUBTYPE_COUNT ? subtype_names[subtype] : "unknown";
}

void gt_loop_config_init(gt_loop_config *config)
{
    *config = (gt_loop_config){0};
    config->max_attempts = GT_LOOP_DEFAULT_MAX_ATTEMPTS;
    config->max_api_retries = GT_LOOP_DEFAULT_API_RETRIES;
    config->structured_output_tool = true;
}

int gt_loop_attempts_from_env(const char *text, int *out)
{
    if (text == NULL)
        return -1;
    const char *p = text;
    bool negative = false;
    if (*p == '+' || *p == '-')
        negative = *p++ == '-';
    if (!isdigit((unsigned char)*p))
        return -1;
    long long number = 0;
    for (; isdigit((unsigned char)*p); p++) {
        number = number * 10 + (*p - '0');
        if (number > 1000000000LL)
            return -1;
    }
    if (*p != '\0')
        return -1;
    *out = (int)(negative ? -number : number);
    return 0;
}

/* ---- state ---- */

typedef struct attachment {
    const char *tool_use_id;
    const char *message_id;
    const gt_value *value;
    bool alive;
} attachment;

typedef struct loop_state {
    const gt_loop_config *config;
    const gt_loop_model *model;
    gt_loop_result *result;
    gt_arena *arena;
    gt_buffer transcript;
    gt_schema *schema;
    gt_schema_errors errors;
    bool requires_structured_output;
    bool strict;
    const char *strict_schema_json; /* the seed-000 strict conversion sent while strict holds */
    bool fallback_model;
    bool enforce_sent;
    int baseline_calls;   /* StructuredOutput calls in the graph when the query started */
    size_t first_feedback; /* graph index after the query's prompt: user entries from here are feedback */
    int tombstoned_calls; /* StructuredOutput calls tombstoned during this query */
    gt_loop_entry *graph;
    size_t graph_count, graph_cap;
    attachment *attachments;
    size_t attachment_count, attachment_cap;
    const char **tombstoned_ids;
    size_t tombstoned_count, tombstoned_cap;
    const char **errors_out;
    size_t errors_out_count, errors_out_cap;
    bool out_of_memory;
} loop_state;

static void note(loop_state *state, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void note(loop_state *state, const char *format, ...)
{
    char line[1024];
    va_list args;
    va_start(args, format);
    vsnprintf(line, sizeof line, format, args);
    va_end(args);
    gt_buffer_append(&state->transcript, line, strlen(line));
    gt_buffer_append(&state->transcript, "\n", 1);
}

/* Grow a malloc'd array of `size`-byte items to hold one more. */
static bool grow(loop_state *state, void **items, size_t count, size_t *cap, size_t size)
{
    if (count < *cap)
        return true;
    size_t new_cap = *cap ? *cap * 2 : 8;
    void *grown = realloc(*items, new_cap * size);
    if (grown == NULL) {
        state->out_of_memory = true;
        return false;
    }
    *items = grown;
    *cap = new_cap;
    return true;
}

static const char *copy(loop_state *state, const char *text, size_t len)
{
    const char *result = gt_arena_strndup(state->arena, text ? text : "", text ? len : 0);
    if (result == NULL)
        state->out_of_memory = true;
    return result;
}

static const char *copy_cstr(loop_state *state, const char *text)
{
    return text ? copy(state, text, strlen(text)) : NULL;
}

static gt_loop_entry *graph_push(loop_state *state, gt_loop_role role, const char *id, const gt_block *blocks,
                                 size_t count)
{
    if (!grow(state, (void **)&state->graph, state->graph_count, &state->graph_cap, sizeof *state->graph))
        return NULL;
    gt_loop_entry *entry = &state->graph[state->graph_count++];
    memset(entry, 0, sizeof *entry);
    entry->role = role;
    entry->id = id;
    entry->blocks = blocks;
    entry->block_count = count;
    return entry;
}

static void add_error(loop_state *state, const char *format, ...) __attribute__((format(printf, 2, 3)));
enum { ERROR_CAP = 1023 }; /* bytes of one envelope error (a provider's message can be any length) */

static void add_error(loop_state *state, const char *format, ...)
{
    char line[ERROR_CAP + 4]; /* the cap and the bytes of the code point it may cut */
    va_list args;
    va_start(args, format);
    vsnprintf(line, sizeof line, format, args);
    va_end(args);
    size_t len = strlen(line);
    if (len > ERROR_CAP) /* cut on a code point boundary: the envelope stays UTF-8 (RFC 8259 8.1) */
        for (len = ERROR_CAP; len > 0 && ((unsigned char)line[len] & 0xC0u) == 0x80u; len--)
            ;
    if (!grow(state, (void **)&state->errors_out, state->errors_out_count, &state->errors_out_cap,
              sizeof *state->errors_out))
        return;
    state->errors_out[state->errors_out_count++] = copy(state, line, len);
}

static bool is_structured_output_call(const gt_block *block)
{
    return block->type == GT_BLOCK_TOOL_USE && block->name != NULL && strcmp(block->name, GT_LOOP_TOOL_NAME) == 0;
}

/* StructuredOutput calls in the current (live) message graph. */
static int graph_calls(const loop_state *state)
{
    int calls = 0;
    for (size_t i = 0; i < state->graph_count; i++) {
        const gt_loop_entry *entry = &state->graph[i];
        if (entry->role != GT_LOOP_ASSISTANT || entry->tombstoned)
            continue;
        for (size_t b = 0; b < entry->block_count; b++)
            calls += is_structured_output_call(&entry->blocks[b]);
    }
    return calls;
}

/* The seed's formula: calls in the graph + tombstoned this query - calls before it. */
static int attempts_used(const loop_state *state)
{
    return graph_calls(state) + state->tombstoned_calls - state->baseline_calls;
}

static const attachment *last_surviving(const loop_state *state)
{
    for (size_t i = state->attachment_count; i-- > 0;)
        if (state->attachments[i].alive)
            return &state->attachments[i];
    return NULL;
}

static bool is_tombstoned_id(const loop_state *state, const char *id)
{
    for (size_t i = 0; id != NULL && i < state->tombstoned_count; i++)
        if (strcmp(state->tombstoned_ids[i], id) == 0)
            return true;
    return false;
}

/* ---- schema checks (before any model call) ---- */

static int check_schema(loop_state *state)
{
    const gt_loop_config *config = state->config;
    gt_loop_result *result = state->result;
    gt_arena *scratch = gt_arena_new();
    if (scratch == NULL) {
        state->out_of_memory = true;
        return -1;
    }
    /* JSON.parse semantics: any nesting and any number are JSON; how deep or
     * big a schema may be is the size guard's decision (seed 000: "not a
     * valid JSON Schema"), not the parser's. */
    gt_parse_options parse_options;
    gt_parse_options_init(&parse_options);
    parse_options.max_depth = GT_SCHEMA_PARSE_MAX_DEPTH;
    parse_options.allow_big_integers = true;
    parse_options.max_bytes = GT_SCHEMA_PARSE_MAX_BYTES;
    gt_parse_error error;
    const gt_value *root =
        gt_parse(scratch, config->json_schema_text, config->json_schema_len, &parse_options, &error);
    const char *reason = NULL, *text = NULL;
    char detail[800] = "";
    if (root == NULL) {
        reason = "json_schema_not_json", text = GT_LOOP_SCHEMA_NOT_JSON;
        snprintf(detail, sizeof detail, "%s at %u:%u: %s", gt_syntax_reason_code(error.reason), error.line,
                 error.column, error.message);
    } else if (root->type != GT_OBJECT) {
        reason = "json_schema_not_object", text = GT_LOOP_SCHEMA_NOT_OBJECT;
        snprintf(detail, sizeof detail, "the value is %s", root->type == GT_ARRAY    ? "an array"
                                                           : root->type == GT_NULL   ? "null"
                                                           : root->type == GT_STRING ? "a string"
                                                           : root->type == GT_NUMBER ? "a number"
                                                                                     : "a boolean");
    } else {
        gt_schema_options options;
        gt_schema_options_init(&options);
        options.assert_formats = false; /* AJV validateFormats:false */
        options.max_nodes = GT_SCHEMA_MAX_NODES;
        options.max_depth = GT_SCHEMA_MAX_DEPTH;
        gt_schema_problem problem;
        memset(&problem, 0, sizeof problem);
        state->schema = gt_schema_compile_value(root, &options, &problem);
        if (state->schema == NULL) {
            reason = "json_schema_invalid", text = GT_LOOP_SCHEMA_INVALID;
            snprintf(detail, sizeof detail, "%s at \"%s\": %s", gt_schema_problem_code_str(problem.code),
                     problem.location, problem.message);
        }
    }
    gt_arena_free(scratch);
    if (reason == NULL)
        return 0;
    result->subtype = GT_LOOP_ERROR_INVALID_JSON_SCHEMA;
    result->reason = reason;
    result->detail = copy_cstr(state, detail);
    add_error(state, "%s", text);
    note(state, "startup: %s (%s); the loop does not start", text, detail);
    return 1;
}

/* ---- the StructuredOutput tool ---- */

/* Append the schema errors as "path: message (keyword)" items, capped. */
static const char *schema_error_text(loop_state *state)
{
    gt_buffer text = {0};
    gt_buffer_append(&text, GT_LOOP_SCHEMA_ERROR_PREFIX, strlen(GT_LOOP_SCHEMA_ERROR_PREFIX));
    for (size_t i = 0; i < state->errors.count; i++) {
        const gt_schema_error *error = &state->errors.items[i];
        const char *path = error->instance_path && error->instance_path[0] ? error->instance_path : "root";
        gt_buffer_appendf(&text, "%s%s: %s (%s)", i ? "; " : "", path, error->message ? error->message : "",
                          error->keyword ? error->keyword : "");
    }
    if (text.failed) {
        gt_buffer_free(&text);
        state->out_of_memory = true;
        return NULL;
    }
    size_t len = text.len;
    if (len > GT_LOOP_TOOL_RESULT_CAP) /* the seed's display cap, on a code point boundary */
        for (len = GT_LOOP_TOOL_RESULT_CAP; len > 0 && ((unsigned char)text.data[len] & 0xC0u) == 0x80u; len--)
            ;
    const char *result = copy(state, text.data, len);
    gt_buffer_free(&text);
    return result;
}

/* Run one StructuredOutput call. Fills the tool_result block. */
static void run_structured_output(loop_state *state, const gt_loop_entry *entry, const gt_block *call,
                                  gt_block *tool_result)
{
    tool_result->type = GT_BLOCK_TOOL_RESULT;
    tool_result->id = call->id;
    const char *text = NULL;
    char line[512];
    if (!state->config->structured_output_tool || state->schema == NULL) {
        snprintf(line, sizeof line, "Error: No such tool available: %s", GT_LOOP_TOOL_NAME);
        text = copy_cstr(state, line);
        tool_result->is_error = true;
    } else if (call->input == NULL) {
        snprintf(line, sizeof line, "StructuredOutput input is not valid JSON: %s at %u:%u: %s",
                 gt_syntax_reason_code(call->input_error.reason), call->input_error.line, call->input_error.column,
                 call->input_error.message);
        text = copy_cstr(state, line);
        tool_result->is_error = true;
    } else if (call->input->type != GT_OBJECT) {
        snprintf(line, sizeof line, "StructuredOutput input must be a JSON object, not %s",
                 call->input->type == GT_ARRAY ? "an array" : gt_type_name(call->input->type));
        text = copy_cstr(state, line);
        tool_result->is_error = true;
    } else {
        gt_schema_result verdict = gt_schema_validate(state->schema, call->input, &state->errors);
        if (verdict == GT_SCHEMA_VALID) {
            if (grow(state, (void **)&state->attachments, state->attachment_count, &state->attachment_cap,
                     sizeof *state->attachments)) {
                attachment *item = &state->attachments[state->attachment_count++];
                item->tool_use_id = call->id;
                item->message_id = entry->id;
                item->value = call->input;
                item->alive = true;
            }
            text = GT_LOOP_TOOL_SUCCESS_TEXT;
        } else if (verdict == GT_SCHEMA_INVALID || gt_schema_failure_is_limit(state->errors.failure)) {
            text = schema_error_text(state); /* a bound hit is one error naming it (regex_limit, ...) */
            tool_result->is_error = true;
        } else {
            text = "Error: schema validation failed (out of memory)";
            tool_result->is_error = true;
        }
    }
    if (text == NULL)
        text = "";
    tool_result->text = text;
    tool_result->text_len = strlen(text);
    note(state, "  tool %s %s: %s%.*s%s", GT_LOOP_TOOL_NAME, call->id ? call->id : "?",
         tool_result->is_error ? "error: " : "", (int)(tool_result->text_len > 300 ? 300 : tool_result->text_len),
         tool_result->text, tool_result->text_len > 300 ? "..." : "");
}

/* ---- fallback and late attachments ---- */

/* Tombstone `target`: its StructuredOutput calls are recorded as retracted
 * this query (they count as attempts) and their attachments deleted.
 * Returns the number of calls retracted. */
static int tombstone_entry(loop_state *state, gt_loop_entry *target)
{
    target->tombstoned = true;
    int calls = 0;
    for (size_t b = 0; b < target->block_count; b++) {
        const gt_block *block = &target->blocks[b];
        if (!is_structured_output_call(block))
            continue;
        calls++;
        if (block->id != NULL &&
            grow(state, (void **)&state->tombstoned_ids, state->tombstoned_count, &state->tombstoned_cap,
                 sizeof *state->tombstoned_ids))
            state->tombstoned_ids[state->tombstoned_count++] = block->id;
        for (size_t a = 0; a < state->attachment_count; a++)
            if (block->id != NULL && strcmp(state->attachments[a].tool_use_id, block->id) == 0)
                state->attachments[a].alive = false;
    }
    state->tombstoned_calls += calls;
    return calls;
}

static void retract(loop_state *state, const gt_loop_notice *notice)
{
    gt_loop_entry *target = NULL;
    for (size_t i = state->graph_count; i-- > 0;) {
        gt_loop_entry *entry = &state->graph[i];
        if (entry->role != GT_LOOP_ASSISTANT || entry->tombstoned)
            continue;
        if (notice->message_id == NULL || (entry->id != NULL && strcmp(entry->id, notice->message_id) == 0)) {
            target = entry;
            break;
        }
    }
    state->fallback_model = true;
    if (target == NULL) {
        note(state, "  fallback (turn %zu): no live assistant message %s to retract", notice->turn,
             notice->message_id ? notice->message_id : "");
        return;
    }
    int calls = tombstone_entry(state, target);
    /* The user entry answering the retracted calls goes with them. */
    for (size_t i = 0; i < state->graph_count; i++) {
        gt_loop_entry *entry = &state->graph[i];
        if (entry->role != GT_LOOP_USER || entry->tombstoned || entry->block_count == 0)
            continue;
        bool answers = true;
        for (size_t b = 0; b < entry->block_count && answers; b++) {
            const gt_block *block = &entry->blocks[b];
            bool mine = false;
            for (size_t t = 0; block->type == GT_BLOCK_TOOL_RESULT && t < target->block_count; t++)
                mine = mine || (target->blocks[t].type == GT_BLOCK_TOOL_USE && target->blocks[t].id && block->id &&
                                strcmp(target->blocks[t].id, block->id) == 0);
            answers = mine;
        }
        if (answers)
            entry->tombstoned = true;
    }
    note(state, "  fallback (turn %zu): tombstone %s, %d StructuredOutput call%s retracted, attachments deleted",
         notice->turn, target->id ? target->id : "(assistant message)", calls, calls == 1 ? "" : "s");
}

static void late_attachment(loop_state *state, const gt_loop_notice *notice)
{
    state->result->late_attachments_dropped++;
    note(state, "  late attachment (turn %zu) for %s: dropped (%s)", notice->turn,
         notice->tool_use_id ? notice->tool_use_id : "?",
         is_tombstoned_id(state, notice->tool_use_id) ? "its tool_use was retracted"
                                                      : "not produced by this query's StructuredOutput tool");
}

/* Apply the client-side events that came with a reply, in order. */
static void apply_notices(loop_state *state, const gt_loop_notice *notices, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (notices[i].kind == GT_LOOP_NOTICE_FALLBACK)
            retract(state, &notices[i]);
        else
            late_attachment(state, &notices[i]);
}

/* A stream that failed in transport (seed 000's fallback): the partial
 * assistant message enters the graph already tombstoned, so it is never sent
 * and nothing in it runs, and every StructuredOutput call it had started is
 * retracted (an attempt: the model work happened). */
static void tombstone_partial(loop_state *state, const gt_message *partial, size_t turn)
{
    if (partial == NULL)
        return;
    char fallback_id[48];
    const char *id = partial->id;
    if (id == NULL) {
        snprintf(fallback_id, sizeof fallback_id, "msg_partial_%d", state->result->accounting.model_calls);
        id = copy_cstr(state, fallback_id);
    }
    gt_loop_entry *entry = graph_push(state, GT_LOOP_ASSISTANT, id, partial->blocks, partial->block_count);
    if (entry == NULL)
        return;
    int calls = tombstone_entry(state, entry);
    note(state, "  partial message %s (turn %zu) tombstoned: %zu block%s, %d StructuredOutput call%s retracted", id,
         turn, partial->block_count, partial->block_count == 1 ? "" : "s", calls, calls == 1 ? "" : "s");
}

/* ---- provider errors ---- */

static bool contains_ci(const char *haystack, const char *needle)
{
    if (haystack == NULL)
        return false;
    size_t n = strlen(needle);
    for (const char *p = haystack; *p; p++)
        if (strncasecmp(p, needle, n) == 0)
            return true;
    return false;
}

/* The capability 400: the deployment does not support strict tools / structured outputs. */
static bool is_capability_400(const loop_state *state, const gt_loop_reply *reply)
{
    return reply->http_status == 400 && state->strict &&
           (contains_ci(reply->error_message, "strict") || contains_ci(reply->error_message, "structured_output") ||
            contains_ci(reply->error_message, "structured output"));
}

static bool is_retryable(const gt_loop_reply *reply)
{
    int status = reply->http_status;
    if (status == 429 || status == 500 || status == 502 || status == 503 || status == 504 || status == 529)
        return true;
    const char *type = reply->error_type ? reply->error_type : "";
    return strcmp(type, "overloaded_error") == 0 || strcmp(type, "rate_limit_error") == 0 ||
           strcmp(type, "api_error") == 0;
}

/* ---- the loop ---- */

typedef enum step { STEP_CONTINUE, STEP_DONE } step;

static step finish(loop_state *state, gt_loop_subtype subtype)
{
    state->result->subtype = subtype;
    return STEP_DONE;
}

static void add_usage(gt_usage *sum, const gt_usage *usage)
{
    sum->input_tokens += usage->input_tokens;
    sum->output_tokens += usage->output_tokens;
    sum->cache_creation_input_tokens += usage->cache_creation_input_tokens;
    sum->cache_read_input_tokens += usage->cache_read_input_tokens;
}

static void describe_message(loop_state *state, size_t turn, const gt_message *message)
{
    gt_buffer line = {0};
    gt_buffer_appendf(&line, "<- turn %zu: %s", turn, message->id ? message->id : "(no id)");
    for (size_t i = 0; i < message->block_count; i++) {
        const gt_block *block = &message->blocks[i];
        if (block->type == GT_BLOCK_TOOL_USE)
            gt_buffer_appendf(&line, " | tool_use %s %s %.*s%s", block->name ? block->name : "?",
                              block->id ? block->id : "?", (int)(block->input_len > 120 ? 120 : block->input_len),
                              block->input_text ? block->input_text : "", block->input_len > 120 ? "..." : "");
        else if (block->type == GT_BLOCK_TEXT)
            gt_buffer_appendf(&line, " | text \"%.*s%s\"", (int)(block->text_len > 80 ? 80 : block->text_len),
                              block->text ? block->text : "", block->text_len > 80 ? "..." : "");
        else if (block->type == GT_BLOCK_THINKING)
            gt_buffer_appendf(&line, " | thinking");
    }
    gt_buffer_appendf(&line, " | stop_reason %s", message->stop_reason ? message->stop_reason : "(none)");
    if (!line.failed)
        note(state, "%s", line.data);
    gt_buffer_free(&line);
}

/* A forcing tool_choice is honoured: `any` needs a tool call, `tool` a call
 * of that tool. A pause_turn is not the model's answer yet. */
static bool follows_tool_choice(const gt_loop_config *config, const gt_message *message)
{
    if (config->tool_choice == GT_LOOP_TOOL_CHOICE_AUTO ||
        (message->stop_reason != NULL && strcmp(message->stop_reason, "pause_turn") == 0))
        return true;
    for (size_t i = 0; i < message->block_count; i++) {
        const gt_block *block = &message->blocks[i];
        if (block->type != GT_BLOCK_TOOL_USE)
            continue;
        if (config->tool_choice == GT_LOOP_TOOL_CHOICE_ANY ||
            (block->name != NULL && config->tool_choice_name != NULL && strcmp(block->name, config->tool_choice_name) == 0))
            return true;
    }
    return false;
}

/* Send until a usable message arrives (or the query ends). */
static step next_message(loop_state *state, gt_message **out, size_t *turn_out, const gt_loop_notice **notices,
                         size_t *notice_count)
{
    gt_loop_result *result = state->result;
    int retries = 0;
    for (;;) {
        /* The live graph, as the request carries it. */
        gt_loop_entry *live = gt_arena_alloc(state->arena, (state->graph_count + 1) * sizeof *live);
        if (live == NULL) {
            state->out_of_memory = true;
            return finish(state, GT_LOOP_ERROR_DURING_EXECUTION);
        }
        size_t live_count = 0;
        for (size_t i = 0; i < state->graph_count; i++)
            if (!state->graph[i].tombstoned)
                live[live_count++] = state->graph[i];
        gt_loop_request request = {
            .api_attempt = (size_t)result->accounting.api_attempts + 1,
            .model_turn = (size_t)result->accounting.model_calls + 1,
            .messages = live,
            .message_count = live_count,
            .structured_output_tool = state->requires_structured_output,
            .tool_schema_json = !state->requires_structured_output ? NULL
                                : state->strict && state->strict_schema_json ? state->strict_schema_json
                                                                              : state->config->json_schema_text,
            .strict = state->strict,
            .fallback_model = state->fallback_model,
            .tool_choice = state->config->tool_choice,
            .tool_choice_name = state->config->tool_choice_name,
            .server_tools_json = state->config->server_tools_json,
        };
        result->accounting.api_attempts++;
        note(state, "-> request %zu (model turn %zu, %zu message%s%s%s)", request.api_attempt, request.model_turn,
             live_count, live_count == 1 ? "" : "s", request.strict ? ", strict" : "",
             request.fallback_model ? ", fallback model" : "");
        gt_loop_reply reply;
        memset(&reply, 0, sizeof reply);
        char err[256] = "";
        if (state->model->send(state->model->state, &request, state->arena, &reply, err, sizeof err) != 0) {
            note(state, "<- no reply: %s", err);
            add_error(state, "model transport failed: %s", err);
            return finish(state, GT_LOOP_ERROR_DURING_EXECUTION);
        }
        *notices = reply.notices;
        *notice_count = reply.notice_count;
        *turn_out = reply.turn;
        if (reply.kind == GT_LOOP_REPLY_ERROR) {
            note(state, "<- turn %zu: HTTP %d %s: %s", reply.turn, reply.http_status,
                 reply.error_type ? reply.error_type : "", reply.error_message ? reply.error_message : "");
            apply_notices(state, reply.notices, reply.notice_count);
            *notice_count = 0;
            if (is_capability_400(state, &reply)) {
                state->strict = false;
                result->strict_stripped = true;
                note(state, "  capability 400: strict is not supported here; remembered, retrying without strict");
                continue;
            }
            if (is_retryable(&reply) && retries < state->config->max_api_retries) {
                retries++;
                note(state, "  retryable provider error: retry %d of %d", retries, state->config->max_api_retries);
                continue;
            }
            add_error(state, "API Error: %d %s: %s", reply.http_status, reply.error_type ? reply.error_type : "error",
                      reply.error_message ? reply.error_message : "");
            return finish(state, GT_LOOP_ERROR_DURING_EXECUTION);
        }
        gt_message *message = reply.message, *partial = NULL;
        gt_stream_reason reason = GT_STREAM_OK;
        char detail[256] = "";
        if (reply.kind == GT_LOOP_REPLY_STREAM) {
            gt_stream_result streamed;
            reason = gt_stream_assemble(reply.provider, reply.sse, reply.sse_len, state->arena, &streamed);
            snprintf(detail, sizeof detail, "%s", streamed.detail);
            message = streamed.message;
            partial = streamed.partial;
            if (message == NULL)
                add_usage(&result->usage, &streamed.usage);
            note(state, "<- turn %zu: %s stream, %zu bytes, %zu events: %s%s%s", reply.turn,
                 gt_stream_provider_name(reply.provider), reply.sse_len, streamed.event_count,
                 gt_stream_reason_code(reason), detail[0] ? " - " : "", detail);
        } else if (message != NULL) {
            reason = gt_message_classify(message);
            if (reason == GT_STREAM_OK && gt_message_parse_inputs(message, state->arena) != 0)
                reason = GT_STREAM_OUT_OF_MEMORY;
        } else {
            reason = GT_STREAM_EMPTY_CONTENT;
        }
        result->accounting.model_calls++;
        if (message != NULL) {
            add_usage(&result->usage, &message->usage);
            describe_message(state, reply.turn, message);
        }
        if (reason != GT_STREAM_OK && gt_stream_reason_is_transport(reason)) {
            /* A transport fault, not the model's answer: tombstone what arrived, send again. */
            tombstone_partial(state, partial, reply.turn);
            apply_notices(state, reply.notices, reply.notice_count);
            *notice_count = 0;
            if (retries < state->config->max_api_retries) {
                retries++;
                note(state, "  %s: the request is sent again (retry %d of %d)", gt_stream_reason_code(reason), retries,
                     state->config->max_api_retries);
                continue;
            }
            note(state, "  %s: the API retry budget (%d) is spent", gt_stream_reason_code(reason),
                 state->config->max_api_retries);
        }
        if (reason != GT_STREAM_OK) {
            /* Quarantined: not appended to the graph, no tool runs. */
            result->stream_reason = reason;
            result->gate = "stream";
            result->reason = gt_stream_reason_code(reason);
            if (detail[0])
                result->detail = copy_cstr(state, detail);
            add_error(state, "the model response was quarantined: %s%s%s", gt_stream_reason_code(reason),
                      detail[0] ? ": " : "", detail);
            note(state, "  quarantined (%s): nothing in it is parsed or run", gt_stream_reason_code(reason));
            if (reason == GT_STREAM_OUT_OF_MEMORY)
                state->out_of_memory = true;
            return finish(state, GT_LOOP_ERROR_DURING_EXECUTION);
        }
        if (!follows_tool_choice(state->config, message)) {
            /* The provider broke its own contract: quarantined like an
             * unusable response, none of its tools run. */
            result->reason = "tool_choice_ignored";
            add_error(state, "the response ignored tool_choice %s%s: it calls no %s",
                      state->config->tool_choice == GT_LOOP_TOOL_CHOICE_ANY ? "any" : "tool ",
                      state->config->tool_choice == GT_LOOP_TOOL_CHOICE_ANY ? "" : state->config->tool_choice_name,
                      state->config->tool_choice == GT_LOOP_TOOL_CHOICE_ANY ? "tool" : "such tool");
            note(state, "  quarantined (tool_choice_ignored): nothing in it is run");
            return finish(state, GT_LOOP_ERROR_DURING_EXECUTION);
        }
        *out = message;
        return STEP_CONTINUE;
    }
}

static step one_turn(loop_state *state)
{
    gt_loop_result *result = state->result;
    if (state->config->max_turns > 0 && result->accounting.model_calls >= state->config->max_turns) {
        add_error(state, "Reached maximum number of turns (%d)", state->config->max_turns);
        note(state, "stop: max_turns %d reached", state->config->max_turns);
        return finish(state, GT_LOOP_ERROR_MAX_TURNS);
    }
    gt_message *message = NULL;
    size_t turn = 0;
    const gt_loop_notice *notices = NULL;
    size_t notice_count = 0;
    if (next_message(state, &message, &turn, &notices, &notice_count) == STEP_DONE)
        return STEP_DONE;

    char fallback_id[32];
    const char *id = message->id;
    if (id == NULL) {
        snprintf(fallback_id, sizeof fallback_id, "msg_%d", result->accounting.model_calls);
        id = copy_cstr(state, fallback_id);
    }
    gt_loop_entry *entry = graph_push(state, GT_LOOP_ASSISTANT, id, message->blocks, message->block_count);
    if (entry == NULL)
        return finish(state, GT_LOOP_ERROR_DURING_EXECUTION);
    size_t entry_index = state->graph_count - 1;

    /* Run the tools: StructuredOutput for real, the others as scripted. */
    size_t tool_count = 0;
    for (size_t i = 0; i < message->block_count; i++)
        tool_count += message->blocks[i].type == GT_BLOCK_TOOL_USE;
    gt_block *results = gt_arena_alloc(state->arena, (message->block_count ? message->block_count : 1) * sizeof *results);
    if (results == NULL) {
        state->out_of_memory = true;
        return finish(state, GT_LOOP_ERROR_DURING_EXECUTION);
    }
    size_t filled = 0;
    for (size_t i = 0; i < message->block_count; i++) {
        const gt_block *block = &message->blocks[i];
        if (block->type != GT_BLOCK_TOOL_USE)
            continue;
        gt_block *tool_result = &results[filled++];
        memset(tool_result, 0, sizeof *tool_result);
        if (is_structured_output_call(block)) {
            run_structured_output(state, &state->graph[entry_index], block, tool_result);
        } else {
            tool_result->type = GT_BLOCK_TOOL_RESULT;
            tool_result->id = block->id;
            tool_result->text = block->scripted_result ? block->scripted_result : "ok";
            tool_result->text_len = strlen(tool_result->text);
            tool_result->is_error = block->scripted_is_error;
            note(state, "  tool %s %s: %s%s", block->name ? block->name : "?", block->id ? block->id : "?",
                 tool_result->is_error ? "error: " : "", tool_result->text);
        }
    }

    /* Notices that came with this reply: a fallback, late attachments. */
    apply_notices(state, notices, notice_count);
    if (state->out_of_memory)
        return finish(state, GT_LOOP_ERROR_DURING_EXECUTION);
    bool retracted_now = state->graph[entry_index].tombstoned;

    const attachment *surviving = last_surviving(state);
    if (surviving != NULL) {
        note(state, "stop: StructuredOutput %s validated and survives; the turn ends", surviving->tool_use_id);
        return finish(state, GT_LOOP_SUCCESS);
    }
    int attempts = attempts_used(state);
    if (state->requires_structured_output && attempts >= state->config->max_attempts) {
        add_error(state, "Failed to provide valid structured output after %d attempts", attempts);
        note(state, "stop: %d attempt%s, limit %d, no surviving object", attempts, attempts == 1 ? "" : "s",
             state->config->max_attempts);
        return finish(state, GT_LOOP_ERROR_MAX_STRUCTURED_OUTPUT_RETRIES);
    }
    if (retracted_now) {
        /* Its tools ran, and their side effects are not rolled back (seed
         * 000): their results stay in the graph, tombstoned (never sent), so
         * the feedback shows what happened. */
        if (tool_count > 0) {
            gt_loop_entry *ran = graph_push(state, GT_LOOP_USER, NULL, results, tool_count);
            if (ran == NULL)
                return finish(state, GT_LOOP_ERROR_DURING_EXECUTION);
            ran->tombstoned = true;
        }
        note(state, "  the response was retracted: the request is retried with the fallback model");
        return STEP_CONTINUE;
    }
    if (tool_count > 0) {
        if (graph_push(state, GT_LOOP_USER, NULL, results, tool_count) == NULL)
            return finish(state, GT_LOOP_ERROR_DURING_EXECUTION);
        return STEP_CONTINUE;
    }
    /* A paused turn is not the model stopping: send it back as it is so the
     * model continues; the enforce message waits for a real stop. */
    if (message->stop_reason != NULL && strcmp(message->stop_reason, GT_STOP_PAUSE_TURN) == 0) {
        note(state, "  pause_turn: the paused turn is sent back to resume it (no enforce message)");
        return STEP_CONTINUE;
    }
    /* The model ended without calling a tool. */
    if (state->requires_structured_output && !state->enforce_sent) {
        gt_block *enforce = gt_arena_alloc(state->arena, sizeof *enforce);
        if (enforce == NULL) {
            state->out_of_memory = true;
            return finish(state, GT_LOOP_ERROR_DURING_EXECUTION);
        }
        memset(enforce, 0, sizeof *enforce);
        enforce->type = GT_BLOCK_TEXT;
        enforce->text = GT_LOOP_ENFORCE_TEXT;
        enforce->text_len = strlen(GT_LOOP_ENFORCE_TEXT);
        gt_loop_entry *meta = graph_push(state, GT_LOOP_USER, NULL, enforce, 1);
        if (meta == NULL)
            return finish(state, GT_LOOP_ERROR_DURING_EXECUTION);
        meta->is_meta = true;
        state->enforce_sent = true;
        result->accounting.enforce_messages++;
        note(state, "  stop without StructuredOutput: enforce message injected (%s)", GT_LOOP_ENFORCE_SENTINEL);
        return STEP_CONTINUE;
    }
    if (!state->requires_structured_output) {
        note(state, "stop: end of turn; structured output not required");
        return finish(state, GT_LOOP_SUCCESS);
    }
    if (state->tombstoned_calls > 0) {
        add_error(state,
                  "Failed to provide valid structured output: the result was retracted by a model fallback "
                  "(%d retracted call%s) and not provided again",
                  state->tombstoned_calls, state->tombstoned_calls == 1 ? "" : "s");
        note(state, "stop: only retracted objects; no surviving structured output");
        return finish(state, GT_LOOP_ERROR_MAX_STRUCTURED_OUTPUT_RETRIES);
    }
    add_error(state, "The model ended without providing valid structured output (%d attempt%s, limit %d, %d enforce "
                     "message%s)",
              attempts, attempts == 1 ? "" : "s", state->config->max_attempts, result->accounting.enforce_messages,
              result->accounting.enforce_messages == 1 ? "" : "s");
    note(state, "stop: the model ended again without a valid StructuredOutput call");
    return finish(state, GT_LOOP_ERROR_NO_STRUCTURED_OUTPUT);
}

/* Text of the last live assistant message. */
static const char *final_text(loop_state *state)
{
    for (size_t i = state->graph_count; i-- > 0;) {
        const gt_loop_entry *entry = &state->graph[i];
        if (entry->role != GT_LOOP_ASSISTANT || entry->tombstoned || entry->from_history)
            continue;
        gt_buffer text = {0};
        for (size_t b = 0; b < entry->block_count; b++)
            if (entry->blocks[b].type == GT_BLOCK_TEXT)
                gt_buffer_append(&text, entry->blocks[b].text, entry->blocks[b].text_len);
        const char *result = text.len ? copy(state, text.data, text.len) : NULL;
        gt_buffer_free(&text);
        return result;
    }
    return NULL;
}

/* The user-side blocks the loop added after the prompt (tool results, the
 * enforce message), in order, retracted ones marked. */
static void collect_feedback(loop_state *state)
{
    size_t count = 0;
    for (size_t i = state->first_feedback; state->first_feedback > 0 && i < state->graph_count; i++)
        count += state->graph[i].role == GT_LOOP_USER ? state->graph[i].block_count : 0;
    gt_loop_feedback *items = count ? gt_arena_alloc(state->arena, count * sizeof *items) : NULL;
    if (count > 0 && items == NULL) {
        state->out_of_memory = true;
        return;
    }
    size_t filled = 0;
    for (size_t i = state->first_feedback; items != NULL && i < state->graph_count; i++) {
        const gt_loop_entry *entry = &state->graph[i];
        for (size_t b = 0; entry->role == GT_LOOP_USER && b < entry->block_count; b++) {
            const gt_block *block = &entry->blocks[b];
            items[filled++] = (gt_loop_feedback){
                .tool_result = block->type == GT_BLOCK_TOOL_RESULT,
                .tool_use_id = block->type == GT_BLOCK_TOOL_RESULT ? block->id : NULL,
                .is_error = block->is_error,
                .meta = entry->is_meta,
                .retracted = entry->tombstoned,
                .text = copy(state, block->text, block->text_len),
            };
        }
    }
    state->result->feedback = items;
    state->result->feedback_count = filled;
}

static void assemble_result(loop_state *state)
{
    gt_loop_result *result = state->result;
    collect_feedback(state);
    const attachment *surviving = last_surviving(state);
    result->structured_output = surviving ? surviving->value : NULL;
    result->accounting.attempts_used = attempts_used(state);
    result->accounting.retracted = state->tombstoned_calls;
    result->num_turns = result->accounting.model_calls;
    result->is_error = result->subtype != GT_LOOP_SUCCESS;
    if (result->subtype == GT_LOOP_SUCCESS) {
        const char *text = final_text(state);
        if ((text == NULL || text[0] == '\0') && result->structured_output != NULL) {
            char *json = gt_value_to_json(result->structured_output, NULL);
            text = json ? copy_cstr(state, json) : NULL;
            free(json);
        }
        result->result_text = text ? text : "";
        result->accepted = result->structured_output != NULL;
        if (!result->accepted) {
            /* Success without an object: what a fail-open pipeline reports. */
            result->reason = "success_without_object";
            result->detail = "success without a structured_output object (structured output was not required)";
        }
    } else if (result->reason == NULL) {
        result->reason = gt_loop_subtype_name(result->subtype);
    }
    /* Every rejection the stream gate did not claim is the loop gate's:
     * named here once, so no path can reject without a gate. */
    if (!result->accepted && result->gate == NULL)
        result->gate = "loop";
    result->errors = state->errors_out;
    result->error_count = state->errors_out_count;
}

/* Seed 000: the wire tool carries strict:true only with the strict-subset
 * conversion of the caller's schema; when the schema is outside the subset
 * the original goes out without strict (local validation is unchanged either
 * way) and the fallback code is recorded. */
static void derive_strict_schema(loop_state *state)
{
    gt_parse_options options;
    gt_parse_options_init(&options);
    options.allow_big_integers = true;
    options.max_depth = GT_SCHEMA_PARSE_MAX_DEPTH;
    options.max_bytes = GT_SCHEMA_PARSE_MAX_BYTES;
    gt_parse_error perr;
    const char *text = state->config->json_schema_text;
    const gt_value *schema = text ? gt_parse(state->arena, text, strlen(text), &options, &perr) : NULL;
    gt_value *converted = NULL;
    gt_wire_problem problem;
    memset(&problem, 0, sizeof problem);
    int status = schema ? gt_wire_strict(state->arena, schema, &converted, &problem) : GT_WIRE_OUT_OF_MEMORY;
    if (status == GT_WIRE_OK) {
        char *json = gt_value_to_json(converted, NULL);
        if (json != NULL) {
            state->strict_schema_json = gt_arena_strndup(state->arena, json, strlen(json));
            free(json);
        }
        if (state->strict_schema_json != NULL)
            return;
        state->out_of_memory = true;
    }
    state->strict = false;
    state->result->strict_fallback = problem.code ? problem.code : "strict_unavailable";
    note(state, "strict conversion fell back (%s at \"%s\"): the original schema goes out without strict",
         state->result->strict_fallback, problem.location);
}

int gt_loop_run(const gt_loop_config *config, const gt_loop_model *model, gt_loop_result *result)
{
    memset(result, 0, sizeof *result);
    result->arena = gt_arena_new();
    if (result->arena == NULL)
        return -1;
    loop_state state = {0};
    state.config = config;
    state.model = model;
    state.result = result;
    state.arena = result->arena;
    gt_schema_errors_init(&state.errors);
    result->accounting.attempts_limit = config->max_attempts;
    note(&state, "query: %s", config->prompt ? config->prompt : "Complete the task.");

    int status = 0;
    if (config->json_schema_text != NULL && check_schema(&state) != 0) {
        if (state.out_of_memory)
            result->subtype = GT_LOOP_ERROR_DURING_EXECUTION;
    } else {
        state.requires_structured_output = state.schema != NULL && config->structured_output_tool;
        state.strict = config->strict && state.requires_structured_output;
        if (state.strict)
            derive_strict_schema(&state);
        note(&state, "tools: %s; requiresStructuredOutput %s; limit %d%s",
             state.requires_structured_output ? GT_LOOP_TOOL_NAME " in the set"
             : state.schema != NULL           ? GT_LOOP_TOOL_NAME " filtered out of the set"
                                              : "no schema, no " GT_LOOP_TOOL_NAME,
             state.requires_structured_output ? "true" : "false", config->max_attempts,
             state.strict ? "; strict wire tool" : "");
        for (size_t i = 0; i < config->history_count; i++) {
            gt_loop_entry *entry = graph_push(&state, config->history[i].role, config->history[i].id,
                                              config->history[i].blocks, config->history[i].block_count);
            if (entry != NULL) {
                entry->from_history = true;
                entry->tombstoned = config->history[i].tombstoned;
            }
        }
        state.baseline_calls = graph_calls(&state);
        if (config->history_count > 0)
            note(&state, "history: %zu message%s, %d StructuredOutput call%s before the query (never counted)",
                 config->history_count, config->history_count == 1 ? "" : "s", state.baseline_calls,
                 state.baseline_calls == 1 ? "" : "s");
        gt_block *prompt = gt_arena_alloc(state.arena, sizeof *prompt);
        if (prompt != NULL) {
            memset(prompt, 0, sizeof *prompt);
            prompt->type = GT_BLOCK_TEXT;
            prompt->text = config->prompt ? config->prompt : "Complete the task.";
            prompt->text_len = strlen(prompt->text);
            graph_push(&state, GT_LOOP_USER, NULL, prompt, 1);
            state.first_feedback = state.graph_count;
        } else
            state.out_of_memory = true;
        while (!state.out_of_memory && one_turn(&state) == STEP_CONTINUE)
            ;
        if (state.out_of_memory) {
            result->subtype = GT_LOOP_ERROR_DURING_EXECUTION;
            add_error(&state, "out of memory");
        }
    }
    assemble_result(&state);
    note(&state, "result: %s%s", gt_loop_subtype_name(result->subtype),
         result->subtype == GT_LOOP_SUCCESS
             ? (result->structured_output ? " with structured_output" : " WITHOUT structured_output")
             : "");
    if (state.out_of_memory || state.transcript.failed)
        status = -1;
    result->transcript = state.transcript.data ? state.transcript.data : strdup("");
    gt_schema_errors_free(&state.errors);
    gt_schema_free(state.schema);
    free(state.graph);
    free(state.attachments);
    free(state.tombstoned_ids);
    /* errors_out is referenced by the result: move it into the arena. */
    if (state.errors_out_count > 0) {
        const char **errors = gt_arena_alloc(result->arena, state.errors_out_count * sizeof *errors);
        if (errors != NULL)
            memcpy(errors, state.errors_out, state.errors_out_count * sizeof *errors);
        result->errors = errors;
        result->error_count = errors ? state.errors_out_count : 0;
    }
    free(state.errors_out);
    return status;
}

void gt_loop_result_free(gt_loop_result *result)
{
    if (result == NULL)
        return;
    free(result->transcript);
    gt_arena_free(result->arena);
    memset(result, 0, sizeof *result);
}

/* ---- the envelope ---- */

typedef gt_value_builder builder;

static gt_value *made(builder *b, gt_value *value)
{
    return gt_build(b, value);
}

static void put(builder *b, gt_value *object, const char *key, gt_value *value)
{
    gt_build_put(b, object, key, value);
}

static void put_string(builder *b, gt_value *object, const char *key, const char *text)
{
    gt_build_put_string(b, object, key, text, text ? strlen(text) : 0);
}

char *gt_loop_envelope_json(const gt_loop_result *result)
{
    gt_arena *arena = gt_arena_new();
    if (arena == NULL)
        return NULL;
    builder b = {.arena = arena, .failed = false};
    gt_value *root = made(&b, gt_value_new_object(arena));
    put_string(&b, root, "type", "result");
    put_string(&b, root, "subtype", gt_loop_subtype_name(result->subtype));
    gt_build_put_bool(&b, root, "is_error", result->is_error);
    if (result->subtype == GT_LOOP_SUCCESS) {
        put_string(&b, root, "result", result->result_text);
    } else {
        gt_value *errors = made(&b, gt_value_new_array(arena));
        for (size_t i = 0; errors != NULL && i < result->error_count; i++)
            if (gt_value_array_append(arena, errors,
                                      made(&b, gt_value_new_string(arena, result->errors[i],
                                                                   strlen(result->errors[i])))) != 0)
                b.failed = true;
        put(&b, root, "errors", errors);
    }
    if (result->structured_output != NULL)
        put(&b, root, "structured_output", (gt_value *)result->structured_output);
    gt_build_put_number(&b, root, "num_turns", result->num_turns);
    gt_value *usage = made(&b, gt_value_new_object(arena));
    gt_build_put_number(&b, usage, "input_tokens", (double)result->usage.input_tokens);
    gt_build_put_number(&b, usage, "output_tokens", (double)result->usage.output_tokens);
    gt_build_put_number(&b, usage, "cache_creation_input_tokens", (double)result->usage.cache_creation_input_tokens);
    gt_build_put_number(&b, usage, "cache_read_input_tokens", (double)result->usage.cache_read_input_tokens);
    put(&b, root, "usage", usage);

    gt_value *gauntlet = made(&b, gt_value_new_object(arena));
    gt_value *accounting = made(&b, gt_value_new_object(arena));
    gt_build_put_number(&b, accounting, "attempts_used", result->accounting.attempts_used);
    gt_build_put_number(&b, accounting, "attempts_limit", result->accounting.attempts_limit);
    gt_build_put_number(&b, accounting, "retracted", result->accounting.retracted);
    gt_build_put_number(&b, accounting, "enforce_messages", result->accounting.enforce_messages);
    gt_build_put_number(&b, accounting, "api_attempts", result->accounting.api_attempts);
    gt_build_put_number(&b, accounting, "model_calls", result->accounting.model_calls);
    put(&b, gauntlet, "accounting", accounting);
    gt_build_put_bool(&b, gauntlet, "structured_output_present", result->structured_output != NULL);
    put_string(&b, gauntlet, "verdict", result->accepted ? "accept" : "reject");
    if (!result->accepted) {
        put_string(&b, gauntlet, "gate", result->gate);
        put_string(&b, gauntlet, "reason", result->reason);
    }
    if (result->detail != NULL)
        put_string(&b, gauntlet, "detail", result->detail);
    gt_build_put_number(&b, gauntlet, "late_attachments_dropped", result->late_attachments_dropped);
    gt_build_put_bool(&b, gauntlet, "strict_stripped", result->strict_stripped);
    gt_value *feedback = made(&b, gt_value_new_array(arena));
    for (size_t i = 0; feedback != NULL && result->feedback != NULL && i < result->feedback_count; i++) {
        const gt_loop_feedback *item = &result->feedback[i];
        gt_value *entry = made(&b, gt_value_new_object(arena));
        put_string(&b, entry, "type", item->tool_result ? "tool_result" : "text");
        if (item->tool_result) {
            put_string(&b, entry, "tool_use_id", item->tool_use_id);
            gt_build_put_bool(&b, entry, "is_error", item->is_error);
        } else if (item->meta)
            gt_build_put_bool(&b, entry, "meta", true);
        if (item->retracted)
            gt_build_put_bool(&b, entry, "retracted", true);
        put_string(&b, entry, "content", item->text);
        if (entry != NULL && gt_value_array_append(arena, feedback, entry) != 0)
            b.failed = true;
    }
    put(&b, gauntlet, "feedback", feedback);
    if (result->strict_fallback != NULL)
        put_string(&b, gauntlet, "strict_fallback", result->strict_fallback);
    put(&b, root, "gauntlet", gauntlet);

    char *json = b.failed ? NULL : gt_value_to_json(root, NULL);
    gt_arena_free(arena);
    return json;
}
