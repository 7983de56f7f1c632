/* console.c — the human report: a per-gate table, the attempt-accounting
 * table, one line per case that did not pass, the baseline diff, the
 * certification footer (on request) and the totals line.
 *
 * The table has a row per gate that has cases and a total row; columns are
 * gate, cases, pass, fail, error, skip. Every string that came from a case
 * file or a target is escaped for the terminal (report.c). Colour only when
 * the caller says the output is a terminal. */
#include <string.h>

#include "gauntlet/runner/report.h"
#include "report_util.h"

#define COLOUR_RED "\033[31m"
#define COLOUR_GREEN "\033[32m"
#define COLOUR_YELLOW "\033[33m"
#define COLOUR_BOLD "\033[1m"
#define COLOUR_RESET "\033[0m"

static void count_cell(FILE *out, size_t value, const char *colour, bool use_colour)
{
    if (use_colour && value > 0)
        fprintf(out, "  %s%5zu%s", colour, value, COLOUR_RESET);
    else
        fprintf(out, "  %5zu", value);
}

static void table_row(FILE *out, const char *name, const gt_run_counts *row, bool colour)
{
    fprintf(out, "%-10s %6zu", name, row->cases);
    count_cell(out, row->pass, COLOUR_GREEN, colour);
    count_cell(out, row->fail, COLOUR_RED, colour);
    count_cell(out, row->error, COLOUR_RED, colour);
    count_cell(out, row->skip, COLOUR_YELLOW, colour);
    fputc('\n', out);
}

void gt_report_console_summary(FILE *out, const gt_run *run, const gt_report_info *info, bool colour)
{
    gt_run_counts counts[GT_GATE_COUNT + 1];
    gt_run_count(run, counts);

    if (counts[GT_GATE_COUNT].not_applicable > 0)
        fprintf(out, "%zu of %zu cases (%zu not applicable) against ", counts[GT_GATE_COUNT].cases, run->count,
                counts[GT_GATE_COUNT].not_applicable);
    else
        fprintf(out, "%zu case%s against ", run->count, run->count == 1 ? "" : "s");
    gt_report_console_text(out, run->target_name ? run->target_name : run->target);
    fputs(" (", out);
    gt_report_console_text(out, run->target);
    fprintf(out, "), %u job%s, %.2f s\n\n", run->jobs, run->jobs == 1 ? "" : "s", run->elapsed_ms / 1000.0);

    fprintf(out, "%s%-10s %6s  %5s  %5s  %5s  %5s%s\n", colour ? COLOUR_BOLD : "", "gate", "cases", "pass", "fail",
            "error", "skip", colour ? COLOUR_RESET : "");
    for (int gate = 0; gate < GT_GATE_COUNT; gate++)
        if (counts[gate].cases > 0)
            table_row(out, gt_gate_name((gt_gate)gate), &counts[gate], colour);
    table_row(out, "total", &counts[GT_GATE_COUNT], colour);
    char required[64], optional[64];
    gt_report_tier_rates(run, required, optional);
    fprintf(out, "tiers      required %s, optional %s\n", required, optional);
    gt_report_console_classes(out, run, colour);
    gt_report_console_coverage(out, run, info, colour);
    gt_report_console_accounting(out, run, colour);

    /* failures and errors first, then skips, then the other-reason passes:
     * one line per case (the run's stdout contract), in corpus order within
     * each group; not-applicable cases are counted above, not listed */
    bool first = true;
    for (size_t k = 0; k < 3 * run->count; k++) {
        size_t group = k / (run->count ? run->count : 1);
        const gt_case_result *result = &run->results[k % run->count];
        size_t in_group = result->outcome == GT_OUTCOME_SKIP ? 1
                          : result->outcome == GT_OUTCOME_PASS && result->verdict_class == GT_CLASS_OTHER_REASON
                              ? 2
                              : 0;
        if (in_group != group)
            continue;
        const char *label = NULL, *label_colour = COLOUR_RED;
        switch (result->outcome) {
        case GT_OUTCOME_PASS:
            if (result->verdict_class != GT_CLASS_OTHER_REASON)
                continue;
            label = "OTHER-REASON", label_colour = COLOUR_YELLOW;
            break;
        case GT_OUTCOME_FAIL: label = "FAIL"; break;
        case GT_OUTCOME_ERROR: label = "ERROR"; break;
        case GT_OUTCOME_SKIP: label = "SKIP", label_colour = COLOUR_YELLOW; break;
        case GT_OUTCOME_NOT_APPLICABLE: continue;
        }
        if (first)
            fputc('\n', out);
        first = false;
        fprintf(out, "%s%s%s ", colour ? label_colour : "", label, colour ? COLOUR_RESET : "");
        gt_report_console_text(out, result->kase->input.id);
        fputs(": ", out);
        gt_report_console_text(out, result->note ? result->note : "(no note)");
        if (result->outcome == GT_OUTCOME_FAIL)
            fprintf(out, " [%s]", gt_class_name(gt_case_result_class(result)));
        for (size_t i = 0; result->outcome != GT_OUTCOME_PASS && i < result->kase->source_count; i++) {
            fputs(" (reported in ", out);
            gt_report_console_text(out, result->kase->sources[i]);
            fputc(')', out);
        }
        fputc('\n', out);
    }
}

