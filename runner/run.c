/* run.c — the target registry, the comparison of an expectation with an
 * observation, and the scheduler (gate names, observed outcomes and run
 * counts are the result model: result.c).
 *
 * The scheduler owns no policy about what a case means: it hands each case's
 * input to a target, compares what came back with the case's expectation and
 * stores one result per case at the case's own index, so results keep corpus
 * order whatever the number of threads, and no case is ever dropped (a target
 * failure is an `error` result). Not for: loading cases (corpus.c) or
 * printing (reports/). */
#include "gauntlet/runner/run.h"

#include "gauntlet/loop.h"
#include "gauntlet/parse.h"
#include "gauntlet/schema.h"
#include "gauntlet/semantic.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>


/* ---- target registry ---------------------------------------------------- */

/* The built-in kinds are defined in runner/targets/ (one file each); the
 * engine names them here and never includes a target's header. */
extern const gt_target_ops gt_target_reference_ops;      /* target_reference.c */
extern const gt_target_ops gt_target_adapter_ops;        /* target_adapter.c */
extern const gt_target_ops gt_target_http_reference_ops; /* target_http_reference.c */
extern const gt_target_ops gt_target_http_ops;           /* target_http.c */
extern const gt_target_ops gt_target_http_worker_ops;    /* target_http.c */

/* Built-in kinds; a new kind of target is one line here (or a call to
 * gt_target_register), never a change to the scheduler. */
#define TARGET_KINDS_MAX 16
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static const gt_target_ops *registry[TARGET_KINDS_MAX] = {&gt_target_reference_ops, &gt_target_adapter_ops,
                                                          &gt_target_http_reference_ops, &gt_target_http_ops,
                                                          &gt_target_http_worker_ops};
static size_t registry_count = 5;

int gt_target_register(const gt_target_ops *ops)
{
    if (ops == NULL || ops->kind == NULL || ops->check == NULL || ops->close == NULL)
        return -1;
    int status = 0;
    pthread_mutex_lock(&registry_lock);
    size_t slot = registry_count;
    for (size_t i = 0; i < registry_count; i++)
        if (strcmp(registry[i]->kind, ops->kind) == 0)
            slot = i;
    if (slot == registry_count && registry_count == TARGET_KINDS_MAX)
        status = -1;
    else {
        registry[slot] = ops;
        if (slot == registry_count)
            registry_count++;
    }
    pthread_mutex_unlock(&registry_lock);
    return status;
}

struct gt_target {
    const gt_target_ops *ops;
    void *state;
};

