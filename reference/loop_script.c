/* loop_script.c — loop scripts: load and check them, then play them.
 *
 * A script is plain JSON (docs/loop-scripts.md): the caller's schema, the
 * resumed history, options, and the model's turns in order. Loading checks
 * every field and names the first bad one by JSON Pointer; streams given as
 * events or as a message are rendered to exact SSE bytes here, once, so the
 * player (and later the mock server) replays bytes, never structures. The
 * player is a gt_loop_model: each request takes the next response turn plus
 * the fallback / late-attachment turns that follow it. Not for: the state
 * machine (loop.c). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gauntlet/derive.h"
#include "gauntlet/loop.h"
#include "gauntlet/parse.h"

#define SCRIPT_FORMAT "gauntlet-loop-script/1"

typedef enum turn_kind { TURN_MESSAGE = 0, TURN_STREAM, TURN_ERROR, TURN_FALLBACK, TURN_LATE_ATTACHMENT } turn_kind;

typedef struct script_turn {
    turn_kind kind;
    gt_message message; /* MESSAGE */
    gt_stream_provider provider; /* STREAM */
    const char *sse;
    size_t sse_len;
    int status; /* ERROR */
    const char *error_type, *error_message;
    const char *message_id; /* FALLBACK */
    const char *tool_use_id; /* LATE_ATTACHMENT */
    const char *input_text;
    size_t input_len;
    bool derived; /* a derive turn (docs/loop-scripts.md "Derived turns"), resolved against the script's schema
                     into the MESSAGE or STREAM above */
    gt_derive_spec derive;
} script_turn;

struct gt_loop_script {
    gt_arena *arena;
    gt_loop_config config;
    gt_loop_entry *history;
    script_turn *turns;
    size_t turn_count;
    size_t next_turn; /* the player's position */
    bool env_sets_attempts;
    gt_stream_provider provider;
    const char *model_name;
};

typedef struct loader {
    gt_loop_script *script;
    gt_loop_script_problem *problem;
    bool failed;
} loader;

static bool fail(loader *ld, const char *pointer, const char *format, ...) __attribute__((format(printf, 3, 4)));
static bool fail(loader *ld, const char *pointer, const char *format, ...)
{
    if (!ld->failed) {
        ld->failed = true;
        snprintf(ld->problem->pointer, sizeof ld->problem->pointer, "%s", pointer);
        va_list args;
        va_start(args, format);
        vsnprintf(ld->problem->message, sizeof ld->problem->message, format, args);
        va_end(args);
    }
    return false;
}

static bool oom(loader *ld)
{
    return fail(ld, "", "out of memory");
}

/* pointer + "/" + escaped token, into out. */
static void child(char *out, size_t size, const char *pointer, const char *token)
{
    size_t used = (size_t)snprintf(out, size, "%s/", pointer);
    for (const char *p = token; *p && used + 3 < size; p++) {
        if (*p == '~')
            out[used++] = '~', out[used++] = '0';
        else if (*p == '/')
            out[used++] = '~', out[used++] = '1';
        else
            out[used++] = *p;
    }
    out[used < size ? used : size - 1] = '\0';
}

static void child_index(char *out, size_t size, const char *pointer, size_t index)
{
    if (snprintf(out, size, "%s/%zu", pointer, index) >= (int)size)
        out[size - 1] = '\0'; /* a pointer that long is cut, never overflowed */
}

static const char *type_word(const gt_value *value)
{
    switch (value->type) {
    case GT_NULL: return "null";
    case GT_TRUE:
    case GT_FALSE: return "a boolean";
    case GT_NUMBER: return "a number";
    case GT_STRING: return "a string";
    case GT_ARRAY: return "an array";
    default: return "an object";
    }
}

/* Every member of `object` must be one of `known` (NULL-terminated). */
static bool only_known(loader *ld, const gt_value *object, const char *pointer, const char *const *known)
{
    for (size_t i = 0; i < object->u.obj.count; i++) {
        bool found = false;
        for (const char *const *k = known; *k && !found; k++)
            found = strcmp(object->u.obj.members[i].key, *k) == 0;
        if (!found) {
            char at[256];
            child(at, sizeof at, pointer, object->u.obj.members[i].key);
            char list[200] = "";
            for (const char *const *k = known; *k; k++)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k == known ? "" : ", ", *k);
            return fail(ld, at, "unknown field '%s' (known: %s)", object->u.obj.members[i].key, list);
        }
    }
    return true;
}

static const gt_value *get(const gt_value *object, const char *key)
{
    return gt_value_get(object, key, strlen(key));
}

/* Optional string member; false (with a problem) when present but not a string. */
static bool opt_string(loader *ld, const gt_value *object, const char *pointer, const char *key, const char **out,
                       size_t *len_out)
{
    const gt_value *value = get(object, key);
    if (value == NULL)
        return true;
    char at[256];
    child(at, sizeof at, pointer, key);
    if (value->type != GT_STRING)
        return fail(ld, at, "%s must be a string, not %s", key, type_word(value));
    *out = value->u.str.chars;
    if (len_out != NULL)
        *len_out = value->u.str.len;
    return true;
}

static bool req_string(loader *ld, const gt_value *object, const char *pointer, const char *key, const char **out)
{
    if (get(object, key) == NULL) {
        char at[256];
        child(at, sizeof at, pointer, key);
        return fail(ld, at, "%s is required", key);
    }
    return opt_string(ld, object, pointer, key, out, NULL);
}

static bool opt_bool(loader *ld, const gt_value *object, const char *pointer, const char *key, bool *out)
{
    const gt_value *value = get(object, key);
    if (value == NULL)
        return true;
    if (value->type != GT_TRUE && value->type != GT_FALSE) {
        char at[256];
        child(at, sizeof at, pointer, key);
        return fail(ld, at, "%s must be true or false, not %s", key, type_word(value));
    }
    *out = value->type == GT_TRUE;
    return true;
}

