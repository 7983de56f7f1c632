/* corpus.c — the case-file loader (format "gauntlet-corpus/1").
 *
 * Case files are read with the syntax gate itself (gt_parse), so a case file
 * is strictly checked JSON: a duplicate key, a comment or a trailing comma in
 * a case file is a load problem, not something quietly repaired. Every
 * problem names the file, the line of the offending value and a JSON Pointer
 * to it. A broken case is skipped (its siblings load); a broken file (not
 * JSON, wrong format, bad defaults) contributes nothing. docs/corpus-format.md
 * is the reference for every rule enforced here. Not for: running cases. */
#include "gauntlet/runner/corpus.h"

#include "gauntlet/util.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gauntlet/arena.h"
#include "gauntlet/parse.h"
#include "gauntlet/runner/run.h"
#include "gauntlet/schema.h"
#include "gauntlet/semantic.h"
#include "gauntlet/value.h"

/* Case files are data written by people, not model output: allow more than a
 * model answer gets. Deep enough for schemas that probe GT_SCHEMA_MAX_DEPTH,
 * shallow enough that recursive walks over a schema stay far from the stack
 * limit. */
#define CASE_FILE_MAX_DEPTH 20000u
#define CASE_FILE_MAX_BYTES (256u * 1024u * 1024u)
/* Largest schema_file: far above any contract (GT_SCHEMA_MAX_NODES bounds
 * what compiles), small enough that a stray big file costs nothing. */
#define SCHEMA_FILE_MAX_BYTES (64u * 1024u * 1024u)
/* Directory recursion guard (symlink loops). */
#define CORPUS_MAX_DIR_DEPTH 32
/* Longest id, category or tag; longer ones are almost always a pasted value. */
#define CASE_NAME_MAX 200u

typedef struct id_entry {
    const char *id; /* NULL = empty slot */
    const char *file;
    unsigned line;
} id_entry;

/* A corpus-level schemas/ folder, registered once (cross-document $ref). */
typedef struct schemas_folder {
    struct schemas_folder *next;
    const char *dir; /* canonical path */
    gt_schema_registry *registry;
} schemas_folder;

typedef struct schema_cache_entry {
    struct schema_cache_entry *next;
    const char *path;   /* resolved path */
    const char *json;   /* compact schema, or NULL when broken */
    const char *problem; /* why it is broken */
} schema_cache_entry;

/* A rule list (corpus/rules.json): the ids a case's `rules` may name. */
typedef struct rules_list {
    struct rules_list *next;
    const char *path;  /* canonical path */
    const char **ids;  /* sorted, unique */
    size_t count;
    bool broken;       /* it had problems (reported once); ids naming it cannot be checked */
} rules_list;

struct gt_corpus {
    gt_arena *arena; /* every case, string and problem lives here */
    gt_case **cases;
    size_t count, cap;
    gt_load_problem *problems;
    size_t problem_count, problem_cap;
    id_entry *ids; /* every id ever loaded (filtering does not forget them) */
    size_t id_count, id_cap;
    const char **files; /* canonical paths already loaded (loading twice is a no-op) */
    size_t file_count, file_cap;
    schema_cache_entry *schemas;
    schemas_folder *folders;
    rules_list *rule_lists; /* every rules.json read so far */
    gt_rule *rules;         /* their rules, list by list in reading order, each in file order */
    size_t rule_count, rule_cap;
    const char *root; /* canonical corpus root while gt_corpus_load runs, else NULL */
    bool out_of_memory;
};

/* ---- small helpers ------------------------------------------------------ */

static bool grow(void **array, size_t *cap, size_t need, size_t item_size)
{
    if (need <= *cap)
        return true;
    size_t new_cap = *cap ? *cap * 2 : 16;
    while (new_cap < need)
        new_cap *= 2;
    void *bigger = realloc(*array, new_cap * item_size);
    if (bigger == NULL)
        return false;
    *array = bigger;
    *cap = new_cap;
    return true;
}

static const char *corpus_strdup(gt_corpus *corpus, const char *text, size_t len)
{
    char *copy = gt_arena_strndup(corpus->arena, text, len);
    if (copy == NULL)
        corpus->out_of_memory = true;
    return copy;
}

static bool key_is(const gt_member *member, const char *name)
{
    size_t len = strlen(name);
    return member->key_len == len && memcmp(member->key, name, len) == 0;
}

static const gt_value *member_value(const gt_value *object, const char *name)
{
    if (object == NULL || object->type != GT_OBJECT)
        return NULL;
    return gt_value_get(object, name, strlen(name));
}

/* A string without U+0000 (only `input` may carry one). */
static bool is_plain_string(const gt_value *value)
{
    return value != NULL && value->type == GT_STRING && memchr(value->u.str.chars, '\0', value->u.str.len) == NULL;
}

