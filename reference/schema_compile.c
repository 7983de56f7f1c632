/* schema_compile.c — from schema text to an immutable sc_node graph.
 *
 * Steps: parse, size guards, dialect (`$schema`), metaschema check, then index
 * every schema resource (`$id`, `$anchor`, `$dynamicAnchor`) of the document
 * and of whatever it references (embedded metaschemas, the local remotes
 * directory: never the network), compile nodes from a worklist (no recursion
 * on reference chains), and flag reference cycles that make no progress (the
 * evaluator reports one when an instance reaches it).
 * Not for: validating instances (schema_validate.c). */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gauntlet/parse.h"
#include "schema_impl.h"

#define DEFAULT_BASE "https://gauntlet.invalid/schema.json"
#define DEFAULT_REMOTES_BASE "http://localhost:1234/"

/* Compilation (and the metaschema check, which recurses as deep as the schema
 * nests) runs on its own thread with this much stack, so that a schema at the
 * depth guard cannot overflow the caller's stack. */
#define COMPILE_STACK (256u * 1024u * 1024u)
#define COMPILE_STACK_MARGIN (8u * 1024u * 1024u)

static const char *const problem_codes[GT_SCHEMA_PROBLEM_COUNT] = {
    [GT_SCHEMA_PROBLEM_NONE] = "ok",
    [GT_SCHEMA_PROBLEM_SYNTAX] = "schema_syntax",
    [GT_SCHEMA_PROBLEM_NOT_OBJECT] = "schema_not_object",
    [GT_SCHEMA_PROBLEM_TOO_MANY_NODES] = "schema_too_many_nodes",
    [GT_SCHEMA_PROBLEM_TOO_DEEP] = "schema_too_deep",
    [GT_SCHEMA_PROBLEM_UNKNOWN_DIALECT] = "schema_unknown_dialect",
    [GT_SCHEMA_PROBLEM_INVALID] = "schema_invalid",
    [GT_SCHEMA_PROBLEM_BAD_PATTERN] = "schema_bad_pattern",
    [GT_SCHEMA_PROBLEM_UNRESOLVED_REF] = "schema_unresolved_ref",
    [GT_SCHEMA_PROBLEM_REF_CYCLE] = "schema_ref_cycle",
    [GT_SCHEMA_PROBLEM_OUT_OF_MEMORY] = "schema_out_of_memory",
    [GT_SCHEMA_PROBLEM_INTERNAL] = "schema_internal",
};

typedef struct dialect_entry {
    const char *name;
    const char *uri; /* without the empty fragment */
    const char *file;
} dialect_entry;

static const dialect_entry dialects[GT_SCHEMA_DIALECT_COUNT] = {
    [GT_SCHEMA_DRAFT2020_12] = {"draft2020-12", "https://json-schema.org/draft/2020-12/schema", "draft2020-12.json"},
    [GT_SCHEMA_DRAFT2019_09] = {"draft2019-09", "https://json-schema.org/draft/2019-09/schema", "draft2019-09.json"},
    [GT_SCHEMA_DRAFT7] = {"draft7", "http://json-schema.org/draft-07/schema", "draft7.json"},
    [GT_SCHEMA_DRAFT6] = {"draft6", "http://json-schema.org/draft-06/schema", "draft6.json"},
    [GT_SCHEMA_DRAFT4] = {"draft4", "http://json-schema.org/draft-04/schema", "draft4.json"},
};

const char *gt_schema_problem_code_str(gt_schema_problem_code code)
{
    return code >= 0 && code < GT_SCHEMA_PROBLEM_COUNT ? problem_codes[code] : "unknown";
}

const char *gt_schema_dialect_name(gt_schema_dialect dialect)
{
    return dialect >= 0 && dialect < GT_SCHEMA_DIALECT_COUNT ? dialects[dialect].name : "unknown";
}

const char *gt_schema_dialect_uri(gt_schema_dialect dialect)
{
    return dialect >= 0 && dialect < GT_SCHEMA_DIALECT_COUNT ? dialects[dialect].uri : "";
}

int gt_schema_dialect_from_name(const char *name)
{
    size_t n = strlen(name);
    while (n > 0 && name[n - 1] == '#')
        n--;
    for (int d = 0; d < GT_SCHEMA_DIALECT_COUNT; d++) {
        if ((strlen(dialects[d].name) == n && strncmp(dialects[d].name, name, n) == 0) ||
            (strlen(dialects[d].uri) == n && strncmp(dialects[d].uri, name, n) == 0))
            return d;
    }
    return -1;
}

void gt_schema_options_init(gt_schema_options *options)
{
    memset(options, 0, sizeof *options);
    options->default_dialect = GT_SCHEMA_DRAFT2020_12;
}

gt_schema_dialect gt_schema_dialect_of(const gt_schema *schema) { return schema->dialect; }

void sc_fail(gt_schema *s, gt_schema_problem_code code, const char *location, const char *fmt, ...)
{
    if (s->failed)
        return;
    s->failed = true;
    gt_schema_problem *p = s->problem;
    p->code = code;
    snprintf(p->location, sizeof p->location, "%s", location ? location : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->message, sizeof p->message, fmt, ap);
    va_end(ap);
}

void *sc_alloc(gt_schema *s, size_t size)
{
    void *p = gt_arena_alloc(s->arena, size ? size : 1);
    if (p == NULL)
        sc_fail(s, GT_SCHEMA_PROBLEM_OUT_OF_MEMORY, "", "out of memory");
    else
        memset(p, 0, size);
    return p;
}

char *sc_strdup(gt_schema *s, const char *text)
{
    char *copy = gt_arena_strndup(s->arena, text, strlen(text));
    if (copy == NULL)
        sc_fail(s, GT_SCHEMA_PROBLEM_OUT_OF_MEMORY, "", "out of memory");
    return copy;
}

/* ---- per-value information: open-addressing table keyed by pointer ---- */

