/* json.c — the machine report, format "gauntlet-report/1".
 *
 * docs/report-json.md documents every field; a field is never renamed or
 * retyped within a format version (new fields may appear). Absent values are
 * null, never omitted, so consumers can index without checks. Every case
 * object sits on one line, so two reports diff case by case. */
#include <string.h>

#include "gauntlet/runner/report.h"
#include "report_util.h"

static void write_counts(FILE *out, const gt_run_counts *counts)
{
    fprintf(out,
            "{\"cases\": %zu, \"pass\": %zu, \"fail\": %zu, \"error\": %zu, \"skip\": %zu, \"not_applicable\": %zu, "
            "\"other_reason\": %zu, \"unsafe\": %zu, \"refused_valid\": %zu, \"figures\": %zu}",
            counts->cases, counts->pass, counts->fail, counts->error, counts->skip, counts->not_applicable,
            counts->other_reason, counts->unsafe, counts->refused_valid, counts->figures);
}

/* A profile mask as an array of names. */
static void write_profiles(FILE *out, unsigned mask)
{
    fputc('[', out);
    bool first = true;
    for (int p = 0; p < GT_PROFILE_COUNT; p++) {
        if (!(mask & (1u << p)))
            continue;
        fprintf(out, "%s\"%s\"", first ? "" : ", ", gt_profile_name((gt_profile)p));
        first = false;
    }
    fputc(']', out);
}

static void write_coverage_row(FILE *out, const gt_report_coverage *coverage)
{
    fprintf(out, "{\"held\": %zu, \"ran\": %zu, \"passed\": %zu, \"skipped\": %zu, \"errors\": %zu, \"share\": ",
            coverage->held, coverage->ran, coverage->passed, coverage->skipped, coverage->errors);
    if (coverage->held == 0)
        fputs("null}", out);
    else
        fprintf(out, "%.6f}", gt_report_coverage_share(coverage));
}

/* Coverage of each claimed profile and of the claim as a whole (`claimed`). */
static void write_coverage(FILE *out, const gt_run *run, const gt_report_info *info)
{
    fputc('{', out);
    gt_report_profile_coverage rows[GT_PROFILE_COUNT];
    size_t count = gt_report_claimed_coverage(run, info, rows);
    for (size_t i = 0; i < count; i++) {
        fprintf(out, "\"%s\": ", gt_profile_name(rows[i].profile));
        write_coverage_row(out, &rows[i].coverage);
        fputs(", ", out);
    }
    gt_report_coverage whole;
    gt_report_coverage_of(run, info, gt_run_claims(run), &whole);
    fputs("\"claimed\": ", out);
    write_coverage_row(out, &whole);
    fputc('}', out);
}

static const char *verdict_name(gt_verdict verdict)
{
    return verdict == GT_VERDICT_ACCEPT ? "accept" : verdict == GT_VERDICT_REJECT ? "reject" : NULL;
}

static const char *gate_status_name(gt_gate_status status)
{
    return status == GT_GATE_PASSED ? "passed" : status == GT_GATE_FAILED ? "failed" : "not_run";
}

/* The six accounting figures as an object (-1 = null), or null. */
static void write_accounting(FILE *out, const gt_accounting *accounting, bool present)
{
    if (!present) {
        fputs("null", out);
        return;
    }
    fputc('{', out);
    for (size_t i = 0; i < 6; i++) {
        int figure = gt_report_accounting_figure(accounting, i);
        fprintf(out, "%s\"%s\": ", i ? ", " : "", gt_report_accounting_names[i]);
        if (figure < 0)
            fputs("null", out);
        else
            fprintf(out, "%d", figure);
    }
    fputc('}', out);
}

static bool any_figure(const gt_accounting *accounting)
{
    for (size_t i = 0; i < 6; i++)
        if (gt_report_accounting_figure(accounting, i) >= 0)
            return true;
    return false;
}

static void write_expected(FILE *out, const gt_expect *expect, bool detail)
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
    fputs(", \"subtype\": ", out);
    gt_report_json_string(out, expect->subtype);
    fputs(", \"accounting\": ", out);
    write_accounting(out, &expect->accounting, expect->accounting_given || any_figure(&expect->accounting));
    fputs(", \"output\": ", out);
    gt_report_json_string(out, detail ? expect->output_json : NULL);
    fputs(", \"structured_output\": ", out);
    gt_report_json_string(out, detail ? expect->structured_output_json : NULL);
    fputc('}', out);
}

