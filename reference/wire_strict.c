/* wire_strict.c — the strict-subset wire conversion of seed 000 (jZo).
 *
 * Claude Code tries to derive a strict tool schema from the caller's schema;
 * when it cannot, it records a fallback reason and keeps the original schema
 * with local validation. This file is that derivation, rule for rule and in
 * the same order of checks, with one difference: every fallback gets its own
 * code and the schema location that caused it (jZo only logs a coarse
 * reason; gt_wire_strict_jzo_reason maps back). docs/wire.md lists the rules.
 * Not for: the SDK transform (wire_transform.c) or provider lint. */
#include <stdio.h>
#include <string.h>

#include "gauntlet/wire.h"
#include "wire_internal.h"

/* Keywords the strict subset accepts (seed 000, verbatim). */
static const char *const strict_keywords[] = {
    "$schema", "type", "description", "title", "properties", "required", "additionalProperties",
    "items",   "enum", "const",       "anyOf",
};
/* The only keywords a node with anyOf may carry besides anyOf (seed 000). */
static const char *const anyof_companions[] = {"$schema", "description", "title"};
/* Type names the subset knows. */
static const char *const type_names[] = {"object", "array", "string", "integer", "number", "boolean", "null"};

/* Fallback codes and the jZo reason each one refines. */
static const struct {
    const char *code, *jzo;
} jzo_reasons[] = {
    {"strict_max_depth", "max_depth"},
    {"strict_max_nodes", "max_nodes"},
    {"strict_not_object", "not_object"},
    {"strict_unsupported_keyword", "unsupported_keyword"},
    {"strict_annotation_not_string", "unsupported_keyword"},
    {"strict_anyof_siblings", "unsupported_keyword"},
    {"strict_anyof_invalid", "unsupported_keyword"},
    {"strict_const_complex", "unsupported_const"},
    {"strict_enum_not_array", "unsupported_enum"},
    {"strict_enum_empty", "unsupported_enum"},
    {"strict_enum_complex", "unsupported_enum"},
    {"strict_enum_duplicate", "unsupported_enum"},
    {"strict_type_unknown", "unsupported_type"},
    {"strict_type_array_empty", "unsupported_type"},
    {"strict_type_array_composite", "unsupported_type"},
    {"strict_type_array_duplicate", "unsupported_type"},
    {"strict_mismatched_keywords", "mismatched_keywords"},
    {"strict_properties_missing", "no_properties"},
    {"strict_properties_not_object", "no_properties"},
    {"strict_additional_properties", "additional_properties"},
    {"strict_required_not_array", "invalid_required"},
    {"strict_required_not_string", "invalid_required"},
    {"strict_required_unknown", "invalid_required"},
    {"strict_required_duplicate", "invalid_required"},
    {"strict_items_missing", "unsupported_items"},
    {"strict_tuple_items", "unsupported_items"},
    {"strict_missing_type", "missing_type"},
    {"strict_root_not_object", "root_not_object"},
};

const char *gt_wire_strict_jzo_reason(const char *code)
{
    for (size_t i = 0; code != NULL && i < sizeof jzo_reasons / sizeof jzo_reasons[0]; i++)
        if (strcmp(code, jzo_reasons[i].code) == 0)
            return jzo_reasons[i].jzo;
    return NULL;
}

typedef struct strict_ctx {
    gt_arena *arena;
    size_t nodes_left; /* seed 000: 100,000 nodes */
    wire_path path;
    gt_wire_problem *problem;
    bool out_of_memory;
} strict_ctx;

static bool in_list(const gt_member *member, const char *const *list, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (wire_key_is(member, list[i]))
            return true;
    return false;
}

static bool is_type_name(const gt_value *value)
{
    if (value->type != GT_STRING)
        return false;
    for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++)
        if (strlen(type_names[i]) == value->u.str.len && memcmp(value->u.str.chars, type_names[i], value->u.str.len) == 0)
            return true;
    return false;
}

static bool string_is(const gt_value *value, const char *text)
{
    return value != NULL && value->type == GT_STRING && value->u.str.len == strlen(text) &&
           memcmp(value->u.str.chars, text, value->u.str.len) == 0;
}

/* Append to an output object; on failure remember it. */
static void put(strict_ctx *ctx, gt_value *object, const char *key, gt_value *value)
{
    if (value == NULL || gt_value_object_append(ctx->arena, object, key, strlen(key), value) != 0)
        ctx->out_of_memory = true;
}

static gt_value *fail(strict_ctx *ctx, const char *code, const char *key, const char *message)
{
    wire_problem_set(ctx->problem, code, &ctx->path, key, "%s", message);
    return NULL;
}

