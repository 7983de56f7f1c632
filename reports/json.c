/* json.c — the machine report, format "gauntlet-report/1".
 *
 * docs/report-json.md documents every field; a field is never renamed or
 * retyped within a format version (new fields may appear). Absent values are
 * null, never omitted, so consumers can index without checks. Every case
 * object sits on one line, so two reports diff case by case. */
#include "gauntlet/report.h"
#include "report_util.h"

static void write_counts(FILE *out, const gt_run_counts *counts)
{
    fprintf(out, "{\"cases\": %zu, \"pass\": %zu, \"fail\": %zu, \"error\": %zu, \"skip\": %zu}", counts->cases,
            counts->pass, counts->fail, counts->error, counts->skip);
}

static const char *verdict_name(gt_verdict verdict)
{
    return verdict == GT_VERDICT_ACCEPT ? "accept" : verdict == GT_VERDICT_REJECT ? "reject" : NULL;
}

static const char *gate_status_name(gt_gate_status status)
{
    return status == GT_GATE_PASSED ? "passed" : status == GT_GATE_FAILED ? "failed" : "not_run";
}

static void write_expected(FILE *out, const gt_expect *expect)
{
    fputs("{\"verdict\": ", out);
    gt_report_json_string(out, verdict_name(expect->verdict));
    fputs(", \"gate\": ", out);
    gt_report_json_string(out, expect->gate);
    fputs(", \"reason\": ", out);
    gt_report_json_string(out, expect->reason);
    fputs(", \"errors\": ", out);
    if (!expect->errors_given)
        fputs("null", out);
    else {
        fputc('[', out);
        for (size_t i = 0; i < expect->error_count; i++) {
            fputs(i ? ", {\"path\": " : "{\"path\": ", out);
            gt_report_json_string(out, expect->errors[i].path);
            fputs(", \"keyword\": ", out);
            gt_report_json_string(out, expect->errors[i].keyword);
            fputc('}', out);
        }
        fputc(']', out);
    }
    fputc('}', out);
}

static void write_observed(FILE *out, const gt_observed *observed)
{
    fputs("{\"verdict\": ", out);
    gt_report_json_string(out, verdict_name(observed->verdict));
    fputs(", \"gate\": ", out);
    gt_report_json_string(out, observed->gate);
    fputs(", \"reason\": ", out);
    gt_report_json_string(out, observed->reason);
    fputs(", \"message\": ", out);
    gt_report_json_string(out, observed->message);
    fputs(", \"errors\": [", out);
    for (size_t i = 0; i < observed->error_count; i++) {
        fputs(i ? ", {\"path\": " : "{\"path\": ", out);
        gt_report_json_string(out, observed->errors[i].path);
        fputs(", \"keyword\": ", out);
        gt_report_json_string(out, observed->errors[i].keyword);
        fputs(", \"message\": ", out);
        gt_report_json_string(out, observed->errors[i].message);
        fputc('}', out);
    }
    fputs("], \"gates\": {", out);
    for (int gate = 0; gate < GT_GATE_COUNT; gate++) {
        fprintf(out, "%s\"%s\": \"%s\"", gate ? ", " : "", gt_gate_name((gt_gate)gate),
                gate_status_name(observed->gates[gate]));
    }
    fputs("}}", out);
}

static void write_case(FILE *out, const gt_case_result *result)
{
    const gt_case *kase = result->kase;
    fputs("{\"id\": ", out);
    gt_report_json_string(out, kase->input.id);
    fputs(", \"gate\": ", out);
    gt_report_json_string(out, kase->input.gate);
    fputs(", \"category\": ", out);
    gt_report_json_string(out, kase->category);
    fputs(", \"tags\": [", out);
    for (size_t i = 0; i < kase->tag_count; i++) {
        if (i)
            fputs(", ", out);
        gt_report_json_string(out, kase->tags[i]);
    }
    fputs("], \"description\": ", out);
    gt_report_json_string(out, kase->description);
    fputs(", \"file\": ", out);
    gt_report_json_string(out, kase->file);
    fprintf(out, ", \"line\": %u, \"outcome\": \"%s\", \"expected\": ", kase->line, gt_outcome_name(result->outcome));
    write_expected(out, &kase->expect);
    fputs(", \"observed\": ", out);
    write_observed(out, &result->observed);
    fputs(", \"note\": ", out);
    gt_report_json_string(out, result->note);
    fprintf(out, ", \"elapsed_ms\": %.3f}", result->elapsed_ms);
}

int gt_report_json(FILE *out, const gt_run *run)
{
    gt_run_counts counts[GT_GATE_COUNT + 1];
    gt_run_count(run, counts);

    fprintf(out, "{\n  \"format\": \"%s\",\n  \"gauntlet_version\": ", GT_REPORT_JSON_FORMAT);
    gt_report_json_string(out, GAUNTLET_VERSION);
    fputs(",\n  \"started_at\": ", out);
    gt_report_json_string(out, run->started_at);
    fprintf(out, ",\n  \"elapsed_ms\": %.3f,\n  \"target\": ", run->elapsed_ms);
    gt_report_json_string(out, run->target);
    fputs(",\n  \"target_name\": ", out);
    gt_report_json_string(out, run->target_name);
    fprintf(out, ",\n  \"jobs\": %u,\n  \"totals\": ", run->jobs);
    write_counts(out, &counts[GT_GATE_COUNT]);
    fputs(",\n  \"gates\": {", out);
    for (int gate = 0; gate < GT_GATE_COUNT; gate++) {
        fprintf(out, "%s\n    \"%s\": ", gate ? "," : "", gt_gate_name((gt_gate)gate));
        write_counts(out, &counts[gate]);
    }
    fputs("\n  },\n  \"problems\": [", out);
    size_t problems = run->corpus ? gt_corpus_problem_count(run->corpus) : 0;
    for (size_t i = 0; i < problems; i++) {
        const gt_load_problem *problem = gt_corpus_problem(run->corpus, i);
        fputs(i ? ",\n    {\"file\": " : "\n    {\"file\": ", out);
        gt_report_json_string(out, problem->file);
        fprintf(out, ", \"line\": %u, \"field\": ", problem->line);
        gt_report_json_string(out, problem->field);
        fputs(", \"message\": ", out);
        gt_report_json_string(out, problem->message);
        fputc('}', out);
    }
    fputs(problems ? "\n  ],\n  \"cases\": [" : "],\n  \"cases\": [", out);
    for (size_t i = 0; i < run->count; i++) {
        fputs(i ? ",\n    " : "\n    ", out);
        write_case(out, &run->results[i]);
    }
    fputs(run->count ? "\n  ]\n}\n" : "]\n}\n", out);
    fflush(out);
    return ferror(out) ? -1 : 0;
}
