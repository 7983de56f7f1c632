/* jsts.c — JSON-Schema-Test-Suite folders: the walk `gauntlet jsts` and
 * `gauntlet run --jsts` share, and the conversion of every test into a
 * structure case (docs/jsts.md).
 *
 * A converted case is what a corpus case would be: the test's `data` as the
 * raw model output (its exact JSON text), the group's `schema` (with the
 * folder's `$schema` added when the root names none, so that any target
 * validates it in the folder's dialect), `expect` accept or reject at the
 * structure gate (the suite names no keyword, so none is asserted), and the
 * suite's remotes/ folder for http://localhost:1234/ references. */
#include "jsts.h"

#include <dirent.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gauntlet/util.h"
#include "gauntlet/arena.h"
#include "gauntlet/parse.h"
#include "gauntlet/schema.h"

/* Longest case id the corpus takes (runner/corpus.c CASE_NAME_MAX). */
#define JSTS_ID_MAX 200u

static int dialect_of_path(const char *path)
{
    static const char *const names[] = {"draft2020-12", "draft2019-09", "draft7", "draft6", "draft4"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *at = strstr(path, names[i]);
        while (at != NULL) {
            char after = at[strlen(names[i])];
            if ((at == path || at[-1] == '/') && (after == '\0' || after == '/' || after == '.'))
                return gt_schema_dialect_from_name(names[i]);
            at = strstr(at + 1, names[i]);
        }
    }
    return -1;
}

/* <suite>/tests/<draft>[/...] -> <suite>/remotes, when that directory exists. */
static char *default_remotes(const char *dir)
{
    const char *tests = strstr(dir, "tests/");
    while (tests != NULL && tests != dir && tests[-1] != '/')
        tests = strstr(tests + 1, "tests/");
    if (tests == NULL)
        return NULL;
    size_t prefix = (size_t)(tests - dir);
    char *remotes = malloc(prefix + 8);
    if (remotes == NULL)
        return NULL;
    memcpy(remotes, dir, prefix);
    strcpy(remotes + prefix, "remotes");
    struct stat st;
    if (stat(remotes, &st) != 0 || !S_ISDIR(st.st_mode)) {
        free(remotes);
        return NULL;
    }
    return remotes;
}

static int compare_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Sorted *.json files directly in `dir` (malloc'd array of malloc'd paths). */
static char **list_json(const char *dir, size_t *count)
{
    *count = 0;
    DIR *d = opendir(dir);
    if (d == NULL)
        return NULL;
    size_t cap = 16;
    char **paths = malloc(cap * sizeof *paths);
    struct dirent *entry;
    while (paths != NULL && (entry = readdir(d)) != NULL) {
        size_t n = strlen(entry->d_name);
        if (n < 6 || strcmp(entry->d_name + n - 5, ".json") != 0)
            continue;
        if (*count == cap) {
            char **grown = realloc(paths, 2 * cap * sizeof *paths);
            if (grown == NULL)
                break;
            paths = grown, cap *= 2;
        }
        char *path = malloc(strlen(dir) + n + 2);
        if (path == NULL)
            break;
        sprintf(path, "%s/%s", dir, entry->d_name);
        paths[(*count)++] = path;
    }
    closedir(d);
    if (paths != NULL)
        qsort(paths, *count, sizeof *paths, compare_names);
    return paths;
}

/* Does `path` have the component `name` (between slashes or at an end)? */
static bool has_component(const char *path, const char *name)
{
    size_t n = strlen(name);
    for (const char *at = strstr(path, name); at != NULL; at = strstr(at + 1, name))
        if ((at == path || at[-1] == '/') && (at[n] == '\0' || at[n] == '/'))
            return true;
    return false;
}