/* Names (id, category, tags): [a-z0-9._-]+, at most CASE_NAME_MAX bytes. */
static bool is_name(const gt_value *value)
{
    if (!is_plain_string(value) || value->u.str.len == 0 || value->u.str.len > CASE_NAME_MAX)
        return false;
    for (size_t i = 0; i < value->u.str.len; i++) {
        char c = value->u.str.chars[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
            return false;
    }
    return true;
}

/* Reason codes are identifiers: snake_case codes ("markdown_fence") or, for
 * the structure gate, the failing JSON Schema keyword ("additionalProperties",
 * "$ref"): [A-Za-z0-9_$]+. */
static bool is_reason_code(const gt_value *value)
{
    if (!is_plain_string(value) || value->u.str.len == 0 || value->u.str.len > CASE_NAME_MAX)
        return false;
    for (size_t i = 0; i < value->u.str.len; i++) {
        char c = value->u.str.chars[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$'))
            return false;
    }
    return true;
}

static const char *json_type_name(const gt_value *value)
{
    switch (value->type) {
    case GT_NULL: return "null";
    case GT_FALSE:
    case GT_TRUE: return "a boolean";
    case GT_NUMBER: return "a number";
    case GT_STRING: return "a string";
    case GT_ARRAY: return "an array";
    case GT_OBJECT: return "an object";
    }
    return "a value";
}


/* ---- per-file context and problems ------------------------------------- */

typedef struct file_ctx {
    gt_corpus *corpus;
    const char *name;       /* as given, arena copy */
    const char *dir_prefix; /* name up to and including the last '/', or "" */
    const char *text;
    size_t len;
    size_t *line_starts; /* byte offset of each line's first byte */
    size_t line_count;
    gt_arena *scratch; /* the parsed file; freed after loading */
    gt_parse_options options;
    size_t problems; /* problems reported for the current unit (file or case) */
    const schemas_folder *folder; /* the nearest schemas/ folder above the file, or NULL */
    const rules_list *rules; /* the nearest rules.json, once looked for */
    bool rules_looked;
} file_ctx;

static unsigned line_of(const file_ctx *ctx, size_t offset)
{
    if (ctx->line_count == 0)
        return 1;
    size_t low = 0, high = ctx->line_count; /* last start <= offset */
    while (high - low > 1) {
        size_t mid = (low + high) / 2;
        if (ctx->line_starts[mid] <= offset)
            low = mid;
        else
            high = mid;
    }
    return (unsigned)(low + 1);
}

static void add_problem_at(gt_corpus *corpus, const char *file, unsigned line, const char *field,
                           const char *message)
{
    if (!grow((void **)&corpus->problems, &corpus->problem_cap, corpus->problem_count + 1,
              sizeof *corpus->problems)) {
        corpus->out_of_memory = true;
        return;
    }
    gt_load_problem *problem = &corpus->problems[corpus->problem_count];
    problem->file = file;
    problem->line = line;
    problem->field = corpus_strdup(corpus, field, strlen(field));
    problem->message = corpus_strdup(corpus, message, strlen(message));
    if (problem->field != NULL && problem->message != NULL)
        corpus->problem_count++;
}

static void problem(file_ctx *ctx, const gt_value *where, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Report a problem at `where` (its line), field `field` (a JSON Pointer). */
static void problem(file_ctx *ctx, const gt_value *where, const char *field, const char *fmt, ...)
{
    char message[1024];
    va_list args;
    va_start(args, fmt);
    vsnprintf(message, sizeof message, fmt, args);
    va_end(args);
    add_problem_at(ctx->corpus, ctx->name, where ? line_of(ctx, where->offset) : 0, field, message);
    ctx->problems++;
}

/* JSON Pointer of `base` + "/" + `key` with ~ and / escaped (RFC 6901). */
static void pointer_join(char *out, size_t out_len, const char *base, const char *key, size_t key_len)
{
    size_t used = (size_t)snprintf(out, out_len, "%s/", base);
    for (size_t i = 0; i < key_len && used + 3 < out_len; i++) {
        if (key[i] == '~') {
            out[used++] = '~';
            out[used++] = '0';
        } else if (key[i] == '/') {
            out[used++] = '~';
            out[used++] = '1';
        } else
            out[used++] = key[i];
    }
    if (used < out_len)
        out[used] = '\0';
}

/* Quote a string value for a message, shortened and with invisible bytes
 * escaped, so a problem line stays one readable line. */
static const char *quoted(const gt_value *value, char *out, size_t out_len)
{
    size_t used = 0;
    out[used++] = '\'';
    for (size_t i = 0; i < value->u.str.len && used + 8 < out_len; i++) {
        unsigned char c = (unsigned char)value->u.str.chars[i];
        if (c < 0x20 || c == 0x7f || c == '\\')
            used += (size_t)snprintf(out + used, out_len - used, "\\x%02x", c);
        else
            out[used++] = (char)c;
        if (i + 1 < value->u.str.len && used + 8 >= out_len) {
            memcpy(out + used, "...", 3);
            used += 3;
            break;
        }
    }
    out[used++] = '\'';
    out[used] = '\0';
    return out;
}

/* ---- loading one file --------------------------------------------------- */

static const char *const top_level_fields[] = {"format", "description", "defaults", "cases"};
/* Fields the defaults block may not set: they identify or define one case. */
static const char *const per_case_only[] = {"id", "input", "input_base64", "expect"};

/* The corpus root, canonical, into `root` (PATH_MAX): the directory being
 * loaded, or when a directory at or above it holds the corpus's VERSION file,
 * the nearest such directory (so `gauntlet run corpus/structure` still reaches
 * corpus/schemas). `path` is a directory, or a case file (its directory). */
static bool corpus_root_of(const char *path, bool is_dir, char *root)
{
    char start[PATH_MAX];
    if (realpath(path, start) == NULL)
        return false;
    if (!is_dir) {
        char *slash = strrchr(start, '/');
        if (slash != NULL)
            slash == start ? (void)(slash[1] = '\0') : (void)(*slash = '\0');
    }
    snprintf(root, PATH_MAX, "%s", start);
    char probe[PATH_MAX + 16], dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", start);
    for (int level = 0; level < CORPUS_MAX_DIR_DEPTH; level++) {
        struct stat info;
        snprintf(probe, sizeof probe, "%s/VERSION", strcmp(dir, "/") == 0 ? "" : dir);
        if (stat(probe, &info) == 0 && S_ISREG(info.st_mode)) {
            snprintf(root, PATH_MAX, "%s", dir);
            break;
        }
        char *slash = strrchr(dir, '/');
        if (slash == NULL || slash == dir)
            break;
        *slash = '\0';
    }
    return true;
}

/* Read a schema_file: it must resolve to a regular file inside the corpus
 * root (no FIFO, device or `..` escape) of at most SCHEMA_FILE_MAX_BYTES,
 * checked before and while reading. Returns the bytes (malloc'd), or NULL
 * with `message` naming the file. */
static char *read_schema_file(file_ctx *ctx, const char *path, size_t *len, char *message, size_t message_len)
{
    char root[PATH_MAX], real[PATH_MAX];
    if (ctx->corpus->root != NULL)
        snprintf(root, sizeof root, "%s", ctx->corpus->root);
    else if (!corpus_root_of(ctx->dir_prefix[0] ? ctx->dir_prefix : ".", true, root)) {
        snprintf(message, message_len, "schema_file '%s': the case file's directory cannot be resolved", path);
        return NULL;
    }
    if (realpath(path, real) == NULL) {
        snprintf(message, message_len, "schema_file '%s' cannot be read: %s", path, strerror(errno));
        return NULL;
    }
    size_t root_len = strlen(root);
    if (strcmp(root, "/") != 0 && (strncmp(real, root, root_len) != 0 || real[root_len] != '/')) {
        snprintf(message, message_len, "schema_file '%.200s' is outside the corpus root '%.200s'", path, root);
        return NULL;
    }
    int fd = open(real, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC); /* a FIFO must not block the open */
    struct stat info;
    if (fd < 0 || fstat(fd, &info) != 0) {
        snprintf(message, message_len, "schema_file '%s' cannot be read: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    if (!S_ISREG(info.st_mode) || info.st_size > (off_t)SCHEMA_FILE_MAX_BYTES) {
        if (!S_ISREG(info.st_mode))
            snprintf(message, message_len, "schema_file '%s' is not a regular file", path);
        else
            snprintf(message, message_len, "schema_file '%s' is larger than %u bytes", path, SCHEMA_FILE_MAX_BYTES);
        close(fd);
        return NULL;
    }
    size_t cap = (size_t)info.st_size + 1, used = 0;
    char *text = malloc(cap);
    while (text != NULL) {
        ssize_t got = read(fd, text + used, cap - used);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            if (got < 0)
                snprintf(message, message_len, "schema_file '%s' cannot be read: %s", path, strerror(errno));
            break;
        }
        used += (size_t)got;
        if (used == cap) { /* it grew since fstat */
            if (cap > SCHEMA_FILE_MAX_BYTES) {
                snprintf(message, message_len, "schema_file '%s' is larger than %u bytes", path,
                         SCHEMA_FILE_MAX_BYTES);
                break;
            }
            char *bigger = realloc(text, cap * 2);
            if (bigger == NULL) {
                free(text);
                text = NULL;
                break;
            }
            text = bigger, cap *= 2;
        }
    }
    close(fd);
    if (text == NULL && message[0] == '\0')
        snprintf(message, message_len, "out of memory");
    *len = used;
    return text;
}

/* Read a schema file (cached per resolved path). Returns the compact schema
 * JSON, or NULL with *why set to a message. */
static const char *load_schema_file(file_ctx *ctx, const char *path, const char **why)
{
    gt_corpus *corpus = ctx->corpus;
    for (schema_cache_entry *entry = corpus->schemas; entry != NULL; entry = entry->next)
        if (strcmp(entry->path, path) == 0) {
            *why = entry->problem;
            return entry->json;
        }
    schema_cache_entry *entry = gt_arena_alloc(corpus->arena, sizeof *entry);
    if (entry == NULL) {
        corpus->out_of_memory = true;
        *why = "out of memory";
        return NULL;
    }
    memset(entry, 0, sizeof *entry);
    entry->path = corpus_strdup(corpus, path, strlen(path));

    char message[512] = "";
    size_t len = 0;
    char *text = read_schema_file(ctx, path, &len, message, sizeof message);
    if (message[0] == '\0' && text != NULL) {
        gt_arena *arena = gt_arena_new();
        gt_parse_error error;
        const gt_value *schema = arena ? gt_parse(arena, text, len, &ctx->options, &error) : NULL;
        if (arena == NULL)
            snprintf(message, sizeof message, "out of memory");
        else if (schema == NULL)
            snprintf(message, sizeof message, "schema_file '%s' is not valid JSON: line %u, column %u: %s (%s)",
                     path, error.line, error.column, error.message, gt_syntax_reason_code(error.reason));
        else if (schema->type != GT_OBJECT && schema->type != GT_TRUE && schema->type != GT_FALSE)
            snprintf(message, sizeof message, "schema_file '%s' holds %s, not a schema (object or boolean)", path,
                     json_type_name(schema));
        else {
            char *json = gt_value_to_json(schema, NULL);
            if (json == NULL)
                snprintf(message, sizeof message, "out of memory");
            else {
                entry->json = corpus_strdup(corpus, json, strlen(json));
                free(json);
            }
        }
        gt_arena_free(arena);
    } else if (message[0] == '\0')
        snprintf(message, sizeof message, "out of memory");
    free(text);
    if (entry->json == NULL)
        entry->problem = corpus_strdup(corpus, message, strlen(message));
    entry->next = corpus->schemas;
    corpus->schemas = entry;
    *why = entry->problem;
    return entry->json;
}

/* Resolve a schema_file value (relative to the case file's directory). */
static bool resolve_schema_file(file_ctx *ctx, const gt_value *value, char *path, size_t path_len)
{
    if (value->u.str.chars[0] == '/')
        return false;
    snprintf(path, path_len, "%s%s", ctx->dir_prefix, value->u.str.chars);
    return true;
}

/* ---- the rule list (rules.json) ------------------------------------------ */

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Rule ids: "S0-18", "RFC8259-6", "JSONSCHEMA-2020-12-core-10.3.2.1": [A-Za-z0-9._-]+. */
static bool is_rule_id(const gt_value *value)
{
    if (!is_plain_string(value) || value->u.str.len == 0 || value->u.str.len > CASE_NAME_MAX)
        return false;
    for (size_t i = 0; i < value->u.str.len; i++) {
        char c = value->u.str.chars[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
              c == '-'))
            return false;
    }
    return true;
}

static const gt_value *ctx_parse(file_ctx *ctx, const char *text, size_t len);
static void ctx_release(file_ctx *ctx);

/* Check a parsed rule list and keep its ids. Problems go to `ctx`. */
static void read_rules_list(file_ctx *ctx, const gt_value *root, rules_list *list)
{
    char pointer[512], field[600];
    if (root->type != GT_OBJECT) {
        problem(ctx, root, "", "a rule list must be a JSON object, not %s", json_type_name(root));
        return;
    }
    for (size_t i = 0; i < root->u.obj.count; i++) {
        const gt_member *member = &root->u.obj.members[i];
        if (!key_is(member, "format") && !key_is(member, "description") && !key_is(member, "rules")) {
            pointer_join(pointer, sizeof pointer, "", member->key, member->key_len);
            problem(ctx, member->value, pointer, "unknown field (known: format, description, rules)");
        }
    }
    const gt_value *format = member_value(root, "format");
    if (!is_plain_string(format) || strcmp(format->u.str.chars, GT_CORPUS_RULES_FORMAT) != 0) {
        problem(ctx, format ? format : root, "/format", "format must be \"%s\"", GT_CORPUS_RULES_FORMAT);
        return;
    }
    const gt_value *rules = member_value(root, "rules");
    if (rules == NULL || rules->type != GT_ARRAY) {
        problem(ctx, rules ? rules : root, "/rules", "rules must be an array of {id, statement} objects");
        return;
    }
    list->ids = gt_arena_alloc(ctx->corpus->arena, (rules->u.arr.count + 1) * sizeof *list->ids);
    if (list->ids == NULL) {
        ctx->corpus->out_of_memory = true;
        return;
    }
    for (size_t i = 0; i < rules->u.arr.count; i++) {
        const gt_value *rule = rules->u.arr.items[i];
        snprintf(pointer, sizeof pointer, "/rules/%zu", i);
        if (rule->type != GT_OBJECT) {
            problem(ctx, rule, pointer, "a rule must be an object {id, statement}, not %s", json_type_name(rule));
            continue;
        }
        for (size_t m = 0; m < rule->u.obj.count; m++) {
            const gt_member *member = &rule->u.obj.members[m];
            if (!key_is(member, "id") && !key_is(member, "statement") && !key_is(member, "source")) {
                pointer_join(field, sizeof field, pointer, member->key, member->key_len);
                problem(ctx, member->value, field, "unknown rule field (known: id, statement, source)");
            }
        }
        const gt_value *id = member_value(rule, "id"), *statement = member_value(rule, "statement"),
                       *source = member_value(rule, "source");
        snprintf(pointer, sizeof pointer, "/rules/%zu/id", i);
        if (!is_rule_id(id)) {
            problem(ctx, id ? id : rule, pointer, "a rule id must be a non-empty string of [A-Za-z0-9._-]");
            continue;
        }
        snprintf(pointer, sizeof pointer, "/rules/%zu/statement", i);
        if (!is_plain_string(statement) || statement->u.str.len == 0)
            problem(ctx, statement ? statement : rule, pointer, "a rule needs its one-line statement (a string)");
        snprintf(pointer, sizeof pointer, "/rules/%zu/source", i);
        if (source != NULL && !is_plain_string(source))
            problem(ctx, source, pointer, "source must be a string, not %s", json_type_name(source));
        list->ids[list->count++] = corpus_strdup(ctx->corpus, id->u.str.chars, id->u.str.len);
        gt_corpus *corpus = ctx->corpus;
        if (!grow((void **)&corpus->rules, &corpus->rule_cap, corpus->rule_count + 1, sizeof *corpus->rules)) {
            corpus->out_of_memory = true;
            return;
        }
        corpus->rules[corpus->rule_count++] = (gt_rule){
            .id = list->ids[list->count - 1],
            .statement = is_plain_string(statement) ? corpus_strdup(corpus, statement->u.str.chars, statement->u.str.len)
                                                    : "",
            .source = is_plain_string(source) ? corpus_strdup(corpus, source->u.str.chars, source->u.str.len) : NULL,
            .list = list->path,
        };
    }
    if (ctx->corpus->out_of_memory)
        return;
    qsort(list->ids, list->count, sizeof *list->ids, compare_strings);
    for (size_t i = 1; i < list->count; i++)
        if (strcmp(list->ids[i - 1], list->ids[i]) == 0)
            problem(ctx, rules, "/rules", "rule id '%s' is listed twice", list->ids[i]);
}

/* Read the rule list at `path` (cached by path). Its problems are reported
 * once, under its own name. Never NULL unless out of memory. */
static const rules_list *load_rules_list(gt_corpus *corpus, const char *path)
{
    for (rules_list *list = corpus->rule_lists; list != NULL; list = list->next)
        if (strcmp(list->path, path) == 0)
            return list;
    rules_list *list = gt_arena_alloc(corpus->arena, sizeof *list);
    if (list == NULL) {
        corpus->out_of_memory = true;
        return NULL;
    }
    memset(list, 0, sizeof *list);
    list->path = corpus_strdup(corpus, path, strlen(path));
    list->next = corpus->rule_lists;
    corpus->rule_lists = list;
    char err[512];
    size_t len = 0;
    char *text = gt_read_file(path, &len, err, sizeof err);
    if (text == NULL) {
        add_problem_at(corpus, list->path, 0, "", err);
        list->broken = true;
        return list;
    }
    file_ctx ctx = {.corpus = corpus, .name = list->path, .dir_prefix = ""};
    const gt_value *root = ctx_parse(&ctx, text, len);
    if (root != NULL)
        read_rules_list(&ctx, root, list);
    list->broken = root == NULL || ctx.problems > 0;
    ctx_release(&ctx);
    free(text);
    return list;
}

/* The nearest rules.json in directory `start` or above it, read (once per
 * corpus), or NULL when there is none. */
static const rules_list *nearest_rules(gt_corpus *corpus, const char *start)
{
    char dir[PATH_MAX];
    if (realpath(start, dir) == NULL)
        return NULL;
    for (;;) {
        char candidate[PATH_MAX + 16];
        struct stat info;
        snprintf(candidate, sizeof candidate, "%s/%s", strcmp(dir, "/") == 0 ? "" : dir, GT_CORPUS_RULES_FILE);
        if (stat(candidate, &info) == 0 && S_ISREG(info.st_mode))
            return load_rules_list(corpus, candidate);
        char *slash = strrchr(dir, '/');
        if (slash == NULL || strcmp(dir, "/") == 0)
            return NULL;
        slash[slash == dir ? 1 : 0] = '\0';
    }
}

/* The nearest rules.json in the case file's directory or above it, or NULL
 * when there is none. Looked for once per case file. */
static const rules_list *rules_for(file_ctx *ctx)
{
    if (!ctx->rules_looked)
        ctx->rules = nearest_rules(ctx->corpus, ctx->dir_prefix[0] ? ctx->dir_prefix : ".");
    ctx->rules_looked = true;
    return ctx->rules;
}

/* `rules` of a case or the defaults: a non-empty array of known, distinct
 * rule ids. Returns false after reporting a problem. */
static bool check_rule_ids(file_ctx *ctx, const gt_value *value, const char *pointer)
{
    char item[600], shown[96];
    if (value->type != GT_ARRAY || value->u.arr.count == 0) {
        problem(ctx, value, pointer, "rules must be a non-empty array of rule ids (%s), not %s",
                GT_CORPUS_RULES_FILE, value->type == GT_ARRAY ? "an empty array" : json_type_name(value));
        return false;
    }
    for (size_t i = 0; i < value->u.arr.count; i++) {
        const gt_value *id = value->u.arr.items[i];
        snprintf(item, sizeof item, "%s/%zu", pointer, i);
        if (id->type == GT_OBJECT) {
            problem(ctx, id, item, "rules lists rule ids (strings); a semantic rule set goes in semantic_rules");
            return false;
        }
        if (!is_rule_id(id)) {
            problem(ctx, id, item, "a rule id must be a string of [A-Za-z0-9._-], not %s",
                    id->type == GT_STRING ? quoted(id, shown, sizeof shown) : json_type_name(id));
            return false;
        }
        for (size_t j = 0; j < i; j++)
            if (strcmp(value->u.arr.items[j]->u.str.chars, id->u.str.chars) == 0) {
                problem(ctx, id, item, "rule id %s is named twice", quoted(id, shown, sizeof shown));
                return false;
            }
    }
    const rules_list *list = rules_for(ctx);
    if (list == NULL) {
        problem(ctx, value, pointer, "no %s in the case file's directory or above it: rule ids cannot be checked",
                GT_CORPUS_RULES_FILE);
        return false;
    }
    if (list->broken) {
        problem(ctx, value, pointer, "the rule list %s has problems: rule ids cannot be checked", list->path);
        return false;
    }
    for (size_t i = 0; i < value->u.arr.count; i++) {
        const gt_value *id = value->u.arr.items[i];
        const char *key = id->u.str.chars;
        if (bsearch(&key, list->ids, list->count, sizeof *list->ids, compare_strings) == NULL) {
            snprintf(item, sizeof item, "%s/%zu", pointer, i);
            problem(ctx, id, item, "unknown rule id %s (not in %s)", quoted(id, shown, sizeof shown), list->path);
            return false;
        }
    }
    return true;
}
/* `profiles` of a case or the defaults: a non-empty array of distinct known
 * profile names (docs/profiles.md). Returns false after reporting a problem. */
static bool check_profiles(file_ctx *ctx, const gt_value *value, const char *pointer)
{
    char item[600], shown[96];
    if (value->type != GT_ARRAY || value->u.arr.count == 0) {
        problem(ctx, value, pointer, "profiles must be a non-empty array of profile names (%s), not %s",
                GT_PROFILE_NAMES, value->type == GT_ARRAY ? "an empty array" : json_type_name(value));
        return false;
    }
    unsigned seen = 0;
    for (size_t i = 0; i < value->u.arr.count; i++) {
        const gt_value *name = value->u.arr.items[i];
        snprintf(item, sizeof item, "%s/%zu", pointer, i);
        int profile = name->type == GT_STRING ? gt_profile_from_name(name->u.str.chars, name->u.str.len) : -1;
        if (profile < 0) {
            problem(ctx, name, item, "unknown profile %s (known profiles: %s)",
                    name->type == GT_STRING ? quoted(name, shown, sizeof shown) : json_type_name(name),
                    GT_PROFILE_NAMES);
            return false;
        }
        if (seen & (1u << profile)) {
            problem(ctx, name, item, "profile %s is named twice", quoted(name, shown, sizeof shown));
            return false;
        }
        seen |= 1u << profile;
    }
    return true;
}

/* "owner/repo#N": owner and repo of [A-Za-z0-9._-], N a positive integer.
 * Returns the length of "owner/repo", or 0. */
static size_t thread_repo_len(const char *text, size_t len)
{
    size_t slash = 0, hash = 0;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (c == '/' && slash == 0 && hash == 0 && i > 0)
            slash = i;
        else if (c == '#' && slash != 0 && hash == 0 && i > slash + 1)
            hash = i;
        else if (hash != 0 ? !(c >= '0' && c <= '9')
                           : !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                               c == '.' || c == '_' || c == '-'))
            return 0;
    }
    if (hash == 0 || hash + 1 >= len || text[hash + 1] == '0' || len - hash > 12)
        return 0;
    return hash;
}

