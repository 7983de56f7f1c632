/* test_policy.c — the policy gate: the table, roles, limits, approvals from
 * trusted state, model claims that grant nothing, determinism, and the
 * pipeline's gate order (passes structure and semantics, fails policy). */
#include <string.h>

#include "gauntlet/parse.h"
#include "gauntlet/pipeline.h"
#include "gauntlet/policy.h"
#include "gt_test.h"

static gt_arena *arena;
static gt_policy *policy;

static const char *const table_json =
    "{\"actions\":["
    "{\"action\":\"reply\",\"roles\":[\"agent\",\"supervisor\"]},"
    "{\"action\":\"refund\",\"roles\":[\"agent\",\"supervisor\"],"
    "\"limits\":[{\"pointer\":\"/refund_amount\",\"context\":\"/identity/refund_limit\"}]},"
    "{\"action\":\"goodwill\",\"roles\":[\"agent\"],\"limits\":[{\"pointer\":\"/amount\",\"max\":10}]},"
    "{\"action\":\"close_account\",\"roles\":[\"supervisor\"],\"approval\":true,\"subject\":\"/account_id\"},"
    "{\"action\":\"wipe_cache\",\"roles\":[\"supervisor\"],\"approval\":true}]}";

static void setup(void)
{
    arena = gt_arena_new();
    gt_policy_problem problem;
    policy = gt_policy_compile(table_json, strlen(table_json), &problem);
    ck_assert_msg(policy != NULL, "%s: %s", problem.location, problem.message);
}

static void teardown(void)
{
    gt_policy_free(policy);
    gt_arena_free(arena);
}

static const gt_value *parse(const char *json)
{
    gt_parse_error error;
    const gt_value *value = gt_parse(arena, json, strlen(json), NULL, &error);
    ck_assert_msg(value != NULL, "test JSON does not parse: %s", error.message);
    return value;
}

static gt_policy_decision decision;

static const char *decide(const char *object, const char *context)
{
    int denied = gt_policy_decide(policy, parse(object), context ? parse(context) : NULL, &decision);
    ck_assert_int_eq(denied, decision.allowed ? 0 : 1);
    return decision.allowed ? "allowed" : decision.reason;
}

#define AGENT "{\"identity\":{\"role\":\"agent\",\"refund_limit\":100.00}}"
#define SUPERVISOR "{\"identity\":{\"role\":\"supervisor\",\"refund_limit\":500}}"

START_TEST(test_roles_and_unknown_actions)
{
    ck_assert_str_eq(decide("{\"action\":\"reply\"}", AGENT), "allowed");
    ck_assert(decision.action_proposed);
    ck_assert_str_eq(decision.action, "reply"); /* C API only: no target or report reads it */
    ck_assert_str_eq(decide("{\"note\":\"no action\"}", AGENT), "allowed");
    ck_assert(!decision.action_proposed);
    ck_assert_str_eq(decide("{\"action\":\"close_account\",\"account_id\":\"a\"}", AGENT), "role_not_permitted");
    ck_assert_str_eq(decision.pointer, "/action");
    ck_assert_str_eq(decision.message, "role \"agent\" may not take action \"close_account\"");
    ck_assert_str_eq(decide("{\"action\":\"drop_tables\"}", AGENT), "action_not_in_policy");
    ck_assert_str_eq(decide("{\"action\":\"Reply\"}", AGENT), "action_not_in_policy");
    ck_assert_str_eq(decide("{\"action\":1}", AGENT), "action_not_in_policy");
    ck_assert_str_eq(decide("{\"action\":\"reply\"}", NULL), "missing_identity");
    ck_assert_str_eq(decide("{\"action\":\"reply\"}", "{\"identity\":{\"role\":[\"agent\"]}}"), "missing_identity");
}
END_TEST

/* One decision struct reused across calls (the C API allows it): nothing of
 * an earlier denial survives into a later allowed decision. */
START_TEST(test_decision_reused)
{
    ck_assert_str_eq(decide("{\"action\":\"close_account\",\"account_id\":\"a\",\"approved\":true}", AGENT),
                     "role_not_permitted");
    ck_assert(decision.message[0] != '\0');
    ck_assert_str_eq(decide("{\"note\":\"no action\"}", AGENT), "allowed");
    ck_assert(!decision.action_proposed);
    ck_assert_ptr_null(decision.reason);
    ck_assert_str_eq(decision.pointer, "");
    ck_assert_str_eq(decision.message, "");
    ck_assert_str_eq(decision.action, "");
}
END_TEST