/* Optional integer in [min, max]. */
static bool opt_int(loader *ld, const gt_value *object, const char *pointer, const char *key, long long min,
                    long long max, long long *out, bool *present)
{
    const gt_value *value = get(object, key);
    if (present != NULL)
        *present = value != NULL;
    if (value == NULL)
        return true;
    char at[256];
    child(at, sizeof at, pointer, key);
    if (!gt_value_is_integer(value) || value->u.num.number < (double)min || value->u.num.number > (double)max)
        return fail(ld, at, "%s must be an integer from %lld through %lld", key, min, max);
    *out = gt_number_clamp(value->u.num.number, min, max); /* (double)LLONG_MAX is 2^63: out of range */
    return true;
}

static bool object_at(loader *ld, const gt_value *value, const char *pointer, const char *what)
{
    if (value->type != GT_OBJECT)
        return fail(ld, pointer, "%s must be an object, not %s", what, type_word(value));
    return true;
}

/* JSON text of a value, copied into the script arena. */
static const char *json_of(loader *ld, const gt_value *value, size_t *len)
{
    size_t n;
    char *json = gt_value_to_json(value, &n);
    if (json == NULL) {
        oom(ld);
        return NULL;
    }
    const char *copy = gt_arena_strndup(ld->script->arena, json, n);
    free(json);
    if (copy == NULL)
        oom(ld);
    if (len != NULL)
        *len = n;
    return copy;
}

/* ---- content blocks ---- */

static bool load_block(loader *ld, const gt_value *value, const char *pointer, gt_loop_role role, gt_block *block)
{
    memset(block, 0, sizeof *block);
    if (!object_at(ld, value, pointer, "a content block"))
        return false;
    const char *type = NULL;
    if (!req_string(ld, value, pointer, "type", &type))
        return false;
    char at[256];
    child(at, sizeof at, pointer, "type");
    if (strcmp(type, "text") == 0) {
        static const char *const known[] = {"type", "text", NULL};
        block->type = GT_BLOCK_TEXT;
        if (!only_known(ld, value, pointer, known) || !req_string(ld, value, pointer, "text", &block->text))
            return false;
        block->text_len = get(value, "text")->u.str.len;
        return true;
    }
    if (strcmp(type, "thinking") == 0 && role == GT_LOOP_ASSISTANT) {
        static const char *const known[] = {"type", "thinking", NULL};
        block->type = GT_BLOCK_THINKING;
        if (!only_known(ld, value, pointer, known) || !req_string(ld, value, pointer, "thinking", &block->text))
            return false;
        block->text_len = get(value, "thinking")->u.str.len;
        return true;
    }
    if (strcmp(type, "tool_use") == 0 && role == GT_LOOP_ASSISTANT) {
        static const char *const known[] = {"type", "id", "name", "input", "input_text", "result", "is_error", NULL};
        block->type = GT_BLOCK_TOOL_USE;
        if (!only_known(ld, value, pointer, known) || !req_string(ld, value, pointer, "id", &block->id) ||
            !req_string(ld, value, pointer, "name", &block->name) ||
            !opt_string(ld, value, pointer, "result", &block->scripted_result, NULL) ||
            !opt_bool(ld, value, pointer, "is_error", &block->scripted_is_error))
            return false;
        const gt_value *input = get(value, "input"), *input_text = get(value, "input_text");
        if ((input == NULL) == (input_text == NULL))
            return fail(ld, pointer, "a tool_use block needs exactly one of input (a JSON value) and input_text "
                                     "(raw text, may be invalid JSON)");
        if (input != NULL)
            block->input_text = json_of(ld, input, &block->input_len);
        else if (!opt_string(ld, value, pointer, "input_text", &block->input_text, &block->input_len))
            return false;
        return !ld->failed;
    }
    if (strcmp(type, "tool_result") == 0 && role == GT_LOOP_USER) {
        static const char *const known[] = {"type", "tool_use_id", "content", "is_error", NULL};
        block->type = GT_BLOCK_TOOL_RESULT;
        block->text = "";
        if (!only_known(ld, value, pointer, known) || !req_string(ld, value, pointer, "tool_use_id", &block->id) ||
            !opt_string(ld, value, pointer, "content", &block->text, &block->text_len) ||
            !opt_bool(ld, value, pointer, "is_error", &block->is_error))
            return false;
        return true;
    }
    return fail(ld, at, "'%s' is not a content block type for %s messages (%s)", type,
                role == GT_LOOP_ASSISTANT ? "assistant" : "user",
                role == GT_LOOP_ASSISTANT ? "text, thinking, tool_use" : "text, tool_result");
}

/* "content": a string (one text block) or an array of blocks. */
static bool load_content(loader *ld, const gt_value *owner, const char *pointer, gt_loop_role role,
                         gt_block **blocks, size_t *count)
{
    const gt_value *content = get(owner, "content");
    char at[256];
    child(at, sizeof at, pointer, "content");
    if (content == NULL)
        return fail(ld, at, "content is required");
    if (content->type == GT_STRING) {
        gt_block *block = gt_arena_alloc(ld->script->arena, sizeof *block);
        if (block == NULL)
            return oom(ld);
        memset(block, 0, sizeof *block);
        block->type = GT_BLOCK_TEXT;
        block->text = content->u.str.chars;
        block->text_len = content->u.str.len;
        *blocks = block;
        *count = 1;
        return true;
    }
    if (content->type != GT_ARRAY)
        return fail(ld, at, "content must be a string or an array of content blocks, not %s", type_word(content));
    size_t n = content->u.arr.count;
    *blocks = gt_arena_alloc(ld->script->arena, (n ? n : 1) * sizeof **blocks);
    if (*blocks == NULL)
        return oom(ld);
    for (size_t i = 0; i < n; i++) {
        char item[256];
        child_index(item, sizeof item, at, i);
        if (!load_block(ld, content->u.arr.items[i], item, role, &(*blocks)[i]))
            return false;
    }
    *count = n;
    return true;
}