size_t gt_case_source_thread(const char *source, char *out, size_t out_len)
{
    const char *space = source ? strchr(source, ' ') : NULL;
    size_t len = space ? (size_t)(space - source) : 0;
    size_t repo = len ? thread_repo_len(source, len) : 0;
    if (out_len > 0)
        snprintf(out, out_len, "%.*s", repo ? (int)len : 0, source ? source : "");
    return repo;
}

/* Check one item of "source" (docs/corpus-format.md) at `pointer`: an object
 * with exactly one of "thread" (with its "url"), "spec" or "rule". Returns
 * false after reporting a problem. */
static bool check_source_item(file_ctx *ctx, const gt_value *item, const char *pointer)
{
    char shown[96], field[600];
    if (item->type != GT_OBJECT) {
        problem(ctx, item, pointer, "a source must be an object ({\"thread\", \"url\"}, {\"spec\"} or {\"rule\"}), not %s",
                json_type_name(item));
        return false;
    }
    const gt_value *thread = NULL, *url = NULL, *spec = NULL, *rule = NULL;
    for (size_t i = 0; i < item->u.obj.count; i++) {
        const gt_member *member = &item->u.obj.members[i];
        pointer_join(field, sizeof field, pointer, member->key, member->key_len);
        if (key_is(member, "thread"))
            thread = member->value;
        else if (key_is(member, "url"))
            url = member->value;
        else if (key_is(member, "spec"))
            spec = member->value;
        else if (key_is(member, "rule"))
            rule = member->value;
        else {
            problem(ctx, member->value, field, "unknown source member \"%.*s\" (known: thread, url, spec, rule)",
                    (int)(member->key_len > 40 ? 40 : member->key_len), member->key);
            return false;
        }
    }
    if ((thread != NULL) + (spec != NULL) + (rule != NULL) != 1) {
        problem(ctx, item, pointer, "a source names exactly one of thread, spec or rule");
        return false;
    }
    if (thread != NULL) {
        snprintf(field, sizeof field, "%s/thread", pointer);
        size_t repo = is_plain_string(thread) ? thread_repo_len(thread->u.str.chars, thread->u.str.len) : 0;
        if (repo == 0) {
            problem(ctx, thread, field, "thread must be \"owner/repo#N\", not %s",
                    thread->type == GT_STRING ? quoted(thread, shown, sizeof shown) : json_type_name(thread));
            return false;
        }
        snprintf(field, sizeof field, "%s/url", pointer);
        if (url == NULL) {
            problem(ctx, item, field, "a thread source needs its url");
            return false;
        }
        const char *number = thread->u.str.chars + repo + 1;
        size_t number_len = thread->u.str.len - repo - 1;
        char issues[400], pull[400];
        snprintf(issues, sizeof issues, "https://github.com/%.*s/issues/%.*s", (int)repo, thread->u.str.chars,
                 (int)number_len, number);
        snprintf(pull, sizeof pull, "https://github.com/%.*s/pull/%.*s", (int)repo, thread->u.str.chars,
                 (int)number_len, number);
        if (!is_plain_string(url) || (strcmp(url->u.str.chars, issues) != 0 && strcmp(url->u.str.chars, pull) != 0)) {
            problem(ctx, url, field, "url must be the thread's address (%s or .../pull/%.*s), not %s", issues,
                    (int)number_len, number, url->type == GT_STRING ? quoted(url, shown, sizeof shown) : json_type_name(url));
            return false;
        }
    } else if (url != NULL) {
        snprintf(field, sizeof field, "%s/url", pointer);
        problem(ctx, url, field, "url belongs to a thread source");
        return false;
    } else if (spec != NULL && (!is_plain_string(spec) || spec->u.str.len == 0 || spec->u.str.len > 200 ||
                                memchr(spec->u.str.chars, '\n', spec->u.str.len) != NULL)) {
        snprintf(field, sizeof field, "%s/spec", pointer);
        problem(ctx, spec, field, "spec must be a one-line string of 1 to 200 bytes, not %s",
                spec->type == GT_STRING ? quoted(spec, shown, sizeof shown) : json_type_name(spec));
        return false;
    } else if (rule != NULL && !is_rule_id(rule)) {
        snprintf(field, sizeof field, "%s/rule", pointer);
        problem(ctx, rule, field, "rule must be a rule id of [A-Za-z0-9._-], not %s",
                rule->type == GT_STRING ? quoted(rule, shown, sizeof shown) : json_type_name(rule));
        return false;
    }
    return true;
}

/* The normalized line of a checked source item (see gt_case.sources). */
static const char *source_line(gt_corpus *corpus, const gt_value *item)
{
    const gt_value *thread = member_value(item, "thread"), *spec = member_value(item, "spec");
    const gt_value *rule = member_value(item, "rule"), *url = member_value(item, "url");
    char line[700];
    if (thread != NULL)
        snprintf(line, sizeof line, "%s %s", thread->u.str.chars, url->u.str.chars);
    else if (spec != NULL)
        snprintf(line, sizeof line, "spec: %s", spec->u.str.chars);
    else
        snprintf(line, sizeof line, "rule: %s", rule->u.str.chars);
    return corpus_strdup(corpus, line, strlen(line));
}

/* Check one field that both a case and the defaults may carry. `pointer` is
 * the field's JSON Pointer. Returns false after reporting a problem. Fields
 * unknown here are accepted as they are (later layers own them). */
