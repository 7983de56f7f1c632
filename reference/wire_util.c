/* wire_util.c — helpers of the wire layer: JSON Pointers, the subschema
 * keyword table, local $ref resolution and reference-cycle detection.
 * Not for: anything provider-specific (wire_lint.c) or conversion rules. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire_internal.h"

/* ---- JSON Pointer ------------------------------------------------------- */

void wire_path_free(wire_path *path)
{
    free(path->data);
    path->data = NULL;
    path->len = path->cap = 0;
}

static bool path_reserve(wire_path *path, size_t extra)
{
    if (path->failed)
        return false;
    if (path->len + extra + 1 <= path->cap)
        return true;
    size_t cap = path->cap ? path->cap : 64;
    while (cap < path->len + extra + 1)
        cap *= 2;
    char *bigger = realloc(path->data, cap);
    if (bigger == NULL) {
        path->failed = true;
        return false;
    }
    if (path->data == NULL)
        bigger[0] = '\0';
    path->data = bigger;
    path->cap = cap;
    return true;
}

size_t wire_path_push_key(wire_path *path, const char *key, size_t key_len)
{
    size_t mark = path->len;
    if (!path_reserve(path, 1 + key_len * 2))
        return mark;
    char *out = path->data + path->len;
    *out++ = '/';
    for (size_t i = 0; i < key_len; i++) {
        if (key[i] == '~') {
            *out++ = '~';
            *out++ = '0';
        } else if (key[i] == '/') {
            *out++ = '~';
            *out++ = '1';
        } else {
            *out++ = key[i];
        }
    }
    *out = '\0';
    path->len = (size_t)(out - path->data);
    return mark;
}

size_t wire_path_push_index(wire_path *path, size_t index)
{
    char text[32];
    int n = snprintf(text, sizeof text, "%zu", index);
    return wire_path_push_key(path, text, (size_t)n);
}

int wire_problem_set(gt_wire_problem *problem, const char *code, const wire_path *path, const char *key,
                     const char *format, ...)
{
    problem->code = code;
    if (key != NULL) {
        wire_path copy = {0};
        path_reserve(&copy, path->len);
        if (!copy.failed) {
            memcpy(copy.data, wire_path_text(path), path->len + 1);
            copy.len = path->len;
        }
        wire_path_push_key(&copy, key, strlen(key));
        snprintf(problem->location, sizeof problem->location, "%s", wire_path_text(&copy));
        wire_path_free(&copy);
    } else {
        snprintf(problem->location, sizeof problem->location, "%s", wire_path_text(path));
    }
    va_list args;
    va_start(args, format);
    vsnprintf(problem->message, sizeof problem->message, format, args);
    va_end(args);
    return GT_WIRE_REJECTED;
}

/* ---- values ------------------------------------------------------------- */

bool wire_key_is(const gt_member *member, const char *key)
{
    size_t len = strlen(key);
    return member->key_len == len && memcmp(member->key, key, len) == 0;
}

const gt_value *wire_get(const gt_value *object, const char *key)
{
    return gt_value_get(object, key, strlen(key));
}

bool wire_is_primitive(const gt_value *value)
{
    return value->type != GT_ARRAY && value->type != GT_OBJECT;
}

/* Keywords whose values are subschemas, drafts 4 to 2020-12. */
static const struct {
    const char *key;
    wire_sub_kind kind;
} subschema_keywords[] = {
    {"properties", WIRE_SUB_MAP},
    {"patternProperties", WIRE_SUB_MAP},
    {"$defs", WIRE_SUB_MAP},
    {"definitions", WIRE_SUB_MAP},
    {"dependentSchemas", WIRE_SUB_MAP},
    {"dependencies", WIRE_SUB_MAP}, /* values that are arrays are property lists, not schemas */
    {"items", WIRE_SUB_ONE},
    {"additionalItems", WIRE_SUB_ONE},
    {"additionalProperties", WIRE_SUB_ONE},
    {"unevaluatedItems", WIRE_SUB_ONE},
    {"unevaluatedProperties", WIRE_SUB_ONE},
    {"contains", WIRE_SUB_ONE},
    {"propertyNames", WIRE_SUB_ONE},
    {"not", WIRE_SUB_ONE},
    {"if", WIRE_SUB_ONE},
    {"then", WIRE_SUB_ONE},
    {"else", WIRE_SUB_ONE},
    {"contentSchema", WIRE_SUB_ONE},
    {"prefixItems", WIRE_SUB_ARRAY},
    {"allOf", WIRE_SUB_ARRAY},
    {"anyOf", WIRE_SUB_ARRAY},
    {"oneOf", WIRE_SUB_ARRAY},
};

