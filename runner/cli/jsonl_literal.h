/* jsonl_literal.h — the fast decoder of `validate --jsonl` lines: one JSON
 * string literal (the raw model output, escaped) to its bytes, ahead of the
 * syntax gate. Not for: anything unusual in a line (the caller then parses
 * the line with gt_parse, which decides and reports). */
#ifndef GT_JSONL_LITERAL_H
#define GT_JSONL_LITERAL_H

#include <stdbool.h>
#include <stddef.h>

/* The decoded bytes; grown by the decoder, freed by the caller (free(data)). */
typedef struct gt_jsonl_buffer {
    char *data;
    size_t cap;
} gt_jsonl_buffer;

/* Decode a line that is exactly one string literal with ordinary escapes into
 * buf->data. Returns the decoded length, or (size_t)-1 when the line needs the
 * full syntax gate (anything unusual, including lone surrogates, or out of
 * memory). Whenever it decodes, the bytes are exactly what gt_parse makes of
 * the line (suite/test_process.c checks both on generated lines); UTF-8 of the
 * result is checked by the syntax gate that runs on it next. */
size_t gt_jsonl_decode_literal(const char *line, size_t len, gt_jsonl_buffer *buf);

/* For tests: take the portable (SSE2 copy) path even where the CPU has
 * SSSE3, so that both are checked; false returns to the CPU's choice. */
void gt_jsonl_use_portable(bool portable);

#endif
