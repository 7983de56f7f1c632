/* clean_answer.c — the clean-answer test of the http target (clean_answer.h).
 *
 * A `message` turn: the object is the input of one of its StructuredOutput
 * calls, the stop reason allows use (none, tool_use, end_turn) and the object
 * validates. A raw stream turn (`sse` text or `events`), read leniently here
 * (event names ignored, a `data:` that is no JSON object skipped): the object
 * is the complete input of a StructuredOutput `tool_use` block the stream
 * closed (its `content_block_stop`) before its first `message_stop`, parsed
 * once and strictly (a repeated key is no complete input), and the stream
 * reached that terminal event, carries no `error` event and no stop reason
 * other than tool_use / end_turn (refusal, max_tokens, pause_turn forbid use;
 * a stop reason that is no string is a protocol fault, not a stop). Seed 002's
 * streaming steps (S2-25): after the block ends, confirm a valid terminal
 * event, parse once, validate the schema. */
#include "clean_answer.h"

#include <stdlib.h>
#include <string.h>

#include "gauntlet/arena.h"
#include "gauntlet/parse.h"
#include "gauntlet/schema.h"

/* Blocks of one stream followed; a later index is ignored (no provider
 * sends that many blocks in one answer). */
#define CLEAN_MAX_BLOCKS 64

static const char *string_of(const gt_value *object, const char *key)
{
    const gt_value *value = object && object->type == GT_OBJECT ? gt_value_get(object, key, strlen(key)) : NULL;
    return value != NULL && value->type == GT_STRING ? value->u.str.chars : NULL;
}

/* A stop reason that lets the caller use the answer: none, or a string
 * tool_use / end_turn. A stop reason that is no string (a malformed
 * message_delta) names no stop: protocol strictness, judged by the stream
 * rows, not a reason to distrust a closed block. */
static bool stop_allows_use(const gt_value *holder)
{
    const gt_value *stop = holder && holder->type == GT_OBJECT ? gt_value_get(holder, "stop_reason", 11) : NULL;
    if (stop == NULL || stop->type != GT_STRING)
        return true;
    return strcmp(stop->u.str.chars, "tool_use") == 0 || strcmp(stop->u.str.chars, "end_turn") == 0;
}

static bool validates(const gt_value *object, const char *schema_json, bool assert_formats)
{
    gt_schema_options options;
    gt_schema_options_init(&options);
    options.assert_formats = assert_formats;
    gt_schema *schema = gt_schema_compile(schema_json, strlen(schema_json), &options, NULL);
    bool valid = schema != NULL && gt_schema_validate(schema, object, NULL) == GT_SCHEMA_VALID;
    gt_schema_free(schema);
    return valid;
}

static bool message_answers(const gt_value *message, const gt_value *object)
{
    if (message == NULL || message->type != GT_OBJECT || !stop_allows_use(message))
        return false;
    const gt_value *content = gt_value_get(message, "content", 7);
    for (size_t i = 0; content && content->type == GT_ARRAY && i < content->u.arr.count; i++) {
        const gt_value *block = content->u.arr.items[i];
        const char *type = string_of(block, "type"), *name = string_of(block, "name");
        const gt_value *input = block->type == GT_OBJECT ? gt_value_get(block, "input", 5) : NULL;
        if (type && strcmp(type, "tool_use") == 0 && name && strcmp(name, "StructuredOutput") == 0 && input &&
            gt_value_equal(input, object))
            return true;
    }
    return false;
}

/* One stream being read: the blocks open now, and whether the object is
 * one closed block's input. */
typedef struct stream_reader {
    gt_arena *arena;
    const gt_value *object;
    struct {
        bool open, structured;
        const gt_value *start_input;
        char *json; /* the input_json_delta text so far (malloc'd) */
        size_t len;
    } blocks[CLEAN_MAX_BLOCKS];
    bool matched, terminal, forbidden;
} stream_reader;

static int block_index(const gt_value *data)
{
    const gt_value *index = gt_value_get(data, "index", 5);
    if (index == NULL || index->type != GT_NUMBER || index->u.num.number < 0 ||
        index->u.num.number >= CLEAN_MAX_BLOCKS || index->u.num.number != (int)index->u.num.number)
        return -1;
    return (int)index->u.num.number;
}

