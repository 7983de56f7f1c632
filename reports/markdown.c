/* markdown.c — a Markdown report for a pull-request comment (GitHub
 * Flavored Markdown).
 *
 * Totals in the heading, then the claimed and not-claimed profiles with the
 * not-applicable cases counted by profile (never listed: they were never
 * run), the coverage of each claimed profile and the counts per verdict
 * class; the failed and errored cases first, grouped by class, unsafe first
 * (at most GT_REPORT_MD_MAX_CASES, the rest counted: a comment is limited to
 * 65,536 characters, a job summary to 1 MiB), the other-reason passes apart
 * inside <details>, the per-gate table with pass rates, the certification
 * summary (profiles, coverage, skips by reason), the baseline diff, the
 * attempt-accounting table, and the skips collapsed into one row per reason
 * inside <details>. Every string from the
 * corpus or a target is written as a code span (report.c), so no markup,
 * link, image or @mention in a case can take effect. */
#include <string.h>

#include "gauntlet/runner/report.h"
#include "report_util.h"

static void rate_cell(FILE *out, const gt_run_counts *row)
{
    double rate = gt_report_pass_rate(row);
    if (rate < 0)
        fputs("n/a", out);
    else
        fprintf(out, "%.2f%%", rate * 100.0);
}

static void counts_row(FILE *out, const char *name, const gt_run_counts *row)
{
    fprintf(out, "| %s | %zu | %zu | %zu | %zu | %zu | ", name, row->cases, row->pass, row->fail, row->error, row->skip);
    rate_cell(out, row);
    fputs(" |\n", out);
}

/* One row per tier under the gate table. */
static void tier_rows(FILE *out, const gt_run *run)
{
    gt_run_counts tiers[GT_TIER_COUNT];
    gt_run_count_tiers(run, tiers);
    fputs("\n| tier | cases | pass | fail | error | skip | pass rate |\n|---|--:|--:|--:|--:|--:|--:|\n", out);
    for (int tier = 0; tier < GT_TIER_COUNT; tier++)
        counts_row(out, gt_tier_name((gt_tier)tier), &tiers[tier]);
}

static void gate_table(FILE *out, const gt_run_counts counts[GT_GATE_COUNT + 1])
{
    fputs("| gate | cases | pass | fail | error | skip | pass rate |\n|---|--:|--:|--:|--:|--:|--:|\n", out);
    for (int gate = 0; gate <= GT_GATE_COUNT; gate++) {
        const gt_run_counts *row = &counts[gate];
        if (gate < GT_GATE_COUNT && row->cases == 0)
            continue;
        counts_row(out, gate == GT_GATE_COUNT ? "**total**" : gt_gate_name((gt_gate)gate), row);
    }
}

/* The certificate's profile rows: claimed, not claimed, coverage per claimed
 * profile, not-applicable cases by profile, skips by reason. */
static void certification_profiles(FILE *out, const gt_run *run, const gt_report_info *info)
{
    char names[160], text[256];
    gt_profiles_format(gt_run_claims(run), ", ", names, sizeof names);
    fprintf(out, "| profiles claimed | %s |\n", names[0] ? names : "none");
    gt_profiles_format(GT_PROFILES_ALL & ~gt_run_claims(run), ", ", names, sizeof names);
    fprintf(out, "| profiles not claimed | %s |\n| coverage | ", names[0] ? names : "none");
    gt_report_profile_coverage rows[GT_PROFILE_COUNT];
    size_t rows_count = gt_report_claimed_coverage(run, info, rows);
    for (size_t i = 0; i < rows_count; i++)
        fprintf(out, "%s%s", i ? "<br>" : "", rows[i].text);
    bool any = rows_count > 0;
    gt_run_counts counts[GT_GATE_COUNT + 1];
    gt_run_count(run, counts);
    size_t not_applicable = counts[GT_GATE_COUNT].not_applicable;
    fprintf(out, "%s |\n| not applicable | %zu case%s", any ? "" : "no required case in the claimed profiles",
            not_applicable, not_applicable == 1 ? "" : "s");
    if (not_applicable > 0)
        fprintf(out, " (%s)", gt_report_not_applicable_text(text, sizeof text, run));
    fputs(" |\n| skips by reason | ", out);
    size_t reasons = 0;
    for (size_t i = 0; i < run->count; i++) {
        size_t count = gt_report_skip_group(run, i);
        if (count == 0)
            continue;
        if (reasons++ == GT_REPORT_CERT_SKIP_REASONS) {
            fputs("<br>... more reasons (see the skipped cases)", out);
            break;
        }
        fprintf(out, "%s%zu ", reasons > 1 ? "<br>" : "", count);
        gt_report_md_code(out, run->results[i].note);
    }
    fputs(reasons ? " |\n" : "none |\n", out);
}

