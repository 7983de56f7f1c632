/* cmd_validate.c — `gauntlet validate`: syntax then structure gate.
 *
 * Contract (relied on by external checks):
 *   validate --schema S.json [--formats] [--reject-nul] [--ref FILE]... [--ref-dir DIR]... [FILE|-]
 *     exit 0 valid; 1 invalid, one error per line `<$path> <keyword>: <message>`
 *     (a syntax rejection prints exactly what `gauntlet parse` prints);
 *     2 usage error, unreadable input or invalid schema (file and location named).
 *   validate --schema S.json --jsonl FILE
 *     each line is a JSON string literal holding one raw model output; prints
 *     `N valid, M invalid` then one `<gate> <reason> <count>` line per reason.
 *     Compiles once, streams the file line by line (memory bounded by the
 *     longest line, not the file) and reuses one arena (gt_arena_reset) per line.
 *   --values: each line is itself the JSON value (as ajv-cli, Blaze and jq read JSONL).
 *   --time: a last line `time: N docs, parse X ns/doc, validate Y ns/doc` (see
 *     GT_TIME_PASSES).
 *   --time-first-failure: --time, and before its line one more,
 *     `time-first-failure: P docs, validate Z ns/doc, same verdict K`: the
 *     verdict-only structure gate (gt_schema_validate_first_failure) timed the
 *     same way on the P parsed lines; K of them got the all-errors gate's
 *     verdict (valid or not), which is P unless a limit differs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cli_io.h"
#include "commands.h"
#include "gauntlet/parse.h"
#include "gauntlet/schema.h"
#include "jsonl_literal.h"

/* --jsonl reads the file in chunks this large into its own line buffer (which
 * grows only to hold the longest line): few read(2) calls, lines handed out in
 * place without a copy, and still a bounded amount of memory. */
#define GT_JSONL_READ_BUFFER (256u * 1024u)
/* Longest `--jsonl` line: a JSON string literal of --max-bytes bytes, each
 * escaped as \uXXXX, with its quotes (and a '\r'). A longer line is that
 * line's syntax `too_large` rejection; reading it stops at the limit (the
 * rest of the line is skipped, never buffered) and the run goes on. */
static size_t jsonl_max_line(size_t max_bytes)
{
    size_t bytes = max_bytes ? max_bytes : GT_PARSE_DEFAULT_MAX_BYTES;
    return bytes > (SIZE_MAX - 3) / 6 ? SIZE_MAX : bytes * 6 + 3;
}

typedef struct validate_args {
    const char *schema_path;
    const char *input;
    const char *jsonl;
    const char *remotes;
    bool formats;
    bool values; /* --values: --jsonl lines are JSON values, not string literals */
    bool time;   /* --time: the timing line after the counts */
    bool time_first_failure; /* --time-first-failure: --time and the first-failure gate's line */
    int dialect;
    gt_parse_options parse; /* the syntax gate's policy (--reject-nul) */
    gt_schema_registry *registry; /* --ref / --ref-dir, or NULL */
} validate_args;