static void append_delta(stream_reader *reader, int i, const gt_value *delta)
{
    const gt_value *partial = delta ? gt_value_get(delta, "partial_json", 12) : NULL;
    const char *type = string_of(delta, "type");
    if (partial == NULL || partial->type != GT_STRING || type == NULL || strcmp(type, "input_json_delta") != 0)
        return;
    char *grown = realloc(reader->blocks[i].json, reader->blocks[i].len + partial->u.str.len + 1);
    if (grown == NULL) {
        reader->forbidden = true; /* cannot tell: never clean */
        return;
    }
    memcpy(grown + reader->blocks[i].len, partial->u.str.chars, partial->u.str.len);
    reader->blocks[i].len += partial->u.str.len;
    grown[reader->blocks[i].len] = '\0';
    reader->blocks[i].json = grown;
}

/* A block closes: its complete input is the deltas' text parsed once,
 * strictly (the start's own input when no delta came). */
static void close_block(stream_reader *reader, int i)
{
    if (reader->blocks[i].structured) {
        const gt_value *input = reader->blocks[i].start_input;
        if (reader->blocks[i].len > 0) {
            gt_parse_error error;
            input = gt_parse(reader->arena, reader->blocks[i].json, reader->blocks[i].len, NULL, &error);
        }
        if (input != NULL && gt_value_equal(input, reader->object))
            reader->matched = true;
    }
    free(reader->blocks[i].json);
    memset(&reader->blocks[i], 0, sizeof reader->blocks[i]);
}

static void read_event(stream_reader *reader, const gt_value *data)
{
    const char *type = string_of(data, "type");
    if (type == NULL)
        return; /* no event a lenient reader can place */
    if (strcmp(type, "error") == 0) {
        reader->forbidden = true; /* the provider took the answer back */
        return;
    }
    if (reader->terminal)
        return; /* after the terminal event: nothing more is the answer */
    if (strcmp(type, "message_stop") == 0) {
        reader->terminal = true;
    } else if (strcmp(type, "message_start") == 0) {
        const gt_value *message = gt_value_get(data, "message", 7);
        reader->forbidden |= !stop_allows_use(message && message->type == GT_OBJECT ? message : NULL);
    } else if (strcmp(type, "message_delta") == 0) {
        const gt_value *delta = gt_value_get(data, "delta", 5);
        reader->forbidden |= !stop_allows_use(delta && delta->type == GT_OBJECT ? delta : NULL);
    } else if (strcmp(type, "content_block_start") == 0) {
        int i = block_index(data);
        const gt_value *block = gt_value_get(data, "content_block", 13);
        if (i < 0 || block == NULL || block->type != GT_OBJECT)
            return;
        free(reader->blocks[i].json); /* a start over an open block replaces it */
        memset(&reader->blocks[i], 0, sizeof reader->blocks[i]);
        const char *block_type = string_of(block, "type"), *name = string_of(block, "name");
        reader->blocks[i].open = true;
        reader->blocks[i].structured = block_type && strcmp(block_type, "tool_use") == 0 && name &&
                                       strcmp(name, "StructuredOutput") == 0;
        reader->blocks[i].start_input = gt_value_get(block, "input", 5);
    } else if (strcmp(type, "content_block_delta") == 0) {
        int i = block_index(data);
        const gt_value *delta = gt_value_get(data, "delta", 5);
        if (i >= 0 && reader->blocks[i].open && delta && delta->type == GT_OBJECT)
            append_delta(reader, i, delta);
    } else if (strcmp(type, "content_block_stop") == 0) {
        int i = block_index(data);
        if (i >= 0 && reader->blocks[i].open)
            close_block(reader, i);
    }
}

/* A data payload of the stream (SSE `data:` text, or an `events` entry's
 * string `data`): read when it is one JSON object, else skipped. */
static void read_payload(stream_reader *reader, const char *text, size_t len)
{
    gt_parse_options options;
    gt_parse_options_init(&options);
    options.rfc8259 = true;
    gt_parse_error error;
    const gt_value *data = gt_parse(reader->arena, text, len, &options, &error);
    if (data != NULL && data->type == GT_OBJECT)
        read_event(reader, data);
}

