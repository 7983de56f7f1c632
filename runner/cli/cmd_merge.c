/* cmd_merge.c — `gauntlet merge`: join the JSON reports of `gauntlet run
 * --shard K/N` into the reports one unsharded run would have written.
 *
 * Contract:
 *   gauntlet merge SHARD.json... [--report FORMAT:FILE]... [-o FILE]
 *                  [--baseline FILE] [--certify] [--quiet]
 *   stdout: the console report of the merged run (the per-gate table, the
 *           accounting table, FAIL/ERROR/SKIP lines) ending with the line
 *           `N passed, N failed, N skipped`; the human output moves to
 *           stderr when a report goes to standard output;
 *   exit:   0 every case passed, 1 a case failed or errored (with --baseline:
 *           a regression), 2 usage, a report that cannot be read, shards
 *           that do not belong together, or load problems in the run.
 * Without --report or -o the merged JSON report goes to standard output. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_io.h"
#include "commands.h"
#include "gauntlet/runner/report.h"
#include "reports/report_util.h"

#define MERGE_MAX_REPORTS 16

typedef gt_report_spec merge_output;

static void merge_usage(FILE *out)
{
    fputs("usage: gauntlet merge SHARD.json... [--report FORMAT:FILE]... [-o FILE] [--baseline FILE]\n"
          "                      [--certify] [--quiet]\n"
          "\n"
          "Join the JSON reports of 'gauntlet run --shard K/N' (every shard, any order) into one run,\n"
          "exactly as an unsharded run would have reported it.\n"
          "  --report FORMAT:FILE write the merged run: " GT_REPORT_FORMATS "; FILE '-' is standard\n"
          "                       output; repeatable or comma-separated\n"
          "  -o FILE              same as --report json:FILE\n"
          "  --baseline FILE      compare with an earlier JSON report (exit 1 only on a regression)\n"
          "  --certify            print the certification summary\n"
          "  -q, --quiet          print only the totals line\n"
          "Without --report or -o, the merged JSON report goes to standard output.\n"
          "exit: 0 all passed, 1 a case failed or errored (with --baseline: a regression), 2 usage,\n"
          "      unreadable or mismatched reports, or load problems\n",
          out);
}

static int merge_error(const char *fmt, const char *detail)
{
    fputs("gauntlet merge: ", stderr);
    fprintf(stderr, fmt, detail);
    fputs("\n(gauntlet merge --help lists the options)\n", stderr);
    return 2;
}

static int add_outputs(char *value, merge_output *outputs, size_t *count)
{
    char err[256];
    if (gt_report_specs_parse(value, outputs, count, MERGE_MAX_REPORTS, err, sizeof err) != 0)
        return merge_error("%s", err);
    return 0;
}


static void print_problems(const gt_run *run, const gt_report_info *info)
{
    for (size_t i = 0; i < gt_report_problem_count(run, info); i++) {
        gt_print_load_problem(gt_report_problem(run, info, i));
    }
}

typedef struct merge_state {
    const char **inputs;
    size_t input_count;
    merge_output outputs[MERGE_MAX_REPORTS];
    size_t output_count;
    char *values[MERGE_MAX_REPORTS]; /* strdup'd --report values */
    size_t value_count;
    const char *baseline;
    bool certify, quiet;
    gt_report_doc **shards;
    gt_report_doc *merged, *baseline_doc;
    gt_baseline_diff *diff;
} merge_state;

static void merge_free(merge_state *state)
{
    for (size_t i = 0; i < state->value_count; i++)
        free(state->values[i]);
    gt_baseline_diff_free(state->diff);
    gt_report_doc_free(state->baseline_doc);
    gt_report_doc_free(state->merged); /* before the shards it borrows from */
    for (size_t i = 0; state->shards != NULL && i < state->input_count; i++)
        gt_report_doc_free(state->shards[i]);
    free(state->shards);
    free(state->inputs);
}

