/* cmd_bowtie.c — `gauntlet bowtie`: the structure gate as a Bowtie harness
 * (bowtie.report; docs/bowtie.md).
 *
 * Contract: Bowtie's protocol version 1 on stdin/stdout, one JSON document a
 * line, stdout line-buffered. `start` answers the version and the
 * implementation; `dialect` answers {"ok": true} for the five dialects (the
 * implicit dialect of schemas without `$schema`; schemas are never rewritten)
 * and {"ok": false} for any other; `run` answers {"seq", "results"} with `seq`
 * echoed exactly and one result per test; a case that cannot be compiled or
 * run answers {"seq", "errored": true, "context": {"message"}}, a test stopped
 * by an evaluation limit {"errored": true, "context": {"message"}} in its
 * place; `output: "annotations"` is answered skipped; `stop` ends with exit 0,
 * as does the end of stdin. A line that is not a command (not JSON, no `cmd`,
 * an unknown `cmd`, a `run` without `seq`, anything before `start`) ends the
 * harness with one line `gauntlet bowtie: stdin line N: why` on stderr and
 * exit 2: Bowtie reports such a harness as an uncaught error holding that line
 * and restarts it. Nothing else is ever written on stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "commands.h"
#include "gauntlet/arena.h"
#include "gauntlet/parse.h"
#include "gauntlet/schema.h"
#include "gauntlet/version.h"
#include "reports/report_util.h"

/* Where the harness points people; a packager may override them
 * (-DGT_BOWTIE_SOURCE=...), e.g. from the image build's arguments. */
#ifndef GT_BOWTIE_SOURCE
#define GT_BOWTIE_SOURCE "https://github.com/OWNER/gauntlet"
#endif
#ifndef GT_BOWTIE_HOMEPAGE
#define GT_BOWTIE_HOMEPAGE GT_BOWTIE_SOURCE
#endif
#ifndef GT_BOWTIE_ISSUES
#define GT_BOWTIE_ISSUES GT_BOWTIE_SOURCE "/issues"
#endif
#ifndef GT_BOWTIE_DOCUMENTATION
#define GT_BOWTIE_DOCUMENTATION GT_BOWTIE_SOURCE "/blob/main/docs/jsts.md"
#endif

/* Bowtie reads each reply within 2 s (three attempts); a case stops at this
 * deadline and answers errored well before. */
#define BOWTIE_CASE_DEADLINE_MS 1500

/* A request line: an object holds at most this much nesting above the schema
 * compiler's own depth bound. */
#define BOWTIE_LINE_MAX_DEPTH 1024u
#define BOWTIE_LINE_MAX_BYTES (64u * 1024u * 1024u)

typedef struct bowtie_state {
    bool started;
    gt_schema_dialect dialect; /* the implicit dialect (`dialect` command) */
    unsigned long line;
} bowtie_state;

static void bowtie_usage(FILE *out)
{
    fprintf(out, "usage: gauntlet bowtie\n"
                 "\n"
                 "Speak Bowtie's harness protocol (version 1) on stdin/stdout: one JSON command a\n"
                 "line in, one JSON reply a line out, validating with the structure gate. Meant\n"
                 "to be the entry point of the image bowtie/Containerfile builds (docs/bowtie.md):\n"
                 "  bowtie suite -i localhost/gauntlet JSON-Schema-Test-Suite/tests/draft2020-12\n"
                 "exit: 0 after `stop` or the end of stdin, 2 a line that is not a Bowtie command\n");
}

static int protocol_error(const bowtie_state *st, const char *why, const char *detail)
{
    fprintf(stderr, "gauntlet bowtie: stdin line %lu: %s%s%s\n", st->line, why, detail[0] ? ": " : "", detail);
    return 2;
}

static const gt_value *member(const gt_value *obj, const char *key)
{
    return obj != NULL && obj->type == GT_OBJECT ? gt_value_get(obj, key, strlen(key)) : NULL;
}

