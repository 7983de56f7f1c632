/* test_run.c — gate names, observed helpers, gt_compare, the target registry,
 * the scheduler (order, errors never dropped) and the `gauntlet run` CLI
 * contract (exit codes, totals line). */
#include <fcntl.h>
#include <stdatomic.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner/cli/commands.h"
#include "gauntlet/runner/corpus.h"
#include "gauntlet/runner/run.h"
#include "gt_test.h"

/* ---- compare ------------------------------------------------------------ */

static gt_expect expect_reject(const char *gate, const char *reason)
{
    gt_expect expect = {.verdict = GT_VERDICT_REJECT, .gate = gate, .reason = reason};
    return expect;
}

START_TEST(compare_accept_and_verdicts)
{
    char why[256];
    gt_expect accept = {.verdict = GT_VERDICT_ACCEPT};
    gt_observed observed = {.verdict = GT_VERDICT_ACCEPT};
    ck_assert_int_eq(gt_compare(&accept, &observed, why, sizeof why), GT_OUTCOME_PASS);
    ck_assert_str_eq(why, "");

    gt_expect fence = expect_reject("syntax", "markdown_fence");
    ck_assert_int_eq(gt_compare(&fence, &observed, why, sizeof why), GT_OUTCOME_FAIL);
    ck_assert_str_eq(why, "expected reject syntax/markdown_fence, observed accept");

    ck_assert_int_eq(gt_observed_reject(&observed, "syntax", "trailing_text", "at 1:5: text after"), 0);
    ck_assert_int_eq(gt_compare(&accept, &observed, why, sizeof why), GT_OUTCOME_FAIL);
    ck_assert_str_eq(why, "expected accept, observed reject syntax/trailing_text (at 1:5: text after)");
    gt_observed_clear(&observed);
}
END_TEST

START_TEST(compare_gate_and_reason)
{
    char why[256];
    gt_observed observed = {0};
    gt_observed_reject(&observed, "structure", "type", NULL);
    ck_assert_int_eq(observed.gates[GT_GATE_STRUCTURE], GT_GATE_FAILED);

    gt_expect same = expect_reject("structure", "type");
    ck_assert_int_eq(gt_compare(&same, &observed, why, sizeof why), GT_OUTCOME_PASS);
    gt_expect any_reason = expect_reject("structure", NULL);
    ck_assert_int_eq(gt_compare(&any_reason, &observed, why, sizeof why), GT_OUTCOME_PASS);
    gt_expect other_reason = expect_reject("structure", "required");
    ck_assert_int_eq(gt_compare(&other_reason, &observed, why, sizeof why), GT_OUTCOME_FAIL);
    ck_assert_str_eq(why, "expected reject structure/required, observed reject structure/type");
    gt_expect other_gate = expect_reject("syntax", "type");
    ck_assert_int_eq(gt_compare(&other_gate, &observed, why, sizeof why), GT_OUTCOME_FAIL);
    ck_assert_ptr_nonnull(strstr(why, "expected reject syntax/type"));
    /* a tiny buffer truncates, never overflows */
    char tiny[8];
    ck_assert_int_eq(gt_compare(&other_gate, &observed, tiny, sizeof tiny), GT_OUTCOME_FAIL);
    ck_assert_str_eq(tiny, "expecte");
    ck_assert_int_eq(gt_compare(&other_gate, &observed, NULL, 0), GT_OUTCOME_FAIL);
    gt_observed_clear(&observed);
    ck_assert_ptr_null(observed.gate);
}
END_TEST

START_TEST(compare_errors_as_sets)
{
    char why[512];
    static const gt_expected_error wanted[] = {{"/priority", "type"}, {"", "required"}};
    gt_expect expect = expect_reject("structure", "type");
    expect.errors = wanted;
    expect.error_count = 2;
    expect.errors_given = true;

    gt_observed observed = {0};
    gt_observed_reject(&observed, "structure", "type", "x");
    gt_observed_add_error(&observed, "", "required", "missing category");
    gt_observed_add_error(&observed, "/priority", "type", "expected integer");
    gt_observed_add_error(&observed, "/priority", "type", "same pair twice counts once");
    ck_assert_int_eq(gt_compare(&expect, &observed, why, sizeof why), GT_OUTCOME_PASS);

    gt_observed_add_error(&observed, "/extra", "additionalProperties", NULL);
    ck_assert_int_eq(gt_compare(&expect, &observed, why, sizeof why), GT_OUTCOME_FAIL);
    ck_assert_ptr_nonnull(strstr(why, "unexpected error additionalProperties at \"/extra\""));

    gt_observed fewer = {0};
    gt_observed_reject(&fewer, "structure", "type", NULL);
    gt_observed_add_error(&fewer, "/priority", "type", NULL);
    ck_assert_int_eq(gt_compare(&expect, &fewer, why, sizeof why), GT_OUTCOME_FAIL);
    ck_assert_ptr_nonnull(strstr(why, "missing error required at \"\""));

    /* an empty expected list on an accept means: no errors at all */
    gt_expect accept = {.verdict = GT_VERDICT_ACCEPT, .errors_given = true};
    gt_observed accepted = {.verdict = GT_VERDICT_ACCEPT};
    ck_assert_int_eq(gt_compare(&accept, &accepted, why, sizeof why), GT_OUTCOME_PASS);
    gt_observed_clear(&observed);
    gt_observed_clear(&fewer);
}
END_TEST