void gt_report_console_classes(FILE *out, const gt_run *run, bool colour)
{
    gt_run_counts counts[GT_GATE_COUNT + 1];
    gt_run_count(run, counts);
    const gt_run_counts *total = &counts[GT_GATE_COUNT];
    char claimed[160], unclaimed[160];
    gt_profiles_format(gt_run_claims(run), ", ", claimed, sizeof claimed);
    gt_profiles_format(GT_PROFILES_ALL & ~gt_run_claims(run), ", ", unclaimed, sizeof unclaimed);
    bool reasons = gt_run_claims(run) & (1u << GT_PROFILE_REASONS);
    fprintf(out, "verdicts   %s%zu unsafe%s, %zu refused_valid, %zu figures, %zu other_reason (%s), %zu error, %zu skip\n",
            colour && total->unsafe ? COLOUR_RED : "", total->unsafe, colour && total->unsafe ? COLOUR_RESET : "",
            total->refused_valid, total->figures, total->other_reason,
            reasons ? "failures: reasons is claimed" : "passes: reasons is not claimed", total->error, total->skip);
    fprintf(out, "profiles   claimed %s", claimed[0] ? claimed : "(none)");
    size_t client = gt_report_not_applicable_to_client(run);
    if (total->not_applicable > client)
        fprintf(out, "; %zu case%s not applicable (in %s only)", total->not_applicable - client,
                total->not_applicable - client == 1 ? "" : "s", unclaimed);
    if (client > 0)
        fprintf(out, "; %zu case%s not applicable to this client (a stream fault it did not stream)", client,
                client == 1 ? "" : "s");
    fputc('\n', out);
}

/* One line per claimed profile that holds required cases, each after
 * `lead`; low coverage in yellow. */
static void coverage_lines(FILE *out, const gt_run *run, const gt_report_info *info, bool colour, const char *lead)
{
    gt_report_profile_coverage rows[GT_PROFILE_COUNT];
    size_t count = gt_report_claimed_coverage(run, info, rows);
    for (size_t i = 0; i < count; i++) {
        bool paint = colour && rows[i].low;
        fprintf(out, "%s%s%s%s", lead, paint ? COLOUR_YELLOW : "", rows[i].text, paint ? COLOUR_RESET : "");
        if (lead[0] != '\n')
            fputc('\n', out);
    }
}

void gt_report_console_coverage(FILE *out, const gt_run *run, const gt_report_info *info, bool colour)
{
    coverage_lines(out, run, info, colour, "coverage   ");
}

/* "2/2", "-/3" (not given), "2/?" (target reported none). */
static int accounting_cell(char *cell, size_t len, int expected, int observed, bool has_observed)
{
    char want[16] = "-", got[16] = "-";
    if (expected >= 0)
        snprintf(want, sizeof want, "%d", expected);
    if (!has_observed)
        snprintf(got, sizeof got, "?");
    else if (observed >= 0)
        snprintf(got, sizeof got, "%d", observed);
    return snprintf(cell, len, "%s/%s", want, got);
}

/* True when a figure the case gives differs from the one the target reported
 * (a figure a black-box target cannot observe is not a difference). */
static bool accounting_differs(const gt_case_result *result)
{
    for (size_t f = 0; f < 6; f++)
        if (gt_report_figure_differs(result, f))
            return true;
    return false;
}

/* The attempt-accounting table. When every case agrees it is one line (the
 * full table is in the HTML, Markdown and JSON reports); otherwise only the
 * cases that differ are listed. */