static bool load_usage(loader *ld, const gt_value *owner, const char *pointer, gt_usage *usage)
{
    const gt_value *value = get(owner, "usage");
    if (value == NULL)
        return true;
    char at[256];
    child(at, sizeof at, pointer, "usage");
    static const char *const known[] = {"input_tokens", "output_tokens", "cache_creation_input_tokens",
                                        "cache_read_input_tokens", NULL};
    if (!object_at(ld, value, at, "usage") || !only_known(ld, value, at, known))
        return false;
    long long figure;
    bool present;
    const long long max = 1000000000000LL;
    if (!opt_int(ld, value, at, "input_tokens", 0, max, &figure, &present))
        return false;
    if (present)
        usage->input_tokens = figure;
    if (!opt_int(ld, value, at, "output_tokens", 0, max, &figure, &present))
        return false;
    if (present)
        usage->output_tokens = figure;
    if (!opt_int(ld, value, at, "cache_creation_input_tokens", 0, max, &figure, &present))
        return false;
    if (present)
        usage->cache_creation_input_tokens = figure;
    if (!opt_int(ld, value, at, "cache_read_input_tokens", 0, max, &figure, &present))
        return false;
    if (present)
        usage->cache_read_input_tokens = figure;
    return true;
}

static bool load_message(loader *ld, const gt_value *value, const char *pointer, const char *default_id,
                         gt_message *message)
{
    static const char *const known[] = {"id", "content", "stop_reason", "usage", NULL};
    memset(message, 0, sizeof *message);
    if (!object_at(ld, value, pointer, "a message") || !only_known(ld, value, pointer, known) ||
        !opt_string(ld, value, pointer, "id", &message->id, NULL) ||
        !opt_string(ld, value, pointer, "stop_reason", &message->stop_reason, NULL) ||
        !load_content(ld, value, pointer, GT_LOOP_ASSISTANT, &message->blocks, &message->block_count) ||
        !load_usage(ld, value, pointer, &message->usage))
        return false;
    if (message->id == NULL)
        message->id = default_id;
    if (message->stop_reason == NULL) {
        bool tool = false;
        for (size_t i = 0; i < message->block_count; i++)
            tool = tool || message->blocks[i].type == GT_BLOCK_TOOL_USE;
        message->stop_reason = tool ? "tool_use" : "end_turn";
    }
    return true;
}

/* ---- turns ---- */

static bool load_stream(loader *ld, const gt_value *value, const char *pointer, const char *default_id,
                        script_turn *turn)
{
    static const char *const known[] = {"provider", "events", "from_message", "sse", "chunk_bytes", "cut", NULL};
    if (!object_at(ld, value, pointer, "stream") || !only_known(ld, value, pointer, known))
        return false;
    turn->provider = ld->script->provider;
    const char *provider = NULL;
    if (!opt_string(ld, value, pointer, "provider", &provider, NULL))
        return false;
    if (provider != NULL) {
        int parsed = gt_stream_provider_from_name(provider);
        char at[256];
        child(at, sizeof at, pointer, "provider");
        if (parsed < 0)
            return fail(ld, at, "provider must be \"anthropic\" or \"openai\", not \"%s\"", provider);
        turn->provider = (gt_stream_provider)parsed;
    }
    const gt_value *events = get(value, "events"), *from = get(value, "from_message"), *sse = get(value, "sse");
    if ((events != NULL) + (from != NULL) + (sse != NULL) != 1)
        return fail(ld, pointer, "a stream needs exactly one of events, from_message and sse");
    long long chunk = 0;
    bool has_chunk = false;
    if (!opt_int(ld, value, pointer, "chunk_bytes", 1, 1 << 20, &chunk, &has_chunk))
        return false;
    if (has_chunk && from == NULL) {
        char at[256];
        child(at, sizeof at, pointer, "chunk_bytes");
        return fail(ld, at, "chunk_bytes only applies to from_message");
    }
    gt_buffer out = {0};
    size_t *ends = NULL, event_count = 0;
    if (sse != NULL) {
        char at[256];
        child(at, sizeof at, pointer, "sse");
        if (sse->type != GT_STRING)
            return fail(ld, at, "sse must be a string (the raw event-stream text), not %s", type_word(sse));
        gt_buffer_append(&out, sse->u.str.chars, sse->u.str.len);
    } else {
        char at[256];
        const gt_value *list = events;
        if (from != NULL) {
            child(at, sizeof at, pointer, "from_message");
            gt_message message;
            if (!load_message(ld, from, at, default_id, &message))
                return false;
            list = gt_stream_events_from_message(&message, turn->provider, (size_t)chunk, ld->script->model_name,
                                                 ld->script->arena);
            if (list == NULL)
                return oom(ld);
        } else {
            child(at, sizeof at, pointer, "events");
            if (events->type != GT_ARRAY)
                return fail(ld, at, "events must be an array of SSE events, not %s", type_word(events));
        }
        event_count = list->u.arr.count;
        ends = malloc((event_count ? event_count : 1) * sizeof *ends);
        if (ends == NULL)
            return oom(ld);
        size_t bad = 0;
        if (gt_stream_render_events(list, turn->provider, &out, ends, &bad) != 0) {
            bool out_of_memory = out.failed; /* gt_buffer_free clears the flag */
            free(ends);
            gt_buffer_free(&out);
            if (out_of_memory)
                return oom(ld);
            char item[256];
            child_index(item, sizeof item, at, bad);
            return fail(ld, item, "an event must be a data object, a string, or {\"event\": name, \"data\": object "
                                  "or string}");
        }
    }
    if (out.failed) {
        free(ends);
        gt_buffer_free(&out);
        return oom(ld);
    }
    size_t len = out.len;
    const gt_value *cut = get(value, "cut");
    if (cut != NULL) {
        char at[256];
        child(at, sizeof at, pointer, "cut");
        static const char *const cut_known[] = {"after_event", "inside_event", "keep_bytes", "at_byte", NULL};
        long long after = -1, inside = -1, keep = -1, at_byte = -1;
        bool has_after, has_inside, has_keep, has_at;
        bool ok = object_at(ld, cut, at, "cut") && only_known(ld, cut, at, cut_known) &&
                  opt_int(ld, cut, at, "after_event", 0, 1 << 30, &after, &has_after) &&
                  opt_int(ld, cut, at, "inside_event", 0, 1 << 30, &inside, &has_inside) &&
                  opt_int(ld, cut, at, "keep_bytes", 1, 1 << 30, &keep, &has_keep) &&
                  opt_int(ld, cut, at, "at_byte", 0, 1 << 30, &at_byte, &has_at);
        if (ok && has_after + has_inside + has_at != 1)
            ok = fail(ld, at, "cut needs exactly one of after_event, inside_event (with keep_bytes) and at_byte");
        if (ok && has_inside != has_keep)
            ok = fail(ld, at, "inside_event and keep_bytes go together");
        if (ok && (has_after || has_inside) && ends == NULL)
            ok = fail(ld, at, "after_event and inside_event need events or from_message (use at_byte with sse)");
        char field[256];
        if (ok && has_after) {
            child(field, sizeof field, at, "after_event");
            if ((size_t)after >= event_count)
                ok = fail(ld, field, "after_event %lld: the stream has %zu events (0-based)", after, event_count);
            else
                len = ends[after];
        }
        if (ok && has_inside) {
            child(field, sizeof field, at, "inside_event");
            if ((size_t)inside >= event_count)
                ok = fail(ld, field, "inside_event %lld: the stream has %zu events (0-based)", inside, event_count);
            else {
                size_t start = inside > 0 ? ends[inside - 1] : 0;
                if ((size_t)keep >= ends[inside] - start) {
                    child(field, sizeof field, at, "keep_bytes");
                    ok = fail(ld, field, "keep_bytes %lld must be less than the event's %zu bytes", keep,
                              ends[inside] - start);
                } else
                    len = start + (size_t)keep;
            }
        }
        if (ok && has_at) {
            child(field, sizeof field, at, "at_byte");
            if ((size_t)at_byte >= out.len)
                ok = fail(ld, field, "at_byte %lld must be less than the stream's %zu bytes", at_byte, out.len);
            else
                len = (size_t)at_byte;
        }
        if (!ok) {
            free(ends);
            gt_buffer_free(&out);
            return false;
        }
    }
    free(ends);
    turn->sse = gt_arena_strndup(ld->script->arena, out.data ? out.data : "", len);
    turn->sse_len = len;
    gt_buffer_free(&out);
    return turn->sse != NULL || oom(ld);
}

