/* gauntlet-adapter-reference — libgauntlet behind the adapter protocol.
 *
 * Reads one JSON request per line on stdin, answers one JSON line on stdout
 * (docs/adapter-protocol.md). It runs every case through the same in-process
 * reference target as `gauntlet run --target reference`, so it must score
 * 100%; it doubles as the protocol's worked example for vendors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gauntlet/util.h"
#include "gauntlet/arena.h"
#include "gauntlet/parse.h"
#include "gauntlet/runner/run.h"
#include "gauntlet/schema.h"

#include "gauntlet/version.h"
#include "request.h"

#define string_member gt_ref_string_member

static void write_key_string(const char *key, const char *text, int *first)
{
    if (text == NULL)
        return;
    printf("%s\"%s\":", *first ? "" : ",", key);
    gt_json_write_string(stdout, text, strlen(text));
    *first = 0;
}

static void answer_error(const gt_value *seq, const char *kind, const char *message)
{
    char *seq_json = seq ? gt_value_to_json(seq, NULL) : NULL;
    printf("{\"seq\":%s,\"%s\":true,\"message\":", seq_json ? seq_json : "null", kind);
    gt_json_write_string(stdout, message, strlen(message));
    printf("}\n");
    free(seq_json);
}

static void answer_observed(const gt_value *seq, const gt_observed *observed)
{
    char *seq_json = gt_value_to_json(seq, NULL);
    printf("{\"seq\":%s", seq_json ? seq_json : "null");
    free(seq_json);
    int first = 0;
    write_key_string("verdict", observed->verdict == GT_VERDICT_ACCEPT ? "accept" : "reject", &first);
    write_key_string("gate", observed->gate, &first);
    write_key_string("reason", observed->reason, &first);
    write_key_string("message", observed->message, &first);
    write_key_string("subtype", observed->subtype, &first);
    printf(",\"errors\":[");
    for (size_t i = 0; i < observed->error_count; i++) {
        int inner = 1;
        printf("%s{", i ? "," : "");
        write_key_string("path", observed->errors[i].path, &inner);
        write_key_string("keyword", observed->errors[i].keyword, &inner);
        write_key_string("message", observed->errors[i].message, &inner);
        printf("}");
    }
    printf("],\"gates\":{");
    for (int gate = 0, n = 0; gate < GT_GATE_COUNT; gate++) {
        if (observed->gates[gate] == GT_GATE_NOT_RUN)
            continue;
        printf("%s\"%s\":\"%s\"", n++ ? "," : "", gt_gate_name((gt_gate)gate),
               observed->gates[gate] == GT_GATE_PASSED ? "passed" : "failed");
    }
    printf("}");
    if (observed->output_json != NULL)
        printf(",\"output\":%s", observed->output_json);
    if (observed->trace_json != NULL)
        printf(",\"trace\":%s", observed->trace_json);
    if (observed->has_accounting) {
        /* a figure the target did not give (-1) is null: a negative figure is a protocol error */
        const gt_accounting *a = &observed->accounting;
        const struct {
            const char *key;
            int value;
        } figures[] = {{"attempts_used", a->attempts_used}, {"attempts_limit", a->attempts_limit},
                       {"retracted", a->retracted},         {"enforce_messages", a->enforce_messages},
                       {"api_attempts", a->api_attempts},   {"model_calls", a->model_calls}};
        printf(",\"accounting\":{");
        for (size_t i = 0; i < sizeof figures / sizeof *figures; i++) {
            if (figures[i].value >= 0)
                printf("%s\"%s\":%d", i ? "," : "", figures[i].key, figures[i].value);
            else
                printf("%s\"%s\":null", i ? "," : "", figures[i].key);
        }
        printf("}");
    }
    printf("}\n");
}

/* The registry of the request's schemas_dir, built once per folder. */
typedef struct schemas_cache {
    char *dir;
    gt_schema_registry *registry;
} schemas_cache;

