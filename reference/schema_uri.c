/* schema_uri.c — URI references (RFC 3986 §5) and JSON Pointers (RFC 6901)
 * for `$id`/`$ref` resolution. Compile time only; nothing here runs while an
 * instance is validated. Not a general URI library: no normalisation beyond
 * dot-segment removal. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema_impl.h"

typedef struct uri_part {
    const char *s;
    size_t n;
    bool has;
} uri_part;

typedef struct uri_parts {
    uri_part scheme, auth, path, query, frag;
} uri_parts;

static bool is_scheme_char(char ch, bool first)
{
    if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'))
        return true;
    return !first && ((ch >= '0' && ch <= '9') || ch == '+' || ch == '-' || ch == '.');
}

static void uri_parse(const char *u, uri_parts *p)
{
    memset(p, 0, sizeof *p);
    const char *s = u;
    const char *k = s;
    while (*k && is_scheme_char(*k, k == s))
        k++;
    if (k > s && *k == ':') {
        p->scheme = (uri_part){s, (size_t)(k - s), true};
        s = k + 1;
    }
    if (s[0] == '/' && s[1] == '/') {
        const char *a = s + 2;
        size_t n = strcspn(a, "/?#");
        p->auth = (uri_part){a, n, true};
        s = a + n;
    }
    size_t n = strcspn(s, "?#");
    p->path = (uri_part){s, n, true};
    s += n;
    if (*s == '?') {
        n = strcspn(s + 1, "#");
        p->query = (uri_part){s + 1, n, true};
        s += 1 + n;
    }
    if (*s == '#')
        p->frag = (uri_part){s + 1, strlen(s + 1), true};
}

/* RFC 3986 §5.2.4, in place on a NUL-terminated buffer. */
static void remove_dot_segments(char *path)
{
    char *out = path;
    const char *in = path;
    while (*in) {
        if (strncmp(in, "../", 3) == 0)
            in += 3;
        else if (strncmp(in, "./", 2) == 0)
            in += 2;
        else if (strncmp(in, "/./", 3) == 0)
            in += 2;
        else if (strcmp(in, "/.") == 0) {
            in += 1;
            *(char *)in = '/';
        } else if (strncmp(in, "/../", 4) == 0 || strcmp(in, "/..") == 0) {
            if (in[3] == '\0') {
                in += 2;
                *(char *)in = '/';
            } else
                in += 3;
            while (out > path && *--out != '/')
                ;
            *out = '\0';
        } else if (strcmp(in, ".") == 0 || strcmp(in, "..") == 0)
            in += strlen(in);
        else {
            if (*in == '/')
                *out++ = *in++;
            while (*in && *in != '/')
                *out++ = *in++;
        }
    }
    *out = '\0';
}

static void put(char **w, const char *s, size_t n)
{
    memcpy(*w, s, n);
    *w += n;
}

char *sc_uri_resolve(gt_arena *arena, const char *base, const char *ref)
{
    uri_parts b, r, t;
    uri_parse(base ? base : "", &b);
    uri_parse(ref, &r);
    size_t cap = strlen(ref) + (base ? strlen(base) : 0) + 8;
    char *merged = malloc(cap);
    if (merged == NULL)
        return NULL;
    memset(&t, 0, sizeof t);
    char *pathbuf = merged;
    if (r.scheme.has) {
        t.scheme = r.scheme, t.auth = r.auth, t.query = r.query;
        memcpy(pathbuf, r.path.s, r.path.n), pathbuf[r.path.n] = '\0';
        remove_dot_segments(pathbuf);
    } else {
        t.scheme = b.scheme;
        if (r.auth.has) {
            t.auth = r.auth, t.query = r.query;
            memcpy(pathbuf, r.path.s, r.path.n), pathbuf[r.path.n] = '\0';
            remove_dot_segments(pathbuf);
        } else {
            t.auth = b.auth;
            if (r.path.n == 0) {
                memcpy(pathbuf, b.path.s, b.path.n), pathbuf[b.path.n] = '\0';
                t.query = r.query.has ? r.query : b.query;
            } else {
                if (r.path.s[0] == '/') {
                    memcpy(pathbuf, r.path.s, r.path.n), pathbuf[r.path.n] = '\0';
                } else if (b.auth.has && b.path.n == 0) {
                    pathbuf[0] = '/';
                    memcpy(pathbuf + 1, r.path.s, r.path.n), pathbuf[r.path.n + 1] = '\0';
                } else {
                    size_t keep = b.path.n;
                    while (keep > 0 && b.path.s[keep - 1] != '/')
                        keep--;
                    memcpy(pathbuf, b.path.s, keep);
                    memcpy(pathbuf + keep, r.path.s, r.path.n), pathbuf[keep + r.path.n] = '\0';
                }
                remove_dot_segments(pathbuf);
                t.query = r.query;
            }
        }
    }
    t.frag = r.frag;
    size_t plen = strlen(pathbuf);
    size_t total = t.scheme.n + t.auth.n + plen + t.query.n + t.frag.n + 8;
    char *out = gt_arena_alloc(arena, total);
    if (out == NULL) {
        free(merged);
        return NULL;
    }
    char *w = out;
    if (t.scheme.has)
        put(&w, t.scheme.s, t.scheme.n), put(&w, ":", 1);
    if (t.auth.has)
        put(&w, "//", 2), put(&w, t.auth.s, t.auth.n);
    put(&w, pathbuf, plen);
    if (t.query.has)
        put(&w, "?", 1), put(&w, t.query.s, t.query.n);
    if (t.frag.has)
        put(&w, "#", 1), put(&w, t.frag.s, t.frag.n);
    *w = '\0';
    free(merged);
    return out;
}

