/* verdicts.c — the verdict classes and the not-applicable cases as every
 * report writer shows them: the order failures are grouped in, what each
 * class means, the other-reason passes, the not-applicable cases counted by
 * profile and the skips grouped by reason.
 *
 * One source so that JUnit, TAP, Markdown and HTML say the same thing in the
 * same order as the console and the JSON report (docs/ci.md#verdict-classes).
 * Not for: computing a class (runner/result.c) or coverage (certify.c). */
#include <stdio.h>
#include <string.h>

#include "report_util.h"

const gt_class gt_report_failure_groups[GT_REPORT_FAILURE_GROUPS] = {
    GT_CLASS_UNSAFE, GT_CLASS_REFUSED_VALID, GT_CLASS_FIGURES, GT_CLASS_OTHER_REASON, GT_CLASS_ERROR};

const char *gt_report_class_meaning(gt_class verdict_class)
{
    switch (verdict_class) {
    case GT_CLASS_PASS: return "the verdict and everything the case asserts agree";
    case GT_CLASS_UNSAFE: return "accepted what must be refused, or returned an object the reference would not";
    case GT_CLASS_REFUSED_VALID: return "refused what is valid, or returned no object where one survives";
    case GT_CLASS_FIGURES: return "verdict right; the gate, attempts, accounting, subtype or produced output differ";
    case GT_CLASS_OTHER_REASON: return "verdict and gate right; another reason code, error set or message";
    case GT_CLASS_ERROR: return "the target gave no usable answer (crash, timeout, protocol error)";
    case GT_CLASS_SKIP: return "the target cannot express the case (a capability it does not declare)";
    case GT_CLASS_NOT_APPLICABLE: return "in no profile the target claims: never sent";
    case GT_CLASS_COUNT: break;
    }
    return "";
}

bool gt_report_other_reason_pass(const gt_case_result *result)
{
    return result->outcome == GT_OUTCOME_PASS && gt_case_result_class(result) == GT_CLASS_OTHER_REASON;
}

bool gt_report_in_failure_group(const gt_case_result *result, gt_class group)
{
    if (result->outcome != GT_OUTCOME_FAIL && result->outcome != GT_OUTCOME_ERROR)
        return false;
    return gt_case_result_class(result) == group;
}

const char *gt_report_other_reason_rule(const gt_run *run)
{
    return gt_run_claims(run) & (1u << GT_PROFILE_REASONS) ? "failures: reasons is claimed"
                                                           : "passes: reasons is not claimed";
}

size_t gt_report_not_applicable_to_client(const gt_run *run)
{
    size_t count = 0;
    for (size_t i = 0; i < run->count; i++) {
        const gt_case_result *result = &run->results[i];
        if (result->outcome == GT_OUTCOME_NOT_APPLICABLE && result->kase != NULL &&
            (result->kase->profiles & gt_run_claims(run)))
            count++; /* in a claimed profile: the client, not the claim, put it out (a stream fault not streamed) */
    }
    return count;
}

char *gt_report_not_applicable_text(char *text, size_t len, const gt_run *run)
{
    size_t counts[GT_PROFILE_COUNT] = {0};
    for (size_t i = 0; i < run->count; i++) {
        const gt_case_result *result = &run->results[i];
        if (result->outcome != GT_OUTCOME_NOT_APPLICABLE || result->kase == NULL ||
            (result->kase->profiles & gt_run_claims(run)))
            continue;
        for (int p = 0; p < GT_PROFILE_COUNT; p++)
            if (result->kase->profiles & (1u << p))
                counts[p]++;
    }
    size_t used = 0;
    if (len > 0)
        text[0] = '\0';
    for (int p = 0; p < GT_PROFILE_COUNT; p++) {
        if (counts[p] == 0 || used >= len)
            continue;
        int n = snprintf(text + used, len - used, "%s%s %zu", used ? ", " : "", gt_profile_name((gt_profile)p),
                         counts[p]);
        used += n > 0 ? (size_t)n : 0;
    }
    size_t client = gt_report_not_applicable_to_client(run);
    if (client > 0 && used < len)
        snprintf(text + used, len - used, "%s%zu to this client: a stream fault it did not stream", used ? "; " : "",
                 client);
    return text;
}

static bool same_note(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

size_t gt_report_skip_group(const gt_run *run, size_t index)
{
    const gt_case_result *result = &run->results[index];
    if (result->outcome != GT_OUTCOME_SKIP)
        return 0;
    for (size_t j = 0; j < index; j++)
        if (run->results[j].outcome == GT_OUTCOME_SKIP && same_note(run->results[j].note, result->note))
            return 0;
    size_t count = 0;
    for (size_t j = index; j < run->count; j++)
        count += run->results[j].outcome == GT_OUTCOME_SKIP && same_note(run->results[j].note, result->note);
    return count;
}

size_t gt_report_skip_groups(const gt_run *run, gt_report_skip_reason *groups, size_t max)
{
    size_t count = 0;
    for (size_t i = 0; i < run->count; i++) {
        size_t cases = gt_report_skip_group(run, i);
        if (cases == 0)
            continue;
        if (count < max)
            groups[count] = (gt_report_skip_reason){run->results[i].note ? run->results[i].note : "", cases};
        count++;
    }
    return count;
}