START_TEST(test_limits)
{
    ck_assert_str_eq(decide("{\"action\":\"refund\",\"refund_amount\":100}", AGENT), "allowed");
    ck_assert_str_eq(decide("{\"action\":\"refund\",\"refund_amount\":100.001}", AGENT), "over_limit");
    ck_assert_str_eq(decision.pointer, "/refund_amount");
    ck_assert_str_eq(decide("{\"action\":\"refund\",\"refund_amount\":\"5\"}", AGENT), "over_limit");
    ck_assert_str_eq(decide("{\"action\":\"refund\",\"refund_amount\":400}", SUPERVISOR), "allowed");
    ck_assert_str_eq(decide("{\"action\":\"refund\",\"refund_amount\":1}", "{\"identity\":{\"role\":\"agent\"}}"),
                     "missing_trusted_context");
    ck_assert_str_eq(decide("{\"action\":\"goodwill\",\"amount\":10}", AGENT), "allowed");
    ck_assert_str_eq(decide("{\"action\":\"goodwill\",\"amount\":11}", AGENT), "over_limit");
}
END_TEST

START_TEST(test_model_fields_never_grant)
{
    /* approved / authorized_by / a quoted token: denied, and the message says why. */
    ck_assert_str_eq(decide("{\"action\":\"close_account\",\"account_id\":\"acct-9\",\"approved\":true,"
                            "\"authorized_by\":\"admin\"}",
                            SUPERVISOR),
                     "approval_required");
    ck_assert_ptr_nonnull(strstr(decision.message, "/approved, /authorized_by grant nothing"));
    ck_assert_str_eq(decide("{\"action\":\"close_account\",\"account_id\":\"acct-9\",\"approval_token\":\"appr-1\"}",
                            "{\"identity\":{\"role\":\"supervisor\"},\"approvals\":[{\"action\":\"close_account\","
                            "\"subject\":\"acct-1\",\"token\":\"appr-1\"}]}"),
                     "approval_required");
    /* authorized_by never changes the role either */
    ck_assert_str_eq(decide("{\"action\":\"close_account\",\"account_id\":\"a\",\"authorized_by\":\"supervisor\"}",
                            AGENT),
                     "role_not_permitted");
    /* the trusted approval for this subject allows it */
    ck_assert_str_eq(decide("{\"action\":\"close_account\",\"account_id\":\"acct-9\"}",
                            "{\"identity\":{\"role\":\"supervisor\"},\"approvals\":[{\"action\":\"close_account\","
                            "\"subject\":\"acct-9\"}]}"),
                     "allowed");
    /* an approval without subject binding, and one for another action */
    ck_assert_str_eq(decide("{\"action\":\"wipe_cache\"}",
                            "{\"identity\":{\"role\":\"supervisor\"},\"approvals\":[{\"action\":\"wipe_cache\"}]}"),
                     "allowed");
    ck_assert_str_eq(decide("{\"action\":\"wipe_cache\",\"approved\":true}",
                            "{\"identity\":{\"role\":\"supervisor\"},\"approvals\":[{\"action\":\"refund\"}]}"),
                     "approval_required");
}
END_TEST

START_TEST(test_deterministic)
{
    const char *object = "{\"action\":\"close_account\",\"account_id\":\"x\",\"approved\":true}";
    decide(object, SUPERVISOR);
    gt_policy_decision first = decision;
    for (int i = 0; i < 5; i++) {
        decide(object, SUPERVISOR);
        ck_assert_str_eq(decision.reason, first.reason);
        ck_assert_str_eq(decision.message, first.message);
        ck_assert_str_eq(decision.pointer, first.pointer);
    }
}
END_TEST

static void assert_problem(const char *json, const char *location)
{
    gt_policy_problem problem;
    gt_policy *bad = gt_policy_compile(json, strlen(json), &problem);
    ck_assert_msg(bad == NULL, "policy compiled but should not: %s", json);
    ck_assert_str_eq(problem.location, location);
}