static bool check_shared_field(file_ctx *ctx, const gt_member *member, const char *pointer)
{
    const gt_value *value = member->value;
    char shown[96];
    if (key_is(member, "gate")) {
        if (!is_plain_string(value)) {
            problem(ctx, value, pointer, "gate must be a string, not %s", json_type_name(value));
            return false;
        }
        if (gt_gate_from_name(value->u.str.chars) < 0) {
            problem(ctx, value, pointer,
                    "unknown gate %s (known: syntax, structure, semantic, policy, stream, loop, wire)",
                    quoted(value, shown, sizeof shown));
            return false;
        }
    } else if (key_is(member, "category")) {
        if (!is_name(value)) {
            problem(ctx, value, pointer, "category must be a non-empty string of [a-z0-9._-], not %s",
                    value->type == GT_STRING ? quoted(value, shown, sizeof shown) : json_type_name(value));
            return false;
        }
    } else if (key_is(member, "tags")) {
        if (value->type != GT_ARRAY) {
            problem(ctx, value, pointer, "tags must be an array of strings, not %s", json_type_name(value));
            return false;
        }
        for (size_t i = 0; i < value->u.arr.count; i++) {
            const gt_value *tag = value->u.arr.items[i];
            if (!is_name(tag)) {
                char item[512];
                snprintf(item, sizeof item, "%s/%zu", pointer, i);
                problem(ctx, tag, item, "a tag must be a non-empty string of [a-z0-9._-], not %s",
                        tag->type == GT_STRING ? quoted(tag, shown, sizeof shown) : json_type_name(tag));
                return false;
            }
        }
    } else if (key_is(member, "source")) {
        if (value->type == GT_OBJECT)
            return check_source_item(ctx, value, pointer);
        if (value->type != GT_ARRAY || value->u.arr.count == 0) {
            problem(ctx, value, pointer, "source must be an object or a non-empty array of objects, not %s",
                    value->type == GT_ARRAY ? "an empty array" : json_type_name(value));
            return false;
        }
        for (size_t i = 0; i < value->u.arr.count; i++) {
            char item[512];
            snprintf(item, sizeof item, "%s/%zu", pointer, i);
            if (!check_source_item(ctx, value->u.arr.items[i], item))
                return false;
        }
    } else if (key_is(member, "description")) {
        if (!is_plain_string(value)) {
            problem(ctx, value, pointer, "description must be a string without U+0000, not %s",
                    json_type_name(value));
            return false;
        }
    } else if (key_is(member, "schema")) {
        if (value->type != GT_OBJECT && value->type != GT_TRUE && value->type != GT_FALSE) {
            problem(ctx, value, pointer, "schema must be an object or a boolean, not %s", json_type_name(value));
            return false;
        }
    } else if (key_is(member, "schema_file")) {
        char path[PATH_MAX];
        const char *why = NULL;
        if (!is_plain_string(value) || value->u.str.len == 0) {
            problem(ctx, value, pointer, "schema_file must be a non-empty string (a relative path)");
            return false;
        }
        if (!resolve_schema_file(ctx, value, path, sizeof path)) {
            problem(ctx, value, pointer, "schema_file must be relative to the case file's directory");
            return false;
        }
        if (load_schema_file(ctx, path, &why) == NULL) {
            problem(ctx, value, pointer, "%s", why ? why : "schema_file cannot be loaded");
            return false;
        }
    } else if (key_is(member, "formats") || key_is(member, "reject_nul")) {
        if (value->type != GT_TRUE && value->type != GT_FALSE) {
            problem(ctx, value, pointer, "%s must be true or false, not %s", member->key, json_type_name(value));
            return false;
        }
    } else if (key_is(member, "max_bytes")) {
        if (!gt_value_is_integer(value) || value->u.num.number < 1 || value->u.num.number > (double)CASE_FILE_MAX_BYTES) {
            problem(ctx, value, pointer, "max_bytes must be an integer from 1 to %u", CASE_FILE_MAX_BYTES);
            return false;
        }
    } else if (key_is(member, "tier")) {
        if (!is_plain_string(value) || gt_tier_from_name(value->u.str.chars) < 0) {
            problem(ctx, value, pointer, "tier must be \"required\" or \"optional\", not %s",
                    value->type == GT_STRING ? quoted(value, shown, sizeof shown) : json_type_name(value));
            return false;
        }
    } else if (key_is(member, "rules"))
        return check_rule_ids(ctx, value, pointer);
    else if (key_is(member, "profiles"))
        return check_profiles(ctx, value, pointer);
    return true;
}

/* The value of field `name` for a case: its own, else the defaults'. Sets
 * *pointer to where it came from. schema and schema_file count as one field:
 * a case that sets either ignores both defaults. */
static const gt_value *case_field(const gt_value *kase, const gt_value *defaults, const char *name,
                                  const char *case_pointer, char *pointer, size_t pointer_len)
{
    const gt_value *own = member_value(kase, name);
    if (own != NULL) {
        snprintf(pointer, pointer_len, "%s/%s", case_pointer, name);
        return own;
    }
    bool schema_group = strcmp(name, "schema") == 0 || strcmp(name, "schema_file") == 0;
    if (schema_group && (member_value(kase, "schema") || member_value(kase, "schema_file")))
        return NULL;
    const gt_value *inherited = member_value(defaults, name);
    if (inherited != NULL)
        snprintf(pointer, pointer_len, "/defaults/%s", name);
    return inherited;
}

/* Enter `id` into the corpus-wide id table. Returns 1, 0 when the id is
 * already there (*clash is its first definition), -1 when out of memory. */
static int id_register(gt_corpus *corpus, const char *id, const char *file, unsigned line, const id_entry **clash)
{
    if (corpus->id_count * 2 >= corpus->id_cap) {
        size_t new_cap = corpus->id_cap ? corpus->id_cap * 2 : 256;
        id_entry *table = calloc(new_cap, sizeof *table);
        if (table == NULL) {
            corpus->out_of_memory = true;
            return -1;
        }
        for (size_t i = 0; i < corpus->id_cap; i++) {
            if (corpus->ids[i].id == NULL)
                continue;
            uint64_t hash = 1469598103934665603u;
            for (const char *p = corpus->ids[i].id; *p; p++)
                hash = (hash ^ (unsigned char)*p) * 1099511628211u;
            size_t slot = (size_t)(hash & (new_cap - 1));
            while (table[slot].id != NULL)
                slot = (slot + 1) & (new_cap - 1);
            table[slot] = corpus->ids[i];
        }
        free(corpus->ids);
        corpus->ids = table;
        corpus->id_cap = new_cap;
    }
    uint64_t hash = 1469598103934665603u;
    for (const char *p = id; *p; p++)
        hash = (hash ^ (unsigned char)*p) * 1099511628211u;
    size_t slot = (size_t)(hash & (corpus->id_cap - 1));
    while (corpus->ids[slot].id != NULL) {
        if (strcmp(corpus->ids[slot].id, id) == 0) {
            *clash = &corpus->ids[slot];
            return 0;
        }
        slot = (slot + 1) & (corpus->id_cap - 1);
    }
    corpus->ids[slot] = (id_entry){id, file, line};
    corpus->id_count++;
    return 1;
}

static bool register_id(file_ctx *ctx, const char *id, unsigned line, const gt_value *where, const char *pointer)
{
    const id_entry *clash = NULL;
    int status = id_register(ctx->corpus, id, ctx->name, line, &clash);
    if (status == 0)
        problem(ctx, where, pointer, "duplicate id '%s': already defined at %s:%u", id, clash->file, clash->line);
    return status == 1;
}

/* A non-empty string, or a non-empty array of non-empty strings. */
static bool is_text_list(const gt_value *value)
{
    if (value->type == GT_STRING)
        return value->u.str.len > 0;
    if (value->type != GT_ARRAY || value->u.arr.count == 0)
        return false;
    for (size_t i = 0; i < value->u.arr.count; i++)
        if (value->u.arr.items[i]->type != GT_STRING || value->u.arr.items[i]->u.str.len == 0)
            return false;
    return true;
}

/* expect.output_at, output_contains, output_excludes and trace are
 * non-empty objects; the first three are keyed by JSON Pointers, the text
 * ones hold a string or an array of strings per place. Other members need
 * no check. Returns false after a problem. */
static bool check_expect_object(file_ctx *ctx, const gt_value *member, const char *case_pointer, const char *name)
{
    char pointer[512], field[800];
    bool texts = strcmp(name, "output_contains") == 0 || strcmp(name, "output_excludes") == 0;
    bool output_at = texts || strcmp(name, "output_at") == 0;
    snprintf(pointer, sizeof pointer, "%s/expect/%s", case_pointer, name);
    if (strcmp(name, "message_contains") == 0) {
        if (!is_text_list(member))
            problem(ctx, member, pointer, "expect.message_contains is a non-empty string or an array of them");
        return is_text_list(member);
    }
    if (!output_at && strcmp(name, "trace") != 0)
        return true;
    if (member->type != GT_OBJECT || member->u.obj.count == 0) {
        problem(ctx, member, pointer, "expect.%s must be a non-empty object (%s), not %s", name,
                output_at ? "JSON Pointer: value" : "trace field: value",
                member->type == GT_OBJECT ? "an empty object" : json_type_name(member));
        return false;
    }
    for (size_t i = 0; output_at && i < member->u.obj.count; i++) {
        const gt_member *place = &member->u.obj.members[i];
        if (!gt_pointer_valid(place->key)) {
            pointer_join(field, sizeof field, pointer, place->key, place->key_len);
            problem(ctx, place->value, field, "expect.%s keys are JSON Pointers (\"\" or \"/a/0\")", name);
            return false;
        }
        if (texts && !is_text_list(place->value)) {
            pointer_join(field, sizeof field, pointer, place->key, place->key_len);
            problem(ctx, place->value, field, "expect.%s values are a non-empty string or an array of them", name);
            return false;
        }
    }
    return true;
}

/* The layer-specific expectations: `subtype` and `accounting` (loop and
 * stream cases, seed 000), `output` (the exact produced JSON, wire cases),
 * `output_at` (values at JSON Pointers into the output: the seed's texts in
 * a loop envelope or a repair request) and `trace` (the trace record). */
