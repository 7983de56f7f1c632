/* mock_buf.c — growable byte buffer (see mock_buf.h). */
#include "mock_buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mock_buf_init(mock_buf *buf)
{
    memset(buf, 0, sizeof *buf);
}

void mock_buf_free(mock_buf *buf)
{
    free(buf->data);
    mock_buf_init(buf);
}

static bool reserve(mock_buf *buf, size_t extra)
{
    if (buf->failed)
        return false;
    if (buf->len + extra + 1 <= buf->cap)
        return true;
    size_t cap = buf->cap ? buf->cap : 256;
    while (cap < buf->len + extra + 1) {
        if (cap > ((size_t)-1) / 2) {
            buf->failed = true;
            return false;
        }
        cap *= 2;
    }
    char *grown = realloc(buf->data, cap);
    if (grown == NULL) {
        buf->failed = true;
        return false;
    }
    buf->data = grown;
    buf->cap = cap;
    return true;
}

char *mock_buf_take(mock_buf *buf, size_t *len)
{
    if (buf->failed) {
        mock_buf_free(buf);
        return NULL;
    }
    if (buf->data == NULL && !reserve(buf, 0))
        return NULL;
    buf->data[buf->len] = '\0';
    char *data = buf->data;
    if (len)
        *len = buf->len;
    mock_buf_init(buf);
    return data;
}

void mock_buf_add(mock_buf *buf, const void *bytes, size_t len)
{
    if (len == 0 || !reserve(buf, len))
        return;
    memcpy(buf->data + buf->len, bytes, len);
    buf->len += len;
    buf->data[buf->len] = '\0';
}

void mock_buf_adds(mock_buf *buf, const char *text)
{
    mock_buf_add(buf, text, strlen(text));
}

void mock_buf_addf(mock_buf *buf, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        buf->failed = true;
        return;
    }
    if ((size_t)n < sizeof small) {
        mock_buf_add(buf, small, (size_t)n);
        return;
    }
    if (!reserve(buf, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(buf->data + buf->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    buf->len += (size_t)n;
}

void mock_buf_add_json_string(mock_buf *buf, const char *text, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    if (!reserve(buf, len + 2))
        return;
    mock_buf_add(buf, "\"", 1);
    size_t run = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        mock_buf_add(buf, text + run, i - run);
        run = i + 1;
        char esc[7] = {'\\', 0, 0, 0, 0, 0, 0};
        size_t esc_len = 2;
        switch (c) {
        case '"': esc[1] = '"'; break;
        case '\\': esc[1] = '\\'; break;
        case '\n': esc[1] = 'n'; break;
        case '\r': esc[1] = 'r'; break;
        case '\t': esc[1] = 't'; break;
        case '\b': esc[1] = 'b'; break;
        case '\f': esc[1] = 'f'; break;
        default:
            esc[1] = 'u';
            esc[2] = '0';
            esc[3] = '0';
            esc[4] = hex[c >> 4];
            esc[5] = hex[c & 15];
            esc_len = 6;
        }
        mock_buf_add(buf, esc, esc_len);
    }
    mock_buf_add(buf, text + run, len - run);
    mock_buf_add(buf, "\"", 1);
}

void mock_buf_add_json_cstr(mock_buf *buf, const char *text)
{
    if (text == NULL)
        mock_buf_adds(buf, "null");
    else
        mock_buf_add_json_string(buf, text, strlen(text));
}

size_t mock_utf8_piece(const char *text, size_t len, size_t limit)
{
    if (limit == 0 || len <= limit)
        return len;
    size_t cut = limit;
    while (cut > 0 && ((unsigned char)text[cut] & 0xC0) == 0x80)
        cut--;
    return cut ? cut : limit;
}

bool mock_ends_push(size_t **ends, size_t *count, size_t *cap, size_t offset)
{
    if (*count == *cap) {
        size_t grown_cap = *cap ? *cap * 2 : 16;
        size_t *grown = realloc(*ends, grown_cap * sizeof *grown);
        if (grown == NULL)
            return false;
        *ends = grown;
        *cap = grown_cap;
    }
    (*ends)[(*count)++] = offset;
    return true;
}
