/* test_semantic.c — the semantic gate's rule language: every rule kind, rule
 * compilation problems, JSON Pointer helpers and exact number comparison. */
#include <string.h>

#include "gauntlet/parse.h"
#include "gauntlet/semantic.h"
#include "gt_test.h"

static gt_arena *arena;
static gt_semantic_result result;

static void setup(void)
{
    arena = gt_arena_new();
    gt_semantic_result_init(&result);
}

static void teardown(void)
{
    gt_semantic_result_free(&result);
    gt_arena_free(arena);
}

static const gt_value *parse(const char *json)
{
    gt_parse_error error;
    const gt_value *value = gt_parse(arena, json, strlen(json), NULL, &error);
    ck_assert_msg(value != NULL, "test JSON does not parse: %s", error.message);
    return value;
}

static const char *const context_json =
    "{\"identity\":{\"user_id\":\"u-100\",\"role\":\"agent\"},"
    "\"tables\":{\"invoices\":[{\"id\":\"invoice-483\",\"owner\":\"u-100\"},{\"id\":\"invoice-777\",\"owner\":\"u-200\"}],"
    "\"evidence\":[{\"id\":\"message-12\"},{\"id\":\"invoice-483\"}],\"codes\":[\"A\",\"B\"],"
    "\"by_id\":{\"invoice-483\":{\"owner\":\"u-100\"}}},"
    "\"verified\":{\"charge_amount\":40.00,\"label\":\"m\"}}";

/* Compile `rules`, check `instance`; return the verdict (0 ok, 1 violations). */
static int check(const char *rules_json, const char *instance_json)
{
    gt_semantic_problem problem;
    gt_semantic_rules *rules = gt_semantic_compile(rules_json, strlen(rules_json), &problem);
    ck_assert_msg(rules != NULL, "rules do not compile at %s: %s", problem.location, problem.message);
    int verdict = gt_semantic_check(rules, parse(instance_json), parse(context_json), &result);
    gt_semantic_rules_free(rules);
    return verdict;
}

static void assert_violation(size_t index, const char *rule_id, const char *pointer, const char *reason)
{
    ck_assert_uint_gt(result.count, index);
    ck_assert_str_eq(result.items[index].rule_id, rule_id);
    ck_assert_str_eq(result.items[index].pointer, pointer);
    ck_assert_str_eq(result.items[index].reason, reason);
}

#define UNCERTAINTY_RULE                                                                                           \
    "[{\"id\":\"unc\",\"kind\":\"implies\",\"if\":{\"pointer\":\"/uncertainty\",\"equals\":\"high\"},"           \
    "\"then\":{\"pointer\":\"/needs_human\",\"equals\":true}}]"

/* gt_semantic_result_init makes any struct a fresh, empty result (the C API
 * does not ask for zeroed memory). */
START_TEST(test_result_init_clears)
{
    gt_semantic_result dirty;
    memset(&dirty, 0x5a, sizeof dirty);
    gt_semantic_result_init(&dirty);
    ck_assert_ptr_null(dirty.items);
    ck_assert_ptr_null(dirty.strings);
    ck_assert_uint_eq(dirty.count, 0);
    ck_assert_uint_eq(dirty.capacity, 0);
    gt_semantic_result_free(&dirty);
}
END_TEST

/* gt_semantic_rule_count (C API only: no target or report reads it): the
 * number of compiled rules, 0 for no rule set. */
START_TEST(test_rule_count)
{
    gt_semantic_problem problem;
    const char *two = "[{\"id\":\"a\",\"kind\":\"absent\",\"pointer\":\"/x\"},"
                      "{\"id\":\"b\",\"kind\":\"absent\",\"pointer\":\"/y\"}]";
    gt_semantic_rules *rules = gt_semantic_compile(two, strlen(two), &problem);
    ck_assert_ptr_nonnull(rules);
    ck_assert_uint_eq(gt_semantic_rule_count(rules), 2);
    ck_assert_uint_eq(gt_semantic_rule_count(NULL), 0);
    gt_semantic_rules_free(rules);
}
END_TEST

