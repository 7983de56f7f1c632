/* certify.c — the figures of the certification summary, computed once from
 * a run for every writer: the corpus content hash, per-gate pass rates,
 * attempt-accounting totals and the implementation's name and version.
 * Not for: formatting them (console.c, json.c, markdown.c, html.c). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "gauntlet/runner/report.h"
#include "report_util.h"

const char *const gt_report_accounting_names[6] = {"attempts_used",    "attempts_limit", "retracted",
                                                   "enforce_messages", "api_attempts",   "model_calls"};

int gt_report_accounting_figure(const gt_accounting *accounting, size_t i)
{
    switch (i) {
    case 0: return accounting->attempts_used;
    case 1: return accounting->attempts_limit;
    case 2: return accounting->retracted;
    case 3: return accounting->enforce_messages;
    case 4: return accounting->api_attempts;
    case 5: return accounting->model_calls;
    }
    return -1;
}

static bool accounting_given(const gt_accounting *accounting)
{
    for (size_t i = 0; i < 6; i++)
        if (gt_report_accounting_figure(accounting, i) >= 0)
            return true;
    return false;
}

bool gt_report_has_accounting(const gt_case_result *result)
{
    if (result->outcome == GT_OUTCOME_SKIP || result->outcome == GT_OUTCOME_NOT_APPLICABLE)
        return false; /* the target does not implement the layer or claim the case: nothing to compare */
    return result->kase->expect.accounting_given || accounting_given(&result->kase->expect.accounting);
}

bool gt_report_figure_differs(const gt_case_result *result, size_t f)
{
    int want = gt_report_accounting_figure(&result->kase->expect.accounting, f);
    int got = gt_report_accounting_figure(&result->observed.accounting, f);
    if (want < 0)
        return false; /* not given */
    if (!result->observed.has_accounting)
        return true; /* reported none */
    if (got < 0)
        return !result->observed.black_box; /* a black box cannot observe it; any other target left it out */
    return want != got;
}

void gt_report_accounting_sum(const gt_run *run, gt_report_accounting_totals *totals)
{
    memset(totals, 0, sizeof *totals);
    for (size_t i = 0; i < run->count; i++) {
        const gt_case_result *result = &run->results[i];
        const gt_accounting *want = &result->kase->expect.accounting;
        if (!gt_report_has_accounting(result))
            continue;
        totals->cases++;
        for (size_t f = 0; f < 6; f++)
            if (gt_report_accounting_figure(want, f) >= 0)
                totals->expected[f] += gt_report_accounting_figure(want, f);
        if (!result->observed.has_accounting) {
            totals->missing++;
            continue;
        }
        bool equal = true;
        for (size_t f = 0; f < 6; f++) {
            int observed = gt_report_accounting_figure(&result->observed.accounting, f);
            if (gt_report_accounting_figure(want, f) >= 0 && observed >= 0)
                totals->observed[f] += observed;
            equal = equal && !gt_report_figure_differs(result, f);
        }
        if (equal)
            totals->matched++;
        else
            totals->mismatched++;
    }
}

bool gt_report_figures_judged(const gt_run *run)
{
    return (gt_run_claims(run) & ((1u << GT_PROFILE_CLAUDE_CODE) | (1u << GT_PROFILE_REPAIR_LOOP))) != 0;
}

double gt_report_pass_rate(const gt_run_counts *row)
{
    size_t judged = row->cases - row->skip;
    return judged == 0 ? -1.0 : (double)row->pass / (double)judged;
}

void gt_report_rate_text(char *text, size_t len, const gt_run_counts *row)
{
    double rate = gt_report_pass_rate(row);
    if (rate < 0)
        snprintf(text, len, "n/a (%zu case%s)", row->cases, row->cases == 1 ? "" : "s");
    else
        snprintf(text, len, "%.2f%% (%zu/%zu)", rate * 100.0, row->pass, row->cases - row->skip);
}

void gt_report_tier_rates(const gt_run *run, char required[64], char optional[64])
{
    gt_run_counts tiers[GT_TIER_COUNT];
    gt_run_count_tiers(run, tiers);
    gt_report_rate_text(required, 64, &tiers[GT_TIER_REQUIRED]);
    gt_report_rate_text(optional, 64, &tiers[GT_TIER_OPTIONAL]);
}

