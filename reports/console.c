/* console.c — the human report: a per-gate table, one line per case that did
 * not pass, and the totals line.
 *
 * The table has a row per gate that has cases and a total row; columns are
 * gate, cases, pass, fail, error, skip. Every string that came from a case
 * file or a target is escaped for the terminal (report.c). Colour only when
 * the caller says the output is a terminal. */
#include "gauntlet/report.h"
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

void gt_report_console_summary(FILE *out, const gt_run *run, bool colour)
{
    gt_run_counts counts[GT_GATE_COUNT + 1];
    gt_run_count(run, counts);

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

    bool first = true;
    for (size_t i = 0; i < run->count; i++) {
        const gt_case_result *result = &run->results[i];
        const char *label = NULL, *label_colour = COLOUR_RED;
        switch (result->outcome) {
        case GT_OUTCOME_PASS: continue;
        case GT_OUTCOME_FAIL: label = "FAIL"; break;
        case GT_OUTCOME_ERROR: label = "ERROR"; break;
        case GT_OUTCOME_SKIP: label = "SKIP", label_colour = COLOUR_YELLOW; break;
        }
        if (first)
            fputc('\n', out);
        first = false;
        fprintf(out, "%s%s%s ", colour ? label_colour : "", label, colour ? COLOUR_RESET : "");
        gt_report_console_text(out, result->kase->input.id);
        fputs(": ", out);
        gt_report_console_text(out, result->note ? result->note : "(no note)");
        fputc('\n', out);
    }
}

void gt_report_console_totals(FILE *out, const gt_run *run)
{
    gt_run_counts counts[GT_GATE_COUNT + 1];
    gt_run_count(run, counts);
    const gt_run_counts *total = &counts[GT_GATE_COUNT];
    fprintf(out, "%zu passed, %zu failed, %zu skipped\n", total->pass, total->fail + total->error, total->skip);
}

int gt_report_console(FILE *out, const gt_run *run, bool tty)
{
    gt_report_console_summary(out, run, tty);
    fputc('\n', out);
    gt_report_console_totals(out, run);
    fflush(out);
    return ferror(out) ? -1 : 0;
}
