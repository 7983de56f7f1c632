/* schema_registry.c — schema documents registered ahead of compilation, so
 * that `$ref` can name other documents (`https://json.schemastore.org/x.json`)
 * without the network.
 *
 * A registry maps absolute URIs (no fragment) to JSON text. A document is
 * registered under its `$id` (draft 4: `id`), resolved against the URI it was
 * read from, and under that URI too (a file's `file://` URI), so that both
 * `{"$ref": "https://example.com/a.json"}` and a relative `{"$ref": "a.json"}`
 * beside the file find it. Immutable once built: compilations on several
 * threads may share one. Not for: fetching anything (nothing is ever fetched). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gauntlet/parse.h"
#include "gauntlet/util.h"
#include "schema_impl.h"

typedef struct registry_entry {
    char *uri;
    char *text; /* shared by the entries of one document: owned by its first entry */
    size_t len;
    bool owns_text;
    char *origin; /* where it came from, for messages */
} registry_entry;

struct gt_schema_registry {
    registry_entry *entries;
    size_t count, cap;
};

gt_schema_registry *gt_schema_registry_new(void)
{
    return calloc(1, sizeof(gt_schema_registry));
}

void gt_schema_registry_free(gt_schema_registry *registry)
{
    if (registry == NULL)
        return;
    for (size_t i = 0; i < registry->count; i++) {
        free(registry->entries[i].uri);
        free(registry->entries[i].origin);
        if (registry->entries[i].owns_text)
            free(registry->entries[i].text);
    }
    free(registry->entries);
    free(registry);
}

size_t gt_schema_registry_count(const gt_schema_registry *registry)
{
    return registry ? registry->count : 0;
}

const char *gt_schema_registry_uri(const gt_schema_registry *registry, size_t index)
{
    return registry && index < registry->count ? registry->entries[index].uri : NULL;
}

const char *sc_registry_find(const gt_schema_registry *registry, const char *uri, size_t *len)
{
    for (size_t i = 0; registry != NULL && i < registry->count; i++)
        if (strcmp(registry->entries[i].uri, uri) == 0) {
            *len = registry->entries[i].len;
            return registry->entries[i].text;
        }
    return NULL;
}

/* Fill `problem` (a registration problem is reported as schema_unresolved_ref:
 * the references that needed the document would not resolve). Returns -1. */
