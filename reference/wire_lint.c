/* wire_lint.c — predict what a provider rejects before the request is sent.
 *
 * Anthropic (strict tools and output_config.format share one JSON Schema
 * subset and per-request complexity budgets) and OpenAI strict mode (every
 * property required, closed objects, size limits). Each finding has a stable
 * code and the schema location; the limits are named in wire.h with their
 * sources. A lint finding is a prediction from the published rules, not the
 * provider's verdict: docs/wire.md lists what is checked and what is not
 * (grammar size, "Schema is too complex for compilation", cannot be predicted).
 * Not for: changing the schema (wire_transform.c, wire_strict.c). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gauntlet/wire.h"
#include "wire_internal.h"

int gt_wire_provider_from_name(const char *name)
{
    if (name == NULL)
        return -1;
    if (strcmp(name, "anthropic") == 0)
        return GT_WIRE_PROVIDER_ANTHROPIC;
    if (strcmp(name, "openai") == 0)
        return GT_WIRE_PROVIDER_OPENAI;
    return -1;
}

void gt_wire_lint_options_init(gt_wire_lint_options *options)
{
    memset(options, 0, sizeof *options);
    options->provider = GT_WIRE_PROVIDER_ANTHROPIC;
}

void gt_wire_findings_free(gt_wire_findings *findings)
{
    for (size_t i = 0; i < findings->count; i++) {
        free(findings->items[i].location);
        free(findings->items[i].message);
    }
    free(findings->items);
    memset(findings, 0, sizeof *findings);
}

/* ---- keyword tables ------------------------------------------------------ */

/* Anthropic: the documented subset (structured-outputs docs, "JSON Schema
 * limitations"): basic types, enum, const, anyOf, allOf, $ref/$defs/
 * definitions (internal), default, required, additionalProperties false,
 * the 10 formats, minItems 0/1, pattern (simple regular expressions). */
static const char *const anthropic_supported[] = {
    "type",  "properties", "required", "additionalProperties", "items", "enum",   "const",
    "anyOf", "allOf",      "$ref",     "$defs",                "definitions", "default", "description",
    "title", "format",     "minItems", "pattern",              "$schema",
};
static const char *const anthropic_numeric[] = {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
                                                "multipleOf"};
static const char *const anthropic_string[] = {"minLength", "maxLength"};
static const char *const anthropic_array[] = {"maxItems",    "uniqueItems", "contains",         "minContains",
                                              "maxContains", "prefixItems", "unevaluatedItems", "additionalItems"};
static const char *const anthropic_formats[] = {"date-time", "time", "date", "duration", "email",
                                                "hostname",  "uri",  "ipv4", "ipv6",     "uuid"};
/* OpenAI: documented as unsupported in strict mode (allOf, not,
 * dependentRequired, dependentSchemas, if, then, else), plus what
 * openai-node's toStrictJsonSchema refuses (patternProperties, prefixItems,
 * contains, propertyNames, uniqueItems, unevaluated*, dependencies,
 * contentSchema) and oneOf (only anyOf is listed as supported). */
static const char *const openai_unsupported[] = {
    "allOf",       "not",         "if",       "then",          "else",         "dependentRequired",
    "dependentSchemas", "dependencies", "patternProperties", "propertyNames", "prefixItems", "contains",
    "minContains", "maxContains", "uniqueItems", "unevaluatedItems", "unevaluatedProperties", "contentSchema",
    "oneOf",
};
/* OpenAI lists 9 formats (no uri). */
static const char *const openai_formats[] = {"date-time", "time", "date", "duration", "email",
                                             "hostname",  "ipv4", "ipv6", "uuid"};

#define COUNT_OF(list) (sizeof(list) / sizeof((list)[0]))

static bool member_in(const gt_member *member, const char *const *list, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (wire_key_is(member, list[i]))
            return true;
    return false;
}

static bool string_in(const gt_value *value, const char *const *list, size_t count)
{
    if (value == NULL || value->type != GT_STRING)
        return false;
    for (size_t i = 0; i < count; i++)
        if (strlen(list[i]) == value->u.str.len && memcmp(list[i], value->u.str.chars, value->u.str.len) == 0)
            return true;
    return false;
}