static void load_expect_layers(file_ctx *ctx, const gt_value *value, const char *case_pointer, gt_expect *expect)
{
    static const char *const figures[] = {"attempts_used", "attempts_limit", "retracted",
                                           "enforce_messages", "api_attempts", "model_calls"};
    char pointer[512];
    gt_accounting_init(&expect->accounting);
    const gt_value *subtype = member_value(value, "subtype");
    if (subtype != NULL) {
        snprintf(pointer, sizeof pointer, "%s/expect/subtype", case_pointer);
        if (subtype->type != GT_STRING)
            problem(ctx, subtype, pointer, "expect.subtype must be a string, not %s", json_type_name(subtype));
        else
            expect->subtype = corpus_strdup(ctx->corpus, subtype->u.str.chars, subtype->u.str.len);
    }
    const gt_value *accounting = member_value(value, "accounting");
    if (accounting != NULL) {
        snprintf(pointer, sizeof pointer, "%s/expect/accounting", case_pointer);
        if (accounting->type != GT_OBJECT) {
            problem(ctx, accounting, pointer, "expect.accounting must be an object, not %s",
                    json_type_name(accounting));
            return;
        }
        expect->accounting_given = true;
        int *slots[] = {&expect->accounting.attempts_used,  &expect->accounting.attempts_limit,
                        &expect->accounting.retracted,      &expect->accounting.enforce_messages,
                        &expect->accounting.api_attempts,   &expect->accounting.model_calls};
        for (size_t i = 0; i < accounting->u.obj.count; i++) {
            const gt_member *member = &accounting->u.obj.members[i];
            size_t which = sizeof figures / sizeof figures[0];
            for (size_t f = 0; f < sizeof figures / sizeof figures[0]; f++)
                if (strcmp(member->key, figures[f]) == 0)
                    which = f;
            snprintf(pointer, sizeof pointer, "%s/expect/accounting/%s", case_pointer, member->key);
            if (which == sizeof figures / sizeof figures[0])
                problem(ctx, member->value, pointer,
                        "unknown accounting figure (attempts_used, attempts_limit, retracted, enforce_messages, "
                        "api_attempts, model_calls)");
            else if (!gt_value_is_integer(member->value) || member->value->u.num.number < 0 ||
                     member->value->u.num.number > 1e6)
                problem(ctx, member->value, pointer, "an accounting figure must be a non-negative integer");
            else
                *slots[which] = (int)member->value->u.num.number;
        }
    }
    const char *const json_members[] = {"output",          "structured_output", "output_at",       "trace",
                                        "output_contains", "output_excludes",   "message_contains"};
    const char **slots_json[] = {&expect->output_json,          &expect->structured_output_json,
                                 &expect->output_at_json,       &expect->trace_json,
                                 &expect->output_contains_json, &expect->output_excludes_json,
                                 &expect->message_contains_json};
    for (size_t i = 0; i < sizeof json_members / sizeof json_members[0]; i++) {
        const gt_value *member = member_value(value, json_members[i]);
        if (member == NULL || !check_expect_object(ctx, member, case_pointer, json_members[i]))
            continue;
        char *json = gt_value_to_json(member, NULL);
        if (json == NULL) {
            ctx->corpus->out_of_memory = true;
            return;
        }
        *slots_json[i] = corpus_strdup(ctx->corpus, json, strlen(json));
        free(json);
    }
}

/* Validate the expectation and fill `expect`. Returns false after problems. */
static bool load_expect(file_ctx *ctx, const gt_value *value, const char *case_pointer, gt_expect *expect)
{
    gt_corpus *corpus = ctx->corpus;
    char pointer[512], shown[96];
    size_t before = ctx->problems;
    snprintf(pointer, sizeof pointer, "%s/expect", case_pointer);
    if (value->type != GT_OBJECT) {
        problem(ctx, value, pointer, "expect must be an object, not %s", json_type_name(value));
        return false;
    }

    const gt_value *verdict = member_value(value, "verdict");
    const gt_value *gate = member_value(value, "gate");
    const gt_value *reason = member_value(value, "reason");
    const gt_value *errors = member_value(value, "errors");

    snprintf(pointer, sizeof pointer, "%s/expect/verdict", case_pointer);
    if (verdict == NULL)
        problem(ctx, value, pointer, "expect.verdict is missing (accept or reject)");
    else if (is_plain_string(verdict) && strcmp(verdict->u.str.chars, "accept") == 0)
        expect->verdict = GT_VERDICT_ACCEPT;
    else if (is_plain_string(verdict) && strcmp(verdict->u.str.chars, "reject") == 0)
        expect->verdict = GT_VERDICT_REJECT;
    else
        problem(ctx, verdict, pointer, "expect.verdict must be \"accept\" or \"reject\", not %s",
                verdict->type == GT_STRING ? quoted(verdict, shown, sizeof shown) : json_type_name(verdict));

    snprintf(pointer, sizeof pointer, "%s/expect/gate", case_pointer);
    if (gate != NULL) {
        if (!is_plain_string(gate) || gt_gate_from_name(gate->u.str.chars) < 0)
            problem(ctx, gate, pointer,
                    "expect.gate must be a gate name (syntax, structure, semantic, policy, stream, loop, wire), "
                    "not %s",
                    gate->type == GT_STRING ? quoted(gate, shown, sizeof shown) : json_type_name(gate));
        else if (expect->verdict == GT_VERDICT_ACCEPT)
            problem(ctx, gate, pointer, "expect.gate is only for reject (an accept passes every gate)");
        else
            expect->gate = corpus_strdup(corpus, gate->u.str.chars, gate->u.str.len);
    } else if (expect->verdict == GT_VERDICT_REJECT)
        problem(ctx, value, pointer, "expect.gate is required when the verdict is reject");

    const gt_value *message_texts = member_value(value, "message_contains");
    if (message_texts != NULL && expect->verdict == GT_VERDICT_ACCEPT) {
        snprintf(pointer, sizeof pointer, "%s/expect/message_contains", case_pointer);
        problem(ctx, message_texts, pointer, "expect.message_contains is only for reject (the rejection's message)");
    }
    const gt_value *message_present = member_value(value, "message_present");
    if (message_present != NULL) {
        snprintf(pointer, sizeof pointer, "%s/expect/message_present", case_pointer);
        if (message_present->type != GT_TRUE)
            problem(ctx, message_present, pointer,
                    "expect.message_present must be true (the rejection carries a non-empty message), not %s",
                    message_present->type == GT_FALSE ? "false" : json_type_name(message_present));
        else if (expect->verdict == GT_VERDICT_ACCEPT)
            problem(ctx, message_present, pointer,
                    "expect.message_present is only for reject (the rejection's message)");
        else
            expect->message_present = true;
    }
    snprintf(pointer, sizeof pointer, "%s/expect/reason", case_pointer);
    if (reason != NULL) {
        if (!is_reason_code(reason))
            problem(ctx, reason, pointer, "expect.reason must be a reason code ([A-Za-z0-9_$]+), not %s",
                    reason->type == GT_STRING ? quoted(reason, shown, sizeof shown) : json_type_name(reason));
        else if (expect->verdict == GT_VERDICT_ACCEPT)
            problem(ctx, reason, pointer, "expect.reason is only for reject");
        else if (expect->gate != NULL && strcmp(expect->gate, "syntax") == 0 &&
                 gt_syntax_reason_from_code(reason->u.str.chars) <= 0)
            problem(ctx, reason, pointer, "unknown syntax reason '%s' (docs/reason-codes.md lists them)",
                    reason->u.str.chars);
        else
            expect->reason = corpus_strdup(corpus, reason->u.str.chars, reason->u.str.len);
    } else if (expect->verdict == GT_VERDICT_REJECT)
        problem(ctx, value, pointer, "expect.reason is required when the verdict is reject");

    if (errors != NULL) {
        snprintf(pointer, sizeof pointer, "%s/expect/errors", case_pointer);
        if (errors->type != GT_ARRAY)
            problem(ctx, errors, pointer, "expect.errors must be an array of {path, keyword}, not %s",
                    json_type_name(errors));
        else {
            size_t count = errors->u.arr.count;
            gt_expected_error *list = gt_arena_alloc(corpus->arena, (count ? count : 1) * sizeof *list);
            if (list == NULL) {
                corpus->out_of_memory = true;
                return false;
            }
            for (size_t i = 0; i < count; i++) {
                const gt_value *item = errors->u.arr.items[i];
                const gt_value *path = member_value(item, "path");
                const gt_value *keyword = member_value(item, "keyword");
                snprintf(pointer, sizeof pointer, "%s/expect/errors/%zu", case_pointer, i);
                if (item->type != GT_OBJECT) {
                    problem(ctx, item, pointer, "an expected error must be an object {path, keyword}, not %s",
                            json_type_name(item));
                    continue;
                }
                snprintf(pointer, sizeof pointer, "%s/expect/errors/%zu/path", case_pointer, i);
                if (path == NULL || !is_plain_string(path) ||
                    (path->u.str.len > 0 && path->u.str.chars[0] != '/')) {
                    problem(ctx, path ? path : item, pointer,
                            "path must be a JSON Pointer string (\"\" or starting with \"/\")");
                    continue;
                }
                snprintf(pointer, sizeof pointer, "%s/expect/errors/%zu/keyword", case_pointer, i);
                if (keyword == NULL || !is_plain_string(keyword) || keyword->u.str.len == 0) {
                    problem(ctx, keyword ? keyword : item, pointer, "keyword must be a non-empty string");
                    continue;
                }
                list[i].path = corpus_strdup(corpus, path->u.str.chars, path->u.str.len);
                list[i].keyword = corpus_strdup(corpus, keyword->u.str.chars, keyword->u.str.len);
            }
            expect->errors = list;
            expect->error_count = count;
            expect->errors_given = true;
        }
    }

    load_expect_layers(ctx, value, case_pointer, expect);

    char *json = gt_value_to_json(value, NULL);
    if (json == NULL) {
        corpus->out_of_memory = true;
        return false;
    }
    expect->expect_json = corpus_strdup(corpus, json, strlen(json));
    free(json);
    return ctx->problems == before;
}

/* Compact JSON of the case object minus "expect", with defaults merged in. */
static const char *case_json_of(file_ctx *ctx, const gt_value *kase, const gt_value *defaults)
{
    gt_value *merged = gt_value_new_object(ctx->scratch);
    if (merged == NULL)
        return NULL;
    bool has_schema = member_value(kase, "schema") || member_value(kase, "schema_file");
    for (size_t i = 0; i < kase->u.obj.count; i++) {
        const gt_member *member = &kase->u.obj.members[i];
        if (key_is(member, "expect"))
            continue;
        if (gt_value_object_append(ctx->scratch, merged, member->key, member->key_len, member->value) != 0)
            return NULL;
    }
    for (size_t i = 0; defaults != NULL && i < defaults->u.obj.count; i++) {
        const gt_member *member = &defaults->u.obj.members[i];
        bool schema_member = key_is(member, "schema") || key_is(member, "schema_file");
        if ((schema_member && has_schema) || gt_value_get(kase, member->key, member->key_len) != NULL)
            continue;
        if (gt_value_object_append(ctx->scratch, merged, member->key, member->key_len, member->value) != 0)
            return NULL;
    }
    char *json = gt_value_to_json(merged, NULL);
    if (json == NULL)
        return NULL;
    const char *copy = corpus_strdup(ctx->corpus, json, strlen(json));
    free(json);
    return copy;
}

/* Copy the strings of `array` (tags, rules; NULL or not an array = none)
 * into the corpus; an item that fails `valid` (already reported) becomes "".
 * Returns false when out of memory. */
static bool copy_names(gt_corpus *corpus, const gt_value *array, bool (*valid)(const gt_value *),
                       const char *const **list_out, size_t *count_out)
{
    if (array == NULL || array->type != GT_ARRAY)
        return true;
    const char **list = gt_arena_alloc(corpus->arena, (array->u.arr.count + 1) * sizeof *list);
    if (list == NULL) {
        corpus->out_of_memory = true;
        return false;
    }
    for (size_t i = 0; i < array->u.arr.count; i++) {
        const gt_value *item = array->u.arr.items[i];
        list[i] = valid(item) ? corpus_strdup(corpus, item->u.str.chars, item->u.str.len) : "";
    }
    *list_out = list;
    *count_out = array->u.arr.count;
    return true;
}

/* Copy "source" (the case's, else the defaults'; checked already) into
 * `loaded` as normalized lines. Returns false when out of memory. */
static bool copy_sources(file_ctx *ctx, const gt_value *kase, const gt_value *defaults, const char *case_pointer,
                         gt_case *loaded)
{
    char pointer[512];
    const gt_value *source = case_field(kase, defaults, "source", case_pointer, pointer, sizeof pointer);
    if (source == NULL || ctx->problems > 0)
        return true;
    size_t count = source->type == GT_ARRAY ? source->u.arr.count : 1;
    const char **lines = gt_arena_alloc(ctx->corpus->arena, (count + 1) * sizeof *lines);
    for (size_t i = 0; lines != NULL && i < count; i++) {
        lines[i] = source_line(ctx->corpus, source->type == GT_ARRAY ? source->u.arr.items[i] : source);
        if (lines[i] == NULL)
            lines = NULL;
    }
    if (lines == NULL) {
        ctx->corpus->out_of_memory = true;
        return false;
    }
    loaded->sources = lines;
    loaded->source_count = count;
    return true;
}

