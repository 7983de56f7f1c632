/* gen_json.c — buffer, random stream, JSON Pointers and the many-spellings
 * JSON writer used by the generator and the shrinker (gen_json.h). */
#include "gen_json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool buf_reserve(gt_buf *buf, size_t more)
{
    if (buf->failed)
        return false;
    if (buf->len + more + 1 <= buf->cap)
        return true;
    size_t cap = buf->cap ? buf->cap : 256;
    while (cap < buf->len + more + 1)
        cap *= 2;
    char *data = realloc(buf->data, cap);
    if (data == NULL) {
        buf->failed = true;
        return false;
    }
    buf->data = data;
    buf->cap = cap;
    return true;
}

void gt_buf_add(gt_buf *buf, const void *bytes, size_t len)
{
    if (!buf_reserve(buf, len))
        return;
    if (len > 0)
        memcpy(buf->data + buf->len, bytes, len);
    buf->len += len;
    buf->data[buf->len] = '\0';
}

void gt_buf_str(gt_buf *buf, const char *text)
{
    gt_buf_add(buf, text, strlen(text));
}

void gt_buf_printf(gt_buf *buf, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    int need = vsnprintf(NULL, 0, fmt, args);
    va_end(args);
    if (need < 0 || !buf_reserve(buf, (size_t)need))
        return;
    va_start(args, fmt);
    vsnprintf(buf->data + buf->len, (size_t)need + 1, fmt, args);
    va_end(args);
    buf->len += (size_t)need;
}

void gt_buf_free(gt_buf *buf)
{
    free(buf->data);
    *buf = (gt_buf){0};
}

char *gt_buf_take(gt_buf *buf, size_t *len)
{
    if (!buf->failed && buf->data == NULL && buf_reserve(buf, 0))
        buf->data[0] = '\0';
    if (buf->failed) {
        gt_buf_free(buf);
        return NULL;
    }
    char *data = buf->data;
    if (len != NULL)
        *len = buf->len;
    *buf = (gt_buf){0};
    return data;
}

uint64_t gt_rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

uint64_t gt_rng_below(uint64_t *state, uint64_t bound)
{
    return bound <= 1 ? 0 : gt_rng_next(state) % bound;
}

uint64_t gt_hash_bytes(uint64_t hash, const void *bytes, size_t len)
{
    const unsigned char *p = bytes;
    for (size_t i = 0; i < len; i++)
        hash = (hash ^ p[i]) * 1099511628211u;
    return hash;
}

char *gt_pointer_append(const char *path, const char *token)
{
    gt_buf buf = {0};
    gt_buf_str(&buf, path);
    gt_buf_add(&buf, "/", 1);
    for (const char *p = token; *p; p++) {
        if (*p == '~')
            gt_buf_add(&buf, "~0", 2);
        else if (*p == '/')
            gt_buf_add(&buf, "~1", 2);
        else
            gt_buf_add(&buf, p, 1);
    }
    return gt_buf_take(&buf, NULL);
}

cJSON *gt_pointer_find(cJSON *root, const char *path, cJSON **parent)
{
    cJSON *node = root, *up = NULL;
    const char *p = path;
    while (node != NULL && *p == '/') {
        p++;
        gt_buf token = {0};
        for (; *p && *p != '/'; p++) {
            if (p[0] == '~' && (p[1] == '0' || p[1] == '1')) {
                gt_buf_add(&token, p[1] == '0' ? "~" : "/", 1);
                p++;
            } else {
                gt_buf_add(&token, p, 1);
            }
        }
        char *name = gt_buf_take(&token, NULL);
        if (name == NULL)
            return NULL;
        up = node;
        if (cJSON_IsArray(node)) {
            char *end;
            long index = strtol(name, &end, 10);
            node = *name && *end == '\0' && index >= 0 ? cJSON_GetArrayItem(node, (int)index) : NULL;
        } else if (cJSON_IsObject(node)) {
            node = cJSON_GetObjectItemCaseSensitive(node, name);
        } else {
            node = NULL;
        }
        free(name);
    }
    if (parent != NULL)
        *parent = up;
    return *p == '\0' ? node : NULL;
}

void gt_json_number(char out[32], double number)
{
    if (!isfinite(number)) {
        snprintf(out, 32, "0");
        return;
    }
    if (number == floor(number) && fabs(number) < 1e15) {
        snprintf(out, 32, "%.0f", number);
        return;
    }
    snprintf(out, 32, "%.15g", number);
    if (strtod(out, NULL) != number) {
        char precise[32];
        snprintf(precise, sizeof precise, "%.17g", number);
        /* keep the short form when it is the decimal the value was meant to be (0.1 * 3) */
        if (strlen(out) > 12)
            memcpy(out, precise, sizeof precise);
    }
}

/* One code point from UTF-8 (invalid bytes come back as U+FFFD, length 1). */
static unsigned next_code_point(const unsigned char *p, size_t left, size_t *len)
{
    *len = 1;
    if (p[0] < 0x80)
        return p[0];
    size_t need = p[0] >= 0xF0 && p[0] <= 0xF4 ? 4 : p[0] >= 0xE0 ? 3 : p[0] >= 0xC2 && p[0] < 0xE0 ? 2 : 0;
    if (need == 0 || need > left)
        return 0xFFFD;
    unsigned cp = p[0] & (0xFFu >> (need + 1));
    for (size_t i = 1; i < need; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0xFFFD;
        cp = (cp << 6) | (p[i] & 0x3Fu);
    }
    *len = need;
    return cp;
}

