/* test_contract.c — contract references, the support-triage v1 -> v2
 * adapter, the compatibility window, the built-in v2 schema and the trace
 * record. */
#include <string.h>

#include "gauntlet/util.h"
#include "gauntlet/contract.h"
#include "gauntlet/parse.h"
#include "gauntlet/pipeline.h"
#include "gt_test.h"

static gt_arena *arena;

static void setup(void)
{
    arena = gt_arena_new();
}

static void teardown(void)
{
    gt_arena_free(arena);
}

static const gt_value *parse(const char *json)
{
    gt_parse_error error;
    const gt_value *value = gt_parse(arena, json, strlen(json), NULL, &error);
    ck_assert_msg(value != NULL, "test JSON does not parse: %s", error.message);
    return value;
}

START_TEST(test_refs)
{
    gt_contract_ref ref;
    ck_assert_int_eq(gt_contract_ref_parse("support-triage-v1", &ref), 0);
    ck_assert_str_eq(ref.name, "support-triage");
    ck_assert_uint_eq(ref.version, 1);
    ck_assert_int_eq(gt_contract_ref_parse("support-triage-v12", &ref), 0);
    ck_assert_uint_eq(ref.version, 12);
    ck_assert_int_eq(gt_contract_ref_parse("support-triage-v0", &ref), -1);
    ck_assert_int_eq(gt_contract_ref_parse("support-triage-v01", &ref), -1);
    ck_assert_int_eq(gt_contract_ref_parse("support-triage", &ref), -1);
    ck_assert_int_eq(gt_contract_ref_parse("-v1", &ref), -1);
    ck_assert_int_eq(gt_contract_ref_parse("Support-v1", &ref), -1);
    ck_assert_int_eq(gt_contract_ref_parse("support-triage-v2x", &ref), -1);
    char text[64];
    gt_contract_ref_parse("support-triage-v2", &ref);
    gt_contract_ref_format(&ref, text, sizeof text);
    ck_assert_str_eq(text, "support-triage-v2");
}
END_TEST

static const char *migrate(const char *v1)
{
    gt_value *out = NULL;
    char message[160];
    if (gt_contract_support_triage_v1_to_v2(arena, parse(v1), &out, message, sizeof message) != 0)
        return "failed";
    char *json = gt_value_to_json(out, NULL);
    char *copy = gt_arena_strndup(arena, json, strlen(json));
    free(json);
    return copy;
}

START_TEST(test_adapter_mapping)
{
    static const char *const severities[] = {"low", "low", "medium", "high", "high"};
    for (int priority = 1; priority <= 5; priority++) {
        char v1[200], want[240];
        snprintf(v1, sizeof v1, "{\"category\":\"bug\",\"priority\":%d,\"summary\":\"s\",\"needs_human\":false}",
                 priority);
        snprintf(want, sizeof want,
                 "{\"contract_version\":\"support-triage-v2\",\"category\":\"bug\",\"severity\":\"%s\","
                 "\"summary\":\"s\",\"needs_human\":false}",
                 severities[priority - 1]);
        ck_assert_str_eq(migrate(v1), want);
    }
    ck_assert_str_eq(migrate("{\"priority\":9}"), "failed");
    ck_assert_str_eq(migrate("{\"priority\":true}"), "failed");
    ck_assert_str_eq(migrate("{\"priority\":\"4\"}"), "failed");
    ck_assert_str_eq(migrate("{\"category\":\"bug\"}"), "failed");
    ck_assert_str_eq(migrate("[]"), "failed");
}
END_TEST

static gt_contract contract;

static void load(const char *declaration)
{
    gt_contract_problem problem;
    ck_assert_msg(gt_contract_load(parse(declaration), &contract, &problem) == 0, "%s: %s", problem.location,
                  problem.message);
}

static const char *upgrade(const char *object, unsigned declared, const char *today, gt_contract_result *result)
{
    ck_assert_int_eq(gt_contract_upgrade(&contract, parse(object), declared, today, arena, result), 0);
    return result->status == GT_CONTRACT_CURRENT    ? "current"
           : result->status == GT_CONTRACT_MIGRATED ? "migrated"
                                                    : result->reason;
}