static bool is_directory(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static gt_jsts_part part_of_path(const char *path)
{
    if (has_component(path, "optional"))
        return strstr(path, "optional/format") != NULL ? GT_JSTS_FORMAT : GT_JSTS_OPTIONAL;
    return GT_JSTS_REQUIRED;
}

unsigned gt_jsts_line(const gt_jsts_file *file, size_t offset)
{
    unsigned line = 1;
    for (size_t i = 0; i < offset && i < file->len; i++)
        line += file->text[i] == '\n';
    return line;
}

static int walk_file(const char *prog, const char *path, gt_jsts_file *file, gt_jsts_visit visit, void *user)
{
    char err[512];
    size_t len;
    char *text = gt_read_file(path, &len, err, sizeof err);
    if (text == NULL) {
        fprintf(stderr, "%s: %s\n", prog, err);
        return -1;
    }
    gt_arena *arena = gt_arena_new();
    gt_parse_options po;
    gt_parse_options_init(&po);
    po.allow_big_integers = true;
    po.max_depth = 100000;
    po.max_bytes = 256u * 1024u * 1024u;
    gt_parse_error perr;
    gt_value *root = arena ? gt_parse(arena, text, len, &po, &perr) : NULL;
    int rc = 0;
    if (root == NULL || root->type != GT_ARRAY) {
        fprintf(stderr, "%s: %s: not a test file (%s)\n", prog, path,
                root ? "not an array" : arena ? gt_syntax_reason_code(perr.reason) : "out of memory");
        rc = -1;
    } else {
        file->path = path;
        file->text = text;
        file->len = len;
        file->root = root;
        file->part = part_of_path(path);
        rc = visit(user, file);
    }
    free(text);
    gt_arena_free(arena);
    return rc;
}

static int walk_files_in(const char *prog, const char *dir, gt_jsts_file *file, gt_jsts_visit visit, void *user)
{
    size_t count;
    char **paths = list_json(dir, &count);
    if (paths == NULL) {
        fprintf(stderr, "%s: cannot read directory %s\n", prog, dir);
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < count; i++) {
        if (walk_file(prog, paths[i], file, visit, user) != 0)
            rc = -1;
        free(paths[i]);
    }
    free(paths);
    return rc;
}

int gt_jsts_walk(const char *prog, const char *dir, const gt_jsts_walk_options *options, gt_jsts_visit visit,
                 void *user)
{
    gt_jsts_file file = {.dialect = dialect_of_path(dir)};
    if (file.dialect < 0) {
        fprintf(stderr,
                "%s: cannot tell the dialect of '%s' (expected draft4, draft6, draft7, draft2019-09 or draft2020-12 "
                "in the path)\n",
                prog, dir);
        return -1;
    }
    struct stat st;
    if (stat(dir, &st) != 0) {
        fprintf(stderr, "%s: %s: no such file or directory (a JSON-Schema-Test-Suite tests/<draft> folder)\n", prog,
                dir);
        return -1;
    }
    char *remotes = options->remotes ? NULL : default_remotes(dir);
    file.remotes = options->remotes ? options->remotes : remotes;
    int rc;
    if (S_ISREG(st.st_mode))
        rc = walk_file(prog, dir, &file, visit, user);
    else {
        rc = walk_files_in(prog, dir, &file, visit, user);
        /* DIR may be tests/<draft>, its optional/ or optional/format/: walk
         * only the folders below DIR, and only those the suite has */
        gt_jsts_part part = part_of_path(dir);
        char sub[4096];
        if (rc == 0 && options->optional && part == GT_JSTS_REQUIRED) {
            snprintf(sub, sizeof sub, "%s/optional", dir);
            if (is_directory(sub))
                rc = walk_files_in(prog, sub, &file, visit, user);
        }
        if (rc == 0 && options->format && part != GT_JSTS_FORMAT) {
            snprintf(sub, sizeof sub, part == GT_JSTS_OPTIONAL ? "%s/format" : "%s/optional/format", dir);
            if (is_directory(sub))
                rc = walk_files_in(prog, sub, &file, visit, user);
        }
    }
    free(remotes);
    return rc;
}

/* ---- tests as structure cases ------------------------------------------ */

typedef struct case_builder {
    gt_corpus *corpus;
    const char *prog;
    bool formats;
    long added;
    char **ids;       /* the ids given in the current file (slug collisions) */
    size_t id_count, id_cap;
} case_builder;

/* Append `text` to `out` (of `cap` bytes, at `*len`) as a slug: lower-case
 * letters and digits, every other run of bytes one '-', none at either end. */
static void put_slug(char *out, size_t cap, size_t *len, const char *text)
{
    size_t start = *len;
    bool dash = false;
    for (const unsigned char *p = (const unsigned char *)text; *p && *len + 2 < cap; p++) {
        unsigned char c = *p >= 'A' && *p <= 'Z' ? (unsigned char)(*p - 'A' + 'a') : *p;
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
            if (dash && *len > start)
                out[(*len)++] = '-';
            out[(*len)++] = (char)c;
            dash = false;
        } else
            dash = true;
    }
    if (*len == start && *len + 2 < cap)
        out[(*len)++] = 'x'; /* nothing left to name it by */
    out[*len] = '\0';
}

static uint32_t fnv1a(const char *text)
{
    uint32_t hash = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        hash = (hash ^ *p) * 16777619u;
    return hash;
}

/* jsts.<dialect>.[optional.[format.]]<file>.<group>.<test>: slugged, cut to
 * fit with a hash of the whole when long, and numbered -2, -3... when two
 * tests of a file slug alike. Returns false when out of memory. */