/* A derive turn: the answer computed from the script's schema, kept as the
 * message or stream it resolves to (the mock recomputes it from the schema
 * its client sent, gt_loop_script_turn_derive). */
static bool load_derive(loader *ld, const gt_value *value, const char *pointer, const char *message_id, size_t index,
                        script_turn *turn)
{
    char tool_id[32];
    snprintf(tool_id, sizeof tool_id, "toolu_d%zu", index);
    const char *tool_use_id = gt_arena_strndup(ld->script->arena, tool_id, strlen(tool_id));
    if (tool_use_id == NULL)
        return oom(ld);
    char field[64], message[300];
    if (gt_derive_spec_read(value, message_id, tool_use_id, &turn->derive, field, sizeof field, message,
                            sizeof message) != 0) {
        char at[256];
        if (field[0])
            child(at, sizeof at, pointer, field);
        else
            snprintf(at, sizeof at, "%s", pointer);
        return fail(ld, at, "%s", message);
    }
    const gt_loop_config *config = &ld->script->config;
    if (config->json_schema_text == NULL)
        return fail(ld, pointer, "a derive turn needs a schema to derive from: the script's json_schema or the "
                                 "case's schema");
    gt_loop_reply reply;
    char why[300];
    int rc = gt_derive_reply(&turn->derive, config->json_schema_text, config->json_schema_len, index,
                             ld->script->provider, ld->script->model_name, ld->script->arena, &reply, why, sizeof why);
    if (rc < 0)
        return oom(ld);
    if (rc > 0)
        return fail(ld, pointer, "%s cannot be derived from the script's schema: %s",
                    gt_derive_op_name(turn->derive.op), why);
    turn->derived = true;
    if (reply.kind == GT_LOOP_REPLY_STREAM) {
        turn->kind = TURN_STREAM;
        turn->provider = reply.provider;
        turn->sse = reply.sse;
        turn->sse_len = reply.sse_len;
    } else {
        turn->kind = TURN_MESSAGE;
        turn->message = *reply.message;
    }
    return true;
}

const gt_derive_spec *gt_loop_script_turn_derive(const gt_loop_script *script, size_t index)
{
    return index < script->turn_count && script->turns[index].derived ? &script->turns[index].derive : NULL;
}