static void reply_start(void)
{
    struct utsname un;
    bool have_uname = uname(&un) == 0;
    fputs("{\"version\":1,\"implementation\":{\"language\":\"c\",\"name\":\"gauntlet\",\"version\":", stdout);
    gt_report_json_string(stdout, GAUNTLET_VERSION);
    fputs(",\"homepage\":", stdout);
    gt_report_json_string(stdout, GT_BOWTIE_HOMEPAGE);
    fputs(",\"issues\":", stdout);
    gt_report_json_string(stdout, GT_BOWTIE_ISSUES);
    fputs(",\"source\":", stdout);
    gt_report_json_string(stdout, GT_BOWTIE_SOURCE);
    fputs(",\"documentation\":", stdout);
    gt_report_json_string(stdout, GT_BOWTIE_DOCUMENTATION);
    fputs(",\"dialects\":[", stdout);
    for (int d = 0; d < GT_SCHEMA_DIALECT_COUNT; d++) {
        if (d > 0)
            fputc(',', stdout);
        /* Bowtie names drafts 4, 6 and 7 with their empty fragment. */
        const char *uri = gt_schema_dialect_uri((gt_schema_dialect)d);
        char named[128];
        snprintf(named, sizeof named, "%s%s", uri, strncmp(uri, "http://", 7) == 0 ? "#" : "");
        gt_report_json_string(stdout, named);
    }
    fputc(']', stdout);
    if (have_uname) {
        fputs(",\"os\":", stdout);
        gt_report_json_string(stdout, un.sysname);
        fputs(",\"os_version\":", stdout);
        gt_report_json_string(stdout, un.release);
    }
#if defined(__clang__)
    fputs(",\"language_version\":\"C11 (clang " __clang_version__ ")\"", stdout);
#elif defined(__GNUC__)
    fputs(",\"language_version\":\"C11 (gcc " __VERSION__ ")\"", stdout);
#else
    fputs(",\"language_version\":\"C11\"", stdout);
#endif
    fputs("}}\n", stdout);
}

/* {"seq": S, then the rest of the reply. */
static void reply_seq(const char *seq_json)
{
    fputs("{\"seq\":", stdout);
    fputs(seq_json, stdout);
}

static void reply_errored(const char *seq_json, const char *message)
{
    reply_seq(seq_json);
    fputs(",\"errored\":true,\"context\":{\"message\":", stdout);
    gt_report_json_string(stdout, message);
    fputs("}}\n", stdout);
}

/* The case's registry: every member, serialized, under its URI. Returns NULL
 * with `why` filled on a problem. */
static gt_schema_registry *case_registry(const gt_value *registry, char *why, size_t cap)
{
    gt_schema_registry *reg = gt_schema_registry_new();
    if (reg == NULL) {
        snprintf(why, cap, "out of memory");
        return NULL;
    }
    if (registry == NULL)
        return reg;
    if (registry->type != GT_OBJECT) {
        snprintf(why, cap, "case.registry is not an object");
        gt_schema_registry_free(reg);
        return NULL;
    }
    for (size_t i = 0; i < registry->u.obj.count; i++) {
        const char *uri = registry->u.obj.members[i].key;
        size_t len = 0;
        char *json = gt_value_to_json(registry->u.obj.members[i].value, &len);
        gt_schema_problem problem;
        int rc = json ? gt_schema_registry_add(reg, json, len, uri, uri, &problem) : -1;
        free(json);
        if (rc != 0) {
            snprintf(why, cap, "case.registry[\"%s\"]: %s", uri, json ? problem.message : "out of memory");
            gt_schema_registry_free(reg);
            return NULL;
        }
    }
    return reg;
}

/* One test's result into the reply. */
static void put_result(const gt_schema *schema, const gt_value *instance, gt_schema_errors *errors)
{
    gt_schema_result r = gt_schema_validate(schema, instance, NULL);
    if (r == GT_SCHEMA_ERROR) {
        /* Again with the error list: it names the limit that stopped it. */
        gt_schema_validate(schema, instance, errors);
        char message[512];
        if (gt_schema_failure_is_limit(errors->failure) && errors->count > 0)
            snprintf(message, sizeof message, "evaluation stopped by a limit: %s: %s", errors->items[0].keyword,
                     errors->items[0].message);
        else
            snprintf(message, sizeof message, "evaluation error: %s",
                     gt_schema_failure_code_str(errors->failure) ? gt_schema_failure_code_str(errors->failure)
                                                                 : "out_of_memory");
        fputs("{\"errored\":true,\"context\":{\"message\":", stdout);
        gt_report_json_string(stdout, message);
        fputs("}}", stdout);
        return;
    }
    fputs(r == GT_SCHEMA_VALID ? "{\"valid\":true}" : "{\"valid\":false}", stdout);
}