static size_t ptr_hash(const void *p)
{
    uintptr_t x = (uintptr_t)p;
    x ^= x >> 17;
    x *= 0xed5ad4bbu;
    x ^= x >> 11;
    return (size_t)x;
}

static sc_info *info_find(const gt_schema *s, const gt_value *v)
{
    if (s->infos_cap == 0)
        return NULL;
    for (size_t i = ptr_hash(v) & (s->infos_cap - 1);; i = (i + 1) & (s->infos_cap - 1)) {
        if (s->infos[i].value == v)
            return &s->infos[i];
        if (s->infos[i].value == NULL)
            return NULL;
    }
}

static bool info_grow(gt_schema *s)
{
    size_t cap = s->infos_cap ? s->infos_cap * 2 : 256;
    sc_info *table = calloc(cap, sizeof *table);
    if (table == NULL)
        return false;
    for (size_t k = 0; k < s->infos_cap; k++) {
        if (s->infos[k].value == NULL)
            continue;
        size_t i = ptr_hash(s->infos[k].value) & (cap - 1);
        while (table[i].value != NULL)
            i = (i + 1) & (cap - 1);
        table[i] = s->infos[k];
    }
    free(s->infos);
    s->infos = table;
    s->infos_cap = cap;
    return true;
}

/* The info of `v`, created (and filled from the arguments) when new. */
static sc_info *info_add(gt_schema *s, const gt_value *v, sc_resource *res, const char *location,
                         gt_schema_dialect dialect, uint32_t vocab)
{
    sc_info *found = info_find(s, v);
    if (found != NULL) {
        if (res != NULL && found->resource != res && found->value == res->root)
            found->resource = res;
        return found;
    }
    if ((s->infos_count + 1) * 2 > s->infos_cap && !info_grow(s)) {
        sc_fail(s, GT_SCHEMA_PROBLEM_OUT_OF_MEMORY, "", "out of memory");
        return NULL;
    }
    size_t i = ptr_hash(v) & (s->infos_cap - 1);
    while (s->infos[i].value != NULL)
        i = (i + 1) & (s->infos_cap - 1);
    s->infos[i] = (sc_info){v, res, location, dialect, vocab, NULL};
    s->infos_count++;
    return &s->infos[i];
}

/* ---- resources ---- */

static sc_resource *resource_find(const gt_schema *s, const char *uri)
{
    for (size_t i = s->nresources; i-- > 0;)
        if (strcmp(s->resources[i]->uri, uri) == 0)
            return s->resources[i];
    return NULL;
}

static sc_resource *resource_add(gt_schema *s, const char *uri, const gt_value *root, gt_schema_dialect dialect,
                                 uint32_t vocab)
{
    sc_resource *existing = resource_find(s, uri);
    if (existing != NULL)
        return existing;
    if (s->nresources == s->resources_cap) {
        size_t cap = s->resources_cap ? s->resources_cap * 2 : 16;
        sc_resource **grown = realloc(s->resources, cap * sizeof *grown);
        if (grown == NULL) {
            sc_fail(s, GT_SCHEMA_PROBLEM_OUT_OF_MEMORY, "", "out of memory");
            return NULL;
        }
        s->resources = grown, s->resources_cap = cap;
    }
    sc_resource *res = sc_alloc(s, sizeof *res);
    if (res == NULL || (res->uri = sc_strdup(s, uri)) == NULL)
        return NULL;
    res->root = root, res->dialect = dialect, res->vocab = vocab;
    s->resources[s->nresources++] = res;
    return res;
}

static void anchor_add(gt_schema *s, sc_resource *res, const char *name, const gt_value *v, bool dynamic)
{
    for (size_t i = 0; i < res->nanchors; i++)
        if (strcmp(res->anchors[i].name, name) == 0) {
            res->anchors[i].dynamic |= dynamic;
            return;
        }
    if (res->nanchors == res->anchors_cap) {
        size_t cap = res->anchors_cap ? res->anchors_cap * 2 : 4;
        sc_anchor *grown = sc_alloc(s, cap * sizeof *grown);
        if (grown == NULL)
            return;
        if (res->nanchors)
            memcpy(grown, res->anchors, res->nanchors * sizeof *grown);
        res->anchors = grown, res->anchors_cap = cap;
    }
    res->anchors[res->nanchors++] = (sc_anchor){sc_strdup(s, name), v, NULL, dynamic};
}

const sc_anchor *sc_anchor_find(const sc_resource *res, const char *name)
{
    for (size_t i = 0; i < res->nanchors; i++)
        if (strcmp(res->anchors[i].name, name) == 0)
            return &res->anchors[i];
    return NULL;
}

/* ---- documents: parse, size guards, dialect ---- */

static gt_value *parse_document(gt_schema *s, const char *text, size_t len, const char *what)
{
    gt_parse_options po;
    gt_parse_options_init(&po);
    po.allow_big_integers = true;
    po.max_depth = GT_SCHEMA_PARSE_MAX_DEPTH;
    po.max_bytes = GT_SCHEMA_PARSE_MAX_BYTES;
    gt_parse_error err;
    gt_value *root = gt_parse(s->arena, text, len, &po, &err);
    if (root == NULL) {
        if (err.reason == GT_SYNTAX_TOO_DEEP)
            sc_fail(s, GT_SCHEMA_PROBLEM_TOO_DEEP, "", "%s nests deeper than %zu levels", what,
                        s->options.max_depth);
        else
            sc_fail(s, GT_SCHEMA_PROBLEM_SYNTAX, "", "%s is not JSON: %s at %u:%u: %s", what,
                        gt_syntax_reason_code(err.reason), err.line, err.column, err.message);
    }
    return root;
}