static void certification(FILE *out, const gt_run *run, const gt_report_info *info)
{
    char name[256], version[128];
    gt_report_split_name(run->target_name, name, sizeof name, version, sizeof version);
    fputs("\n### Certification\n\n| | |\n|---|---|\n| implementation | ", out);
    gt_report_md_code(out, name[0] ? name : run->target);
    fputs(" version ", out);
    if (version[0])
        gt_report_md_code(out, version);
    else
        fputs("not reported", out);
    fputs(" |\n| target | ", out);
    gt_report_md_code(out, run->target);
    fputs(" |\n| corpus | " GT_CORPUS_FORMAT, out);
    if (info && info->corpus_version) {
        fputs(" version ", out);
        gt_report_md_code(out, info->corpus_version);
    }
    if (info && info->corpus_sha256) {
        fputs(", sha256 ", out);
        gt_report_md_code(out, info->corpus_sha256);
        fprintf(out, " (%zu cases, %zu selected)", info->corpus_cases, info->selected_cases);
    }
    char required[64], optional[64];
    gt_report_tier_rates(run, required, optional);
    char verdict[256];
    gt_report_certified(run, info, verdict, sizeof verdict);
    fputs(" |\n| verdict | **", out);
    fputs(verdict, out); /* digits, letters, commas and parentheses only */
    fprintf(out, "** |\n| required tier | **%s** (%s) |\n| optional tier | %s", required, GT_REPORT_TIER_NOTE, optional);
    gt_report_accounting_totals totals;
    gt_report_accounting_sum(run, &totals);
    fprintf(out,
            " |\n| attempt accounting | %zu cases: %zu matched, %zu mismatched, %zu not reported; "
            "attempts %ld / %ld, model calls %ld / %ld (expected / observed)%s |\n",
            totals.cases, totals.matched, totals.mismatched, totals.missing, totals.expected[0], totals.observed[0],
            totals.expected[5], totals.observed[5],
            gt_report_figures_judged(run) ? ""
                                          : "; not judged (the target claims neither claude-code nor repair-loop)");
    certification_profiles(out, run, info);
    fprintf(out, "| run | %s, %u job%s, %.2f s |\n| reproduce | ", run->started_at, run->jobs,
            run->jobs == 1 ? "" : "s", run->elapsed_ms / 1000.0);
    gt_report_md_code(out, info && info->command ? info->command : "(command not recorded)");
    fputs(" |\n", out);
}