static gt_value *convert(strict_ctx *ctx, const gt_value *node, unsigned depth_left);

/* Convert the child at key (and index, when `index` is not -1). */
static gt_value *convert_child(strict_ctx *ctx, const char *key, long index, const gt_value *child,
                               unsigned depth_left)
{
    size_t mark = wire_path_push_key(&ctx->path, key, strlen(key));
    if (index >= 0)
        wire_path_push_index(&ctx->path, (size_t)index);
    gt_value *converted = convert(ctx, child, depth_left);
    wire_path_pop(&ctx->path, mark);
    return converted;
}

/* enum: non-empty array of unique primitive values (null included). */
static gt_value *check_enum(strict_ctx *ctx, const gt_value *values)
{
    if (values->type != GT_ARRAY)
        return fail(ctx, "strict_enum_not_array", "enum", "enum must be an array");
    if (values->u.arr.count == 0)
        return fail(ctx, "strict_enum_empty", "enum", "enum must not be empty");
    for (size_t i = 0; i < values->u.arr.count; i++)
        if (!wire_is_primitive(values->u.arr.items[i])) {
            size_t mark = wire_path_push_key(&ctx->path, "enum", 4);
            wire_path_push_index(&ctx->path, i);
            wire_problem_set(ctx->problem, "strict_enum_complex", &ctx->path, NULL,
                             "enum value %zu is an %s: only strings, numbers, booleans and null are allowed", i,
                             gt_type_name(values->u.arr.items[i]->type));
            wire_path_pop(&ctx->path, mark);
            return NULL;
        }
    for (size_t i = 1; i < values->u.arr.count; i++)
        for (size_t j = 0; j < i; j++)
            if (gt_value_equal(values->u.arr.items[i], values->u.arr.items[j])) {
                size_t mark = wire_path_push_key(&ctx->path, "enum", 4);
                wire_path_push_index(&ctx->path, i);
                wire_problem_set(ctx->problem, "strict_enum_duplicate", &ctx->path, NULL,
                                 "enum value %zu repeats value %zu", i, j);
                wire_path_pop(&ctx->path, mark);
                return NULL;
            }
    return (gt_value *)values;
}

/* type: one known name, or a non-empty array of unique primitive type names. */
static bool check_type(strict_ctx *ctx, const gt_value *type)
{
    if (type->type == GT_STRING) {
        if (!is_type_name(type)) {
            fail(ctx, "strict_type_unknown", "type", "type must name a JSON Schema type");
            return false;
        }
        return true;
    }
    if (type->type != GT_ARRAY) {
        fail(ctx, "strict_type_unknown", "type", "type must be a string or an array of strings");
        return false;
    }
    if (type->u.arr.count == 0) {
        fail(ctx, "strict_type_array_empty", "type", "a type array must not be empty");
        return false;
    }
    const char *code = NULL, *message = NULL;
    size_t at = 0;
    for (size_t i = 0; i < type->u.arr.count && code == NULL; i++) {
        const gt_value *name = type->u.arr.items[i];
        at = i;
        if (!is_type_name(name)) {
            code = "strict_type_unknown";
            message = "a type array may only hold JSON Schema type names";
        } else if (string_is(name, "object") || string_is(name, "array")) {
            code = "strict_type_array_composite";
            message = "a type array may only hold primitive types (not object or array)";
        }
        for (size_t j = 0; j < i && code == NULL; j++)
            if (gt_value_equal(name, type->u.arr.items[j])) {
                code = "strict_type_array_duplicate";
                message = "a type array must not repeat a type";
            }
    }
    if (code == NULL)
        return true;
    size_t mark = wire_path_push_key(&ctx->path, "type", 4);
    wire_path_push_index(&ctx->path, at);
    wire_problem_set(ctx->problem, code, &ctx->path, NULL, "%s", message);
    wire_path_pop(&ctx->path, mark);
    return false;
}