/* Count values and measure depth without recursion; stop early past a limit. */
static void size_guard(gt_schema *s, const gt_value *root)
{
    typedef struct frame {
        const gt_value *v;
        size_t next;
    } frame;
    size_t cap = 64, depth = 0, nodes = 1;
    frame *stack = malloc(cap * sizeof *stack);
    if (stack == NULL) {
        sc_fail(s, GT_SCHEMA_PROBLEM_OUT_OF_MEMORY, "", "out of memory");
        return;
    }
    stack[0] = (frame){root, 0};
    while (!s->failed) {
        frame *top = &stack[depth];
        const gt_value *v = top->v;
        size_t count = v->type == GT_ARRAY ? v->u.arr.count : v->type == GT_OBJECT ? v->u.obj.count : 0;
        if (top->next >= count) {
            if (depth == 0)
                break;
            depth--;
            continue;
        }
        const gt_value *child =
            v->type == GT_ARRAY ? v->u.arr.items[top->next] : v->u.obj.members[top->next].value;
        top->next++;
        if (++nodes > s->options.max_nodes) {
            sc_fail(s, GT_SCHEMA_PROBLEM_TOO_MANY_NODES, "", "schema has more than %zu nodes", s->options.max_nodes);
            break;
        }
        if (child->type != GT_ARRAY && child->type != GT_OBJECT)
            continue;
        if (depth + 1 >= s->options.max_depth) {
            sc_fail(s, GT_SCHEMA_PROBLEM_TOO_DEEP, "", "schema nests deeper than %zu levels", s->options.max_depth);
            break;
        }
        if (depth + 2 > cap) {
            cap *= 2;
            frame *grown = realloc(stack, cap * sizeof *stack);
            if (grown == NULL) {
                sc_fail(s, GT_SCHEMA_PROBLEM_OUT_OF_MEMORY, "", "out of memory");
                break;
            }
            stack = grown;
        }
        stack[++depth] = (frame){child, 0};
    }
    free(stack);
}

static const sc_embedded *embedded_named(const char *name)
{
    for (size_t i = 0; i < sc_embedded_metaschema_count; i++)
        if (strcmp(sc_embedded_metaschemas[i].name, name) == 0)
            return &sc_embedded_metaschemas[i];
    return NULL;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf != NULL) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap)
            break;
        cap *= 2;
        char *grown = realloc(buf, cap);
        if (grown == NULL)
            free(buf);
        buf = grown;
    }
    fclose(f);
    *len = n;
    return buf;
}

static void index_schema(gt_schema *s, const gt_value *v, sc_resource *res, const char *location,
                         gt_schema_dialect dialect, uint32_t vocab);
static int detect_dialect(gt_schema *s, const gt_value *root, gt_schema_dialect inherit, gt_schema_dialect *dialect,
                          uint32_t *vocab, int nesting);

/* Register a parsed document under `uri` and index it. */
static sc_resource *add_document(gt_schema *s, const char *uri, const gt_value *root, gt_schema_dialect inherit,
                                 int nesting)
{
    gt_schema_dialect dialect;
    uint32_t vocab;
    if (detect_dialect(s, root, inherit, &dialect, &vocab, nesting) != 0)
        return NULL;
    sc_resource *res = resource_add(s, uri, root, dialect, vocab);
    if (res == NULL)
        return NULL;
    char location[1024];
    snprintf(location, sizeof location, "%s#", uri);
    index_schema(s, root, res, sc_strdup(s, location), dialect, vocab);
    return s->failed ? NULL : res;
}

/* The 2019-09 / 2020-12 vocabulary metaschemas all live in vocabularies.json. */
static void load_vocabularies(gt_schema *s, int nesting)
{
    if (resource_find(s, "https://json-schema.org/draft/2020-12/meta/core") != NULL)
        return;
    const sc_embedded *e = embedded_named("vocabularies.json");
    if (e == NULL)
        return;
    gt_value *all = parse_document(s, e->text, e->len, "vocabularies.json");
    if (all == NULL || all->type != GT_OBJECT)
        return;
    for (size_t i = 0; i < all->u.obj.count && !s->failed; i++)
        if (strstr(all->u.obj.members[i].key, "hyper-schema") == NULL) /* no hyper-schema support */
            add_document(s, all->u.obj.members[i].key, all->u.obj.members[i].value, GT_SCHEMA_DRAFT2020_12, nesting);
}

/* Find or load the document `uri` (no fragment): embedded metaschemas first,
 * then the registry, then the remotes directory. NULL when it exists nowhere. */
static sc_resource *load_document(gt_schema *s, const char *uri, gt_schema_dialect inherit, int nesting)
{
    sc_resource *res = resource_find(s, uri);
    if (res != NULL || nesting > 8)
        return res;
    int d = gt_schema_dialect_from_name(uri);
    if (d >= 0 && strchr(uri, ':') != NULL) {
        const sc_embedded *e = embedded_named(dialects[d].file);
        if (d <= GT_SCHEMA_DRAFT2019_09)
            load_vocabularies(s, nesting + 1);
        gt_value *root = e ? parse_document(s, e->text, e->len, e->name) : NULL;
        return root ? add_document(s, dialects[d].uri, root, (gt_schema_dialect)d, nesting + 1) : NULL;
    }
    if (strstr(uri, "json-schema.org/draft/") != NULL && strstr(uri, "/meta/") != NULL) {
        load_vocabularies(s, nesting + 1);
        return resource_find(s, uri);
    }
    size_t registered_len;
    const char *registered = sc_registry_find(s->options.registry, uri, &registered_len);
    if (registered != NULL) {
        gt_value *root = parse_document(s, registered, registered_len, uri);
        return root ? add_document(s, uri, root, inherit, nesting + 1) : NULL;
    }
    size_t blen = strlen(s->remotes_base);
    if (s->remotes_dir == NULL || strncmp(uri, s->remotes_base, blen) != 0 || strstr(uri, "..") != NULL)
        return NULL;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", s->remotes_dir, uri + blen);
    size_t len;
    char *text = read_file(path, &len);
    if (text == NULL)
        return NULL;
    gt_value *root = parse_document(s, text, len, path);
    free(text);
    return root ? add_document(s, uri, root, inherit, nesting + 1) : NULL;
}

