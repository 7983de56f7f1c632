/* value.c — helpers over the exact JSON value model; see value.h. */
#include "gauntlet/value.h"
#include "gauntlet/limits.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swar.h"

const char *gt_type_name(gt_type type)
{
    switch (type) {
    case GT_NULL: return "null";
    case GT_FALSE:
    case GT_TRUE: return "boolean";
    case GT_NUMBER: return "number";
    case GT_STRING: return "string";
    case GT_ARRAY: return "array";
    case GT_OBJECT: return "object";
    }
    return "unknown";
}

long long gt_number_clamp(double number, long long min, long long max)
{
    if (!(number >= (double)min)) /* NaN too */
        return min;
    if (number >= (double)max) /* (double)LLONG_MAX rounds up to 2^63: compare before converting */
        return max;
    return (long long)number;
}

bool gt_value_is_integer(const gt_value *value)
{
    return value != NULL && value->type == GT_NUMBER && gt_number_is_integer(value);
}

const gt_value *gt_value_get(const gt_value *object, const char *key, size_t key_len)
{
    if (object == NULL || object->type != GT_OBJECT)
        return NULL;
    for (size_t i = 0; i < object->u.obj.count; i++) {
        const gt_member *member = &object->u.obj.members[i];
        if (member->key_len == key_len && gt_swar_same(member->key, key, key_len))
            return member->value;
    }
    return NULL;
}

bool gt_value_equal(const gt_value *a, const gt_value *b)
{
    if (a->type != b->type)
        return false;
    switch (a->type) {
    case GT_NULL:
    case GT_FALSE:
    case GT_TRUE: return true;
    case GT_NUMBER: return gt_number_compare(a, b) == 0;
    case GT_STRING: return a->u.str.len == b->u.str.len && gt_swar_same(a->u.str.chars, b->u.str.chars, a->u.str.len);
    case GT_ARRAY:
        if (a->u.arr.count != b->u.arr.count)
            return false;
        for (size_t i = 0; i < a->u.arr.count; i++)
            if (!gt_value_equal(a->u.arr.items[i], b->u.arr.items[i]))
                return false;
        return true;
    case GT_OBJECT:
        if (a->u.obj.count != b->u.obj.count)
            return false;
        /* Names are unique (the syntax gate guarantees it), so equal counts
         * plus every member of a found in b means equal. */
        for (size_t i = 0; i < a->u.obj.count; i++) {
            const gt_member *member = &a->u.obj.members[i];
            const gt_value *other = gt_value_get(b, member->key, member->key_len);
            if (other == NULL || !gt_value_equal(member->value, other))
                return false;
        }
        return true;
    }
    return false;
}

/* A growable malloc'd buffer for serialisation. */
typedef struct text_buf {
    char *data;
    size_t len, cap;
    bool failed;
} text_buf;

static void buf_reserve(text_buf *buf, size_t extra)
{
    if (buf->failed || buf->len + extra + 1 <= buf->cap)
        return;
    size_t cap = buf->cap ? buf->cap : 256;
    while (cap < buf->len + extra + 1)
        cap *= 2;
    char *grown = realloc(buf->data, cap);
    if (grown == NULL) {
        buf->failed = true;
        return;
    }
    buf->data = grown;
    buf->cap = cap;
}

static void buf_put(text_buf *buf, const char *bytes, size_t len)
{
    buf_reserve(buf, len);
    if (buf->failed)
        return;
    memcpy(buf->data + buf->len, bytes, len);
    buf->len += len;
}