static void validate_usage(FILE *out)
{
    fprintf(out,
            "usage: gauntlet validate --schema S.json [--formats] [--dialect D] [--remotes DIR] [--reject-nul]\n"
            "                         [--ref FILE]... [--ref-dir DIR]... [FILE|-]\n"
            "       gauntlet validate --schema S.json [options] --jsonl FILE\n"
            "\n"
            "Run the syntax gate, then the structure gate (JSON Schema), on one raw model output,\n"
            "or on every line of a JSONL file whose lines are JSON string literals.\n"
            "  --schema S.json  the JSON Schema (dialect from its $schema; default 2020-12)\n"
            "  --formats        make `format` an assertion (default: annotation only)\n"
            "  --dialect D      dialect when the schema has no $schema (draft4 ... draft2020-12)\n"
            "  --remotes DIR    local directory that stands in for http://localhost:1234/\n"
            GT_CLI_REF_HELP GT_CLI_NUL_HELP
            "  --max-bytes N    size limit of one output in bytes, k/M/G suffixes allowed (default %u);\n"
            "                   a --jsonl line over 6 x N + 3 bytes is that line's syntax too_large\n"
            "  --jsonl FILE     batch mode: print 'N valid, M invalid' and counts by gate and reason\n"
            "  --values         with --jsonl: each line is a JSON value, not a JSON string literal\n"
            "  --time           with --jsonl: a last line 'time: N docs, parse X ns/doc, validate Y ns/doc';\n"
            "                   N lines reached the syntax gate, X = its mean time per line, Y = the mean over\n"
            "                   the parsed lines of each one's best of 5 structure-gate runs on its parsed value\n"
            "  --time-first-failure  --time, and before its line 'time-first-failure: P docs, validate Z ns/doc,\n"
            "                   same verdict K': the verdict-only gate (stops at the first failure, no error\n"
            "                   list) timed the same way on the P parsed lines; K of them got the same verdict\n"
            "exit: 0 valid, 1 invalid, 2 usage error, unreadable input or invalid schema\n",
            GT_PARSE_DEFAULT_MAX_BYTES);
}

static int parse_args(int argc, char **argv, validate_args *a)
{
    memset(a, 0, sizeof *a);
    a->dialect = GT_SCHEMA_DRAFT2020_12;
    gt_parse_options_init(&a->parse);
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        int ref = gt_cli_ref_flag("gauntlet validate", argc, argv, &i, &a->registry);
        if (ref < 0)
            return 2;
        if (ref > 0 || gt_cli_nul_flag(arg, &a->parse.reject_nul))
            continue;
        bool takes_value = !strcmp(arg, "--schema") || !strcmp(arg, "--jsonl") || !strcmp(arg, "--remotes") ||
                           !strcmp(arg, "--dialect") || !strcmp(arg, "--max-bytes");
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            validate_usage(stdout);
            return 0;
        } else if (!strcmp(arg, "--formats"))
            a->formats = true;
        else if (!strcmp(arg, "--values"))
            a->values = true;
        else if (!strcmp(arg, "--time"))
            a->time = true;
        else if (!strcmp(arg, "--time-first-failure"))
            a->time = a->time_first_failure = true;
        else if (takes_value) {
            if (i + 1 >= argc) {
                fprintf(stderr, "gauntlet validate: %s needs a value\n", arg);
                return 2;
            }
            const char *value = argv[++i];
            if (!strcmp(arg, "--schema"))
                a->schema_path = value;
            else if (!strcmp(arg, "--jsonl"))
                a->jsonl = value;
            else if (!strcmp(arg, "--remotes"))
                a->remotes = value;
            else if (!strcmp(arg, "--max-bytes")) {
                if (gt_parse_size(value, &a->parse.max_bytes) != 0 || a->parse.max_bytes == 0) {
                    fprintf(stderr, "gauntlet validate: --max-bytes needs a positive size, not '%s'\n", value);
                    return 2;
                }
            } else if ((a->dialect = gt_schema_dialect_from_name(value)) < 0) {
                fprintf(stderr, "gauntlet validate: unknown dialect '%s'\n", value);
                return 2;
            }
        } else if (arg[0] == '-' && arg[1] != '\0') {
            fprintf(stderr, "gauntlet validate: unknown option '%s'\n", arg);
            gt_cli_hint_option("validate", arg);
            validate_usage(stderr);
            return 2;
        } else if (a->input != NULL) {
            fprintf(stderr, "gauntlet validate: more than one input ('%s' and '%s')\n", a->input, arg);
            return 2;
        } else
            a->input = arg;
    }
    if (a->schema_path == NULL) {
        fprintf(stderr, "gauntlet validate: --schema is required\n");
        validate_usage(stderr);
        return 2;
    }
    if (a->jsonl != NULL && a->input != NULL) {
        fprintf(stderr, "gauntlet validate: --jsonl and an input file ('%s') exclude each other\n", a->input);
        return 2;
    }
    if ((a->values || a->time) && a->jsonl == NULL) {
        fprintf(stderr, "gauntlet validate: %s needs --jsonl FILE\n",
                a->values ? "--values" : a->time_first_failure ? "--time-first-failure" : "--time");
        return 2;
    }
    return -1;
}