static bool make_id(case_builder *b, const gt_jsts_file *file, const char *group, const char *test, char *id,
                    size_t cap)
{
    char full[4096];
    size_t len = 0;
    const char *name = strrchr(file->path, '/');
    name = name ? name + 1 : file->path;
    char stem[256];
    snprintf(stem, sizeof stem, "%.*s", (int)(strlen(name) > 5 ? strlen(name) - 5 : strlen(name)), name);
    len = (size_t)snprintf(full, sizeof full, "jsts.%s.%s", gt_schema_dialect_name((gt_schema_dialect)file->dialect),
                           file->part == GT_JSTS_FORMAT     ? "optional.format."
                           : file->part == GT_JSTS_OPTIONAL ? "optional."
                                                            : "");
    put_slug(full, sizeof full, &len, stem);
    full[len++] = '.';
    put_slug(full, sizeof full, &len, group);
    full[len++] = '.';
    put_slug(full, sizeof full, &len, test);
    size_t room = cap - 12; /* leaves space for a -N suffix */
    if (len > room) {
        char whole[4096 + 512];
        snprintf(whole, sizeof whole, "%s|%s|%s", file->path, group, test);
        snprintf(full + room - 9, sizeof full - (room - 9), "-%08x", (unsigned)fnv1a(whole));
    }
    len = strlen(full); /* at most `room` */
    memcpy(id, full, len + 1);
    for (unsigned n = 2;; n++) {
        bool taken = false;
        for (size_t i = 0; i < b->id_count && !taken; i++)
            taken = strcmp(b->ids[i], id) == 0;
        if (!taken)
            break;
        snprintf(id + len, cap - len, "-%u", n);
    }
    if (b->id_count == b->id_cap) {
        size_t new_cap = b->id_cap ? 2 * b->id_cap : 64;
        char **grown = realloc(b->ids, new_cap * sizeof *grown);
        if (grown == NULL)
            return false;
        b->ids = grown, b->id_cap = new_cap;
    }
    return (b->ids[b->id_count++] = strdup(id)) != NULL;
}

static const char *text_of(const gt_value *object, const char *key)
{
    const gt_value *v = gt_value_get(object, key, strlen(key));
    return v != NULL && v->type == GT_STRING ? v->u.str.chars : "";
}

/* The group's schema as JSON, with the folder's `$schema` first when an
 * object root names none. Malloc'd, NULL when out of memory. */
static char *schema_in_dialect(gt_arena *arena, const gt_value *schema, int dialect)
{
    if (schema->type != GT_OBJECT || gt_value_get(schema, "$schema", 7) != NULL)
        return gt_value_to_json(schema, NULL);
    gt_value_builder b = {arena, false};
    gt_value *with = gt_build(&b, gt_value_new_object(arena));
    const char *uri = gt_schema_dialect_uri((gt_schema_dialect)dialect);
    gt_build_put_string(&b, with, "$schema", uri, strlen(uri));
    for (size_t i = 0; !b.failed && i < schema->u.obj.count; i++)
        gt_build_put(&b, with, schema->u.obj.members[i].key, schema->u.obj.members[i].value);
    return b.failed ? NULL : gt_value_to_json(with, NULL);
}

static void test_problem(case_builder *b, const gt_jsts_file *file, const gt_value *where, const char *field,
                         const char *message)
{
    gt_corpus_add_problem(b->corpus, file->path, gt_jsts_line(file, where->offset), field, message);
}