static void buf_string(text_buf *buf, const char *chars, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    buf_put(buf, "\"", 1);
    size_t run = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)chars[i];
        const char *escape = NULL;
        char small[8];
        if (c == '"')
            escape = "\\\"";
        else if (c == '\\')
            escape = "\\\\";
        else if (c == '\n')
            escape = "\\n";
        else if (c == '\r')
            escape = "\\r";
        else if (c == '\t')
            escape = "\\t";
        else if (c == '\b')
            escape = "\\b";
        else if (c == '\f')
            escape = "\\f";
        else if (c < 0x20) {
            memcpy(small, "\\u00", 4);
            small[4] = hex[c >> 4];
            small[5] = hex[c & 15];
            small[6] = '\0';
            escape = small;
        } else if (c == 0xE2 && i + 2 < len && (unsigned char)chars[i + 1] == 0x80 &&
                   ((unsigned char)chars[i + 2] == 0xA8 || (unsigned char)chars[i + 2] == 0xA9)) {
            /* U+2028 / U+2029: legal JSON but line breaks in JavaScript. */
            buf_put(buf, chars + i - run, run);
            run = 0;
            buf_put(buf, (unsigned char)chars[i + 2] == 0xA8 ? "\\u2028" : "\\u2029", 6);
            i += 2;
            continue;
        }
        if (escape != NULL) {
            buf_put(buf, chars + i - run, run);
            run = 0;
            buf_put(buf, escape, strlen(escape));
        } else {
            run++;
        }
    }
    buf_put(buf, chars + len - run, run);
    buf_put(buf, "\"", 1);
}

static void buf_value(text_buf *buf, const gt_value *value)
{
    switch (value->type) {
    case GT_NULL: buf_put(buf, "null", 4); break;
    case GT_FALSE: buf_put(buf, "false", 5); break;
    case GT_TRUE: buf_put(buf, "true", 4); break;
    case GT_NUMBER:
        if (value->u.num.text != NULL) {
            buf_put(buf, value->u.num.text, value->u.num.text_len);
        } else {
            char number[40];
            int n = snprintf(number, sizeof number, "%.17g", value->u.num.number);
            buf_put(buf, number, (size_t)n);
        }
        break;
    case GT_STRING: buf_string(buf, value->u.str.chars, value->u.str.len); break;
    case GT_ARRAY:
        buf_put(buf, "[", 1);
        for (size_t i = 0; i < value->u.arr.count; i++) {
            if (i > 0)
                buf_put(buf, ",", 1);
            buf_value(buf, value->u.arr.items[i]);
        }
        buf_put(buf, "]", 1);
        break;
    case GT_OBJECT:
        buf_put(buf, "{", 1);
        for (size_t i = 0; i < value->u.obj.count; i++) {
            if (i > 0)
                buf_put(buf, ",", 1);
            buf_string(buf, value->u.obj.members[i].key, value->u.obj.members[i].key_len);
            buf_put(buf, ":", 1);
            buf_value(buf, value->u.obj.members[i].value);
        }
        buf_put(buf, "}", 1);
        break;
    }
}

char *gt_value_to_json(const gt_value *value, size_t *len_out)
{
    text_buf buf = {0};
    buf_value(&buf, value);
    buf_reserve(&buf, 0);
    if (buf.failed) {
        free(buf.data);
        return NULL;
    }
    buf.data[buf.len] = '\0';
    if (len_out != NULL)
        *len_out = buf.len;
    return buf.data;
}

static gt_value *value_new(gt_arena *arena, gt_type type)
{
    gt_value *value = gt_arena_alloc(arena, sizeof *value);
    if (value != NULL) {
        memset(value, 0, sizeof *value);
        value->type = type;
    }
    return value;
}

gt_value *gt_value_new_null(gt_arena *arena)
{
    return value_new(arena, GT_NULL);
}

gt_value *gt_value_new_bool(gt_arena *arena, bool truth)
{
    return value_new(arena, truth ? GT_TRUE : GT_FALSE);
}

gt_value *gt_value_new_number(gt_arena *arena, double number)
{
    gt_value *value = value_new(arena, GT_NUMBER);
    if (value == NULL)
        return NULL;
    char text[40];
    int len;
    if (isfinite(number) && floor(number) == number && fabs(number) < 1e15) {
        len = snprintf(text, sizeof text, "%.0f", number); /* 100, not 1e+02 */
    } else {
        len = snprintf(text, sizeof text, "%.17g", number);
        /* Prefer the shortest text that reads back as the same double. */
        for (int precision = 1; precision < 17; precision++) {
            char shorter[40];
            int n = snprintf(shorter, sizeof shorter, "%.*g", precision, number);
            if (strtod(shorter, NULL) == number) {
                memcpy(text, shorter, (size_t)n + 1);
                len = n;
                break;
            }
        }
    }
    value->u.num.number = number;
    value->u.num.text = gt_arena_strndup(arena, text, (size_t)len);
    value->u.num.text_len = (size_t)len;
    if (isfinite(number) && floor(number) == number && strpbrk(text, ".eE") == NULL)
        value->flags |= GT_NUM_INTEGER_LITERAL;
    if (fabs(number) > GT_PARSE_MAX_SAFE_INTEGER)
        value->flags |= GT_NUM_BIG;
    return value->u.num.text != NULL ? value : NULL;
}