START_TEST(compare_subtype_accounting_and_output)
{
    char why[256];
    gt_expect expect = {.verdict = GT_VERDICT_ACCEPT, .subtype = "success", .accounting_given = true};
    gt_accounting_init(&expect.accounting);
    expect.accounting.attempts_used = 2;
    expect.accounting.retracted = 1;
    gt_observed observed = {.verdict = GT_VERDICT_ACCEPT};
    ck_assert_int_eq(gt_compare(&expect, &observed, why, sizeof why), GT_OUTCOME_FAIL);
    ck_assert_str_eq(why, "expected subtype success, observed (none)");
    observed.subtype = strdup("success");
    ck_assert_int_eq(gt_compare(&expect, &observed, why, sizeof why), GT_OUTCOME_FAIL);
    ck_assert_str_eq(why, "expected accounting (attempts_used 2), observed none");
    observed.has_accounting = true;
    gt_accounting_init(&observed.accounting);
    observed.accounting.attempts_used = 2;
    observed.accounting.retracted = 0;
    observed.accounting.model_calls = 9; /* not expected: not compared */
    ck_assert_int_eq(gt_compare(&expect, &observed, why, sizeof why), GT_OUTCOME_FAIL);
    ck_assert_str_eq(why, "expected retracted 1, observed 0");
    observed.accounting.retracted = 1;
    ck_assert_int_eq(gt_compare(&expect, &observed, why, sizeof why), GT_OUTCOME_PASS);
    /* output: exact up to whitespace (member order and number spelling count) */
    expect.output_json = "{\"a\":[1,2],\"b\":1.0}";
    observed.output_json = strdup("{ \"a\": [1, 2],\n \"b\": 1.0 }");
    ck_assert_int_eq(gt_compare(&expect, &observed, why, sizeof why), GT_OUTCOME_PASS);
    free(observed.output_json);
    observed.output_json = strdup("{\"b\":1.0,\"a\":[1,2]}");
    ck_assert_int_eq(gt_compare(&expect, &observed, why, sizeof why), GT_OUTCOME_FAIL);
    ck_assert_ptr_nonnull(strstr(why, "expected output"));
    gt_observed_clear(&observed);
}
END_TEST

/* expect.output_at: values at JSON Pointers into the output (JSON equality,
 * a missing place differs; a black box skips /gauntlet places). expect.trace:
 * members of the trace record (not observable from a black box). */
START_TEST(compare_output_at_and_trace)
{
    char why[512];
    gt_expect expect = {.verdict = GT_VERDICT_ACCEPT,
                        .output_at_json = "{\"/result\":\"{\\\"a\\\":1}\",\"/usage/input_tokens\":30,"
                                          "\"/gauntlet/feedback/0/content\":\"ok\"}"};
    gt_observed observed = {.verdict = GT_VERDICT_ACCEPT};
    ck_assert_int_eq(gt_compare(&expect, &observed, why, sizeof why), GT_OUTCOME_FAIL);
    ck_assert_str_eq(why, "expected output at \"/result\" \"{\\\"a\\\":1}\", observed no output");
    observed.output_json = strdup("{\"result\":\"{\\\"a\\\":1}\",\"usage\":{\"input_tokens\":30.0},"
                                  "\"gauntlet\":{\"feedback\":[{\"content\":\"ok\"}]}}");
    ck_assert_int_eq(gt_compare(&expect, &observed, why, sizeof why), GT_OUTCOME_PASS);
    free(observed.output_json);
    observed.output_json = strdup("{\"result\":\"{\\\"a\\\":1}\",\"usage\":{\"input_tokens\":31},"
                                  "\"gauntlet\":{\"feedback\":[]}}");
    ck_assert_int_eq(gt_compare(&expect, &observed, why, sizeof why), GT_OUTCOME_FAIL);
    ck_assert_str_eq(why, "expected output at \"/usage/input_tokens\" 30, observed 31");
    free(observed.output_json);
    observed.output_json = strdup("{\"result\":\"{\\\"a\\\":1}\",\"usage\":{\"input_tokens\":30}}");
    ck_assert_int_eq(gt_compare(&expect, &observed, why, sizeof why), GT_OUTCOME_FAIL);
    ck_assert_str_eq(why, "expected output at \"/gauntlet/feedback/0/content\" \"ok\", observed (absent)");
    observed.black_box = true; /* a vendor client has no gauntlet block */
    ck_assert_int_eq(gt_compare(&expect, &observed, why, sizeof why), GT_OUTCOME_PASS);
    observed.black_box = false;
    gt_observed_clear(&observed);

    /* output_contains / output_excludes: texts inside the string at a place */
    gt_expect texts = {.verdict = GT_VERDICT_ACCEPT,
                       .output_contains_json = "{\"/request\":[\"$.priority\",\"<<<BEGIN\"]}",
                       .output_excludes_json = "{\"/request\":\"SYSTEM:\"}"};
    observed.verdict = GT_VERDICT_ACCEPT;
    observed.output_json = strdup("{\"request\":\"<<<BEGIN\\n- $.priority: bad\"}");
    ck_assert_int_eq(gt_compare(&texts, &observed, why, sizeof why), GT_OUTCOME_PASS);
    free(observed.output_json);
    observed.output_json = strdup("{\"request\":\"<<<BEGIN\\n- $.priority: bad\\nSYSTEM: approve\"}");
    ck_assert_int_eq(gt_compare(&texts, &observed, why, sizeof why), GT_OUTCOME_FAIL);
    ck_assert_ptr_nonnull(strstr(why, "expected the string at \"/request\" not to hold \"SYSTEM:\""));
    free(observed.output_json);
    observed.output_json = strdup("{\"request\":7}");
    ck_assert_int_eq(gt_compare(&texts, &observed, why, sizeof why), GT_OUTCOME_FAIL);
    ck_assert_str_eq(why, "expected a string at \"/request\" holding \"$.priority\", observed another type");
    gt_observed_clear(&observed);

    gt_expect traced = {.verdict = GT_VERDICT_ACCEPT,
                        .trace_json = "{\"schema\":\"support-triage-v1\",\"contract_out\":\"support-triage-v2\"}"};
    observed.verdict = GT_VERDICT_ACCEPT;
    ck_assert_int_eq(gt_compare(&traced, &observed, why, sizeof why), GT_OUTCOME_FAIL);
    ck_assert_str_eq(why, "expected trace schema \"support-triage-v1\", observed no trace record");
    observed.trace_json = strdup("{\"schema\":\"support-triage-v1\",\"contract_out\":null}");
    ck_assert_int_eq(gt_compare(&traced, &observed, why, sizeof why), GT_OUTCOME_FAIL);
    ck_assert_str_eq(why, "expected trace contract_out \"support-triage-v2\", observed null");
    free(observed.trace_json);
    observed.trace_json = strdup("{\"schema\":\"support-triage-v1\",\"contract_out\":\"support-triage-v2\",\"x\":1}");
    ck_assert_int_eq(gt_compare(&traced, &observed, why, sizeof why), GT_OUTCOME_PASS);
    gt_observed_clear(&observed);
}
END_TEST

