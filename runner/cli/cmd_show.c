/* cmd_show.c — `gauntlet show CASE-ID`: run one case and print everything a
 * person debugging it wants, in one screen.
 *
 * Contract:
 *   gauntlet show CASE-ID [PATH...] [--target SPEC] [--timeout T]
 *   stdout: the case (file and line, gate, tags, description, the raw input
 *           with every invisible byte made visible, the schema and the other
 *           case fields), the expectation, every gate's verdict with the
 *           errors of the gate that rejected, the attempt accounting
 *           (expected vs observed), the output, the loop transcript when the
 *           target gives one (requests, tool errors fed back, tombstones,
 *           attempts after each turn), and a last line
 *           `PASS|FAIL|ERROR|SKIP <id>[: <note>]`;
 *   exit:   0 the case passed (or was skipped), 1 it failed or errored,
 *           2 usage, no such case, or its file could not be loaded.
 * Everything from the corpus or the target is escaped for the terminal. */
#include <cJSON.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "gauntlet/runner/corpus.h"
#include "gauntlet/runner/report.h"
#include "gauntlet/runner/run.h"
#include "reports/report_util.h"
#include "runner/targets/target_adapter.h"

#define SHOW_MAX_JSON 16384 /* bytes of schema or case JSON shown before "..." */
#define SHOW_MAX_SUGGESTIONS 10
#define SHOW_MAX_ID 256       /* longest id the typo suggestion compares */
#define SHOW_MAX_MARKS 20     /* non-ASCII code points listed under the raw input */
#define SHOW_CARET_WINDOW 40  /* code points shown either side of a syntax error's column */

static void show_usage(FILE *out)
{
    fputs("usage: gauntlet show CASE-ID [PATH...] [--target SPEC] [--timeout T]\n"
          "\n"
          "Run one case and show it in full: raw input (invisible bytes marked), expectation, every\n"
          "gate's verdict and errors, attempt accounting and, for loop cases, the turn-by-turn transcript.\n"
          "  PATH           case files or directories (default: the bundled corpus)\n"
          "  --target SPEC  implementation under test (default: reference)\n"
          "  --timeout T    per-case deadline of an adapter target (10, 10s, 500ms)\n"
          "exit: 0 passed or skipped, 1 failed or errored, 2 usage or no such case\n",
          out);
}

static int show_error(const char *fmt, const char *detail)
{
    fputs("gauntlet show: ", stderr);
    fprintf(stderr, fmt, detail);
    fputc('\n', stderr);
    return 2;
}

/* Multi-line text, each line escaped for the terminal and indented. */
static void print_lines(FILE *out, const char *text, const char *indent)
{
    const char *line = text;
    while (line != NULL && *line != '\0') {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char *copy = strndup(line, len);
        fputs(indent, out);
        for (char *tab = copy; tab != NULL && *tab != '\0'; tab++)
            if (*tab == '\t')
                *tab = ' '; /* cJSON indents with tabs */
        if (copy != NULL)
            gt_report_console_text(out, copy);
        fputc('\n', out);
        free(copy);
        line = end ? end + 1 : NULL;
    }
}

/* Pretty-print compact JSON (cJSON; only for display), minus `drop` members. */
static void print_json(FILE *out, const char *json, const char *const *drop, size_t drop_count)
{
    cJSON *value = cJSON_Parse(json);
    if (value == NULL) {
        print_lines(out, json, "    ");
        return;
    }
    for (size_t i = 0; i < drop_count; i++)
        cJSON_DeleteItemFromObjectCaseSensitive(value, drop[i]);
    char *text = cJSON_Print(value); /* indented with tabs */
    cJSON_Delete(value);
    if (text == NULL)
        return;
    if (strlen(text) > SHOW_MAX_JSON)
        strcpy(text + SHOW_MAX_JSON, "\n... (truncated)");
    print_lines(out, text, "    ");
    free(text);
}

static const char *verdict_text(gt_verdict verdict)
{
    return verdict == GT_VERDICT_ACCEPT ? "accept" : verdict == GT_VERDICT_REJECT ? "reject" : "(none)";
}