void gt_report_split_name(const char *target_name, char *name, size_t name_len, char *version, size_t version_len)
{
    name[0] = version[0] = '\0';
    if (target_name == NULL)
        return;
    const char *space = strrchr(target_name, ' ');
    const char *last = space ? space + 1 : NULL;
    bool versioned = last != NULL && (isdigit((unsigned char)last[0]) ||
                                      (last[0] == 'v' && isdigit((unsigned char)last[1])));
    if (!versioned) {
        snprintf(name, name_len, "%s", target_name);
        return;
    }
    snprintf(name, name_len, "%.*s", (int)(space - target_name), target_name);
    snprintf(version, version_len, "%s", last);
}

void gt_report_count_profiles(const gt_corpus *corpus, gt_report_info *info)
{
    memset(info->required_by_profiles, 0, sizeof info->required_by_profiles);
    for (size_t i = 0; i < gt_corpus_count(corpus); i++) {
        const gt_case *kase = gt_corpus_case(corpus, i);
        if (kase->tier == GT_TIER_REQUIRED)
            info->required_by_profiles[kase->profiles & GT_PROFILES_ALL]++;
    }
    info->profiles_known = true;
}

void gt_report_coverage_of(const gt_run *run, const gt_report_info *info, unsigned mask, gt_report_coverage *out)
{
    memset(out, 0, sizeof *out);
    size_t in_run = 0;
    for (size_t i = 0; i < run->count; i++) {
        const gt_case_result *result = &run->results[i];
        if (result->kase == NULL || result->kase->tier != GT_TIER_REQUIRED || !(result->kase->profiles & mask))
            continue;
        in_run++;
        switch (result->outcome) {
        case GT_OUTCOME_PASS: out->ran++, out->passed++; break;
        case GT_OUTCOME_FAIL: out->ran++; break;
        case GT_OUTCOME_ERROR: out->errors++; break;
        case GT_OUTCOME_SKIP: out->skipped++; break;
        case GT_OUTCOME_NOT_APPLICABLE: out->not_applicable++; break;
        }
    }
    out->held = in_run;
    if (info != NULL && info->profiles_known) {
        size_t held = 0;
        for (unsigned m = 0; m < (1u << GT_PROFILE_COUNT); m++)
            if (m & mask)
                held += info->required_by_profiles[m];
        if (held > out->held)
            out->held = held; /* filtered out or another shard's: held, not run */
    }
}

size_t gt_report_claimed_coverage(const gt_run *run, const gt_report_info *info,
                                  gt_report_profile_coverage rows[GT_PROFILE_COUNT])
{
    size_t count = 0;
    for (int p = 0; p < GT_PROFILE_COUNT; p++) {
        if (!(gt_run_claims(run) & (1u << p)))
            continue;
        gt_report_profile_coverage *row = &rows[count];
        gt_report_coverage_of(run, info, 1u << p, &row->coverage);
        if (row->coverage.held == 0)
            continue; /* no required case in this profile (reasons: its cases are optional) */
        row->profile = (gt_profile)p;
        row->low = gt_report_coverage_share(&row->coverage) < GT_REPORT_BADGE_MIN_COVERAGE;
        gt_report_coverage_text(row->text, sizeof row->text, gt_profile_name((gt_profile)p), &row->coverage);
        if (row->coverage.skipped + row->coverage.errors > 0) {
            char skipped[32], errors[32];
            size_t used = strlen(row->text);
            snprintf(row->text + used, sizeof row->text - used, "; %s skipped, %s error",
                     gt_report_thousands(skipped, sizeof skipped, row->coverage.skipped),
                     gt_report_thousands(errors, sizeof errors, row->coverage.errors));
        }
        if (row->coverage.not_applicable > 0) {
            char na[32];
            size_t used = strlen(row->text);
            snprintf(row->text + used, sizeof row->text - used, "; %s not applicable to this client",
                     gt_report_thousands(na, sizeof na, row->coverage.not_applicable));
        }
        size_t selected =
            row->coverage.ran + row->coverage.skipped + row->coverage.errors + row->coverage.not_applicable;
        if (row->coverage.held > selected) {
            /* held in the loaded corpus but not in this run: say why it did not run */
            char unselected[32];
            size_t used = strlen(row->text);
            snprintf(row->text + used, sizeof row->text - used, "; %s not selected (a filter or another shard)",
                     gt_report_thousands(unselected, sizeof unselected, row->coverage.held - selected));
        }
        count++;
    }
    return count;
}