START_TEST(test_implies)
{
    ck_assert_int_eq(check(UNCERTAINTY_RULE, "{\"uncertainty\":\"high\",\"needs_human\":false}"), 1);
    assert_violation(0, "unc", "/needs_human", "implication_violated");
    ck_assert_str_eq(result.items[0].message, "when /uncertainty is \"high\", /needs_human must be true (got false)");
    ck_assert(!result.items[0].escalate);
    ck_assert_int_eq(check(UNCERTAINTY_RULE, "{\"uncertainty\":\"high\",\"needs_human\":true}"), 0);
    ck_assert_int_eq(check(UNCERTAINTY_RULE, "{\"uncertainty\":\"low\",\"needs_human\":false}"), 0);
    /* absent consequent fails; 1 is not true */
    ck_assert_int_eq(check(UNCERTAINTY_RULE, "{\"uncertainty\":\"high\"}"), 1);
    ck_assert_int_eq(check(UNCERTAINTY_RULE, "{\"uncertainty\":\"high\",\"needs_human\":1}"), 1);
    /* in / not_equals / present conditions */
    const char *in_rule = "[{\"id\":\"r\",\"kind\":\"implies\",\"if\":{\"pointer\":\"/a\",\"in\":[1,2]},"
                          "\"then\":{\"pointer\":\"/b\",\"present\":false}}]";
    ck_assert_int_eq(check(in_rule, "{\"a\":2.0,\"b\":null}"), 1);
    ck_assert_str_eq(result.items[0].message, "when /a is one of [1,2], /b must not be present (got null)");
    ck_assert_int_eq(check(in_rule, "{\"a\":3,\"b\":null}"), 0);
    const char *ne_rule = "[{\"id\":\"r\",\"kind\":\"implies\",\"if\":{\"pointer\":\"/a\",\"present\":true},"
                          "\"then\":{\"pointer\":\"/b\",\"not_equals\":\"x\"}}]";
    ck_assert_int_eq(check(ne_rule, "{\"a\":0,\"b\":\"x\"}"), 1);
    ck_assert_int_eq(check(ne_rule, "{\"a\":0}"), 0);
    ck_assert_int_eq(check(ne_rule, "{\"b\":\"x\"}"), 0);
}
END_TEST

START_TEST(test_member_of_scoped)
{
    const char *rule = "[{\"id\":\"own\",\"kind\":\"member_of\",\"pointer\":\"/invoice_id\",\"table\":\"/tables/invoices\","
                       "\"key\":\"id\",\"scope\":{\"key\":\"owner\",\"context\":\"/identity/user_id\"}}]";
    ck_assert_int_eq(check(rule, "{\"invoice_id\":\"invoice-483\"}"), 0);
    ck_assert_int_eq(check(rule, "{\"invoice_id\":\"invoice-777\"}"), 1);
    assert_violation(0, "own", "/invoice_id", "not_visible_to_identity");
    char other[512];
    snprintf(other, sizeof other, "%s", result.items[0].message);
    ck_assert_int_eq(check(rule, "{\"invoice_id\":\"invoice-999\"}"), 1);
    assert_violation(0, "own", "/invoice_id", "not_visible_to_identity");
    /* The message never echoes the invoice record (owner, amount). */
    ck_assert_ptr_null(strstr(other, "u-200"));
    ck_assert_str_eq(other, "\"invoice-777\" at /invoice_id is not visible to this user");
    /* absent field: nothing to check */
    ck_assert_int_eq(check(rule, "{}"), 0);
    /* object tables keyed by id */
    const char *keyed = "[{\"id\":\"k\",\"kind\":\"member_of\",\"pointer\":\"/i\",\"table\":\"/tables/by_id\","
                        "\"scope\":{\"key\":\"owner\",\"context\":\"/identity/user_id\"}}]";
    ck_assert_int_eq(check(keyed, "{\"i\":\"invoice-483\"}"), 0);
    ck_assert_int_eq(check(keyed, "{\"i\":\"invoice-484\"}"), 1);
}
END_TEST

START_TEST(test_member_of_plain_and_missing_context)
{
    const char *rule = "[{\"id\":\"code\",\"kind\":\"member_of\",\"pointer\":\"/code\",\"table\":\"/tables/codes\"}]";
    ck_assert_int_eq(check(rule, "{\"code\":\"A\"}"), 0);
    ck_assert_int_eq(check(rule, "{\"code\":\"a\"}"), 1);
    assert_violation(0, "code", "/code", "not_in_table");
    ck_assert_str_eq(result.items[0].message, "\"a\" at /code is not in the trusted table /tables/codes");
    const char *missing = "[{\"id\":\"t\",\"kind\":\"member_of\",\"pointer\":\"/code\",\"table\":\"/tables/nope\"}]";
    ck_assert_int_eq(check(missing, "{\"code\":\"A\"}"), 1);
    assert_violation(0, "t", "/code", "missing_trusted_context");
    ck_assert(result.items[0].escalate);
    ck_assert(gt_semantic_result_escalates(&result));
}
END_TEST

