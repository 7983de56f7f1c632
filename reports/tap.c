/* tap.c — TAP version 13 for harnesses that read the Test Anything Protocol.
 *
 * One test point per applicable case in corpus order ("ok N - <id>", "not ok
 * N - <id>", skips as "ok N - <id> # SKIP <note>"), then one "not ok" per
 * load problem so a broken case file never looks green. A not-applicable
 * case (in no profile the target claims) was never run and is no test point:
 * comment lines after the plan count them and name the claimed profiles, the
 * verdict classes and the coverage. A case that did not pass, and an
 * other-reason pass (an "ok": the right verdict with another reason, a pass
 * unless the target claims `reasons`), carries a YAML diagnostic block
 * (outcome, class, gate, file, line, note, expected and observed); its values
 * are JSON strings, which YAML reads as double-quoted scalars, so nothing
 * from the corpus can break the block. Descriptions are
 * escaped for a terminal and '#' is escaped, so an id can never fake a
 * directive. */
#include <string.h>

#include "gauntlet/runner/report.h"
#include "report_util.h"

/* A description: no newline, no control byte, '#' and '\' escaped. */
static void tap_description(FILE *out, const char *text)
{
    for (const char *p = text ? text : ""; *p; p++) {
        if (*p == '#' || *p == '\\')
            fputc('\\', out);
        char one[2] = {*p, '\0'};
        if ((unsigned char)*p < 0x80)
            gt_report_console_text(out, one);
        else {
            /* keep a whole UTF-8 sequence together for the console escaper */
            size_t span = 1;
            while (p[span] != '\0' && ((unsigned char)p[span] & 0xc0) == 0x80 && span < 4)
                span++;
            char sequence[5] = {0};
            memcpy(sequence, p, span);
            gt_report_console_text(out, sequence);
            p += span - 1;
        }
    }
}

static void yaml_field(FILE *out, const char *name, const char *value)
{
    fprintf(out, "  %s: ", name);
    gt_report_json_string(out, value);
    fputc('\n', out);
}

/* Comments after the plan: profiles, not-applicable count, classes, coverage
 * (only names and numbers of ours: nothing to escape). */
static void run_comments(FILE *out, const gt_run *run, const gt_report_info *info, const gt_run_counts *total)
{
    char claimed[160], unclaimed[160], text[256];
    gt_profiles_format(gt_run_claims(run), ", ", claimed, sizeof claimed);
    gt_profiles_format(GT_PROFILES_ALL & ~gt_run_claims(run), ", ", unclaimed, sizeof unclaimed);
    fprintf(out, "# profiles claimed: %s; not claimed: %s\n", claimed[0] ? claimed : "(none)",
            unclaimed[0] ? unclaimed : "(none)");
    fprintf(out, "# %zu case%s not applicable (never run, not test points)", total->not_applicable,
            total->not_applicable == 1 ? "" : "s");
    if (total->not_applicable > 0)
        fprintf(out, ": %s", gt_report_not_applicable_text(text, sizeof text, run));
    fprintf(out,
            "\n# verdicts: %zu unsafe, %zu refused_valid, %zu figures, %zu other_reason (%s), %zu error, %zu skip\n",
            total->unsafe, total->refused_valid, total->figures, total->other_reason, gt_report_other_reason_rule(run),
            total->error, total->skip);
    gt_report_profile_coverage rows[GT_PROFILE_COUNT];
    size_t count = gt_report_claimed_coverage(run, info, rows);
    for (size_t i = 0; i < count; i++)
        fprintf(out, "# coverage %s\n", rows[i].text);
}

int gt_report_tap(FILE *out, const gt_run *run, const gt_report_info *info)
{
    gt_run_counts counts[GT_GATE_COUNT + 1];
    gt_run_count(run, counts);
    size_t problems = gt_report_problem_count(run, info);
    fprintf(out, "TAP version 13\n1..%zu\n", counts[GT_GATE_COUNT].cases + problems);
    run_comments(out, run, info, &counts[GT_GATE_COUNT]);
    size_t number = 0;
    for (size_t i = 0; i < run->count; i++) {
        const gt_case_result *result = &run->results[i];
        const gt_case *kase = result->kase;
        if (result->outcome == GT_OUTCOME_NOT_APPLICABLE)
            continue;
        number++;
        bool ok = result->outcome == GT_OUTCOME_PASS || result->outcome == GT_OUTCOME_SKIP;
        fprintf(out, "%s %zu - ", ok ? "ok" : "not ok", number);
        tap_description(out, kase->input.id);
        if (result->outcome == GT_OUTCOME_SKIP) {
            fputs(" # SKIP ", out);
            tap_description(out, result->note ? result->note : "skipped by target");
        }
        fputc('\n', out);
        if (ok && !gt_report_other_reason_pass(result))
            continue;
        fputs("  ---\n", out);
        yaml_field(out, "outcome", gt_outcome_name(result->outcome));
        yaml_field(out, "class", gt_class_name(gt_case_result_class(result)));
        if (ok)
            yaml_field(out, "note", "right verdict, other reason: a pass unless reasons is claimed");
        yaml_field(out, "gate", kase->input.gate);
        yaml_field(out, "category", kase->category);
        for (size_t source = 0; source < kase->source_count; source++) {
            char key[32];
            snprintf(key, sizeof key, source ? "source_%zu" : "source", source + 1);
            yaml_field(out, key, kase->sources[source]);
        }
        yaml_field(out, "file", kase->file);
        fprintf(out, "  line: %u\n", kase->line);
        yaml_field(out, "message", result->note);
        fputs("  expected:\n  ", out);
        yaml_field(out, "verdict", gt_report_verdict_text(kase->expect.verdict));
        fputs("  ", out);
        yaml_field(out, "gate", kase->expect.gate);
        fputs("  ", out);
        yaml_field(out, "reason", kase->expect.reason);
        fputs("  observed:\n  ", out);
        yaml_field(out, "verdict", gt_report_verdict_text(result->observed.verdict));
        fputs("  ", out);
        yaml_field(out, "gate", result->observed.gate);
        fputs("  ", out);
        yaml_field(out, "reason", result->observed.reason);
        fputs("  ", out);
        yaml_field(out, "message", result->observed.message);
        fprintf(out, "  elapsed_ms: %.3f\n  ...\n", result->elapsed_ms);
    }
    for (size_t i = 0; i < problems; i++) {
        const gt_load_problem *problem = gt_report_problem(run, info, i);
        fprintf(out, "not ok %zu - corpus problem ", ++number);
        tap_description(out, problem->file);
        fprintf(out, ":%u\n  ---\n", problem->line);
        yaml_field(out, "outcome", "load_problem");
        yaml_field(out, "file", problem->file);
        fprintf(out, "  line: %u\n", problem->line);
        yaml_field(out, "field", problem->field);
        yaml_field(out, "message", problem->message);
        fputs("  ...\n", out);
    }
    fflush(out);
    return ferror(out) ? -1 : 0;
}