static uint32_t vocab_of(const gt_value *metaschema)
{
    const gt_value *voc = gt_value_get(metaschema, "$vocabulary", 11);
    if (voc == NULL || voc->type != GT_OBJECT)
        return SC_VOC_ALL;
    uint32_t mask = 0;
    for (size_t i = 0; i < voc->u.obj.count; i++) {
        const char *k = voc->u.obj.members[i].key;
        const char *slash = strrchr(k, '/');
        const char *name = slash ? slash + 1 : k;
        bool v2019 = strstr(k, "2019-09") != NULL;
        if (strcmp(name, "applicator") == 0)
            mask |= SC_VOC_APPLICATOR | (v2019 ? SC_VOC_UNEVALUATED : 0);
        else if (strcmp(name, "validation") == 0)
            mask |= SC_VOC_VALIDATION;
        else if (strcmp(name, "unevaluated") == 0)
            mask |= SC_VOC_UNEVALUATED;
        else if (strcmp(name, "format-assertion") == 0)
            mask |= SC_VOC_FORMAT_ASSERT;
    }
    return mask;
}

/* Dialect and vocabularies of a document from its `$schema`. */
static int detect_dialect(gt_schema *s, const gt_value *root, gt_schema_dialect inherit, gt_schema_dialect *dialect,
                          uint32_t *vocab, int nesting)
{
    *dialect = inherit;
    *vocab = SC_VOC_ALL;
    const gt_value *decl = root->type == GT_OBJECT ? gt_value_get(root, "$schema", 7) : NULL;
    if (decl == NULL || decl->type != GT_STRING)
        return 0;
    int d = gt_schema_dialect_from_name(decl->u.str.chars);
    if (d >= 0) {
        *dialect = (gt_schema_dialect)d;
        return 0;
    }
    char *frag;
    char *uri = sc_uri_split(s->arena, decl->u.str.chars, &frag);
    sc_resource *meta = uri ? load_document(s, uri, inherit, nesting + 1) : NULL;
    if (meta == NULL || meta->root == root) {
        if (meta == NULL)
            sc_fail(s, GT_SCHEMA_PROBLEM_UNKNOWN_DIALECT, "/$schema", "unknown or unavailable metaschema \"%s\"",
                        decl->u.str.chars);
        return meta == NULL ? -1 : 0;
    }
    *dialect = meta->dialect;
    *vocab = vocab_of(meta->root);
    return 0;
}

/* ---- indexing: resources, anchors, locations ---- */

static bool newer_or_equal(gt_schema_dialect d, gt_schema_dialect than) { return d <= than; }

static const char *const single_schema_kws[] = {
    "additionalItems", "additionalProperties", "contains", "not", "propertyNames", "if", "then", "else",
    "unevaluatedItems", "unevaluatedProperties", "contentSchema", "items", NULL};
static const char *const array_schema_kws[] = {"allOf", "anyOf", "oneOf", "prefixItems", "items", NULL};
static const char *const map_schema_kws[] = {"properties", "patternProperties", "$defs", "definitions",
                                             "dependentSchemas", "dependencies", NULL};

static bool in_list(const char *const *list, const char *key)
{
    for (; *list; list++)
        if (strcmp(*list, key) == 0)
            return true;
    return false;
}

/* `$id` (or draft 4 `id`): a new resource, or an anchor in draft 4-7 style. */
static sc_resource *index_id(gt_schema *s, const gt_value *v, sc_resource *res, gt_schema_dialect *dialect,
                             uint32_t *vocab)
{
    bool legacy = *dialect == GT_SCHEMA_DRAFT4;
    const gt_value *id = gt_value_get(v, legacy ? "id" : "$id", legacy ? 2 : 3);
    if (id == NULL || id->type != GT_STRING)
        return res;
    if (!newer_or_equal(*dialect, GT_SCHEMA_DRAFT2019_09) && gt_value_get(v, "$ref", 4) != NULL)
        return res; /* draft 4-7: $ref hides its siblings, $id included */
    char *abs = sc_uri_resolve(s->arena, res->uri, id->u.str.chars);
    char *frag;
    char *doc = abs ? sc_uri_split(s->arena, abs, &frag) : NULL;
    if (doc == NULL)
        return res;
    sc_resource *target = res;
    if (strcmp(doc, res->uri) != 0 || id->u.str.chars[0] != '#') {
        if (v != res->root || strcmp(doc, res->uri) != 0) {
            gt_schema_dialect d = *dialect;
            uint32_t voc = *vocab;
            const gt_value *decl = gt_value_get(v, "$schema", 7);
            if (decl != NULL && decl->type == GT_STRING)
                detect_dialect(s, v, d, &d, &voc, 1);
            *dialect = d, *vocab = voc;
            target = resource_add(s, doc, v, d, voc);
            if (target == NULL)
                return res;
        }
    }
    if (frag != NULL && frag[0] != '\0')
        anchor_add(s, target, frag, v, false);
    return target;
}

static void index_anchors(gt_schema *s, const gt_value *v, sc_resource *res, gt_schema_dialect dialect)
{
    if (!newer_or_equal(dialect, GT_SCHEMA_DRAFT2019_09))
        return;
    const gt_value *a = gt_value_get(v, "$anchor", 7);
    if (a != NULL && a->type == GT_STRING)
        anchor_add(s, res, a->u.str.chars, v, false);
    if (dialect == GT_SCHEMA_DRAFT2020_12) {
        const gt_value *da = gt_value_get(v, "$dynamicAnchor", 14);
        if (da != NULL && da->type == GT_STRING)
            anchor_add(s, res, da->u.str.chars, v, true);
    } else {
        const gt_value *ra = gt_value_get(v, "$recursiveAnchor", 16);
        if (ra != NULL && ra->type == GT_TRUE && res->root == v)
            res->recursive_anchor = true;
    }
}