static void field(FILE *out, const char *label, const char *value)
{
    fprintf(out, "  %-12s ", label);
    gt_report_console_text(out, value ? value : "-");
    fputc('\n', out);
}

/* The input line `line` with a caret under code-point column `column`: a
 * window of SHOW_CARET_WINDOW code points either side, control characters
 * and the invisible ones printed as a middle dot so the caret lines up. */
static void print_caret(FILE *out, const unsigned char *raw, size_t raw_len, unsigned line, unsigned column)
{
    size_t at = 0;
    for (unsigned l = 1; l < line && at < raw_len; at++)
        if (raw[at] == '\n')
            l++;
    if (at > raw_len || (at == raw_len && line > 1))
        return;
    unsigned first = column > SHOW_CARET_WINDOW ? column - SHOW_CARET_WINDOW : 1;
    fputs("\nwhere it failed (line ", out);
    fprintf(out, "%u, column %u):\n    %s", line, column, first > 1 ? "..." : "");
    unsigned col = 1, caret = first > 1 ? 3 : 0;
    for (; at < raw_len && raw[at] != '\n' && col <= column + SHOW_CARET_WINDOW; col++) {
        uint32_t cp;
        size_t len = gt_report_utf8_decode(raw + at, raw_len - at, &cp);
        bool valid = len > 0;
        if (!valid)
            len = 1, cp = raw[at];
        if (col >= first) {
            if (!valid || cp < 0x20 || cp == 0x7F || gt_report_code_point_kind(cp) != NULL)
                fputs("\xc2\xb7", out); /* a middle dot */
            else
                fwrite(raw + at, 1, len, out);
            if (col < column)
                caret++;
        }
        at += len;
    }
    fputs("\n    ", out);
    for (unsigned i = 0; i < caret; i++)
        fputc(' ', out);
    fputs("^\n", out);
}

static void print_case(FILE *out, const gt_case *kase)
{
    fputs("case ", out);
    gt_report_console_text(out, kase->input.id);
    fputc('\n', out);
    char where[PATH_MAX + 32];
    snprintf(where, sizeof where, "%s:%u", kase->file ? kase->file : "?", kase->line);
    field(out, "file", where);
    fprintf(out, "  %-12s ", "gate");
    gt_report_console_text(out, kase->input.gate);
    fputs(" / ", out);
    gt_report_console_text(out, kase->category);
    fputc('\n', out);
    if (kase->tag_count > 0) {
        fprintf(out, "  %-12s ", "tags");
        for (size_t i = 0; i < kase->tag_count; i++) {
            fputs(i ? ", " : "", out);
            gt_report_console_text(out, kase->tags[i]);
        }
        fputc('\n', out);
    }
    if (kase->description)
        field(out, "description", kase->description);
    for (size_t i = 0; i < kase->source_count; i++)
        field(out, "source", kase->sources[i]);

    if (kase->input.raw != NULL) {
        fprintf(out, "\nraw input (%zu bytes; invisible bytes shown as \xe2\x9f\xa8...\xe2\x9f\xa9):\n    ",
                kase->input.raw_len);
        /* indent continuation lines: write through a buffer */
        char *text = NULL;
        size_t len = 0;
        FILE *buffer = open_memstream(&text, &len);
        if (buffer != NULL) {
            gt_report_visible(buffer, kase->input.raw, kase->input.raw_len, false);
            fclose(buffer);
            for (size_t i = 0; i < len; i++) {
                fputc(text[i], out);
                if (text[i] == '\n' && i + 1 < len)
                    fputs("    ", out);
            }
            free(text);
        }
        fputc('\n', out);
        gt_report_code_points(out, kase->input.raw, kase->input.raw_len, SHOW_MAX_MARKS);
    } else
        fputs("\nraw input: none (the layer's inputs are in the case fields below)\n", out);
    if (kase->input.schema_json != NULL) {
        fputs("\nschema (", out);
        gt_report_console_text(out, kase->input.schema_origin);
        fputs("):\n", out);
        print_json(out, kase->input.schema_json, NULL, 0);
    }
    static const char *const shown[] = {"id",     "gate",        "category",    "tags",        "description",
                                        "input",  "input_base64", "schema",     "schema_file", "formats", "source"};
    cJSON *rest = cJSON_Parse(kase->input.case_json ? kase->input.case_json : "{}");
    bool other = false;
    for (const cJSON *item = rest ? rest->child : NULL; item != NULL && !other; item = item->next) {
        bool known = false;
        for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++)
            known = known || strcmp(item->string, shown[i]) == 0;
        other = !known;
    }
    cJSON_Delete(rest);
    if (other) {
        fputs("\ncase fields:\n", out);
        print_json(out, kase->input.case_json, shown, sizeof shown / sizeof shown[0]);
    }
}