static gt_schema *load_schema(const validate_args *a)
{
    char err[512];
    size_t len;
    char *text = gt_read_file(a->schema_path, &len, err, sizeof err);
    if (text == NULL) {
        fprintf(stderr, "gauntlet validate: --schema %s\n", err);
        return NULL;
    }
    gt_schema_options options;
    gt_schema_options_init(&options);
    options.assert_formats = a->formats;
    options.default_dialect = (gt_schema_dialect)a->dialect;
    options.remotes_dir = a->remotes;
    options.registry = a->registry;
    char base[8192];
    if (strcmp(a->schema_path, "-") != 0 && gt_schema_file_uri(a->schema_path, base, sizeof base) == 0)
        options.base_uri = base; /* relative $ref resolve beside the schema file */
    gt_schema_problem problem;
    gt_schema *schema = gt_schema_compile(text, len, &options, &problem);
    free(text);
    if (schema == NULL)
        fprintf(stderr, "gauntlet validate: invalid schema %s at \"%s\": %s: %s\n", a->schema_path, problem.location,
                gt_schema_problem_code_str(problem.code), problem.message);
    return schema;
}

static int validate_one(const gt_schema *schema, const gt_parse_options *parse, const char *path)
{
    char err[512];
    gt_arena *arena = gt_arena_new();
    char *text = NULL;
    gt_parse_error perr;
    gt_value *value = arena ? gt_read_and_parse(arena, path, parse, &text, &perr, err, sizeof err) : NULL;
    if (arena != NULL && text == NULL) {
        gt_arena_free(arena);
        fprintf(stderr, "gauntlet validate: %s\n", err);
        return 2;
    }
    int status;
    if (arena == NULL) {
        fprintf(stderr, "gauntlet validate: out of memory\n");
        status = 2;
    } else if (value == NULL) {
        printf("reject syntax %s at %u:%u: %s\n", gt_syntax_reason_code(perr.reason), perr.line, perr.column,
               perr.message);
        status = perr.reason == GT_SYNTAX_OUT_OF_MEMORY ? 2 : 1;
    } else {
        gt_schema_errors errors;
        gt_schema_errors_init(&errors);
        gt_schema_result r = gt_schema_validate(schema, value, &errors);
        for (size_t i = 0; i < errors.count; i++)
            printf("%s %s: %s\n", errors.items[i].instance_path_dollar, errors.items[i].keyword,
                   errors.items[i].message);
        if (r == GT_SCHEMA_ERROR && gt_schema_failure_is_limit(errors.failure))
            fprintf(stderr, "gauntlet validate: evaluation stopped at a limit (%s)\n",
                    gt_schema_failure_code_str(errors.failure));
        else if (r == GT_SCHEMA_ERROR)
            fprintf(stderr, "gauntlet validate: evaluation failed (out of memory)\n");
        status = r == GT_SCHEMA_VALID ? 0 : r == GT_SCHEMA_INVALID ? 1 : 2;
        gt_schema_errors_free(&errors);
    }
    gt_arena_free(arena);
    free(text);
    return status;
}

/* Counts by (gate, reason), in order of first appearance. */
typedef struct reason_count {
    const char *gate;
    char reason[64];
    size_t count;
} reason_count;

typedef struct tally {
    reason_count *items;
    size_t count, cap;
    size_t valid, invalid;
} tally;