static void baseline(FILE *out, const gt_baseline_diff *diff)
{
    if (diff == NULL)
        return;
    fputs("\n### Baseline\n\nCompared with ", out);
    gt_report_md_code(out, diff->file);
    fprintf(out, ": **%zu regressed**, %zu fixed, %zu new, %zu now skipped (%zu baseline cases, %zu not run).\n",
            diff->counts[GT_BASELINE_REGRESSED], diff->counts[GT_BASELINE_FIXED], diff->counts[GT_BASELINE_NEW],
            diff->counts[GT_BASELINE_NOW_SKIPPED], diff->baseline_cases, diff->not_run);
    size_t shown = 0;
    for (int kind = 0; kind < GT_BASELINE_KIND_COUNT; kind++)
        for (size_t i = 0; i < diff->entry_count; i++) {
            const gt_baseline_entry *entry = &diff->entries[i];
            if (entry->kind != (gt_baseline_kind)kind)
                continue;
            if (shown++ == GT_REPORT_MD_MAX_CASES) {
                fputs("- ...\n", out);
                return;
            }
            fprintf(out, "%s- %s ", shown == 1 ? "\n" : "", gt_baseline_kind_name(entry->kind));
            gt_report_md_code(out, entry->id);
            fprintf(out, " (%s → %s)\n", entry->before < 0 ? "absent" : gt_outcome_name((gt_outcome)entry->before),
                    gt_outcome_name(entry->after));
        }
}

static void accounting_table(FILE *out, const gt_run *run)
{
    size_t rows = 0;
    for (size_t i = 0; i < run->count; i++)
        rows += gt_report_has_accounting(&run->results[i]);
    if (rows == 0)
        return;
    fputs("\n### Attempt accounting\n\nexpected / observed; `-` not given, `?` not reported.\n\n"
          "| | case | attempts | limit | retracted | enforce | api | calls |\n"
          "|---|---|--:|--:|--:|--:|--:|--:|\n",
          out);
    size_t shown = 0;
    for (size_t i = 0; i < run->count; i++) {
        const gt_case_result *result = &run->results[i];
        if (!gt_report_has_accounting(result))
            continue;
        if (shown++ == GT_REPORT_MD_MAX_CASES) {
            fprintf(out, "| | ... %zu more | | | | | | |\n", rows - GT_REPORT_MD_MAX_CASES);
            break;
        }
        bool differs = false;
        char cells[6][32];
        for (size_t f = 0; f < 6; f++) {
            int want = gt_report_accounting_figure(&result->kase->expect.accounting, f);
            int got = gt_report_accounting_figure(&result->observed.accounting, f);
            char a[12] = "-", b[12] = "-";
            if (want >= 0)
                snprintf(a, sizeof a, "%d", want);
            if (!result->observed.has_accounting)
                snprintf(b, sizeof b, "?");
            else if (got >= 0)
                snprintf(b, sizeof b, "%d", got);
            snprintf(cells[f], sizeof cells[f], "%s / %s", a, b);
            differs = differs || gt_report_figure_differs(result, f);
        }
        fprintf(out, "| %s | ", differs ? "**≠**" : "");
        gt_report_md_code(out, result->kase->input.id);
        for (size_t f = 0; f < 6; f++)
            fprintf(out, " | %s", cells[f]);
        fputs(" |\n", out);
    }
}

static void describe_expected(FILE *out, const gt_expect *expect)
{
    if (expect->verdict == GT_VERDICT_ACCEPT) {
        fputs("accept", out);
        return;
    }
    fputs("reject ", out);
    gt_report_md_code(out, expect->gate);
    if (expect->reason) {
        fputc(' ', out);
        gt_report_md_code(out, expect->reason);
    }
}

static void describe_observed(FILE *out, const gt_observed *observed)
{
    if (observed->verdict == GT_VERDICT_ACCEPT)
        fputs("accept", out);
    else if (observed->verdict == GT_VERDICT_REJECT) {
        fputs("reject ", out);
        gt_report_md_code(out, observed->gate);
        fputc(' ', out);
        gt_report_md_code(out, observed->reason);
    } else
        fputs("—", out);
}

/* One row of a case list: case, expected, observed, note. */
static void case_row(FILE *out, const gt_case_result *result)
{
    fputs("| ", out);
    gt_report_md_code(out, result->kase->input.id);
    fputs(" | ", out);
    describe_expected(out, &result->kase->expect);
    fputs(" | ", out);
    describe_observed(out, &result->observed);
    fputs(" | ", out);
    gt_report_md_code(out, result->note);
    for (size_t i = 0; i < result->kase->source_count; i++) {
        fputs(" reported in ", out);
        gt_report_md_code(out, result->kase->sources[i]);
    }
    fputs(" |\n", out);
}