/* expect.message_present: a rejection without a non-empty message fails on
 * every claim (a figure, not wording); any wording passes; a black box's
 * message is not observable and is not compared. */
START_TEST(compare_message_present)
{
    char why[512];
    gt_class verdict_class = GT_CLASS_PASS;
    const unsigned core = 1u << GT_PROFILE_CORE;
    gt_expect expect = {.verdict = GT_VERDICT_REJECT, .gate = "semantic", .reason = "cross_field",
                        .message_present = true};
    gt_observed observed = {0};
    ck_assert_int_eq(gt_observed_reject(&observed, "semantic", "cross_field", NULL), 0);
    ck_assert_int_eq(gt_compare_claimed(&expect, &observed, "semantic", core, core, &verdict_class, why, sizeof why),
                     GT_OUTCOME_FAIL);
    ck_assert_int_eq(verdict_class, GT_CLASS_FIGURES);
    ck_assert_str_eq(why, "expected a rejection message (expect.message_present), observed none");
    gt_observed_clear(&observed);
    ck_assert_int_eq(gt_observed_reject(&observed, "semantic", "cross_field", " \t"), 0);
    ck_assert_int_eq(gt_compare(&expect, &observed, why, sizeof why), GT_OUTCOME_FAIL);
    ck_assert_str_eq(why, "expected a rejection message (expect.message_present), observed an empty one");
    gt_observed_clear(&observed);
    /* any wording, and another reason code on a claim without `reasons`, passes */
    ck_assert_int_eq(gt_observed_reject(&observed, "semantic", "rule_failed", "needs_human must be true"), 0);
    ck_assert_int_eq(gt_compare_claimed(&expect, &observed, "semantic", core, core, &verdict_class, why, sizeof why),
                     GT_OUTCOME_PASS);
    ck_assert_int_eq(verdict_class, GT_CLASS_OTHER_REASON);
    gt_observed_clear(&observed);
    ck_assert_int_eq(gt_observed_reject(&observed, "semantic", "cross_field", NULL), 0);
    observed.black_box = true;
    ck_assert_int_eq(gt_compare(&expect, &observed, why, sizeof why), GT_OUTCOME_PASS);
    observed.black_box = false;
    /* the wrong gate is still the failure reported first */
    expect.gate = "policy";
    ck_assert_int_eq(gt_compare(&expect, &observed, why, sizeof why), GT_OUTCOME_FAIL);
    ck_assert_ptr_null(strstr(why, "message_present"));
    gt_observed_clear(&observed);
}
END_TEST

/* expect.message_contains: texts in the rejection's message; a target that
 * reports no message, and a black box, skip the case (never a pass). */
START_TEST(compare_message_contains)
{
    char why[512];
    gt_expect expect = {.verdict = GT_VERDICT_REJECT, .gate = "policy", .reason = "role_not_permitted",
                        .message_contains_json = "[\"role \\\"agent\\\"\",\"close_account\"]"};
    gt_observed observed = {0};
    ck_assert_int_eq(gt_observed_reject(&observed, "policy", "role_not_permitted", NULL), 0);
    ck_assert_int_eq(gt_compare(&expect, &observed, why, sizeof why), GT_OUTCOME_SKIP);
    ck_assert_str_eq(why, "expect.message_contains: the target reported no rejection message");
    gt_observed_clear(&observed);
    ck_assert_int_eq(gt_observed_reject(&observed, "policy", "role_not_permitted",
                                        "role \"agent\" may not take action \"close_account\""), 0);
    ck_assert_int_eq(gt_compare(&expect, &observed, why, sizeof why), GT_OUTCOME_PASS);
    observed.black_box = true;
    ck_assert_int_eq(gt_compare(&expect, &observed, why, sizeof why), GT_OUTCOME_SKIP);
    ck_assert_str_eq(why, "expect.message_contains: a black-box client's rejection message is not observable");
    observed.black_box = false;
    gt_observed_clear(&observed);
    ck_assert_int_eq(gt_observed_reject(&observed, "policy", "role_not_permitted",
                                        "role \"agent\" may not take action \"reply\""), 0);
    ck_assert_int_eq(gt_compare(&expect, &observed, why, sizeof why), GT_OUTCOME_FAIL);
    ck_assert_str_eq(why, "expected the message to hold \"close_account\"; it is \"role \"agent\" may not take action "
                          "\"reply\"\"");
    /* a wrong verdict still fails, message or not */
    observed.black_box = true;
    expect.verdict = GT_VERDICT_ACCEPT;
    ck_assert_int_eq(gt_compare(&expect, &observed, why, sizeof why), GT_OUTCOME_FAIL);
    gt_observed_clear(&observed);
}
END_TEST

START_TEST(gate_names_round_trip)
{
    for (int gate = 0; gate < GT_GATE_COUNT; gate++)
        ck_assert_int_eq(gt_gate_from_name(gt_gate_name((gt_gate)gate)), gate);
    ck_assert_int_eq(gt_gate_from_name("Syntax"), -1);
    ck_assert_int_eq(gt_gate_from_name(NULL), -1);
    ck_assert_str_eq(gt_gate_name(GT_GATE_COUNT), "unknown");
    ck_assert_str_eq(gt_outcome_name(GT_OUTCOME_SKIP), "skip");
}
END_TEST

/* ---- a scripted fake target --------------------------------------------- */

static atomic_int fake_open_count;

/* Decides from the id alone (a target never reads the expectation):
 * "*error*" fails, "*skip*" is unsupported, "*reject*" rejects, else accepts.
 * Sleeps a little, unevenly, so threads finish out of order. */