static bool type_has(const gt_value *type, const char *name)
{
    if (type == NULL)
        return false;
    if (type->type == GT_STRING)
        return string_in(type, &name, 1);
    for (size_t i = 0; type->type == GT_ARRAY && i < type->u.arr.count; i++)
        if (string_in(type->u.arr.items[i], &name, 1))
            return true;
    return false;
}

/* ---- the walk ----------------------------------------------------------- */

typedef struct lint_ctx {
    const gt_wire_lint_options *options;
    gt_wire_findings *findings;
    size_t schema_index;
    const gt_value *root;
    wire_path path;
    bool failed;
    /* Anthropic budgets, summed over the request. */
    size_t optional_params, union_params;
    /* OpenAI totals, per schema. */
    size_t properties, enum_values, chars;
    bool nesting_reported;
} lint_ctx;

static void add(lint_ctx *ctx, size_t schema_index, const char *code, const char *location, const char *format, ...)
    __attribute__((format(printf, 5, 6)));

static void add(lint_ctx *ctx, size_t schema_index, const char *code, const char *location, const char *format, ...)
{
    gt_wire_findings *findings = ctx->findings;
    if (ctx->failed)
        return;
    if (findings->count == findings->capacity) {
        size_t cap = findings->capacity ? findings->capacity * 2 : 16;
        gt_wire_finding *bigger = realloc(findings->items, cap * sizeof *bigger);
        if (bigger == NULL) {
            ctx->failed = true;
            return;
        }
        findings->items = bigger;
        findings->capacity = cap;
    }
    char message[400];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    gt_wire_finding *finding = &findings->items[findings->count];
    finding->code = code;
    finding->schema_index = schema_index;
    finding->location = strdup(location);
    finding->message = strdup(message);
    if (finding->location == NULL || finding->message == NULL) {
        free(finding->location);
        free(finding->message);
        ctx->failed = true;
        return;
    }
    findings->count++;
}

/* A finding at the current node, or at "<node>/<key>" when key is given. */
static void add_here(lint_ctx *ctx, const char *code, const char *key, const char *format, const char *detail)
{
    size_t mark = ctx->path.len;
    if (key != NULL)
        mark = wire_path_push_key(&ctx->path, key, strlen(key));
    add(ctx, ctx->schema_index, code, wire_path_text(&ctx->path), format, detail);
    wire_path_pop(&ctx->path, mark);
}

/* Code points in a UTF-8 string. */
static size_t utf8_length(const char *chars, size_t len)
{
    size_t count = 0;
    for (size_t i = 0; i < len; i++)
        if (((unsigned char)chars[i] & 0xC0) != 0x80)
            count++;
    return count;
}

/* OpenAI counts the characters of enum and const values: strings by their
 * characters, other values by their JSON text. */
static size_t value_chars(const gt_value *value)
{
    if (value->type == GT_STRING)
        return utf8_length(value->u.str.chars, value->u.str.len);
    size_t len = 0;
    char *json = gt_value_to_json(value, &len);
    free(json);
    return len;
}

/* ---- Anthropic pattern features ------------------------------------------ */

typedef struct pattern_features {
    bool backreference, lookaround, word_boundary, large_repeat;
} pattern_features;

static void scan_pattern(const char *pattern, size_t len, pattern_features *found)
{
    bool in_class = false;
    for (size_t i = 0; i < len; i++) {
        char c = pattern[i];
        if (c == '\\' && i + 1 < len) {
            char next = pattern[i + 1];
            if (!in_class && next >= '1' && next <= '9')
                found->backreference = true;
            else if (!in_class && next == 'k' && i + 2 < len && pattern[i + 2] == '<')
                found->backreference = true;
            else if (!in_class && (next == 'b' || next == 'B'))
                found->word_boundary = true;
            i++;
            continue;
        }
        if (in_class) {
            if (c == ']')
                in_class = false;
            continue;
        }
        if (c == '[') {
            in_class = true;
            if (i + 1 < len && pattern[i + 1] == ']')
                i++; /* "[]" is an empty class in ECMAScript; "[]]" is not special here */
        } else if (c == '(' && i + 2 < len && pattern[i + 1] == '?') {
            char kind = pattern[i + 2];
            if (kind == '=' || kind == '!')
                found->lookaround = true;
            else if (kind == '<' && i + 3 < len && (pattern[i + 3] == '=' || pattern[i + 3] == '!'))
                found->lookaround = true;
        } else if (c == '{') {
            /* {n}, {n,} or {n,m}: a bound above the limit is a large repetition. */
            size_t j = i + 1;
            unsigned long bound = 0, largest = 0;
            bool digits = false, ok = true;
            for (; j < len && pattern[j] != '}'; j++) {
                if (pattern[j] >= '0' && pattern[j] <= '9') {
                    bound = bound > 100000000ul ? bound : bound * 10 + (unsigned long)(pattern[j] - '0');
                    digits = true;
                } else if (pattern[j] == ',' && digits) {
                    largest = bound > largest ? bound : largest;
                    bound = 0;
                } else {
                    ok = false;
                    break;
                }
            }
            largest = bound > largest ? bound : largest;
            if (ok && digits && j < len && largest > GT_WIRE_ANTHROPIC_PATTERN_MAX_REPEAT)
                found->large_repeat = true;
        }
    }
}