void gt_report_console_accounting(FILE *out, const gt_run *run, bool colour)
{
    static const char *const headers[6] = {"attempts", "limit", "retracted", "enforce", "api", "calls"};
    size_t rows = 0, differing = 0, id_width = 4;
    for (size_t i = 0; i < run->count; i++) {
        if (!gt_report_has_accounting(&run->results[i]))
            continue;
        rows++;
        if (!accounting_differs(&run->results[i]))
            continue;
        differing++;
        size_t len = strlen(run->results[i].kase->input.id);
        if (len > id_width)
            id_width = len;
    }
    if (rows == 0)
        return;
    if (!gt_report_figures_judged(run)) {
        fprintf(out,
                "\n%sattempt accounting%s: %zu case%s give figures; not judged (the target claims neither "
                "claude-code nor repair-loop)\n",
                colour ? COLOUR_BOLD : "", colour ? COLOUR_RESET : "", rows, rows == 1 ? "" : "s");
        return;
    }
    if (differing == 0) {
        fprintf(out, "\n%sattempt accounting%s: %zu case%s, expected and observed agree on every figure given\n",
                colour ? COLOUR_BOLD : "", colour ? COLOUR_RESET : "", rows, rows == 1 ? "" : "s");
        return;
    }
    if (id_width > 60)
        id_width = 60;
    fprintf(out, "\n%sattempt accounting%s: %zu of %zu cases differ (expected/observed; - not given, ? not reported)\n",
            colour ? COLOUR_BOLD : "", colour ? COLOUR_RESET : "", differing, rows);
    fprintf(out, "  %-*s", (int)id_width, "case");
    for (size_t f = 0; f < 6; f++)
        fprintf(out, "  %9s", headers[f]);
    fputc('\n', out);
    for (size_t i = 0; i < run->count; i++) {
        const gt_case_result *result = &run->results[i];
        if (!gt_report_has_accounting(result) || !accounting_differs(result))
            continue;
        char cells[6][32];
        for (size_t f = 0; f < 6; f++) {
            int want = gt_report_accounting_figure(&result->kase->expect.accounting, f);
            int got = gt_report_accounting_figure(&result->observed.accounting, f);
            accounting_cell(cells[f], sizeof cells[f], want, got, result->observed.has_accounting);
        }
        fputs(colour ? COLOUR_RED "! " COLOUR_RESET : "! ", out);
        size_t len = strlen(result->kase->input.id);
        gt_report_console_text(out, result->kase->input.id);
        for (size_t pad = len; pad < id_width; pad++)
            fputc(' ', out);
        for (size_t f = 0; f < 6; f++)
            fprintf(out, "  %9s", cells[f]);
        fputc('\n', out);
    }
}

static void baseline_lists(FILE *out, const gt_baseline_diff *diff, bool colour, bool regressions_only);

void gt_report_console_baseline(FILE *out, const gt_baseline_diff *diff, bool colour)
{
    baseline_lists(out, diff, colour, false);
}

void gt_report_console_regressions(FILE *out, const gt_baseline_diff *diff)
{
    baseline_lists(out, diff, false, true);
}

/* The diff's count line and its lists (only the regressions: what gates). */
static void baseline_lists(FILE *out, const gt_baseline_diff *diff, bool colour, bool regressions_only)
{
    if (diff == NULL)
        return;
    fputs("\nbaseline ", out);
    gt_report_console_text(out, diff->file);
    fprintf(out, ": %zu regressed, %zu fixed, %zu new, %zu now skipped (%zu baseline cases, %zu not run)\n",
            diff->counts[GT_BASELINE_REGRESSED], diff->counts[GT_BASELINE_FIXED], diff->counts[GT_BASELINE_NEW],
            diff->counts[GT_BASELINE_NOW_SKIPPED], diff->baseline_cases, diff->not_run);
    static const char *const labels[GT_BASELINE_KIND_COUNT] = {"REGRESSED", "FIXED", "NEW", "NOW-SKIPPED"};
    for (int kind = 0; kind < (regressions_only ? 1 : GT_BASELINE_KIND_COUNT); kind++) {
        for (size_t i = 0; i < diff->entry_count; i++) {
            const gt_baseline_entry *entry = &diff->entries[i];
            if (entry->kind != (gt_baseline_kind)kind)
                continue;
            const char *paint = kind == GT_BASELINE_REGRESSED ? COLOUR_RED
                                : kind == GT_BASELINE_FIXED   ? COLOUR_GREEN
                                                              : COLOUR_YELLOW;
            fprintf(out, "%s%s%s ", colour ? paint : "", labels[kind], colour ? COLOUR_RESET : "");
            gt_report_console_text(out, entry->id);
            fprintf(out, " (%s -> %s)\n", entry->before < 0 ? "absent" : gt_outcome_name((gt_outcome)entry->before),
                    gt_outcome_name(entry->after));
        }
    }
}