static void index_child(gt_schema *s, const gt_value *child, sc_resource *res, const char *location,
                        const char *token, size_t len, gt_schema_dialect dialect, uint32_t vocab)
{
    if (child->type != GT_OBJECT && child->type != GT_TRUE && child->type != GT_FALSE)
        return;
    const char *loc = sc_location_child(s->arena, location, token, len);
    if (loc != NULL)
        index_schema(s, child, res, loc, dialect, vocab);
}

static void index_schema(gt_schema *s, const gt_value *v, sc_resource *res, const char *location,
                         gt_schema_dialect dialect, uint32_t vocab)
{
    if (s->failed || info_find(s, v) != NULL)
        return;
    if (v->type == GT_OBJECT) {
        res = index_id(s, v, res, &dialect, &vocab);
        index_anchors(s, v, res, dialect);
    }
    if (info_add(s, v, res, location, dialect, vocab) == NULL || v->type != GT_OBJECT)
        return;
    for (size_t i = 0; i < v->u.obj.count && !s->failed; i++) {
        const gt_member *m = &v->u.obj.members[i];
        const gt_value *c = m->value;
        const char *loc;
        if (in_list(single_schema_kws, m->key))
            index_child(s, c, res, location, m->key, m->key_len, dialect, vocab);
        if (c->type == GT_ARRAY && in_list(array_schema_kws, m->key)) {
            loc = sc_location_child(s->arena, location, m->key, m->key_len);
            for (size_t k = 0; loc && k < c->u.arr.count; k++) {
                char digits[24];
                int n = snprintf(digits, sizeof digits, "%zu", k);
                index_child(s, c->u.arr.items[k], res, loc, digits, (size_t)n, dialect, vocab);
            }
        }
        if (c->type == GT_OBJECT && in_list(map_schema_kws, m->key)) {
            loc = sc_location_child(s->arena, location, m->key, m->key_len);
            for (size_t k = 0; loc && k < c->u.obj.count; k++)
                index_child(s, c->u.obj.members[k].value, res, loc, c->u.obj.members[k].key,
                            c->u.obj.members[k].key_len, dialect, vocab);
        }
    }
}

/* ---- nodes ---- */

static sc_node *node_for(gt_schema *s, sc_info *info)
{
    if (info->node != NULL)
        return info->node;
    sc_node *n = sc_alloc(s, sizeof *n);
    if (n == NULL)
        return NULL;
    n->src = info->value;
    n->resource = info->resource;
    n->location = info->location;
    n->dialect = info->dialect;
    n->is_bool = info->value->type != GT_OBJECT;
    n->bool_value = info->value->type != GT_FALSE;
    info->node = n;
    n->next_pending = s->pending;
    s->pending = n;
    s->node_count++;
    return n;
}

/* Node of a subschema value found under a keyword of `parent`. */
sc_node *sc_child_node(gt_schema *s, const sc_node *parent, const gt_value *v, const char *location)
{
    sc_info *info = info_find(s, v);
    if (info == NULL) {
        index_schema(s, v, parent->resource, location, parent->dialect, SC_VOC_ALL);
        info = info_find(s, v);
    }
    return info ? node_for(s, info) : NULL;
}

/* Resolve a reference string from `node` to its target node. */
sc_node *sc_resolve_ref(gt_schema *s, const sc_node *node, const char *ref, const char *kwloc,
                            const gt_value **target_value)
{
    char *abs = sc_uri_resolve(s->arena, node->resource->uri, ref);
    char *frag = NULL;
    char *doc = abs ? sc_uri_split(s->arena, abs, &frag) : NULL;
    if (doc == NULL) {
        sc_fail(s, GT_SCHEMA_PROBLEM_OUT_OF_MEMORY, kwloc, "out of memory");
        return NULL;
    }
    sc_resource *res = load_document(s, doc, node->dialect, 0);
    const gt_value *target = NULL;
    if (res != NULL) {
        if (frag == NULL || frag[0] == '\0')
            target = res->root;
        else if (frag[0] == '/')
            target = sc_pointer_get(res->root, frag);
        else {
            const sc_anchor *a = sc_anchor_find(res, frag);
            target = a ? a->value : NULL;
        }
    }
    if (target == NULL) {
        if (!s->failed && res == NULL)
            sc_fail(s, GT_SCHEMA_PROBLEM_UNRESOLVED_REF, kwloc,
                    "cannot resolve reference \"%s\": no document %s is registered (register it with --ref FILE or "
                    "--ref-dir DIR; nothing is fetched from the network)",
                    ref, doc);
        else if (!s->failed)
            sc_fail(s, GT_SCHEMA_PROBLEM_UNRESOLVED_REF, kwloc, "cannot resolve reference \"%s\"", ref);
        return NULL;
    }
    if (target->type != GT_OBJECT && target->type != GT_TRUE && target->type != GT_FALSE) {
        sc_fail(s, GT_SCHEMA_PROBLEM_UNRESOLVED_REF, kwloc, "reference \"%s\" does not point to a schema", ref);
        return NULL;
    }
    *target_value = target;
    sc_info *info = info_find(s, target);
    if (info == NULL) {
        sc_info *root_info = info_find(s, res->root);
        const char *base = root_info ? root_info->location : "";
        char *loc = gt_arena_alloc(s->arena, strlen(base) + strlen(frag) + 1);
        if (loc == NULL)
            return NULL;
        strcpy(loc, base), strcat(loc, frag);
        index_schema(s, target, res, loc, res->dialect, res->vocab);
        info = info_find(s, target);
    }
    return info ? node_for(s, info) : NULL;
}


/* Does a node apply subschemas (so that its verdict can cost more than its
 * own keywords)? Only such nodes are memoised during validation. */
static bool has_subschemas(const sc_node *n)
{
    for (size_t i = 0; i < n->nkw; i++)
        if (!sc_kind_is_leaf(n->kws[i].kind))
            return true;
    return false;
}

/* Compile every node on the worklist until none is left. `memo` is a first
 * guess here; mark_memo_nodes narrows it once the graph is complete. */