wire_sub_kind wire_subschema_kind(const gt_member *member)
{
    for (size_t i = 0; i < sizeof subschema_keywords / sizeof subschema_keywords[0]; i++)
        if (wire_key_is(member, subschema_keywords[i].key))
            return subschema_keywords[i].kind;
    return WIRE_SUB_NONE;
}

/* ---- $ref resolution ---------------------------------------------------- */

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

const gt_value *wire_resolve_ref(const gt_value *root, const char *ref, char **pointer)
{
    if (pointer != NULL)
        *pointer = NULL;
    if (ref[0] != '#' || (ref[1] != '\0' && ref[1] != '/'))
        return NULL;
    /* Percent-decode the fragment first (RFC 6901 section 6). */
    size_t len = strlen(ref + 1);
    char *fragment = malloc(len + 1);
    if (fragment == NULL)
        return NULL;
    size_t used = 0;
    for (const char *p = ref + 1; *p; p++) {
        if (*p == '%' && hex_digit(p[1]) >= 0 && hex_digit(p[2]) >= 0) {
            fragment[used++] = (char)(hex_digit(p[1]) * 16 + hex_digit(p[2]));
            p += 2;
        } else {
            fragment[used++] = *p;
        }
    }
    fragment[used] = '\0';

    const gt_value *node = root;
    wire_path canonical = {0};
    char *token = malloc(used + 1);
    const char *p = fragment;
    while (node != NULL && token != NULL && *p == '/') {
        p++;
        size_t token_len = 0;
        for (; *p && *p != '/'; p++) {
            if (*p == '~' && p[1] == '0') {
                token[token_len++] = '~';
                p++;
            } else if (*p == '~' && p[1] == '1') {
                token[token_len++] = '/';
                p++;
            } else if (*p == '~') {
                node = NULL; /* "~" not followed by 0 or 1 */
                break;
            } else {
                token[token_len++] = *p;
            }
        }
        if (node == NULL)
            break;
        if (node->type == GT_OBJECT) {
            node = gt_value_get(node, token, token_len);
        } else if (node->type == GT_ARRAY) {
            size_t index = 0;
            bool digits = token_len > 0 && (token_len == 1 || token[0] != '0');
            for (size_t i = 0; digits && i < token_len; i++) {
                if (token[i] < '0' || token[i] > '9' || index > (size_t)-1 / 10 - 10)
                    digits = false;
                else
                    index = index * 10 + (size_t)(token[i] - '0');
            }
            node = digits && index < node->u.arr.count ? node->u.arr.items[index] : NULL;
        } else {
            node = NULL;
        }
        if (node != NULL)
            wire_path_push_key(&canonical, token, token_len);
    }
    if (token == NULL || canonical.failed)
        node = NULL;
    if (node != NULL && pointer != NULL) {
        *pointer = strdup(wire_path_text(&canonical));
        if (*pointer == NULL)
            node = NULL;
    }
    free(token);
    free(fragment);
    wire_path_free(&canonical);
    return node;
}

/* ---- $ref collection and cycles ------------------------------------------ */

typedef struct ref_walk {
    const gt_value *root;
    wire_refs *refs;
    wire_path path;
    bool failed;
} ref_walk;

static void walk_refs(ref_walk *walk, const gt_value *node, size_t depth);

static void walk_child(ref_walk *walk, const gt_value *child, size_t depth)
{
    if (child->type == GT_OBJECT)
        walk_refs(walk, child, depth + 1);
}