static void print_expectation(FILE *out, const gt_expect *expect)
{
    fprintf(out, "\nexpected     %s", verdict_text(expect->verdict));
    if (expect->gate) {
        fputc(' ', out);
        gt_report_console_text(out, expect->gate);
    }
    if (expect->reason) {
        fputc('/', out);
        gt_report_console_text(out, expect->reason);
    }
    if (expect->subtype) {
        fputs(", subtype ", out);
        gt_report_console_text(out, expect->subtype);
    }
    fputc('\n', out);
    if (expect->errors_given) {
        fprintf(out, "  errors (exact set, %zu):\n", expect->error_count);
        for (size_t i = 0; i < expect->error_count; i++) {
            fputs("    ", out);
            gt_report_console_text(out, expect->errors[i].keyword);
            fputs(" at \"", out);
            gt_report_console_text(out, expect->errors[i].path);
            fputs("\"\n", out);
        }
    }
}

static void print_observation(FILE *out, const gt_case_result *result, const char *target_name)
{
    const gt_observed *observed = &result->observed;
    fputs("\nobserved     ", out);
    if (result->outcome == GT_OUTCOME_ERROR || result->outcome == GT_OUTCOME_SKIP) {
        fputs(result->outcome == GT_OUTCOME_ERROR ? "(target error)" : "(skipped)", out);
    } else {
        fputs(verdict_text(observed->verdict), out);
        if (observed->gate) {
            fputc(' ', out);
            gt_report_console_text(out, observed->gate);
            fputc('/', out);
            gt_report_console_text(out, observed->reason ? observed->reason : "?");
        }
        if (observed->subtype) {
            fputs(", subtype ", out);
            gt_report_console_text(out, observed->subtype);
        }
    }
    fputs("  (", out);
    gt_report_console_text(out, target_name);
    fprintf(out, ", %.3f ms)\n", result->elapsed_ms);
    if (observed->message)
        field(out, "message", observed->message);

    /* a syntax rejection names line:column: point at it */
    unsigned line = 0, column = 0;
    const char *at = observed->message ? strstr(observed->message, "at ") : NULL;
    const gt_case_input *input = &result->kase->input;
    if (observed->gate != NULL && strcmp(observed->gate, "syntax") == 0 && at != NULL && input->raw != NULL &&
        sscanf(at, "at %u:%u", &line, &column) == 2 && line > 0 && column > 0)
        print_caret(out, input->raw, input->raw_len, line, column);

    fputs("\ngates\n", out);
    int rejecting = gt_gate_from_name(observed->gate);
    const gt_expect *expect = &result->kase->expect;
    for (int gate = 0; gate < GT_GATE_COUNT; gate++) {
        gt_gate_status status = observed->gates[gate];
        /* a rejection the case asks for is the gate doing its job, not a failure */
        bool expected = status == GT_GATE_FAILED && result->outcome == GT_OUTCOME_PASS &&
                        expect->verdict == GT_VERDICT_REJECT && gate == rejecting;
        fprintf(out, "  %-10s %s\n", gt_gate_name((gt_gate)gate),
                status == GT_GATE_PASSED ? "passed"
                : expected               ? "rejected, as expected"
                : status == GT_GATE_FAILED ? "FAILED"
                                           : "not run");
        bool errors_here = gate == rejecting || (rejecting < 0 && status == GT_GATE_FAILED);
        for (size_t i = 0; errors_here && i < observed->error_count; i++) {
            fputs("    ", out);
            gt_report_console_text(out, observed->errors[i].keyword);
            fputs(" at \"", out);
            gt_report_console_text(out, observed->errors[i].path);
            fputc('"', out);
            if (observed->errors[i].message) {
                fputs(": ", out);
                gt_report_console_text(out, observed->errors[i].message);
            }
            fputc('\n', out);
        }
    }
    if (rejecting < 0 && observed->error_count > 0) {
        fputs("  errors reported without a failing gate:\n", out);
        for (size_t i = 0; i < observed->error_count; i++) {
            fputs("    ", out);
            gt_report_console_text(out, observed->errors[i].keyword);
            fputs(" at \"", out);
            gt_report_console_text(out, observed->errors[i].path);
            fputs("\"\n", out);
        }
    }

    if (gt_report_has_accounting(result)) {
        fputs("\nattempt accounting   expected  observed\n", out);
        for (size_t f = 0; f < 6; f++) {
            int want = gt_report_accounting_figure(&result->kase->expect.accounting, f);
            int got = gt_report_accounting_figure(&observed->accounting, f);
            char a[16] = "-", b[16] = "-";
            if (want >= 0)
                snprintf(a, sizeof a, "%d", want);
            if (!observed->has_accounting)
                snprintf(b, sizeof b, "?");
            else if (got >= 0)
                snprintf(b, sizeof b, "%d", got);
            bool differs = want >= 0 && (!observed->has_accounting || want != got);
            fprintf(out, "  %-18s %8s  %8s%s\n", gt_report_accounting_names[f], a, b, differs ? "  <- differs" : "");
        }
    }
    if (result->kase->expect.output_json) {
        fputs("\nexpected output:\n", out);
        print_json(out, result->kase->expect.output_json, NULL, 0);
    }
    if (observed->output_json) {
        fputs("\nobserved output:\n", out);
        print_json(out, observed->output_json, NULL, 0);
    }
    if (observed->transcript) {
        fputs("\ntranscript:\n", out);
        print_lines(out, observed->transcript, "  ");
    }
}