static void compile_pending(gt_schema *s)
{
    while (s->pending != NULL && !s->failed) {
        sc_node *n = s->pending;
        s->pending = n->next_pending;
        n->next_pending = NULL;
        if (!n->is_bool) {
            sc_compile_keywords(s, n);
            n->memo = has_subschemas(n);
        }
    }
}

/* Nodes for every dynamic anchor and recursive resource, so that runtime
 * re-targeting finds them compiled. */
static void compile_dynamic_targets(gt_schema *s)
{
    size_t done = 0;
    while (done != s->nresources && !s->failed) {
        size_t upto = s->nresources;
        for (size_t r = done; r < upto; r++) {
            sc_resource *res = s->resources[r];
            sc_info *ri = info_find(s, res->root);
            if (ri != NULL)
                res->root_node = node_for(s, ri);
            for (size_t a = 0; a < res->nanchors; a++) {
                if (!res->anchors[a].dynamic)
                    continue;
                sc_info *info = info_find(s, res->anchors[a].value);
                if (info != NULL)
                    res->anchors[a].node = node_for(s, info);
            }
        }
        done = upto;
        compile_pending(s);
    }
}

/* ---- reference cycles without progress: flagged here, caught at evaluation ---- */

typedef struct edge_list {
    sc_node **nodes;
    size_t count, cap;
} edge_list;

static void edge_add(edge_list *e, sc_node *n)
{
    if (n == NULL)
        return;
    if (e->count == e->cap) {
        size_t cap = e->cap ? e->cap * 2 : 8;
        sc_node **nodes = realloc(e->nodes, cap * sizeof *nodes);
        if (nodes == NULL)
            return;
        e->nodes = nodes;
        e->cap = cap;
    }
    e->nodes[e->count++] = n;
}

static void edge_add_list(edge_list *e, sc_node *const *nodes, size_t count)
{
    for (size_t k = 0; k < count; k++)
        edge_add(e, nodes[k]);
}

/* Subschemas applied to the same instance location as `n`. */
static void in_place_edges(const sc_node *n, edge_list *e)
{
    e->count = 0;
    for (size_t i = 0; i < n->nkw; i++) {
        const sc_kw *kw = &n->kws[i];
        switch (kw->kind) {
        case KW_REF:
        case KW_DYNAMIC_REF:
        case KW_RECURSIVE_REF: edge_add(e, kw->u.ref.target); break;
        case KW_ALL_OF:
        case KW_ANY_OF:
        case KW_ONE_OF: edge_add_list(e, kw->u.list.nodes, kw->u.list.count); break;
        case KW_NOT: edge_add(e, kw->u.sub.schema); break;
        case KW_IF:
            edge_add(e, kw->u.cond.if_node);
            edge_add(e, kw->u.cond.then_node);
            edge_add(e, kw->u.cond.else_node);
            break;
        case KW_DEPENDENT_SCHEMAS:
            for (size_t k = 0; k < kw->u.deps.count; k++)
                edge_add(e, kw->u.deps.deps[k].schema);
            break;
        default: break;
        }
    }
}

typedef struct dfs_frame {
    sc_node *node;
    edge_list edges;
    size_t next;
} dfs_frame;

static void check_cycles_from(gt_schema *s, sc_node *start)
{
    size_t cap = 64, depth = 0;
    dfs_frame *stack = calloc(cap, sizeof *stack);
    if (stack == NULL)
        return;
    start->mark = 1;
    stack[0].node = start;
    in_place_edges(start, &stack[0].edges);
    while (!s->failed) {
        dfs_frame *top = &stack[depth];
        if (top->next >= top->edges.count) {
            top->node->mark = 2;
            if (depth == 0)
                break;
            depth--;
            continue;
        }
        sc_node *next = top->edges.nodes[top->next++];
        if (next->mark == 1) {
            /* A loop that applies schemas to the same instance forever. It
             * may sit where no instance ever goes (behind a property, an
             * anyOf branch): evaluation watches this node and reports the
             * loop only when an instance reaches it. Every cycle holds at
             * least one such back edge, so every loop is watched. */
            next->loop_guard = true;
            continue;
        }
        if (next->mark == 2 || next->is_bool)
            continue;
        if (depth + 1 == cap) {
            dfs_frame *grown = realloc(stack, 2 * cap * sizeof *stack);
            if (grown == NULL)
                break;
            memset(grown + cap, 0, cap * sizeof *stack);
            stack = grown, cap *= 2;
        }
        next->mark = 1;
        dfs_frame *f = &stack[++depth];
        f->node = next, f->next = 0;
        in_place_edges(next, &f->edges);
    }
    for (size_t i = 0; i < cap; i++)
        free(stack[i].edges.nodes);
    free(stack);
}

/* Every subschema a node applies: in place and to members or items. */
static void all_edges(const sc_node *n, edge_list *e)
{
    in_place_edges(n, e);
    for (size_t i = 0; i < n->nkw; i++) {
        const sc_kw *kw = &n->kws[i];
        switch (kw->kind) {
        case KW_ITEMS:
        case KW_CONTAINS:
        case KW_ADDITIONAL_PROPERTIES:
        case KW_PROPERTY_NAMES:
        case KW_UNEVALUATED_ITEMS:
        case KW_UNEVALUATED_PROPERTIES: edge_add(e, kw->u.sub.schema); break;
        case KW_PREFIX_ITEMS: edge_add_list(e, kw->u.list.nodes, kw->u.list.count); break;
        case KW_PROPERTIES:
            for (size_t k = 0; k < kw->u.props.count; k++)
                edge_add(e, kw->u.props.props[k].schema);
            break;
        case KW_PATTERN_PROPERTIES:
            for (size_t k = 0; k < kw->u.pats.count; k++)
                edge_add(e, kw->u.pats.pats[k].schema);
            break;
        default: break;
        }
    }
}

