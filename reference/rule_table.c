/* rule_table.c — compiling the semantic and policy gates' JSON tables: the
 * pieces both share (rule_table.h). Not for: evaluating them. */
#include "rule_table.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gt_table_problem(gt_semantic_problem *problem, const char *location, const char *fmt, ...)
{
    if (problem == NULL)
        return;
    snprintf(problem->location, sizeof problem->location, "%s", location);
    va_list args;
    va_start(args, fmt);
    vsnprintf(problem->message, sizeof problem->message, fmt, args);
    va_end(args);
}

const gt_value *gt_table_member(const gt_value *object, const char *name)
{
    return gt_value_get(object, name, strlen(name));
}

bool gt_table_plain_string(const gt_value *value)
{
    return value != NULL && value->type == GT_STRING && strlen(value->u.str.chars) == value->u.str.len;
}

bool gt_table_only_members(const gt_value *object, const char *const *allowed, size_t count, const char *where,
                           const char *hint, gt_semantic_problem *problem)
{
    for (size_t i = 0; i < object->u.obj.count; i++) {
        const char *key = object->u.obj.members[i].key;
        bool known = false;
        for (size_t j = 0; j < count && !known; j++)
            known = strcmp(key, allowed[j]) == 0;
        if (!known) {
            char location[128];
            snprintf(location, sizeof location, "%s/%s", where, key);
            gt_table_problem(problem, location, "unknown member \"%s\"%s", key, hint);
            return false;
        }
    }
    return true;
}

static const char *entry_name(const gt_table_list *how, const char *entries, size_t index)
{
    const char *name;
    memcpy(&name, entries + index * how->entry_size + how->name_offset, sizeof name);
    return name;
}

bool gt_table_compile_list(gt_arena *arena, const gt_value *list, const gt_table_list *how, void **entries,
                           size_t *count, gt_semantic_problem *problem)
{
    *count = list->u.arr.count;
    char *out = gt_arena_alloc(arena, (*count ? *count : 1) * how->entry_size);
    *entries = out;
    if (out == NULL) {
        gt_table_problem(problem, "", "out of memory");
        return false;
    }
    for (size_t i = 0; i < *count; i++) {
        if (!how->compile(arena, list->u.arr.items[i], i, out + i * how->entry_size, problem))
            return false;
        for (size_t j = 0; j < i; j++)
            if (strcmp(entry_name(how, out, j), entry_name(how, out, i)) == 0) {
                char where[64];
                snprintf(where, sizeof where, "%s/%zu/%s", how->pointer, i, how->name_member);
                gt_table_problem(problem, where, "%s \"%s\" %s", how->what, entry_name(how, out, i), how->repeated);
                return false;
            }
    }
    return true;
}

char *gt_table_value_json(const gt_value *value, size_t *len, gt_semantic_problem *problem)
{
    char *json = gt_value_to_json(value, len);
    if (json == NULL)
        gt_table_problem(problem, "", "out of memory");
    return json;
}