static bool load_turn(loader *ld, const gt_value *value, const char *pointer, size_t index, script_turn *turn)
{
    static const char *const kinds[] = {"message", "stream", "error", "fallback", "late_attachment", "derive"};
    /* faults and expect_request are the mock server's (docs/mock-server.md): not the loop's, and ignored here */
    static const char *const known[] = {"message", "stream", "error", "fallback", "late_attachment", "derive",
                                        "note",    "faults", "expect_request", NULL};
    memset(turn, 0, sizeof *turn);
    if (!object_at(ld, value, pointer, "a turn") || !only_known(ld, value, pointer, known))
        return false;
    const char *note = NULL;
    if (!opt_string(ld, value, pointer, "note", &note, NULL))
        return false;
    int kind = -1;
    for (int k = 0; k < 6; k++) {
        if (get(value, kinds[k]) == NULL)
            continue;
        if (kind >= 0)
            return fail(ld, pointer, "a turn has exactly one of message, stream, error, fallback, late_attachment, "
                                     "derive (found %s and %s)", kinds[kind], kinds[k]);
        kind = k;
    }
    if (kind < 0)
        return fail(ld, pointer, "a turn needs one of message, stream, error, fallback, late_attachment, derive");
    char at[256];
    child(at, sizeof at, pointer, kinds[kind]);
    const gt_value *body = get(value, kinds[kind]);
    char default_id[32];
    snprintf(default_id, sizeof default_id, "msg_t%zu", index);
    const char *id = gt_arena_strndup(ld->script->arena, default_id, strlen(default_id));
    if (id == NULL)
        return oom(ld);
    if (kind == 5)
        return load_derive(ld, body, at, id, index, turn);
    turn->kind = (turn_kind)kind;
    switch (turn->kind) {
    case TURN_MESSAGE:
        return load_message(ld, body, at, id, &turn->message);
    case TURN_STREAM:
        return load_stream(ld, body, at, id, turn);
    case TURN_ERROR: {
        static const char *const error_known[] = {"status", "type", "message", "body", NULL};
        long long status = 0;
        bool has_status;
        const char *body_text = NULL;
        if (!object_at(ld, body, at, "error") || !only_known(ld, body, at, error_known) ||
            !opt_int(ld, body, at, "status", 100, 599, &status, &has_status) ||
            !opt_string(ld, body, at, "type", &turn->error_type, NULL) ||
            !opt_string(ld, body, at, "message", &turn->error_message, NULL) ||
            !opt_string(ld, body, at, "body", &body_text, NULL))
            return false;
        if (!has_status) {
            char field[256];
            child(field, sizeof field, at, "status");
            return fail(ld, field, "status is required (the HTTP status, 100-599)");
        }
        turn->status = (int)status;
        if (turn->error_type == NULL)
            turn->error_type = "api_error";
        if (turn->error_message == NULL)
            turn->error_message = "";
        return true;
    }
    case TURN_FALLBACK: {
        static const char *const fallback_known[] = {"retract", NULL};
        return object_at(ld, body, at, "fallback") && only_known(ld, body, at, fallback_known) &&
               opt_string(ld, body, at, "retract", &turn->message_id, NULL);
    }
    case TURN_LATE_ATTACHMENT: {
        static const char *const late_known[] = {"tool_use_id", "input", "input_text", NULL};
        if (!object_at(ld, body, at, "late_attachment") || !only_known(ld, body, at, late_known) ||
            !req_string(ld, body, at, "tool_use_id", &turn->tool_use_id) ||
            !opt_string(ld, body, at, "input_text", &turn->input_text, &turn->input_len))
            return false;
        const gt_value *input = get(body, "input");
        if (input != NULL && turn->input_text != NULL)
            return fail(ld, at, "give input or input_text, not both");
        if (input != NULL)
            turn->input_text = json_of(ld, input, &turn->input_len);
        else if (turn->input_text == NULL)
            turn->input_text = "{}", turn->input_len = 2;
        return !ld->failed;
    }
    }
    return false;
}

static bool load_history(loader *ld, const gt_value *root)
{
    const gt_value *history = get(root, "history");
    if (history == NULL)
        return true;
    if (history->type != GT_ARRAY)
        return fail(ld, "/history", "history must be an array of messages, not %s", type_word(history));
    gt_loop_script *script = ld->script;
    size_t n = history->u.arr.count;
    script->history = gt_arena_alloc(script->arena, (n ? n : 1) * sizeof *script->history);
    if (script->history == NULL)
        return oom(ld);
    for (size_t i = 0; i < n; i++) {
        const gt_value *item = history->u.arr.items[i];
        char at[256];
        child_index(at, sizeof at, "/history", i);
        static const char *const known[] = {"role", "id", "content", NULL};
        gt_loop_entry *entry = &script->history[i];
        memset(entry, 0, sizeof *entry);
        const char *role = NULL;
        if (!object_at(ld, item, at, "a history message") || !only_known(ld, item, at, known) ||
            !req_string(ld, item, at, "role", &role) || !opt_string(ld, item, at, "id", &entry->id, NULL))
            return false;
        if (strcmp(role, "user") == 0)
            entry->role = GT_LOOP_USER;
        else if (strcmp(role, "assistant") == 0)
            entry->role = GT_LOOP_ASSISTANT;
        else {
            char field[256];
            child(field, sizeof field, at, "role");
            return fail(ld, field, "role must be \"user\" or \"assistant\", not \"%s\"", role);
        }
        gt_block *blocks = NULL;
        if (!load_content(ld, item, at, entry->role, &blocks, &entry->block_count))
            return false;
        entry->blocks = blocks;
        if (entry->id == NULL && entry->role == GT_LOOP_ASSISTANT) {
            char id[32];
            snprintf(id, sizeof id, "msg_h%zu", i);
            entry->id = gt_arena_strndup(script->arena, id, strlen(id));
            if (entry->id == NULL)
                return oom(ld);
        }
    }
    script->config.history = script->history;
    script->config.history_count = n;
    return true;
}

