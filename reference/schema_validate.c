/* schema_validate.c — evaluate an instance against a compiled schema.
 *
 * One recursive walk over (node, instance). Everything mutable lives in a
 * per-call context (vctx) on the caller's stack plus the caller's
 * gt_schema_errors, so a compiled schema is shared read-only across threads.
 * Keywords whose failing branches must not leave errors behind (anyOf, oneOf,
 * not, if, contains, propertyNames) first run in "probe" mode (no errors, stop
 * at the first failure) and are re-run to collect errors only when they fail:
 * the valid path allocates nothing. Annotations for unevaluated* are bitsets
 * over an object's members or an array's items, collected only when the
 * schema uses unevaluated*. Not for: compiling (schema_compile.c). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "schema_impl.h"
#include "swar.h"

/* Stack a validation may use when the schema does not say (6 MiB: Linux gives
 * 8 MiB to the main thread and to threads by default). Deep schemas and
 * dynamic-reference loops the compiler could not see stop here with
 * GT_SCHEMA_ERROR instead of overflowing the stack. */
#define SC_DEFAULT_STACK_BUDGET (6u * 1024u * 1024u)

/* Keep message building out of the recursive path's stack frames. */
#define NOINLINE __attribute__((noinline))

typedef struct path_seg {
    const char *key; /* NULL for an array index */
    size_t len;      /* key length, or the index */
} path_seg;

/* Evaluated members/items of one instance location (bit i = member/item i). */
typedef struct evalset {
    uint64_t *bits;
    size_t n;
} evalset;

/* One memoised verdict: `node` evaluated at the instance value `inst`. */
typedef struct memo_entry {
    const sc_node *node;
    const gt_value *inst;
    bool valid;
} memo_entry;

/* Slots of the memo table at most (24 MiB); past half of it nothing more is
 * remembered and the evaluation budget alone bounds the work. */
#define SC_MEMO_MAX_SLOTS (1u << 20)
/* Slots of a new memo table: small, because it is calloc'd per validation and
 * a typical model output stores a few dozen verdicts (a 1024-slot start was
 * 16% of `validate --jsonl` on small documents, in memset); it doubles. */
#define SC_MEMO_FIRST_SLOTS 64u

typedef struct vctx {
    const gt_schema *schema;
    gt_schema_errors *errs;
    bool collect; /* record errors (false while probing) */
    bool track;   /* collect annotations for unevaluated* */
    bool stop;    /* max_errors reached */
    bool verdict_only; /* gt_schema_validate_first_failure: `errs` lends its scratch, never receives an error */
    bool fatal;   /* out of memory or a limit hit (failure says which) */
    gt_schema_failure failure;
    const char *failure_path, *failure_path_dollar, *failure_location;
    char failure_message[256];
    size_t evaluations, max_evaluations;
    long long deadline_ms;
    unsigned explaining; /* explain_branches frames open: nested ones do not re-run branches */
    /* memo of (node, instance) verdicts, when the verdict depends on nothing
     * else: no annotations collected, no dynamic scope, a real instance value */
    bool memo_ok;
    unsigned memo_off;
    memo_entry *memo;
    size_t memo_cap, memo_count;
    pcre2_match_context *limits;
    pcre2_jit_stack *jit_stack;
    uintptr_t stack_base;
    size_t stack_budget;
    path_seg *path;
    size_t path_len, path_cap;
    const sc_resource **scope;
    size_t scope_len, scope_cap;
    pcre2_match_data *md;
    gt_arena *scratch;
    /* which members (bit i = member i, objects of at most 64 members) the last
     * complete `properties` pass over `props_inst` declared: additionalProperties
     * of the same node then needs no second lookup; which of its first 64
     * entries were present (bit k = entry k): `required` of the same node
     * then needs no lookup when every name it lists is present */
    const gt_value *props_inst;
    const sc_kw *props_kw;
    uint64_t props_declared, props_entries;
    const sc_known_valid *known; /* what the fast pass found valid, or NULL */
    const void **guards; /* (node, instance) pairs entered at loop-guarded nodes */
    size_t guards_len, guards_cap;
    path_seg path_local[64];
    const sc_resource *scope_local[32];
    const void *guards_local[16];
} vctx;

static bool validate_node(vctx *c, const sc_node *n, const gt_value *inst, evalset *ev);
static inline bool charge(vctx *c, const char *location, size_t units);

/* ---- small helpers ---- */

size_t sc_utf8_length(const char *text, size_t len)
{
    size_t count = 0;
    for (size_t i = 0; i < len; i++)
        count += ((unsigned char)text[i] & 0xc0) != 0x80;
    return count;
}


static const char *instance_type_name(const gt_value *v, gt_schema_dialect dialect)
{
    if (v->type == GT_NUMBER)
        return sc_is_integer_in(v, dialect) ? "integer" : "number";
    return gt_type_name(v->type);
}

static bool grow(void **items, size_t *cap, size_t size, void *local)
{
    size_t ncap = *cap * 2;
    void *grown = *items == local ? malloc(ncap * size) : realloc(*items, ncap * size);
    if (grown == NULL)
        return false;
    if (*items == local)
        memcpy(grown, local, *cap * size);
    *items = grown, *cap = ncap;
    return true;
}

static bool push_key(vctx *c, const char *key, size_t len)
{
    if (c->path_len == c->path_cap && !grow((void **)&c->path, &c->path_cap, sizeof(path_seg), c->path_local)) {
        c->fatal = true;
        return false;
    }
    c->path[c->path_len++] = (path_seg){key, len};
    return true;
}

static bool push_index(vctx *c, size_t index) { return push_key(c, NULL, index); }
static void pop(vctx *c) { c->path_len--; }

/* ---- annotations ---- */

static void eval_mark(vctx *c, evalset *ev, size_t i, size_t total)
{
    if (ev == NULL)
        return;
    if (ev->bits == NULL) {
        size_t words = (total + 63) / 64;
        ev->bits = gt_arena_alloc(c->scratch, words * sizeof(uint64_t) + 8);
        if (ev->bits == NULL) {
            c->fatal = true;
            return;
        }
        memset(ev->bits, 0, words * sizeof(uint64_t));
        ev->n = total;
    }
    ev->bits[i / 64] |= 1ull << (i % 64);
}

static bool eval_has(const evalset *ev, size_t i) { return ev && ev->bits && (ev->bits[i / 64] >> (i % 64)) & 1; }

static void eval_merge(vctx *c, evalset *into, const evalset *from)
{
    if (into == NULL || from == NULL || from->bits == NULL)
        return;
    if (into->bits == NULL) {
        eval_mark(c, into, 0, from->n);
        if (into->bits == NULL)
            return;
        into->bits[0] = 0;
    }
    for (size_t w = 0; w < (from->n + 63) / 64; w++)
        into->bits[w] |= from->bits[w];
}

/* ---- errors ---- */

typedef struct strbuf {
    char *data;
    size_t len, cap;
    char local[256];
} strbuf;

static void sb_init(strbuf *b)
{
    b->data = b->local, b->len = 0, b->cap = sizeof b->local;
    b->data[0] = '\0';
}