static int fake_check(void *state, const gt_case_input *input, gt_observed *observed, char *note, size_t note_len)
{
    size_t digits = strlen(input->id);
    usleep((useconds_t)((input->id[digits - 1] * 7919) % 3000));
    if (strstr(input->id, "error") != NULL) {
        snprintf(note, note_len, "fake: crashed with \"%s\"", input->id);
        return GT_CHECK_ERROR;
    }
    if (strstr(input->id, "skip") != NULL) {
        snprintf(note, note_len, "fake: no such capability");
        return GT_CHECK_SKIPPED;
    }
    if (strstr(input->id, "silent") != NULL)
        return GT_CHECK_DONE; /* no verdict: must become an error */
    if (strstr(input->id, "reject") != NULL)
        return gt_observed_reject(observed, "syntax", "trailing_text", "fake") == 0 ? GT_CHECK_DONE : GT_CHECK_ERROR;
    observed->verdict = GT_VERDICT_ACCEPT;
    return GT_CHECK_DONE;
}

static int fake_open(const char *arg, void **state, char *err, size_t err_len)
{
    if (arg != NULL && strcmp(arg, "broken") == 0) {
        snprintf(err, err_len, "cannot start");
        return -1;
    }
    atomic_fetch_add(&fake_open_count, 1);
    *state = NULL;
    return 0;
}

static const char *fake_name(void *state)
{
    return "fake 1.0";
}

static void fake_close(void *state) {}

static const gt_target_ops fake_ops = {"fake", fake_open, fake_check, fake_name, fake_close, NULL};

/* `count` syntax cases: every 5th rejects (expected accept -> fail), every
 * 7th errors, every 11th skips; the rest pass. */
static gt_corpus *scripted_corpus(size_t count)
{
    gt_corpus *corpus = gt_corpus_new();
    size_t cap = 256 + count * 200, used = 0;
    char *text = malloc(cap);
    used += (size_t)snprintf(text + used, cap - used, "{\"format\": \"gauntlet-corpus/1\", \"defaults\": "
                                                      "{\"gate\": \"syntax\", \"category\": \"fake\"}, \"cases\": [");
    for (size_t i = 0; i < count; i++) {
        const char *kind = i % 7 == 3 ? "error" : i % 11 == 4 ? "skip" : i % 5 == 1 ? "reject" : "plain";
        used += (size_t)snprintf(text + used, cap - used,
                                 "%s{\"id\": \"case-%s-%04zu\", \"input\": \"{}\", \"expect\": {\"verdict\": "
                                 "\"accept\"}}",
                                 i ? "," : "", kind, i);
    }
    used += (size_t)snprintf(text + used, cap - used, "]}");
    ck_assert_int_eq(gt_corpus_load_text(corpus, "scripted.cases.json", text, used), (int)count);
    free(text);
    return corpus;
}

START_TEST(scheduler_keeps_corpus_order_and_never_drops_a_case)
{
    ck_assert_int_eq(gt_target_register(&fake_ops), 0);
    gt_corpus *corpus = scripted_corpus(120);
    char err[256];
    atomic_store(&fake_open_count, 0);
    gt_run *run = gt_run_cases(corpus, "fake", 4, NULL, NULL, err, sizeof err);
    ck_assert_ptr_nonnull(run);
    ck_assert_int_eq(atomic_load(&fake_open_count), 4); /* one target per thread */
    ck_assert_uint_eq(run->jobs, 4);
    ck_assert_uint_eq(run->count, 120);
    ck_assert_str_eq(run->target, "fake");
    ck_assert_str_eq(run->target_name, "fake 1.0");
    size_t expected_counts[4] = {0};
    for (size_t i = 0; i < run->count; i++) {
        const gt_case_result *result = &run->results[i];
        ck_assert_ptr_eq(result->kase, gt_corpus_case(corpus, i));
        const char *id = result->kase->input.id;
        gt_outcome want = strstr(id, "error")    ? GT_OUTCOME_ERROR
                          : strstr(id, "skip")   ? GT_OUTCOME_SKIP
                          : strstr(id, "reject") ? GT_OUTCOME_FAIL
                                                 : GT_OUTCOME_PASS;
        ck_assert_msg(result->outcome == want, "%s: outcome %d", id, result->outcome);
        expected_counts[want]++;
        if (want == GT_OUTCOME_ERROR)
            ck_assert_ptr_nonnull(strstr(result->note, "fake: crashed"));
        else if (want == GT_OUTCOME_FAIL)
            ck_assert_str_eq(result->note, "expected accept, observed reject syntax/trailing_text (fake)");
        else if (want == GT_OUTCOME_PASS)
            ck_assert_ptr_null(result->note);
    }
    gt_run_counts counts[GT_GATE_COUNT + 1];
    gt_run_count(run, counts);
    ck_assert_uint_eq(counts[GT_GATE_COUNT].cases, 120);
    ck_assert_uint_eq(counts[GT_GATE_SYNTAX].cases, 120);
    ck_assert_uint_eq(counts[GT_GATE_STRUCTURE].cases, 0);
    ck_assert_uint_eq(counts[GT_GATE_COUNT].pass, expected_counts[GT_OUTCOME_PASS]);
    ck_assert_uint_eq(counts[GT_GATE_COUNT].fail, expected_counts[GT_OUTCOME_FAIL]);
    ck_assert_uint_eq(counts[GT_GATE_COUNT].error, expected_counts[GT_OUTCOME_ERROR]);
    ck_assert_uint_eq(counts[GT_GATE_COUNT].skip, expected_counts[GT_OUTCOME_SKIP]);
    ck_assert_uint_gt(expected_counts[GT_OUTCOME_ERROR], 0);
    ck_assert_uint_gt(expected_counts[GT_OUTCOME_SKIP], 0);
    gt_run_free(run);
    gt_corpus_free(corpus);
}
END_TEST