static bool load_env(loader *ld, const gt_value *root)
{
    const gt_value *env = get(root, "env");
    if (env == NULL)
        return true;
    if (!object_at(ld, env, "/env", "env"))
        return false;
    for (size_t i = 0; i < env->u.obj.count; i++) {
        const gt_member *member = &env->u.obj.members[i];
        char at[256];
        child(at, sizeof at, "/env", member->key);
        if (member->value->type != GT_STRING)
            return fail(ld, at, "environment values are strings, not %s", type_word(member->value));
        if (strcmp(member->key, GT_LOOP_ATTEMPTS_ENV) == 0) {
            int limit;
            if (gt_loop_attempts_from_env(member->value->u.str.chars, &limit) != 0)
                return fail(ld, at, "%s must be an integer, not \"%s\"", GT_LOOP_ATTEMPTS_ENV,
                            member->value->u.str.chars);
            ld->script->config.max_attempts = limit;
            ld->script->env_sets_attempts = true;
        }
    }
    return true;
}

/* "server_tools": tools the provider runs (Anthropic: a `type` other than
 * "custom", e.g. web_search_20250305), offered beside StructuredOutput; a
 * server-tool loop is what the API pauses with pause_turn. Kept as the
 * definitions' compact JSON, comma-separated, for the client's request. */
static bool load_server_tools(loader *ld, const gt_value *tools)
{
    if (tools == NULL)
        return true;
    if (tools->type != GT_ARRAY || tools->u.arr.count == 0)
        return fail(ld, "/server_tools", "server_tools must be a non-empty array of tool definitions");
    gt_buffer text = {0};
    for (size_t i = 0; i < tools->u.arr.count; i++) {
        const gt_value *tool = tools->u.arr.items[i];
        const gt_value *type = tool->type == GT_OBJECT ? get(tool, "type") : NULL;
        const gt_value *name = tool->type == GT_OBJECT ? get(tool, "name") : NULL;
        char at[256];
        child_index(at, sizeof at, "/server_tools", i);
        if (type == NULL || type->type != GT_STRING || strcmp(type->u.str.chars, "custom") == 0 || name == NULL ||
            name->type != GT_STRING) {
            gt_buffer_free(&text);
            return fail(ld, at, "a server tool needs a string `name` and a string `type` other than \"custom\"");
        }
        char *json = gt_value_to_json(tool, NULL);
        if (json != NULL)
            gt_buffer_appendf(&text, "%s%s", i > 0 ? "," : "", json);
        free(json);
        if (json == NULL || text.failed) {
            gt_buffer_free(&text);
            return oom(ld);
        }
    }
    ld->script->config.server_tools_json = gt_arena_strndup(ld->script->arena, text.data, text.len);
    gt_buffer_free(&text);
    return ld->script->config.server_tools_json != NULL || oom(ld);
}

static bool load_root(loader *ld, const gt_value *root, const char *default_schema_json)
{
    static const char *const known[] = {"format", "description", "json_schema", "json_schema_text", "prompt",
                                        "history", "env", "max_turns", "max_api_retries", "strict",
                                        "disallowed_tools", "tool_choice", "server_tools", "provider", "model", "turns",
                                        "expect",
                                        "mock", /* the mock server's own settings (after_script, ...): not the loop's */
                                        NULL};
    gt_loop_script *script = ld->script;
    if (root->type != GT_OBJECT)
        return fail(ld, "", "a script must be an object, not %s", type_word(root));
    if (!only_known(ld, root, "", known))
        return false;
    const char *format = NULL, *description = NULL, *provider = NULL;
    if (!opt_string(ld, root, "", "format", &format, NULL) ||
        !opt_string(ld, root, "", "description", &description, NULL) ||
        !opt_string(ld, root, "", "prompt", &script->config.prompt, NULL) ||
        !opt_string(ld, root, "", "provider", &provider, NULL) ||
        !opt_string(ld, root, "", "model", &script->model_name, NULL) ||
        !opt_bool(ld, root, "", "strict", &script->config.strict))
        return false;
    if (format != NULL && strcmp(format, SCRIPT_FORMAT) != 0)
        return fail(ld, "/format", "format must be \"%s\", not \"%s\"", SCRIPT_FORMAT, format);
    if (provider != NULL) {
        int parsed = gt_stream_provider_from_name(provider);
        if (parsed < 0)
            return fail(ld, "/provider", "provider must be \"anthropic\" or \"openai\", not \"%s\"", provider);
        script->provider = (gt_stream_provider)parsed;
    }
    long long number;
    bool present;
    if (!opt_int(ld, root, "", "max_turns", 0, 1000000, &number, &present))
        return false;
    if (present)
        script->config.max_turns = (int)number;
    if (!opt_int(ld, root, "", "max_api_retries", 0, 100, &number, &present))
        return false;
    if (present)
        script->config.max_api_retries = (int)number;

    /* The caller's schema: a value, raw CLI text, or the case's schema. */
    const gt_value *schema = get(root, "json_schema"), *schema_text = get(root, "json_schema_text");
    if (schema != NULL && schema_text != NULL)
        return fail(ld, "/json_schema_text", "give json_schema or json_schema_text, not both");
    if (schema != NULL) {
        script->config.json_schema_text = json_of(ld, schema, &script->config.json_schema_len);
        if (script->config.json_schema_text == NULL)
            return false;
    } else if (schema_text != NULL) {
        if (!opt_string(ld, root, "", "json_schema_text", &script->config.json_schema_text,
                        &script->config.json_schema_len))
            return false;
    } else if (default_schema_json != NULL) {
        script->config.json_schema_text =
            gt_arena_strndup(script->arena, default_schema_json, strlen(default_schema_json));
        script->config.json_schema_len = strlen(default_schema_json);
        if (script->config.json_schema_text == NULL)
            return oom(ld);
    }

    const gt_value *disallowed = get(root, "disallowed_tools");
    if (disallowed != NULL) {
        if (disallowed->type != GT_ARRAY)
            return fail(ld, "/disallowed_tools", "disallowed_tools must be an array of tool names");
        for (size_t i = 0; i < disallowed->u.arr.count; i++) {
            const gt_value *name = disallowed->u.arr.items[i];
            char at[256];
            child_index(at, sizeof at, "/disallowed_tools", i);
            if (name->type != GT_STRING)
                return fail(ld, at, "a tool name must be a string, not %s", type_word(name));
            if (strcmp(name->u.str.chars, GT_LOOP_TOOL_NAME) == 0)
                script->config.structured_output_tool = false;
        }
    }
    if (!load_server_tools(ld, get(root, "server_tools")))
        return false;
    const gt_value *choice = get(root, "tool_choice");
    if (choice != NULL) {
        const gt_value *name = choice->type == GT_OBJECT ? get(choice, "name") : NULL;
        const gt_value *kind = choice->type == GT_OBJECT ? get(choice, "type") : NULL;
        if (choice->type == GT_STRING && strcmp(choice->u.str.chars, "auto") == 0)
            script->config.tool_choice = GT_LOOP_TOOL_CHOICE_AUTO;
        else if (choice->type == GT_STRING && strcmp(choice->u.str.chars, "any") == 0)
            script->config.tool_choice = GT_LOOP_TOOL_CHOICE_ANY;
        else if (choice->type == GT_OBJECT && choice->u.obj.count == 2 && kind != NULL && kind->type == GT_STRING &&
                 strcmp(kind->u.str.chars, "tool") == 0 && name != NULL && name->type == GT_STRING &&
                 name->u.str.len > 0) {
            script->config.tool_choice = GT_LOOP_TOOL_CHOICE_TOOL;
            script->config.tool_choice_name = gt_arena_strndup(script->arena, name->u.str.chars, name->u.str.len);
            if (script->config.tool_choice_name == NULL)
                return oom(ld);
        } else
            return fail(ld, "/tool_choice", "tool_choice must be \"auto\", \"any\" or {\"type\": \"tool\", \"name\": NAME}");
    }
    if (!load_env(ld, root) || !load_history(ld, root))
        return false;

    const gt_value *turns = get(root, "turns");
    if (turns == NULL)
        return fail(ld, "/turns", "turns is required (the model's turns in order)");
    if (turns->type != GT_ARRAY)
        return fail(ld, "/turns", "turns must be an array, not %s", type_word(turns));
    size_t n = turns->u.arr.count;
    script->turns = gt_arena_alloc(script->arena, (n ? n : 1) * sizeof *script->turns);
    if (script->turns == NULL)
        return oom(ld);
    for (size_t i = 0; i < n; i++) {
        char at[256];
        child_index(at, sizeof at, "/turns", i);
        if (!load_turn(ld, turns->u.arr.items[i], at, i, &script->turns[i]))
            return false;
        turn_kind kind = script->turns[i].kind;
        if ((kind == TURN_FALLBACK || kind == TURN_LATE_ATTACHMENT) && i == 0)
            return fail(ld, at, "a %s arrives with a model response: it cannot be the first turn",
                        kind == TURN_FALLBACK ? "fallback" : "late_attachment");
    }
    script->turn_count = n;
    return true;
}