/* Load case number `index`. A case with any problem is skipped whole. */
static void load_case(file_ctx *ctx, const gt_value *kase, const gt_value *defaults, size_t index)
{
    gt_corpus *corpus = ctx->corpus;
    char case_pointer[64], pointer[512], shown[96];
    snprintf(case_pointer, sizeof case_pointer, "/cases/%zu", index);
    ctx->problems = 0;
    if (kase->type != GT_OBJECT) {
        problem(ctx, kase, case_pointer, "a case must be an object, not %s", json_type_name(kase));
        return;
    }
    gt_case *loaded = gt_arena_alloc(corpus->arena, sizeof *loaded);
    if (loaded == NULL) {
        corpus->out_of_memory = true;
        return;
    }
    memset(loaded, 0, sizeof *loaded);
    loaded->file = ctx->name;
    loaded->line = line_of(ctx, kase->offset);

    /* Types of every known field the case sets itself. */
    for (size_t i = 0; i < kase->u.obj.count; i++) {
        const gt_member *member = &kase->u.obj.members[i];
        pointer_join(pointer, sizeof pointer, case_pointer, member->key, member->key_len);
        check_shared_field(ctx, member, pointer);
    }

    /* id: required, charset, unique across the corpus. */
    const gt_value *id = member_value(kase, "id");
    snprintf(pointer, sizeof pointer, "%s/id", case_pointer);
    if (id == NULL)
        problem(ctx, kase, pointer, "id is missing");
    else if (!is_name(id))
        problem(ctx, id, pointer, "id must be a non-empty string of [a-z0-9._-] (at most %u bytes), not %s",
                CASE_NAME_MAX, id->type == GT_STRING ? quoted(id, shown, sizeof shown) : json_type_name(id));
    else {
        loaded->input.id = corpus_strdup(corpus, id->u.str.chars, id->u.str.len);
        if (loaded->input.id != NULL)
            register_id(ctx, loaded->input.id, loaded->line, id, pointer);
    }

    /* gate and category: required, possibly from the defaults. */
    const gt_value *gate = case_field(kase, defaults, "gate", case_pointer, pointer, sizeof pointer);
    if (gate == NULL) {
        snprintf(pointer, sizeof pointer, "%s/gate", case_pointer);
        problem(ctx, kase, pointer, "gate is missing (in the case or in defaults)");
    } else if (is_plain_string(gate) && gt_gate_from_name(gate->u.str.chars) >= 0)
        loaded->input.gate = gt_gate_name((gt_gate)gt_gate_from_name(gate->u.str.chars));
    const gt_value *category = case_field(kase, defaults, "category", case_pointer, pointer, sizeof pointer);
    if (category == NULL) {
        snprintf(pointer, sizeof pointer, "%s/category", case_pointer);
        problem(ctx, kase, pointer, "category is missing (in the case or in defaults)");
    } else if (is_name(category))
        loaded->category = corpus_strdup(corpus, category->u.str.chars, category->u.str.len);

    const gt_value *tags = case_field(kase, defaults, "tags", case_pointer, pointer, sizeof pointer);
    if (!copy_names(corpus, tags, is_name, &loaded->tags, &loaded->tag_count))
        return;
    const gt_value *description = case_field(kase, defaults, "description", case_pointer, pointer, sizeof pointer);
    if (description != NULL && is_plain_string(description))
        loaded->description = corpus_strdup(corpus, description->u.str.chars, description->u.str.len);
    const gt_value *formats = case_field(kase, defaults, "formats", case_pointer, pointer, sizeof pointer);
    loaded->input.assert_formats = formats != NULL && formats->type == GT_TRUE;
    const gt_value *reject_nul = case_field(kase, defaults, "reject_nul", case_pointer, pointer, sizeof pointer);
    loaded->input.reject_nul = reject_nul != NULL && reject_nul->type == GT_TRUE;
    const gt_value *max_bytes = case_field(kase, defaults, "max_bytes", case_pointer, pointer, sizeof pointer);
    loaded->input.max_bytes = max_bytes != NULL && gt_value_is_integer(max_bytes) ? (size_t)max_bytes->u.num.number : 0;
    loaded->input.schemas_dir = ctx->folder ? ctx->folder->dir : NULL;
    loaded->input.schemas = ctx->folder ? ctx->folder->registry : NULL;
    const gt_value *tier = case_field(kase, defaults, "tier", case_pointer, pointer, sizeof pointer);
    if (tier != NULL && is_plain_string(tier) && gt_tier_from_name(tier->u.str.chars) >= 0)
        loaded->tier = (gt_tier)gt_tier_from_name(tier->u.str.chars);
    const gt_value *rules = case_field(kase, defaults, "rules", case_pointer, pointer, sizeof pointer);
    if (!copy_names(corpus, rules, is_rule_id, &loaded->rules, &loaded->rule_count))
        return;
    if (!copy_sources(ctx, kase, defaults, case_pointer, loaded))
        return;
    const gt_value *profiles = case_field(kase, defaults, "profiles", case_pointer, pointer, sizeof pointer);
    loaded->profiles_given = profiles != NULL && profiles->type == GT_ARRAY && profiles->u.arr.count > 0;
    for (size_t i = 0; loaded->profiles_given && i < profiles->u.arr.count; i++) {
        const gt_value *name = profiles->u.arr.items[i];
        int profile = name->type == GT_STRING ? gt_profile_from_name(name->u.str.chars, name->u.str.len) : -1;
        if (profile >= 0)
            loaded->profiles |= 1u << profile;
    }
    if (loaded->profiles == 0) {
        loaded->profiles_given = false;
        loaded->profiles = gt_profiles_default(loaded->input.gate, (int)loaded->tier, loaded->category,
                                               loaded->rules, loaded->rule_count);
    }

    /* The raw model output: input (a JSON string) or input_base64 (bytes). */
    const gt_value *input = member_value(kase, "input");
    const gt_value *input_base64 = member_value(kase, "input_base64");
    if (input != NULL && input_base64 != NULL) {
        snprintf(pointer, sizeof pointer, "%s/input_base64", case_pointer);
        problem(ctx, input_base64, pointer, "give either input or input_base64, not both");
    } else if (input != NULL) {
        snprintf(pointer, sizeof pointer, "%s/input", case_pointer);
        if (input->type != GT_STRING)
            problem(ctx, input, pointer, "input must be a string (the exact raw model output), not %s",
                    json_type_name(input));
        else {
            loaded->input.raw = (const unsigned char *)corpus_strdup(corpus, input->u.str.chars, input->u.str.len);
            loaded->input.raw_len = input->u.str.len;
        }
    } else if (input_base64 != NULL) {
        snprintf(pointer, sizeof pointer, "%s/input_base64", case_pointer);
        if (!is_plain_string(input_base64))
            problem(ctx, input_base64, pointer, "input_base64 must be a string, not %s",
                    json_type_name(input_base64));
        else {
            unsigned char *bytes = gt_arena_alloc(corpus->arena, input_base64->u.str.len / 4 * 3 + 1);
            size_t bad_at;
            long decoded = bytes ? gt_base64_decode_into(input_base64->u.str.chars, input_base64->u.str.len, bytes, &bad_at)
                                 : -1;
            if (bytes == NULL)
                corpus->out_of_memory = true;
            else if (decoded < 0 && bad_at == input_base64->u.str.len)
                problem(ctx, input_base64, pointer,
                        "input_base64 is not strict base64 (RFC 4648, '=' padded, no whitespace): length %zu is "
                        "not a multiple of 4",
                        bad_at);
            else if (decoded < 0)
                problem(ctx, input_base64, pointer,
                        "input_base64 is not strict base64 (RFC 4648, '=' padded, no whitespace): bad character "
                        "at index %zu",
                        bad_at);
            else {
                bytes[decoded] = '\0';
                loaded->input.raw = bytes;
                loaded->input.raw_len = (size_t)decoded;
            }
        }
    } else if (loaded->input.gate != NULL &&
               (strcmp(loaded->input.gate, "syntax") == 0 || strcmp(loaded->input.gate, "structure") == 0 ||
                strcmp(loaded->input.gate, "semantic") == 0 || strcmp(loaded->input.gate, "policy") == 0)) {
        snprintf(pointer, sizeof pointer, "%s/input", case_pointer);
        problem(ctx, kase, pointer, "input (or input_base64) is required for a %s case", loaded->input.gate);
    }

    /* The schema: inline, or a file relative to this file's directory. */
    const gt_value *schema = case_field(kase, defaults, "schema", case_pointer, pointer, sizeof pointer);
    const gt_value *schema_file = case_field(kase, defaults, "schema_file", case_pointer, pointer, sizeof pointer);
    if (member_value(kase, "schema") != NULL && member_value(kase, "schema_file") != NULL) {
        snprintf(pointer, sizeof pointer, "%s/schema_file", case_pointer);
        problem(ctx, member_value(kase, "schema_file"), pointer, "give either schema or schema_file, not both");
    } else if (schema != NULL && (schema->type == GT_OBJECT || schema->type == GT_TRUE || schema->type == GT_FALSE)) {
        char *json = gt_value_to_json(schema, NULL);
        char origin[PATH_MAX + 32];
        snprintf(origin, sizeof origin, "%s:%u", ctx->name, line_of(ctx, schema->offset));
        if (json == NULL)
            corpus->out_of_memory = true;
        else {
            loaded->input.schema_json = corpus_strdup(corpus, json, strlen(json));
            loaded->input.schema_origin = corpus_strdup(corpus, origin, strlen(origin));
            free(json);
        }
    } else if (schema_file != NULL && is_plain_string(schema_file) && schema_file->u.str.len > 0) {
        char path[PATH_MAX];
        const char *why = NULL;
        if (resolve_schema_file(ctx, schema_file, path, sizeof path)) {
            const char *json = load_schema_file(ctx, path, &why);
            if (json != NULL) {
                loaded->input.schema_json = json;
                loaded->input.schema_origin = corpus_strdup(corpus, path, strlen(path));
            }
        }
    }
    bool needs_schema = loaded->input.gate != NULL && strcmp(loaded->input.gate, "structure") == 0;

    /* The expectation. */
    const gt_value *expect = member_value(kase, "expect");
    snprintf(pointer, sizeof pointer, "%s/expect", case_pointer);
    if (expect == NULL)
        problem(ctx, kase, pointer, "expect is missing");
    else if (load_expect(ctx, expect, case_pointer, &loaded->expect) && loaded->expect.gate != NULL &&
             strcmp(loaded->expect.gate, "structure") == 0)
        needs_schema = true;
    if (needs_schema && loaded->input.schema_json == NULL && ctx->problems == 0) {
        snprintf(pointer, sizeof pointer, "%s/schema", case_pointer);
        problem(ctx, kase, pointer, "a structure case needs a schema (schema or schema_file, here or in defaults)");
    }

    if (ctx->problems > 0 || corpus->out_of_memory)
        return; /* skipped: its problems say why */
    loaded->input.case_json = case_json_of(ctx, kase, defaults);
    if (loaded->input.case_json == NULL) {
        corpus->out_of_memory = true;
        return;
    }
    if (!grow((void **)&corpus->cases, &corpus->cap, corpus->count + 1, sizeof *corpus->cases)) {
        corpus->out_of_memory = true;
        return;
    }
    corpus->cases[corpus->count++] = loaded;
}