#define V1 "{\"category\":\"billing\",\"priority\":4,\"summary\":\"dup\",\"needs_human\":true}"

START_TEST(test_window)
{
    load("{\"name\":\"support-triage\",\"current\":2,\"oldest_accepted\":1,\"accept_until\":\"2026-12-31\"}");
    ck_assert_ptr_nonnull(contract.current_schema); /* the built-in v2 schema */
    gt_contract_result result;
    ck_assert_str_eq(upgrade(V1, 1, "2026-10-01", &result), "migrated");
    ck_assert_uint_eq(result.from_version, 1);
    ck_assert_ptr_nonnull(gt_value_get(result.value, "severity", 8));
    ck_assert_str_eq(upgrade(V1, 1, "2026-12-31", &result), "migrated");
    ck_assert_str_eq(upgrade(V1, 1, "2027-01-01", &result), "contract_version_retired");
    ck_assert_str_eq(result.message, "support-triage-v1 was accepted until 2026-12-31; today is 2027-01-01");
    ck_assert_str_eq(upgrade(V1, 1, NULL, &result), "migrated"); /* no trusted clock: end not enforced */
    ck_assert_str_eq(upgrade(V1, 0, "2026-10-01", &result), "contract_version_unknown");
    ck_assert_str_eq(upgrade(V1, 3, "2026-10-01", &result), "contract_version_unknown");
    const char *v2 = "{\"contract_version\":\"support-triage-v2\",\"category\":\"bug\",\"severity\":\"low\","
                     "\"summary\":\"s\",\"needs_human\":false}";
    ck_assert_str_eq(upgrade(v2, 1, "2030-01-01", &result), "current"); /* the field wins over the declaration */
    ck_assert_str_eq(upgrade("{\"contract_version\":\"other-contract-v2\"}", 2, NULL, &result),
                     "contract_version_unknown");
    ck_assert_str_eq(upgrade("{\"contract_version\":2}", 2, NULL, &result), "contract_version_unknown");
    /* a v1 object the adapter cannot map */
    ck_assert_str_eq(upgrade("{\"category\":\"bug\",\"priority\":0,\"summary\":\"s\",\"needs_human\":true}", 1, NULL,
                             &result),
                     "contract_adapter_failed");
    /* the migrated value is checked against the v2 schema (guards adapter bugs) */
    ck_assert_str_eq(upgrade("{\"category\":\"BILLING\",\"priority\":2,\"summary\":\"s\",\"needs_human\":true}", 1,
                             NULL, &result),
                     "contract_adapter_output_invalid");
    gt_contract_clear(&contract);

    load("{\"name\":\"support-triage\",\"current\":2}"); /* no window declared: v1 is not accepted */
    ck_assert_str_eq(upgrade(V1, 1, NULL, &result), "contract_version_retired");
    gt_contract_clear(&contract);

    load("{\"name\":\"other\",\"current\":3,\"oldest_accepted\":1}"); /* no adapter exists */
    ck_assert_str_eq(upgrade("{}", 1, NULL, &result), "contract_no_adapter");
    gt_contract_clear(&contract);
}
END_TEST

START_TEST(test_load_problems)
{
    gt_contract_problem problem;
    ck_assert_int_eq(gt_contract_load(parse("{\"current\":2}"), &contract, &problem), -1);
    ck_assert_str_eq(problem.location, "/name");
    ck_assert_int_eq(gt_contract_load(parse("{\"name\":\"x\",\"current\":0}"), &contract, &problem), -1);
    ck_assert_int_eq(gt_contract_load(parse("{\"name\":\"x\",\"current\":2,\"oldest_accepted\":3}"), &contract,
                                      &problem),
                     -1);
    ck_assert_int_eq(gt_contract_load(parse("{\"name\":\"x\",\"current\":2,\"accept_until\":\"2026-13-01\"}"),
                                      &contract, &problem),
                     -1);
    ck_assert_int_eq(gt_contract_load(parse("{\"name\":\"x\",\"current\":2,\"extra\":1}"), &contract, &problem), -1);
}
END_TEST