static void write_observed(FILE *out, const gt_observed *observed, bool detail)
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
    fputs("}, \"subtype\": ", out);
    gt_report_json_string(out, observed->subtype);
    fputs(", \"accounting\": ", out);
    write_accounting(out, &observed->accounting, observed->has_accounting);
    fputs(", \"output\": ", out);
    gt_report_json_string(out, detail ? observed->output_json : NULL);
    fputs(", \"transcript\": ", out);
    gt_report_json_string(out, detail ? observed->transcript : NULL);
    fprintf(out, ", \"black_box\": %s, \"violation\": ", observed->black_box ? "true" : "false");
    gt_report_json_string(out, observed->violation);
    fprintf(out, ", \"beyond_script_calls\": %d", observed->beyond_script_calls);
    fputc('}', out);
}

static void write_strings(FILE *out, const char *const *strings, size_t count)
{
    fputc('[', out);
    for (size_t i = 0; i < count; i++) {
        if (i)
            fputs(", ", out);
        gt_report_json_string(out, strings[i]);
    }
    fputc(']', out);
}

static void write_case(FILE *out, const gt_case_result *result, size_t index)
{
    const gt_case *kase = result->kase;
    bool detail = result->outcome != GT_OUTCOME_PASS; /* inputs and outputs only where someone will look */
    fprintf(out, "{\"index\": %zu, \"id\": ", index);
    gt_report_json_string(out, kase->input.id);
    fputs(", \"gate\": ", out);
    gt_report_json_string(out, kase->input.gate);
    fputs(", \"category\": ", out);
    gt_report_json_string(out, kase->category);
    fputs(", \"tags\": ", out);
    write_strings(out, kase->tags, kase->tag_count);
    fprintf(out, ", \"tier\": \"%s\", \"rules\": ", gt_tier_name(kase->tier));
    write_strings(out, kase->rules, kase->rule_count);
    fputs(", \"source\": ", out);
    write_strings(out, kase->sources, kase->source_count);
    fputs(", \"description\": ", out);
    gt_report_json_string(out, kase->description);
    fputs(", \"file\": ", out);
    gt_report_json_string(out, kase->file);
    fprintf(out, ", \"line\": %u, \"profiles\": ", kase->line);
    write_profiles(out, kase->profiles);
    fprintf(out, ", \"outcome\": \"%s\", \"class\": \"%s\", \"expected\": ", gt_outcome_name(result->outcome),
            gt_class_name(gt_case_result_class(result)));
    write_expected(out, &kase->expect, detail);
    fputs(", \"observed\": ", out);
    write_observed(out, &result->observed, detail);
    fputs(", \"input_base64\": ", out);
    if (detail && kase->input.raw != NULL)
        gt_report_base64_json(out, kase->input.raw, kase->input.raw_len);
    else
        fputs("null", out);
    fputs(", \"note\": ", out);
    gt_report_json_string(out, result->note);
    fprintf(out, ", \"elapsed_ms\": %.3f}", result->elapsed_ms);
}

static void write_size_or_null(FILE *out, size_t value, bool known)
{
    if (known)
        fprintf(out, "%zu", value);
    else
        fputs("null", out);
}

static void write_corpus(FILE *out, const gt_report_info *info)
{
    fputs("{\"format\": \"" GT_CORPUS_FORMAT "\", \"version\": ", out);
    gt_report_json_string(out, info ? info->corpus_version : NULL);
    fputs(", \"sha256\": ", out);
    gt_report_json_string(out, info ? info->corpus_sha256 : NULL);
    fputs(", \"cases\": ", out);
    write_size_or_null(out, info ? info->corpus_cases : 0, info && info->corpus_sha256);
    fputs(", \"selected\": ", out);
    write_size_or_null(out, info ? info->selected_cases : 0, info && info->corpus_sha256);
    fputs(", \"required_by_profiles\": ", out);
    if (info == NULL || !info->profiles_known)
        fputs("null", out);
    else {
        fputc('{', out);
        bool first = true;
        for (unsigned m = 1; m < (1u << GT_PROFILE_COUNT); m++) {
            if (info->required_by_profiles[m] == 0)
                continue;
            char names[160];
            fprintf(out, "%s\"%s\": %zu", first ? "" : ", ", gt_profiles_format(m, ",", names, sizeof names),
                    info->required_by_profiles[m]);
            first = false;
        }
        fputc('}', out);
    }
    fputc('}', out);
}

/* The skips grouped by their note (what the target could not express). */
static void write_skips_by_reason(FILE *out, const gt_run *run)
{
    gt_report_skip_reason groups[GT_REPORT_MAX_SKIP_GROUPS];
    size_t count = gt_report_skip_groups(run, groups, GT_REPORT_MAX_SKIP_GROUPS);
    fputc('[', out);
    for (size_t i = 0; i < count && i < GT_REPORT_MAX_SKIP_GROUPS; i++) {
        fputs(i ? ", {\"reason\": " : "{\"reason\": ", out);
        gt_report_json_string(out, groups[i].note);
        fprintf(out, ", \"cases\": %zu}", groups[i].cases);
    }
    fputc(']', out);
}