/* Seed 004: the schema is cached for 24 hours, so property names, enum and
 * const values and patterns must hold no PHI or secrets. */
static void lint_cached_value(lint_ctx *ctx, const char *text, size_t len, const char *key, const char *what)
{
    const char *kind = gt_wire_sensitive_kind(text, len);
    if (kind == NULL)
        return;
    char message[160];
    snprintf(message, sizeof message, "%s holds %s; the schema is cached for 24 hours, keep it in the prompt",
             what, kind);
    add_here(ctx, "anthropic_sensitive_value", key, "%s", message);
}

static void lint_cached_values(lint_ctx *ctx, const gt_value *node)
{
    const gt_value *properties = wire_get(node, "properties");
    for (size_t i = 0; properties != NULL && properties->type == GT_OBJECT && i < properties->u.obj.count; i++) {
        const gt_member *property = &properties->u.obj.members[i];
        size_t mark = wire_path_push_key(&ctx->path, "properties", 10);
        lint_cached_value(ctx, property->key, property->key_len, property->key, "a property name");
        wire_path_pop(&ctx->path, mark);
    }
    const gt_value *values = wire_get(node, "enum");
    for (size_t i = 0; values != NULL && values->type == GT_ARRAY && i < values->u.arr.count; i++) {
        const gt_value *value = values->u.arr.items[i];
        char index[32];
        snprintf(index, sizeof index, "%zu", i);
        size_t mark = wire_path_push_key(&ctx->path, "enum", 4);
        if (value->type == GT_STRING)
            lint_cached_value(ctx, value->u.str.chars, value->u.str.len, index, "an enum value");
        wire_path_pop(&ctx->path, mark);
    }
    const gt_value *constant = wire_get(node, "const");
    if (constant != NULL && constant->type == GT_STRING)
        lint_cached_value(ctx, constant->u.str.chars, constant->u.str.len, "const", "the const value");
    const gt_value *pattern = wire_get(node, "pattern");
    if (pattern != NULL && pattern->type == GT_STRING)
        lint_cached_value(ctx, pattern->u.str.chars, pattern->u.str.len, "pattern", "the pattern");
}

