/* sse.c — server-sent events framing: raw bytes in any split -> events.
 *
 * Follows the WHATWG event-stream grammar (lines end in CRLF, LF or CR; a
 * blank line dispatches; ":" starts a comment; one space after the colon is
 * stripped; data lines are joined with "\n") with one strictness on purpose:
 * a block that carried a line but no `data:` is still delivered (has_data
 * false) so that the assembler can call it malformed instead of silently
 * dropping it. Also the rendering side, so scripts and the mock server emit
 * exactly what the parser reads. Not for: the meaning of events (stream.c). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gauntlet/stream.h"

struct gt_sse_parser {
    gt_sse_handler handler;
    void *user;
    gt_buffer line;  /* the current, unfinished line */
    gt_buffer type;  /* event: of the current block */
    gt_buffer data;  /* data: lines of the current block */
    bool has_type, has_data, has_other; /* the block so far */
    bool block_open;    /* some non-blank line since the last dispatch */
    bool skip_lf;       /* the previous chunk ended in CR: a leading LF belongs to it */
    size_t consumed;    /* bytes seen so far */
    size_t line_offset; /* offset of the current line's first byte */
    size_t block_offset;
    size_t events;
    int stopped; /* the handler's non-zero return, sticky */
};

void gt_buffer_append(gt_buffer *buffer, const char *bytes, size_t len)
{
    if (buffer->failed)
        return;
    if (buffer->len + len + 1 > buffer->cap) {
        size_t cap = buffer->cap ? buffer->cap : 64;
        while (cap < buffer->len + len + 1)
            cap *= 2;
        char *grown = realloc(buffer->data, cap);
        if (grown == NULL) {
            buffer->failed = true;
            return;
        }
        buffer->data = grown;
        buffer->cap = cap;
    }
    if (len > 0)
        memcpy(buffer->data + buffer->len, bytes, len);
    buffer->len += len;
    buffer->data[buffer->len] = '\0';
}

void gt_buffer_appendf(gt_buffer *buffer, const char *format, ...)
{
    char small[256];
    va_list args;
    va_start(args, format);
    int needed = vsnprintf(small, sizeof small, format, args);
    va_end(args);
    if (needed < 0) {
        buffer->failed = true;
        return;
    }
    if ((size_t)needed < sizeof small) {
        gt_buffer_append(buffer, small, (size_t)needed);
        return;
    }
    char *large = malloc((size_t)needed + 1);
    if (large == NULL) {
        buffer->failed = true;
        return;
    }
    va_start(args, format);
    vsnprintf(large, (size_t)needed + 1, format, args);
    va_end(args);
    gt_buffer_append(buffer, large, (size_t)needed);
    free(large);
}

void gt_buffer_free(gt_buffer *buffer)
{
    free(buffer->data);
    memset(buffer, 0, sizeof *buffer);
}

gt_sse_parser *gt_sse_parser_new(gt_sse_handler handler, void *user)
{
    gt_sse_parser *parser = calloc(1, sizeof *parser);
    if (parser == NULL)
        return NULL;
    parser->handler = handler;
    parser->user = user;
    return parser;
}

void gt_sse_parser_free(gt_sse_parser *parser)
{
    if (parser == NULL)
        return;
    gt_buffer_free(&parser->line);
    gt_buffer_free(&parser->type);
    gt_buffer_free(&parser->data);
    free(parser);
}

static bool field_is(const char *name, size_t len, const char *want)
{
    return strlen(want) == len && memcmp(name, want, len) == 0;
}

/* A blank line: deliver the block, if it carried anything but comments. */
static int dispatch(gt_sse_parser *parser)
{
    bool deliver = parser->has_type || parser->has_data || parser->has_other;
    int status = 0;
    if (deliver) {
        gt_sse_event event = {
            .type = parser->type.data ? parser->type.data : "",
            .type_len = parser->type.len,
            .has_type = parser->has_type,
            .data = parser->data.data ? parser->data.data : "",
            .data_len = parser->data.len,
            .has_data = parser->has_data,
            .offset = parser->block_offset,
            .index = parser->events++,
        };
        /* The spec drops the data's final "\n"; we join lines instead. */
        status = parser->handler(parser->user, &event);
    }
    parser->type.len = parser->data.len = 0;
    parser->has_type = parser->has_data = parser->has_other = false;
    parser->block_open = false;
    return status;
}

static int process_line(gt_sse_parser *parser)
{
    const char *line = parser->line.data ? parser->line.data : "";
    size_t len = parser->line.len;
    if (len == 0)
        return dispatch(parser);
    if (!parser->block_open) {
        parser->block_open = true;
        parser->block_offset = parser->line_offset;
    }
    if (line[0] == ':')
        return 0; /* comment */
    const char *colon = memchr(line, ':', len);
    size_t name_len = colon ? (size_t)(colon - line) : len;
    const char *value = colon ? colon + 1 : line + len;
    size_t value_len = len - (size_t)(value - line);
    if (value_len > 0 && value[0] == ' ')
        value++, value_len--;
    if (field_is(line, name_len, "event")) {
        parser->type.len = 0;
        gt_buffer_append(&parser->type, value, value_len);
        parser->has_type = true;
    } else if (field_is(line, name_len, "data")) {
        if (parser->has_data)
            gt_buffer_append(&parser->data, "\n", 1);
        gt_buffer_append(&parser->data, value, value_len);
        parser->has_data = true;
    } else if (field_is(line, name_len, "id") || field_is(line, name_len, "retry")) {
        /* framing metadata: neither an event nor a fault */
    } else {
        parser->has_other = true; /* "{...}" without "data: ", "dta: x": content that is not data */
    }
    if (parser->type.failed || parser->data.failed)
        return -1;
    return 0;
}

int gt_sse_parser_feed(gt_sse_parser *parser, const char *bytes, size_t len)
{
    if (parser->stopped)
        return parser->stopped;
    for (size_t i = 0; i < len; i++) {
        char c = bytes[i];
        size_t at = parser->consumed++;
        if (parser->skip_lf) {
            parser->skip_lf = false;
            if (c == '\n') {
                parser->line_offset = at + 1;
                continue;
            }
        }
        if (c == '\r' || c == '\n') {
            int status = process_line(parser);
            parser->line.len = 0;
            parser->line_offset = at + 1;
            parser->skip_lf = c == '\r';
            if (status != 0) {
                parser->stopped = status;
                return status;
            }
            continue;
        }
        /* Copy the run of ordinary bytes at once. */
        size_t end = i + 1;
        while (end < len && bytes[end] != '\r' && bytes[end] != '\n')
            end++;
        gt_buffer_append(&parser->line, bytes + i, end - i);
        if (parser->line.failed)
            return -1;
        parser->consumed += end - i - 1;
        i = end - 1;
    }
    return 0;
}

bool gt_sse_parser_pending(const gt_sse_parser *parser)
{
    return parser->line.len > 0 || parser->block_open;
}

void gt_sse_write_event(gt_buffer *out, const char *type, const char *data, size_t data_len)
{
    if (type != NULL)
        gt_buffer_appendf(out, "event: %s\n", type);
    size_t start = 0;
    for (size_t i = 0; i <= data_len; i++) {
        if (i == data_len || data[i] == '\n') {
            gt_buffer_append(out, "data: ", 6);
            gt_buffer_append(out, data + start, i - start);
            gt_buffer_append(out, "\n", 1);
            start = i + 1;
        }
    }
    gt_buffer_append(out, "\n", 1);
}