static void write_rate(FILE *out, double rate)
{
    if (rate < 0)
        fputs("null", out);
    else
        fprintf(out, "%.6f", rate);
}

/* The certification summary: who was certified against what, how well, and
 * how to reproduce it. */
static void write_certification(FILE *out, const gt_run *run, const gt_report_info *info,
                                const gt_run_counts counts[GT_GATE_COUNT + 1],
                                const gt_run_counts tiers[GT_TIER_COUNT])
{
    char name[256], version[128];
    gt_report_split_name(run->target_name, name, sizeof name, version, sizeof version);
    fputs("{\n    \"implementation\": {\"name\": ", out);
    gt_report_json_string(out, name[0] ? name : run->target);
    fputs(", \"version\": ", out);
    gt_report_json_string(out, version[0] ? version : NULL);
    fputs("},\n    \"corpus\": ", out);
    write_corpus(out, info);
    fputs(",\n    \"pass_rates\": {", out);
    for (int gate = 0; gate <= GT_GATE_COUNT; gate++) {
        fprintf(out, "%s\"%s\": ", gate ? ", " : "", gate == GT_GATE_COUNT ? "total" : gt_gate_name((gt_gate)gate));
        write_rate(out, gt_report_pass_rate(&counts[gate]));
    }
    fputs("},\n    \"tier_pass_rates\": {", out);
    for (int tier = 0; tier < GT_TIER_COUNT; tier++) {
        fprintf(out, "%s\"%s\": ", tier ? ", " : "", gt_tier_name((gt_tier)tier));
        write_rate(out, gt_report_pass_rate(&tiers[tier]));
    }
    gt_report_accounting_totals totals;
    gt_report_accounting_sum(run, &totals);
    fprintf(out, "},\n    \"accounting\": {\"cases\": %zu, \"matched\": %zu, \"mismatched\": %zu, \"missing\": %zu",
            totals.cases, totals.matched, totals.mismatched, totals.missing);
    for (int side = 0; side < 2; side++) {
        fprintf(out, ", \"%s\": {", side ? "observed" : "expected");
        for (size_t i = 0; i < 6; i++)
            fprintf(out, "%s\"%s\": %ld", i ? ", " : "", gt_report_accounting_names[i],
                    side ? totals.observed[i] : totals.expected[i]);
        fputc('}', out);
    }
    fputs("},\n    \"profiles_claimed\": ", out);
    write_profiles(out, gt_run_claims(run));
    fputs(", \"profiles_not_claimed\": ", out);
    write_profiles(out, GT_PROFILES_ALL & ~gt_run_claims(run));
    fputs(",\n    \"coverage\": ", out);
    write_coverage(out, run, info);
    char verdict[256];
    bool certified = gt_report_certified(run, info, verdict, sizeof verdict);
    fprintf(out, ",\n    \"certified\": %s, \"verdict\": ", certified ? "true" : "false");
    gt_report_json_string(out, verdict);
    fputs(",\n    \"skips_by_reason\": ", out);
    write_skips_by_reason(out, run);
    fputs(",\n    \"command\": ", out);
    gt_report_json_string(out, info ? info->command : NULL);
    fputs("\n  }", out);
}

static void write_baseline(FILE *out, const gt_baseline_diff *diff)
{
    if (diff == NULL) {
        fputs("null", out);
        return;
    }
    fputs("{\"file\": ", out);
    gt_report_json_string(out, diff->file);
    fprintf(out, ", \"baseline_cases\": %zu, \"not_run\": %zu", diff->baseline_cases, diff->not_run);
    for (int kind = 0; kind < GT_BASELINE_KIND_COUNT; kind++) {
        fprintf(out, ", \"%s\": [", gt_baseline_kind_name((gt_baseline_kind)kind));
        bool first = true;
        for (size_t i = 0; i < diff->entry_count; i++) {
            if (diff->entries[i].kind != (gt_baseline_kind)kind)
                continue;
            fputs(first ? "" : ", ", out);
            first = false;
            gt_report_json_string(out, diff->entries[i].id);
        }
        fputc(']', out);
    }
    fputc('}', out);
}