static const gt_schema_registry *schemas_of(schemas_cache *cache, const char *dir)
{
    if (dir == NULL)
        return NULL;
    if (cache->dir == NULL || strcmp(cache->dir, dir) != 0) {
        free(cache->dir);
        gt_schema_registry_free(cache->registry);
        cache->dir = strdup(dir);
        cache->registry = gt_schema_registry_new();
        gt_schema_problem problem;
        if (cache->registry != NULL && gt_schema_registry_add_dir(cache->registry, dir, &problem) != 0)
            fprintf(stderr, "gauntlet-adapter-reference: %s: %s\n", dir, problem.message);
    }
    return cache->registry;
}

/* Rebuild a case input from a check request and run it through the target. */
static void handle_check(gt_target *target, const gt_value *request, schemas_cache *cache)
{
    gt_ref_request r;
    char why[256];
    if (gt_ref_request_read(request, &r, why, sizeof why) != 0) {
        answer_error(gt_value_get(request, "seq", 3), "errored", why);
        return;
    }
    gt_case_input input = {
        .id = r.id,
        .gate = r.gate,
        .raw = r.raw,
        .raw_len = r.raw_len,
        .schema_json = r.schema_json,
        .schema_origin = "adapter request",
        .case_json = r.case_json,
        .assert_formats = r.formats,
        .reject_nul = r.reject_nul,
        .max_bytes = r.max_bytes,
        .schemas_dir = r.schemas_dir,
        .schemas = schemas_of(cache, r.schemas_dir),
        .remotes_dir = r.remotes_dir,
    };
    gt_observed observed;
    memset(&observed, 0, sizeof observed);
    gt_accounting_init(&observed.accounting);
    char note[1024] = "";
    int status = gt_target_check(target, &input, &observed, note, sizeof note);
    if (status == GT_CHECK_DONE)
        answer_observed(r.seq, &observed);
    else
        answer_error(r.seq, status == GT_CHECK_SKIPPED ? "skipped" : "errored", note);
    gt_observed_clear(&observed);
    gt_ref_request_clear(&r);
}

int main(void)
{
    char err[512];
    gt_target *target;
    if (gt_target_open("reference", &target, err, sizeof err) != 0) {
        fprintf(stderr, "gauntlet-adapter-reference: %s\n", err);
        return 1;
    }
    gt_arena *arena = gt_arena_new();
    gt_parse_options options;
    gt_parse_options_init(&options);
    /* A request is any RFC 8259 text (a raw output with a NUL byte arrives as
     * "\u0000" in `raw`); its depth is bounded by the case file it carries. */
    options.rfc8259 = true;
    options.max_depth = 100000;
    options.max_bytes = 1u << 30;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    schemas_cache cache = {0};
    while ((len = getline(&line, &cap, stdin)) > 0) {
        gt_arena_reset(arena);
        gt_parse_error perr;
        const gt_value *request = gt_parse(arena, line, (size_t)len, &options, &perr);
        const char *cmd = request && request->type == GT_OBJECT ? string_member(request, "cmd") : NULL;
        if (cmd == NULL) {
            fprintf(stderr, "gauntlet-adapter-reference: unreadable request (%s at %u:%u)\n",
                    gt_syntax_reason_code(perr.reason), perr.line, perr.column);
            answer_error(NULL, "errored", "unreadable request");
        } else if (strcmp(cmd, "hello") == 0) {
            printf("{\"protocol\":1,\"implementation\":{\"name\":\"gauntlet-reference\",\"version\":\"%s\","
                   "\"language\":\"c\",\"homepage\":\"https://example.invalid/gauntlet\"},"
                   "\"capabilities\":[\"syntax\",\"structure\",\"semantic\",\"policy\",\"stream\",\"loop\","
                   "\"wire\"],\"profiles\":[\"core\",\"repair-loop\",\"claude-code\",\"sdk-transform\",\"reasons\"],"
                   "\"options\":{\"formats\":\"per-case\"}}\n",
                   GAUNTLET_VERSION);
        } else if (strcmp(cmd, "check") == 0) {
            handle_check(target, request, &cache);
        } else if (strcmp(cmd, "stop") == 0) {
            break;
        } else {
            answer_error(gt_value_get(request, "seq", 3), "errored", "unknown cmd");
        }
        fflush(stdout);
    }
    free(line);
    free(cache.dir);
    gt_schema_registry_free(cache.registry);
    gt_arena_free(arena);
    gt_target_close(target);
    return 0;
}
