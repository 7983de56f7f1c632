/* wire_internal.h — helpers shared by wire_strict.c, wire_transform.c and
 * wire_lint.c: a growable JSON Pointer, the subschema keyword table, local
 * $ref resolution and recursion detection. Not a public API. */
#ifndef GT_WIRE_INTERNAL_H
#define GT_WIRE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "gauntlet/value.h"
#include "gauntlet/wire.h"

/* A JSON Pointer being built while walking a schema. `failed` is sticky
 * after an allocation failure; the text then stays at the last good state. */
typedef struct wire_path {
    char *data;
    size_t len, cap;
    bool failed;
} wire_path;

void wire_path_free(wire_path *path);
/* Append "/<escaped key>" or "/<index>"; return the length to pop back to. */
size_t wire_path_push_key(wire_path *path, const char *key, size_t key_len);
size_t wire_path_push_index(wire_path *path, size_t index);
static inline void wire_path_pop(wire_path *path, size_t mark)
{
    path->len = mark;
    if (path->data != NULL)
        path->data[mark] = '\0';
}
static inline const char *wire_path_text(const wire_path *path)
{
    return path->data != NULL ? path->data : "";
}

/* Fill a problem (location = `path` + optional "/<key>"). Returns GT_WIRE_REJECTED. */
int wire_problem_set(gt_wire_problem *problem, const char *code, const wire_path *path, const char *key,
                     const char *format, ...) __attribute__((format(printf, 5, 6)));

/* Member value by NUL-terminated key, or NULL. */
const gt_value *wire_get(const gt_value *object, const char *key);
bool wire_key_is(const gt_member *member, const char *key);
/* null, boolean, number or string. */
bool wire_is_primitive(const gt_value *value);

/* How a keyword holds subschemas. */
typedef enum wire_sub_kind {
    WIRE_SUB_NONE = 0,
    WIRE_SUB_ONE,   /* a schema (items: a schema or, before 2020-12, an array of them) */
    WIRE_SUB_ARRAY, /* an array of schemas */
    WIRE_SUB_MAP    /* an object whose member values are schemas */
} wire_sub_kind;
wire_sub_kind wire_subschema_kind(const gt_member *member);

/* Resolve a local reference ("#", "#/a/b~1c", percent-escapes allowed)
 * against `root`. Returns the target, writing its canonical JSON Pointer into
 * `pointer` (malloc'd, caller frees; may be NULL), or NULL when `ref` is not
 * a local JSON Pointer fragment or names nothing. */
const gt_value *wire_resolve_ref(const gt_value *root, const char *ref, char **pointer);

/* Every $ref of a schema document, in document order. */
typedef struct wire_ref {
    char *at;              /* pointer of the schema object holding the $ref */
    const gt_value *value; /* the $ref value (a string when well-formed) */
    const gt_value *target; /* NULL when not local or unresolved */
    char *target_at;       /* canonical pointer of the target, or NULL */
} wire_ref;

typedef struct wire_refs {
    wire_ref *items;
    size_t count, cap;
    bool truncated; /* the walk stopped at GT_WIRE_MAX_DEPTH */
} wire_refs;

/* Collect and resolve the $refs of the schema `root`, walking subschema
 * keywords only (a "$ref" inside an enum value is data). Returns 0 or -1 when
 * out of memory. */
int wire_refs_collect(const gt_value *root, wire_refs *refs);
void wire_refs_free(wire_refs *refs);
/* Index of a resolved $ref that closes a reference cycle (the schema is
 * recursive), or -1 when there is none; -2 when out of memory. */
long wire_refs_find_cycle(const wire_refs *refs);

#endif