/* Check the defaults block. Any problem in it breaks the whole file: every
 * case would inherit it. */
static bool check_defaults(file_ctx *ctx, const gt_value *defaults)
{
    if (defaults->type != GT_OBJECT) {
        problem(ctx, defaults, "/defaults", "defaults must be an object, not %s", json_type_name(defaults));
        return false;
    }
    bool good = true;
    char pointer[512];
    for (size_t i = 0; i < defaults->u.obj.count; i++) {
        const gt_member *member = &defaults->u.obj.members[i];
        pointer_join(pointer, sizeof pointer, "/defaults", member->key, member->key_len);
        for (size_t k = 0; k < sizeof per_case_only / sizeof per_case_only[0]; k++)
            if (key_is(member, per_case_only[k])) {
                problem(ctx, member->value, pointer, "%s cannot have a default: it belongs to one case",
                        per_case_only[k]);
                good = false;
            }
        if (!check_shared_field(ctx, member, pointer))
            good = false;
    }
    if (member_value(defaults, "schema") != NULL && member_value(defaults, "schema_file") != NULL) {
        problem(ctx, member_value(defaults, "schema_file"), "/defaults/schema_file",
                "give either schema or schema_file, not both");
        good = false;
    }
    return good;
}

static int load_parsed(file_ctx *ctx, const gt_value *root)
{
    size_t before = ctx->corpus->count;
    if (root->type != GT_OBJECT) {
        problem(ctx, root, "", "a case file must be a JSON object, not %s", json_type_name(root));
        return 0;
    }
    char pointer[512], shown[96];
    for (size_t i = 0; i < root->u.obj.count; i++) {
        const gt_member *member = &root->u.obj.members[i];
        bool known = false;
        for (size_t k = 0; k < sizeof top_level_fields / sizeof top_level_fields[0]; k++)
            known = known || key_is(member, top_level_fields[k]);
        if (!known) {
            pointer_join(pointer, sizeof pointer, "", member->key, member->key_len);
            problem(ctx, member->value, pointer,
                    "unknown top-level field (known: format, description, defaults, cases; case fields go "
                    "inside a case)");
        }
    }
    const gt_value *format = member_value(root, "format");
    if (format == NULL) {
        problem(ctx, root, "/format", "format is missing (expected \"%s\")", GT_CORPUS_FORMAT);
        return 0;
    }
    if (!is_plain_string(format) || strcmp(format->u.str.chars, GT_CORPUS_FORMAT) != 0) {
        problem(ctx, format, "/format", "unsupported format %s (expected \"%s\")",
                format->type == GT_STRING ? quoted(format, shown, sizeof shown) : json_type_name(format),
                GT_CORPUS_FORMAT);
        return 0;
    }
    const gt_value *description = member_value(root, "description");
    if (description != NULL && !is_plain_string(description))
        problem(ctx, description, "/description", "description must be a string, not %s",
                json_type_name(description));
    const gt_value *defaults = member_value(root, "defaults");
    if (defaults != NULL && !check_defaults(ctx, defaults))
        return 0;
    const gt_value *cases = member_value(root, "cases");
    if (cases == NULL) {
        problem(ctx, root, "/cases", "cases is missing (an array of case objects)");
        return 0;
    }
    if (cases->type != GT_ARRAY) {
        problem(ctx, cases, "/cases", "cases must be an array, not %s", json_type_name(cases));
        return 0;
    }
    for (size_t i = 0; i < cases->u.arr.count && !ctx->corpus->out_of_memory; i++)
        load_case(ctx, cases->u.arr.items[i], defaults, i);
    return (int)(ctx->corpus->count - before);
}

/* The corpus root's schemas/ folder (corpus_root_of: the directory holding
 * VERSION, else the directory being loaded), registered on first use.
 * `dir` is a case file's directory prefix ("" = the working directory). */
static const schemas_folder *schemas_folder_for(gt_corpus *corpus, const char *dir)
{
    char root[PATH_MAX], canonical[PATH_MAX];
    if (corpus->root != NULL)
        snprintf(root, sizeof root, "%s", corpus->root);
    else if (!corpus_root_of(dir[0] ? dir : ".", true, root))
        return NULL;
    char candidate[PATH_MAX + 16];
    struct stat info;
    snprintf(candidate, sizeof candidate, "%s/schemas", strcmp(root, "/") == 0 ? "" : root);
    if (stat(candidate, &info) != 0 || !S_ISDIR(info.st_mode) || realpath(candidate, canonical) == NULL)
        return NULL;
    for (schemas_folder *f = corpus->folders; f != NULL; f = f->next)
        if (strcmp(f->dir, canonical) == 0)
            return f;
    schemas_folder *folder = gt_arena_alloc(corpus->arena, sizeof *folder);
    if (folder == NULL || (folder->dir = corpus_strdup(corpus, canonical, strlen(canonical))) == NULL ||
        (folder->registry = gt_schema_registry_new()) == NULL) {
        corpus->out_of_memory = true;
        return NULL;
    }
    /* A file that cannot be registered is not a problem of the corpus as
     * such: a case whose schema needs it fails to compile, naming the URI,
     * and a schema_file case reports the broken file. */
    gt_schema_problem ignored;
    gt_schema_registry_add_dir(folder->registry, canonical, &ignored);
    folder->next = corpus->folders;
    corpus->folders = folder;
    return folder;
}

/* Set up line bookkeeping and options for `text` and parse it into
 * ctx->scratch. Returns the root, or NULL after a problem "not valid JSON"
 * (or when out of memory). Release with ctx_release. */
static const gt_value *ctx_parse(file_ctx *ctx, const char *text, size_t len)
{
    gt_corpus *corpus = ctx->corpus;
    ctx->text = text;
    ctx->len = len;
    gt_parse_options_init(&ctx->options);
    ctx->options.max_depth = CASE_FILE_MAX_DEPTH;
    ctx->options.max_bytes = CASE_FILE_MAX_BYTES;
    ctx->options.allow_big_integers = true; /* schemas keep their numbers exactly */
    size_t lines = 1;
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';
    ctx->line_starts = malloc(lines * sizeof *ctx->line_starts);
    ctx->scratch = gt_arena_new();
    if (ctx->line_starts == NULL || ctx->scratch == NULL) {
        corpus->out_of_memory = true;
        return NULL;
    }
    ctx->line_starts[ctx->line_count++] = 0;
    for (size_t i = 0; i < len; i++)
        if (text[i] == '\n')
            ctx->line_starts[ctx->line_count++] = i + 1;
    gt_parse_error error;
    const gt_value *root = gt_parse(ctx->scratch, text, len, &ctx->options, &error);
    if (root == NULL && error.reason == GT_SYNTAX_OUT_OF_MEMORY)
        corpus->out_of_memory = true;
    else if (root == NULL) {
        char message[1024];
        snprintf(message, sizeof message, "not valid JSON at column %u: %s (%s)", error.column, error.message,
                 gt_syntax_reason_code(error.reason));
        add_problem_at(corpus, ctx->name, error.line ? error.line : 1, "", message);
        ctx->problems++;
    }
    return root;
}

static void ctx_release(file_ctx *ctx)
{
    free(ctx->line_starts);
    gt_arena_free(ctx->scratch);
    ctx->line_starts = NULL;
    ctx->scratch = NULL;
}

void gt_corpus_add_problem(gt_corpus *corpus, const char *file, unsigned line, const char *field, const char *message)
{
    const char *copy = corpus_strdup(corpus, file, strlen(file));
    if (copy != NULL)
        add_problem_at(corpus, copy, line, field, message);
}

/* A copy of `text` in the corpus, NULL for NULL (out of memory is flagged). */
static const char *corpus_copy(gt_corpus *corpus, const char *text)
{
    return text != NULL ? corpus_strdup(corpus, text, strlen(text)) : NULL;
}

static const char *const *corpus_copy_list(gt_corpus *corpus, const char *const *list, size_t count)
{
    if (count == 0)
        return NULL;
    const char **copy = gt_arena_alloc(corpus->arena, count * sizeof *copy);
    if (copy == NULL) {
        corpus->out_of_memory = true;
        return NULL;
    }
    for (size_t i = 0; i < count; i++)
        copy[i] = corpus_copy(corpus, list[i]);
    return copy;
}

int gt_corpus_add_case(gt_corpus *corpus, const gt_case *kase)
{
    gt_case *added = gt_arena_alloc(corpus->arena, sizeof *added);
    if (added == NULL)
        return -1;
    *added = *kase;
    gt_case_input *in = &added->input;
    in->id = corpus_copy(corpus, kase->input.id);
    int gate = kase->input.gate != NULL ? gt_gate_from_name(kase->input.gate) : -1;
    in->gate = gate >= 0 ? gt_gate_name((gt_gate)gate) : NULL;
    if (kase->input.raw != NULL) {
        unsigned char *raw = gt_arena_alloc(corpus->arena, kase->input.raw_len + 1);
        if (raw != NULL) {
            memcpy(raw, kase->input.raw, kase->input.raw_len);
            raw[kase->input.raw_len] = '\0';
        }
        in->raw = raw;
    }
    in->schema_json = corpus_copy(corpus, kase->input.schema_json);
    in->schema_origin = corpus_copy(corpus, kase->input.schema_origin);
    in->case_json = corpus_copy(corpus, kase->input.case_json);
    in->schemas_dir = corpus_copy(corpus, kase->input.schemas_dir);
    in->remotes_dir = corpus_copy(corpus, kase->input.remotes_dir);
    gt_expect *ex = &added->expect;
    ex->gate = corpus_copy(corpus, kase->expect.gate);
    ex->reason = corpus_copy(corpus, kase->expect.reason);
    ex->expect_json = corpus_copy(corpus, kase->expect.expect_json);
    ex->subtype = corpus_copy(corpus, kase->expect.subtype);
    ex->output_json = corpus_copy(corpus, kase->expect.output_json);
    ex->structured_output_json = corpus_copy(corpus, kase->expect.structured_output_json);
    ex->output_at_json = corpus_copy(corpus, kase->expect.output_at_json);
    ex->trace_json = corpus_copy(corpus, kase->expect.trace_json);
    ex->output_contains_json = corpus_copy(corpus, kase->expect.output_contains_json);
    ex->output_excludes_json = corpus_copy(corpus, kase->expect.output_excludes_json);
    if (kase->expect.error_count > 0) {
        gt_expected_error *errors = gt_arena_alloc(corpus->arena, kase->expect.error_count * sizeof *errors);
        for (size_t i = 0; errors != NULL && i < kase->expect.error_count; i++) {
            errors[i].path = corpus_copy(corpus, kase->expect.errors[i].path);
            errors[i].keyword = corpus_copy(corpus, kase->expect.errors[i].keyword);
        }
        corpus->out_of_memory |= errors == NULL;
        ex->errors = errors;
    }
    added->category = corpus_copy(corpus, kase->category);
    added->description = corpus_copy(corpus, kase->description);
    added->tags = corpus_copy_list(corpus, kase->tags, kase->tag_count);
    added->rules = corpus_copy_list(corpus, kase->rules, kase->rule_count);
    added->sources = corpus_copy_list(corpus, kase->sources, kase->source_count);
    added->file = corpus_copy(corpus, kase->file);
    if (added->profiles == 0)
        added->profiles = gt_profiles_default(in->gate, (int)added->tier, added->category, added->rules,
                                              added->rule_count);
    if (corpus->out_of_memory || (kase->input.raw != NULL && in->raw == NULL))
        return -1;
    if (in->id == NULL || in->gate == NULL) {
        add_problem_at(corpus, added->file ? added->file : "", added->line, "",
                       in->id == NULL ? "a case needs an id" : "a case needs a known gate");
        return 0;
    }
    const id_entry *clash = NULL;
    int status = id_register(corpus, in->id, added->file, added->line, &clash);
    if (status == 0) {
        char message[1024];
        snprintf(message, sizeof message, "duplicate id '%s': already defined at %s:%u", in->id, clash->file,
                 clash->line);
        add_problem_at(corpus, added->file, added->line, "", message);
    }
    if (status != 1)
        return status;
    if (!grow((void **)&corpus->cases, &corpus->cap, corpus->count + 1, sizeof *corpus->cases))
        return -1;
    corpus->cases[corpus->count++] = added;
    return 1;
}