static void tally_add(tally *t, const char *gate, const char *reason)
{
    for (size_t i = 0; i < t->count; i++)
        if (t->items[i].gate == gate && strcmp(t->items[i].reason, reason) == 0) {
            t->items[i].count++;
            return;
        }
    if (t->count == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 16;
        reason_count *grown = realloc(t->items, cap * sizeof *grown);
        if (grown == NULL)
            return;
        t->items = grown, t->cap = cap;
    }
    reason_count *rc = &t->items[t->count++];
    rc->gate = gate, rc->count = 1;
    snprintf(rc->reason, sizeof rc->reason, "%s", reason);
}

/* --time: each parsed document's structure gate runs this many times and the
 * fastest run counts (the others warm caches and absorb a busy core). */
#define GT_TIME_PASSES 5

/* --time's sums: nanoseconds over the lines that reached the syntax gate
 * (parse) and over those it accepted (validate, best of GT_TIME_PASSES). */
typedef struct jsonl_timing {
    bool on;
    size_t docs, parsed;
    double parse_ns, validate_ns;
    double clock_ns; /* what one reading of the clock adds to a measured span */
    bool first_failure; /* --time-first-failure: also time gt_schema_validate_first_failure */
    size_t same_verdict; /* parsed lines where it agreed with the all-errors gate (valid or not) */
    double first_failure_ns;
    gt_schema_errors scratch; /* the first-failure gate's reused scratch (never the counted errors) */
} jsonl_timing;

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The clock's own cost inside a span (t1 - t0 of two back-to-back readings,
 * the fastest of 1,000): on a document of a few hundred nanoseconds it is a
 * tenth of the figure, and it is no parse or validation time. */
static double clock_cost_ns(void)
{
    double best = 0;
    for (int i = 0; i < 1000; i++) {
        double t0 = now_ns(), spent = now_ns() - t0;
        if (i == 0 || spent < best)
            best = spent;
    }
    return best;
}

/* A measured span less the clock's own cost, never below zero. */
static double span_ns(const jsonl_timing *tm, double t0)
{
    double spent = now_ns() - t0 - tm->clock_ns;
    return spent > 0 ? spent : 0;
}

/* The structure gate on a parsed value; under --time run GT_TIME_PASSES times,
 * the best run added to tm (every run gives the same answer and errors). */
static gt_schema_result timed_validate(const gt_schema *schema, const gt_value *value, gt_schema_errors *errors,
                                       jsonl_timing *tm)
{
    if (!tm->on)
        return gt_schema_validate(schema, value, errors);
    gt_schema_result r = GT_SCHEMA_VALID;
    double best = 0;
    for (int pass = 0; pass < GT_TIME_PASSES; pass++) {
        double t0 = now_ns();
        r = gt_schema_validate(schema, value, errors);
        double spent = span_ns(tm, t0);
        if (pass == 0 || spent < best)
            best = spent;
    }
    tm->parsed++;
    tm->validate_ns += best;
    if (tm->first_failure) {
        gt_schema_result quick = GT_SCHEMA_VALID;
        for (int pass = 0; pass < GT_TIME_PASSES; pass++) {
            double t0 = now_ns();
            quick = gt_schema_validate_first_failure(schema, value, &tm->scratch);
            double spent = span_ns(tm, t0);
            if (pass == 0 || spent < best)
                best = spent;
        }
        tm->first_failure_ns += best;
        tm->same_verdict += (quick == GT_SCHEMA_VALID) == (r == GT_SCHEMA_VALID);
    }
    return r;
}

/* One JSONL line: decode the string literal (unless --values: the line is the
 * value), then both gates. Returns 0, or 2 when the line is not a JSON string
 * literal. */