static void lint_anthropic_node(lint_ctx *ctx, const gt_value *node)
{
    lint_cached_values(ctx, node);
    char detail[160];
    for (size_t i = 0; i < node->u.obj.count; i++) {
        const gt_member *member = &node->u.obj.members[i];
        const gt_value *value = member->value;
        const char *key = member->key;
        if (member_in(member, anthropic_numeric, COUNT_OF(anthropic_numeric))) {
            add_here(ctx, "anthropic_numeric_bound", key, "%s: numeric bounds are not supported", key);
        } else if (member_in(member, anthropic_string, COUNT_OF(anthropic_string))) {
            add_here(ctx, "anthropic_string_bound", key, "%s: string length bounds are not supported", key);
        } else if (member_in(member, anthropic_array, COUNT_OF(anthropic_array))) {
            add_here(ctx, "anthropic_array_constraint", key,
                     "%s: array constraints beyond minItems 0 or 1 are not supported", key);
        } else if (wire_key_is(member, "minItems")) {
            if (value->type != GT_NUMBER || (value->u.num.number != 0 && value->u.num.number != 1))
                add_here(ctx, "anthropic_array_constraint", key, "%s: only minItems 0 or 1 is supported", key);
        } else if (wire_key_is(member, "items")) {
            if (value->type == GT_ARRAY)
                add_here(ctx, "anthropic_array_constraint", key, "%s: tuple items are not supported", key);
        } else if (wire_key_is(member, "additionalProperties")) {
            if (value->type != GT_FALSE)
                add_here(ctx, "anthropic_additional_properties", key,
                         "%s: additionalProperties must be false", key);
        } else if (wire_key_is(member, "enum")) {
            for (size_t k = 0; value->type == GT_ARRAY && k < value->u.arr.count; k++)
                if (!wire_is_primitive(value->u.arr.items[k])) {
                    size_t mark = wire_path_push_key(&ctx->path, "enum", 4);
                    snprintf(detail, sizeof detail, "%zu", k);
                    add_here(ctx, "anthropic_complex_enum", detail,
                             "enum value %s is an object or array: only strings, numbers, booleans and null are "
                             "supported",
                             detail);
                    wire_path_pop(&ctx->path, mark);
                    break;
                }
        } else if (wire_key_is(member, "format")) {
            if (!string_in(value, anthropic_formats, COUNT_OF(anthropic_formats)))
                add_here(ctx, "anthropic_unsupported_format", key, "%s",
                         "format: only date-time, time, date, duration, email, hostname, uri, ipv4, ipv6 and uuid "
                         "are supported");
        } else if (wire_key_is(member, "pattern")) {
            if (value->type != GT_STRING)
                continue;
            pattern_features found = {0};
            scan_pattern(value->u.str.chars, value->u.str.len, &found);
            if (found.backreference)
                add_here(ctx, "anthropic_pattern_backreference", key, "%s: backreferences are not supported", key);
            if (found.lookaround)
                add_here(ctx, "anthropic_pattern_lookaround", key, "%s: lookahead and lookbehind are not supported",
                         key);
            if (found.word_boundary)
                add_here(ctx, "anthropic_pattern_word_boundary", key, "%s: \\b and \\B are not supported", key);
            if (found.large_repeat)
                add_here(ctx, "anthropic_pattern_large_repetition", key,
                         "%s: a {n,m} bound above 100 is a large repetition, which is not supported", key);
        } else if (wire_key_is(member, "allOf")) {
            for (size_t k = 0; value->type == GT_ARRAY && k < value->u.arr.count; k++) {
                const gt_value *branch = value->u.arr.items[k];
                if (branch->type == GT_OBJECT && wire_get(branch, "$ref") != NULL) {
                    size_t mark = wire_path_push_key(&ctx->path, "allOf", 5);
                    wire_path_push_index(&ctx->path, k);
                    add_here(ctx, "anthropic_allof_ref", "$ref", "%s", "allOf with $ref is not supported");
                    wire_path_pop(&ctx->path, mark);
                }
            }
        } else if (!member_in(member, anthropic_supported, COUNT_OF(anthropic_supported))) {
            snprintf(detail, sizeof detail, "%.100s", key);
            add_here(ctx, "anthropic_unsupported_keyword", key, "%s: keyword not supported in strict schemas",
                     detail);
        }
    }
    /* Budgets: optional parameters and parameters using anyOf or a type array. */
    const gt_value *properties = wire_get(node, "properties");
    const gt_value *required = wire_get(node, "required");
    for (size_t i = 0; properties != NULL && properties->type == GT_OBJECT && i < properties->u.obj.count; i++) {
        const gt_member *property = &properties->u.obj.members[i];
        bool listed = false;
        for (size_t k = 0; required != NULL && required->type == GT_ARRAY && k < required->u.arr.count; k++) {
            const gt_value *name = required->u.arr.items[k];
            listed = listed || (name->type == GT_STRING && name->u.str.len == property->key_len &&
                                memcmp(name->u.str.chars, property->key, property->key_len) == 0);
        }
        if (!listed)
            ctx->optional_params++;
    }
    const gt_value *type = wire_get(node, "type");
    if (wire_get(node, "anyOf") != NULL || (type != NULL && type->type == GT_ARRAY))
        ctx->union_params++;
}