/* A spec is "kind" or "kind:argument"; the argument goes to the kind's open(). */
int gt_target_open(const char *spec, gt_target **out, char *err, size_t err_len)
{
    *out = NULL;
    if (spec == NULL || *spec == '\0') {
        snprintf(err, err_len, "empty target spec");
        return -1;
    }
    const char *colon = strchr(spec, ':');
    size_t kind_len = colon ? (size_t)(colon - spec) : strlen(spec);
    const char *arg = colon ? colon + 1 : NULL;

    const gt_target_ops *ops = NULL;
    char known[256] = "";
    pthread_mutex_lock(&registry_lock);
    for (size_t i = 0; i < registry_count; i++) {
        if (strlen(registry[i]->kind) == kind_len && strncmp(registry[i]->kind, spec, kind_len) == 0)
            ops = registry[i];
        size_t used = strlen(known);
        snprintf(known + used, sizeof known - used, "%s%s", used ? ", " : "", registry[i]->kind);
    }
    pthread_mutex_unlock(&registry_lock);
    if (ops == NULL) {
        snprintf(err, err_len, "unknown target '%s' (known kinds: %s)", spec, known);
        return -1;
    }

    gt_target *target = calloc(1, sizeof *target);
    if (target == NULL) {
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    target->ops = ops;
    if (ops->open != NULL) {
        char open_err[256] = "";
        if (ops->open(arg, &target->state, open_err, sizeof open_err) != 0) {
            snprintf(err, err_len, "target '%s': %s", spec, open_err[0] ? open_err : "cannot open");
            free(target);
            return -1;
        }
    }
    *out = target;
    return 0;
}

int gt_target_check(gt_target *target, const gt_case_input *input, gt_observed *observed, char *note,
                    size_t note_len)
{
    return target->ops->check(target->state, input, observed, note, note_len);
}

unsigned gt_target_profiles(const gt_target *target)
{
    unsigned claimed = target->ops->profiles ? target->ops->profiles(target->state) & GT_PROFILES_ALL : 0;
    return claimed ? claimed : GT_PROFILES_DEFAULT_CLAIM;
}

const char *gt_target_name(const gt_target *target)
{
    const char *name = target->ops->name ? target->ops->name(target->state) : NULL;
    return name ? name : target->ops->kind;
}

void gt_target_close(gt_target *target)
{
    if (target == NULL)
        return;
    target->ops->close(target->state);
    free(target);
}

/* ---- comparison --------------------------------------------------------- */

/* Small appender over a fixed buffer: output is truncated, never overflowed. */
typedef struct text_buf {
    char *data;
    size_t cap, len;
} text_buf;

static void buf_printf(text_buf *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void buf_printf(text_buf *buf, const char *fmt, ...)
{
    if (buf->cap == 0 || buf->len >= buf->cap - 1)
        return;
    va_list args;
    va_start(args, fmt);
    int wrote = vsnprintf(buf->data + buf->len, buf->cap - buf->len, fmt, args);
    va_end(args);
    if (wrote > 0)
        buf->len += (size_t)wrote < buf->cap - buf->len ? (size_t)wrote : buf->cap - buf->len - 1;
}

static void describe_expect(text_buf *buf, const gt_expect *expect)
{
    if (expect->verdict == GT_VERDICT_ACCEPT)
        buf_printf(buf, "accept");
    else if (expect->verdict == GT_VERDICT_REJECT)
        buf_printf(buf, "reject %s%s%s", expect->gate ? expect->gate : "?", expect->reason ? "/" : "",
                   expect->reason ? expect->reason : "");
    else
        buf_printf(buf, "(no verdict)");
}

static void describe_observed(text_buf *buf, const gt_observed *observed)
{
    if (observed->verdict == GT_VERDICT_ACCEPT)
        buf_printf(buf, "accept");
    else if (observed->verdict == GT_VERDICT_REJECT)
        buf_printf(buf, "reject %s/%s", observed->gate ? observed->gate : "?",
                   observed->reason ? observed->reason : "?");
    else
        buf_printf(buf, "no verdict");
}

static bool text_equal(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

/* Keywords that fail at an object or an array: the JSON Schema output
 * format reports them at the container's instanceLocation (ajv,
 * python-jsonschema), gauntlet at the child's path for some (the extra or
 * missing member, the unevaluated item). Both name the same error
 * (docs/adapter-protocol.md#error-paths). */
static bool object_level_keyword(const char *keyword)
{
    static const char *const keywords[] = {"additionalProperties", "unevaluatedProperties", "required",
                                           "dependentRequired",    "dependencies",          "propertyNames",
                                           "minProperties",        "maxProperties",         "unevaluatedItems",
                                           "additionalItems",      "items"};
    for (size_t i = 0; keyword != NULL && i < sizeof keywords / sizeof keywords[0]; i++)
        if (strcmp(keyword, keywords[i]) == 0)
            return true;
    return false;
}

/* Is `parent` the JSON Pointer of `child`'s parent (one reference token up)? */
static bool pointer_parent_of(const char *parent, const char *child)
{
    const char *slash = strrchr(child, '/');
    return slash != NULL && strlen(parent) == (size_t)(slash - child) && strncmp(parent, child, (size_t)(slash - child)) == 0;
}

/* Do two (path, keyword) pairs name the same error? */
static bool same_error(const char *path_a, const char *keyword_a, const char *path_b, const char *keyword_b)
{
    const char *a = path_a ? path_a : "", *b = path_b ? path_b : "";
    if (!text_equal(keyword_a, keyword_b))
        return false;
    if (strcmp(a, b) == 0)
        return true;
    return object_level_keyword(keyword_a) && (pointer_parent_of(a, b) || pointer_parent_of(b, a));
}

static bool observed_has(const gt_observed *observed, const char *path, const char *keyword)
{
    for (size_t i = 0; i < observed->error_count; i++)
        if (same_error(observed->errors[i].path, observed->errors[i].keyword, path, keyword))
            return true;
    return false;
}

static bool expected_has(const gt_expect *expect, const char *path, const char *keyword)
{
    for (size_t i = 0; i < expect->error_count; i++)
        if (same_error(expect->errors[i].path, expect->errors[i].keyword, path, keyword))
            return true;
    return false;
}

/* Errors are compared as sets of (path, keyword): order and repeats do not
 * matter, and an object-level keyword's error at the object equals the same
 * keyword's error at a child of it. Writes the differences into `buf`;
 * returns true when equal. */
static bool compare_errors(const gt_expect *expect, const gt_observed *observed, text_buf *buf)
{
    bool equal = true;
    for (size_t i = 0; i < expect->error_count; i++) {
        const gt_expected_error *want = &expect->errors[i];
        if (observed_has(observed, want->path, want->keyword))
            continue;
        buf_printf(buf, "%s missing error %s at \"%s\"", equal ? "; errors differ:" : ",", want->keyword,
                   want->path);
        equal = false;
    }
    for (size_t i = 0; i < observed->error_count; i++) {
        const gt_observed_error *got = &observed->errors[i];
        if (expected_has(expect, got->path, got->keyword))
            continue;
        bool repeated = false;
        for (size_t j = 0; j < i && !repeated; j++)
            repeated = text_equal(observed->errors[j].path, got->path) &&
                       text_equal(observed->errors[j].keyword, got->keyword);
        if (repeated)
            continue;
        buf_printf(buf, "%s unexpected error %s at \"%s\"", equal ? "; errors differ:" : ",",
                   got->keyword ? got->keyword : "", got->path ? got->path : "");
        equal = false;
    }
    return equal;
}

static const gt_value *parse_loose(gt_arena *arena, const char *text)
{
    gt_parse_options options;
    gt_parse_options_init(&options);
    options.allow_big_integers = true;
    options.max_depth = 100000;
    options.max_bytes = (size_t)1 << 30;
    gt_parse_error error;
    return text ? gt_parse(arena, text, strlen(text), &options, &error) : NULL;
}

/* Equality of two JSON texts after normalising whitespace only: member order
 * and number spelling count (a wire transform's output is compared exactly,
 * as the provider receives it). */
static bool json_texts_equal(const char *a, const char *b)
{
    if (a == NULL || b == NULL)
        return a == b;
    gt_arena *arena = gt_arena_new();
    if (arena == NULL)
        return false;
    const gt_value *x = parse_loose(arena, a), *y = parse_loose(arena, b);
    bool equal = false;
    if (x != NULL && y != NULL) {
        char *x_text = gt_value_to_json(x, NULL), *y_text = gt_value_to_json(y, NULL);
        equal = x_text != NULL && y_text != NULL && strcmp(x_text, y_text) == 0;
        free(x_text);
        free(y_text);
    }
    gt_arena_free(arena);
    return equal;
}

/* JSON value equality of two texts (member order aside, 1 == 1.0). */
static bool json_values_equal(const char *a, const char *b)
{
    gt_arena *arena = gt_arena_new();
    if (arena == NULL)
        return false;
    const gt_value *x = parse_loose(arena, a), *y = parse_loose(arena, b);
    bool equal = x != NULL && y != NULL && gt_value_equal(x, y);
    gt_arena_free(arena);
    return equal;
}

/* One member of a JSON object text, as compact JSON (malloc'd), or NULL. */
static char *envelope_member(const char *object_json, const char *key)
{
    gt_arena *arena = gt_arena_new();
    if (arena == NULL)
        return NULL;
    const gt_value *object = parse_loose(arena, object_json);
    const gt_value *member = object ? gt_value_get(object, key, strlen(key)) : NULL;
    char *json = member ? gt_value_to_json(member, NULL) : NULL;
    gt_arena_free(arena);
    return json;
}

/* Each member of the `expected` object against `observed` JSON text: with
 * `by_pointer`, the member names are JSON Pointers into the observed value
 * (expect.output_at), else member names of the observed object
 * (expect.trace). JSON equality; a missing place differs. With `skip_own`,
 * places under /gauntlet (the reference's own envelope block, which a black
 * box does not have) are not compared. Writes the first difference into
 * `buf`; returns true when all agree. */
static bool compare_places(const char *what, const char *expected, const char *observed, bool by_pointer,
                           bool skip_own, text_buf *buf)
{
    gt_arena *arena = gt_arena_new();
    if (arena == NULL)
        return false;
    const gt_value *want = parse_loose(arena, expected), *got = parse_loose(arena, observed);
    bool equal = want != NULL && want->type == GT_OBJECT;
    for (size_t i = 0; equal && i < want->u.obj.count; i++) {
        const gt_member *place = &want->u.obj.members[i];
        if (skip_own && strncmp(place->key, "/gauntlet", 9) == 0 && (place->key[9] == '\0' || place->key[9] == '/'))
            continue;
        const gt_value *there = got == NULL                       ? NULL
                                : by_pointer                      ? gt_pointer_get(got, place->key)
                                : got->type == GT_OBJECT ? gt_value_get(got, place->key, place->key_len)
                                                                  : NULL;
        if (there != NULL && gt_value_equal(there, place->value))
            continue;
        char *want_text = gt_value_to_json(place->value, NULL);
        char *got_text = there ? gt_value_to_json(there, NULL) : NULL;
        buf_printf(buf, "expected %s %s%s%s %.300s, observed %.300s", what, by_pointer ? "at \"" : "",
                   place->key, by_pointer ? "\"" : "", want_text ? want_text : "?",
                   got == NULL ? "no " : got_text ? got_text : "(absent)");
        if (got == NULL)
            buf_printf(buf, "%s", by_pointer ? "output" : "trace record");
        free(want_text);
        free(got_text);
        equal = false;
    }
    gt_arena_free(arena);
    return equal;
}

/* expect.output_contains (`want` true) / output_excludes: the string at each
 * JSON Pointer of the observed output holds (or does not hold) each text. A
 * place that is absent or not a string fails output_contains and passes
 * output_excludes. Black boxes skip /gauntlet places. */
static bool compare_texts(const char *expected, const char *observed, bool want, bool skip_own, text_buf *buf)
{
    gt_arena *arena = gt_arena_new();
    if (arena == NULL)
        return false;
    const gt_value *places = parse_loose(arena, expected), *got = parse_loose(arena, observed);
    bool ok = places != NULL && places->type == GT_OBJECT;
    for (size_t i = 0; ok && i < places->u.obj.count; i++) {
        const gt_member *place = &places->u.obj.members[i];
        if (skip_own && strncmp(place->key, "/gauntlet", 9) == 0 && (place->key[9] == '\0' || place->key[9] == '/'))
            continue;
        const gt_value *there = got ? gt_pointer_get(got, place->key) : NULL;
        const gt_value *texts = place->value;
        size_t count = texts->type == GT_ARRAY ? texts->u.arr.count : 1;
        for (size_t k = 0; ok && k < count; k++) {
            const gt_value *text = texts->type == GT_ARRAY ? texts->u.arr.items[k] : texts;
            if (text->type != GT_STRING)
                continue;
            bool found = there != NULL && there->type == GT_STRING &&
                         memmem(there->u.str.chars, there->u.str.len, text->u.str.chars, text->u.str.len) != NULL;
            if (found == want)
                continue;
            if (there == NULL || there->type != GT_STRING)
                buf_printf(buf, "expected a string at \"%s\" holding \"%.200s\", observed %s", place->key,
                           text->u.str.chars, there == NULL ? "none" : "another type");
            else
                buf_printf(buf, "expected the string at \"%s\" %s \"%.200s\"; it is \"%.300s\"", place->key,
                           want ? "to hold" : "not to hold", text->u.str.chars, there->u.str.chars);
            ok = false;
        }
    }
    gt_arena_free(arena);
    return ok;
}

/* expect.message_contains: each text occurs in the rejection's message (the
 * gate's one human line). A target that reports no message cannot show it:
 * the case is skipped for it, never passed. */
static gt_outcome compare_message(const char *expected, const gt_observed *observed, text_buf *buf)
{
    if (observed->black_box || observed->message == NULL) {
        buf_printf(buf, "expect.message_contains: %s", observed->black_box
                                                           ? "a black-box client's rejection message is not observable"
                                                           : "the target reported no rejection message");
        return GT_OUTCOME_SKIP;
    }
    gt_arena *arena = gt_arena_new();
    const gt_value *texts = arena ? parse_loose(arena, expected) : NULL;
    gt_outcome outcome = texts != NULL ? GT_OUTCOME_PASS : GT_OUTCOME_FAIL;
    size_t count = texts == NULL ? 0 : texts->type == GT_ARRAY ? texts->u.arr.count : 1;
    for (size_t k = 0; k < count && outcome == GT_OUTCOME_PASS; k++) {
        const gt_value *text = texts->type == GT_ARRAY ? texts->u.arr.items[k] : texts;
        if (text->type == GT_STRING && strstr(observed->message, text->u.str.chars) == NULL) {
            buf_printf(buf, "expected the message to hold \"%.200s\"; it is \"%.300s\"", text->u.str.chars,
                       observed->message);
            outcome = GT_OUTCOME_FAIL;
        }
    }
    gt_arena_free(arena);
    return outcome;
}

/* expect.message_present: a rejection carries a message, one non-empty human
 * line (its wording is the target's own). Judged on every claim: the seeds
 * give a rejection its message ("Output does not match required schema" with
 * the error's message, a semantic error's text, a deterministic denial). A
 * black-box client's message is not observable and is not compared. */
static bool message_missing(const gt_expect *expect, const gt_observed *observed, text_buf *buf)
{
    if (!expect->message_present || expect->verdict != GT_VERDICT_REJECT || observed->black_box ||
        observed->verdict != GT_VERDICT_REJECT)
        return false;
    for (const char *c = observed->message; c != NULL && *c != '\0'; c++)
        if (*c != ' ' && *c != '\t' && *c != '\n' && *c != '\r')
            return false;
    buf_printf(buf, "expected a rejection message (expect.message_present), observed %s",
               observed->message == NULL ? "none" : "an empty one");
    return true;
}

/* What a target's claim makes a comparison judge (docs/profiles.md#what-a-claim-judges). */
typedef struct judge {
    bool reasons;    /* claims `reasons`: another reason code, error set or message fails (else other_reason) */
    bool figures;    /* claims claude-code or repair-loop: subtype, accounting, trace and envelope places */
    bool seed000;    /* ...and for loop and stream cases the seed-000 ones (subtype, attempts_limit,
                        retracted, enforce_messages): claude-code is judged, not repair-loop alone */
    bool value_gate; /* the case's layer returns the value itself (syntax, structure, or no gate known) */
    bool wire;       /* the case's output is a produced schema (wire) */
} judge;

/* Figures (subtype, accounting, trace, envelope places) are judged when the
 * target claims a loop profile the case is in, or, for a case in neither
 * loop profile, when the target claims claude-code (whose envelope and
 * counters those figures are). */
static judge judge_for(const char *gate, unsigned case_profiles, unsigned claims)
{
    const unsigned loops = (1u << GT_PROFILE_CLAUDE_CODE) | (1u << GT_PROFILE_REPAIR_LOOP);
    judge j = {0};
    j.reasons = (claims & (1u << GT_PROFILE_REASONS)) != 0;
    bool claude = (case_profiles & claims & (1u << GT_PROFILE_CLAUDE_CODE)) != 0 ||
                  (!(case_profiles & loops) && (claims & (1u << GT_PROFILE_CLAUDE_CODE)) != 0);
    j.figures = claude || (case_profiles & claims & loops) != 0;
    bool loop_layer = gate != NULL && (strcmp(gate, "loop") == 0 || strcmp(gate, "stream") == 0);
    j.seed000 = j.figures && (claude || !loop_layer);
    j.wire = gate != NULL && strcmp(gate, "wire") == 0;
    j.value_gate = gate == NULL || strcmp(gate, "syntax") == 0 || strcmp(gate, "structure") == 0;
    return j;
}

static gt_outcome failed_as(gt_class *verdict_class, gt_class which)
{
    *verdict_class = which;
    return GT_OUTCOME_FAIL;
}

/* The class of a difference in the value the target produced: the value
 * itself (syntax, structure) returned changed is unsafe; a produced schema
 * or a report of what the pipeline did is a figure. */
static gt_class output_class(const judge *j, const gt_observed *observed)
{
    return !j->wire && j->value_gate && observed->verdict == GT_VERDICT_ACCEPT ? GT_CLASS_UNSAFE : GT_CLASS_FIGURES;
}

/* A black-box client returned the complete, valid answer of the script turn
 * served last where the reference ends otherwise (target_http.c,
 * clean_answer): no object the reference refuses as an object, so a
 * difference in budget or design (figures), never unsafe. */
#define CLEAN_ANSWER_NOTE                                                                                          \
    "the object is the complete, valid answer of the turn served last (not coerced, cut, a refusal's or "        \
    "retracted): a budget or design difference, not an unsafe object"
/* The same for a raw stream turn (clean_answer.c): the object is what a
 * strict reader would have taken from the stream's closed block, only the
 * stream around it breaks the protocol. */
#define CLEAN_STREAM_NOTE                                                                                          \
    "stream protocol strictness: the object is the complete, valid tool input of a block the stream closed, "   \
    "the stream served to its terminal event (not cut, assembled across a break, last-wins or coerced): "       \
    "not an unsafe object"

static const char *clean_note(const gt_observed *observed)
{
    return observed->clean_answer_stream ? CLEAN_STREAM_NOTE : CLEAN_ANSWER_NOTE;
}

/* Loop, stream and wire expectations: the surviving object and the exact
 * output (always), values at places in it (for values and schemas always,
 * for envelopes when figures are judged), terminal subtype, attempt
 * accounting and the trace record (when figures are judged). */
static gt_outcome compare_layers(const gt_expect *expect, const gt_observed *observed, const judge *j, text_buf *buf,
                                 gt_class *verdict_class)
{
    if (expect->structured_output_json != NULL) {
        /* The terminal envelope's surviving object: a retracted or late object
         * must not leak into it. */
        char *survivor = envelope_member(observed->output_json, "structured_output");
        bool same = json_values_equal(expect->structured_output_json, survivor ? survivor : "null");
        bool returned = survivor != NULL && strcmp(survivor, "null") != 0;
        if (!same)
            buf_printf(buf, "expected structured_output %.200s, observed %.200s", expect->structured_output_json,
                       survivor ? survivor : "(none)");
        free(survivor);
        if (!same && returned && observed->clean_answer_turn > 0)
            buf_printf(buf, "; %s", clean_note(observed));
        if (!same)
            return failed_as(verdict_class, !returned                         ? GT_CLASS_REFUSED_VALID
                                            : observed->clean_answer_turn > 0 ? GT_CLASS_FIGURES
                                                                               : GT_CLASS_UNSAFE);
    }
    if (expect->output_json != NULL && !json_texts_equal(expect->output_json, observed->output_json)) {
        buf_printf(buf, "expected output %.200s, observed %.200s", expect->output_json,
                   observed->output_json ? observed->output_json : "(none)");
        return failed_as(verdict_class, output_class(j, observed));
    }
    bool places = j->figures || j->value_gate || j->wire;
    if (places && expect->output_at_json != NULL &&
        !compare_places("output", expect->output_at_json, observed->output_json, true, observed->black_box, buf))
        return failed_as(verdict_class, output_class(j, observed));
    if (places && expect->output_contains_json != NULL &&
        !compare_texts(expect->output_contains_json, observed->output_json, true, observed->black_box, buf))
        return failed_as(verdict_class, output_class(j, observed));
    if (places && expect->output_excludes_json != NULL &&
        !compare_texts(expect->output_excludes_json, observed->output_json, false, observed->black_box, buf))
        return failed_as(verdict_class, output_class(j, observed));
    if (!j->figures)
        return GT_OUTCOME_PASS;
    if (j->seed000 && expect->subtype != NULL && !text_equal(expect->subtype, observed->subtype)) {
        buf_printf(buf, "expected subtype %s, observed %s", expect->subtype,
                   observed->subtype ? observed->subtype : "(none)");
        return failed_as(verdict_class, GT_CLASS_FIGURES);
    }
    const int *want = &expect->accounting.attempts_used;
    const int *got = &observed->accounting.attempts_used;
    static const char *const names[] = {"attempts_used", "attempts_limit", "retracted",
                                        "enforce_messages", "api_attempts", "model_calls"};
    for (size_t i = 0; expect->accounting_given && i < sizeof names / sizeof names[0]; i++) {
        if (want[i] < 0 || (!j->seed000 && (i == 1 || i == 2 || i == 3)))
            continue; /* a repair loop's own limit, tombstones and enforce messages are seed 000's */
        if (!observed->has_accounting) {
            buf_printf(buf, "expected accounting (%s %d), observed none", names[i], want[i]);
            return failed_as(verdict_class, GT_CLASS_FIGURES);
        }
        if (want[i] != got[i]) {
            buf_printf(buf, "expected %s %d, observed %d", names[i], want[i], got[i]);
            return failed_as(verdict_class, GT_CLASS_FIGURES);
        }
    }
    if (expect->trace_json != NULL && !compare_places("trace", expect->trace_json, observed->trace_json, false, false, buf))
        return failed_as(verdict_class, GT_CLASS_FIGURES);
    return GT_OUTCOME_PASS;
}

/* Expected one verdict, observed the other: accepting what must be refused
 * is unsafe, refusing what is valid is refused_valid. */
static gt_class verdict_class_of(const gt_expect *expect)
{
    return expect->verdict == GT_VERDICT_REJECT ? GT_CLASS_UNSAFE : GT_CLASS_REFUSED_VALID;
}

/* A rejection's texts in a black-box client's envelope: the places under
 * /errors hold wording, which differs by client (docs/profiles.md: another
 * message or error set is other_reason). Splits `places` (an expect.output_at
 * or output_contains object) into the wording places and the rest, each
 * malloc'd compact JSON or NULL when there is none. */
static void split_wording(const char *places, char **wording, char **rest)
{
    *wording = *rest = NULL;
    gt_arena *arena = places ? gt_arena_new() : NULL;
    const gt_value *all = arena ? parse_loose(arena, places) : NULL;
    if (all == NULL || all->type != GT_OBJECT) {
        *rest = places ? strdup(places) : NULL;
        gt_arena_free(arena);
        return;
    }
    gt_value *said = gt_value_new_object(arena), *other = gt_value_new_object(arena);
    bool failed = said == NULL || other == NULL;
    for (size_t i = 0; !failed && i < all->u.obj.count; i++) {
        const gt_member *place = &all->u.obj.members[i];
        bool text = strncmp(place->key, "/errors", 7) == 0 && (place->key[7] == '\0' || place->key[7] == '/');
        failed = gt_value_object_append(arena, text ? said : other, place->key, place->key_len,
                                        (gt_value *)place->value) != 0;
    }
    if (failed) {
        *rest = strdup(places);
    } else {
        *wording = said->u.obj.count ? gt_value_to_json(said, NULL) : NULL;
        *rest = other->u.obj.count ? gt_value_to_json(other, NULL) : NULL;
    }
    gt_arena_free(arena);
}

/* The wording places of a black-box rejection (split_wording), judged after
 * everything else: a difference is other_reason, a failure only when
 * `reasons` is claimed. */
static gt_outcome compare_wording(const char *at, const char *contains, const gt_observed *observed, const judge *j,
                                  text_buf *buf, gt_class *verdict_class)
{
    char detail[512] = "";
    text_buf diff = {detail, sizeof detail, 0};
    bool same = (at == NULL || compare_places("output", at, observed->output_json, true, true, &diff)) &&
                (contains == NULL || compare_texts(contains, observed->output_json, true, true, &diff));
    if (same)
        return GT_OUTCOME_PASS;
    *verdict_class = GT_CLASS_OTHER_REASON;
    buf_printf(buf, "%s (a rejection's wording)", detail);
    return j->reasons ? GT_OUTCOME_FAIL : GT_OUTCOME_PASS;
}

/* A vendor client seen from outside: its verdict, the object it kept, the
 * journal's verdict on its requests, and the figures the journal shows. */
static gt_outcome compare_black_box(const gt_expect *expect, const gt_observed *observed, const judge *j,
                                    text_buf *buf, gt_class *verdict_class)
{
    if (expect->verdict != observed->verdict) {
        buf_printf(buf, "expected %s, observed %s (subtype %s)", expect->verdict == GT_VERDICT_ACCEPT ? "accept" : "reject",
                   observed->verdict == GT_VERDICT_ACCEPT ? "accept" : "reject",
                   observed->subtype ? observed->subtype : "(none)");
        if (observed->beyond_script_calls > 0)
            buf_printf(buf, "; calls beyond the script: %d", observed->beyond_script_calls);
        if (expect->verdict == GT_VERDICT_REJECT && observed->clean_answer_turn > 0) {
            buf_printf(buf, "; %s (script turn %d)", clean_note(observed), observed->clean_answer_turn - 1);
            return failed_as(verdict_class, GT_CLASS_FIGURES);
        }
        return failed_as(verdict_class, verdict_class_of(expect));
    }
    if (observed->violation != NULL && j->figures) {
        buf_printf(buf, "%s", observed->violation);
        return failed_as(verdict_class, GT_CLASS_FIGURES);
    }
    gt_expect figures_only = *expect;
    /* A client that claims claude-code claims seed 000's subtypes too; others name theirs. Its subtype is
     * judged when it printed an envelope, and against one of gauntlet's own subtype names
     * (error_no_structured_output, error_invalid_json_schema: docs/loop-scripts.md) only as error or
     * success: another error name there is wording, `success` without the object is not. */
    bool own_name =
        expect->subtype && (strcmp(expect->subtype, gt_loop_subtype_name(GT_LOOP_ERROR_NO_STRUCTURED_OUTPUT)) == 0 ||
                            strcmp(expect->subtype, gt_loop_subtype_name(GT_LOOP_ERROR_INVALID_JSON_SCHEMA)) == 0);
    if (!j->seed000 || observed->subtype == NULL ||
        (own_name && strcmp(observed->subtype, "success") != 0))
        figures_only.subtype = NULL;
    figures_only.trace_json = NULL; /* a client's trace is not observable from outside */
    char *wording_at = NULL, *wording_contains = NULL, *rest_at = NULL, *rest_contains = NULL;
    if (expect->verdict == GT_VERDICT_REJECT) {
        split_wording(expect->output_at_json, &wording_at, &rest_at);
        split_wording(expect->output_contains_json, &wording_contains, &rest_contains);
        figures_only.output_at_json = rest_at;
        figures_only.output_contains_json = rest_contains;
    }
    int *want = &figures_only.accounting.attempts_used;
    const int *got = &observed->accounting.attempts_used;
    for (size_t i = 0; i < 6; i++)
        if (got[i] < 0)
            want[i] = -1; /* not observable from outside */
    gt_outcome outcome = compare_layers(&figures_only, observed, j, buf, verdict_class);
    if (outcome == GT_OUTCOME_FAIL && observed->beyond_script_calls > 0)
        buf_printf(buf, "; calls beyond the script: %d", observed->beyond_script_calls);
    if (outcome == GT_OUTCOME_PASS && expect->message_contains_json != NULL && j->reasons)
        outcome = compare_message(expect->message_contains_json, observed, buf);
    if (outcome == GT_OUTCOME_PASS && *verdict_class == GT_CLASS_PASS && (wording_at || wording_contains) &&
        (j->figures || j->value_gate || j->wire))
        outcome = compare_wording(wording_at, wording_contains, observed, j, buf, verdict_class);
    free(wording_at);
    free(wording_contains);
    free(rest_at);
    free(rest_contains);
    if (outcome == GT_OUTCOME_FAIL && *verdict_class == GT_CLASS_PASS)
        *verdict_class = GT_CLASS_OTHER_REASON;
    else if (outcome == GT_OUTCOME_SKIP)
        *verdict_class = GT_CLASS_SKIP;
    return outcome;
}

/* Is `reason` a code for a schema that did not compile (not a ref cycle,
 * which evaluation meets)? Such a rejection says nothing about the
 * instance. */
static bool schema_compile_problem(const char *reason)
{
    for (int code = GT_SCHEMA_PROBLEM_NONE + 1; reason != NULL && code < GT_SCHEMA_PROBLEM_COUNT; code++)
        if (code != GT_SCHEMA_PROBLEM_REF_CYCLE &&
            strcmp(reason, gt_schema_problem_code_str((gt_schema_problem_code)code)) == 0)
            return true;
    return false;
}

gt_outcome gt_compare_claimed(const gt_expect *expect, const gt_observed *observed, const char *gate,
                              unsigned case_profiles, unsigned claims, gt_class *verdict_class, char *why,
                              size_t why_len)
{
    char scratch[1];
    gt_class ignored;
    if (verdict_class == NULL)
        verdict_class = &ignored;
    *verdict_class = GT_CLASS_PASS;
    text_buf buf = {why ? why : scratch, why ? why_len : sizeof scratch, 0};
    if (buf.cap > 0)
        buf.data[0] = '\0';
    judge j = judge_for(gate, case_profiles ? case_profiles : GT_PROFILES_ALL, claims);
    if (observed->black_box)
        return compare_black_box(expect, observed, &j, &buf, verdict_class);

    bool same_verdict = expect->verdict == observed->verdict;
    bool same_gate = same_verdict && (expect->verdict != GT_VERDICT_REJECT || text_equal(expect->gate, observed->gate));
    bool same_reason = same_gate && (expect->verdict != GT_VERDICT_REJECT || expect->reason == NULL ||
                                     text_equal(expect->reason, observed->reason));
    /* A rejection with no reason asserted (a JSON-Schema-Test-Suite test) is
     * about the instance: a schema the target could not compile is no pass. */
    bool unusable_schema = same_gate && expect->verdict == GT_VERDICT_REJECT && expect->reason == NULL &&
                           text_equal(observed->gate, "structure") && schema_compile_problem(observed->reason);
    if (!same_gate || unusable_schema) {
        buf_printf(&buf, "expected ");
        describe_expect(&buf, expect);
        buf_printf(&buf, unusable_schema ? " on the instance, observed " : ", observed ");
        describe_observed(&buf, observed);
        if (unusable_schema)
            buf_printf(&buf, ": the schema did not compile");
        if (observed->verdict == GT_VERDICT_REJECT && observed->message != NULL)
            buf_printf(&buf, " (%s)", observed->message);
        return failed_as(verdict_class, !same_verdict ? verdict_class_of(expect) : GT_CLASS_FIGURES);
    }
    /* The same verdict at the same gate: what remains is the object, the
     * figures (judged before wording, so an unsafe object is never listed
     * as another reason) and the wording. */
    char wording[768] = "";
    text_buf other = {wording, sizeof wording, 0};
    if (!same_reason) {
        buf_printf(&other, "expected ");
        describe_expect(&other, expect);
        buf_printf(&other, ", observed ");
        describe_observed(&other, observed);
        if (observed->message != NULL)
            buf_printf(&other, " (%s)", observed->message);
    }
    if (expect->errors_given) {
        char detail[512] = "";
        text_buf diff = {detail, sizeof detail, 0};
        if (!compare_errors(expect, observed, &diff)) {
            if (same_reason) {
                buf_printf(&other, "expected ");
                describe_expect(&other, expect);
                buf_printf(&other, ", observed ");
                describe_observed(&other, observed);
            }
            buf_printf(&other, "%s", detail);
        }
    }
    gt_outcome outcome = compare_layers(expect, observed, &j, &buf, verdict_class);
    if (outcome != GT_OUTCOME_PASS)
        return outcome;
    if (message_missing(expect, observed, &buf))
        return failed_as(verdict_class, GT_CLASS_FIGURES);
    if (other.len == 0 && expect->message_contains_json != NULL && expect->verdict == GT_VERDICT_REJECT) {
        if (j.reasons) {
            outcome = compare_message(expect->message_contains_json, observed, &buf);
            if (outcome == GT_OUTCOME_FAIL)
                *verdict_class = GT_CLASS_OTHER_REASON;
            else if (outcome == GT_OUTCOME_SKIP)
                *verdict_class = GT_CLASS_SKIP;
            return outcome;
        }
        if (observed->message != NULL) /* a difference is listed in `other`, never a failure */
            (void)compare_message(expect->message_contains_json, observed, &other);
    }
    if (other.len == 0)
        return GT_OUTCOME_PASS;
    *verdict_class = GT_CLASS_OTHER_REASON;
    buf_printf(&buf, "%s", wording);
    return j.reasons ? GT_OUTCOME_FAIL : GT_OUTCOME_PASS;
}

gt_outcome gt_compare(const gt_expect *expect, const gt_observed *observed, char *why, size_t why_len)
{
    return gt_compare_claimed(expect, observed, NULL, GT_PROFILES_ALL, GT_PROFILES_ALL, NULL, why, why_len);
}

/* ---- scheduler ---------------------------------------------------------- */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

static char *note_from(const char *text, const char *fallback)
{
    return strdup(text != NULL && text[0] != '\0' ? text : fallback);
}

#define GT_NONSTREAM_REPRESENTATIVE_TAG "nonstream-representative"

/* Run one case on one target and fill its result. Never fails: a target
 * failure or a malformed answer becomes an `error` result. A case in no
 * profile the target claims is not applicable and never sent. */
static void run_one(gt_target *target, unsigned claims, const gt_case *kase, gt_case_result *result)
{
    char note[1024] = "";
    result->kase = kase;
    memset(&result->observed, 0, sizeof result->observed);
    if (!(kase->profiles & claims)) {
        char theirs[128], ours[128];
        result->outcome = GT_OUTCOME_NOT_APPLICABLE;
        result->verdict_class = GT_CLASS_NOT_APPLICABLE;
        snprintf(note, sizeof note, "not applicable: the case is in %s; the target claims %s",
                 gt_profiles_format(kase->profiles, ", ", theirs, sizeof theirs),
                 gt_profiles_format(claims, ", ", ours, sizeof ours));
        result->note = strdup(note);
        return;
    }
    double started = now_ms();
    int status = gt_target_check(target, &kase->input, &result->observed, note, sizeof note);
    result->elapsed_ms = now_ms() - started;

    if (status == GT_CHECK_SKIPPED) {
        result->outcome = GT_OUTCOME_SKIP;
        result->note = note_from(note, "skipped by target");
    } else if (status != GT_CHECK_DONE) {
        result->outcome = GT_OUTCOME_ERROR;
        result->note = note_from(note, "target failed without a note");
    } else if (result->observed.verdict != GT_VERDICT_ACCEPT && result->observed.verdict != GT_VERDICT_REJECT) {
        result->outcome = GT_OUTCOME_ERROR;
        result->note = note_from(note, "target returned no verdict");
    } else if (result->observed.verdict == GT_VERDICT_REJECT && result->observed.gate == NULL) {
        result->outcome = GT_OUTCOME_ERROR;
        result->note = note_from(NULL, "target rejected without naming a gate");
    } else if (result->observed.unstreamed_stream_fault && !gt_case_has_tag(kase, GT_NONSTREAM_REPRESENTATIVE_TAG)) {
        /* every cut or malformed stream reaches a client that did not stream as the same JSON body cut in
         * half: only the cases tagged as that behaviour's representative are judged on it */
        result->outcome = GT_OUTCOME_NOT_APPLICABLE;
        result->verdict_class = GT_CLASS_NOT_APPLICABLE;
        result->note = strdup("not applicable: stream fault: the client did not stream, so it was served a JSON body "
                              "cut in half, judged once per API on the cases tagged '" GT_NONSTREAM_REPRESENTATIVE_TAG
                              "' (docs/mock-server.md, \"Stream faults to a client that does not stream\")");
        return;
    } else {
        char why[1024];
        result->outcome = gt_compare_claimed(&kase->expect, &result->observed, kase->input.gate, kase->profiles,
                                             claims, &result->verdict_class, why, sizeof why);
        result->note = result->outcome == GT_OUTCOME_PASS && result->verdict_class == GT_CLASS_PASS
                           ? NULL
                           : note_from(why, "mismatch");
        return;
    }
    result->verdict_class = result->outcome == GT_OUTCOME_SKIP ? GT_CLASS_SKIP : GT_CLASS_ERROR;
}

typedef struct scheduler {
    const gt_corpus *corpus;
    gt_run *run;
    gt_target **targets;
    pthread_mutex_t lock;
    size_t next; /* next case index to hand out */
    size_t done;
    size_t failed;   /* failed or errored so far */
    size_t max_fail; /* 0 = run everything */
    gt_progress_fn progress;
    void *user;
} scheduler;

typedef struct worker {
    scheduler *shared;
    gt_target *target;
} worker;

static void *worker_main(void *arg)
{
    worker *self = arg;
    scheduler *shared = self->shared;
    for (;;) {
        pthread_mutex_lock(&shared->lock);
        bool stopped = shared->max_fail > 0 && shared->failed >= shared->max_fail;
        size_t index = shared->next < shared->run->count && !stopped ? shared->next++ : SIZE_MAX;
        pthread_mutex_unlock(&shared->lock);
        if (index == SIZE_MAX)
            break;
        gt_case_result *result = &shared->run->results[index];
        run_one(self->target, shared->run->profiles, gt_corpus_case(shared->corpus, index), result);

        pthread_mutex_lock(&shared->lock);
        shared->done++;
        if (result->outcome == GT_OUTCOME_FAIL || result->outcome == GT_OUTCOME_ERROR)
            shared->failed++;
        if (shared->progress != NULL)
            shared->progress(shared->user, shared->done, shared->run->count, result);
        pthread_mutex_unlock(&shared->lock);
    }
    return NULL;
}

static unsigned cpu_count(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus > 0 ? (unsigned)cpus : 1u;
}

gt_run *gt_run_cases(const gt_corpus *corpus, const char *target_spec, unsigned jobs, gt_progress_fn progress,
                     void *user, char *err, size_t err_len)
{
    gt_run_options options = {.target_spec = target_spec, .jobs = jobs, .progress = progress, .user = user};
    return gt_run_cases_with(corpus, &options, err, err_len);
}

/* Cases a fail-fast run never started: skipped, with the reason. */
static void mark_not_run(gt_run *run, const gt_corpus *corpus)
{
    for (size_t i = 0; i < run->count; i++) {
        gt_case_result *result = &run->results[i];
        if (result->kase != NULL)
            continue;
        result->kase = gt_corpus_case(corpus, i);
        if (!(result->kase->profiles & run->profiles)) {
            /* not applicable whether or not the run stopped early */
            result->outcome = GT_OUTCOME_NOT_APPLICABLE;
            result->verdict_class = GT_CLASS_NOT_APPLICABLE;
            continue;
        }
        result->outcome = GT_OUTCOME_SKIP;
        result->verdict_class = GT_CLASS_SKIP;
        result->note = strdup(GT_RUN_NOT_RUN_NOTE);
    }
}

gt_run *gt_run_cases_with(const gt_corpus *corpus, const gt_run_options *options, char *err, size_t err_len)
{
    const char *target_spec = options->target_spec;
    unsigned jobs = options->jobs;
    gt_run *run = calloc(1, sizeof *run);
    if (run == NULL) {
        snprintf(err, err_len, "out of memory");
        return NULL;
    }
    run->corpus = corpus;
    run->count = gt_corpus_count(corpus);
    run->target = target_spec != NULL ? strdup(target_spec) : NULL;
    run->results = calloc(run->count ? run->count : 1, sizeof *run->results);
    time_t wall = time(NULL);
    struct tm utc;
    gmtime_r(&wall, &utc);
    strftime(run->started_at, sizeof run->started_at, "%Y-%m-%dT%H:%M:%SZ", &utc);
    if (run->target == NULL || run->results == NULL) {
        snprintf(err, err_len, "out of memory");
        gt_run_free(run);
        return NULL;
    }

    if (jobs == 0)
        jobs = cpu_count();
    if (jobs > run->count)
        jobs = run->count > 0 ? (unsigned)run->count : 1u;
    run->jobs = jobs;

    gt_target **targets = calloc(jobs, sizeof *targets);
    worker *workers = calloc(jobs, sizeof *workers);
    pthread_t *threads = calloc(jobs, sizeof *threads);
    if (targets == NULL || workers == NULL || threads == NULL) {
        snprintf(err, err_len, "out of memory");
        free(targets), free(workers), free(threads);
        gt_run_free(run);
        return NULL;
    }
    for (unsigned i = 0; i < jobs; i++) {
        if (gt_target_open(target_spec, &targets[i], err, err_len) != 0) {
            for (unsigned j = 0; j < i; j++)
                gt_target_close(targets[j]);
            free(targets), free(workers), free(threads);
            gt_run_free(run);
            return NULL;
        }
    }
    run->target_name = strdup(gt_target_name(targets[0]));
    run->profiles = options->profiles ? options->profiles & GT_PROFILES_ALL : gt_target_profiles(targets[0]);

    scheduler shared = {.corpus = corpus,
                        .run = run,
                        .targets = targets,
                        .max_fail = options->max_fail,
                        .progress = options->progress,
                        .user = options->user};
    pthread_mutex_init(&shared.lock, NULL);
    double started = now_ms();
    unsigned started_threads = 0;
    for (unsigned i = 0; i < jobs; i++) {
        workers[i] = (worker){&shared, targets[i]};
        if (i == 0)
            continue; /* worker 0 runs on the calling thread */
        if (pthread_create(&threads[i], NULL, worker_main, &workers[i]) != 0)
            break; /* fewer threads: the ones running pick up every case anyway */
        started_threads = i;
    }
    worker_main(&workers[0]);
    for (unsigned i = 1; i <= started_threads; i++)
        pthread_join(threads[i], NULL);
    run->elapsed_ms = now_ms() - started;
    pthread_mutex_destroy(&shared.lock);
    mark_not_run(run, corpus);

    for (unsigned i = 0; i < jobs; i++)
        gt_target_close(targets[i]);
    free(targets), free(workers), free(threads);
    return run;
}