START_TEST(test_compare)
{
    const char *rule = "[{\"id\":\"cap\",\"kind\":\"compare\",\"pointer\":\"/refund\",\"op\":\"<=\","
                       "\"context\":\"/verified/charge_amount\"}]";
    ck_assert_int_eq(check(rule, "{\"refund\":40}"), 0);
    ck_assert_int_eq(check(rule, "{\"refund\":39.99}"), 0);
    ck_assert_int_eq(check(rule, "{\"refund\":40.01}"), 1);
    assert_violation(0, "cap", "/refund", "comparison_failed");
    ck_assert_str_eq(result.items[0].message,
                     "/refund must be at most 40.00 (trusted /verified/charge_amount), got 40.01");
    ck_assert_int_eq(check(rule, "{\"refund\":40.000000000000001}"), 1); /* exact, not as doubles */
    ck_assert_int_eq(check(rule, "{\"refund\":\"40\"}"), 1);              /* no coercion */
    ck_assert_str_eq(result.items[0].reason, "comparison_failed");
    ck_assert_int_eq(check(rule, "{}"), 0);
    /* literal values, other fields, every operator */
    ck_assert_int_eq(check("[{\"id\":\"a\",\"kind\":\"compare\",\"pointer\":\"/x\",\"op\":\">\",\"value\":0}]",
                           "{\"x\":-0.5}"),
                     1);
    ck_assert_int_eq(check("[{\"id\":\"a\",\"kind\":\"compare\",\"pointer\":\"/x\",\"op\":\">=\",\"other\":\"/y\"}]",
                           "{\"x\":2,\"y\":2.0}"),
                     0);
    ck_assert_int_eq(check("[{\"id\":\"a\",\"kind\":\"compare\",\"pointer\":\"/x\",\"op\":\"<\",\"value\":\"b\"}]",
                           "{\"x\":\"a\"}"),
                     0);
    ck_assert_int_eq(check("[{\"id\":\"a\",\"kind\":\"compare\",\"pointer\":\"/x\",\"op\":\"==\",\"value\":1}]",
                           "{\"x\":1.0}"),
                     0);
    ck_assert_int_eq(check("[{\"id\":\"a\",\"kind\":\"compare\",\"pointer\":\"/x\",\"op\":\"!=\",\"value\":1}]",
                           "{\"x\":true}"),
                     0);
    /* a rule's own reason replaces comparison_failed, but not missing context */
    const char *own = "[{\"id\":\"a\",\"kind\":\"compare\",\"pointer\":\"/x\",\"op\":\"<=\",\"context\":\"/nope\","
                      "\"reason\":\"too_much\"}]";
    ck_assert_int_eq(check(own, "{\"x\":1}"), 1);
    ck_assert_str_eq(result.items[0].reason, "missing_trusted_context");
}
END_TEST

START_TEST(test_resolves_evidence)
{
    const char *rule = "[{\"id\":\"ev\",\"kind\":\"resolves\",\"pointer\":\"/evidence_ids\",\"table\":\"/tables/evidence\","
                       "\"key\":\"id\",\"evidence\":true,\"min_items\":1}]";
    ck_assert_int_eq(check(rule, "{\"evidence_ids\":[\"message-12\",\"invoice-483\"]}"), 0);
    ck_assert_int_eq(check(rule, "{\"evidence_ids\":[\"message-12\",\"message-99\",\"x\"]}"), 1);
    ck_assert_uint_eq(result.count, 2);
    assert_violation(0, "ev", "/evidence_ids/1", "missing_evidence");
    assert_violation(1, "ev", "/evidence_ids/2", "missing_evidence");
    ck_assert(result.items[0].escalate);
    ck_assert_str_eq(result.items[0].message, "evidence \"message-99\" at /evidence_ids/1 does not exist");
    ck_assert_int_eq(check(rule, "{\"evidence_ids\":[]}"), 1);
    assert_violation(0, "ev", "/evidence_ids", "missing_evidence");
    ck_assert_int_eq(check(rule, "{}"), 1);
    /* without evidence: unresolved_reference, repairable */
    const char *plain = "[{\"id\":\"r\",\"kind\":\"resolves\",\"pointer\":\"/ids\",\"table\":\"/tables/codes\"}]";
    ck_assert_int_eq(check(plain, "{\"ids\":[\"A\",\"C\"]}"), 1);
    assert_violation(0, "r", "/ids/1", "unresolved_reference");
    ck_assert(!result.items[0].escalate);
    ck_assert_int_eq(check(plain, "{}"), 0);
}
END_TEST