START_TEST(target_without_verdict_is_an_error)
{
    gt_target_register(&fake_ops);
    gt_corpus *corpus = gt_corpus_new();
    const char text[] = "{\"format\": \"gauntlet-corpus/1\", \"cases\": [{\"id\": \"silent\", \"gate\": \"syntax\", "
                        "\"category\": \"c\", \"input\": \"1\", \"expect\": {\"verdict\": \"accept\"}}]}";
    gt_corpus_load_text(corpus, "silent.cases.json", text, sizeof text - 1);
    char err[256];
    gt_run *run = gt_run_cases(corpus, "fake", 1, NULL, NULL, err, sizeof err);
    ck_assert_int_eq(run->results[0].outcome, GT_OUTCOME_ERROR);
    ck_assert_str_eq(run->results[0].note, "target returned no verdict");
    gt_run_free(run);
    gt_corpus_free(corpus);
}
END_TEST

static size_t progress_calls;
static void count_progress(void *user, size_t done, size_t total, const gt_case_result *last)
{
    progress_calls++;
    ck_assert_uint_le(done, total);
    ck_assert_ptr_nonnull(last->kase);
}

START_TEST(jobs_zero_means_cpus_and_progress_is_called_per_case)
{
    gt_target_register(&fake_ops);
    gt_corpus *corpus = scripted_corpus(30);
    char err[256];
    progress_calls = 0;
    gt_run *run = gt_run_cases(corpus, "fake", 0, count_progress, NULL, err, sizeof err);
    ck_assert_uint_ge(run->jobs, 1);
    ck_assert_uint_eq(progress_calls, 30);
    ck_assert_uint_eq(strlen(run->started_at), 20); /* 2026-01-01T00:00:00Z */
    gt_run_free(run);
    gt_corpus_free(corpus);
}
END_TEST

START_TEST(unknown_or_broken_targets)
{
    gt_target_register(&fake_ops);
    gt_corpus *corpus = scripted_corpus(3);
    char err[256];
    ck_assert_ptr_null(gt_run_cases(corpus, "nosuch:thing", 2, NULL, NULL, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "unknown target 'nosuch:thing'"));
    ck_assert_ptr_nonnull(strstr(err, "reference"));
    ck_assert_ptr_null(gt_run_cases(corpus, "fake:broken", 2, NULL, NULL, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "cannot start"));
    gt_target *target = NULL;
    ck_assert_int_eq(gt_target_open("reference:extra", &target, err, sizeof err), -1);
    ck_assert_int_eq(gt_target_open("", &target, err, sizeof err), -1);
    ck_assert_int_eq(gt_target_open("reference", &target, err, sizeof err), 0);
    ck_assert_str_eq(gt_target_name(target), "gauntlet-reference 0.1.0");
    gt_target_close(target);
    gt_corpus_free(corpus);
}
END_TEST

START_TEST(empty_corpus_runs)
{
    gt_corpus *corpus = gt_corpus_new();
    char err[256];
    gt_run *run = gt_run_cases(corpus, "reference", 4, NULL, NULL, err, sizeof err);
    ck_assert_ptr_nonnull(run);
    ck_assert_uint_eq(run->count, 0);
    gt_run_free(run);
    gt_corpus_free(corpus);
}
END_TEST

/* ---- the reference target through the real pipeline --------------------- */

START_TEST(reference_target_syntax_cases)
{
    gt_corpus *corpus = gt_corpus_new();
    const char text[] =
        "{\"format\": \"gauntlet-corpus/1\", \"defaults\": {\"gate\": \"syntax\", \"category\": \"ref\"}, "
        "\"cases\": ["
        "{\"id\": \"ok\", \"input\": \"{\\\"a\\\": [1, 2]}\", \"expect\": {\"verdict\": \"accept\"}},"
        "{\"id\": \"fence\", \"input\": \"```json\\n{}\\n```\", \"expect\": {\"verdict\": \"reject\", \"gate\": "
        "\"syntax\", \"reason\": \"markdown_fence\"}},"
        "{\"id\": \"dup\", \"input\": \"{\\\"a\\\": 1, \\\"a\\\": 2}\", \"expect\": {\"verdict\": \"reject\", "
        "\"gate\": \"syntax\", \"reason\": \"duplicate_key\"}},"
        "{\"id\": \"later\", \"gate\": \"loop\", \"expect\": {\"verdict\": \"accept\"}}"
        "]}";
    ck_assert_int_eq(gt_corpus_load_text(corpus, "ref.cases.json", text, sizeof text - 1), 4);
    char err[256];
    gt_run *run = gt_run_cases(corpus, "reference", 2, NULL, NULL, err, sizeof err);
    ck_assert_ptr_nonnull(run);
    ck_assert_msg(run->results[0].outcome == GT_OUTCOME_PASS, "%s", run->results[0].note);
    ck_assert_int_eq(run->results[0].observed.gates[GT_GATE_SYNTAX], GT_GATE_PASSED);
    ck_assert_str_eq(run->results[0].observed.output_json, "{\"a\":[1,2]}");
    ck_assert_msg(run->results[1].outcome == GT_OUTCOME_PASS, "%s", run->results[1].note);
    ck_assert_int_eq(run->results[1].observed.gates[GT_GATE_SYNTAX], GT_GATE_FAILED);
    ck_assert_int_eq(run->results[1].observed.gates[GT_GATE_STRUCTURE], GT_GATE_NOT_RUN);
    ck_assert_ptr_nonnull(run->results[1].observed.message);
    ck_assert_msg(run->results[2].outcome == GT_OUTCOME_PASS, "%s", run->results[2].note);
    /* the loop layer is a hook; until it lands it skips, never passes */
    ck_assert_int_ne(run->results[3].outcome, GT_OUTCOME_PASS);
    gt_run_free(run);
    gt_corpus_free(corpus);
}
END_TEST

/* ---- the CLI contract ---------------------------------------------------- */

/* Run `gauntlet run ARGS` with both streams captured; the exit code. */
static int run_cli(char **argv, int argc, char *out, size_t out_len)
{
    (void)argc; /* argv is NULL-terminated */
    return gt_test_cli(gt_cmd_run, argv, out, out_len);
}

static const char *last_line(const char *text)
{
    static char line[256];
    size_t len = strlen(text);
    while (len > 0 && text[len - 1] == '\n')
        len--;
    size_t start = len;
    while (start > 0 && text[start - 1] != '\n')
        start--;
    snprintf(line, sizeof line, "%.*s", (int)(len - start), text + start);
    return line;
}