int gt_report_json(FILE *out, const gt_run *run, const gt_report_info *info)
{
    gt_run_counts counts[GT_GATE_COUNT + 1], tiers[GT_TIER_COUNT];
    gt_run_count(run, counts);
    gt_run_count_tiers(run, tiers);

    fprintf(out, "{\n  \"format\": \"%s\",\n  \"gauntlet_version\": ", GT_REPORT_JSON_FORMAT);
    gt_report_json_string(out, GAUNTLET_VERSION);
    fputs(",\n  \"started_at\": ", out);
    gt_report_json_string(out, run->started_at);
    fprintf(out, ",\n  \"elapsed_ms\": %.3f,\n  \"target\": ", run->elapsed_ms);
    gt_report_json_string(out, run->target);
    fputs(",\n  \"target_name\": ", out);
    gt_report_json_string(out, run->target_name);
    fprintf(out, ",\n  \"jobs\": %u,\n  \"command\": ", run->jobs);
    gt_report_json_string(out, info ? info->command : NULL);
    fputs(",\n  \"corpus\": ", out);
    write_corpus(out, info);
    fputs(",\n  \"shard\": ", out);
    if (info && info->shard_count > 0)
        fprintf(out, "{\"index\": %u, \"count\": %u}", info->shard_index, info->shard_count);
    else
        fputs("null", out);
    fputs(",\n  \"profiles\": {\"claimed\": ", out);
    write_profiles(out, gt_run_claims(run));
    fputs(", \"not_claimed\": ", out);
    write_profiles(out, GT_PROFILES_ALL & ~gt_run_claims(run));
    fputs("},\n  \"totals\": ", out);
    write_counts(out, &counts[GT_GATE_COUNT]);
    fputs(",\n  \"gates\": {", out);
    for (int gate = 0; gate < GT_GATE_COUNT; gate++) {
        fprintf(out, "%s\n    \"%s\": ", gate ? "," : "", gt_gate_name((gt_gate)gate));
        write_counts(out, &counts[gate]);
    }
    fputs("\n  },\n  \"tiers\": {", out);
    for (int tier = 0; tier < GT_TIER_COUNT; tier++) {
        fprintf(out, "%s\n    \"%s\": ", tier ? "," : "", gt_tier_name((gt_tier)tier));
        write_counts(out, &tiers[tier]);
    }
    fputs("\n  },\n  \"certification\": ", out);
    write_certification(out, run, info, counts, tiers);
    fputs(",\n  \"baseline\": ", out);
    write_baseline(out, info ? info->baseline : NULL);
    fputs(",\n  \"problems\": [", out);
    size_t problems = gt_report_problem_count(run, info);
    for (size_t i = 0; i < problems; i++) {
        const gt_load_problem *problem = gt_report_problem(run, info, i);
        fputs(i ? ",\n    {\"file\": " : "\n    {\"file\": ", out);
        gt_report_json_string(out, problem->file);
        fprintf(out, ", \"line\": %u, \"field\": ", problem->line);
        gt_report_json_string(out, problem->field);
        fputs(", \"message\": ", out);
        gt_report_json_string(out, problem->message);
        fputc('}', out);
    }
    fputs(problems ? "\n  ],\n  \"cases\": [" : "],\n  \"cases\": [", out);
    size_t written = 0, not_applicable = 0;
    for (size_t i = 0; i < run->count; i++) {
        if (run->results[i].outcome == GT_OUTCOME_NOT_APPLICABLE) {
            not_applicable++;
            continue;
        }
        fputs(written++ ? ",\n    " : "\n    ", out);
        write_case(out, &run->results[i], gt_report_case_index(info, i));
    }
    fputs(written ? "\n  ],\n  \"not_applicable\": [" : "],\n  \"not_applicable\": [", out);
    written = 0;
    for (size_t i = 0; i < run->count; i++) {
        const gt_case_result *result = &run->results[i];
        if (result->outcome != GT_OUTCOME_NOT_APPLICABLE)
            continue;
        fprintf(out, "%s{\"index\": %zu, \"id\": ", written++ ? ",\n    " : "\n    ", gt_report_case_index(info, i));
        gt_report_json_string(out, result->kase->input.id);
        fputs(", \"gate\": ", out);
        gt_report_json_string(out, result->kase->input.gate);
        fputs(", \"category\": ", out);
        gt_report_json_string(out, result->kase->category);
        fprintf(out, ", \"tier\": \"%s\", \"profiles\": ", gt_tier_name(result->kase->tier));
        write_profiles(out, result->kase->profiles);
        fputs(", \"file\": ", out);
        gt_report_json_string(out, result->kase->file);
        fprintf(out, ", \"line\": %u}", result->kase->line);
    }
    fputs(not_applicable ? "\n  ]\n}\n" : "]\n}\n", out);
    fflush(out);
    return ferror(out) ? -1 : 0;
}