/* required: unique strings naming properties of `properties`. */
static bool check_required(strict_ctx *ctx, const gt_value *required, const gt_value *properties)
{
    if (required->type != GT_ARRAY) {
        fail(ctx, "strict_required_not_array", "required", "required must be an array of property names");
        return false;
    }
    const char *code = NULL;
    char message[200];
    size_t at = 0;
    for (size_t i = 0; i < required->u.arr.count && code == NULL; i++) {
        const gt_value *name = required->u.arr.items[i];
        at = i;
        if (name->type != GT_STRING) {
            code = "strict_required_not_string";
            snprintf(message, sizeof message, "required entry %zu is a %s, not a property name", i,
                     gt_type_name(name->type));
        } else if (gt_value_get(properties, name->u.str.chars, name->u.str.len) == NULL) {
            code = "strict_required_unknown";
            snprintf(message, sizeof message, "required names \"%.120s\", which is not in properties", name->u.str.chars);
        }
    }
    for (size_t i = 1; i < required->u.arr.count && code == NULL; i++)
        for (size_t j = 0; j < i && code == NULL; j++)
            if (gt_value_equal(required->u.arr.items[i], required->u.arr.items[j])) {
                at = i;
                code = "strict_required_duplicate";
                snprintf(message, sizeof message, "required entry %zu repeats entry %zu", i, j);
            }
    if (code == NULL)
        return true;
    size_t mark = wire_path_push_key(&ctx->path, "required", 8);
    wire_path_push_index(&ctx->path, at);
    wire_problem_set(ctx->problem, code, &ctx->path, NULL, "%s", message);
    wire_path_pop(&ctx->path, mark);
    return false;
}

/* One node, checks in jZo's order. Returns the normalised node, or NULL with
 * the problem set (or ctx->out_of_memory). Output member order: description,
 * title, const, enum, type, required, properties, additionalProperties, items
 * ($schema is accepted and dropped, as jZo does). */