#define CASE_TABLE_HEAD "| case | expected | observed | note |\n|---|---|---|---|\n"

/* The cases that failed or errored, first: what a job summary or a
 * pull-request comment is read for. One table per verdict class, unsafe
 * first; at most GT_REPORT_MD_MAX_CASES rows in all. */
static void failures(FILE *out, const gt_run *run, size_t failing)
{
    if (failing == 0)
        return;
    fprintf(out, "### Failures (%zu)\n", failing);
    size_t shown = 0;
    for (size_t g = 0; g < GT_REPORT_FAILURE_GROUPS && shown <= GT_REPORT_MD_MAX_CASES; g++) {
        gt_class group = gt_report_failure_groups[g];
        size_t members = 0;
        for (size_t i = 0; i < run->count; i++)
            members += gt_report_in_failure_group(&run->results[i], group);
        if (members == 0)
            continue;
        fprintf(out, "\n#### %s (%zu): %s\n\n" CASE_TABLE_HEAD, gt_class_name(group), members,
                gt_report_class_meaning(group));
        for (size_t i = 0; i < run->count; i++) {
            if (!gt_report_in_failure_group(&run->results[i], group))
                continue;
            if (shown++ == GT_REPORT_MD_MAX_CASES) {
                fprintf(out, "| ... %zu more (see the JSON or HTML report) | | | |\n",
                        failing - GT_REPORT_MD_MAX_CASES);
                break;
            }
            case_row(out, &run->results[i]);
        }
    }
    fputc('\n', out);
}

/* The other-reason passes, apart and folded: right verdict and gate, another
 * reason code or message; not failures unless the target claims reasons. */
static void other_reasons(FILE *out, const gt_run *run)
{
    size_t count = 0;
    for (size_t i = 0; i < run->count; i++)
        count += gt_report_other_reason_pass(&run->results[i]);
    if (count == 0)
        return;
    fprintf(out,
            "<details><summary>%zu right verdict, other reason — a pass unless reasons is "
            "claimed</summary>\n\n" CASE_TABLE_HEAD,
            count);
    size_t shown = 0;
    for (size_t i = 0; i < run->count; i++) {
        if (!gt_report_other_reason_pass(&run->results[i]))
            continue;
        if (shown++ == GT_REPORT_MD_MAX_CASES) {
            fprintf(out, "| ... %zu more (see the JSON or HTML report) | | | |\n", count - GT_REPORT_MD_MAX_CASES);
            break;
        }
        case_row(out, &run->results[i]);
    }
    fputs("\n</details>\n\n", out);
}

/* Under the heading: profiles claimed and not, the not-applicable cases by
 * profile, the coverage of each claimed profile, the counts per class. */
static void headline(FILE *out, const gt_run *run, const gt_report_info *info, const gt_run_counts *total)
{
    char claimed[160], unclaimed[160], text[256];
    gt_profiles_format(gt_run_claims(run), "`, `", claimed, sizeof claimed);
    gt_profiles_format(GT_PROFILES_ALL & ~gt_run_claims(run), "`, `", unclaimed, sizeof unclaimed);
    fprintf(out, "**Profiles** claimed: %s%s%s; not claimed: %s%s%s.", claimed[0] ? "`" : "",
            claimed[0] ? claimed : "none", claimed[0] ? "`" : "", unclaimed[0] ? "`" : "",
            unclaimed[0] ? unclaimed : "none", unclaimed[0] ? "`" : "");
    if (total->not_applicable > 0)
        fprintf(out, " %zu case%s not applicable, never run (%s).", total->not_applicable,
                total->not_applicable == 1 ? "" : "s", gt_report_not_applicable_text(text, sizeof text, run));
    fputs("\n\n", out);
    gt_report_profile_coverage rows[GT_PROFILE_COUNT];
    size_t rows_count = gt_report_claimed_coverage(run, info, rows);
    for (size_t i = 0; i < rows_count; i++) {
        fprintf(out, "- %s", rows[i].text);
        if (rows[i].low)
            fprintf(out, " — **below %.0f%%**", GT_REPORT_BADGE_MIN_COVERAGE * 100.0);
        fputc('\n', out);
    }
    bool any = rows_count > 0;
    fprintf(out,
            "%s**Verdicts:** %s%zu unsafe%s, %zu refused_valid, %zu figures, %zu other_reason (%s), %zu error, %zu "
            "skip.\n\n",
            any ? "\n" : "", total->unsafe ? "**" : "", total->unsafe, total->unsafe ? "**" : "", total->refused_valid,
            total->figures, total->other_reason, gt_report_other_reason_rule(run), total->error, total->skip);
}

