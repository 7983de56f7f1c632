/* rule_table.h — what the semantic gate's rule sets (semantic.c) and the
 * policy gate's tables (policy.c) share to compile a JSON table into their
 * arena: a located problem, members and plain strings, the members an object
 * may have, a list of entries compiled one by one whose names must differ,
 * and recompiling a table given as a value.
 *
 * Private to reference/. A policy problem is a rule set's problem
 * (gt_policy_problem is gt_semantic_problem). Not for: evaluating rules or
 * deciding policies. */
#ifndef GT_RULE_TABLE_H
#define GT_RULE_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "gauntlet/arena.h"
#include "gauntlet/semantic.h"
#include "gauntlet/value.h"

/* Fill `problem` (NULL: do nothing) with `location` (a JSON Pointer into the
 * table) and a formatted message, both truncated to their buffers. */
void gt_table_problem(gt_semantic_problem *problem, const char *location, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Member `name` of `object`, or NULL. */
const gt_value *gt_table_member(const gt_value *object, const char *name);

/* True for a string without a NUL inside. */
bool gt_table_plain_string(const gt_value *value);

/* True when every member of `object` is one of `allowed`; otherwise false
 * with a problem at `where`/<key>: `unknown member "<key>"` then `hint`. */
bool gt_table_only_members(const gt_value *object, const char *const *allowed, size_t count, const char *where,
                           const char *hint, gt_semantic_problem *problem);

/* Compile item `index` of a list into `entry`; false with `problem` filled. */
typedef bool (*gt_table_entry_fn)(gt_arena *arena, const gt_value *item, size_t index, void *entry,
                                  gt_semantic_problem *problem);

/* How a list's entries are compiled and told apart. */
typedef struct gt_table_list {
    size_t entry_size;
    gt_table_entry_fn compile;
    size_t name_offset;      /* offsetof the entry's `const char *` name */
    const char *pointer;     /* the list's JSON Pointer in the table: "" or "/actions" */
    const char *name_member; /* the member holding the name: "id", "action" */
    const char *what;        /* how the problem names it: "rule id", "action" */
    const char *repeated;    /* and what is wrong: "is used twice", "is listed twice" */
} gt_table_list;

/* Compile every item of the array `list` into a new array of entries from
 * `arena` (*entries, never NULL on success; *count items). A name used by an
 * earlier entry is a problem at the later entry's name member. Returns false
 * with `problem` filled. */
bool gt_table_compile_list(gt_arena *arena, const gt_value *list, const gt_table_list *how, void **entries,
                           size_t *count, gt_semantic_problem *problem);

/* `value` as JSON text (malloc'd, the caller frees) for a compile function;
 * NULL with an "out of memory" problem. */
char *gt_table_value_json(const gt_value *value, size_t *len, gt_semantic_problem *problem);

#endif