START_TEST(test_missing_evidence_is_the_reason)
{
    const char *rules = "[{\"id\":\"unc\",\"kind\":\"implies\",\"if\":{\"pointer\":\"/u\",\"equals\":\"high\"},"
                        "\"then\":{\"pointer\":\"/h\",\"equals\":true}},"
                        "{\"id\":\"ev\",\"kind\":\"resolves\",\"pointer\":\"/e\",\"table\":\"/tables/evidence\","
                        "\"key\":\"id\",\"evidence\":true}]";
    ck_assert_int_eq(check(rules, "{\"u\":\"high\",\"h\":false,\"e\":[\"nope\"]}"), 1);
    ck_assert_uint_eq(result.count, 2);
    ck_assert_str_eq(gt_semantic_result_reason(&result), "missing_evidence");
    ck_assert_int_eq(check(rules, "{\"u\":\"high\",\"h\":false}"), 1);
    ck_assert_str_eq(gt_semantic_result_reason(&result), "implication_violated");
    ck_assert(!gt_semantic_result_escalates(&result));
}
END_TEST

START_TEST(test_absent_with_when)
{
    const char *rule = "[{\"id\":\"no_amount\",\"kind\":\"absent\",\"pointer\":\"/refund_amount\","
                       "\"when\":{\"pointer\":\"/action\",\"not_equals\":\"refund\"}}]";
    ck_assert_int_eq(check(rule, "{\"action\":\"reply\",\"refund_amount\":5}"), 1);
    assert_violation(0, "no_amount", "/refund_amount", "forbidden_field");
    ck_assert_str_eq(result.items[0].message, "/refund_amount must not appear");
    ck_assert_int_eq(check(rule, "{\"action\":\"refund\",\"refund_amount\":5}"), 0);
    ck_assert_int_eq(check(rule, "{\"action\":\"reply\"}"), 0);
    ck_assert_int_eq(check(rule, "{\"action\":\"reply\",\"refund_amount\":null}"), 1); /* null is present */
    /* pointers with escapes reach odd member names */
    ck_assert_int_eq(check("[{\"id\":\"x\",\"kind\":\"absent\",\"pointer\":\"/a~1b/m~0n\"}]",
                           "{\"a/b\":{\"m~n\":1}}"),
                     1);
}
END_TEST

static void assert_problem(const char *rules_json, const char *location)
{
    gt_semantic_problem problem;
    gt_semantic_rules *rules = gt_semantic_compile(rules_json, strlen(rules_json), &problem);
    ck_assert_msg(rules == NULL, "rules compiled but should not: %s", rules_json);
    ck_assert_str_eq(problem.location, location);
    ck_assert(problem.message[0] != '\0');
}

START_TEST(test_compile_problems)
{
    assert_problem("{}", "");
    assert_problem("[1]", "/0");
    assert_problem("[{\"kind\":\"absent\",\"pointer\":\"/a\"}]", "/0");
    assert_problem("[{\"id\":\"a\",\"kind\":\"regex\"}]", "/0");
    assert_problem("[{\"id\":\"a\",\"kind\":\"absent\",\"pointer\":\"a\"}]", "/0/pointer");
    assert_problem("[{\"id\":\"a\",\"kind\":\"absent\",\"pointer\":\"/a~2\"}]", "/0/pointer");
    assert_problem("[{\"id\":\"a\",\"kind\":\"absent\",\"pointer\":\"/a\",\"table\":\"/t\"}]", "/0/table");
    assert_problem("[{\"id\":\"a\",\"kind\":\"absent\",\"pointer\":\"/a\"},{\"id\":\"a\",\"kind\":\"absent\","
                   "\"pointer\":\"/b\"}]",
                   "/1/id");
    assert_problem("[{\"id\":\"a\",\"kind\":\"compare\",\"pointer\":\"/a\",\"op\":\"=<\",\"value\":1}]", "/0");
    assert_problem("[{\"id\":\"a\",\"kind\":\"compare\",\"pointer\":\"/a\",\"op\":\"<\",\"value\":1,\"other\":\"/b\"}]",
                   "/0");
    assert_problem("[{\"id\":\"a\",\"kind\":\"implies\",\"if\":{\"pointer\":\"/a\"},\"then\":{\"pointer\":\"/b\","
                   "\"equals\":1}}]",
                   "/0/if");
    assert_problem("[{\"id\":\"a\",\"kind\":\"implies\",\"if\":{\"pointer\":\"/a\",\"in\":1},\"then\":{\"pointer\":"
                   "\"/b\",\"equals\":1}}]",
                   "/0/if/in");
    assert_problem("[{\"id\":\"a\",\"kind\":\"resolves\",\"pointer\":\"/a\",\"table\":\"/t\",\"evidence\":true,"
                   "\"reason\":\"fine\"}]",
                   "/0");
    assert_problem("[{\"id\":\"a\",\"kind\":\"absent\",\"pointer\":\"/a\",\"reason\":\"Not Snake\"}]", "/0");
    assert_problem("[{\"id\":\"a\",\"kind\":\"member_of\",\"pointer\":\"/a\",\"table\":\"/t\",\"scope\":{"
                   "\"context\":\"/u\"}}]",
                   "/0/scope");
    assert_problem("[{\"id\":\"a\",\"kind\":\"absent\",\"pointer\":\"/a\"} x", "");
}
END_TEST