/* SSE text, leniently: lines end at LF (a CR before it dropped); a blank
 * line dispatches the `data:` lines gathered (joined by LF, one space after
 * the colon dropped); `event:` names and other fields are ignored. */
static void read_sse(stream_reader *reader, const char *text, size_t len)
{
    char *data = malloc(len + 1);
    size_t data_len = 0;
    bool have_data = false;
    if (data == NULL) {
        reader->forbidden = true;
        return;
    }
    for (size_t at = 0; at <= len;) {
        const char *end = memchr(text + at, '\n', len - at);
        size_t line_len = (end ? (size_t)(end - (text + at)) : len - at);
        const char *line = text + at;
        if (end == NULL && line_len == 0)
            break;
        if (line_len > 0 && line[line_len - 1] == '\r')
            line_len--;
        if (line_len == 0 && end != NULL) {
            if (have_data)
                read_payload(reader, data, data_len);
            data_len = 0, have_data = false;
        } else if (end != NULL && line_len >= 5 && memcmp(line, "data:", 5) == 0) {
            size_t skip = line_len > 5 && line[5] == ' ' ? 6 : 5;
            if (have_data)
                data[data_len++] = '\n';
            memcpy(data + data_len, line + skip, line_len - skip);
            data_len += line_len - skip;
            have_data = true;
        }
        /* a last line with no LF is an event never dispatched */
        if (end == NULL)
            break;
        at += (size_t)(end - (text + at)) + 1;
    }
    free(data);
}

static gt_clean_kind stream_answers(const gt_value *stream, const gt_value *object)
{
    stream_reader reader = {.arena = gt_arena_new(), .object = object};
    if (reader.arena == NULL)
        return GT_CLEAN_NONE;
    const gt_value *sse = gt_value_get(stream, "sse", 3);
    const gt_value *events = gt_value_get(stream, "events", 6);
    if (sse != NULL && sse->type == GT_STRING) {
        read_sse(&reader, sse->u.str.chars, sse->u.str.len);
    } else if (events != NULL && events->type == GT_ARRAY) {
        for (size_t i = 0; i < events->u.arr.count; i++) {
            const gt_value *event = events->u.arr.items[i];
            const gt_value *data = event->type == GT_OBJECT && gt_value_get(event, "data", 4) != NULL
                                       ? gt_value_get(event, "data", 4)
                                       : event;
            if (data->type == GT_STRING)
                read_payload(&reader, data->u.str.chars, data->u.str.len);
            else if (data->type == GT_OBJECT)
                read_event(&reader, data);
        }
    }
    for (int i = 0; i < CLEAN_MAX_BLOCKS; i++)
        free(reader.blocks[i].json);
    gt_arena_free(reader.arena);
    return reader.matched && reader.terminal && !reader.forbidden ? GT_CLEAN_STREAM : GT_CLEAN_NONE;
}

gt_clean_kind gt_clean_answer(const gt_value *turn, bool verbatim_stream, const gt_value *object,
                              const char *schema_json, bool assert_formats)
{
    if (turn == NULL || turn->type != GT_OBJECT || object == NULL || schema_json == NULL)
        return GT_CLEAN_NONE;
    const gt_value *message = gt_value_get(turn, "message", 7);
    const gt_value *stream = gt_value_get(turn, "stream", 6);
    gt_clean_kind kind = GT_CLEAN_NONE;
    if (message != NULL) {
        kind = message_answers(message, object) ? GT_CLEAN_MESSAGE : GT_CLEAN_NONE;
    } else if (stream != NULL && stream->type == GT_OBJECT && gt_value_get(stream, "cut", 3) == NULL) {
        const gt_value *from = gt_value_get(stream, "from_message", 12);
        if (from != NULL)
            kind = message_answers(from, object) ? GT_CLEAN_MESSAGE : GT_CLEAN_NONE;
        else if (verbatim_stream)
            kind = stream_answers(stream, object);
    }
    return kind != GT_CLEAN_NONE && validates(object, schema_json, assert_formats) ? kind : GT_CLEAN_NONE;
}