START_TEST(test_builtin_schema_matches_corpus)
{
    char err[256];
    size_t len = 0;
    char *file = gt_read_file(GT_TEST_CORPUS "/schemas/support-triage-v2.json", &len, err, sizeof err);
    ck_assert_msg(file != NULL, "%s", err);
    const char *builtin = gt_contract_builtin_schema("support-triage", 2);
    ck_assert_ptr_nonnull(builtin);
    ck_assert_ptr_null(gt_contract_builtin_schema("support-triage", 1));
    ck_assert(gt_value_equal(parse(file), parse(builtin)));
    free(file);
}
END_TEST

START_TEST(test_trace_record)
{
    gt_trace trace = {.case_id = "c1",
                      .schema = "support-triage-v1",
                      .prompt_version = "triage-prompt-3",
                      .model = "model \"x\"",
                      .validator_version = "gauntlet-reference 0.1.0",
                      .contract_in = "support-triage-v1",
                      .contract_out = "support-triage-v2",
                      .verdict = "accept"};
    char *json = gt_trace_to_json(&trace);
    ck_assert_str_eq(json, "{\"trace\":\"gauntlet-trace/1\",\"case\":\"c1\",\"schema\":\"support-triage-v1\","
                           "\"prompt_version\":\"triage-prompt-3\",\"model\":\"model \\\"x\\\"\","
                           "\"validator\":\"gauntlet-reference 0.1.0\",\"contract_in\":\"support-triage-v1\","
                           "\"contract_out\":\"support-triage-v2\",\"verdict\":\"accept\",\"gate\":null,"
                           "\"reason\":null}");
    free(json);
}
END_TEST

/* The pipeline migrates before the semantic gate: rules see the v2 object. */
START_TEST(test_pipeline_migrates_before_rules)
{
    load("{\"name\":\"support-triage\",\"current\":2,\"oldest_accepted\":1,\"accept_until\":\"2026-12-31\"}");
    const char *rules_json = "[{\"id\":\"high\",\"kind\":\"implies\",\"if\":{\"pointer\":\"/severity\",\"equals\":"
                             "\"high\"},\"then\":{\"pointer\":\"/needs_human\",\"equals\":true}}]";
    gt_semantic_rules *rules = gt_semantic_compile(rules_json, strlen(rules_json), NULL);
    gt_pipeline_config config = {.contract = &contract, .declared_version = 1, .today = "2026-11-11", .rules = rules};
    gt_pipeline_outcome outcome;
    gt_pipeline_outcome_init(&outcome);
    const char *raw = "{\"category\":\"account\",\"priority\":5,\"summary\":\"takeover\",\"needs_human\":false}";
    ck_assert_int_eq(gt_pipeline_run(raw, strlen(raw), &config, arena, &outcome), 0);
    ck_assert_int_eq(outcome.failed_gate, GT_PIPELINE_SEMANTIC);
    ck_assert_str_eq(outcome.reason, "implication_violated");
    ck_assert_int_eq(outcome.contract.status, GT_CONTRACT_MIGRATED);
    config.today = "2027-02-02";
    ck_assert_int_eq(gt_pipeline_run(raw, strlen(raw), &config, arena, &outcome), 0);
    ck_assert_int_eq(outcome.failed_gate, GT_PIPELINE_STRUCTURE);
    ck_assert_str_eq(outcome.reason, "contract_version_retired");
    ck_assert_int_eq(outcome.status[GT_PIPELINE_SEMANTIC], GT_PIPELINE_NOT_RUN);
    gt_pipeline_outcome_free(&outcome);
    gt_semantic_rules_free(rules);
    gt_contract_clear(&contract);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("contract");
    TCase *tc = tcase_create("versions");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_refs);
    tcase_add_test(tc, test_adapter_mapping);
    tcase_add_test(tc, test_window);
    tcase_add_test(tc, test_load_problems);
    tcase_add_test(tc, test_builtin_schema_matches_corpus);
    tcase_add_test(tc, test_trace_record);
    tcase_add_test(tc, test_pipeline_migrates_before_rules);
    suite_add_tcase(suite, tc);
    return suite;
}

GT_TEST_MAIN()