static void run_case(const bowtie_state *st, const char *seq_json, const gt_value *cmd)
{
    const gt_value *output = member(cmd, "output");
    if (output != NULL && output->type == GT_STRING && strcmp(output->u.str.chars, "annotations") == 0) {
        reply_seq(seq_json);
        fputs(",\"skipped\":true,\"message\":\"gauntlet bowtie answers output \\\"flag\\\" only; annotations are "
              "not collected\"}\n",
              stdout);
        return;
    }
    const gt_value *c = member(cmd, "case");
    const gt_value *schema_v = member(c, "schema");
    const gt_value *tests = member(c, "tests");
    if (c == NULL || c->type != GT_OBJECT) {
        reply_errored(seq_json, "run: no case object");
        return;
    }
    if (schema_v == NULL) {
        reply_errored(seq_json, "run: case has no schema");
        return;
    }
    if (tests == NULL || tests->type != GT_ARRAY) {
        reply_errored(seq_json, "run: case.tests is not an array");
        return;
    }
    for (size_t i = 0; i < tests->u.arr.count; i++)
        if (member(tests->u.arr.items[i], "instance") == NULL) {
            char why[96];
            snprintf(why, sizeof why, "run: case.tests[%zu] has no instance", i);
            reply_errored(seq_json, why);
            return;
        }
    char why[700];
    gt_schema_registry *reg = case_registry(member(c, "registry"), why, sizeof why);
    if (reg == NULL) {
        reply_errored(seq_json, why);
        return;
    }
    gt_schema_options so;
    gt_schema_options_init(&so);
    so.default_dialect = st->dialect;
    so.registry = reg;
    gt_schema_problem problem;
    gt_schema *schema = gt_schema_compile_value(schema_v, &so, &problem);
    if (schema == NULL) {
        snprintf(why, sizeof why, "schema rejected: %s at \"%s\": %s", gt_schema_problem_code_str(problem.code),
                 problem.location, problem.message);
        reply_errored(seq_json, why);
        gt_schema_registry_free(reg);
        return;
    }
    gt_schema_errors errors;
    gt_schema_errors_init(&errors);
    errors.max_errors = 1;
    errors.deadline_ms = gt_schema_clock_ms() + BOWTIE_CASE_DEADLINE_MS;
    reply_seq(seq_json);
    fputs(",\"results\":[", stdout);
    for (size_t i = 0; i < tests->u.arr.count; i++) {
        if (i > 0)
            fputc(',', stdout);
        put_result(schema, member(tests->u.arr.items[i], "instance"), &errors);
    }
    fputs("]}\n", stdout);
    gt_schema_errors_free(&errors);
    gt_schema_free(schema);
    gt_schema_registry_free(reg);
}

/* One request line. Returns -1 to go on, otherwise the exit code. */
static int handle_line(bowtie_state *st, gt_arena *arena, const char *line, size_t len)
{
    gt_parse_options po;
    gt_parse_options_init(&po);
    po.rfc8259 = true;
    po.max_depth = BOWTIE_LINE_MAX_DEPTH;
    po.max_bytes = BOWTIE_LINE_MAX_BYTES;
    gt_parse_error perr;
    const gt_value *cmd = gt_parse(arena, line, len, &po, &perr);
    if (cmd == NULL)
        return protocol_error(st, "not JSON", perr.message);
    if (cmd->type != GT_OBJECT)
        return protocol_error(st, "a command is a JSON object", "");
    const gt_value *name = member(cmd, "cmd");
    if (name == NULL || name->type != GT_STRING)
        return protocol_error(st, "no \"cmd\" string", "");
    const char *n = name->u.str.chars;
    if (strcmp(n, "start") == 0) {
        const gt_value *version = member(cmd, "version");
        if (version == NULL || version->type != GT_NUMBER || version->u.num.number != 1)
            return protocol_error(st, "start: gauntlet speaks protocol version 1 only", "");
        st->started = true;
        reply_start();
        return -1;
    }
    if (strcmp(n, "stop") == 0)
        return 0;
    if (strcmp(n, "dialect") != 0 && strcmp(n, "run") != 0)
        return protocol_error(st, "unknown command", n);
    if (!st->started)
        return protocol_error(st, "no start before this command", n);
    if (strcmp(n, "dialect") == 0) {
        const gt_value *uri = member(cmd, "dialect");
        int d = uri != NULL && uri->type == GT_STRING && strchr(uri->u.str.chars, ':') != NULL
                    ? gt_schema_dialect_from_name(uri->u.str.chars)
                    : -1;
        if (d >= 0)
            st->dialect = (gt_schema_dialect)d;
        fputs(d >= 0 ? "{\"ok\":true}\n" : "{\"ok\":false}\n", stdout);
        return -1;
    }
    const gt_value *seq = member(cmd, "seq");
    if (seq == NULL)
        return protocol_error(st, "run: no seq", "");
    char *seq_json = gt_value_to_json(seq, NULL);
    if (seq_json == NULL)
        return protocol_error(st, "run: out of memory", "");
    run_case(st, seq_json, cmd);
    free(seq_json);
    return -1;
}

int gt_cmd_bowtie(int argc, char **argv)
{
    if (argc > 1) {
        if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
            bowtie_usage(stdout);
            return 0;
        }
        fprintf(stderr, "gauntlet bowtie: unexpected argument '%s'\n", argv[1]);
        bowtie_usage(stderr);
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    bowtie_state st = {.dialect = GT_SCHEMA_DRAFT2020_12};
    gt_arena *arena = gt_arena_new();
    if (arena == NULL)
        return 2;
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    int rc = 0;
    while ((got = getline(&line, &cap, stdin)) >= 0) {
        st.line++;
        size_t len = (size_t)got;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            len--;
        int r = handle_line(&st, arena, line, len);
        fflush(stdout);
        gt_arena_reset(arena);
        if (r >= 0) {
            rc = r;
            break;
        }
    }
    free(line);
    gt_arena_free(arena);
    return rc;
}
