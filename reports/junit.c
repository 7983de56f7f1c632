/* junit.c — JUnit XML for CI dashboards.
 *
 * One <testsuite> per gate that has cases (corpus order inside), each case a
 * <testcase classname="gauntlet.<gate>.<category>" name="<id>"> with a
 * <failure>, <error> or <skipped> child when it did not pass. Load problems
 * (broken case files) become errored test cases in a "corpus" suite, so a
 * dashboard shows them instead of silently running fewer cases. Everything
 * from the corpus or a target is XML-escaped, with the characters XML 1.0
 * forbids replaced (report.c). */
#include "gauntlet/report.h"
#include "report_util.h"

static void write_attr(FILE *out, const char *name, const char *value)
{
    fprintf(out, " %s=\"", name);
    gt_report_xml_text(out, value, true);
    fputc('"', out);
}

static void write_case(FILE *out, const gt_case_result *result)
{
    const gt_case *kase = result->kase;
    fputs("    <testcase", out);
    fputs(" classname=\"gauntlet.", out);
    gt_report_xml_text(out, kase->input.gate, true);
    fputc('.', out);
    gt_report_xml_text(out, kase->category ? kase->category : "uncategorized", true);
    fputc('"', out);
    write_attr(out, "name", kase->input.id);
    write_attr(out, "file", kase->file);
    fprintf(out, " line=\"%u\" time=\"%.6f\"", kase->line, result->elapsed_ms / 1000.0);
    if (result->outcome == GT_OUTCOME_PASS) {
        fputs("/>\n", out);
        return;
    }
    const char *element = result->outcome == GT_OUTCOME_FAIL    ? "failure"
                          : result->outcome == GT_OUTCOME_ERROR ? "error"
                                                                : "skipped";
    const char *type = result->outcome == GT_OUTCOME_FAIL    ? "mismatch"
                       : result->outcome == GT_OUTCOME_ERROR ? "target_error"
                                                             : "unsupported";
    fprintf(out, ">\n      <%s", element);
    write_attr(out, "message", result->note ? result->note : "");
    if (result->outcome != GT_OUTCOME_SKIP) {
        write_attr(out, "type", type);
        fputc('>', out);
        gt_report_xml_text(out, result->note, false);
        fputs("\n", out);
        gt_report_xml_text(out, kase->file, false);
        fprintf(out, ":%u", kase->line);
        if (result->observed.message != NULL) {
            fputs("\nobserved message: ", out);
            gt_report_xml_text(out, result->observed.message, false);
        }
        fprintf(out, "</%s>\n", element);
    } else
        fputs("/>\n", out);
    fputs("    </testcase>\n", out);
}

int gt_report_junit(FILE *out, const gt_run *run, const gt_report_info *info)
{
    gt_run_counts counts[GT_GATE_COUNT + 1];
    gt_run_count(run, counts);
    size_t problems = gt_report_problem_count(run, info);
    const gt_run_counts *total = &counts[GT_GATE_COUNT];

    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
    fprintf(out, "<testsuites name=\"gauntlet\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" "
                 "time=\"%.3f\"",
            total->cases + problems, total->fail, total->error + problems, total->skip, run->elapsed_ms / 1000.0);
    write_attr(out, "timestamp", run->started_at);
    fputs(">\n", out);

    for (int gate = 0; gate < GT_GATE_COUNT; gate++) {
        const gt_run_counts *row = &counts[gate];
        if (row->cases == 0)
            continue;
        double seconds = 0;
        for (size_t i = 0; i < run->count; i++)
            if (gt_gate_from_name(run->results[i].kase->input.gate) == gate)
                seconds += run->results[i].elapsed_ms / 1000.0;
        fprintf(out, "  <testsuite name=\"%s\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" "
                     "time=\"%.6f\"",
                gt_gate_name((gt_gate)gate), row->cases, row->fail, row->error, row->skip, seconds);
        write_attr(out, "timestamp", run->started_at);
        fputs(">\n    <properties>\n      <property name=\"target\"", out);
        write_attr(out, "value", run->target);
        fputs("/>\n      <property name=\"target_name\"", out);
        write_attr(out, "value", run->target_name);
        if (info != NULL && info->corpus_sha256 != NULL) {
            fputs("/>\n      <property name=\"corpus_sha256\"", out);
            write_attr(out, "value", info->corpus_sha256);
        }
        if (info != NULL && info->command != NULL) {
            fputs("/>\n      <property name=\"command\"", out);
            write_attr(out, "value", info->command);
        }
        fputs("/>\n    </properties>\n", out);
        for (size_t i = 0; i < run->count; i++)
            if (gt_gate_from_name(run->results[i].kase->input.gate) == gate)
                write_case(out, &run->results[i]);
        fputs("  </testsuite>\n", out);
    }

    if (problems > 0) {
        fprintf(out, "  <testsuite name=\"corpus\" tests=\"%zu\" failures=\"0\" errors=\"%zu\" skipped=\"0\">\n",
                problems, problems);
        for (size_t i = 0; i < problems; i++) {
            const gt_load_problem *problem = gt_report_problem(run, info, i);
            char where[64];
            snprintf(where, sizeof where, ":%u", problem->line);
            fputs("    <testcase classname=\"gauntlet.corpus\" name=\"", out);
            gt_report_xml_text(out, problem->file, true);
            gt_report_xml_text(out, where, true);
            if (problem->field[0] != '\0') {
                fputc(' ', out);
                gt_report_xml_text(out, problem->field, true);
            }
            fputc('"', out);
            write_attr(out, "file", problem->file);
            fprintf(out, " line=\"%u\">\n      <error type=\"load_problem\"", problem->line);
            write_attr(out, "message", problem->message);
            fputc('>', out);
            gt_report_xml_text(out, problem->message, false);
            fputs("</error>\n    </testcase>\n", out);
        }
        fputs("  </testsuite>\n", out);
    }
    fputs("</testsuites>\n", out);
    fflush(out);
    return ferror(out) ? -1 : 0;
}
