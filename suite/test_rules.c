/* test_rules.c — `gauntlet rules`: every rule of the rule list with its
 * accept / reject case counts, `N of M rules proven`, --uncovered, --cases,
 * and the exit codes (0 all proven, 1 a rule without a case, 2 usage, no rule
 * list or load problems). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runner/cli/commands.h"
#include "gauntlet/runner/corpus.h"
#include "gt_test.h"

#define RULES_DATA "suite/data/rules-cli"

static int rules(char *out, size_t out_len, const char *a, const char *b, const char *c)
{
    char *argv[] = {"rules", (char *)a, (char *)b, (char *)c, NULL};
    return gt_test_cli(gt_cmd_rules, argv, out, out_len);
}

START_TEST(table_counts_and_exit_1_for_an_unproven_rule)
{
    char out[8192];
    ck_assert_int_eq(rules(out, sizeof out, RULES_DATA "/partial", NULL, NULL), 1);
    ck_assert_ptr_nonnull(strstr(out, "rule  cases  accept  reject  statement\n"));
    ck_assert_ptr_nonnull(strstr(out, "A-1       2       1       1  one accept and one reject\n"));
    ck_assert_ptr_nonnull(strstr(out, "A-2       1       0       1  one optional reject\n"));
    /* statements are escaped for the terminal */
    ck_assert_ptr_nonnull(strstr(out, "A-3       0       0       0  no case \\x1b[31m names it\n"));
    ck_assert_ptr_nonnull(strstr(out, "\n2 of 3 rules proven\n"));
    /* rows keep the rule list's order */
    ck_assert(strstr(out, "A-1 ") < strstr(out, "A-2 "));
    ck_assert(strstr(out, "A-2 ") < strstr(out, "A-3 "));
}
END_TEST

START_TEST(uncovered_lists_only_the_rest)
{
    char out[8192];
    ck_assert_int_eq(rules(out, sizeof out, "--uncovered", RULES_DATA "/partial", NULL), 1);
    ck_assert_str_eq(out, "rule  statement\nA-3   no case \\x1b[31m names it\n2 of 3 rules proven\n");
}
END_TEST

START_TEST(cases_lists_ids_with_verdict_and_tier)
{
    char out[8192];
    ck_assert_int_eq(rules(out, sizeof out, RULES_DATA "/partial", "--cases", NULL), 1);
    const char *a1 = strstr(out, "A-1 ");
    ck_assert_ptr_nonnull(a1);
    ck_assert_ptr_nonnull(strstr(a1, "\n    accept rules.accept\n    reject rules.reject (optional)\nA-2 "));
    ck_assert_ptr_null(strstr(out, "rules.none"));
}
END_TEST

START_TEST(every_rule_proven_exits_0)
{
    char out[8192];
    /* a file path: the rule list is the nearest rules.json above it */
    ck_assert_int_eq(rules(out, sizeof out, RULES_DATA "/full/cases.cases.json", NULL, NULL), 0);
    ck_assert_ptr_nonnull(strstr(out, "B-1       1       1       0  the only rule\n"));
    ck_assert_ptr_nonnull(strstr(out, "\n1 of 1 rules proven\n"));
}
END_TEST

START_TEST(problems_and_usage_exit_2)
{
    char out[8192];
    ck_assert_int_eq(rules(out, sizeof out, "--bogus", NULL, NULL), 2);
    ck_assert_ptr_nonnull(strstr(out, "unknown option '--bogus'"));
    ck_assert_int_eq(rules(out, sizeof out, "--help", NULL, NULL), 0);
    ck_assert_ptr_nonnull(strstr(out, "usage: gauntlet rules"));

    char dir[] = "build/gt-rules-XXXXXX"; /* not under /tmp: another run may put a rules.json there */
    ck_assert_ptr_nonnull(mkdtemp(dir));
    /* no rules.json anywhere above (unless another program left one in
     * /tmp): nothing to report on */
    if (access("/tmp/" GT_CORPUS_RULES_FILE, F_OK) != 0 && access("/" GT_CORPUS_RULES_FILE, F_OK) != 0) {
        ck_assert_int_eq(rules(out, sizeof out, dir, NULL, NULL), 2);
        ck_assert_ptr_nonnull(strstr(out, "no rules.json"));
    }

    /* an unknown id is a load problem: listed on stderr, exit 2 even though
     * the rule that is named is proven */
    char path[128];
    snprintf(path, sizeof path, "%s/rules.json", dir);
    FILE *file = fopen(path, "w");
    ck_assert_ptr_nonnull(file);
    fputs("{\"format\": \"gauntlet-rules/1\", \"rules\": [{\"id\": \"C-1\", \"statement\": \"s\"}]}", file);
    fclose(file);
    char cases[128];
    snprintf(cases, sizeof cases, "%s/x.cases.json", dir);
    file = fopen(cases, "w");
    ck_assert_ptr_nonnull(file);
    fputs("{\"format\": \"gauntlet-corpus/1\", \"cases\": [\n"
          "{\"id\": \"a\", \"gate\": \"syntax\", \"category\": \"c\", \"rules\": [\"C-1\"], \"input\": \"1\", "
          "\"expect\": {\"verdict\": \"accept\"}},\n"
          "{\"id\": \"b\", \"gate\": \"syntax\", \"category\": \"c\", \"rules\": [\"C-9\"], \"input\": \"1\", "
          "\"expect\": {\"verdict\": \"accept\"}}]}",
          file);
    fclose(file);
    ck_assert_int_eq(rules(out, sizeof out, dir, NULL, NULL), 2);
    ck_assert_ptr_nonnull(strstr(out, "1 of 1 rules proven\n"));
    ck_assert_ptr_nonnull(strstr(out, "x.cases.json:3: /cases/1/rules/0: unknown rule id 'C-9'"));
    unlink(cases);
    unlink(path);
    rmdir(dir);
}
END_TEST

/* gt_corpus_load_rules reads a list once however often it is reached. */
START_TEST(rule_list_is_read_once)
{
    gt_corpus *corpus = gt_corpus_new();
    ck_assert_int_eq(gt_corpus_load_rules(corpus, RULES_DATA "/partial"), 1);
    ck_assert_int_eq(gt_corpus_load_rules(corpus, RULES_DATA "/partial/cases.cases.json"), 1);
    ck_assert_int_eq(gt_corpus_load(corpus, RULES_DATA "/partial"), 3);
    ck_assert_uint_eq(gt_corpus_rule_count(corpus), 3);
    const gt_rule *first = gt_corpus_rule(corpus, 0);
    ck_assert_str_eq(first->id, "A-1");
    ck_assert_str_eq(first->source, "test");
    ck_assert_ptr_null(gt_corpus_rule(corpus, 1)->source);
    ck_assert_ptr_nonnull(strstr(first->list, "rules-cli/partial/rules.json"));
    ck_assert_ptr_null(gt_corpus_rule(corpus, 3));
    gt_corpus_free(corpus);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("rules");
    TCase *cli = tcase_create("cli");
    tcase_add_test(cli, table_counts_and_exit_1_for_an_unproven_rule);
    tcase_add_test(cli, uncovered_lists_only_the_rest);
    tcase_add_test(cli, cases_lists_ids_with_verdict_and_tier);
    tcase_add_test(cli, every_rule_proven_exits_0);
    tcase_add_test(cli, problems_and_usage_exit_2);
    tcase_add_test(cli, rule_list_is_read_once);
    suite_add_tcase(suite, cli);
    return suite;
}

GT_TEST_MAIN()
