/* gen_candidate.c — one candidate of the generator (gen_impl.h): added once
 * (duplicates dropped by a hash of gate and bytes), numbered, checked with
 * the reference target, and turned into the case input a target is given.
 * gen.c (bases, caps, combinations), gen_ops.c (the operators) and
 * gen_write.c (the folder and the report) call it; it calls none of them.
 * Not for: choosing what to generate. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gauntlet/parse.h"
#include "gauntlet/value.h"
#include "gen_impl.h"

char *gen_format_text(const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    char *text = NULL;
    if (vasprintf(&text, fmt, args) < 0)
        text = NULL;
    va_end(args);
    return text;
}

void gt_gen_outcome_text(gt_verdict verdict, const char *gate, const char *reason, char *out, size_t out_len)
{
    if (verdict == GT_VERDICT_ACCEPT)
        snprintf(out, out_len, "accept");
    else if (verdict == GT_VERDICT_REJECT)
        snprintf(out, out_len, "reject %s/%s", gate ? gate : "?", reason ? reason : "?");
    else
        snprintf(out, out_len, "no verdict");
}

/* ---- candidates ---- */

static bool seen_insert(gt_gen *gen, uint64_t hash)
{
    if (hash == 0)
        hash = 1;
    if ((gen->seen_count + 1) * 2 > gen->seen_cap) {
        size_t cap = gen->seen_cap ? gen->seen_cap * 2 : 1024;
        uint64_t *table = calloc(cap, sizeof *table);
        if (table == NULL) {
            gen->out_of_memory = true;
            return false;
        }
        for (size_t i = 0; i < gen->seen_cap; i++) {
            if (gen->seen[i] == 0)
                continue;
            size_t at = gen->seen[i] & (cap - 1);
            while (table[at] != 0)
                at = (at + 1) & (cap - 1);
            table[at] = gen->seen[i];
        }
        free(gen->seen);
        gen->seen = table;
        gen->seen_cap = cap;
    }
    size_t at = hash & (gen->seen_cap - 1);
    for (; gen->seen[at] != 0; at = (at + 1) & (gen->seen_cap - 1))
        if (gen->seen[at] == hash)
            return false;
    gen->seen[at] = hash;
    gen->seen_count++;
    return true;
}

static unsigned next_number(gt_gen *gen, const char *op)
{
    for (size_t i = 0; i < gen->counter_count; i++)
        if (strcmp(gen->counters[i].name, op) == 0)
            return gen->counters[i].count++;
    op_counter *grown = realloc(gen->counters, (gen->counter_count + 1) * sizeof *grown);
    if (grown == NULL)
        return 0;
    gen->counters = grown;
    gen->counters[gen->counter_count].name = strdup(op);
    gen->counters[gen->counter_count].count = 1;
    gen->counter_count++;
    return 0;
}

void gen_case_free(gt_gen_case *kase)
{
    free(kase->id);
    free(kase->ops);
    free(kase->path);
    free(kase->description);
    free(kase->raw);
    free(kase->script_json);
    free(kase->case_json);
    gt_observed_clear(&kase->reference);
}

/* Whether the reference confirms what the candidate's operator intends. */
static bool confirms(const gt_gen_case *kase)
{
    const gt_observed *seen = &kase->reference;
    if (seen->verdict != kase->want_verdict)
        return false;
    if (kase->want_verdict == GT_VERDICT_ACCEPT)
        return true;
    if (seen->gate == NULL || strcmp(seen->gate, kase->want_gate) != 0)
        return false;
    if (kase->want_reason != NULL && (seen->reason == NULL || strcmp(seen->reason, kase->want_reason) != 0))
        return false;
    if (strcmp(kase->family, "structure") != 0 || strchr(kase->ops, '+') != NULL)
        return true;
    /* a structure mutation must fail where it was made (or at an enclosing node: anyOf, required) */
    for (size_t i = 0; i < seen->error_count; i++) {
        const char *at = seen->errors[i].path ? seen->errors[i].path : "";
        size_t len = strlen(at);
        if (strncmp(kase->path, at, len) == 0 && (kase->path[len] == '\0' || kase->path[len] == '/'))
            return true;
    }
    return false;
}

static void check_candidate(gt_gen *gen, gt_gen_case *kase)
{
    gt_case_input input;
    gt_gen_input(gen, kase, &input);
    char note[512] = "";
    int status = gt_target_check(gen->reference, &input, &kase->reference, note, sizeof note);
    if (status != GT_CHECK_DONE) {
        gt_observed_clear(&kase->reference);
        kase->reference.message = strdup(note[0] ? note : "the reference gave no verdict");
        kase->confirmed = false;
        return;
    }
    kase->confirmed = confirms(kase);
}