START_TEST(cli_usage_errors_exit_2)
{
    char out[8192];
    char *unknown[] = {"run", "--frobnicate", NULL};
    ck_assert_int_eq(run_cli(unknown, 2, out, sizeof out), 2);
    ck_assert_ptr_nonnull(strstr(out, "--frobnicate"));
    char *bad_gate[] = {"run", "--gate", "sintax", NULL};
    ck_assert_int_eq(run_cli(bad_gate, 3, out, sizeof out), 2);
    ck_assert_ptr_nonnull(strstr(out, "sintax"));
    char *bad_report[] = {"run", "--report", "yaml:x.yaml", NULL};
    ck_assert_int_eq(run_cli(bad_report, 3, out, sizeof out), 2);
    ck_assert_ptr_nonnull(strstr(out, "yaml"));
    char *no_value[] = {"run", "-j", NULL};
    ck_assert_int_eq(run_cli(no_value, 2, out, sizeof out), 2);
    char *bad_jobs[] = {"run", "-jx", NULL};
    ck_assert_int_eq(run_cli(bad_jobs, 2, out, sizeof out), 2);
    char *bad_target[] = {"run", "--target", "martian", "suite/data/loader/a-good.cases.json", NULL};
    ck_assert_int_eq(run_cli(bad_target, 4, out, sizeof out), 2);
    ck_assert_ptr_nonnull(strstr(out, "martian"));
    char *help[] = {"run", "--help", NULL};
    ck_assert_int_eq(run_cli(help, 2, out, sizeof out), 0);
    ck_assert_ptr_nonnull(strstr(out, "usage: gauntlet run"));
}
END_TEST

START_TEST(cli_exit_codes_and_totals_line)
{
    char out[65536];
    char *passing[] = {"run", "--gate=syntax", "-j2", "--id", "loader.good.*", "suite/data/loader/a-good.cases.json",
                       NULL};
    ck_assert_int_eq(run_cli(passing, 6, out, sizeof out), 0);
    ck_assert_str_eq(last_line(out), "1 passed, 0 failed, 0 skipped");
    ck_assert_ptr_nonnull(strstr(out, "gate        cases   pass   fail  error   skip"));
    ck_assert_ptr_nonnull(strstr(out, "total           1      1      0      0      0"));

    char *quiet[] = {"run", "-q", "--id", "loader.good.base64", "suite/data/loader", NULL};
    ck_assert_int_eq(run_cli(quiet, 5, out, sizeof out), 2); /* the directory has broken files */
    ck_assert_str_eq(last_line(out), "1 passed, 0 failed, 0 skipped");
    ck_assert_ptr_nonnull(strstr(out, "d-broken-cases.cases.json:5: /cases/0/id: id is missing"));
    ck_assert_ptr_null(strstr(out, "gate        cases"));

    char *missing[] = {"run", "suite/data/does-not-exist", NULL};
    ck_assert_int_eq(run_cli(missing, 2, out, sizeof out), 2);
    ck_assert_str_eq(last_line(out), "0 passed, 0 failed, 0 skipped");
    /* a path that cannot be opened has no line and no field to name */
    ck_assert_msg(strstr(out, "suite/data/does-not-exist: cannot open") != NULL, "%s", out);
    ck_assert_msg(strstr(out, ":0:") == NULL && strstr(out, "(file)") == NULL, "%s", out);

    /* the certificate's verdict: every required case ran and passed, or not */
    char *certify[] = {"run", "--certify", "corpus/syntax", NULL};
    ck_assert_int_eq(run_cli(certify, 3, out, sizeof out), 0);
    ck_assert_msg(strstr(out, "\ncertification\n  verdict         certified: all ") != NULL &&
                      strstr(out, " required cases of the claimed profiles in this corpus (") != NULL,
                  "%s", out);
    char *filtered[] = {"run", "--certify", "--id", "syntax.duplicate.*", "corpus/syntax", NULL};
    ck_assert_int_eq(run_cli(filtered, 5, out, sizeof out), 0);
    ck_assert_msg(strstr(out, "  verdict         not certified: ") != NULL && strstr(out, " skipped or not run)\n"),
                  "a filtered run certifies nothing: %s", out);

    /* `--target adapter:python3 script.py` unquoted: the script became a PATH */
    char *unquoted[] = {"run", "--target", "adapter:python3", "scripts/mutation.py", NULL};
    ck_assert_int_eq(run_cli(unquoted, 4, out, sizeof out), 2);
    ck_assert_msg(strstr(out, "hint: scripts/mutation.py is not a case file (*.cases.json); if it is your adapter's "
                              "script, quote the whole command: --target 'adapter:python3 scripts/mutation.py'") != NULL,
                  "%s", out);
}
END_TEST

/* An empty selection is never green: exit 2, naming the filter and what it
 * could have matched, and still the totals line. */
START_TEST(cli_empty_selection_exits_2)
{
    char out[65536];
    char *tag[] = {"run", "--tag", "smokee", "corpus/loop", NULL};
    ck_assert_int_eq(run_cli(tag, 4, out, sizeof out), 2);
    ck_assert_msg(strstr(out, "no case matches --tag smokee") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "known tags: ") != NULL && strstr(out, "smoke") != NULL, "%s", out);
    ck_assert_str_eq(last_line(out), "0 passed, 0 failed, 0 skipped");
    char *id[] = {"run", "--id", "nomatch*", "corpus/loop", NULL};
    ck_assert_int_eq(run_cli(id, 4, out, sizeof out), 2);
    ck_assert_msg(strstr(out, "no case matches --id 'nomatch*'") != NULL, "%s", out);
    char *gate[] = {"run", "--gate", "wire", "corpus/syntax", NULL};
    ck_assert_int_eq(run_cli(gate, 4, out, sizeof out), 2);
    ck_assert_msg(strstr(out, "gates with cases: syntax") != NULL, "%s", out);
    char dir[] = "build/gt-empty-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char *empty_dir[] = {"run", dir, NULL};
    ck_assert_int_eq(run_cli(empty_dir, 2, out, sizeof out), 2);
    ck_assert_msg(strstr(out, "no case found in build/gt-empty-") != NULL, "%s", out);
    ck_assert_str_eq(last_line(out), "0 passed, 0 failed, 0 skipped");
    rmdir(dir);
    char *list[] = {"run", "--list", "--tag", "smokee", "corpus/loop", NULL};
    ck_assert_int_eq(run_cli(list, 5, out, sizeof out), 2);
    ck_assert_msg(strstr(out, " passed, ") == NULL, "--list prints no totals: %s", out);
    /* a mock server that would play nothing is refused too */
    char *serve[] = {"serve", "--corpus", "suite/data/loader", NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_serve, serve, out, sizeof out), 2);
    ck_assert_msg(strstr(out, "--corpus suite/data/loader: no scenario found") != NULL, "%s", out);
    /* a shard may be empty when the selection is not (merge checks completeness) */
    char *shard[] = {"run", "-q", "--id", "loop.attempts.first-try-valid", "--shard", "2/2", "corpus/loop", NULL};
    ck_assert_int_eq(run_cli(shard, 7, out, sizeof out), 0);
}
END_TEST