double gt_report_coverage_share(const gt_report_coverage *coverage)
{
    return coverage->held == 0 ? 0.0 : (double)coverage->ran / (double)coverage->held;
}

char *gt_report_thousands(char *text, size_t len, size_t value)
{
    char digits[32];
    int n = snprintf(digits, sizeof digits, "%zu", value);
    size_t used = 0;
    for (int i = 0; i < n && used + 2 < len; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            text[used++] = ',';
        text[used++] = digits[i];
    }
    if (len > 0)
        text[used < len ? used : len - 1] = '\0';
    return text;
}

void gt_report_coverage_text(char *text, size_t len, const char *profile, const gt_report_coverage *coverage)
{
    char ran[32], held[32], passed[32];
    double share = gt_report_coverage_share(coverage) * 100.0;
    /* floored to one decimal: 99.96% of a profile is not shown as 100% */
    share = (double)(long long)(share * 10.0) / 10.0;
    snprintf(text, len, "%s: %s of %s required cases ran (%.1f%%), %s passed", profile,
             gt_report_thousands(ran, sizeof ran, coverage->ran), gt_report_thousands(held, sizeof held, coverage->held),
             share, gt_report_thousands(passed, sizeof passed, coverage->passed));
}

bool gt_report_certified(const gt_run *run, const gt_report_info *info, char *why, size_t len)
{
    gt_report_coverage c;
    gt_report_coverage_of(run, info, gt_run_claims(run), &c);
    /* a case the client cannot be played (a stream fault to a client that does
     * not stream) is neither held against it nor counted as judged */
    size_t judged = c.held - c.not_applicable;
    char held[32], n[32], apart[96] = "";
    gt_report_thousands(held, sizeof held, judged);
    if (c.not_applicable > 0)
        snprintf(apart, sizeof apart, "; %zu more not applicable to this client", c.not_applicable);
    if (judged == 0) {
        snprintf(why, len, "not certified: the claimed profiles hold no required case%s", apart);
        return false;
    }
    if (c.passed == judged) {
        char cases[32];
        gt_report_thousands(cases, sizeof cases, info != NULL && info->corpus_cases ? info->corpus_cases : run->count);
        snprintf(why, len, "certified: all %s required cases of the claimed profiles in this corpus (%s cases) ran and "
                 "passed%s", held, cases, apart);
        return true;
    }
    size_t not_run = judged - c.ran - c.errors; /* skipped, filtered out or another shard's */
    snprintf(why, len,
             "not certified: %s of %s required cases did not pass (%zu failed, %zu error%s, %zu skipped or not run)%s",
             gt_report_thousands(n, sizeof n, judged - c.passed), held, c.ran - c.passed, c.errors,
             c.errors == 1 ? "" : "s", not_run, apart);
    return false;
}

/* Each field is hashed with its length first, so no two different corpora
 * produce the same byte stream. */
static void hash_field(gt_sha256 *sha, const void *data, size_t len)
{
    unsigned char prefix[8];
    for (int i = 0; i < 8; i++)
        prefix[i] = (unsigned char)((uint64_t)len >> (56 - 8 * i));
    gt_sha256_update(sha, prefix, sizeof prefix);
    if (len > 0)
        gt_sha256_update(sha, data, len);
}

static void hash_text(gt_sha256 *sha, const char *text)
{
    if (text == NULL)
        gt_sha256_update(sha, "\xff", 1); /* absent differs from empty */
    else
        hash_field(sha, text, strlen(text));
}

void gt_report_corpus_hash(const gt_corpus *corpus, char hex[65])
{
    gt_sha256 sha;
    gt_sha256_init(&sha);
    gt_sha256_update(&sha, GT_CORPUS_FORMAT, strlen(GT_CORPUS_FORMAT));
    for (size_t i = 0; i < gt_corpus_count(corpus); i++) {
        const gt_case *kase = gt_corpus_case(corpus, i);
        hash_text(&sha, kase->input.id);
        hash_text(&sha, kase->input.case_json);
        hash_text(&sha, kase->input.schema_json);
        hash_text(&sha, kase->expect.expect_json);
        if (kase->input.raw == NULL)
            gt_sha256_update(&sha, "\xff", 1);
        else
            hash_field(&sha, kase->input.raw, kase->input.raw_len);
    }
    gt_sha256_hex(&sha, hex);
}