/* One test as a case. Returns false when out of memory. */
static bool add_test(case_builder *b, const gt_jsts_file *file, const gt_value *group, size_t g, const gt_value *test,
                     size_t t, const char *schema_json, const char *remotes, gt_arena *arena)
{
    char field[96], id[JSTS_ID_MAX + 1];
    snprintf(field, sizeof field, "/%zu/tests/%zu", g, t);
    const gt_value *data = gt_value_get(test, "data", 4);
    const gt_value *valid = gt_value_get(test, "valid", 5);
    if (test->type != GT_OBJECT || data == NULL || valid == NULL || (valid->type != GT_TRUE && valid->type != GT_FALSE)) {
        test_problem(b, file, test, field, "a test needs \"data\" and a boolean \"valid\"");
        return true;
    }
    const char *group_text = text_of(group, "description"), *test_text = text_of(test, "description");
    if (!make_id(b, file, group_text, test_text, id, sizeof id))
        return false;
    bool accept = valid->type == GT_TRUE;
    size_t raw_len;
    char *raw = gt_value_to_json(data, &raw_len);
    char *description = malloc(strlen(group_text) + strlen(test_text) + 4);
    char origin[PATH_MAX + 32];
    snprintf(origin, sizeof origin, "%s:%u", file->path, gt_jsts_line(file, gt_value_get(group, "schema", 6)->offset));
    const char *category = "jsts";
    const char *tags[3] = {"jsts", gt_schema_dialect_name((gt_schema_dialect)file->dialect),
                           file->part == GT_JSTS_FORMAT ? "format" : "optional"};
    size_t tag_count = file->part == GT_JSTS_REQUIRED ? 2 : 3;
    gt_tier tier = file->part == GT_JSTS_REQUIRED ? GT_TIER_REQUIRED : GT_TIER_OPTIONAL;
    if (description != NULL)
        sprintf(description, "%s | %s", group_text, test_text);

    /* What an adapter is sent as `case`: the case minus its expectation. */
    gt_value_builder vb = {arena, false};
    gt_value *kase = gt_build(&vb, gt_value_new_object(arena));
    gt_build_put_string(&vb, kase, "id", id, strlen(id));
    gt_build_put_string(&vb, kase, "gate", "structure", 9);
    gt_build_put_string(&vb, kase, "category", category, strlen(category));
    gt_value *tag_array = gt_build(&vb, gt_value_new_array(arena));
    for (size_t i = 0; i < tag_count && !vb.failed; i++)
        vb.failed = gt_value_array_append(arena, tag_array, gt_value_new_string(arena, tags[i], strlen(tags[i]))) != 0;
    gt_build_put(&vb, kase, "tags", tag_array);
    gt_build_put_string(&vb, kase, "tier", gt_tier_name(tier), strlen(gt_tier_name(tier)));
    if (description != NULL)
        gt_build_put_string(&vb, kase, "description", description, strlen(description));
    if (raw != NULL)
        gt_build_put_string(&vb, kase, "input", raw, raw_len);
    gt_build_put(&vb, kase, "schema", (gt_value *)gt_value_get(group, "schema", 6));
    if (file->part == GT_JSTS_FORMAT)
        gt_build_put_bool(&vb, kase, "formats", true);
    char *case_json = vb.failed ? NULL : gt_value_to_json(kase, NULL);

    gt_case c = {
        .input = {.id = id, .gate = "structure", .raw = (const unsigned char *)raw, .raw_len = raw_len,
                  .schema_json = schema_json, .schema_origin = origin, .case_json = case_json,
                  .assert_formats = file->part == GT_JSTS_FORMAT, .remotes_dir = remotes},
        .expect = {.verdict = accept ? GT_VERDICT_ACCEPT : GT_VERDICT_REJECT, .gate = accept ? NULL : "structure",
                   .expect_json = accept ? "{\"verdict\":\"accept\"}" : "{\"verdict\":\"reject\",\"gate\":\"structure\"}"},
        .category = category,
        .description = description,
        .tags = tags,
        .tag_count = tag_count,
        .file = file->path,
        .line = gt_jsts_line(file, test->offset),
        .tier = tier,
    };
    gt_accounting_init(&c.expect.accounting);
    int status = raw != NULL && description != NULL && case_json != NULL ? gt_corpus_add_case(b->corpus, &c) : -1;
    free(raw);
    free(description);
    free(case_json);
    b->added += status == 1;
    return status >= 0;
}

static int add_file(void *user, const gt_jsts_file *file)
{
    case_builder *b = user;
    if (file->part == GT_JSTS_FORMAT && !b->formats)
        return 0;
    for (size_t i = 0; i < b->id_count; i++)
        free(b->ids[i]);
    b->id_count = 0;
    char remotes[PATH_MAX];
    const char *remotes_dir = file->remotes != NULL && realpath(file->remotes, remotes) != NULL ? remotes : NULL;
    for (size_t g = 0; g < file->root->u.arr.count; g++) {
        const gt_value *group = file->root->u.arr.items[g];
        const gt_value *schema = gt_value_get(group, "schema", 6);
        const gt_value *tests = gt_value_get(group, "tests", 5);
        char field[64];
        snprintf(field, sizeof field, "/%zu", g);
        if (group->type != GT_OBJECT || schema == NULL || tests == NULL || tests->type != GT_ARRAY) {
            test_problem(b, file, group, field, "a group needs \"schema\" and an array \"tests\"");
            continue;
        }
        gt_arena *arena = gt_arena_new();
        char *schema_json = arena ? schema_in_dialect(arena, schema, file->dialect) : NULL;
        bool ok = schema_json != NULL;
        for (size_t t = 0; ok && t < tests->u.arr.count; t++)
            ok = add_test(b, file, group, g, tests->u.arr.items[t], t, schema_json, remotes_dir, arena);
        free(schema_json);
        gt_arena_free(arena);
        if (!ok) {
            fprintf(stderr, "%s: out of memory reading %s\n", b->prog, file->path);
            return -1;
        }
    }
    return 0;
}

long gt_jsts_load_cases(gt_corpus *corpus, const char *prog, const char *dir, bool formats)
{
    case_builder b = {.corpus = corpus, .prog = prog, .formats = formats};
    gt_jsts_walk_options options = {.optional = true, .format = formats};
    int rc = gt_jsts_walk(prog, dir, &options, add_file, &b);
    for (size_t i = 0; i < b.id_count; i++)
        free(b.ids[i]);
    free(b.ids);
    return rc != 0 ? -1 : b.added;
}