void gt_json_write_text(gt_buf *buf, const char *text, bool escape_all)
{
    gt_buf_add(buf, "\"", 1);
    size_t left = strlen(text);
    for (const unsigned char *p = (const unsigned char *)text; left > 0;) {
        size_t len;
        unsigned cp = next_code_point(p, left, &len);
        if (escape_all) {
            if (cp >= 0x10000)
                gt_buf_printf(buf, "\\u%04x\\u%04x", 0xD800 + ((cp - 0x10000) >> 10),
                              0xDC00 + ((cp - 0x10000) & 0x3FF));
            else
                gt_buf_printf(buf, "\\u%04x", cp);
        } else if (cp == '"' || cp == '\\') {
            gt_buf_add(buf, "\\", 1);
            gt_buf_add(buf, p, 1);
        } else if (cp == '\n') {
            gt_buf_str(buf, "\\n");
        } else if (cp == '\r') {
            gt_buf_str(buf, "\\r");
        } else if (cp == '\t') {
            gt_buf_str(buf, "\\t");
        } else if (cp < 0x20) {
            gt_buf_printf(buf, "\\u%04x", cp);
        } else {
            gt_buf_add(buf, p, len);
        }
        p += len;
        left -= len;
    }
    gt_buf_add(buf, "\"", 1);
}

static void mark(size_t **list, size_t *count, size_t *cap, size_t offset)
{
    if (*count == *cap) {
        size_t new_cap = *cap ? *cap * 2 : 32;
        size_t *grown = realloc(*list, new_cap * sizeof *grown);
        if (grown == NULL)
            return;
        *list = grown;
        *cap = new_cap;
    }
    (*list)[(*count)++] = offset;
}

static void style_mark(gt_json_style *style, const gt_buf *buf)
{
    if (style->record)
        mark(&style->marks, &style->mark_count, &style->mark_cap, buf->len);
}

static void newline(gt_buf *buf, const gt_json_style *style, int depth)
{
    if (style->indent == NULL)
        return;
    gt_buf_str(buf, style->newline ? style->newline : "\n");
    for (int i = 0; i < depth; i++)
        gt_buf_str(buf, style->indent);
}

static void write_value(gt_buf *buf, const cJSON *value, gt_json_style *style, int depth);

static void write_members(gt_buf *buf, const cJSON *value, gt_json_style *style, int depth)
{
    bool object = cJSON_IsObject(value);
    gt_buf_add(buf, object ? "{" : "[", 1);
    style_mark(style, buf);
    size_t count = (size_t)cJSON_GetArraySize(value);
    const cJSON **items = count ? malloc(count * sizeof *items) : NULL;
    if (count > 0 && items == NULL) {
        buf->failed = true;
        return;
    }
    size_t n = 0;
    for (const cJSON *item = value->child; item != NULL && n < count; item = item->next)
        items[n++] = item;
    for (size_t i = 0; i < n; i++) {
        const cJSON *item = object && style->reverse_keys ? items[n - 1 - i] : items[i];
        if (i > 0) {
            gt_buf_add(buf, ",", 1);
            style_mark(style, buf);
        }
        newline(buf, style, depth + 1);
        if (object) {
            if (item == style->single_quote_key) {
                gt_buf_add(buf, "'", 1);
                gt_buf_str(buf, item->string);
                gt_buf_add(buf, "'", 1);
            } else if (item == style->bare_key) {
                gt_buf_str(buf, item->string);
            } else {
                gt_json_write_text(buf, item->string ? item->string : "", style->escape_keys);
            }
            style_mark(style, buf);
            gt_buf_str(buf, style->colon ? style->colon : style->indent ? ": " : ":");
            style_mark(style, buf);
        }
        write_value(buf, item, style, depth + 1);
    }
    free(items);
    if (n > 0) {
        newline(buf, style, depth);
        if (style->record)
            mark(&style->closers, &style->closer_count, &style->closer_cap, buf->len);
    }
    gt_buf_add(buf, object ? "}" : "]", 1);
}

static void write_value(gt_buf *buf, const cJSON *value, gt_json_style *style, int depth)
{
    if (value == style->literal_node && style->literal_text != NULL) {
        gt_buf_str(buf, style->literal_text);
    } else if (cJSON_IsObject(value) || cJSON_IsArray(value)) {
        write_members(buf, value, style, depth);
    } else if (cJSON_IsString(value)) {
        gt_json_write_text(buf, value->valuestring, value == style->escape_string);
    } else if (cJSON_IsNumber(value)) {
        char number[32];
        gt_json_number(number, value->valuedouble);
        gt_buf_str(buf, number);
    } else if (cJSON_IsBool(value)) {
        gt_buf_str(buf, cJSON_IsTrue(value) ? "true" : "false");
    } else {
        gt_buf_str(buf, "null");
    }
    style_mark(style, buf);
}

void gt_json_write(gt_buf *buf, const cJSON *value, gt_json_style *style)
{
    gt_json_style compact = {0};
    write_value(buf, value, style ? style : &compact, 0);
}

char *gt_json_compact(const cJSON *value, size_t *len)
{
    gt_buf buf = {0};
    gt_json_write(&buf, value, NULL);
    return gt_buf_take(&buf, len);
}

void gt_json_style_free(gt_json_style *style)
{
    free(style->marks);
    free(style->closers);
    style->marks = style->closers = NULL;
    style->mark_count = style->mark_cap = style->closer_count = style->closer_cap = 0;
}