gt_loop_script *gt_loop_script_load(const char *json, size_t len, const char *default_schema_json,
                                    gt_loop_script_problem *problem)
{
    gt_loop_script_problem scratch_problem;
    if (problem == NULL)
        problem = &scratch_problem;
    memset(problem, 0, sizeof *problem);
    gt_loop_script *script = calloc(1, sizeof *script);
    if (script == NULL || (script->arena = gt_arena_new()) == NULL) {
        free(script);
        snprintf(problem->message, sizeof problem->message, "out of memory");
        return NULL;
    }
    gt_loop_config_init(&script->config);
    loader ld = {.script = script, .problem = problem, .failed = false};
    gt_parse_error error;
    const gt_value *root = gt_parse(script->arena, json, len, NULL, &error);
    if (root == NULL)
        fail(&ld, "", "not valid JSON: %s at %u:%u: %s", gt_syntax_reason_code(error.reason), error.line,
             error.column, error.message);
    else
        load_root(&ld, root, default_schema_json);
    if (ld.failed) {
        gt_loop_script_free(script);
        return NULL;
    }
    return script;
}

gt_loop_script *gt_loop_script_from_value(const gt_value *value, const char *default_schema_json,
                                          gt_loop_script_problem *problem)
{
    size_t len;
    char *json = gt_value_to_json(value, &len);
    if (json == NULL) {
        if (problem != NULL) {
            problem->pointer[0] = '\0';
            snprintf(problem->message, sizeof problem->message, "out of memory");
        }
        return NULL;
    }
    gt_loop_script *script = gt_loop_script_load(json, len, default_schema_json, problem);
    free(json);
    return script;
}

void gt_loop_script_free(gt_loop_script *script)
{
    if (script == NULL)
        return;
    gt_arena_free(script->arena);
    free(script);
}

gt_loop_config *gt_loop_script_config(gt_loop_script *script)
{
    return &script->config;
}

bool gt_loop_script_sets_env(const gt_loop_script *script, const char *name)
{
    return strcmp(name, GT_LOOP_ATTEMPTS_ENV) == 0 && script->env_sets_attempts;
}

size_t gt_loop_script_unplayed(const gt_loop_script *script)
{
    return script->turn_count - script->next_turn;
}

size_t gt_loop_script_turn_count(const gt_loop_script *script)
{
    return script->turn_count;
}

/* ---- the player ---- */

/* The reply of response turn `index` (message, stream or error), without
 * the notices that follow it. 0, or -1 with `err`. */