static int parse_merge_args(int argc, char **argv, merge_state *state, bool *help)
{
    state->inputs = calloc((size_t)argc, sizeof *state->inputs);
    if (state->inputs == NULL)
        return merge_error("out of memory%s", "");
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        bool has_value = i + 1 < argc;
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            *help = true;
            return 0;
        } else if (strcmp(arg, "--quiet") == 0 || strcmp(arg, "-q") == 0) {
            state->quiet = true;
        } else if (strcmp(arg, "--certify") == 0) {
            state->certify = true;
        } else if (strcmp(arg, "--report") == 0 || strncmp(arg, "--report=", 9) == 0 || strcmp(arg, "-o") == 0) {
            bool inline_value = strncmp(arg, "--report=", 9) == 0;
            if (!inline_value && !has_value)
                return merge_error("%s needs a value", arg);
            const char *value = inline_value ? arg + 9 : argv[++i];
            if (state->value_count == MERGE_MAX_REPORTS)
                return merge_error("too many --report options%s", "");
            char *copy = malloc(strlen(value) + 6);
            if (copy == NULL)
                return merge_error("out of memory%s", "");
            if (strcmp(arg, "-o") == 0)
                snprintf(copy, strlen(value) + 6, "json:%s", value);
            else
                strcpy(copy, value);
            state->values[state->value_count++] = copy;
            if (strcmp(arg, "-o") == 0) {
                if (state->output_count == MERGE_MAX_REPORTS)
                    return merge_error("too many reports%s", "");
                state->outputs[state->output_count++] = (merge_output){"json", copy + 5, gt_report_json};
            } else {
                int status = add_outputs(copy, state->outputs, &state->output_count);
                if (status != 0)
                    return status;
            }
        } else if (strcmp(arg, "--baseline") == 0 || strncmp(arg, "--baseline=", 11) == 0) {
            bool inline_value = strncmp(arg, "--baseline=", 11) == 0;
            if (!inline_value && !has_value)
                return merge_error("%s needs a value", arg);
            state->baseline = inline_value ? arg + 11 : argv[++i];
        } else if (arg[0] == '-' && arg[1] != '\0') {
            return merge_error("unknown option '%s'", arg);
        } else {
            state->inputs[state->input_count++] = arg;
        }
    }
    if (state->input_count == 0)
        return merge_error("no shard reports given%s", "");
    return 0;
}

int gt_cmd_merge(int argc, char **argv)
{
    merge_state state = {0};
    bool help = false;
    int status = parse_merge_args(argc, argv, &state, &help);
    if (status != 0 || help) {
        if (help)
            merge_usage(stdout);
        merge_free(&state);
        return status;
    }
    char err[512];
    state.shards = calloc(state.input_count, sizeof *state.shards);
    if (state.shards == NULL) {
        merge_free(&state);
        return merge_error("out of memory%s", "");
    }
    for (size_t i = 0; i < state.input_count; i++) {
        state.shards[i] = gt_report_load(state.inputs[i], err, sizeof err);
        if (state.shards[i] == NULL) {
            merge_free(&state);
            return merge_error("%s", err);
        }
    }
    if (state.baseline != NULL && (state.baseline_doc = gt_report_load(state.baseline, err, sizeof err)) == NULL) {
        merge_free(&state);
        return merge_error("--baseline: %s", err);
    }
    state.merged = gt_report_merge(state.shards, state.input_count, err, sizeof err);
    if (state.merged == NULL) {
        merge_free(&state);
        return merge_error("%s", err);
    }
    const gt_run *run = gt_report_doc_run(state.merged);
    gt_report_info info = *gt_report_doc_info(state.merged);
    info.certify = state.certify;
    if (state.baseline_doc != NULL) {
        state.diff = gt_baseline_compare(gt_report_doc_run(state.baseline_doc), state.baseline, run);
        if (state.diff == NULL) {
            merge_free(&state);
            return merge_error("out of memory%s", "");
        }
        info.baseline = state.diff;
    }
    if (state.output_count == 0)
        state.outputs[state.output_count++] = (merge_output){"json", "-", gt_report_json};

    bool on_stdout = false;
    for (size_t i = 0; i < state.output_count; i++)
        on_stdout = on_stdout || strcmp(state.outputs[i].path, "-") == 0;
    FILE *human = on_stdout ? stderr : stdout;
    if (!state.quiet) {
        gt_report_console_summary(human, run, &info, false);
        gt_report_console_baseline(human, state.diff, false);
    } else if (state.diff != NULL && state.diff->counts[GT_BASELINE_REGRESSED] > 0)
        gt_report_console_regressions(human, state.diff);
    if (state.certify)
        gt_report_console_certification(human, run, &info);
    fflush(human);
    print_problems(run, &info);

    bool io_failed = false;
    gt_report_set_begin(); /* all new or all old */
    for (size_t i = 0; i < state.output_count; i++)
        if (gt_write_report_file("gauntlet merge", state.outputs[i].format, state.outputs[i].writer, state.outputs[i].path, run, &info) != 0)
            io_failed = true;
    if (gt_report_set_commit("gauntlet merge") != 0)
        io_failed = true;
    fflush(stdout);
    if (!state.quiet)
        fputc('\n', human);
    gt_report_console_totals(human, run);
    fflush(human);

    gt_run_counts counts[GT_GATE_COUNT + 1];
    gt_run_count(run, counts);
    if (io_failed || gt_report_problem_count(run, &info) > 0)
        status = 2;
    else if (state.diff != NULL)
        status = state.diff->counts[GT_BASELINE_REGRESSED] > 0 ? 1 : 0;
    else
        status = counts[GT_GATE_COUNT].fail + counts[GT_GATE_COUNT].error > 0 ? 1 : 0;
    merge_free(&state);
    return status;
}