NOINLINE static void sb_grow_put(strbuf *b, const char *s, size_t n)
{
    size_t cap = b->cap * 2;
    while (cap < b->len + n + 1)
        cap *= 2;
    char *grown = b->data == b->local ? malloc(cap) : realloc(b->data, cap);
    if (grown == NULL)
        return;
    if (b->data == b->local)
        memcpy(grown, b->local, b->len);
    b->data = grown, b->cap = cap;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

static inline void sb_put(strbuf *b, const char *s, size_t n)
{
    if (__builtin_expect(b->len + n + 1 > b->cap, 0)) {
        sb_grow_put(b, s, n);
        return;
    }
    char *to = b->data + b->len;
    if (n <= 16) /* path pieces and punctuation: no call */
        for (size_t i = 0; i < n; i++)
            to[i] = s[i];
    else
        memcpy(to, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

static void sb_puts(strbuf *b, const char *s) { sb_put(b, s, strlen(s)); }

static void sb_free(strbuf *b)
{
    if (b->data != b->local)
        free(b->data);
}

/* A JSON string literal of `s` into `b`, cut after `max` bytes with "...".
 * Runs of bytes that need no escape go in one piece. */
static void sb_quote(strbuf *b, const char *s, size_t len, size_t max)
{
    static const char hex[] = "0123456789abcdef";
    sb_put(b, "\"", 1);
    size_t n = len > max ? max : len, run = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch != '"' && ch != '\\' && ch >= 0x20)
            continue;
        sb_put(b, s + run, i - run);
        run = i + 1;
        char esc[6] = {'\\', (char)ch};
        if (ch >= 0x20) {
            sb_put(b, esc, 2);
            continue;
        }
        esc[1] = 'u', esc[2] = '0', esc[3] = '0', esc[4] = hex[ch >> 4], esc[5] = hex[ch & 15];
        sb_put(b, esc, 6);
    }
    sb_put(b, s + run, n - run);
    if (len > max)
        sb_put(b, "...", 3);
    sb_put(b, "\"", 1);
}

/* Decimal digits of `value` into `out` (at least 21 bytes); returns the length. */
static size_t put_decimal(char *out, size_t value)
{
    char digits[24];
    size_t n = 0;
    do
        digits[n++] = (char)('0' + value % 10);
    while ((value /= 10) != 0);
    for (size_t i = 0; i < n; i++)
        out[i] = digits[n - 1 - i];
    return n;
}

/* Bytes of a member name: 1 an identifier byte ([A-Za-z_$], and
 * digits after the first), 2 one a JSON Pointer escapes ('~', '/'). A table:
 * one load a byte, for every key of every error's path (bytes >= 0x80: 0). */
static const unsigned char key_byte_classes[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x00 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x10 */
    0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, /* 0x20 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, /* 0x30 */
    0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x40 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, /* 0x50 */
    0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x60 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 2, 0, /* 0x70 */
};

static inline unsigned char key_byte_class(unsigned char ch) { return key_byte_classes[ch]; }

static void render_paths(const vctx *c, strbuf *pointer, strbuf *dollar)
{
    sb_put(dollar, "$", 1);
    for (size_t i = 0; i < c->path_len; i++) {
        const path_seg *seg = &c->path[i];
        char digits[32];
        if (seg->key == NULL) {
            digits[0] = '/';
            size_t n = put_decimal(digits + 1, seg->len);
            sb_put(pointer, digits, n + 1);
            digits[0] = '[', digits[n + 1] = ']';
            sb_put(dollar, digits, n + 2);
            continue;
        }
        /* one look at each byte: an identifier? anything to escape? */
        unsigned seen = 0, all = 1;
        for (size_t k = 0; k < seg->len; k++) {
            unsigned cls = key_byte_class((unsigned char)seg->key[k]);
            seen |= cls, all &= cls;
        }
        sb_put(pointer, "/", 1);
        if (seen & 2) {
            size_t run = 0; /* bytes since the last escaped one, written in one piece */
            for (size_t k = 0; k < seg->len; k++) {
                if (seg->key[k] != '~' && seg->key[k] != '/')
                    continue;
                sb_put(pointer, seg->key + run, k - run);
                sb_put(pointer, seg->key[k] == '~' ? "~0" : "~1", 2);
                run = k + 1;
            }
            sb_put(pointer, seg->key + run, seg->len - run);
        } else
            sb_put(pointer, seg->key, seg->len);
        bool identifier = seg->len > 0 && all == 1 && !(seg->key[0] >= '0' && seg->key[0] <= '9');
        if (identifier)
            sb_put(dollar, ".", 1), sb_put(dollar, seg->key, seg->len);
        else
            sb_put(dollar, "[", 1), sb_quote(dollar, seg->key, seg->len, (size_t)-1), sb_put(dollar, "]", 1);
    }
}

static gt_schema_error *error_slot(vctx *c, size_t at)
{
    gt_schema_errors *e = c->errs;
    if (e->count == e->capacity) {
        size_t cap = e->capacity ? e->capacity * 2 : 16;
        gt_schema_error *grown = realloc(e->items, cap * sizeof *grown);
        if (grown == NULL) {
            c->fatal = true;
            return NULL;
        }
        e->items = grown, e->capacity = cap;
    }
    memmove(&e->items[at + 1], &e->items[at], (e->count - at) * sizeof *e->items);
    e->count++;
    return &e->items[at];
}

/* Record an error at position `at` of the list (normally the end); its
 * message is the `alen` bytes at `a` then the `blen` at `b`. */
static inline __attribute__((always_inline)) void add_error_parts(vctx *c, size_t at, const char *keyword,
                                                                  const char *location, const char *a, size_t alen,
                                                                  const char *b, size_t blen)
{
    if (c->failure == GT_SCHEMA_FAILURE_NONE && !charge(c, location, 1 + c->path_len))
        return; /* an error costs its path: a schema must not buy unbounded output */
    strbuf pointer, dollar;
    sb_init(&pointer), sb_init(&dollar);
    render_paths(c, &pointer, &dollar);
    gt_schema_error *e = error_slot(c, at);
    if (e != NULL) {
        /* the five strings in one block of the list's arena (the message in its two parts) */
        const char *parts[6] = {pointer.data, dollar.data, location, keyword, a, b};
        size_t lens[6] = {pointer.len, dollar.len, strlen(location), strlen(keyword), alen, blen};
        size_t total = lens[0] + lens[1] + lens[2] + lens[3] + lens[4] + lens[5] + 5;
        char *block = gt_arena_alloc(c->errs->strings, total);
        const char *copies[5] = {"", "", "", "", ""};
        if (block == NULL)
            c->fatal = true;
        for (size_t i = 0; i < 5 && block != NULL; i++) {
            memcpy(block, parts[i], lens[i]);
            if (i == 4 && lens[5] > 0)
                memcpy(block + lens[4], parts[5], lens[5]);
            size_t len = lens[i] + (i == 4 ? lens[5] : 0);
            block[len] = '\0';
            copies[i] = block;
            block += len + 1;
        }
        e->instance_path = copies[0];
        e->instance_path_dollar = copies[1];
        e->keyword_location = copies[2];
        e->keyword = copies[3];
        e->message = copies[4];
    }
    sb_free(&pointer), sb_free(&dollar);
    if (c->errs->max_errors != 0 && c->errs->count >= c->errs->max_errors) {
        c->errs->count = c->errs->max_errors;
        c->stop = true;
    }
}

NOINLINE static void add_error_at(vctx *c, size_t at, const char *keyword, const char *location, const char *message)
{
    if (!c->collect || c->stop)
        return;
    add_error_parts(c, at, keyword, location, message, strlen(message), NULL, 0);
}

static void add_error(vctx *c, const sc_kw *kw, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
NOINLINE static void add_error(vctx *c, const sc_kw *kw, const char *fmt, ...)
{
    if (!c->collect || c->stop)
        return;
    char message[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    add_error_at(c, c->errs->count, kw->name, kw->location, message);
}

/* add_error(c, kw, "%s%s", a, b) without the formatting: the message cut
 * where vsnprintf into add_error's 512 bytes would cut it. */
NOINLINE static void add_error_cat(vctx *c, const sc_kw *kw, const char *a, const char *b)
{
    if (!c->collect || c->stop)
        return;
    const size_t room = 511; /* add_error's 512-byte message buffer, less its NUL */
    size_t alen = strlen(a), blen = b ? strlen(b) : 0;
    if (alen > room)
        alen = room;
    if (blen > room - alen)
        blen = room - alen;
    add_error_parts(c, c->errs->count, kw->name, kw->location, a, alen, b, blen);
}

/* Stop the evaluation because a bound was hit, remembering where and why:
 * gt_schema_validate turns it into the only error of the list. */
static void fail_limit(vctx *c, gt_schema_failure failure, const char *location, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
NOINLINE static void fail_limit(vctx *c, gt_schema_failure failure, const char *location, const char *fmt, ...)
{
    if (c->fatal)
        return;
    c->fatal = true;
    c->failure = failure;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->failure_message, sizeof c->failure_message, fmt, ap);
    va_end(ap);
    c->failure_location = location;
    if (c->errs != NULL && !c->verdict_only) {
        strbuf pointer, dollar;
        sb_init(&pointer), sb_init(&dollar);
        render_paths(c, &pointer, &dollar);
        c->failure_path = gt_arena_strndup(c->errs->strings, pointer.data, pointer.len);
        c->failure_path_dollar = gt_arena_strndup(c->errs->strings, dollar.data, dollar.len);
        sb_free(&pointer), sb_free(&dollar);
    }
}

/* Count `units` of work against the evaluation budget (and, every so often,
 * the deadline). False when a bound was hit. */
static inline bool charge(vctx *c, const char *location, size_t units)
{
    size_t before = c->evaluations;
    c->evaluations += units;
    if (c->evaluations > c->max_evaluations) {
        fail_limit(c, GT_SCHEMA_FAILURE_BUDGET, location,
                   "evaluation budget exhausted: more than %zu subschema evaluations", c->max_evaluations);
        return false;
    }
    if (c->deadline_ms != 0 && (before >> 10) != (c->evaluations >> 10) && gt_schema_clock_ms() >= c->deadline_ms) {
        fail_limit(c, GT_SCHEMA_FAILURE_DEADLINE, location, "evaluation deadline passed");
        return false;
    }
    return true;
}

/* ---- keyword families ---- */

NOINLINE static bool kw_type(vctx *c, const sc_node *n, const sc_kw *kw, const gt_value *inst)
{
    if (sc_instance_bits(inst, n->dialect) & kw->u.types)
        return true;
    add_error_cat(c, kw, kw->message, instance_type_name(inst, n->dialect)); /* "expected integer, got " */
    return false;
}

static void render_value(strbuf *b, const gt_value *v, size_t max)
{
    if (v->type == GT_STRING) {
        sb_quote(b, v->u.str.chars, v->u.str.len, max);
        return;
    }
    size_t len;
    char *json = gt_value_to_json(v, &len);
    if (json == NULL)
        return;
    sb_put(b, json, len > max ? max : len);
    if (len > max)
        sb_puts(b, "...");
    free(json);
}

NOINLINE static bool kw_enum(vctx *c, const sc_kw *kw, const gt_value *inst)
{
    if (sc_enum_has(kw->value, inst))
        return true;
    add_error_cat(c, kw, kw->message, NULL);
    return false;
}

NOINLINE static bool kw_const(vctx *c, const sc_kw *kw, const gt_value *inst)
{
    if (gt_value_equal(kw->value, inst))
        return true;
    add_error_cat(c, kw, kw->message, NULL);
    return false;
}

/* "expected integer from 1 through 5", "expected number > 0 and <= 5", ... */
static void bounds_message(const sc_node *n, char *buf, size_t cap)
{
    const char *what = n->type_mask == SC_T_INTEGER ? "integer" : "number";
    const gt_value *lo = n->exclusive_minimum ? n->exclusive_minimum : n->minimum;
    const gt_value *hi = n->exclusive_maximum ? n->exclusive_maximum : n->maximum;
    bool lo_ex = n->exclusive_minimum != NULL || n->exclusive_min_flag;
    bool hi_ex = n->exclusive_maximum != NULL || n->exclusive_max_flag;
    if (lo && hi && !lo_ex && !hi_ex)
        snprintf(buf, cap, "expected %s from %s through %s", what, lo->u.num.text, hi->u.num.text);
    else if (lo && hi)
        snprintf(buf, cap, "expected %s %s %s and %s %s", what, lo_ex ? ">" : ">=", lo->u.num.text, hi_ex ? "<" : "<=",
                 hi->u.num.text);
    else if (lo)
        snprintf(buf, cap, "expected %s %s %s", what, lo_ex ? ">" : ">=", lo->u.num.text);
    else if (hi)
        snprintf(buf, cap, "expected %s %s %s", what, hi_ex ? "<" : "<=", hi->u.num.text);
    else
        snprintf(buf, cap, "number out of range");
}

NOINLINE static bool kw_bound(vctx *c, const sc_node *n, const sc_kw *kw, const gt_value *inst)
{
    bool ok = sc_bound_holds(n, kw, inst);
    if (!ok)
        add_error_cat(c, kw, kw->message, NULL);
    return ok;
}

NOINLINE static bool kw_multiple_of(vctx *c, const sc_kw *kw, const gt_value *inst)
{
    if (gt_number_is_multiple(inst, kw->value))
        return true;
    add_error_cat(c, kw, kw->message, NULL);
    return false;
}

/* The messages of the keywords whose message depends on the schema alone
 * (enum, const, the bounds, multipleOf; the "expected T, got " head of
 * type), rendered once at compile time into kw->message, exactly as the
 * evaluation rendered them per error before. A node's bounds message reads
 * its sibling keywords, so this runs once every keyword of `n` is compiled. */
void sc_prepare_messages(gt_schema *s, sc_node *n)
{
    for (size_t k = 0; k < n->nkw; k++) {
        sc_kw *kw = &n->kws[k];
        strbuf b;
        sb_init(&b);
        char fixed[512];
        const char *text = NULL;
        switch (kw->kind) {
        case KW_TYPE: {
            const gt_value *v = kw->value;
            size_t count = v->type == GT_ARRAY ? v->u.arr.count : 1;
            sb_puts(&b, "expected ");
            for (size_t i = 0; i < count; i++) {
                const gt_value *name = v->type == GT_ARRAY ? v->u.arr.items[i] : v;
                if (i > 0)
                    sb_puts(&b, i + 1 == count ? " or " : ", ");
                sb_puts(&b, name->type == GT_STRING ? name->u.str.chars : "?");
            }
            sb_puts(&b, ", got ");
            text = b.data;
            break;
        }
        case KW_ENUM: {
            const gt_value *list = kw->value;
            for (size_t i = 0; i < list->u.arr.count && i < 12; i++) {
                if (i > 0)
                    sb_puts(&b, ", ");
                render_value(&b, list->u.arr.items[i], 48);
            }
            if (list->u.arr.count > 12)
                sb_puts(&b, ", ...");
            snprintf(fixed, sizeof fixed, "expected one of %s", b.data);
            text = fixed;
            break;
        }
        case KW_CONST:
            render_value(&b, kw->value, 120);
            snprintf(fixed, sizeof fixed, "expected %s", b.data);
            text = fixed;
            break;
        case KW_MAXIMUM:
        case KW_MINIMUM:
        case KW_EXCLUSIVE_MAXIMUM:
        case KW_EXCLUSIVE_MINIMUM: bounds_message(n, fixed, 256), text = fixed; break;
        case KW_MULTIPLE_OF:
            snprintf(fixed, sizeof fixed, "expected a multiple of %s", kw->value->u.num.text);
            text = fixed;
            break;
        default: break;
        }
        if (text != NULL)
            kw->message = sc_strdup(s, text);
        sb_free(&b);
        if (text != NULL && kw->message == NULL)
            return;
    }
}

NOINLINE static bool kw_length(vctx *c, const sc_node *n, const sc_kw *kw, const gt_value *inst)
{
    size_t bytes = inst->u.str.len;
    bool is_max = kw->kind == KW_MAX_LENGTH;
    if (is_max ? bytes <= kw->u.count : bytes / 4 >= kw->u.count)
        return true; /* code points lie between bytes/4 and bytes */
    size_t length = sc_utf8_length(inst->u.str.chars, bytes);
    if (is_max ? length <= kw->u.count : length >= kw->u.count)
        return true;
    if (c->collect) {
        if (n->min_length && n->max_length)
            add_error(c, kw, "expected string of %s to %s characters, got %zu", n->min_length->u.num.text,
                      n->max_length->u.num.text, length);
        else
            add_error(c, kw, "expected string of %s %zu character%s, got %zu", is_max ? "at most" : "at least",
                      kw->u.count, kw->u.count == 1 ? "" : "s", length);
    }
    return false;
}

static pcre2_match_data *match_data(vctx *c)
{
    if (c->md == NULL) {
        c->md = pcre2_match_data_create(1, NULL);
        if (c->md == NULL)
            c->fatal = true;
    }
    return c->md;
}

/* 1 match, 0 no match, -1 stopped (a regex limit or out of memory: fatal).
 * The first try runs the JIT on its small default stack; only a pattern that
 * needs more gets the match context with a big JIT stack and the limits. */
static int regex_search(vctx *c, const sc_regex *re, const char *text, size_t len, const char *location)
{
    pcre2_match_data *md = match_data(c);
    if (md == NULL)
        return -1;
    int rc = sc_regex_search(re, text, len, md, NULL);
    if (rc == PCRE2_ERROR_JIT_STACKLIMIT) {
        if (c->limits == NULL && (c->limits = sc_regex_limits_new(&c->jit_stack)) == NULL) {
            c->fatal = true;
            return -1;
        }
        rc = sc_regex_search(re, text, len, md, c->limits);
    }
    if (rc >= 0)
        return rc;
    char limit[96];
    if (sc_regex_limit_describe(rc, limit, sizeof limit))
        fail_limit(c, GT_SCHEMA_FAILURE_REGEX_LIMIT, location, "pattern /%.120s/ hit the regex %s on a %zu-byte string",
                   re->source, limit, len);
    else
        c->fatal = true;
    return -1;
}

NOINLINE static bool kw_pattern(vctx *c, const sc_kw *kw, const gt_value *inst)
{
    int rc = regex_search(c, &kw->u.re, inst->u.str.chars, inst->u.str.len, kw->location);
    if (rc == 1)
        return true;
    if (rc == 0)
        add_error(c, kw, "expected string matching /%.160s/", kw->u.re.source);
    return false;
}

NOINLINE static bool kw_format(vctx *c, const sc_kw *kw, const gt_value *inst)
{
    if (kw->u.format(inst->u.str.chars, inst->u.str.len))
        return true;
    add_error(c, kw, "expected a valid %s string", kw->value->u.str.chars);
    return false;
}

/* Validate a child location (member or item) with a fresh annotation set. */
static bool validate_child(vctx *c, const sc_node *n, const gt_value *inst)
{
    evalset child = {0};
    return validate_node(c, n, inst, c->track ? &child : NULL);
}

/* Validate in place; annotations reach `ev` only when the subschema passes. */
static bool validate_in_place(vctx *c, const sc_node *n, const gt_value *inst, evalset *ev)
{
    if (!c->track)
        return validate_node(c, n, inst, NULL);
    evalset tmp = {0};
    bool ok = validate_node(c, n, inst, &tmp);
    if (ok)
        eval_merge(c, ev, &tmp);
    return ok;
}

/* Run `fn` with error collection off; restores the mode. */
static bool probe_node(vctx *c, const sc_node *n, const gt_value *inst, evalset *ev)
{
    bool saved = c->collect;
    c->collect = false;
    bool ok = validate_in_place(c, n, inst, ev);
    c->collect = saved;
    return ok;
}

/* ---- arrays ---- */

static bool items_false(vctx *c, const sc_kw *kw, size_t start, size_t count)
{
    add_error(c, kw, "expected at most %zu item%s, got %zu", start, start == 1 ? "" : "s", count);
    return false;
}

static bool kw_items(vctx *c, const sc_kw *kw, const gt_value *inst, evalset *ev)
{
    size_t count = inst->u.arr.count, start = kw->u.sub.start;
    const sc_node *sub = kw->u.sub.schema;
    if (start >= count)
        return true;
    if (sub->is_bool && !sub->bool_value)
        return items_false(c, kw, start, count);
    bool ok = true;
    for (size_t i = start; i < count && (ok || c->collect) && !c->stop; i++) {
        if (!push_index(c, i))
            return false;
        ok &= validate_child(c, sub, inst->u.arr.items[i]);
        pop(c);
        eval_mark(c, ev, i, count);
    }
    return ok;
}

static bool kw_prefix_items(vctx *c, const sc_kw *kw, const gt_value *inst, evalset *ev)
{
    size_t count = inst->u.arr.count;
    bool ok = true;
    for (size_t i = 0; i < count && i < kw->u.list.count && (ok || c->collect) && !c->stop; i++) {
        if (!push_index(c, i))
            return false;
        ok &= validate_child(c, kw->u.list.nodes[i], inst->u.arr.items[i]);
        pop(c);
        eval_mark(c, ev, i, count);
    }
    return ok;
}

NOINLINE static bool kw_count(vctx *c, const sc_kw *kw, size_t have, const char *noun)
{
    bool is_max = kw->kind == KW_MAX_ITEMS || kw->kind == KW_MAX_PROPERTIES;
    if (is_max ? have <= kw->u.count : have >= kw->u.count)
        return true;
    const char *plural = strcmp(noun, "property") == 0 ? "properties" : "items";
    add_error(c, kw, "expected %s %zu %s, got %zu", is_max ? "at most" : "at least", kw->u.count,
              kw->u.count == 1 ? noun : plural, have);
    return false;
}

NOINLINE static bool kw_unique(vctx *c, const sc_kw *kw, const gt_value *inst)
{
    size_t count = inst->u.arr.count;
    for (size_t i = 0; i < count; i++) {
        if (!charge(c, kw->location, (count - i) / 64))
            return false;
        for (size_t j = i + 1; j < count; j++)
            if (gt_value_equal(inst->u.arr.items[i], inst->u.arr.items[j])) {
                add_error(c, kw, "expected unique items, but items %zu and %zu are equal", i, j);
                return false;
            }
    }
    return true;
}


NOINLINE static bool kw_contains(vctx *c, const sc_node *n, const sc_kw *kw, const gt_value *inst, evalset *ev)
{
    size_t count = inst->u.arr.count, matched = 0;
    size_t min = n->min_contains ? sc_count_of(n->min_contains) : 1;
    size_t max = n->max_contains ? sc_count_of(n->max_contains) : (size_t)-1;
    bool annotate = n->dialect == GT_SCHEMA_DRAFT2020_12;
    bool saved = c->collect;
    c->collect = false;
    for (size_t i = 0; i < count && !c->fatal; i++) {
        if (validate_child(c, kw->u.sub.schema, inst->u.arr.items[i])) {
            matched++;
            if (annotate)
                eval_mark(c, ev, i, count);
            else if (matched > max || (matched >= min && !c->track && max == (size_t)-1))
                break;
        }
    }
    c->collect = saved;
    if (matched >= min && matched <= max)
        return true;
    if (n->min_contains || n->max_contains)
        add_error(c, kw, "expected %s %zu item%s matching \"contains\", got %zu", matched < min ? "at least" : "at most",
                  matched < min ? min : max, (matched < min ? min : max) == 1 ? "" : "s", matched);
    else
        add_error(c, kw, "expected at least one item matching \"contains\"");
    return false;
}

static bool kw_unevaluated_items(vctx *c, const sc_kw *kw, const gt_value *inst, evalset *ev)
{
    size_t count = inst->u.arr.count;
    const sc_node *sub = kw->u.sub.schema;
    bool ok = true;
    for (size_t i = 0; i < count && (ok || c->collect) && !c->stop; i++) {
        if (eval_has(ev, i))
            continue;
        if (!push_index(c, i))
            return false;
        if (sub->is_bool && !sub->bool_value) {
            add_error(c, kw, "unexpected item at index %zu", i);
            ok = false;
        } else
            ok &= validate_child(c, sub, inst->u.arr.items[i]);
        pop(c);
        eval_mark(c, ev, i, count);
    }
    return ok;
}

/* ---- objects ---- */


static bool kw_properties(vctx *c, const sc_kw *kw, const gt_value *inst, evalset *ev)
{
    bool ok = true;
    size_t count = inst->u.obj.count, i;
    uint64_t declared = 0, entries = 0;
    for (i = 0; i < count && (ok || c->collect) && !c->stop; i++) {
        const gt_member *m = &inst->u.obj.members[i];
        const sc_prop *p = sc_find_prop_at(kw, i, m->key, m->key_len);
        if (p == NULL)
            continue;
        size_t entry = (size_t)(p - kw->u.props.props);
        declared |= i < 64 ? 1ull << i : 0;
        entries |= entry < 64 ? 1ull << entry : 0;
        eval_mark(c, ev, i, count);
        if (p->schema->is_bool && p->schema->bool_value)
            continue;
        if (!push_key(c, m->key, m->key_len))
            return false;
        ok &= validate_child(c, p->schema, m->value);
        pop(c);
    }
    if (i == count && count <= 64) /* after the children, which may have used it */
        c->props_inst = inst, c->props_kw = kw, c->props_declared = declared, c->props_entries = entries;
    return ok;
}

static bool kw_pattern_properties(vctx *c, const sc_kw *kw, const gt_value *inst, evalset *ev)
{
    bool ok = true;
    size_t count = inst->u.obj.count;
    for (size_t i = 0; i < count && (ok || c->collect) && !c->stop; i++) {
        const gt_member *m = &inst->u.obj.members[i];
        for (size_t k = 0; k < kw->u.pats.count; k++) {
            const sc_pattern_prop *pp = &kw->u.pats.pats[k];
            int rc = regex_search(c, &pp->re, m->key, m->key_len, kw->location);
            if (rc < 0)
                return false;
            if (rc == 0)
                continue;
            eval_mark(c, ev, i, count);
            if (!push_key(c, m->key, m->key_len))
                return false;
            ok &= validate_child(c, pp->schema, m->value);
            pop(c);
        }
    }
    return ok;
}

/* Is member `i` of `inst` declared by properties or patternProperties? */
static bool matched_elsewhere(vctx *c, const sc_node *n, const gt_value *inst, size_t i)
{
    const gt_member *m = &inst->u.obj.members[i];
    if (n->properties && c->props_inst == inst && c->props_kw == n->properties) {
        if ((c->props_declared >> i) & 1)
            return true;
    } else if (n->properties && sc_find_prop_at(n->properties, i, m->key, m->key_len))
        return true;
    if (n->pattern_properties)
        for (size_t k = 0; k < n->pattern_properties->u.pats.count; k++)
            if (regex_search(c, &n->pattern_properties->u.pats.pats[k].re, m->key, m->key_len,
                             n->pattern_properties->location) == 1)
                return true;
    return false;
}

/* additionalProperties (`unevaluated` false) and unevaluatedProperties (true). */
NOINLINE static bool kw_extra_properties(vctx *c, const sc_node *n, const sc_kw *kw, const gt_value *inst, evalset *ev,
                                bool unevaluated)
{
    bool ok = true;
    size_t count = inst->u.obj.count;
    const sc_node *sub = kw->u.sub.schema;
    for (size_t i = 0; i < count && (ok || c->collect) && !c->stop; i++) {
        const gt_member *m = &inst->u.obj.members[i];
        if (unevaluated ? eval_has(ev, i) : matched_elsewhere(c, n, inst, i))
            continue;
        eval_mark(c, ev, i, count);
        if (sub->is_bool && sub->bool_value)
            continue;
        if (sub->is_bool) {
            if (c->collect) {
                /* reported at the extra member's own path, so a report and
                 * a repair prompt name the field that leaked */
                strbuf b;
                sb_init(&b);
                sb_quote(&b, m->key, m->key_len, 120);
                if (!push_key(c, m->key, m->key_len)) {
                    sb_free(&b);
                    return false;
                }
                add_error_cat(c, kw, "unexpected property ", b.data);
                pop(c);
                sb_free(&b);
            }
            ok = false;
            continue;
        }
        if (!push_key(c, m->key, m->key_len))
            return false;
        ok &= validate_child(c, sub, m->value);
        pop(c);
    }
    return ok;
}

static bool has_member(const gt_value *obj, const gt_value *name)
{
    return name->type == GT_STRING && gt_value_get(obj, name->u.str.chars, name->u.str.len) != NULL;
}

NOINLINE static bool kw_required(vctx *c, const sc_node *n, const sc_kw *kw, const gt_value *inst)
{
    /* every listed name is a `properties` entry (sc_fast_prepare) that the
     * complete pass over this instance found: nothing is missing */
    if (n->required_in_props && c->props_inst == inst && c->props_kw == n->properties &&
        (c->props_entries & n->required_props) == n->required_props)
        return true;
    const gt_value *names = kw->value;
    bool ok = true;
    for (size_t i = 0; i < names->u.arr.count && (ok || c->collect) && !c->stop; i++) {
        const gt_value *name = names->u.arr.items[i];
        if (has_member(inst, name) || name->type != GT_STRING)
            continue;
        ok = false;
        if (c->collect) {
            strbuf b;
            sb_init(&b);
            sb_quote(&b, name->u.str.chars, name->u.str.len, 120);
            add_error_cat(c, kw, "missing required property ", b.data);
            sb_free(&b);
        }
    }
    return ok;
}

NOINLINE static bool kw_dependencies(vctx *c, const sc_kw *kw, const gt_value *inst, evalset *ev)
{
    bool ok = true;
    for (size_t d = 0; d < kw->u.deps.count && (ok || c->collect) && !c->stop; d++) {
        const sc_dep *dep = &kw->u.deps.deps[d];
        if (gt_value_get(inst, dep->name, dep->len) == NULL)
            continue;
        if (dep->schema != NULL)
            ok &= validate_in_place(c, dep->schema, inst, ev);
        for (size_t i = 0; dep->required && i < dep->required->u.arr.count; i++) {
            const gt_value *name = dep->required->u.arr.items[i];
            if (has_member(inst, name) || name->type != GT_STRING)
                continue;
            ok = false;
            if (c->collect) {
                strbuf b;
                sb_init(&b);
                sb_quote(&b, dep->name, dep->len, 120);
                sb_puts(&b, " requires property ");
                sb_quote(&b, name->u.str.chars, name->u.str.len, 120);
                add_error_cat(c, kw, "property ", b.data);
                sb_free(&b);
            }
        }
    }
    return ok;
}

NOINLINE static bool kw_property_names(vctx *c, const sc_kw *kw, const gt_value *inst)
{
    bool ok = true;
    for (size_t i = 0; i < inst->u.obj.count && (ok || c->collect) && !c->stop; i++) {
        const gt_member *m = &inst->u.obj.members[i];
        gt_value name = {.type = GT_STRING, .u.str = {m->key, m->key_len}};
        bool saved = c->collect;
        c->collect = false;
        c->memo_off++; /* `name` lives on this stack frame: its address is no location */
        bool valid = validate_child(c, kw->u.sub.schema, &name);
        c->memo_off--;
        c->collect = saved;
        if (valid)
            continue;
        ok = false;
        if (c->collect) {
            strbuf b;
            sb_init(&b);
            sb_quote(&b, m->key, m->key_len, 120);
            add_error_cat(c, kw, "invalid property name ", b.data);
            sb_free(&b);
        }
    }
    return ok;
}

/* ---- applicators ---- */

static bool kw_all_of(vctx *c, const sc_kw *kw, const gt_value *inst, evalset *ev)
{
    bool ok = true;
    for (size_t i = 0; i < kw->u.list.count && (ok || c->collect) && !c->stop; i++)
        ok &= validate_in_place(c, kw->u.list.nodes[i], inst, ev);
    return ok;
}

/* One error for a failed anyOf/oneOf at the instance's own path: errors of
 * alternatives the model did not mean are noise in a report or a repair
 * prompt. The branches are re-run with errors on only to name the closest
 * one (fewest errors) in the message; their errors are then dropped. */
NOINLINE static void explain_branches(vctx *c, const sc_kw *kw, const gt_value *inst, const char *message)
{
    if (!c->collect || c->stop || c->fatal)
        return;
    size_t at = c->errs->count, saved_max = c->errs->max_errors;
    size_t best_count = (size_t)-1, best_branch = 0;
    char best[320] = "";
    c->errs->max_errors = 0;
    /* Inside another explanation only the outer message is kept: re-running
     * the branches there too would cost exponential time in nesting depth. */
    for (size_t i = 0; i < kw->u.list.count && c->explaining == 0; i++) {
        size_t before = c->errs->count;
        c->explaining++;
        validate_in_place(c, kw->u.list.nodes[i], inst, NULL);
        c->explaining--;
        size_t produced = c->errs->count - before;
        if (produced > 0 && produced < best_count) {
            const gt_schema_error *first = &c->errs->items[before];
            best_count = produced;
            best_branch = i;
            snprintf(best, sizeof best, "%s %s: %s", first->instance_path_dollar, first->keyword, first->message);
        }
        c->errs->count = before;
        c->stop = false;
    }
    c->errs->max_errors = saved_max;
    char full[640];
    if (best[0] != '\0')
        snprintf(full, sizeof full, "%s (closest is schema %zu: %s)", message, best_branch, best);
    else
        snprintf(full, sizeof full, "%s", message);
    add_error_at(c, at, kw->name, kw->location, full);
}

NOINLINE static bool kw_any_of(vctx *c, const sc_kw *kw, const gt_value *inst, evalset *ev)
{
    bool any = false;
    for (size_t i = 0; i < kw->u.list.count && !c->fatal; i++) {
        if (probe_node(c, kw->u.list.nodes[i], inst, ev)) {
            any = true;
            if (!c->track)
                break;
        }
    }
    if (any)
        return true;
    char message[160];
    snprintf(message, sizeof message, "expected to match at least one of the %zu anyOf schemas", kw->u.list.count);
    explain_branches(c, kw, inst, message);
    return false;
}

NOINLINE static bool kw_one_of(vctx *c, const sc_kw *kw, const gt_value *inst, evalset *ev)
{
    size_t matched = 0, first = 0, second = 0;
    evalset keep = {0};
    for (size_t i = 0; i < kw->u.list.count && matched < 2 && !c->fatal; i++) {
        evalset tmp = {0};
        if (probe_node(c, kw->u.list.nodes[i], inst, c->track ? &tmp : NULL)) {
            if (matched++ == 0)
                first = i, keep = tmp;
            else
                second = i;
        }
    }
    if (matched == 1) {
        eval_merge(c, ev, &keep);
        return true;
    }
    char message[200];
    if (matched == 0) {
        snprintf(message, sizeof message, "expected to match exactly one of the %zu oneOf schemas, matched none",
                 kw->u.list.count);
        explain_branches(c, kw, inst, message);
    } else {
        snprintf(message, sizeof message,
                 "expected to match exactly one of the %zu oneOf schemas, but schemas %zu and %zu both match",
                 kw->u.list.count, first, second);
        if (c->collect)
            add_error_at(c, c->errs->count, kw->name, kw->location, message);
    }
    return false;
}

static bool kw_not(vctx *c, const sc_kw *kw, const gt_value *inst)
{
    evalset tmp = {0};
    if (!probe_node(c, kw->u.sub.schema, inst, c->track ? &tmp : NULL))
        return true;
    add_error(c, kw, "expected not to match the \"not\" schema");
    return false;
}

static bool kw_if(vctx *c, const sc_kw *kw, const gt_value *inst, evalset *ev)
{
    bool holds = probe_node(c, kw->u.cond.if_node, inst, ev);
    const sc_node *next = holds ? kw->u.cond.then_node : kw->u.cond.else_node;
    return next == NULL || validate_in_place(c, next, inst, ev);
}

/* $dynamicRef: the outermost resource in the dynamic scope with the anchor. */
static const sc_node *dynamic_target(const vctx *c, const sc_kw *kw)
{
    for (size_t i = 0; i < c->scope_len; i++) {
        const sc_resource *res = c->scope[i];
        for (size_t a = 0; a < res->nanchors; a++)
            if (res->anchors[a].dynamic && res->anchors[a].node &&
                strcmp(res->anchors[a].name, kw->u.ref.dynamic_name) == 0)
                return res->anchors[a].node;
    }
    return kw->u.ref.target;
}

/* $recursiveRef: the outermost resource with `$recursiveAnchor: true`, when the
 * static target has one too. */
static const sc_node *recursive_target(const vctx *c, const sc_kw *kw)
{
    const sc_node *target = kw->u.ref.target;
    if (target->resource == NULL || !target->resource->recursive_anchor)
        return target;
    for (size_t i = 0; i < c->scope_len; i++)
        if (c->scope[i]->recursive_anchor && c->scope[i]->root_node)
            return c->scope[i]->root_node;
    return target;
}

static bool kw_ref(vctx *c, const sc_kw *kw, const gt_value *inst, evalset *ev)
{
    const sc_node *target = kw->kind == KW_DYNAMIC_REF     ? dynamic_target(c, kw)
                            : kw->kind == KW_RECURSIVE_REF ? recursive_target(c, kw)
                                                           : kw->u.ref.target;
    return validate_in_place(c, target, inst, ev);
}

/* ---- dispatch ---- */

/* `bits`: the instance's type bits (instance_bits), computed once per node. */
static bool eval_kw(vctx *c, const sc_node *n, const sc_kw *kw, const gt_value *inst, uint32_t bits, evalset *ev)
{
    switch (kw->kind) {
    case KW_TYPE: return (bits & kw->u.types) != 0 || kw_type(c, n, kw, inst);
    case KW_ENUM: return kw_enum(c, kw, inst);
    case KW_CONST: return kw_const(c, kw, inst);
    case KW_MULTIPLE_OF: return kw_multiple_of(c, kw, inst);
    case KW_MAXIMUM:
    case KW_MINIMUM:
    case KW_EXCLUSIVE_MAXIMUM:
    case KW_EXCLUSIVE_MINIMUM: return kw_bound(c, n, kw, inst);
    case KW_MAX_LENGTH:
    case KW_MIN_LENGTH: return kw_length(c, n, kw, inst);
    case KW_PATTERN: return kw_pattern(c, kw, inst);
    case KW_FORMAT: return kw_format(c, kw, inst);
    case KW_ITEMS: return kw_items(c, kw, inst, ev);
    case KW_PREFIX_ITEMS: return kw_prefix_items(c, kw, inst, ev);
    case KW_MAX_ITEMS:
    case KW_MIN_ITEMS: return kw_count(c, kw, inst->u.arr.count, "item");
    case KW_UNIQUE_ITEMS: return kw_unique(c, kw, inst);
    case KW_CONTAINS: return kw_contains(c, n, kw, inst, ev);
    case KW_MAX_PROPERTIES:
    case KW_MIN_PROPERTIES: return kw_count(c, kw, inst->u.obj.count, "property");
    case KW_REQUIRED: return kw_required(c, n, kw, inst);
    case KW_PROPERTIES: return kw_properties(c, kw, inst, ev);
    case KW_PATTERN_PROPERTIES: return kw_pattern_properties(c, kw, inst, ev);
    case KW_ADDITIONAL_PROPERTIES: return kw_extra_properties(c, n, kw, inst, ev, false);
    case KW_DEPENDENT_REQUIRED:
    case KW_DEPENDENT_SCHEMAS: return kw_dependencies(c, kw, inst, ev);
    case KW_PROPERTY_NAMES: return kw_property_names(c, kw, inst);
    case KW_ALL_OF: return kw_all_of(c, kw, inst, ev);
    case KW_ANY_OF: return kw_any_of(c, kw, inst, ev);
    case KW_ONE_OF: return kw_one_of(c, kw, inst, ev);
    case KW_NOT: return kw_not(c, kw, inst);
    case KW_IF: return kw_if(c, kw, inst, ev);
    case KW_REF:
    case KW_DYNAMIC_REF:
    case KW_RECURSIVE_REF: return kw_ref(c, kw, inst, ev);
    case KW_UNEVALUATED_ITEMS: return kw_unevaluated_items(c, kw, inst, ev);
    case KW_UNEVALUATED_PROPERTIES: return kw_extra_properties(c, n, kw, inst, ev, true);
    }
    return true;
}

/* A node on an in-place reference cycle (sc_node.loop_guard) entered again
 * for the same instance would recurse forever: stop with the failure
 * schema_ref_cycle (GT_SCHEMA_ERROR, one error naming the node). Returns false
 * after reporting; true once the pair is recorded. */
NOINLINE static bool enter_loop_guard(vctx *c, const sc_node *n, const gt_value *inst)
{
    for (size_t i = 0; i < c->guards_len; i += 2)
        if (c->guards[i] == n && c->guards[i + 1] == inst) {
            fail_limit(c, GT_SCHEMA_FAILURE_REF_CYCLE, n->location,
                       "reference loop: the schema at \"%.300s\" applies itself to this instance again without "
                       "descending into it",
                       n->location);
            return false;
        }
    if (c->guards_len + 2 > c->guards_cap &&
        !grow((void **)&c->guards, &c->guards_cap, sizeof(*c->guards), (void *)c->guards_local)) {
        c->fatal = true;
        return false;
    }
    c->guards[c->guards_len++] = n;
    c->guards[c->guards_len++] = inst;
    return true;
}

static bool push_scope(vctx *c, const sc_resource *res)
{
    if (c->scope_len > 0 && c->scope[c->scope_len - 1] == res)
        return false;
    if (c->scope_len == c->scope_cap &&
        !grow((void **)&c->scope, &c->scope_cap, sizeof(*c->scope), (void *)c->scope_local)) {
        c->fatal = true;
        return false;
    }
    c->scope[c->scope_len++] = res;
    return true;
}

static size_t memo_slot(const vctx *c, const sc_node *n, const gt_value *inst)
{
    uint64_t h = ((uint64_t)(uintptr_t)n * 0x9e3779b97f4a7c15u) ^ ((uint64_t)(uintptr_t)inst * 0xc2b2ae3d27d4eb4fu);
    return (size_t)(h ^ (h >> 29)) & (c->memo_cap - 1);
}

static const memo_entry *memo_find(const vctx *c, const sc_node *n, const gt_value *inst)
{
    if (c->memo == NULL)
        return NULL;
    /* At most memo_cap probes: the table is kept half empty, but the end of
     * the search must not rest on that alone (a full table is a miss). */
    size_t at = memo_slot(c, n, inst);
    for (size_t probes = 0; probes < c->memo_cap; probes++, at = (at + 1) & (c->memo_cap - 1)) {
        const memo_entry *e = &c->memo[at];
        if (e->node == NULL)
            return NULL;
        if (e->node == n && e->inst == inst)
            return e;
    }
    return NULL;
}

/* Remember a verdict; silently forgets when full or out of memory (the memo
 * only saves time, the budget bounds it). */
static void memo_store(vctx *c, const sc_node *n, const gt_value *inst, bool valid)
{
    if ((c->memo_count + 1) * 2 > c->memo_cap) {
        size_t cap = c->memo_cap ? c->memo_cap * 2 : SC_MEMO_FIRST_SLOTS;
        if (cap > SC_MEMO_MAX_SLOTS)
            return;
        memo_entry *table = calloc(cap, sizeof *table), *old = c->memo;
        if (table == NULL)
            return;
        size_t old_cap = c->memo_cap;
        c->memo = table, c->memo_cap = cap;
        for (size_t i = 0; i < old_cap; i++) {
            if (old[i].node == NULL)
                continue;
            size_t at = memo_slot(c, old[i].node, old[i].inst);
            while (table[at].node != NULL)
                at = (at + 1) & (cap - 1);
            table[at] = old[i];
        }
        free(old);
    }
    size_t at = memo_slot(c, n, inst), probes = 0;
    while (c->memo[at].node != NULL && !(c->memo[at].node == n && c->memo[at].inst == inst)) {
        if (++probes == c->memo_cap)
            return; /* full (see memo_find): forget */
        at = (at + 1) & (c->memo_cap - 1);
    }
    if (c->memo[at].node == NULL)
        c->memo_count++;
    c->memo[at] = (memo_entry){n, inst, valid};
}

static bool validate_node(vctx *c, const sc_node *n, const gt_value *inst, evalset *ev)
{
    if (c->stop || c->fatal)
        return false;
    if (n->is_bool) {
        if (n->bool_value)
            return true;
        if (c->collect)
            add_error_at(c, c->errs->count, "false", n->location, "no value is allowed here");
        return false;
    }
    if (!n->fast_leaf && c->memo_off == 0) {
        /* found valid by the fast pass: no error to find, only its cost to count
         * (unless the budget runs out inside: then it runs, to stop where it stops) */
        size_t units = sc_known_valid_units(c->known, n, inst);
        if (units != 0 && c->evaluations + units <= c->max_evaluations) {
            c->evaluations += units;
            return true;
        }
    }
    bool memo = n->memo && c->memo_ok && c->memo_off == 0;
    if (memo) {
        const memo_entry *seen = memo_find(c, n, inst);
        if (seen != NULL && (seen->valid || !c->collect))
            return seen->valid; /* a valid verdict leaves no errors, so it serves both modes */
    }
    char marker;
    if (c->stack_base - (uintptr_t)&marker > c->stack_budget) {
        fail_limit(c, GT_SCHEMA_FAILURE_TOO_DEEP, n->location,
                   "evaluation too deep: more than %zu bytes of stack (schema and instance nesting)", c->stack_budget);
        return false;
    }
    if (!charge(c, n->location, 1))
        return false;
    if (n->loop_guard && !enter_loop_guard(c, n, inst))
        return false;
    bool pushed = c->schema->uses_dynamic && push_scope(c, n->resource);
    uint32_t bits = sc_instance_bits(inst, n->dialect);
    bool ok = true;
    for (size_t i = 0; i < n->nkw; i++) {
        const sc_kw *kw = &n->kws[i];
        if (!(kw->applies & bits))
            continue;
        if (!eval_kw(c, n, kw, inst, bits, ev)) {
            ok = false;
            if (!c->collect || c->stop || c->fatal)
                break;
        }
    }
    if (pushed)
        c->scope_len--;
    if (n->loop_guard)
        c->guards_len -= 2;
    if (memo && !c->stop && !c->fatal)
        memo_store(c, n, inst, ok);
    return ok;
}

/* ---- public ---- */

void gt_schema_errors_init(gt_schema_errors *errors) { memset(errors, 0, sizeof *errors); }

void gt_schema_errors_clear(gt_schema_errors *errors)
{
    errors->count = 0;
    if (errors->strings)
        gt_arena_reset(errors->strings);
}

void gt_schema_errors_free(gt_schema_errors *errors)
{
    free(errors->items);
    gt_arena_free(errors->strings);
    gt_arena_free(errors->scratch);
    if (errors->match_data)
        pcre2_match_data_free(errors->match_data);
    sc_regex_limits_free(errors->match_context, errors->jit_stack);
    size_t max = errors->max_errors;
    long long deadline = errors->deadline_ms;
    memset(errors, 0, sizeof *errors);
    errors->max_errors = max;
    errors->deadline_ms = deadline;
}

const char *gt_schema_errors_reason(const gt_schema_errors *errors)
{
    return errors && errors->count > 0 ? errors->items[0].keyword : NULL;
}

static const char *const failure_codes[] = {
    [GT_SCHEMA_FAILURE_NONE] = NULL,
    [GT_SCHEMA_FAILURE_OUT_OF_MEMORY] = "out_of_memory",
    [GT_SCHEMA_FAILURE_TOO_DEEP] = "evaluation_too_deep",
    [GT_SCHEMA_FAILURE_BUDGET] = "evaluation_budget",
    [GT_SCHEMA_FAILURE_DEADLINE] = "evaluation_deadline",
    [GT_SCHEMA_FAILURE_REGEX_LIMIT] = "regex_limit",
    [GT_SCHEMA_FAILURE_REF_CYCLE] = "schema_ref_cycle",
};

const char *gt_schema_failure_code_str(gt_schema_failure failure)
{
    return (unsigned)failure < sizeof failure_codes / sizeof failure_codes[0] ? failure_codes[failure] : NULL;
}

bool gt_schema_failure_is_limit(gt_schema_failure failure)
{
    return failure != GT_SCHEMA_FAILURE_NONE && failure != GT_SCHEMA_FAILURE_OUT_OF_MEMORY &&
           gt_schema_failure_code_str(failure) != NULL;
}

long long gt_schema_clock_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/* A limit hit replaces whatever errors were collected by one error naming it
 * (partial errors of an unfinished evaluation would mislead a repair prompt). */
static void report_failure(vctx *c)
{
    gt_schema_errors *e = c->errs;
    e->failure = c->failure != GT_SCHEMA_FAILURE_NONE ? c->failure : GT_SCHEMA_FAILURE_OUT_OF_MEMORY;
    if (!gt_schema_failure_is_limit(e->failure))
        return;
    e->count = 0;
    c->path_len = 0;
    c->collect = true, c->stop = false;
    add_error_at(c, 0, gt_schema_failure_code_str(e->failure), c->failure_location ? c->failure_location : "",
                 c->failure_message);
    if (e->count == 1 && c->failure_path != NULL && c->failure_path_dollar != NULL) {
        e->items[0].instance_path = c->failure_path;
        e->items[0].instance_path_dollar = c->failure_path_dollar;
    }
}

/* The fast pass (schema_fast.c) for a valid document: VALID with the errors
 * left exactly as the full evaluation leaves them for one, or -1 when the
 * full evaluation must run (with what the pass found valid in `known`). */
static int validate_fast(const gt_schema *schema, const gt_value *instance, gt_schema_errors *errors,
                         sc_known_valid *known)
{
    if (!sc_fast_usable(schema) || errors->deadline_ms != 0)
        return -1;
    pcre2_match_data *md = errors->match_data;
    bool valid = sc_fast_valid(schema, instance, &md, known);
    errors->match_data = md;
    if (!valid)
        return -1;
    errors->failure = GT_SCHEMA_FAILURE_NONE;
    gt_schema_errors_clear(errors);
    if (errors->strings == NULL && (errors->strings = gt_arena_new()) == NULL)
        return GT_SCHEMA_ERROR;
    return GT_SCHEMA_VALID;
}

static gt_schema_result validate_full_mode(const gt_schema *schema, const gt_value *instance,
                                           gt_schema_errors *errors, sc_known_valid *known, bool verdict_only);

gt_schema_result gt_schema_validate(const gt_schema *schema, const gt_value *instance, gt_schema_errors *errors)
{
    if (errors == NULL)
        return gt_schema_validate_first_failure(schema, instance, NULL);
    sc_known_valid known;
    known.count = 0;
    int fast = validate_fast(schema, instance, errors, &known);
    return fast >= 0 ? (gt_schema_result)fast : sc_validate_full(schema, instance, errors, &known);
}

/* The fast pass decides unless it cannot tell (sc_fast_verdict: its "not
 * valid" is the first-failure evaluation's verdict too); then the full
 * evaluation runs without collecting, stopping at its first failure. */
gt_schema_result gt_schema_validate_first_failure(const gt_schema *schema, const gt_value *instance,
                                                  gt_schema_errors *scratch)
{
    sc_known_valid known;
    known.count = 0;
    if (scratch != NULL) {
        scratch->failure = GT_SCHEMA_FAILURE_NONE;
        scratch->count = 0;
    }
    if (sc_fast_usable(schema) && (scratch == NULL || scratch->deadline_ms == 0)) {
        pcre2_match_data *md = scratch != NULL ? scratch->match_data : NULL;
        int verdict = sc_fast_verdict(schema, instance, &md, &known);
        if (scratch != NULL)
            scratch->match_data = md;
        else if (md != NULL)
            pcre2_match_data_free(md);
        if (verdict >= 0)
            return verdict == 1 ? GT_SCHEMA_VALID : GT_SCHEMA_INVALID;
    }
    return validate_full_mode(schema, instance, scratch, &known, scratch != NULL);
}

gt_schema_result sc_validate_full(const gt_schema *schema, const gt_value *instance, gt_schema_errors *errors,
                                  sc_known_valid *known)
{
    return validate_full_mode(schema, instance, errors, known, false);
}

/* The full evaluation; with `verdict_only` (and `errors` non-NULL) it does not
 * collect: `errors` lends its match data, regex limits and scratch arena and
 * keeps them for the next call, and receives only the failure code of a
 * limit hit (no error is written). */
static gt_schema_result validate_full_mode(const gt_schema *schema, const gt_value *instance,
                                           gt_schema_errors *errors, sc_known_valid *known, bool verdict_only)
{
    vctx c;
    if (known != NULL && known->count > 0)
        sc_known_valid_index(known);
    c.known = known;
    c.schema = schema;
    c.errs = errors;
    c.collect = errors != NULL && !verdict_only;
    c.verdict_only = verdict_only;
    c.track = schema->uses_unevaluated;
    c.stop = c.fatal = false;
    char marker;
    c.stack_base = (uintptr_t)&marker;
    c.stack_budget = schema->options.max_stack ? schema->options.max_stack : SC_DEFAULT_STACK_BUDGET;
    c.path = c.path_local, c.path_len = 0, c.path_cap = sizeof c.path_local / sizeof c.path_local[0];
    c.scope = c.scope_local, c.scope_len = 0, c.scope_cap = sizeof c.scope_local / sizeof c.scope_local[0];
    c.guards = c.guards_local, c.guards_len = 0, c.guards_cap = sizeof c.guards_local / sizeof c.guards_local[0];
    c.props_inst = NULL, c.props_kw = NULL, c.props_declared = 0, c.props_entries = 0;
    c.md = errors ? errors->match_data : NULL;
    c.scratch = errors ? errors->scratch : NULL;
    c.failure = GT_SCHEMA_FAILURE_NONE;
    c.failure_path = c.failure_path_dollar = c.failure_location = NULL;
    c.failure_message[0] = '\0';
    c.evaluations = 0;
    c.max_evaluations = schema->options.max_evaluations ? schema->options.max_evaluations : GT_SCHEMA_MAX_EVALUATIONS;
    c.deadline_ms = errors ? errors->deadline_ms : 0;
    c.explaining = 0;
    c.memo_ok = !schema->uses_unevaluated && !schema->uses_dynamic;
    c.memo_off = 0;
    c.memo = NULL, c.memo_cap = c.memo_count = 0;
    c.limits = errors ? errors->match_context : NULL;
    c.jit_stack = errors ? errors->jit_stack : NULL;
    if (errors != NULL) {
        errors->failure = GT_SCHEMA_FAILURE_NONE;
        errors->count = 0;
        if (!verdict_only) {
            gt_schema_errors_clear(errors);
            if (errors->strings == NULL && (errors->strings = gt_arena_new()) == NULL)
                return GT_SCHEMA_ERROR;
        }
    }
    if (c.track) {
        if (c.scratch == NULL && (c.scratch = gt_arena_new()) == NULL)
            return GT_SCHEMA_ERROR;
        gt_arena_reset(c.scratch);
    }
    evalset root = {0};
    bool ok = validate_node(&c, schema->root, instance, c.track ? &root : NULL);
    free(c.memo);
    if (errors != NULL) {
        errors->match_data = c.md;
        errors->scratch = c.scratch;
        errors->match_context = c.limits;
        errors->jit_stack = c.jit_stack;
        if (c.fatal && verdict_only)
            errors->failure = c.failure != GT_SCHEMA_FAILURE_NONE ? c.failure : GT_SCHEMA_FAILURE_OUT_OF_MEMORY;
        else if (c.fatal)
            report_failure(&c);
    } else {
        if (c.md)
            pcre2_match_data_free(c.md);
        gt_arena_free(c.scratch);
        sc_regex_limits_free(c.limits, c.jit_stack);
    }
    if (c.path != c.path_local)
        free(c.path);
    if (c.scope != c.scope_local)
        free((void *)c.scope);
    if (c.guards != c.guards_local)
        free((void *)c.guards);
    if (c.fatal)
        return GT_SCHEMA_ERROR;
    return ok ? GT_SCHEMA_VALID : GT_SCHEMA_INVALID;
}