/* Ids that contain `wanted`, as suggestions when no case has it exactly. */
/* Levenshtein distance of `a` and `b`, or `limit + 1` once it exceeds
 * `limit` (ids are short; two rows of at most SHOW_MAX_ID + 1 entries). */
static size_t edit_distance(const char *a, const char *b, size_t limit)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > SHOW_MAX_ID || lb > SHOW_MAX_ID)
        return limit + 1;
    size_t row[SHOW_MAX_ID + 1], next[SHOW_MAX_ID + 1];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        next[0] = i;
        size_t best = next[0];
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = row[j - 1] + (a[i - 1] != b[j - 1]);
            size_t del = row[j] + 1, ins = next[j - 1] + 1;
            next[j] = cost < del ? (cost < ins ? cost : ins) : (del < ins ? del : ins);
            if (next[j] < best)
                best = next[j];
        }
        if (best > limit)
            return limit + 1;
        memcpy(row, next, (lb + 1) * sizeof *row);
    }
    return row[lb];
}

/* Ids that contain `wanted`, or are a typo away from it (edit distance 2). */
static void suggest(const gt_corpus *corpus, const char *wanted)
{
    size_t shown = 0;
    for (size_t i = 0; i < gt_corpus_count(corpus) && shown < SHOW_MAX_SUGGESTIONS; i++) {
        const char *id = gt_corpus_case(corpus, i)->input.id;
        if (strstr(id, wanted) == NULL && edit_distance(id, wanted, 2) > 2)
            continue;
        fputs(shown++ ? "  " : "did you mean:\n  ", stderr);
        gt_report_console_text(stderr, id);
        fputc('\n', stderr);
    }
}

