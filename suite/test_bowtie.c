/* test_bowtie.c — `gauntlet bowtie` as Bowtie sees it. suite/bowtie_driver.py
 * plays Bowtie's side over pipes (conformance.md section 3): one check per
 * protocol rule; the JSON-Schema-Test-Suite's required tests of all five
 * dialects with 0 failed, 0 errored, 0 skipped (GT_JSTS_DIR, the submodule or
 * ../shared; a named skip when absent); and the image build file
 * bowtie/Containerfile parsed instruction by instruction. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gt_test.h"

static char out[1 << 16];

static const char *gauntlet(void)
{
    const char *g = getenv("GAUNTLET");
    return g && g[0] ? g : "build/gauntlet";
}

START_TEST(every_protocol_rule)
{
    char command[1024];
    snprintf(command, sizeof command, "python3 suite/bowtie_driver.py protocol '%s' 2>&1", gauntlet());
    int rc = gt_test_shell(command, out, sizeof out);
    ck_assert_msg(rc == 0, "protocol checks failed (exit %d):\n%s", rc, out);
    ck_assert_ptr_null(strstr(out, "FAIL"));
    /* The rules the driver is asked to hold: seq echo (non-integer too),
     * errored with seq, dialect replies, stop, unknown command, malformed line. */
    const char *rules[] = {"ok run: seq \"a string\" echoed exactly", "ok run: seq 1.5 echoed exactly",
                           "ok run: a schema that does not compile answers errored with seq",
                           "ok dialect: ok true", "ok dialect: schemas without $schema follow it",
                           "ok stop: exit 0", "ok unknown command: exit 2", "ok malformed line: exit 2"};
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        ck_assert_msg(strstr(out, rules[i]) != NULL, "missing check '%s' in:\n%s", rules[i], out);
}
END_TEST

START_TEST(all_five_dialects_at_100_percent)
{
    const char *root = gt_test_jsts_dir();
    const char *env = getenv("GT_JSTS_DIR");
    ck_assert_msg(root != NULL || env == NULL || env[0] == '\0', "GT_JSTS_DIR=%s has no tests/ folder", env);
    if (root == NULL) {
        gt_test_data_skip("bowtie driver over the JSON-Schema-Test-Suite", "JSON-Schema-Test-Suite",
                          GT_TEST_JSTS_WHERE);
        return;
    }
    char command[2048];
    snprintf(command, sizeof command, "python3 suite/bowtie_driver.py suite '%s' '%s' 2>&1", gauntlet(), root);
    int rc = gt_test_shell(command, out, sizeof out);
    printf("%s", out);
    ck_assert_msg(rc == 0, "the driver found failures (exit %d):\n%s", rc, out);
    const char *dialects[] = {"draft2020-12", "draft2019-09", "draft7", "draft6", "draft4"};
    for (size_t i = 0; i < 5; i++) {
        char want[64];
        snprintf(want, sizeof want, "bowtie %s: ", dialects[i]);
        const char *line = strstr(out, want);
        ck_assert_msg(line != NULL, "no line for %s in:\n%s", dialects[i], out);
        ck_assert_msg(strstr(line, " 0 failed, 0 errored, 0 skipped (100.00%)") != NULL, "%.200s", line);
    }
}
END_TEST

START_TEST(containerfile_parses)
{
    int rc = gt_test_shell("python3 suite/bowtie_driver.py containerfile bowtie/Containerfile 2>&1", out, sizeof out);
    ck_assert_msg(rc == 0, "bowtie/Containerfile:\n%s", out);
    ck_assert_ptr_nonnull(strstr(out, "2 stages, 0 problems"));
    /* The checker can fail: an unnamed stage and a shell-form ENTRYPOINT. */
    rc = gt_test_shell("sed -e 's/ AS runtime//' -e 's/^ENTRYPOINT .*/ENTRYPOINT gauntlet bowtie/' "
                       "bowtie/Containerfile > /tmp/gt-bowtie-bad.cf && "
                       "python3 suite/bowtie_driver.py containerfile /tmp/gt-bowtie-bad.cf 2>&1",
                       out, sizeof out);
    ck_assert_int_eq(rc, 1);
    ck_assert_ptr_nonnull(strstr(out, "stage not named"));
    ck_assert_ptr_nonnull(strstr(out, "not in exec (JSON array) form"));
    remove("/tmp/gt-bowtie-bad.cf");
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("bowtie");
    TCase *tc = tcase_create("bowtie");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, every_protocol_rule);
    tcase_add_test(tc, all_five_dialects_at_100_percent);
    tcase_add_test(tc, containerfile_parses);
    suite_add_tcase(suite, tc);
    return suite;
}

GT_TEST_MAIN()