static int reply_of_turn(const gt_loop_script *script, size_t index, gt_arena *arena, gt_loop_reply *reply, char *err,
                         size_t err_len)
{
    const script_turn *turn = &script->turns[index];
    memset(reply, 0, sizeof *reply);
    reply->turn = index;
    switch (turn->kind) {
    case TURN_MESSAGE: {
        /* A fresh copy per play: the loop parses inputs into its own arena. */
        gt_message *message = gt_arena_alloc(arena, sizeof *message);
        gt_block *blocks = gt_arena_alloc(arena, (turn->message.block_count + 1) * sizeof *blocks);
        if (message == NULL || blocks == NULL) {
            snprintf(err, err_len, "out of memory");
            return -1;
        }
        *message = turn->message;
        memcpy(blocks, turn->message.blocks, turn->message.block_count * sizeof *blocks);
        message->blocks = blocks;
        reply->kind = GT_LOOP_REPLY_MESSAGE;
        reply->message = message;
        break;
    }
    case TURN_STREAM:
        reply->kind = GT_LOOP_REPLY_STREAM;
        reply->provider = turn->provider;
        reply->sse = turn->sse;
        reply->sse_len = turn->sse_len;
        break;
    default:
        reply->kind = GT_LOOP_REPLY_ERROR;
        reply->http_status = turn->status;
        reply->error_type = turn->error_type;
        reply->error_message = turn->error_message;
        break;
    }
    return 0;
}

static bool is_notice_turn(const script_turn *turn)
{
    return turn->kind == TURN_FALLBACK || turn->kind == TURN_LATE_ATTACHMENT;
}

int gt_loop_script_replay_last(const gt_loop_script *script, gt_arena *arena, gt_loop_reply *reply, char *err,
                               size_t err_len)
{
    for (size_t index = script->turn_count; index-- > 0;)
        if (!is_notice_turn(&script->turns[index]))
            return reply_of_turn(script, index, arena, reply, err, err_len);
    snprintf(err, err_len, "the script has no response turn to repeat");
    return -1;
}

static int play_from(const gt_loop_script *script, size_t *next_turn, const gt_loop_request *request,
                     gt_arena *arena, gt_loop_reply *reply, char *err, size_t err_len);

static int play(void *state, const gt_loop_request *request, gt_arena *arena, gt_loop_reply *reply, char *err,
                size_t err_len)
{
    gt_loop_script *script = state;
    return play_from(script, &script->next_turn, request, arena, reply, err, err_len);
}

int gt_loop_script_play_at(const gt_loop_script *script, size_t *cursor, const gt_loop_request *request,
                           gt_arena *arena, gt_loop_reply *reply, char *err, size_t err_len)
{
    return play_from(script, cursor, request, arena, reply, err, err_len);
}

size_t gt_loop_script_unplayed_at(const gt_loop_script *script, size_t cursor)
{
    return cursor >= script->turn_count ? 0 : script->turn_count - cursor;
}

/* The player proper: reads `script` only, moves `*next_turn`. */
static int play_from(const gt_loop_script *script, size_t *next_turn, const gt_loop_request *request,
                     gt_arena *arena, gt_loop_reply *reply, char *err, size_t err_len)
{
    if (*next_turn >= script->turn_count) {
        snprintf(err, err_len, "the script has no turn left for request %zu (all %zu turns played)",
                 request->api_attempt, script->turn_count);
        return -1;
    }
    size_t index = (*next_turn)++;
    const script_turn *turn = &script->turns[index];
    if (is_notice_turn(turn)) {
        snprintf(err, err_len, "turn %zu (a %s) is not a response to request %zu", index,
                 turn->kind == TURN_FALLBACK ? "fallback" : "late_attachment", request->api_attempt);
        return -1;
    }
    if (reply_of_turn(script, index, arena, reply, err, err_len) != 0)
        return -1;
    size_t notices = 0;
    while ((*next_turn) + notices < script->turn_count &&
           (script->turns[(*next_turn) + notices].kind == TURN_FALLBACK ||
            script->turns[(*next_turn) + notices].kind == TURN_LATE_ATTACHMENT))
        notices++;
    if (notices > 0) {
        gt_loop_notice *list = gt_arena_alloc(arena, notices * sizeof *list);
        if (list == NULL) {
            snprintf(err, err_len, "out of memory");
            return -1;
        }
        for (size_t i = 0; i < notices; i++) {
            size_t at = (*next_turn)++;
            const script_turn *notice_turn = &script->turns[at];
            memset(&list[i], 0, sizeof list[i]);
            list[i].turn = at;
            if (notice_turn->kind == TURN_FALLBACK) {
                list[i].kind = GT_LOOP_NOTICE_FALLBACK;
                list[i].message_id = notice_turn->message_id;
            } else {
                list[i].kind = GT_LOOP_NOTICE_LATE_ATTACHMENT;
                list[i].tool_use_id = notice_turn->tool_use_id;
                list[i].input_text = notice_turn->input_text;
                list[i].input_len = notice_turn->input_len;
            }
        }
        reply->notices = list;
        reply->notice_count = notices;
    }
    return 0;
}

void gt_loop_script_model(gt_loop_script *script, gt_loop_model *model)
{
    script->next_turn = 0;
    model->state = script;
    model->send = play;
}

int gt_loop_run_script_text(const char *json, size_t len, const char *default_schema_json, gt_loop_result *result,
                            gt_loop_script_problem *problem)
{
    memset(result, 0, sizeof *result);
    gt_loop_script_problem scratch_problem;
    if (problem == NULL)
        problem = &scratch_problem;
    gt_loop_script *script = gt_loop_script_load(json, len, default_schema_json, problem);
    if (script == NULL)
        return strcmp(problem->message, "out of memory") == 0 && problem->pointer[0] == '\0' ? -1 : 1;
    gt_loop_model model;
    gt_loop_script_model(script, &model);
    int status = gt_loop_run(gt_loop_script_config(script), &model, result);
    gt_loop_script_free(script);
    return status;
}