gt_value *gt_value_new_string(gt_arena *arena, const char *chars, size_t len)
{
    gt_value *value = value_new(arena, GT_STRING);
    if (value == NULL)
        return NULL;
    value->u.str.chars = gt_arena_strndup(arena, chars, len);
    value->u.str.len = len;
    return value->u.str.chars != NULL ? value : NULL;
}

gt_value *gt_value_new_array(gt_arena *arena)
{
    return value_new(arena, GT_ARRAY);
}

gt_value *gt_value_new_object(gt_arena *arena)
{
    return value_new(arena, GT_OBJECT);
}

/* Hand-built containers grow by doubling: the capacity is implied by the
 * count (4, 8, 16, ...), so no extra field is needed. */
static bool needs_growth(size_t count)
{
    return count == 0 || (count >= 4 && (count & (count - 1)) == 0);
}

static void *grow(gt_arena *arena, void *old, size_t count, size_t elem)
{
    size_t cap = count == 0 ? 4 : count * 2;
    void *fresh = gt_arena_alloc(arena, cap * elem);
    if (fresh != NULL && count > 0)
        memcpy(fresh, old, count * elem);
    return fresh;
}

int gt_value_array_append(gt_arena *arena, gt_value *array, gt_value *item)
{
    if (needs_growth(array->u.arr.count)) {
        gt_value **items = grow(arena, array->u.arr.items, array->u.arr.count, sizeof *items);
        if (items == NULL)
            return -1;
        array->u.arr.items = items;
    }
    array->u.arr.items[array->u.arr.count++] = item;
    return 0;
}

int gt_value_object_append(gt_arena *arena, gt_value *object, const char *key, size_t key_len, gt_value *item)
{
    if (needs_growth(object->u.obj.count)) {
        gt_member *members = grow(arena, object->u.obj.members, object->u.obj.count, sizeof *members);
        if (members == NULL)
            return -1;
        object->u.obj.members = members;
    }
    gt_member *member = &object->u.obj.members[object->u.obj.count];
    member->key = gt_arena_strndup(arena, key, key_len);
    if (member->key == NULL)
        return -1;
    member->key_len = key_len;
    member->key_offset = 0;
    member->value = item;
    object->u.obj.count++;
    return 0;
}

gt_value *gt_build(gt_value_builder *builder, gt_value *value)
{
    if (value == NULL)
        builder->failed = true;
    return value;
}

void gt_build_put(gt_value_builder *builder, gt_value *object, const char *key, gt_value *value)
{
    if (object == NULL || value == NULL ||
        gt_value_object_append(builder->arena, object, key, strlen(key), value) != 0)
        builder->failed = true;
}

void gt_build_put_string(gt_value_builder *builder, gt_value *object, const char *key, const char *text, size_t len)
{
    gt_build_put(builder, object, key,
                 gt_build(builder, gt_value_new_string(builder->arena, text ? text : "", text ? len : 0)));
}

void gt_build_put_number(gt_value_builder *builder, gt_value *object, const char *key, double number)
{
    gt_build_put(builder, object, key, gt_build(builder, gt_value_new_number(builder->arena, number)));
}

void gt_build_put_bool(gt_value_builder *builder, gt_value *object, const char *key, bool truth)
{
    gt_build_put(builder, object, key, gt_build(builder, gt_value_new_bool(builder->arena, truth)));
}

void gt_build_put_null(gt_value_builder *builder, gt_value *object, const char *key)
{
    gt_build_put(builder, object, key, gt_build(builder, gt_value_new_null(builder->arena)));
}