/* The memo pays only where one node can meet one instance twice: a node that
 * two keywords apply (two anyOf branches referring to it, properties and
 * patternProperties both matching a member, ...), and everything below such a
 * node, since each of its evaluations walks its subtree again. Any other node
 * is evaluated at most once per instance location (an anyOf explanation re-runs
 * its failed branches once more: bounded, not exponential), so storing its
 * verdict is pure cost: a hash probe per node and a table per validation, a
 * fifth of `validate --jsonl` on 100 KB documents. */
static void mark_memo_nodes(gt_schema *s)
{
    size_t count = 0, queued = 0;
    sc_node **nodes = malloc((s->infos_count + 1) * sizeof *nodes);
    sc_node **work = malloc((s->infos_count + 1) * sizeof *work); /* shared nodes, each queued once */
    edge_list e = {0};
    if (nodes == NULL || work == NULL) {
        free(nodes), free(work);
        return; /* every node keeps its memo: slower, never wrong */
    }
    for (size_t i = 0; i < s->infos_cap && count < s->infos_count; i++)
        if (s->infos[i].node != NULL && !s->infos[i].node->is_bool)
            nodes[count++] = s->infos[i].node;
    for (size_t i = 0; i < count; i++)
        nodes[i]->mark = 0, nodes[i]->in_edges = 0; /* mark reused: 1 = shared */
    for (size_t i = 0; i < count; i++) {
        all_edges(nodes[i], &e);
        for (size_t k = 0; k < e.count; k++)
            if (e.nodes[k]->in_edges < 2)
                e.nodes[k]->in_edges++;
    }
    for (size_t i = 0; i < count; i++)
        if (nodes[i]->in_edges >= 2 || nodes[i]->loop_guard) {
            nodes[i]->mark = 1;
            work[queued++] = nodes[i];
        }
    for (size_t done = 0; done < queued; done++) {
        all_edges(work[done], &e);
        for (size_t k = 0; k < e.count && queued < count; k++) {
            sc_node *next = e.nodes[k];
            if (next->is_bool || next->mark == 1)
                continue;
            next->mark = 1;
            work[queued++] = next;
        }
    }
    for (size_t i = 0; i < count; i++)
        nodes[i]->memo = nodes[i]->memo && nodes[i]->mark == 1;
    free(e.nodes);
    free(work);
    free(nodes);
}

static int by_location(const void *a, const void *b)
{
    return strcmp((*(sc_node *const *)a)->location, (*(sc_node *const *)b)->location);
}

/* Search from every node in order of schema location, so that the node a
 * loop is reported at is the same on every run (the table is keyed by
 * addresses). */
static void check_cycles(gt_schema *s)
{
    sc_node **nodes = malloc((s->infos_count + 1) * sizeof *nodes);
    if (nodes == NULL) {
        sc_fail(s, GT_SCHEMA_PROBLEM_OUT_OF_MEMORY, "", "out of memory");
        return;
    }
    size_t count = 0;
    for (size_t i = 0; i < s->infos_cap && count < s->infos_count; i++)
        if (s->infos[i].node != NULL && !s->infos[i].node->is_bool)
            nodes[count++] = s->infos[i].node;
    qsort(nodes, count, sizeof *nodes, by_location);
    for (size_t i = 0; i < count && !s->failed; i++)
        if (nodes[i]->mark == 0)
            check_cycles_from(s, nodes[i]);
    free(nodes);
}

/* ---- metaschema check ---- */

static gt_schema *schema_new(const gt_schema_options *options, gt_schema_problem *problem);
static void compile_root(gt_schema *s, const gt_value *root);

/* Validate `root` against the metaschema named by its dialect or `$schema`. */
static void check_metaschema(gt_schema *s, const gt_value *root, const char *meta_uri)
{
    gt_schema_options mo = s->options;
    mo.skip_metaschema = true;
    mo.assert_formats = false;
    mo.max_stack = s->compile_stack_budget;
    gt_schema_problem mp;
    gt_schema *meta = schema_new(&mo, &mp);
    if (meta == NULL) {
        sc_fail(s, GT_SCHEMA_PROBLEM_OUT_OF_MEMORY, "", "out of memory");
        return;
    }
    sc_resource *res = load_document(meta, meta_uri, s->dialect, 0);
    if (res != NULL && !meta->failed) {
        sc_info *info = info_find(meta, res->root);
        meta->root = info ? node_for(meta, info) : NULL;
        compile_pending(meta);
        compile_dynamic_targets(meta);
        meta->dialect = res->dialect;
    }
    if (meta->failed || meta->root == NULL) {
        sc_fail(s, GT_SCHEMA_PROBLEM_UNKNOWN_DIALECT, "/$schema", "metaschema %s unusable: %s", meta_uri, mp.message);
        gt_schema_free(meta);
        return;
    }
    gt_schema_errors errors;
    gt_schema_errors_init(&errors);
    errors.max_errors = 1;
    gt_schema_result r = gt_schema_validate(meta, root, &errors);
    if (r == GT_SCHEMA_INVALID && errors.count > 0) {
        const gt_schema_error *e = &errors.items[0];
        sc_fail(s, GT_SCHEMA_PROBLEM_INVALID, e->instance_path, "not a valid %s schema: at \"%s\" %s: %s",
                    gt_schema_dialect_name(s->dialect), e->instance_path, e->keyword, e->message);
    } else if (r == GT_SCHEMA_ERROR)
        sc_fail(s, GT_SCHEMA_PROBLEM_INVALID, "", "metaschema check failed (out of memory or too deep)");
    gt_schema_errors_free(&errors);
    gt_schema_free(meta);
}

/* ---- public entry points ---- */