char *sc_uri_split(gt_arena *arena, const char *uri, char **fragment)
{
    const char *hash = strchr(uri, '#');
    if (hash == NULL) {
        *fragment = NULL;
        return gt_arena_strndup(arena, uri, strlen(uri));
    }
    *fragment = sc_uri_decode(arena, hash + 1, strlen(hash + 1));
    return gt_arena_strndup(arena, uri, (size_t)(hash - uri));
}

static int hex_value(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

char *sc_uri_decode(gt_arena *arena, const char *text, size_t len)
{
    char *out = gt_arena_alloc(arena, len + 1);
    if (out == NULL)
        return NULL;
    size_t w = 0;
    for (size_t i = 0; i < len; i++) {
        int hi, lo;
        if (text[i] == '%' && i + 2 < len && (hi = hex_value(text[i + 1])) >= 0 &&
            (lo = hex_value(text[i + 2])) >= 0) {
            out[w++] = (char)(hi * 16 + lo);
            i += 2;
        } else
            out[w++] = text[i];
    }
    out[w] = '\0';
    return out;
}

/* Next pointer token of `p` (after a '/') unescaped into `buf`; returns the
 * position after the token. */
static const char *pointer_token(const char *p, char *buf, size_t cap, size_t *len)
{
    size_t w = 0;
    while (*p && *p != '/') {
        char ch = *p++;
        if (ch == '~' && (*p == '0' || *p == '1'))
            ch = *p++ == '0' ? '~' : '/';
        if (w + 1 < cap)
            buf[w++] = ch;
    }
    buf[w] = '\0';
    *len = w;
    return p;
}

const gt_value *sc_pointer_get(const gt_value *root, const char *pointer)
{
    const gt_value *at = root;
    const char *p = pointer;
    char token[1024];
    while (at != NULL && *p == '/') {
        size_t len;
        p = pointer_token(p + 1, token, sizeof token, &len);
        if (at->type == GT_OBJECT)
            at = gt_value_get(at, token, len);
        else if (at->type == GT_ARRAY) {
            if (len == 0 || (len > 1 && token[0] == '0') || strspn(token, "0123456789") != len)
                return NULL;
            size_t index = strtoul(token, NULL, 10);
            at = index < at->u.arr.count ? at->u.arr.items[index] : NULL;
        } else
            return NULL;
    }
    return *p == '\0' ? at : NULL;
}

/* Longest location kept whole. A deeper one keeps its last part after "..."
 * (".../items/items/type"), so a schema nested 9,000 deep costs memory linear
 * in its depth instead of quadratic (every node and keyword owns its location). */
#define SC_LOCATION_MAX 256u
#define SC_LOCATION_TAIL 192u

char *sc_location_child(gt_arena *arena, const char *parent, const char *token, size_t len)
{
    size_t plen = strlen(parent), extra = 0;
    char elided[SC_LOCATION_TAIL + 8];
    if (plen > SC_LOCATION_MAX) {
        const char *tail = parent + plen - SC_LOCATION_TAIL;
        const char *cut = strchr(tail, '/'); /* start at a token boundary */
        if (cut == NULL)
            cut = tail;
        plen = (size_t)snprintf(elided, sizeof elided, "...%s", cut);
        parent = elided;
    }
    for (size_t i = 0; i < len; i++)
        extra += token[i] == '~' || token[i] == '/';
    char *out = gt_arena_alloc(arena, plen + len + extra + 2);
    if (out == NULL)
        return NULL;
    memcpy(out, parent, plen);
    char *w = out + plen;
    *w++ = '/';
    for (size_t i = 0; i < len; i++) {
        if (token[i] == '~')
            *w++ = '~', *w++ = '0';
        else if (token[i] == '/')
            *w++ = '~', *w++ = '1';
        else
            *w++ = token[i];
    }
    *w = '\0';
    return out;
}

char *sc_location_index(gt_arena *arena, const char *parent, size_t index)
{
    char digits[32];
    int n = snprintf(digits, sizeof digits, "%zu", index);
    return sc_location_child(arena, parent, digits, (size_t)n);
}