static void lint_openai_node(lint_ctx *ctx, const gt_value *node)
{
    char detail[160];
    const gt_value *type = wire_get(node, "type");
    const gt_value *properties = wire_get(node, "properties");
    for (size_t i = 0; i < node->u.obj.count; i++) {
        const gt_member *member = &node->u.obj.members[i];
        if (member_in(member, openai_unsupported, COUNT_OF(openai_unsupported))) {
            snprintf(detail, sizeof detail, "%.100s", member->key);
            add_here(ctx, "openai_unsupported_keyword", member->key, "%s: not supported in strict mode", detail);
        } else if (wire_key_is(member, "format") &&
                   !string_in(member->value, openai_formats, COUNT_OF(openai_formats))) {
            add_here(ctx, "openai_unsupported_format", "format", "%s",
                     "format: only date-time, time, date, duration, email, hostname, ipv4, ipv6 and uuid are "
                     "supported");
        } else if (wire_key_is(member, "enum") && member->value->type == GT_ARRAY) {
            const gt_value *values = member->value;
            ctx->enum_values += values->u.arr.count;
            size_t chars = 0;
            bool all_strings = true;
            for (size_t k = 0; k < values->u.arr.count; k++) {
                chars += value_chars(values->u.arr.items[k]);
                all_strings = all_strings && values->u.arr.items[k]->type == GT_STRING;
            }
            ctx->chars += chars;
            if (all_strings && values->u.arr.count > GT_WIRE_OPENAI_LARGE_ENUM_VALUES &&
                chars > GT_WIRE_OPENAI_LARGE_ENUM_CHARS) {
                snprintf(detail, sizeof detail, "%zu values, %zu characters", values->u.arr.count, chars);
                add_here(ctx, "openai_large_string_enum", "enum",
                         "a string enum with more than 250 values may total at most 15,000 characters (%s)", detail);
            }
        } else if (wire_key_is(member, "const")) {
            ctx->chars += value_chars(member->value);
        } else if ((wire_key_is(member, "$defs") || wire_key_is(member, "definitions")) &&
                   member->value->type == GT_OBJECT) {
            for (size_t k = 0; k < member->value->u.obj.count; k++)
                ctx->chars += utf8_length(member->value->u.obj.members[k].key, member->value->u.obj.members[k].key_len);
        }
    }
    bool is_object = type_has(type, "object") || (type == NULL && properties != NULL);
    if (properties != NULL && properties->type == GT_OBJECT) {
        ctx->properties += properties->u.obj.count;
        for (size_t k = 0; k < properties->u.obj.count; k++)
            ctx->chars += utf8_length(properties->u.obj.members[k].key, properties->u.obj.members[k].key_len);
    }
    if (!is_object)
        return;
    const gt_value *additional = wire_get(node, "additionalProperties");
    if (additional == NULL)
        add_here(ctx, "openai_additional_properties", NULL, "%s",
                 "an object needs \"additionalProperties\": false in strict mode");
    else if (additional->type != GT_FALSE)
        add_here(ctx, "openai_additional_properties", "additionalProperties", "%s",
                 "additionalProperties must be false in strict mode");
    const gt_value *required = wire_get(node, "required");
    for (size_t i = 0; properties != NULL && properties->type == GT_OBJECT && i < properties->u.obj.count; i++) {
        const gt_member *property = &properties->u.obj.members[i];
        bool listed = false;
        for (size_t k = 0; required != NULL && required->type == GT_ARRAY && k < required->u.arr.count; k++) {
            const gt_value *name = required->u.arr.items[k];
            listed = listed || (name->type == GT_STRING && name->u.str.len == property->key_len &&
                                memcmp(name->u.str.chars, property->key, property->key_len) == 0);
        }
        if (!listed) {
            size_t mark = wire_path_push_key(&ctx->path, "properties", 10);
            snprintf(detail, sizeof detail, "%.100s", property->key);
            add_here(ctx, "openai_required_missing", property->key,
                     "property \"%s\" must be listed in required (emulate optional with a null type)", detail);
            wire_path_pop(&ctx->path, mark);
        }
    }
}

static void lint_node(lint_ctx *ctx, const gt_value *node, size_t depth, size_t nesting);

static void lint_child(lint_ctx *ctx, const gt_value *child, size_t depth, size_t nesting)
{
    if (child->type == GT_OBJECT)
        lint_node(ctx, child, depth + 1, nesting);
}

