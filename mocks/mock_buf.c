/* mock_buf.c — growable byte buffer (see mock_buf.h). */
#include "mock_buf.h"

#include <cjson/cJSON.h>
#include <float.h>
#include <math.h>
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

bool mock_buf_reserve(mock_buf *buf, size_t extra)
{
    return reserve(buf, extra);
}

void mock_buf_add_int(mock_buf *buf, long long value)
{
    char text[24];
    char *end = text + sizeof text, *at = end;
    unsigned long long digits = value < 0 ? 0ull - (unsigned long long)value : (unsigned long long)value;
    do
        *--at = (char)('0' + digits % 10);
    while ((digits /= 10) != 0);
    if (value < 0)
        *--at = '-';
    mock_buf_add(buf, at, (size_t)(end - at));
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

void mock_buf_add_grow(mock_buf *buf, const void *bytes, size_t len)
{
    if (len == 0 || !reserve(buf, len))
        return;
    memcpy(buf->data + buf->len, bytes, len);
    buf->len += len;
    buf->data[buf->len] = '\0';
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

/* A number as cJSON 1.7's print_number writes it: "%1.15g" when that reads
 * back to the same double (its compare_double), else "%1.17g"; NaN and the
 * infinities as null. Integers below 1e15 print alike by "%1.15g", so they
 * skip the printf and the read back. */
static void add_cjson_number(mock_buf *buf, double d)
{
    if (isnan(d) || isinf(d)) {
        mock_buf_add(buf, "null", 4);
        return;
    }
    if (d == trunc(d) && fabs(d) < 1e15 && !(d == 0 && signbit(d))) {
        mock_buf_add_int(buf, (long long)d);
        return;
    }
    char text[32];
    int len = snprintf(text, sizeof text, "%1.15g", d);
    double back = strtod(text, NULL);
    double larger = fabs(back) > fabs(d) ? fabs(back) : fabs(d);
    if (!(fabs(back - d) <= larger * DBL_EPSILON))
        len = snprintf(text, sizeof text, "%1.17g", d);
    mock_buf_add(buf, text, len > 0 ? (size_t)len : 0);
}

static bool add_cjson_item(mock_buf *buf, const cJSON *item)
{
    switch (item->type & 0xFF) {
    case cJSON_NULL:
        mock_buf_add(buf, "null", 4);
        return true;
    case cJSON_False:
        mock_buf_add(buf, "false", 5);
        return true;
    case cJSON_True:
        mock_buf_add(buf, "true", 4);
        return true;
    case cJSON_Number:
        add_cjson_number(buf, item->valuedouble);
        return true;
    case cJSON_Raw:
        if (item->valuestring == NULL)
            return false;
        mock_buf_adds(buf, item->valuestring);
        return true;
    case cJSON_String:
        mock_buf_add_json_cstr(buf, item->valuestring ? item->valuestring : "");
        return true;
    case cJSON_Array:
    case cJSON_Object: {
        bool object = (item->type & 0xFF) == cJSON_Object;
        mock_buf_add(buf, object ? "{" : "[", 1);
        for (const cJSON *child = item->child; child != NULL; child = child->next) {
            if (object) {
                mock_buf_add_json_cstr(buf, child->string ? child->string : "");
                mock_buf_add(buf, ":", 1);
            }
            if (!add_cjson_item(buf, child))
                return false;
            if (child->next)
                mock_buf_add(buf, ",", 1);
        }
        mock_buf_add(buf, object ? "}" : "]", 1);
        return true;
    }
    default:
        return false;
    }
}

bool mock_buf_add_cjson(mock_buf *buf, const cJSON *item)
{
    size_t before = buf->len;
    if (item != NULL && add_cjson_item(buf, item) && !buf->failed)
        return true;
    mock_buf_truncate(buf, before);
    return false;
}

void mock_buf_truncate(mock_buf *buf, size_t len)
{
    if (buf->failed || buf->data == NULL || len >= buf->len)
        return;
    buf->len = len;
    buf->data[len] = '\0';
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