/* Add and check a candidate; takes `raw`, `script` and `what`. NULL for a
 * duplicate of an earlier candidate (or out of memory). */
gt_gen_case *gen_add_candidate(gt_gen *gen, const char *family, const char *gate, const char *ops, const char *path,
                               char *raw, size_t raw_len, char *script, const char *const *rules, gt_verdict verdict,
                               const char *want_gate, const char *want_reason, char *what, bool dedupe)
{
    uint64_t hash = gt_hash_bytes(GT_HASH_START, gate, strlen(gate) + 1);
    hash = raw ? gt_hash_bytes(hash, raw, raw_len)
               : gt_hash_bytes(hash, script ? script : "", script ? strlen(script) : 0);
    if ((raw == NULL && script == NULL) || (dedupe && !seen_insert(gen, hash)) || gen->out_of_memory) {
        free(raw);
        free(script);
        free(what);
        return NULL;
    }
    if (gen->count == gen->cap) {
        size_t cap = gen->cap ? gen->cap * 2 : 256;
        gt_gen_case *grown = realloc(gen->cases, cap * sizeof *grown);
        if (grown == NULL) {
            gen->out_of_memory = true;
            free(raw);
            free(script);
            free(what);
            return NULL;
        }
        gen->cases = grown;
        gen->cap = cap;
    }
    gt_gen_case *kase = &gen->cases[gen->count];
    *kase = (gt_gen_case){0};
    gt_accounting_init(&kase->reference.accounting);
    kase->family = family;
    kase->gate = gate;
    kase->ops = strdup(ops);
    kase->path = strdup(path);
    char *id_ops = strdup(ops);
    for (char *p = id_ops; p && *p; p++)
        if (*p == '+')
            *p = '.';
    const char *scope = gen->options.id_scope;
    kase->id = id_ops ? gen_format_text("gen.%s%s%s.%s.%u", scope ? scope : "", scope ? "." : "", family, id_ops,
                                        next_number(gen, ops))
                      : NULL;
    free(id_ops);
    kase->description = what;
    kase->raw = (unsigned char *)raw;
    kase->raw_len = raw_len;
    kase->script_json = script;
    for (size_t i = 0; rules != NULL && rules[i] != NULL && i < 4; i++)
        kase->rules[kase->rule_count++] = rules[i];
    kase->want_verdict = verdict;
    kase->want_gate = want_gate;
    kase->want_reason = want_reason;
    if (kase->ops == NULL || kase->path == NULL || kase->id == NULL) {
        gen->out_of_memory = true;
        gen_case_free(kase);
        return NULL;
    }
    gen->count++;
    check_candidate(gen, kase);
    return kase;
}

void gt_gen_input(gt_gen *gen, const gt_gen_case *kase, gt_case_input *input)
{
    gt_gen_case *mutable = (gt_gen_case *)kase;
    if (mutable->case_json == NULL) {
        gt_buf buf = {0};
        gt_buf_str(&buf, "{\"id\":");
        gt_json_write_text(&buf, kase->id, false);
        gt_buf_printf(&buf, ",\"gate\":\"%s\",\"category\":", kase->gate);
        char category[64];
        snprintf(category, sizeof category, "%.*s", (int)strcspn(kase->ops, "+"), kase->ops);
        gt_json_write_text(&buf, category, false);
        gt_buf_str(&buf, ",\"tags\":[\"gen\"");
        for (const char *op = kase->ops; *op;) {
            size_t len = strcspn(op, "+");
            gt_buf_printf(&buf, ",\"%.*s\"", (int)len, op);
            op += len + (op[len] == '+');
        }
        gt_buf_str(&buf, "]");
        if (gen->options.formats)
            gt_buf_str(&buf, ",\"formats\":true");
        if (kase->script_json != NULL) {
            gt_buf_str(&buf, ",\"script\":");
            gt_buf_str(&buf, kase->script_json);
        }
        gt_buf_str(&buf, "}");
        mutable->case_json = gt_buf_take(&buf, NULL);
    }
    bool layered = kase->script_json != NULL;
    *input = (gt_case_input){
        .id = kase->id,
        .gate = kase->gate,
        .raw = kase->raw,
        .raw_len = kase->raw_len,
        .schema_json = layered ? NULL : gen->schema_compact,
        .schema_origin = gen->options.origin,
        .case_json = kase->case_json ? kase->case_json : "{}",
        .assert_formats = gen->options.formats,
        .schemas = gen->options.registry,
    };
}