static void lint_node(lint_ctx *ctx, const gt_value *node, size_t depth, size_t nesting)
{
    if (ctx->failed)
        return;
    if (depth > GT_WIRE_MAX_DEPTH) {
        add_here(ctx, "lint_too_deep", NULL, "%s", "schema nesting exceeds gauntlet's walk limit of 512 levels");
        return;
    }
    bool openai = ctx->options->provider == GT_WIRE_PROVIDER_OPENAI;
    const gt_value *type = wire_get(node, "type");
    if (type_has(type, "object") || type_has(type, "array") || (type == NULL && wire_get(node, "properties")))
        nesting++;
    if (openai && nesting > GT_WIRE_OPENAI_MAX_NESTING && !ctx->nesting_reported) {
        char detail[64];
        snprintf(detail, sizeof detail, "%zu", nesting);
        add_here(ctx, "openai_too_deep", NULL, "%s levels of nesting exceed the limit of 10", detail);
        ctx->nesting_reported = true;
    }
    if (openai)
        lint_openai_node(ctx, node);
    else
        lint_anthropic_node(ctx, node);

    for (size_t i = 0; i < node->u.obj.count && !ctx->failed; i++) {
        const gt_member *member = &node->u.obj.members[i];
        wire_sub_kind kind = wire_subschema_kind(member);
        const gt_value *value = member->value;
        if (kind == WIRE_SUB_NONE)
            continue;
        size_t mark = wire_path_push_key(&ctx->path, member->key, member->key_len);
        if (kind == WIRE_SUB_ONE && value->type == GT_OBJECT) {
            lint_child(ctx, value, depth, nesting);
        } else if ((kind == WIRE_SUB_ARRAY || kind == WIRE_SUB_ONE) && value->type == GT_ARRAY) {
            for (size_t k = 0; k < value->u.arr.count; k++) {
                size_t inner = wire_path_push_index(&ctx->path, k);
                lint_child(ctx, value->u.arr.items[k], depth, nesting);
                wire_path_pop(&ctx->path, inner);
            }
        } else if (kind == WIRE_SUB_MAP && value->type == GT_OBJECT) {
            /* Definitions start a fresh nesting count where they are used;
             * gauntlet counts them from the root of their own subtree. */
            size_t base = wire_key_is(member, "$defs") || wire_key_is(member, "definitions") ? 0 : nesting;
            for (size_t k = 0; k < value->u.obj.count; k++) {
                const gt_member *entry = &value->u.obj.members[k];
                size_t inner = wire_path_push_key(&ctx->path, entry->key, entry->key_len);
                lint_child(ctx, entry->value, depth, base);
                wire_path_pop(&ctx->path, inner);
            }
        }
        wire_path_pop(&ctx->path, mark);
    }
    if (ctx->path.failed)
        ctx->failed = true;
}

/* External, unresolved and (for Anthropic) recursive references. */
static void lint_references(lint_ctx *ctx, const gt_value *root)
{
    bool openai = ctx->options->provider == GT_WIRE_PROVIDER_OPENAI;
    wire_refs refs = {0};
    if (wire_refs_collect(root, &refs) != 0) {
        ctx->failed = true;
        wire_refs_free(&refs);
        return;
    }
    char location[600];
    for (size_t i = 0; i < refs.count; i++) {
        const wire_ref *ref = &refs.items[i];
        if (ref->target != NULL)
            continue;
        const gt_value *value = ref->value;
        const char *text = value->type == GT_STRING ? value->u.str.chars : "(not a string)";
        bool external = value->type == GT_STRING && text[0] != '#';
        snprintf(location, sizeof location, "%s/$ref", ref->at);
        if (external)
            add(ctx, ctx->schema_index, openai ? "openai_external_ref" : "anthropic_external_ref", location,
                "$ref \"%.120s\" is external: only references inside the schema are supported", text);
        else
            add(ctx, ctx->schema_index, openai ? "openai_unresolved_ref" : "anthropic_unresolved_ref", location,
                "$ref \"%.120s\" does not resolve inside the schema", text);
    }
    if (!openai) {
        long cycle = wire_refs_find_cycle(&refs);
        if (cycle == -2) {
            ctx->failed = true;
        } else if (cycle >= 0) {
            const wire_ref *ref = &refs.items[cycle];
            snprintf(location, sizeof location, "%s/$ref", ref->at);
            add(ctx, ctx->schema_index, "anthropic_recursive_schema", location,
                "$ref \"%.120s\" makes the schema recursive, which is not supported", ref->value->u.str.chars);
        }
    }
    wire_refs_free(&refs);
}

