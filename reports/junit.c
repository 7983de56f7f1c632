/* junit.c — JUnit XML for CI dashboards, valid against the Apache Ant JUnit
 * schema that Jenkins' xunit plugin enforces (docs/ci.md#junit).
 *
 * <testsuites> (no attributes) holds one <testsuite> per gate that has
 * applicable cases (corpus order inside), each with the attributes the schema
 * requires (package, id, hostname, a timestamp without zone), <properties>
 * (target, corpus hash, command, the profiles claimed and not claimed, the
 * not-applicable count, the verdict classes, the coverage of each claimed
 * profile, and `location:<id>` = file:line of every case, since a <testcase>
 * may carry nothing but name, classname and time), the cases, then
 * <system-out> (the command that reproduces the run and the other-reason
 * passes with their notes: the schema gives a <testcase> no output of its
 * own) and <system-err>. A case is <testcase
 * classname="gauntlet.<gate>.<category>" name="<id>" time="..."> with a
 * <failure>, <error> or <skipped> child when it did not pass; a failure's
 * type is its verdict class (unsafe, refused_valid, figures, other_reason);
 * the body of a failure or error says why, where, the expected and observed
 * verdicts and the raw input (invisible bytes made visible, cut at
 * GT_REPORT_JUNIT_MAX_INPUT bytes), so a CI page shows why without the HTML
 * report. A not-applicable case (in no profile the target claims) was never
 * run and is no test case; the properties count it. Load problems (broken
 * case files) become errored test cases in a "corpus" suite. Everything from the corpus or a target is XML-escaped,
 * with the characters XML 1.0 forbids replaced (report.c). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gauntlet/runner/report.h"
#include "report_util.h"

typedef struct junit_suite_head {
    const char *name;
    unsigned id;
    size_t tests, failures, errors, skipped;
    double seconds;
} junit_suite_head;

static void write_attr(FILE *out, const char *name, const char *value)
{
    fprintf(out, " %s=\"", name);
    gt_report_xml_text(out, value, true);
    fputc('"', out);
}

static void write_property(FILE *out, const char *name, const char *value)
{
    fputs("      <property", out);
    write_attr(out, "name", name);
    write_attr(out, "value", value ? value : "");
    fputs("/>\n", out);
}

/* The schema's timestamp: YYYY-MM-DDTHH:MM:SS, no fraction, no zone. A run's
 * started_at ("2026-01-02T03:04:05Z") loses its "Z"; anything else (an old
 * or hand-made report) becomes the epoch rather than an invalid document. */
static void junit_timestamp(const char *started_at, char out[20])
{
    static const char shape[] = "dddd-dd-ddTdd:dd:dd";
    for (size_t i = 0; i < sizeof shape - 1; i++) {
        char c = started_at[i];
        bool ok = shape[i] == 'd' ? c >= '0' && c <= '9' : c == shape[i];
        if (!ok) {
            memcpy(out, "1970-01-01T00:00:00", 20);
            return;
        }
    }
    memcpy(out, started_at, 19);
    out[19] = '\0';
}

/* The schema requires a non-empty host name token. */
static void junit_hostname(char *out, size_t len)
{
    if (gethostname(out, len) != 0 || out[0] == '\0' || strchr(out, ' ') != NULL)
        snprintf(out, len, "localhost");
    out[len - 1] = '\0';
}

static void suite_open(FILE *out, const gt_run *run, const junit_suite_head *head, const char *hostname)
{
    char stamp[20];
    junit_timestamp(run->started_at, stamp);
    fputs("  <testsuite", out);
    write_attr(out, "name", head->name);
    fputs(" package=\"gauntlet.", out);
    gt_report_xml_text(out, head->name, true);
    fprintf(out, "\" id=\"%u\" timestamp=\"%s\"", head->id, stamp);
    write_attr(out, "hostname", hostname);
    fprintf(out, " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.6f\">\n", head->tests,
            head->failures, head->errors, head->skipped, head->seconds);
}