static int jsonl_line(const gt_schema *schema, const gt_parse_options *parse, gt_arena *arena, gt_schema_errors *errors,
                      const char *line, size_t len, gt_jsonl_buffer *buf, tally *t, bool values, jsonl_timing *tm)
{
    gt_parse_error perr;
    const char *raw;
    size_t raw_len = values ? len : gt_jsonl_decode_literal(line, len, buf);
    if (values)
        raw = line;
    else if (raw_len != (size_t)-1)
        raw = buf->data;
    else {
        gt_parse_options lo;
        gt_parse_options_init(&lo);
        lo.max_bytes = 1024u * 1024u * 1024u;
        gt_value *literal = gt_parse(arena, line, len, &lo, &perr);
        if (literal == NULL || literal->type != GT_STRING)
            return 2;
        raw = literal->u.str.chars, raw_len = literal->u.str.len;
    }
    double t0 = tm->on ? now_ns() : 0;
    gt_value *value = gt_parse(arena, raw, raw_len, parse, &perr);
    if (tm->on)
        tm->docs++, tm->parse_ns += span_ns(tm, t0);
    if (value == NULL) {
        t->invalid++;
        tally_add(t, "syntax", gt_syntax_reason_code(perr.reason));
        return 0;
    }
    gt_schema_result r = timed_validate(schema, value, errors, tm);
    if (r == GT_SCHEMA_VALID)
        t->valid++;
    else {
        t->invalid++;
        tally_add(t, "structure",
                  r == GT_SCHEMA_ERROR ? (gt_schema_failure_is_limit(errors->failure) ? gt_schema_errors_reason(errors)
                                                                                        : "evaluation_error")
                                       : gt_schema_errors_reason(errors));
    }
    return 0;
}

/* Lines of a stream, handed out in place from one buffer: the unread tail
 * moves to the front before each read, and the buffer doubles only when one
 * line does not fit. */
typedef struct line_reader {
    FILE *in;
    char *data;
    size_t cap, start, end; /* unread bytes are data[start..end) */
    bool eof;
    size_t max;             /* longest line kept (jsonl_max_line) */
    bool skipping;          /* inside a line over `max`: dropping bytes up to its '\n' */
} line_reader;

/* The next line without its '\n' (the last one may lack it): 1, with *line and
 * *len set (valid until the next call); 2 for a line over r->max bytes (its
 * bytes dropped while reading, memory stays at r->max); 0 at the end; -1 on a
 * read error or out of memory (errno set). */
static int next_line(line_reader *r, char **line, size_t *len)
{
    for (;;) {
        char *from = r->data + r->start;
        char *nl = r->end > r->start ? memchr(from, '\n', r->end - r->start) : NULL;
        if (r->skipping) {
            if (nl != NULL || r->eof) {
                r->skipping = false;
                r->start = nl != NULL ? (size_t)(nl - r->data) + 1 : r->end;
                *line = NULL, *len = 0;
                return 2;
            }
            r->start = r->end = 0; /* drop what was read of the long line */
        } else if (nl == NULL && r->end - r->start > r->max) {
            r->skipping = true;
            r->start = r->end = 0;
            continue;
        }
        if (nl != NULL || (r->eof && r->start < r->end)) {
            *line = from;
            *len = nl != NULL ? (size_t)(nl - from) : r->end - r->start;
            r->start = nl != NULL ? (size_t)(nl - r->data) + 1 : r->end;
            return *len > r->max ? 2 : 1; /* a long line that came in one read */
        }
        if (r->eof)
            return 0;
        if (r->start > 0) {
            memmove(r->data, from, r->end - r->start);
            r->end -= r->start, r->start = 0;
        }
        if (r->cap - r->end < GT_JSONL_READ_BUFFER / 2 && r->cap <= r->max) { /* a long line: room for it */
            size_t cap = r->cap ? r->cap * 2 : GT_JSONL_READ_BUFFER;
            char *grown = realloc(r->data, cap);
            if (grown == NULL) {
                errno = ENOMEM;
                return -1;
            }
            r->data = grown, r->cap = cap;
        }
        size_t got = fread(r->data + r->end, 1, r->cap - r->end, r->in);
        if (got == 0 && ferror(r->in))
            return -1;
        r->eof = got == 0;
        r->end += got;
    }
}

/* Streams the file (or stdin for "-") a line at a time: memory is bounded by
 * the longest line (one reused line buffer, one decode buffer, one arena reset
 * per line), never by the file size. */