int gt_cmd_show(int argc, char **argv)
{
    const char *id = NULL, *target = "reference";
    const char **paths = calloc((size_t)argc + 1, sizeof *paths);
    size_t path_count = 0;
    if (paths == NULL)
        return show_error("out of memory%s", "");
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            show_usage(stdout);
            free(paths);
            return 0;
        } else if (strcmp(arg, "--target") == 0 || strcmp(arg, "--timeout") == 0) {
            if (i + 1 >= argc) {
                free(paths);
                return show_error("%s needs a value", arg);
            }
            const char *value = argv[++i];
            if (arg[3] == 'a') {
                target = value;
            } else {
                char *end = NULL;
                unsigned long number = strtoul(value, &end, 10);
                unsigned long scale = strcmp(end, "ms") == 0 ? 1 : (strcmp(end, "s") == 0 || *end == '\0') ? 1000 : 0;
                if (end == value || scale == 0 || number == 0 || number > 86400000ul / scale) {
                    free(paths);
                    return show_error("--timeout needs a positive duration (10, 10s or 500ms), got '%s'", value);
                }
                gt_adapter_set_timeout_ms((int)(number * scale));
            }
        } else if (strncmp(arg, "--target=", 9) == 0) {
            target = arg + 9;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            free(paths);
            return show_error("unknown option '%s' (gauntlet show --help lists the options)", arg);
        } else if (id == NULL) {
            id = arg;
        } else {
            paths[path_count++] = arg;
        }
    }
    if (id == NULL) {
        free(paths);
        show_usage(stderr);
        return 2;
    }
    char bundled[PATH_MAX];
    if (path_count == 0) {
        if (!gt_cmd_default_corpus(bundled, sizeof bundled)) {
            free(paths);
            return show_error("no corpus given and none found (./corpus or next to the binary)%s", "");
        }
        paths[path_count++] = bundled;
    }
    gt_corpus *corpus = gt_corpus_new();
    if (corpus == NULL) {
        free(paths);
        return show_error("out of memory%s", "");
    }
    for (size_t i = 0; i < path_count; i++)
        if (gt_corpus_load(corpus, paths[i]) < 0) {
            int status = show_error("out of memory loading '%s'", paths[i]);
            gt_corpus_free(corpus);
            free(paths);
            return status;
        }
    free(paths);
    const gt_case *found = NULL;
    for (size_t i = 0; i < gt_corpus_count(corpus) && found == NULL; i++)
        if (strcmp(gt_corpus_case(corpus, i)->input.id, id) == 0)
            found = gt_corpus_case(corpus, i);
    if (found == NULL) {
        fputs("gauntlet show: no case '", stderr);
        gt_report_console_text(stderr, id);
        fputs("' in the corpus", stderr);
        size_t problems = gt_corpus_problem_count(corpus);
        if (problems > 0)
            fprintf(stderr, " (%zu load problem%s: 'gauntlet run' lists them)", problems, problems == 1 ? "" : "s");
        fputc('\n', stderr);
        suggest(corpus, id);
        gt_corpus_free(corpus);
        return 2;
    }
    /* Keep only that case: ids are [a-z0-9._-]+ (docs/corpus-format.md), so
     * as a glob the id matches itself alone. */
    gt_corpus_filter(corpus, NULL, NULL, id);

    print_case(stdout, gt_corpus_case(corpus, 0));
    print_expectation(stdout, &gt_corpus_case(corpus, 0)->expect);
    fflush(stdout);
    char err[512] = "";
    gt_run *run = gt_run_cases(corpus, target, 1, NULL, NULL, err, sizeof err);
    if (run == NULL) {
        fputs("gauntlet show: ", stderr);
        gt_report_console_text(stderr, err);
        fputc('\n', stderr);
        gt_corpus_free(corpus);
        return 2;
    }
    const gt_case_result *result = &run->results[0];
    print_observation(stdout, result, run->target_name ? run->target_name : target);
    static const char *const labels[] = {"PASS", "FAIL", "ERROR", "SKIP"};
    printf("\n%s ", labels[result->outcome]);
    gt_report_console_text(stdout, result->kase->input.id);
    if (result->note) {
        fputs(": ", stdout);
        gt_report_console_text(stdout, result->note);
    }
    fputc('\n', stdout);
    int status = result->outcome == GT_OUTCOME_FAIL || result->outcome == GT_OUTCOME_ERROR ? 1 : 0;
    gt_run_free(run);
    gt_corpus_free(corpus);
    return status;
}