/* <system-out>: the command, then one line per other-reason pass of `gate`
 * (GT_GATE_COUNT: none) with its note. */
static void suite_close(FILE *out, const gt_run *run, const gt_report_info *info, int gate)
{
    fputs("    <system-out>", out);
    bool first = true;
    if (info != NULL && info->command != NULL) {
        fputs("reproduce: ", out);
        gt_report_xml_text(out, info->command, false);
        first = false;
    }
    for (size_t i = 0; i < run->count && gate < GT_GATE_COUNT; i++) {
        const gt_case_result *result = &run->results[i];
        if (!gt_report_other_reason_pass(result) || gt_gate_from_name(result->kase->input.gate) != gate)
            continue;
        fputs(first ? "other_reason (a pass: reasons is not claimed) "
                    : "\nother_reason (a pass: reasons is not claimed) ",
              out);
        first = false;
        gt_report_xml_text(out, result->kase->input.id, false);
        fputs(": ", out);
        gt_report_xml_text(out, result->note ? result->note : "(no note)", false);
    }
    fputs("</system-out>\n    <system-err/>\n  </testsuite>\n", out);
}

static void describe_verdict(FILE *out, gt_verdict verdict, const char *gate, const char *reason, const char *subtype)
{
    const char *verdict_text = gt_report_verdict_text(verdict);
    fputs(verdict_text ? verdict_text : "no verdict", out);
    if (gate != NULL) {
        fputc(' ', out);
        gt_report_xml_text(out, gate, false);
    }
    if (reason != NULL) {
        fputc('/', out);
        gt_report_xml_text(out, reason, false);
    }
    if (subtype != NULL) {
        fputs(", subtype ", out);
        gt_report_xml_text(out, subtype, false);
    }
}

/* The raw input with invisible bytes shown as markers, cut at a UTF-8
 * boundary after GT_REPORT_JUNIT_MAX_INPUT bytes, then XML-escaped. A case
 * without raw input (loop, wire) shows its case object instead. */
static void describe_input(FILE *out, const gt_case_input *input)
{
    const unsigned char *bytes = input->raw;
    size_t len = input->raw_len;
    const char *label = "input";
    if (bytes == NULL) {
        bytes = (const unsigned char *)(input->case_json ? input->case_json : "");
        len = strlen((const char *)bytes);
        label = "case";
    }
    size_t shown = len;
    if (shown > GT_REPORT_JUNIT_MAX_INPUT) {
        shown = GT_REPORT_JUNIT_MAX_INPUT;
        while (shown > 0 && (bytes[shown] & 0xc0) == 0x80)
            shown--;
    }
    char *visible = NULL;
    size_t visible_len = 0;
    FILE *buffer = open_memstream(&visible, &visible_len);
    if (buffer == NULL)
        return;
    gt_report_visible(buffer, bytes, shown, false);
    fclose(buffer);
    fprintf(out, "\n%s (%zu bytes", label, len);
    if (shown < len)
        fprintf(out, ", first %zu shown", shown);
    fputs("):\n", out);
    gt_report_xml_text(out, visible, false);
    if (shown < len)
        fprintf(out, "\n... %zu more bytes", len - shown);
    free(visible);
}

/* Why, where, expected, observed, input: what a CI page shows of a case. */
static void failure_body(FILE *out, const gt_case_result *result)
{
    const gt_case *kase = result->kase;
    const gt_observed *observed = &result->observed;
    gt_report_xml_text(out, result->note ? result->note : "", false);
    fputs("\nat: ", out);
    gt_report_xml_text(out, kase->file, false);
    fprintf(out, ":%u", kase->line);
    for (size_t i = 0; i < kase->source_count; i++) {
        fputs("\nreported in: ", out);
        gt_report_xml_text(out, kase->sources[i], false);
    }
    fputs("\nexpected: ", out);
    describe_verdict(out, kase->expect.verdict, kase->expect.gate, kase->expect.reason, kase->expect.subtype);
    fputs("\nobserved: ", out);
    describe_verdict(out, observed->verdict, observed->gate, observed->reason, observed->subtype);
    if (observed->message != NULL) {
        fputs("\nobserved message: ", out);
        gt_report_xml_text(out, observed->message, false);
    }
    for (size_t i = 0; i < observed->error_count; i++) {
        fputs("\nobserved error: ", out);
        gt_report_xml_text(out, observed->errors[i].path, false);
        fputc(' ', out);
        gt_report_xml_text(out, observed->errors[i].keyword, false);
        fputs(": ", out);
        gt_report_xml_text(out, observed->errors[i].message, false);
    }
    describe_input(out, &kase->input);
}