static int registry_fail(gt_schema_problem *problem, const char *location, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int registry_fail(gt_schema_problem *problem, const char *location, const char *fmt, ...)
{
    if (problem != NULL) {
        problem->code = GT_SCHEMA_PROBLEM_UNRESOLVED_REF;
        snprintf(problem->location, sizeof problem->location, "%s", location);
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(problem->message, sizeof problem->message, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Add (uri -> text). The same URI twice is fine for the same text; a second,
 * different document claiming it is a problem. 1 added, 0 already there, -1. */
static int entry_add(gt_schema_registry *r, const char *uri, char *text, size_t len, bool owns, const char *origin,
                     gt_schema_problem *problem)
{
    for (size_t i = 0; i < r->count; i++) {
        registry_entry *e = &r->entries[i];
        if (strcmp(e->uri, uri) != 0)
            continue;
        if (e->len == len && memcmp(e->text, text, len) == 0)
            return 0;
        return registry_fail(problem, origin, "%s is already registered by %s", uri, e->origin);
    }
    if (r->count == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 16;
        registry_entry *grown = realloc(r->entries, cap * sizeof *grown);
        if (grown == NULL)
            return registry_fail(problem, origin, "out of memory");
        r->entries = grown, r->cap = cap;
    }
    registry_entry *e = &r->entries[r->count];
    e->uri = strdup(uri);
    e->origin = strdup(origin);
    if (e->uri == NULL || e->origin == NULL) {
        free(e->uri), free(e->origin);
        return registry_fail(problem, origin, "out of memory");
    }
    e->text = text, e->len = len, e->owns_text = owns;
    r->count++;
    return 1;
}

/* The document's own `$id`, or draft 4 `id` when its `$schema` is draft 4 or absent. */
static const char *document_id(const gt_value *root)
{
    if (root->type != GT_OBJECT)
        return NULL;
    const gt_value *id = gt_value_get(root, "$id", 3);
    if (id != NULL && id->type == GT_STRING)
        return id->u.str.chars;
    const gt_value *decl = gt_value_get(root, "$schema", 7);
    bool draft4 =
        decl == NULL || (decl->type == GT_STRING && gt_schema_dialect_from_name(decl->u.str.chars) == GT_SCHEMA_DRAFT4);
    id = gt_value_get(root, "id", 2);
    return draft4 && id != NULL && id->type == GT_STRING ? id->u.str.chars : NULL;
}

int gt_schema_registry_add(gt_schema_registry *registry, const char *json, size_t len, const char *retrieval_uri,
                           const char *origin, gt_schema_problem *problem)
{
    if (problem != NULL)
        memset(problem, 0, sizeof *problem);
    const char *where = origin ? origin : retrieval_uri ? retrieval_uri : "schema";
    gt_arena *arena = gt_arena_new();
    if (arena == NULL)
        return registry_fail(problem, where, "out of memory");
    gt_parse_options po;
    gt_parse_options_init(&po);
    po.allow_big_integers = true;
    po.max_depth = GT_SCHEMA_MAX_DEPTH;
    po.max_bytes = 256u * 1024u * 1024u;
    gt_parse_error perr;
    const gt_value *root = gt_parse(arena, json, len, &po, &perr);
    int rc = 0;
    char *uris[2] = {NULL, NULL};
    const char *id = root ? document_id(root) : NULL;
    if (root == NULL) {
        char detail[200];
        snprintf(detail, sizeof detail, "%s at %u:%u", gt_syntax_reason_code(perr.reason), perr.line, perr.column);
        rc = registry_fail(problem, where, "%s is not JSON: %s", where, detail);
        if (problem != NULL)
            problem->code = GT_SCHEMA_PROBLEM_SYNTAX;
    } else if (id == NULL && retrieval_uri == NULL) {
        rc = registry_fail(problem, where, "%s has no $id and no URI to register it under", where);
    } else {
        const char *base = retrieval_uri ? retrieval_uri : id;
        char *frag;
        if (id != NULL) {
            char *abs = sc_uri_resolve(arena, base, id);
            uris[0] = abs ? sc_uri_split(arena, abs, &frag) : NULL;
        }
        if (retrieval_uri != NULL)
            uris[1] = sc_uri_split(arena, retrieval_uri, &frag);
    }
    char *text = NULL;
    bool owned = false;
    for (int i = 0; i < 2 && rc == 0; i++) {
        if (uris[i] == NULL || (i == 1 && uris[0] != NULL && strcmp(uris[0], uris[1]) == 0))
            continue;
        if (text == NULL && (text = malloc(len + 1)) != NULL) {
            memcpy(text, json, len);
            text[len] = '\0';
        }
        if (text == NULL) {
            rc = registry_fail(problem, where, "out of memory");
            break;
        }
        int added = entry_add(registry, uris[i], text, len, !owned, where, problem);
        if (added < 0)
            rc = -1;
        owned |= added == 1;
    }
    if (!owned)
        free(text);
    gt_arena_free(arena);
    return rc;
}

/* file:// URI of an absolute path, percent-encoding what a URI path cannot hold. */
static void file_uri(const char *path, char *out, size_t size)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t o = (size_t)snprintf(out, size, "file://");
    for (const unsigned char *p = (const unsigned char *)path; *p && o + 4 < size; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || strchr("/-._~", *p))
            out[o++] = (char)*p;
        else
            out[o++] = '%', out[o++] = hex[*p >> 4], out[o++] = hex[*p & 15];
    }
    out[o] = '\0';
}

int gt_schema_file_uri(const char *path, char *out, size_t size)
{
    char absolute[PATH_MAX];
    if (realpath(path, absolute) == NULL)
        return -1;
    file_uri(absolute, out, size);
    return 0;
}

int gt_schema_registry_add_file(gt_schema_registry *registry, const char *path, gt_schema_problem *problem)
{
    char uri[3 * PATH_MAX + 16];
    if (gt_schema_file_uri(path, uri, sizeof uri) != 0)
        return registry_fail(problem, path, "cannot read %s: %s", path, strerror(errno));
    /* read whole up to GT_READ_FILE_MAX_BYTES (checked before and while
     * reading); a FIFO or a device is refused, never waited on */
    char why[sizeof problem->message];
    size_t len = 0;
    char *text = gt_read_file(path, &len, why, sizeof why);
    if (text == NULL)
        return registry_fail(problem, path, "cannot read %s", why);
    int rc = gt_schema_registry_add(registry, text, len, uri, path, problem);
    free(text);
    return rc;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool ends_with_json(const char *name)
{
    size_t n = strlen(name);
    return n > 5 && strcmp(name + n - 5, ".json") == 0;
}

int gt_schema_registry_add_dir(gt_schema_registry *registry, const char *dir, gt_schema_problem *problem)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return registry_fail(problem, dir, "cannot read directory %s: %s", dir, strerror(errno));
    char **names = NULL;
    size_t count = 0, cap = 0;
    int rc = 0;
    for (struct dirent *entry; (entry = readdir(d)) != NULL && rc == 0;) {
        if (entry->d_name[0] == '.')
            continue;
        if (count == cap) {
            char **grown = realloc(names, (cap = cap ? cap * 2 : 32) * sizeof *grown);
            if (grown == NULL) {
                rc = registry_fail(problem, dir, "out of memory");
                break;
            }
            names = grown;
        }
        if ((names[count] = strdup(entry->d_name)) == NULL)
            rc = registry_fail(problem, dir, "out of memory");
        else
            count++;
    }
    closedir(d);
    if (count > 0)
        qsort(names, count, sizeof *names, compare_names);
    gt_schema_problem later; /* problems after the first are not reported */
    for (size_t i = 0; i < count; i++) {
        char path[PATH_MAX];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (stat(path, &st) != 0)
            continue;
        gt_schema_problem *slot = rc == 0 ? problem : &later;
        int got = 0;
        if (S_ISDIR(st.st_mode))
            got = gt_schema_registry_add_dir(registry, path, slot);
        else if (S_ISREG(st.st_mode) && ends_with_json(names[i]))
            got = gt_schema_registry_add_file(registry, path, slot);
        if (got != 0)
            rc = -1;
    }
    for (size_t i = 0; i < count; i++)
        free(names[i]);
    free(names);
    return rc;
}