START_TEST(test_pointer_helpers)
{
    const gt_value *doc = parse("{\"a\":[{\"b c\":1},{\"\\\"q\":2}],\"x\":{\"0\":3},\"\":4}");
    ck_assert_ptr_nonnull(gt_pointer_get(doc, "/a/1"));
    ck_assert_ptr_null(gt_pointer_get(doc, "/a/01"));
    ck_assert_ptr_null(gt_pointer_get(doc, "/a/2"));
    ck_assert_ptr_null(gt_pointer_get(doc, "/a/-"));
    ck_assert_ptr_nonnull(gt_pointer_get(doc, "/x/0"));
    ck_assert_ptr_nonnull(gt_pointer_get(doc, "/"));
    ck_assert_ptr_eq(gt_pointer_get(doc, ""), doc);
    ck_assert(!gt_pointer_valid("a"));
    ck_assert(!gt_pointer_valid("/~"));
    char out[128];
    gt_pointer_to_dollar(doc, "/a/0/b c", out, sizeof out);
    ck_assert_str_eq(out, "$.a[0][\"b c\"]");
    gt_pointer_to_dollar(doc, "/x/0", out, sizeof out);
    ck_assert_str_eq(out, "$.x[\"0\"]");
    gt_pointer_to_dollar(doc, "/a/1/\"q", out, sizeof out);
    ck_assert_str_eq(out, "$.a[1][\"\\\"q\"]");
    gt_pointer_to_dollar(NULL, "/priority", out, sizeof out);
    ck_assert_str_eq(out, "$.priority");
    gt_pointer_to_dollar(NULL, "", out, sizeof out);
    ck_assert_str_eq(out, "$");
    gt_pointer_to_dollar(NULL, "/k\n", out, sizeof out);
    ck_assert_str_eq(out, "$[\"k\\u000a\"]");
    gt_pointer_to_dollar(NULL, "/averyveryverylongname", out, 8);
    ck_assert_str_eq(out, "$.avery");
}
END_TEST

START_TEST(test_number_compare_exact)
{
    const gt_value *n = parse("[40, 40.00, 4e1, 400e-1, 40.000000000000001, 39.99, -1, -0, 0, 0.001, 1e-3, -2, -10]");
    const gt_value *const *v = (const gt_value *const *)n->u.arr.items;
    ck_assert_int_eq(gt_number_compare(v[0], v[1]), 0);
    ck_assert_int_eq(gt_number_compare(v[0], v[2]), 0);
    ck_assert_int_eq(gt_number_compare(v[0], v[3]), 0);
    ck_assert_int_eq(gt_number_compare(v[4], v[0]), 1);
    ck_assert_int_eq(gt_number_compare(v[5], v[0]), -1);
    ck_assert_int_eq(gt_number_compare(v[6], v[7]), -1);
    ck_assert_int_eq(gt_number_compare(v[7], v[8]), 0);
    ck_assert_int_eq(gt_number_compare(v[9], v[10]), 0);
    ck_assert_int_eq(gt_number_compare(v[11], v[12]), 1);
    ck_assert_int_eq(gt_number_compare(v[12], v[6]), -1);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("semantic");
    TCase *tc = tcase_create("rules");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_implies);
    tcase_add_test(tc, test_rule_count);
    tcase_add_test(tc, test_result_init_clears);
    tcase_add_test(tc, test_member_of_scoped);
    tcase_add_test(tc, test_member_of_plain_and_missing_context);
    tcase_add_test(tc, test_compare);
    tcase_add_test(tc, test_resolves_evidence);
    tcase_add_test(tc, test_missing_evidence_is_the_reason);
    tcase_add_test(tc, test_absent_with_when);
    tcase_add_test(tc, test_compile_problems);
    tcase_add_test(tc, test_pointer_helpers);
    tcase_add_test(tc, test_number_compare_exact);
    suite_add_tcase(suite, tc);
    return suite;
}

GT_TEST_MAIN()