static int validate_jsonl(const gt_schema *schema, const gt_parse_options *parse, const char *path, bool values,
                          bool timed, bool first_failure)
{
    bool use_stdin = strcmp(path, "-") == 0;
    char err[512];
    FILE *in = use_stdin ? stdin : gt_open_regular(path, NULL, err, sizeof err);
    if (in == NULL) {
        fprintf(stderr, "gauntlet validate: %s\n", err);
        return 2;
    }
    setvbuf(in, NULL, _IONBF, 0); /* next_line reads into its own buffer */
    line_reader reader = {in, NULL, 0, 0, 0, false, jsonl_max_line(parse->max_bytes), false};
    char *line;
    size_t n;
    gt_jsonl_buffer buf = {0};
    gt_arena *arena = gt_arena_new();
    gt_schema_errors errors;
    gt_schema_errors_init(&errors);
    tally t = {0};
    int status = arena ? 0 : 2;
    size_t line_no = 0;
    int got = 0;
    jsonl_timing tm = {timed, 0, 0, 0, 0, timed ? clock_cost_ns() : 0, first_failure, 0, 0, {0}};
    gt_schema_errors_init(&tm.scratch);
    while (status == 0 && (got = next_line(&reader, &line, &n)) > 0) {
        line_no++;
        if (got == 2) { /* over the limit: this line's rejection, the run goes on */
            fprintf(stderr, "gauntlet validate: %s:%zu: line over the limit of %zu bytes (6 x --max-bytes + 3): "
                            "syntax too_large, the line not kept\n", path, line_no, reader.max);
            t.invalid++;
            tally_add(&t, "syntax", "too_large");
            continue;
        }
        if (n == 0 || (n == 1 && line[0] == '\r'))
            continue;
        gt_arena_reset(arena);
        if (jsonl_line(schema, parse, arena, &errors, line, n, &buf, &t, values, &tm) != 0) {
            fprintf(stderr, "gauntlet validate: %s:%zu: not a JSON string literal\n", path, line_no);
            status = 2;
        }
    }
    if (status == 0 && got < 0) {
        fprintf(stderr, "gauntlet validate: %s: %s\n", path, strerror(errno));
        status = 2;
    }
    if (status == 0) {
        printf("%zu valid, %zu invalid\n", t.valid, t.invalid);
        for (size_t i = 0; i < t.count; i++)
            printf("%s %s %zu\n", t.items[i].gate, t.items[i].reason, t.items[i].count);
        if (first_failure)
            printf("time-first-failure: %zu docs, validate %.0f ns/doc, same verdict %zu\n", tm.parsed,
                   tm.parsed ? tm.first_failure_ns / (double)tm.parsed : 0.0, tm.same_verdict);
        if (timed)
            printf("time: %zu docs, parse %.0f ns/doc, validate %.0f ns/doc\n", tm.docs,
                   tm.docs ? tm.parse_ns / (double)tm.docs : 0.0, tm.parsed ? tm.validate_ns / (double)tm.parsed : 0.0);
        status = t.invalid == 0 ? 0 : 1;
    }
    free(t.items);
    free(buf.data);
    free(reader.data);
    gt_schema_errors_free(&errors);
    gt_schema_errors_free(&tm.scratch);
    gt_arena_free(arena);
    if (!use_stdin)
        fclose(in);
    return status;
}

int gt_cmd_validate(int argc, char **argv)
{
    validate_args a;
    int rc = parse_args(argc, argv, &a);
    gt_schema *schema = rc < 0 ? load_schema(&a) : NULL;
    if (rc < 0)
        rc = schema == NULL ? 2
             : a.jsonl    ? validate_jsonl(schema, &a.parse, a.jsonl, a.values, a.time, a.time_first_failure)
                          : validate_one(schema, &a.parse, a.input);
    gt_schema_free(schema);
    gt_schema_registry_free(a.registry); /* read only while compiling */
    return rc;
}