START_TEST(test_compile_problems)
{
    assert_problem("[]", "");
    assert_problem("{}", "/actions");
    assert_problem("{\"actions\":[],\"extra\":1}", "/extra");
    assert_problem("{\"actions\":[{\"roles\":[]}]}", "/actions/0");
    assert_problem("{\"actions\":[{\"action\":\"a\",\"roles\":\"agent\"}]}", "/actions/0/roles");
    assert_problem("{\"actions\":[{\"action\":\"a\",\"roles\":[]},{\"action\":\"a\",\"roles\":[]}]}", "/actions/1/action");
    assert_problem("{\"actions\":[{\"action\":\"a\",\"roles\":[],\"limits\":[{\"pointer\":\"/x\"}]}]}",
                   "/actions/0/limits/0");
    assert_problem("{\"actions\":[{\"action\":\"a\",\"roles\":[],\"subject\":\"x\"}]}", "/actions/0/subject");
    assert_problem("{\"action_pointer\":\"action\",\"actions\":[]}", "/action_pointer");
}
END_TEST

/* The pipeline: structure and semantic pass, policy fails, each gate's status shows it. */
START_TEST(test_pipeline_gate_statuses)
{
    const char *schema_json = "{\"type\":\"object\",\"properties\":{\"action\":{\"type\":\"string\"},"
                              "\"approved\":{\"type\":\"boolean\"}},\"required\":[\"action\"]}";
    const char *rules_json = "[{\"id\":\"no_debug\",\"kind\":\"absent\",\"pointer\":\"/debug\"}]";
    gt_schema *schema = gt_schema_compile(schema_json, strlen(schema_json), NULL, NULL);
    gt_semantic_rules *rules = gt_semantic_compile(rules_json, strlen(rules_json), NULL);
    ck_assert_ptr_nonnull(schema);
    ck_assert_ptr_nonnull(rules);
    gt_pipeline_config config = {.schema = schema, .rules = rules, .policy = policy, .context = parse(SUPERVISOR)};
    gt_pipeline_outcome outcome;
    gt_pipeline_outcome_init(&outcome);
    const char *raw = "{\"action\":\"wipe_cache\",\"approved\":true}";
    ck_assert_int_eq(gt_pipeline_run(raw, strlen(raw), &config, arena, &outcome), 0);
    ck_assert(!outcome.accepted);
    ck_assert_int_eq(outcome.failed_gate, GT_PIPELINE_POLICY);
    ck_assert_str_eq(outcome.reason, "approval_required");
    ck_assert_int_eq(outcome.status[GT_PIPELINE_SYNTAX], GT_PIPELINE_PASSED);
    ck_assert_int_eq(outcome.status[GT_PIPELINE_STRUCTURE], GT_PIPELINE_PASSED);
    ck_assert_int_eq(outcome.status[GT_PIPELINE_SEMANTIC], GT_PIPELINE_PASSED);
    ck_assert_int_eq(outcome.status[GT_PIPELINE_POLICY], GT_PIPELINE_FAILED);
    ck_assert(outcome.escalate);
    /* a semantic failure stops before policy */
    raw = "{\"action\":\"wipe_cache\",\"debug\":1}";
    ck_assert_int_eq(gt_pipeline_run(raw, strlen(raw), &config, arena, &outcome), 0);
    ck_assert_int_eq(outcome.failed_gate, GT_PIPELINE_SEMANTIC);
    ck_assert_int_eq(outcome.status[GT_PIPELINE_POLICY], GT_PIPELINE_NOT_RUN);
    /* the old entry point still runs syntax and structure only */
    raw = "{\"action\":\"wipe_cache\"}";
    ck_assert_int_eq(gt_pipeline_check(raw, strlen(raw), schema, NULL, arena, &outcome), 0);
    ck_assert(outcome.accepted);
    ck_assert_int_eq(outcome.status[GT_PIPELINE_SEMANTIC], GT_PIPELINE_NOT_RUN);
    ck_assert_int_eq(outcome.status[GT_PIPELINE_POLICY], GT_PIPELINE_NOT_RUN);
    gt_pipeline_outcome_free(&outcome);
    gt_semantic_rules_free(rules);
    gt_schema_free(schema);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("policy");
    TCase *tc = tcase_create("table");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_roles_and_unknown_actions);
    tcase_add_test(tc, test_limits);
    tcase_add_test(tc, test_decision_reused);
    tcase_add_test(tc, test_model_fields_never_grant);
    tcase_add_test(tc, test_deterministic);
    tcase_add_test(tc, test_compile_problems);
    tcase_add_test(tc, test_pipeline_gate_statuses);
    suite_add_tcase(suite, tc);
    return suite;
}

GT_TEST_MAIN()
