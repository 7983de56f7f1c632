/* gen_json.h — the generator's JSON toolkit (gen_json.c): a growable byte
 * buffer, a seeded random stream, JSON Pointers over cJSON trees, and a
 * writer that can spell one value in many ways (indentation, key order, \u
 * escapes, a literal in place of one value) while it records where each
 * structural token ends. Shared by gen.c and shrink.c; not a public API. */
#ifndef GT_GEN_JSON_H
#define GT_GEN_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

typedef struct gt_buf {
    char *data; /* NUL-terminated when non-NULL */
    size_t len, cap;
    bool failed; /* an allocation failed: the content is incomplete */
} gt_buf;

void gt_buf_add(gt_buf *buf, const void *bytes, size_t len);
void gt_buf_str(gt_buf *buf, const char *text);
void gt_buf_printf(gt_buf *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void gt_buf_free(gt_buf *buf);
/* Hand the content over (malloc'd, NUL-terminated; "" when empty), or NULL
 * when an allocation failed. The buffer is left empty. */
char *gt_buf_take(gt_buf *buf, size_t *len);

/* splitmix64: the whole random stream of a generator comes from its seed. */
uint64_t gt_rng_next(uint64_t *state);
/* Uniform in [0, bound) (bound > 0). */
uint64_t gt_rng_below(uint64_t *state, uint64_t bound);

/* FNV-1a over bytes, chained from `hash` (start with GT_HASH_START). */
#define GT_HASH_START 1469598103934665603u
uint64_t gt_hash_bytes(uint64_t hash, const void *bytes, size_t len);

/* `path` + "/" + the escaped token (~0, ~1), malloc'd. */
char *gt_pointer_append(const char *path, const char *token);
/* The node at JSON Pointer `path` ("" = root), its parent in *parent (NULL
 * for the root). NULL when the path does not resolve. */
cJSON *gt_pointer_find(cJSON *root, const char *path, cJSON **parent);

/* How gt_json_write spells a value. Zero-initialised = compact JSON. */
typedef struct gt_json_style {
    const char *indent;         /* per level; NULL = compact */
    const char *newline;        /* with indent; default "\n" */
    const char *colon;          /* default ":" (": " with indent) */
    bool reverse_keys;          /* members in reverse order at every level */
    bool escape_keys;           /* every member name as \u escapes */
    const cJSON *escape_string; /* this string value as \u escapes */
    const cJSON *literal_node;  /* write literal_text in place of this value */
    const char *literal_text;
    const cJSON *single_quote_key; /* this member's name in 'single quotes' */
    const cJSON *bare_key;         /* this member's name without quotes */
    /* Filled while writing when `record` is set: offsets where a
     * structural token or a complete value ends, and of each closing bracket
     * of a non-empty container. */
    bool record;
    size_t *marks, mark_count, mark_cap;
    size_t *closers, closer_count, closer_cap;
} gt_json_style;

/* Append `value` as JSON text to `buf`. */
void gt_json_write(gt_buf *buf, const cJSON *value, gt_json_style *style);
/* Compact JSON of `value`, malloc'd (NULL when out of memory). */
char *gt_json_compact(const cJSON *value, size_t *len);
/* A JSON number literal for `number`: integers without a fraction, others
 * in the shortest of %.15g / %.17g that reads back the same. */
void gt_json_number(char out[32], double number);
/* Append a JSON string literal; with `escape_all` every code point as \uXXXX
 * (surrogate pairs beyond U+FFFF). */
void gt_json_write_text(gt_buf *buf, const char *text, bool escape_all);

/* Release style->marks and style->closers. */
void gt_json_style_free(gt_json_style *style);

#endif