int gt_corpus_load_text(gt_corpus *corpus, const char *name, const char *text, size_t len)
{
    file_ctx ctx = {.corpus = corpus};
    ctx.name = corpus_strdup(corpus, name, strlen(name));
    const char *slash = strrchr(name, '/');
    ctx.dir_prefix = corpus_strdup(corpus, name, slash ? (size_t)(slash - name + 1) : 0);
    if (ctx.name == NULL || ctx.dir_prefix == NULL)
        return -1;
    ctx.folder = schemas_folder_for(corpus, ctx.dir_prefix);
    const gt_value *root = ctx_parse(&ctx, text, len);
    int added = root != NULL ? load_parsed(&ctx, root) : 0;
    ctx_release(&ctx);
    return corpus->out_of_memory ? -1 : added;
}

/* ---- files and directories --------------------------------------------- */

static bool already_loaded(gt_corpus *corpus, const char *path)
{
    char canonical[PATH_MAX];
    if (realpath(path, canonical) == NULL)
        return false;
    for (size_t i = 0; i < corpus->file_count; i++)
        if (strcmp(corpus->files[i], canonical) == 0)
            return true;
    const char *copy = corpus_strdup(corpus, canonical, strlen(canonical));
    if (copy != NULL && grow((void **)&corpus->files, &corpus->file_cap, corpus->file_count + 1, sizeof *corpus->files))
        corpus->files[corpus->file_count++] = copy;
    return false;
}

static int load_file(gt_corpus *corpus, const char *path)
{
    if (already_loaded(corpus, path))
        return 0;
    FILE *file = fopen(path, "rb");
    if (file == NULL) {
        char message[512];
        snprintf(message, sizeof message, "cannot open: %s", strerror(errno));
        add_problem_at(corpus, corpus_strdup(corpus, path, strlen(path)), 0, "", message);
        return corpus->out_of_memory ? -1 : 0;
    }
    char *text = NULL;
    size_t len = 0, cap = 0;
    bool too_big = false;
    for (;;) {
        if (len == cap) {
            if (cap >= CASE_FILE_MAX_BYTES) {
                too_big = true;
                break;
            }
            char *bigger = realloc(text, cap ? cap * 2 : 65536);
            if (bigger == NULL) {
                free(text);
                fclose(file);
                corpus->out_of_memory = true;
                return -1;
            }
            text = bigger;
            cap = cap ? cap * 2 : 65536;
        }
        size_t got = fread(text + len, 1, cap - len, file);
        len += got;
        if (got == 0)
            break;
    }
    int read_errno = ferror(file) ? errno : 0;
    fclose(file);
    int added = 0;
    if (read_errno != 0 || too_big) {
        char message[512];
        if (too_big)
            snprintf(message, sizeof message, "larger than %u bytes", CASE_FILE_MAX_BYTES);
        else
            snprintf(message, sizeof message, "cannot read: %s", strerror(read_errno));
        add_problem_at(corpus, corpus_strdup(corpus, path, strlen(path)), 0, "", message);
    } else
        added = gt_corpus_load_text(corpus, path, text ? text : "", len);
    free(text);
    return corpus->out_of_memory ? -1 : added;
}

static bool has_suffix(const char *name, const char *suffix)
{
    size_t name_len = strlen(name), suffix_len = strlen(suffix);
    return name_len > suffix_len && strcmp(name + name_len - suffix_len, suffix) == 0;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int load_directory(gt_corpus *corpus, const char *path, int depth)
{
    if (depth > CORPUS_MAX_DIR_DEPTH) {
        add_problem_at(corpus, corpus_strdup(corpus, path, strlen(path)), 0, "",
                       "directories nested too deeply (a symlink loop?); not loaded");
        return 0;
    }
    DIR *dir = opendir(path);
    if (dir == NULL) {
        char message[512];
        snprintf(message, sizeof message, "cannot open directory: %s", strerror(errno));
        add_problem_at(corpus, corpus_strdup(corpus, path, strlen(path)), 0, "", message);
        return 0;
    }
    char **names = NULL;
    size_t count = 0, cap = 0;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL) {
        if (entry->d_name[0] == '.')
            continue; /* ".", "..", and hidden files and directories */
        if (!grow((void **)&names, &cap, count + 1, sizeof *names) || (names[count] = strdup(entry->d_name)) == NULL) {
            corpus->out_of_memory = true;
            break;
        }
        count++;
    }
    closedir(dir);
    if (count > 1) /* an empty directory leaves `names` NULL, which qsort may not take */
        qsort(names, count, sizeof *names, compare_names);
    int added = 0;
    for (size_t i = 0; i < count; i++) {
        char child[PATH_MAX];
        size_t path_len = strlen(path);
        bool has_slash = path_len > 0 && path[path_len - 1] == '/';
        snprintf(child, sizeof child, "%s%s%s", path, has_slash ? "" : "/", names[i]);
        struct stat info;
        int got = 0;
        if (!corpus->out_of_memory && stat(child, &info) == 0) {
            if (S_ISDIR(info.st_mode))
                got = load_directory(corpus, child, depth + 1);
            else if (S_ISREG(info.st_mode) && has_suffix(names[i], ".cases.json"))
                got = load_file(corpus, child);
        }
        if (got > 0)
            added += got;
        free(names[i]);
    }
    free(names);
    return corpus->out_of_memory ? -1 : added;
}

int gt_corpus_load(gt_corpus *corpus, const char *path)
{
    struct stat info;
    if (stat(path, &info) != 0) {
        char message[512];
        snprintf(message, sizeof message, "cannot open: %s", strerror(errno));
        add_problem_at(corpus, corpus_strdup(corpus, path, strlen(path)), 0, "", message);
        return corpus->out_of_memory ? -1 : 0;
    }
    if (!S_ISDIR(info.st_mode) && !S_ISREG(info.st_mode)) { /* a FIFO or a device: refused, never waited on */
        add_problem_at(corpus, corpus_strdup(corpus, path, strlen(path)), 0, "", "is not a regular file or a folder");
        return corpus->out_of_memory ? -1 : 0;
    }
    char root[PATH_MAX];
    const char *outer = corpus->root;
    if (outer == NULL && corpus_root_of(path, S_ISDIR(info.st_mode), root))
        corpus->root = root; /* schema_file may not leave it */
    int added = S_ISDIR(info.st_mode) ? load_directory(corpus, path, 0)
                                      : load_file(corpus, path); /* a file named explicitly loads whatever its name */
    corpus->root = outer;
    return added;
}

int gt_corpus_load_rules(gt_corpus *corpus, const char *path)
{
    struct stat info;
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    if (stat(path, &info) == 0 && !S_ISDIR(info.st_mode)) {
        char *slash = strrchr(dir, '/');
        if (slash == NULL)
            snprintf(dir, sizeof dir, ".");
        else
            slash[slash == dir ? 1 : 0] = '\0';
    }
    const rules_list *list = nearest_rules(corpus, dir);
    if (corpus->out_of_memory)
        return -1;
    return list != NULL;
}

size_t gt_corpus_rule_count(const gt_corpus *corpus)
{
    return corpus->rule_count;
}

const gt_rule *gt_corpus_rule(const gt_corpus *corpus, size_t index)
{
    return index < corpus->rule_count ? &corpus->rules[index] : NULL;
}

/* ---- the corpus --------------------------------------------------------- */

const char *gt_tier_name(gt_tier tier)
{
    return tier == GT_TIER_OPTIONAL ? "optional" : "required";
}

int gt_tier_from_name(const char *name)
{
    if (strcmp(name, "required") == 0)
        return GT_TIER_REQUIRED;
    if (strcmp(name, "optional") == 0)
        return GT_TIER_OPTIONAL;
    return -1;
}

gt_corpus *gt_corpus_new(void)
{
    gt_corpus *corpus = calloc(1, sizeof *corpus);
    if (corpus == NULL)
        return NULL;
    corpus->arena = gt_arena_new();
    if (corpus->arena == NULL) {
        free(corpus);
        return NULL;
    }
    return corpus;
}

void gt_corpus_free(gt_corpus *corpus)
{
    if (corpus == NULL)
        return;
    free(corpus->cases);
    free(corpus->problems);
    free(corpus->ids);
    free(corpus->files);
    free(corpus->rules);
    for (schemas_folder *f = corpus->folders; f != NULL; f = f->next)
        gt_schema_registry_free(f->registry);
    gt_arena_free(corpus->arena);
    free(corpus);
}

size_t gt_corpus_count(const gt_corpus *corpus)
{
    return corpus->count;
}

const gt_case *gt_corpus_case(const gt_corpus *corpus, size_t index)
{
    return index < corpus->count ? corpus->cases[index] : NULL;
}

size_t gt_corpus_problem_count(const gt_corpus *corpus)
{
    return corpus->problem_count;
}

const gt_load_problem *gt_corpus_problem(const gt_corpus *corpus, size_t index)
{
    return index < corpus->problem_count ? &corpus->problems[index] : NULL;
}

bool gt_case_has_tag(const gt_case *kase, const char *tag)
{
    for (size_t i = 0; i < kase->tag_count; i++)
        if (strcmp(kase->tags[i], tag) == 0)
            return true;
    return false;
}

size_t gt_corpus_filter(gt_corpus *corpus, const char *gate, const char *tag, const char *id_glob)
{
    size_t kept = 0;
    for (size_t i = 0; i < corpus->count; i++) {
        gt_case *kase = corpus->cases[i];
        bool keep = (gate == NULL || strcmp(kase->input.gate, gate) == 0) && (tag == NULL || gt_case_has_tag(kase, tag)) &&
                    (id_glob == NULL || fnmatch(id_glob, kase->input.id, 0) == 0);
        if (keep)
            corpus->cases[kept++] = kase;
    }
    corpus->count = kept;
    return kept;
}

/* Keep shard `index` (1-based) of `count`: the cases whose position in the
 * current selection is index-1 modulo count (round-robin, so every gate is
 * spread over every shard). Declared in corpus_shard.h. */
size_t gt_corpus_shard(gt_corpus *corpus, unsigned index, unsigned count)
{
    size_t kept = 0;
    if (count == 0 || index == 0 || index > count)
        return corpus->count;
    for (size_t i = 0; i < corpus->count; i++)
        if (i % count == index - 1)
            corpus->cases[kept++] = corpus->cases[i];
    corpus->count = kept;
    return kept;
}