static void lint_openai_root(lint_ctx *ctx, const gt_value *root)
{
    const gt_value *type = wire_get(root, "type");
    if (wire_get(root, "anyOf") != NULL)
        add(ctx, ctx->schema_index, "openai_root_anyof", "/anyOf", "%s",
            "the root schema must not be anyOf (a discriminated union at the root is rejected)");
    if (type == NULL || type->type != GT_STRING || !string_in(type, (const char *const[]){"object"}, 1))
        add(ctx, ctx->schema_index, "openai_root_not_object", "", "%s", "the root schema must be \"type\": \"object\"");
}

static void lint_openai_totals(lint_ctx *ctx)
{
    if (ctx->properties > GT_WIRE_OPENAI_MAX_PROPERTIES)
        add(ctx, ctx->schema_index, "openai_too_many_properties", "",
            "%zu object properties in total exceed the limit of 5,000", ctx->properties);
    if (ctx->enum_values > GT_WIRE_OPENAI_MAX_ENUM_VALUES)
        add(ctx, ctx->schema_index, "openai_too_many_enum_values", "",
            "%zu enum values in total exceed the limit of 1,000", ctx->enum_values);
    if (ctx->chars > GT_WIRE_OPENAI_MAX_TOTAL_CHARS)
        add(ctx, ctx->schema_index, "openai_too_many_chars", "",
            "%zu characters of property names, definition names and enum/const values exceed the limit of 120,000",
            ctx->chars);
}

int gt_wire_lint(const gt_value *const *schemas, size_t count, const gt_wire_lint_options *options,
                 gt_wire_findings *findings)
{
    gt_wire_lint_options defaults;
    if (options == NULL) {
        gt_wire_lint_options_init(&defaults);
        options = &defaults;
    }
    size_t before = findings->count;
    lint_ctx ctx = {.options = options, .findings = findings};
    bool openai = options->provider == GT_WIRE_PROVIDER_OPENAI;
    for (size_t i = 0; i < count && !ctx.failed; i++) {
        ctx.schema_index = i;
        ctx.root = schemas[i];
        ctx.properties = ctx.enum_values = ctx.chars = 0;
        ctx.nesting_reported = false;
        wire_path_pop(&ctx.path, 0);
        if (schemas[i]->type != GT_OBJECT) {
            add(&ctx, i, openai ? "openai_root_not_object" : "anthropic_root_not_object", "", "%s",
                "a tool or output schema must be a JSON object");
            continue;
        }
        if (openai)
            lint_openai_root(&ctx, schemas[i]);
        lint_node(&ctx, schemas[i], 0, 0);
        lint_references(&ctx, schemas[i]);
        if (openai)
            lint_openai_totals(&ctx);
    }
    if (!openai && !ctx.failed) {
        size_t tools = options->strict_tools ? options->strict_tools : count;
        if (tools > GT_WIRE_ANTHROPIC_MAX_STRICT_TOOLS)
            add(&ctx, GT_WIRE_REQUEST, "anthropic_too_many_strict_tools", "",
                "%zu strict tools in one request exceed the limit of 20", tools);
        if (ctx.optional_params > GT_WIRE_ANTHROPIC_MAX_OPTIONAL_PARAMS)
            add(&ctx, GT_WIRE_REQUEST, "anthropic_too_many_optional_params", "",
                "%zu optional parameters across the strict schemas exceed the limit of 24", ctx.optional_params);
        if (ctx.union_params > GT_WIRE_ANTHROPIC_MAX_UNION_PARAMS)
            add(&ctx, GT_WIRE_REQUEST, "anthropic_too_many_union_params", "",
                "%zu parameters using anyOf or type arrays exceed the limit of 16", ctx.union_params);
        if (options->output_format && options->citations)
            add(&ctx, GT_WIRE_REQUEST, "anthropic_citations_with_output_format", "", "%s",
                "citations cannot be enabled together with output_config.format (400)");
        if (options->output_format && options->prefill)
            add(&ctx, GT_WIRE_REQUEST, "anthropic_prefill_with_output_format", "", "%s",
                "a prefilled assistant message cannot be used with output_config.format (400)");
    }
    wire_path_free(&ctx.path);
    if (ctx.failed)
        return -1;
    return findings->count > before ? 1 : 0;
}