static void write_case(FILE *out, const gt_case_result *result)
{
    const gt_case *kase = result->kase;
    fputs("    <testcase", out);
    write_attr(out, "name", kase->input.id);
    fputs(" classname=\"gauntlet.", out);
    gt_report_xml_text(out, kase->input.gate, true);
    fputc('.', out);
    gt_report_xml_text(out, kase->category ? kase->category : "uncategorized", true);
    fprintf(out, "\" time=\"%.6f\"", result->elapsed_ms / 1000.0);
    if (result->outcome == GT_OUTCOME_PASS) {
        fputs("/>\n", out);
        return;
    }
    fputs(">\n      ", out);
    if (result->outcome == GT_OUTCOME_SKIP) {
        fputs("<skipped", out);
        write_attr(out, "message", result->note ? result->note : "skipped by the target");
        fputs("/>\n    </testcase>\n", out);
        return;
    }
    bool failed = result->outcome == GT_OUTCOME_FAIL;
    const char *element = failed ? "failure" : "error";
    const char *verdict_class = gt_class_name(gt_case_result_class(result));
    fprintf(out, "<%s", element);
    if (failed) {
        /* the class in the message too: most CI pages show only the message */
        fputs(" message=\"", out);
        gt_report_xml_text(out, result->note ? result->note : "", true);
        fprintf(out, " [%s]\"", verdict_class);
    } else
        write_attr(out, "message", result->note ? result->note : "");
    write_attr(out, "type", failed ? verdict_class : "target_error");
    fputc('>', out);
    failure_body(out, result);
    fprintf(out, "</%s>\n    </testcase>\n", element);
}

static void run_properties(FILE *out, const gt_run *run, const gt_report_info *info)
{
    fputs("    <properties>\n", out);
    write_property(out, "target", run->target);
    write_property(out, "target_name", run->target_name);
    if (info != NULL && info->corpus_sha256 != NULL)
        write_property(out, "corpus_sha256", info->corpus_sha256);
    if (info != NULL && info->command != NULL)
        write_property(out, "command", info->command);
    char claimed[160], unclaimed[160], text[256];
    gt_profiles_format(gt_run_claims(run), ",", claimed, sizeof claimed);
    gt_profiles_format(GT_PROFILES_ALL & ~gt_run_claims(run), ",", unclaimed, sizeof unclaimed);
    write_property(out, "profiles_claimed", claimed);
    write_property(out, "profiles_not_claimed", unclaimed);
    gt_run_counts counts[GT_GATE_COUNT + 1];
    gt_run_count(run, counts);
    const gt_run_counts *total = &counts[GT_GATE_COUNT];
    snprintf(text, sizeof text, "%zu", total->not_applicable);
    write_property(out, "not_applicable", text);
    if (total->not_applicable > 0)
        write_property(out, "not_applicable_by_profile", gt_report_not_applicable_text(text, sizeof text, run));
    snprintf(text, sizeof text,
             "%zu unsafe, %zu refused_valid, %zu figures, %zu other_reason (%s), %zu error, %zu skip", total->unsafe,
             total->refused_valid, total->figures, total->other_reason, gt_report_other_reason_rule(run), total->error,
             total->skip);
    write_property(out, "verdicts", text);
    gt_report_profile_coverage rows[GT_PROFILE_COUNT];
    size_t count = gt_report_claimed_coverage(run, info, rows);
    for (size_t i = 0; i < count; i++) {
        char name[64];
        snprintf(name, sizeof name, "coverage:%s", gt_profile_name(rows[i].profile));
        write_property(out, name, rows[i].text);
    }
}