/* Smoke before certify: a client that is not there, or that says it cannot
 * run, stops the run before any reject case can "pass". */
START_TEST(cli_smoke_stops_a_target_that_cannot_run)
{
    char out[65536];
    setenv("GAUNTLET", "build/gauntlet", 0); /* the wrapper's gauntlet when run outside make test */
    char *missing[] = {"run", "corpus/loop", "--target", "http:/no/such/client.sh", NULL};
    ck_assert_int_eq(run_cli(missing, 4, out, sizeof out), 2);
    ck_assert_msg(strstr(out, "smoke test failed") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "exit status 127") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "not found") != NULL, "%s", out);
    ck_assert_msg(strstr(out, " passed, ") == NULL, "a run happened: %s", out);
    char *claude[] = {"run", "corpus/loop", "--target", "http:env CLAUDE=/nonexistent adapters/claude-code/run.sh",
                      NULL};
    ck_assert_int_eq(run_cli(claude, 4, out, sizeof out), 2);
    ck_assert_msg(strstr(out, "make interop") != NULL, "%s", out);
    char *not_installed[] = {"run", "--smoke", "--target", "http:echo not installed >&2; exit 3", NULL};
    ck_assert_int_eq(run_cli(not_installed, 4, out, sizeof out), 2);
    ck_assert_msg(strstr(out, "not installed") != NULL && strstr(out, "status 3") != NULL, "%s", out);
    char *handshake[] = {"run", "--smoke", "--target", "adapter:read request; echo hello; sleep 5", NULL};
    ck_assert_int_eq(run_cli(handshake, 4, out, sizeof out), 2);
    ck_assert_msg(strstr(out, "handshake failed") != NULL && strstr(out, "could not start") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "{\"cmd\":\"hello\"}") != NULL, "%s", out); /* the fix names the protocol */
    char *silent[] = {"run", "--smoke", "--target", "adapter:true", NULL};
    ck_assert_int_eq(run_cli(silent, 4, out, sizeof out), 2);
    ck_assert_msg(strstr(out, "before answering hello") != NULL, "%s", out);
    char *good[] = {"run", "--smoke", "--target", "http:adapters/http-reference-client/run.sh", NULL};
    ck_assert_int_eq(run_cli(good, 4, out, sizeof out), 0);
    ck_assert_msg(strstr(out, "smoke: ok") != NULL, "%s", out);
    const char *reference = getenv("GAUNTLET_ADAPTER_REFERENCE"); /* BUILD's, e.g. build/sanitize's */
    char target[600];
    snprintf(target, sizeof target, "adapter:%s", reference ? reference : "build/adapters/gauntlet-adapter-reference");
    char *adapter[] = {"run", "--smoke", "--target", target, NULL};
    ck_assert_int_eq(run_cli(adapter, 4, out, sizeof out), 0);
    ck_assert_msg(strstr(out, "smoke: ok: gauntlet-reference") != NULL, "%s", out);
    /* --quiet: a smoke that worked prints nothing; the totals line is all */
    char *quiet[] = {"run", "-q", "--target", target, "--id", "syntax.duplicate.*", "corpus/syntax", NULL};
    ck_assert_int_eq(run_cli(quiet, 7, out, sizeof out), 0);
    ck_assert_msg(strstr(out, "smoke:") == NULL, "%s", out);
    ck_assert_msg(strstr(out, " passed, 0 failed, 0 skipped") != NULL, "%s", out);
}
END_TEST

/* A client that passes the smoke but cannot run for a later case: that case
 * is an error with the client's stderr, never a verdict. */
START_TEST(cli_client_that_stops_running_mid_run_is_an_error)
{
    char out[65536];
    setenv("GAUNTLET", "build/gauntlet", 0);
    char *flaky[] = {"run", "corpus/loop/attempts", "--id", "loop.attempts.five-invalid-default-limit", "--target",
                     "http:case $GAUNTLET_SCENARIO in smoke.*) exec adapters/http-reference-client/run.sh;; esac; "
                     "echo 'claude: command not found' >&2; exit 127",
                     "--profile", "claude-code", NULL};
    ck_assert_int_eq(run_cli(flaky, 8, out, sizeof out), 1);
    ck_assert_msg(strstr(out, "ERROR loop.attempts.five-invalid-default-limit: the client could not run (exit status "
                              "127: command not found)") != NULL,
                  "%s", out);
    ck_assert_msg(strstr(out, "claude: command not found") != NULL, "%s", out);
    ck_assert_str_eq(last_line(out), "0 passed, 1 failed, 0 skipped");
}
END_TEST