static void walk_refs(ref_walk *walk, const gt_value *node, size_t depth)
{
    if (walk->failed)
        return;
    if (depth > GT_WIRE_MAX_DEPTH) {
        walk->refs->truncated = true;
        return;
    }
    for (size_t i = 0; i < node->u.obj.count && !walk->failed; i++) {
        const gt_member *member = &node->u.obj.members[i];
        const gt_value *value = member->value;
        if (wire_key_is(member, "$ref")) {
            wire_refs *refs = walk->refs;
            if (refs->count == refs->cap) {
                size_t cap = refs->cap ? refs->cap * 2 : 16;
                wire_ref *bigger = realloc(refs->items, cap * sizeof *bigger);
                if (bigger == NULL) {
                    walk->failed = true;
                    return;
                }
                refs->items = bigger;
                refs->cap = cap;
            }
            wire_ref *ref = &refs->items[refs->count];
            memset(ref, 0, sizeof *ref);
            ref->at = strdup(wire_path_text(&walk->path));
            ref->value = value;
            if (ref->at == NULL) {
                walk->failed = true;
                return;
            }
            refs->count++;
            if (value->type == GT_STRING)
                ref->target = wire_resolve_ref(walk->root, value->u.str.chars, &ref->target_at);
            if (ref->target != NULL && ref->target_at == NULL)
                ref->target = NULL; /* out of memory while resolving: treat as unresolved */
            continue;
        }
        wire_sub_kind kind = wire_subschema_kind(member);
        if (kind == WIRE_SUB_NONE)
            continue;
        size_t mark = wire_path_push_key(&walk->path, member->key, member->key_len);
        if (kind == WIRE_SUB_ONE && value->type == GT_OBJECT) {
            walk_child(walk, value, depth);
        } else if ((kind == WIRE_SUB_ARRAY || kind == WIRE_SUB_ONE) && value->type == GT_ARRAY) {
            for (size_t k = 0; k < value->u.arr.count; k++) {
                size_t inner = wire_path_push_index(&walk->path, k);
                walk_child(walk, value->u.arr.items[k], depth);
                wire_path_pop(&walk->path, inner);
            }
        } else if (kind == WIRE_SUB_MAP && value->type == GT_OBJECT) {
            for (size_t k = 0; k < value->u.obj.count; k++) {
                const gt_member *entry = &value->u.obj.members[k];
                size_t inner = wire_path_push_key(&walk->path, entry->key, entry->key_len);
                walk_child(walk, entry->value, depth);
                wire_path_pop(&walk->path, inner);
            }
        }
        wire_path_pop(&walk->path, mark);
    }
    if (walk->path.failed)
        walk->failed = true;
}

int wire_refs_collect(const gt_value *root, wire_refs *refs)
{
    ref_walk walk = {.root = root, .refs = refs};
    if (root->type == GT_OBJECT)
        walk_refs(&walk, root, 0);
    wire_path_free(&walk.path);
    return walk.failed ? -1 : 0;
}

void wire_refs_free(wire_refs *refs)
{
    for (size_t i = 0; i < refs->count; i++) {
        free(refs->items[i].at);
        free(refs->items[i].target_at);
    }
    free(refs->items);
    memset(refs, 0, sizeof *refs);
}

/* True when `at` lies inside the subtree rooted at `prefix`. */
static bool within(const char *at, const char *prefix)
{
    size_t len = strlen(prefix);
    return strncmp(at, prefix, len) == 0 && (at[len] == '\0' || at[len] == '/');
}

/* Graph over the reference targets: target X -> target Y when a $ref to Y
 * lies inside X's subtree. The schema is recursive exactly when this graph
 * has a cycle (expanding references would never end). */
typedef struct cycle_search {
    const wire_refs *refs;
    size_t *target_of; /* per ref: index of its target's first ref, or SIZE_MAX */
    unsigned char *color; /* per ref-as-target-representative: 0 white, 1 grey, 2 black */
    long found;
} cycle_search;

static void visit(cycle_search *search, size_t target, size_t depth)
{
    const wire_refs *refs = search->refs;
    search->color[target] = 1;
    const char *target_at = refs->items[target].target_at;
    for (size_t i = 0; i < refs->count && search->found < 0; i++) {
        size_t next = search->target_of[i];
        if (next == (size_t)-1 || !within(refs->items[i].at, target_at))
            continue;
        if (search->color[next] == 1 || depth > GT_WIRE_MAX_DEPTH) {
            search->found = (long)i;
        } else if (search->color[next] == 0) {
            visit(search, next, depth + 1);
        }
    }
    search->color[target] = 2;
}

long wire_refs_find_cycle(const wire_refs *refs)
{
    if (refs->count == 0)
        return -1;
    cycle_search search = {.refs = refs, .found = -1};
    search.target_of = malloc(refs->count * sizeof *search.target_of);
    search.color = calloc(refs->count, 1);
    if (search.target_of == NULL || search.color == NULL) {
        free(search.target_of);
        free(search.color);
        return -2;
    }
    /* Represent each distinct target by the first ref that names it. */
    for (size_t i = 0; i < refs->count; i++) {
        search.target_of[i] = (size_t)-1;
        if (refs->items[i].target_at == NULL)
            continue;
        for (size_t j = 0; j <= i; j++)
            if (refs->items[j].target_at != NULL && strcmp(refs->items[j].target_at, refs->items[i].target_at) == 0) {
                search.target_of[i] = j;
                break;
            }
    }
    for (size_t i = 0; i < refs->count && search.found < 0; i++)
        if (search.target_of[i] == i && search.color[i] == 0)
            visit(&search, i, 0);
    free(search.target_of);
    free(search.color);
    return search.found;
}
