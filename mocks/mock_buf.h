/* mock_buf.h — a growable byte buffer for the mock server's response writers.
 *
 * Appends never fail silently: on out-of-memory the buffer is marked failed,
 * later appends are no-ops and the caller checks `failed` once at the end. */
#ifndef GT_MOCK_BUF_H
#define GT_MOCK_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

typedef struct mock_buf {
    char *data; /* NUL-terminated when len > 0 */
    size_t len, cap;
    bool failed;
} mock_buf;

void mock_buf_init(mock_buf *buf);
void mock_buf_free(mock_buf *buf);
/* Hand the bytes to the caller (malloc'd, NUL-terminated; never NULL unless
 * failed) and reset the buffer. */
char *mock_buf_take(mock_buf *buf, size_t *len);
/* The growing append (out of line); mock_buf_add takes the room it finds
 * inline, so an append that fits is one compare and one memcpy, and
 * mock_buf_adds of a string literal needs no strlen at run time. */
void mock_buf_add_grow(mock_buf *buf, const void *bytes, size_t len);
static inline void mock_buf_add(mock_buf *buf, const void *bytes, size_t len)
{
    if (len == 0)
        return;
    if (buf->len + len + 1 > buf->cap || buf->failed) {
        mock_buf_add_grow(buf, bytes, len);
        return;
    }
    memcpy(buf->data + buf->len, bytes, len);
    buf->len += len;
    buf->data[buf->len] = '\0';
}
static inline void mock_buf_adds(mock_buf *buf, const char *text)
{
    mock_buf_add(buf, text, strlen(text));
}
void mock_buf_addf(mock_buf *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append `value` in decimal, as "%lld" prints it, without printf (the hot
 * path writes a few numbers into every reply and journal entry). */
void mock_buf_add_int(mock_buf *buf, long long value);
/* Make room for `extra` more bytes at once (false when out of memory). */
bool mock_buf_reserve(mock_buf *buf, size_t extra);
/* Append `len` bytes as a JSON string literal (quoted). Bytes are copied as
 * they are (invalid UTF-8 included) apart from the escapes JSON requires, so a
 * script's exact text reaches the client. */
void mock_buf_add_json_string(mock_buf *buf, const char *text, size_t len);
/* Append a NUL-terminated string as a JSON literal, or `null` for NULL. */
void mock_buf_add_json_cstr(mock_buf *buf, const char *text);
/* Append `item` byte for byte as cJSON_PrintUnformatted prints it, without
 * its temporary string (the journal prints every request body). False, the
 * buffer as it was, where cJSON_PrintUnformatted would return NULL. */
struct cJSON;
bool mock_buf_add_cjson(mock_buf *buf, const struct cJSON *item);
/* Drop the bytes past `len` (no-op when shorter or failed). */
void mock_buf_truncate(mock_buf *buf, size_t len);


/* Append `offset` to a growable array of event end offsets. Returns false
 * (the array unchanged) when out of memory. */
bool mock_ends_push(size_t **ends, size_t *count, size_t *cap, size_t offset);

/* Length of the longest prefix of `text` (at most `limit` bytes, 0 = all)
 * that does not end inside a UTF-8 sequence, so every streamed delta stays
 * valid UTF-8. */
size_t mock_utf8_piece(const char *text, size_t len, size_t limit);

#endif