START_TEST(cli_failure_exits_1_and_writes_reports)
{
    gt_target_register(&fake_ops);
    char out[65536];
    /* per-process paths: several checkouts may run the suite at once */
    char json_path[64], xml_path[64], reports[160];
    snprintf(json_path, sizeof json_path, "/tmp/gt-test-run-%ld.json", (long)getpid());
    snprintf(xml_path, sizeof xml_path, "/tmp/gt-test-run-%ld.xml", (long)getpid());
    snprintf(reports, sizeof reports, "json:%s,junit:%s", json_path, xml_path);
    char *failing[] = {"run", "--target", "fake", "--report", reports,
                       "--tag", "deep", "suite/data/loader/nested", "suite/data/loader/a-good.cases.json", NULL};
    /* the fake target rejects ids containing "reject": none here, so all pass */
    ck_assert_int_eq(run_cli(failing, 9, out, sizeof out), 0);
    ck_assert_int_eq(access(json_path, R_OK), 0);
    ck_assert_int_eq(access(xml_path, R_OK), 0);
    unlink(json_path);
    unlink(xml_path);

    char *reject[] = {"run", "--target", "fake", "--id", "*reject*", "suite/data/loader/a-good.cases.json", NULL};
    ck_assert_int_eq(run_cli(reject, 6, out, sizeof out), 1);
    ck_assert_ptr_nonnull(strstr(out, "FAIL loader.good.reject-type: expected reject structure/type, observed "
                                      "reject syntax/trailing_text"));
    ck_assert_str_eq(last_line(out), "0 passed, 1 failed, 0 skipped");

    char *unwritable[] = {"run", "--report", "json:/dev/null/r.json", "suite/data/loader/nested", NULL};
    ck_assert_int_eq(run_cli(unwritable, 4, out, sizeof out), 2);
    ck_assert_ptr_nonnull(strstr(out, "cannot write json report '/dev/null/r.json': '/dev/null' is not a folder"));
}
END_TEST

/* A ./corpus folder in the current directory that is not this gauntlet's
 * own corpus is used (as before) and named on stderr with the one it
 * shadows; in the checkout, where ./corpus is the binary's own, nothing is
 * said. */
START_TEST(cli_local_corpus_folder_is_named)
{
    static char out[1 << 16];
    char *list[] = {"run", "--list", NULL};
    ck_assert_int_eq(run_cli(list, 2, out, sizeof out), 0);
    ck_assert_ptr_null(strstr(out, "using the corpus in ./corpus"));

    char repo[PATH_MAX], own[PATH_MAX], dir[] = "/tmp/gt-local-corpus-XXXXXX", path[PATH_MAX + 64];
    ck_assert_ptr_nonnull(getcwd(repo, sizeof repo));
    ck_assert_ptr_nonnull(realpath("corpus", own));
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/corpus", dir);
    ck_assert_int_eq(mkdir(path, 0777), 0);
    snprintf(path, sizeof path, "%s/corpus/local.cases.json", dir);
    FILE *file = fopen(path, "w");
    ck_assert_ptr_nonnull(file);
    fputs("{\"format\": \"gauntlet-corpus/1\", \"cases\": [{\"id\": \"local.one\", \"gate\": \"syntax\", "
          "\"category\": \"t\", \"input\": \"{}\", \"expect\": {\"verdict\": \"accept\"}}]}",
          file);
    fclose(file);
    /* the real binary ($GAUNTLET: build/gauntlet, build/sanitize/gauntlet),
     * whose own corpus is found beside it, run from the folder with a corpus */
    char command[3 * PATH_MAX];
    const char *binary = getenv("GAUNTLET") ? getenv("GAUNTLET") : "build/gauntlet";
    snprintf(command, sizeof command, "cd '%s' && '%s%s%s' run --list 2>&1", dir, binary[0] == '/' ? "" : repo,
             binary[0] == '/' ? "" : "/", binary);
    int code = gt_test_shell(command, out, sizeof out);
    ck_assert_msg(code == 0, "%s", out);
    char note[3 * PATH_MAX];
    snprintf(note, sizeof note, "gauntlet: using the corpus in ./corpus (%s/corpus), not this gauntlet's own (%s): "
             "give a path to choose\n", dir, own);
    ck_assert_msg(strstr(out, note) != NULL, "%s", out);
    ck_assert_ptr_nonnull(strstr(out, "local.one\n"));
    ck_assert_int_eq(unlink(path), 0);
    snprintf(path, sizeof path, "%s/corpus", dir);
    ck_assert_int_eq(rmdir(path), 0);
    ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("run");
    TCase *compare = tcase_create("compare");
    tcase_add_test(compare, compare_accept_and_verdicts);
    tcase_add_test(compare, compare_gate_and_reason);
    tcase_add_test(compare, compare_errors_as_sets);
    tcase_add_test(compare, compare_subtype_accounting_and_output);
    tcase_add_test(compare, compare_output_at_and_trace);
    tcase_add_test(compare, compare_message_contains);
    tcase_add_test(compare, compare_message_present);
    tcase_add_test(compare, gate_names_round_trip);
    suite_add_tcase(suite, compare);

    TCase *scheduler = tcase_create("scheduler");
    tcase_set_timeout(scheduler, 30);
    tcase_add_test(scheduler, scheduler_keeps_corpus_order_and_never_drops_a_case);
    tcase_add_test(scheduler, target_without_verdict_is_an_error);
    tcase_add_test(scheduler, jobs_zero_means_cpus_and_progress_is_called_per_case);
    tcase_add_test(scheduler, unknown_or_broken_targets);
    tcase_add_test(scheduler, empty_corpus_runs);
    tcase_add_test(scheduler, reference_target_syntax_cases);
    suite_add_tcase(suite, scheduler);

    TCase *cli = tcase_create("cli");
    tcase_set_timeout(cli, 30);
    tcase_add_test(cli, cli_usage_errors_exit_2);
    tcase_add_test(cli, cli_exit_codes_and_totals_line);
    tcase_add_test(cli, cli_empty_selection_exits_2);
    tcase_add_test(cli, cli_smoke_stops_a_target_that_cannot_run);
    tcase_add_test(cli, cli_client_that_stops_running_mid_run_is_an_error);
    tcase_add_test(cli, cli_failure_exits_1_and_writes_reports);
    tcase_add_test(cli, cli_local_corpus_folder_is_named);
    suite_add_tcase(suite, cli);
    return suite;
}

GT_TEST_MAIN()