void gt_report_console_certification(FILE *out, const gt_run *run, const gt_report_info *info)
{
    gt_run_counts counts[GT_GATE_COUNT + 1];
    gt_run_count(run, counts);
    char name[256], version[128];
    gt_report_split_name(run->target_name, name, sizeof name, version, sizeof version);
    char verdict[256];
    gt_report_certified(run, info, verdict, sizeof verdict);
    fputs("\ncertification\n  verdict         ", out);
    gt_report_console_text(out, verdict);
    fputs("\n  implementation  ", out);
    gt_report_console_text(out, name[0] ? name : run->target);
    fputc(' ', out);
    gt_report_console_text(out, version[0] ? version : "(version not reported)");
    fputs("\n  corpus          " GT_CORPUS_FORMAT, out);
    if (info && info->corpus_version) {
        fputs(" version ", out);
        gt_report_console_text(out, info->corpus_version);
    }
    if (info && info->corpus_sha256) {
        fputs(", sha256 ", out);
        gt_report_console_text(out, info->corpus_sha256);
        fprintf(out, " (%zu cases, %zu selected)", info->corpus_cases, info->selected_cases);
    }
    fputs("\n  pass rates     ", out);
    for (int gate = 0; gate <= GT_GATE_COUNT; gate++) {
        if (counts[gate].cases == 0)
            continue;
        double rate = gt_report_pass_rate(&counts[gate]);
        fprintf(out, " %s ", gate == GT_GATE_COUNT ? "total" : gt_gate_name((gt_gate)gate));
        if (rate < 0)
            fputs("n/a", out);
        else
            fprintf(out, "%.2f%%", rate * 100.0);
        fprintf(out, " (%zu/%zu)", counts[gate].pass, counts[gate].cases - counts[gate].skip);
    }
    char required[64], optional[64];
    gt_report_tier_rates(run, required, optional);
    fprintf(out, "\n  required tier   %s  (%s)\n  optional tier   %s", required, GT_REPORT_TIER_NOTE, optional);
    char claimed[160], unclaimed[160];
    gt_profiles_format(gt_run_claims(run), ", ", claimed, sizeof claimed);
    gt_profiles_format(GT_PROFILES_ALL & ~gt_run_claims(run), ", ", unclaimed, sizeof unclaimed);
    fprintf(out, "\n  profiles        claimed: %s; not claimed: %s (%zu cases not applicable)", claimed,
            unclaimed[0] ? unclaimed : "none", counts[GT_GATE_COUNT].not_applicable);
    coverage_lines(out, run, info, false, "\n  coverage        ");
    fprintf(out, "\n  verdicts        %zu unsafe, %zu refused_valid, %zu figures, %zu other_reason (%s)",
            counts[GT_GATE_COUNT].unsafe, counts[GT_GATE_COUNT].refused_valid, counts[GT_GATE_COUNT].figures,
            counts[GT_GATE_COUNT].other_reason,
            gt_run_claims(run) & (1u << GT_PROFILE_REASONS) ? "failures: reasons is claimed" : "passes");
    /* the skips by reason: what the target could not express */
    gt_report_skip_reason groups[GT_REPORT_MAX_SKIP_GROUPS];
    size_t group_count = gt_report_skip_groups(run, groups, GT_REPORT_MAX_SKIP_GROUPS);
    for (size_t i = 0; i < group_count && i < GT_REPORT_MAX_SKIP_GROUPS; i++) {
        fprintf(out, "\n  skipped         %zu: ", groups[i].cases);
        gt_report_console_text(out, groups[i].note);
    }
    if (group_count > GT_REPORT_MAX_SKIP_GROUPS)
        fprintf(out, "\n  skipped         (%zu more reasons)", group_count - GT_REPORT_MAX_SKIP_GROUPS);
    gt_report_accounting_totals totals;
    gt_report_accounting_sum(run, &totals);
    fprintf(out, "\n  accounting      %zu cases: %zu matched, %zu mismatched, %zu not reported", totals.cases,
            totals.matched, totals.mismatched, totals.missing);
    fprintf(out, "; attempts %ld/%ld, model calls %ld/%ld (expected/observed)", totals.expected[0],
            totals.observed[0], totals.expected[5], totals.observed[5]);
    fputs("\n  reproduce       ", out);
    gt_report_console_text(out, info && info->command ? info->command : "(command not recorded)");
    fputc('\n', out);
}

void gt_report_console_totals(FILE *out, const gt_run *run)
{
    gt_run_counts counts[GT_GATE_COUNT + 1];
    gt_run_count(run, counts);
    const gt_run_counts *total = &counts[GT_GATE_COUNT];
    fprintf(out, "%zu passed, %zu failed, %zu skipped\n", total->pass, total->fail + total->error, total->skip);
}

int gt_report_console(FILE *out, const gt_run *run, const gt_report_info *info, bool tty)
{
    gt_report_console_summary(out, run, info, tty);
    if (info != NULL) {
        gt_report_console_baseline(out, info->baseline, tty);
        if (info->certify)
            gt_report_console_certification(out, run, info);
    }
    fputc('\n', out);
    gt_report_console_totals(out, run);
    fflush(out);
    return ferror(out) ? -1 : 0;
}
