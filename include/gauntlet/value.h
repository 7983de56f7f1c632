/* value.h — the JSON value model shared by every gate.
 *
 * Values are produced by the syntax gate (parse.h) inside an arena and are
 * read-only afterwards. Unlike cJSON they are exact: strings carry their
 * length (a decoded U+0000 is kept, never a terminator), numbers keep their
 * source literal beside the double, and object members keep source order
 * (duplicate names never reach a value: the syntax gate rejects them, and
 * its RFC 8259 mode keeps the last). */
#ifndef GAUNTLET_VALUE_H
#define GAUNTLET_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gauntlet/arena.h"

typedef enum gt_type {
    GT_NULL = 0,
    GT_FALSE,
    GT_TRUE,
    GT_NUMBER,
    GT_STRING,
    GT_ARRAY,
    GT_OBJECT
} gt_type;

/* gt_value.flags for numbers */
#define GT_NUM_INTEGER_LITERAL 0x1u /* literal has no fraction and no exponent */
#define GT_NUM_BIG 0x2u             /* magnitude beyond 2^53-1 (RFC 8259 mode: also beyond a double): `number` is rounded, `text` is exact */

typedef struct gt_value gt_value;
typedef struct gt_member gt_member;

struct gt_value {
    gt_type type;
    uint32_t flags;
    size_t offset; /* byte offset of the value's first byte in the parsed text */
    union {
        struct {
            double number;    /* nearest double (correctly rounded from `text`) */
            const char *text; /* the exact source literal, NUL-terminated: the number's value */
            size_t text_len;
        } num;
        struct {
            const char *chars; /* decoded UTF-8, NUL-terminated for convenience */
            size_t len;        /* byte length; may contain U+0000 when allowed */
        } str;
        struct {
            gt_value **items;
            size_t count;
        } arr;
        struct {
            gt_member *members; /* source order */
            size_t count;
        } obj;
    } u;
};

struct gt_member {
    const char *key; /* decoded UTF-8, NUL-terminated */
    size_t key_len;
    size_t key_offset; /* byte offset of the name's opening quote */
    gt_value *value;
};

/* Name of a type as JSON Schema spells it ("null", "boolean", "number",
 * "string", "array", "object"). Integers are "number" here; see
 * gt_value_is_integer. */
const char *gt_type_name(gt_type type);

/* True when the value is a number whose exact value has no fractional part
 * (1.0, 1e2 and 10e-1 are integers, as JSON Schema says; 1.0000000000000001
 * is not, although its nearest double is 1). */
bool gt_value_is_integer(const gt_value *value);

/* Numbers are mathematical values: the exact decimal value of the source
 * literal decides, never the rounded double (which is only a fast path where
 * it provably agrees). Both arguments must be GT_NUMBER values. */
/* Order of two numbers: <0, 0, >0 (1 == 1.0 == 10e-1; 1 < 1.0000000000000001). */
int gt_number_compare(const gt_value *a, const gt_value *b);
/* True when the number's exact value is a whole number (see gt_value_is_integer). */
bool gt_number_is_integer(const gt_value *number);
/* True when `value` is an integer multiple of `divisor` (> 0), exactly in
 * decimal: 0.07 is a multiple of 0.01, 1.005 is not. */
bool gt_number_is_multiple(const gt_value *value, const gt_value *divisor);

/* `number` truncated to an integer and clamped into [min, max]; NaN gives
 * `min`. Converting an out-of-range double straight to an integer type is
 * undefined behaviour, and counts in model output, streams and adapter replies
 * are attacker-controlled ("input_tokens": 1e300). */
long long gt_number_clamp(double number, long long min, long long max);

/* Member lookup by exact name (byte comparison). NULL when absent or when
 * `object` is not an object. Linear; callers with many lookups build an index. */
const gt_value *gt_value_get(const gt_value *object, const char *key, size_t key_len);

/* JSON equality as JSON Schema defines it: numbers by exact mathematical value
 * (1 == 1.0, 1 != 1.0000000000000001), objects regardless of member order, arrays element-wise. */
bool gt_value_equal(const gt_value *a, const gt_value *b);

/* Compact JSON text of `value`, written into a malloc'd NUL-terminated string
 * (caller frees with free()). Numbers are written as their source literal, so
 * nothing is rounded; strings are escaped minimally (", \\, control bytes, and
 * U+2028/U+2029 for safe embedding). Returns NULL when out of memory. `len_out`
 * may be NULL. */
char *gt_value_to_json(const gt_value *value, size_t *len_out);

/* Build values by hand (tests, the loop, adapters). All memory from `arena`.
 * Strings are copied. Arrays and objects are filled with the append helpers. */
gt_value *gt_value_new_null(gt_arena *arena);
gt_value *gt_value_new_bool(gt_arena *arena, bool truth);
gt_value *gt_value_new_number(gt_arena *arena, double number);
gt_value *gt_value_new_string(gt_arena *arena, const char *chars, size_t len);
gt_value *gt_value_new_array(gt_arena *arena);
gt_value *gt_value_new_object(gt_arena *arena);
/* Append to an array / object created by the constructors above (they grow by
 * doubling inside the arena). Return 0, or -1 when out of memory. Callers must
 * not append a duplicate member name. */
int gt_value_array_append(gt_arena *arena, gt_value *array, gt_value *item);
int gt_value_object_append(gt_arena *arena, gt_value *object, const char *key, size_t key_len, gt_value *item);

/* Build a tree with one failure flag instead of a check per call: every
 * helper notes a NULL (out of memory) in `failed` and is harmless after it, so
 * the caller checks `failed` once at the end. */
typedef struct gt_value_builder {
    gt_arena *arena;
    bool failed;
} gt_value_builder;

/* Pass `value` through, noting a NULL. */
gt_value *gt_build(gt_value_builder *builder, gt_value *value);
/* object[key] = value (appended; key copied). A NULL object or value fails. */
void gt_build_put(gt_value_builder *builder, gt_value *object, const char *key, gt_value *value);
/* object[key] = string of `len` bytes (NULL text = ""), number, boolean, null. */
void gt_build_put_string(gt_value_builder *builder, gt_value *object, const char *key, const char *text, size_t len);
void gt_build_put_number(gt_value_builder *builder, gt_value *object, const char *key, double number);
void gt_build_put_bool(gt_value_builder *builder, gt_value *object, const char *key, bool truth);
void gt_build_put_null(gt_value_builder *builder, gt_value *object, const char *key);

#endif