static gt_schema *schema_new(const gt_schema_options *options, gt_schema_problem *problem)
{
    gt_schema *s = calloc(1, sizeof *s);
    if (s == NULL || (s->arena = gt_arena_new()) == NULL) {
        free(s);
        if (problem)
            *problem = (gt_schema_problem){GT_SCHEMA_PROBLEM_OUT_OF_MEMORY, "", "out of memory"};
        return NULL;
    }
    if (options)
        s->options = *options;
    else
        gt_schema_options_init(&s->options);
    if (s->options.max_nodes == 0)
        s->options.max_nodes = GT_SCHEMA_MAX_NODES;
    if (s->options.max_depth == 0)
        s->options.max_depth = GT_SCHEMA_MAX_DEPTH;
    s->problem = problem ? problem : &s->scratch_problem;
    memset(s->problem, 0, sizeof *s->problem);
    s->remotes_base = sc_strdup(s, s->options.remotes_base ? s->options.remotes_base : DEFAULT_REMOTES_BASE);
    s->remotes_dir = s->options.remotes_dir ? sc_strdup(s, s->options.remotes_dir) : NULL;
    s->options.remotes_base = s->remotes_base;
    s->options.remotes_dir = s->remotes_dir;
    if (s->options.base_uri != NULL)
        s->options.base_uri = sc_strdup(s, s->options.base_uri);
    return s;
}

static void compile_root(gt_schema *s, const gt_value *root)
{
    if (root->type != GT_OBJECT && root->type != GT_TRUE && root->type != GT_FALSE) {
        sc_fail(s, GT_SCHEMA_PROBLEM_NOT_OBJECT, "", "a schema must be a JSON object or a boolean, got %s",
                    root->type == GT_NUMBER ? "number" : gt_type_name(root->type));
        return;
    }
    size_guard(s, root);
    if (s->failed)
        return;
    gt_schema_dialect dialect;
    uint32_t vocab;
    if (detect_dialect(s, root, s->options.default_dialect, &dialect, &vocab, 0) != 0)
        return;
    s->dialect = dialect;
    if (!s->options.skip_metaschema && root->type == GT_OBJECT) {
        const gt_value *decl = gt_value_get(root, "$schema", 7);
        char *frag;
        const char *meta_uri = dialects[dialect].uri;
        if (decl != NULL && decl->type == GT_STRING && gt_schema_dialect_from_name(decl->u.str.chars) < 0)
            meta_uri = sc_uri_split(s->arena, decl->u.str.chars, &frag);
        check_metaschema(s, root, meta_uri);
        if (s->failed)
            return;
    }
    sc_resource *res = resource_add(s, s->options.base_uri ? s->options.base_uri : DEFAULT_BASE, root, dialect, vocab);
    if (res == NULL)
        return;
    index_schema(s, root, res, "", dialect, vocab);
    sc_info *info = info_find(s, root);
    if (info == NULL || s->failed)
        return;
    s->root = node_for(s, info);
    compile_pending(s);
    compile_dynamic_targets(s);
    if (!s->failed)
        check_cycles(s);
    if (!s->failed && !s->uses_dynamic)
        mark_memo_nodes(s);
}

typedef struct compile_job {
    gt_schema *s;
    const char *json;
    size_t len;
} compile_job;

static void *compile_job_run(void *arg)
{
    compile_job *job = arg;
    gt_value *root = parse_document(job->s, job->json, job->len, "schema");
    if (root != NULL)
        compile_root(job->s, root);
    return NULL;
}

/* Run the compile on a thread with COMPILE_STACK bytes of stack when possible. */
static void compile_on_big_stack(compile_job *job)
{
    pthread_attr_t attr;
    pthread_t thread;
    bool spawned = false;
    if (pthread_attr_init(&attr) == 0) {
        if (pthread_attr_setstacksize(&attr, COMPILE_STACK) == 0) {
            job->s->compile_stack_budget = COMPILE_STACK - COMPILE_STACK_MARGIN;
            spawned = pthread_create(&thread, &attr, compile_job_run, job) == 0;
        }
        pthread_attr_destroy(&attr);
    }
    if (spawned)
        pthread_join(thread, NULL);
    else {
        job->s->compile_stack_budget = 0;
        compile_job_run(job);
    }
}

gt_schema *gt_schema_compile(const char *json, size_t len, const gt_schema_options *options,
                             gt_schema_problem *problem)
{
    gt_schema *s = schema_new(options, problem);
    if (s == NULL)
        return NULL;
    compile_job job = {s, json, len};
    if (s->options.skip_metaschema)
        compile_job_run(&job); /* nested metaschema compiles: already on the big stack */
    else
        compile_on_big_stack(&job);
    if (s->failed) {
        gt_schema_free(s);
        return NULL;
    }
    for (size_t i = 0; i < s->infos_cap; i++)
        if (s->infos[i].node != NULL && !s->infos[i].node->is_bool) {
            sc_fast_prepare(s, s->infos[i].node);
            s->has_memo |= s->infos[i].node->memo;
        }
    return s;
}

gt_schema *gt_schema_compile_value(const gt_value *root, const gt_schema_options *options,
                                   gt_schema_problem *problem)
{
    size_t len;
    char *json = gt_value_to_json(root, &len);
    if (json == NULL) {
        if (problem)
            *problem = (gt_schema_problem){GT_SCHEMA_PROBLEM_OUT_OF_MEMORY, "", "out of memory"};
        return NULL;
    }
    gt_schema *s = gt_schema_compile(json, len, options, problem);
    free(json);
    return s;
}

static void free_regexes(sc_node *n)
{
    for (size_t i = 0; i < n->nkw; i++) {
        sc_kw *kw = &n->kws[i];
        if (kw->kind == KW_PATTERN)
            sc_regex_free(&kw->u.re);
        else if (kw->kind == KW_PATTERN_PROPERTIES || (kw->kind == KW_ADDITIONAL_PROPERTIES && false))
            for (size_t k = 0; k < kw->u.pats.count; k++)
                sc_regex_free(&kw->u.pats.pats[k].re);
    }
}

void gt_schema_free(gt_schema *schema)
{
    if (schema == NULL)
        return;
    for (size_t i = 0; i < schema->infos_cap; i++)
        if (schema->infos[i].node != NULL && !schema->infos[i].node->is_bool)
            free_regexes(schema->infos[i].node);
    free(schema->infos);
    free(schema->resources);
    gt_arena_free(schema->arena);
    free(schema);
}