/* Skips, collapsed: one row per distinct reason with its count and a first
 * case, inside <details> so they never push the failures off the page. */
static void skipped_by_reason(FILE *out, const gt_run *run, size_t skipped)
{
    if (skipped == 0)
        return;
    fprintf(out, "\n<details><summary>%zu skipped</summary>\n\n| cases | reason | first case |\n|---|---|---|\n",
            skipped);
    size_t reasons = 0;
    for (size_t i = 0; i < run->count; i++) {
        const gt_case_result *result = &run->results[i];
        size_t count = gt_report_skip_group(run, i);
        if (count == 0)
            continue;
        if (reasons++ == GT_REPORT_MD_MAX_CASES) {
            fputs("| | ... more reasons (see the JSON or HTML report) | |\n", out);
            break;
        }
        fprintf(out, "| %zu | ", count);
        gt_report_md_code(out, result->note);
        fputs(" | ", out);
        gt_report_md_code(out, result->kase->input.id);
        fputs(" |\n", out);
    }
    fputs("\n</details>\n", out);
}

int gt_report_markdown(FILE *out, const gt_run *run, const gt_report_info *info)
{
    gt_run_counts counts[GT_GATE_COUNT + 1];
    gt_run_count(run, counts);
    const gt_run_counts *total = &counts[GT_GATE_COUNT];
    bool green = total->fail + total->error == 0;
    size_t problems = gt_report_problem_count(run, info);
    size_t regressed = info && info->baseline ? info->baseline->counts[GT_BASELINE_REGRESSED] : 0;
    fprintf(out, "## gauntlet %s: %zu passed, %zu failed, %zu skipped\n\n", green && problems == 0 ? "✅" : "❌",
            total->pass, total->fail + total->error, total->skip);
    if (info && info->baseline)
        fprintf(out, "%zu regression%s against the baseline.\n\n", regressed, regressed == 1 ? "" : "s");
    headline(out, run, info, total);
    failures(out, run, total->fail + total->error);
    other_reasons(out, run);
    gate_table(out, counts);
    tier_rows(out, run);
    certification(out, run, info);
    baseline(out, info ? info->baseline : NULL);
    accounting_table(out, run);

    skipped_by_reason(out, run, total->skip);
    if (problems > 0) {
        fprintf(out, "\n### Corpus problems (%zu)\n\n", problems);
        for (size_t i = 0; i < problems && i < GT_REPORT_MD_MAX_CASES; i++) {
            const gt_load_problem *problem = gt_report_problem(run, info, i);
            char where[32];
            snprintf(where, sizeof where, ":%u", problem->line);
            fputs("- ", out);
            gt_report_md_code(out, problem->file);
            fputs(where, out);
            fputc(' ', out);
            gt_report_md_code(out, problem->field);
            fputc(' ', out);
            gt_report_md_code(out, problem->message);
            fputc('\n', out);
        }
    }
    fflush(out);
    return ferror(out) ? -1 : 0;
}