static gt_value *convert(strict_ctx *ctx, const gt_value *node, unsigned depth_left)
{
    if (depth_left == 0)
        return fail(ctx, "strict_max_depth", NULL, "schema nesting exceeds the strict limit of 32 levels");
    if (ctx->nodes_left == 0)
        return fail(ctx, "strict_max_nodes", NULL, "schema exceeds the strict limit of 100,000 nodes");
    ctx->nodes_left--;
    if (node->type != GT_OBJECT)
        return fail(ctx, "strict_not_object", NULL, "every strict subschema must be a JSON object");

    for (size_t i = 0; i < node->u.obj.count; i++) {
        const gt_member *member = &node->u.obj.members[i];
        if (!in_list(member, strict_keywords, sizeof strict_keywords / sizeof strict_keywords[0])) {
            char message[200];
            snprintf(message, sizeof message, "keyword \"%.100s\" is outside the strict subset", member->key);
            return fail(ctx, "strict_unsupported_keyword", member->key, message);
        }
    }
    gt_value *out = gt_value_new_object(ctx->arena);
    if (out == NULL) {
        ctx->out_of_memory = true;
        return NULL;
    }
    const gt_value *description = wire_get(node, "description");
    const gt_value *title = wire_get(node, "title");
    if (description != NULL && description->type != GT_STRING)
        return fail(ctx, "strict_annotation_not_string", "description", "description must be a string");
    if (title != NULL && title->type != GT_STRING)
        return fail(ctx, "strict_annotation_not_string", "title", "title must be a string");
    if (description != NULL)
        put(ctx, out, "description", (gt_value *)description);
    if (title != NULL)
        put(ctx, out, "title", (gt_value *)title);

    const gt_value *any_of = wire_get(node, "anyOf");
    if (any_of != NULL) {
        for (size_t i = 0; i < node->u.obj.count; i++) {
            const gt_member *member = &node->u.obj.members[i];
            if (!wire_key_is(member, "anyOf") &&
                !in_list(member, anyof_companions, sizeof anyof_companions / sizeof anyof_companions[0])) {
                char message[200];
                snprintf(message, sizeof message,
                         "a node with anyOf may carry only $schema, description and title, not \"%.80s\"",
                         member->key);
                return fail(ctx, "strict_anyof_siblings", member->key, message);
            }
        }
        if (any_of->type != GT_ARRAY || any_of->u.arr.count == 0)
            return fail(ctx, "strict_anyof_invalid", "anyOf", "anyOf must be a non-empty array of schemas");
        gt_value *branches = gt_value_new_array(ctx->arena);
        if (branches == NULL) {
            ctx->out_of_memory = true;
            return NULL;
        }
        for (size_t i = 0; i < any_of->u.arr.count; i++) {
            gt_value *branch = convert_child(ctx, "anyOf", (long)i, any_of->u.arr.items[i], depth_left - 1);
            if (branch == NULL)
                return NULL;
            if (gt_value_array_append(ctx->arena, branches, branch) != 0) {
                ctx->out_of_memory = true;
                return NULL;
            }
        }
        put(ctx, out, "anyOf", branches);
        return ctx->out_of_memory ? NULL : out;
    }

    const gt_value *constant = wire_get(node, "const");
    if (constant != NULL) {
        if (!wire_is_primitive(constant))
            return fail(ctx, "strict_const_complex", "const",
                        "const must be a string, number, boolean or null");
        put(ctx, out, "const", (gt_value *)constant);
    }
    const gt_value *values = wire_get(node, "enum");
    if (values != NULL) {
        if (check_enum(ctx, values) == NULL)
            return NULL;
        put(ctx, out, "enum", (gt_value *)values);
    }
    const gt_value *type = wire_get(node, "type");
    if (type != NULL) {
        if (!check_type(ctx, type))
            return NULL;
        put(ctx, out, "type", (gt_value *)type);
    }
    bool is_object = string_is(type, "object"), is_array = string_is(type, "array");
    if (!is_object) {
        static const char *const object_only[] = {"properties", "required", "additionalProperties"};
        for (size_t i = 0; i < 3; i++)
            if (wire_get(node, object_only[i]) != NULL) {
                char message[200];
                snprintf(message, sizeof message, "%s needs \"type\": \"object\" on the same node", object_only[i]);
                return fail(ctx, "strict_mismatched_keywords", object_only[i], message);
            }
    }
    if (!is_array && wire_get(node, "items") != NULL)
        return fail(ctx, "strict_mismatched_keywords", "items", "items needs \"type\": \"array\" on the same node");

    if (is_object) {
        const gt_value *properties = wire_get(node, "properties");
        if (properties == NULL)
            return fail(ctx, "strict_properties_missing", NULL, "an object node needs properties");
        if (properties->type != GT_OBJECT)
            return fail(ctx, "strict_properties_not_object", "properties", "properties must be an object");
        const gt_value *additional = wire_get(node, "additionalProperties");
        if (additional != NULL && additional->type != GT_FALSE)
            return fail(ctx, "strict_additional_properties", "additionalProperties",
                        "additionalProperties must be absent or false");
        const gt_value *required = wire_get(node, "required");
        if (required != NULL) {
            if (!check_required(ctx, required, properties))
                return NULL;
            put(ctx, out, "required", (gt_value *)required);
        }
        gt_value *converted = gt_value_new_object(ctx->arena);
        if (converted == NULL) {
            ctx->out_of_memory = true;
            return NULL;
        }
        for (size_t i = 0; i < properties->u.obj.count; i++) {
            const gt_member *member = &properties->u.obj.members[i];
            size_t mark = wire_path_push_key(&ctx->path, "properties", 10);
            wire_path_push_key(&ctx->path, member->key, member->key_len);
            gt_value *child = convert(ctx, member->value, depth_left - 1);
            wire_path_pop(&ctx->path, mark);
            if (child == NULL)
                return NULL;
            if (gt_value_object_append(ctx->arena, converted, member->key, member->key_len, child) != 0) {
                ctx->out_of_memory = true;
                return NULL;
            }
        }
        put(ctx, out, "properties", converted);
        put(ctx, out, "additionalProperties", gt_value_new_bool(ctx->arena, false));
    } else if (is_array) {
        const gt_value *items = wire_get(node, "items");
        if (items == NULL)
            return fail(ctx, "strict_items_missing", NULL, "an array node needs items");
        if (items->type == GT_ARRAY)
            return fail(ctx, "strict_tuple_items", "items", "items must be a single schema, not a tuple");
        gt_value *child = convert_child(ctx, "items", -1, items, depth_left - 1);
        if (child == NULL)
            return NULL;
        put(ctx, out, "items", child);
    } else if (type == NULL && values == NULL && constant == NULL) {
        return fail(ctx, "strict_missing_type", NULL, "a node needs type, enum, const or anyOf");
    }
    return ctx->out_of_memory ? NULL : out;
}

int gt_wire_strict(gt_arena *arena, const gt_value *schema, gt_value **out, gt_wire_problem *problem)
{
    gt_wire_problem scratch;
    if (problem == NULL)
        problem = &scratch;
    memset(problem, 0, sizeof *problem);
    *out = NULL;
    strict_ctx ctx = {.arena = arena, .nodes_left = GT_STRICT_MAX_NODES, .problem = problem};
    gt_value *root = convert(&ctx, schema, GT_STRICT_MAX_DEPTH);
    bool out_of_memory = ctx.out_of_memory || ctx.path.failed;
    wire_path_free(&ctx.path);
    if (out_of_memory)
        return GT_WIRE_OUT_OF_MEMORY;
    if (root == NULL)
        return GT_WIRE_REJECTED;
    if (!string_is(wire_get(root, "type"), "object")) {
        wire_path empty = {0};
        return wire_problem_set(problem, "strict_root_not_object", &empty, NULL,
                                "the root must be \"type\": \"object\"");
    }
    *out = root;
    return GT_WIRE_OK;
}