static void gate_suite(FILE *out, const gt_run *run, const gt_report_info *info, gt_gate gate,
                       const junit_suite_head *head, const char *hostname)
{
    suite_open(out, run, head, hostname);
    run_properties(out, run, info);
    for (size_t i = 0; i < run->count; i++) {
        const gt_case *kase = run->results[i].kase;
        if (gt_gate_from_name(kase->input.gate) != (int)gate || run->results[i].outcome == GT_OUTCOME_NOT_APPLICABLE)
            continue;
        char name[512], where[32];
        snprintf(name, sizeof name, "location:%s", kase->input.id);
        snprintf(where, sizeof where, ":%u", kase->line);
        fputs("      <property", out);
        write_attr(out, "name", name);
        fputs(" value=\"", out);
        gt_report_xml_text(out, kase->file, true);
        fprintf(out, "%s\"/>\n", where);
    }
    fputs("    </properties>\n", out);
    for (size_t i = 0; i < run->count; i++)
        if (gt_gate_from_name(run->results[i].kase->input.gate) == (int)gate &&
            run->results[i].outcome != GT_OUTCOME_NOT_APPLICABLE)
            write_case(out, &run->results[i]);
    suite_close(out, run, info, (int)gate);
}

static void problem_suite(FILE *out, const gt_run *run, const gt_report_info *info, const junit_suite_head *head,
                          const char *hostname)
{
    suite_open(out, run, head, hostname);
    run_properties(out, run, info);
    fputs("    </properties>\n", out);
    for (size_t i = 0; i < head->tests; i++) {
        const gt_load_problem *problem = gt_report_problem(run, info, i);
        char where[64];
        snprintf(where, sizeof where, ":%u", problem->line);
        fputs("    <testcase name=\"", out);
        gt_report_xml_text(out, problem->file, true);
        gt_report_xml_text(out, where, true);
        if (problem->field[0] != '\0') {
            fputc(' ', out);
            gt_report_xml_text(out, problem->field, true);
        }
        fputs("\" classname=\"gauntlet.corpus\" time=\"0\">\n      <error type=\"load_problem\"", out);
        write_attr(out, "message", problem->message);
        fputc('>', out);
        gt_report_xml_text(out, problem->file, false);
        fputs(where, out);
        fputs(": ", out);
        gt_report_xml_text(out, problem->field, false);
        fputs(": ", out);
        gt_report_xml_text(out, problem->message, false);
        fputs("</error>\n    </testcase>\n", out);
    }
    suite_close(out, run, info, GT_GATE_COUNT);
}

int gt_report_junit(FILE *out, const gt_run *run, const gt_report_info *info)
{
    gt_run_counts counts[GT_GATE_COUNT + 1];
    gt_run_count(run, counts);
    size_t problems = gt_report_problem_count(run, info);
    char hostname[256];
    junit_hostname(hostname, sizeof hostname);

    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n", out);
    unsigned suite_id = 0;
    for (int gate = 0; gate < GT_GATE_COUNT; gate++) {
        const gt_run_counts *row = &counts[gate];
        if (row->cases == 0)
            continue;
        junit_suite_head head = {
            gt_gate_name((gt_gate)gate), suite_id++, row->cases, row->fail, row->error, row->skip, 0};
        for (size_t i = 0; i < run->count; i++)
            if (gt_gate_from_name(run->results[i].kase->input.gate) == gate &&
                run->results[i].outcome != GT_OUTCOME_NOT_APPLICABLE)
                head.seconds += run->results[i].elapsed_ms / 1000.0;
        gate_suite(out, run, info, (gt_gate)gate, &head, hostname);
    }
    if (problems > 0) {
        junit_suite_head head = {"corpus", suite_id++, problems, 0, problems, 0, 0};
        problem_suite(out, run, info, &head, hostname);
    }
    fputs("</testsuites>\n", out);
    fflush(out);
    return ferror(out) ? -1 : 0;
}
