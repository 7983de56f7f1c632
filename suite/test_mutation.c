/* test_mutation.c — the mutation driver (scripts/mutation.py, `make mutation`)
 * measured on itself: its sample is a function of the seed, and a mutant the
 * corpus must catch (the policy gate never finding the caller's role) is
 * classified "killed" by a case failure, and one that crashes the whole run
 * is killed by a case once the corpus is replayed file by file; without
 * MUTATION_SEED a fresh seed is drawn and printed first. The full measurement takes minutes
 * and is not part of `make test`; see docs/mutation.md. */
#include "gt_test.h"

#include <libgen.h>
#include <stdbool.h>

/* The build directory the suite runs from: the folder of $GAUNTLET. */
static void build_dir(char *out, size_t out_len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", getenv("GAUNTLET") != NULL ? getenv("GAUNTLET") : "build/gauntlet");
    snprintf(out, out_len, "%s", dirname(path));
}

/* Drop the lines of a --list that show listed equivalents met on the way:
 * they take no measured place, so the sample size counts the others. */
static void drop_equivalent_lines(char *text)
{
    char *w = text;
    for (char *line = text; *line != '\0';) {
        char *nl = strchr(line, '\n');
        size_t len = nl != NULL ? (size_t)(nl - line) + 1 : strlen(line);
        char saved = line[len];
        line[len] = '\0';
        bool equivalent = strstr(line, "(listed equivalent)") != NULL;
        line[len] = saved;
        if (!equivalent) {
            memmove(w, line, len);
            w += len;
        }
        line += len;
    }
    *w = '\0';
}

START_TEST(test_sample_is_seeded)
{
    static char first[16384], again[16384], other[16384];
    const char *list = "python3 scripts/mutation.py --list --sample 8 --files policy.c parse.c --seed ";
    char command[512];
    snprintf(command, sizeof command, "%s3", list);
    ck_assert_int_eq(gt_test_shell(command, first, sizeof first), 0);
    ck_assert_int_eq(gt_test_shell(command, again, sizeof again), 0);
    snprintf(command, sizeof command, "%s4", list);
    ck_assert_int_eq(gt_test_shell(command, other, sizeof other), 0);
    ck_assert_str_eq(first, again);
    ck_assert_str_ne(first, other);
    drop_equivalent_lines(first);
    ck_assert_uint_eq(gt_test_count_of(first, "\n"), 8);
    /* stratified: 4 of each file, each line "id file:line op mutated" */
    ck_assert_uint_eq(gt_test_count_of(first, " policy.c:"), 4);
    ck_assert_uint_eq(gt_test_count_of(first, " parse.c:"), 4);
}
END_TEST

START_TEST(test_fresh_seed_without_mutation_seed)
{
    /* no MUTATION_SEED: a fresh seed is drawn and printed first; two runs
     * draw different seeds (a million values: a clash is a failure to report) */
    static char first[16384], again[16384];
    const char *list = "env -u MUTATION_SEED python3 scripts/mutation.py --list --sample 2 --files policy.c 2>&1";
    ck_assert_int_eq(gt_test_shell(list, first, sizeof first), 0);
    ck_assert_int_eq(gt_test_shell(list, again, sizeof again), 0);
    ck_assert_msg(strncmp(first, "mutation: fresh seed ", 21) == 0, "no seed first:\n%s", first);
    ck_assert_ptr_nonnull(strstr(first, "(reproduce with MUTATION_SEED="));
    char *nl = strchr(first, '\n'), *nl2 = strchr(again, '\n');
    ck_assert_ptr_nonnull(nl);
    ck_assert_ptr_nonnull(nl2);
    *nl = '\0';
    *nl2 = '\0';
    ck_assert_str_ne(first, again);
}
END_TEST

START_TEST(test_known_mutant_killed)
{
    static char out[65536];
    char build[1024], command[1200];
    build_dir(build, sizeof build);
    snprintf(command, sizeof command, "python3 scripts/mutation.py --self-test --build '%s' 2>&1", build);
    int code = gt_test_shell(command, out, sizeof out);
    ck_assert_msg(code == 0, "mutation self-test failed:\n%s", out);
    ck_assert_ptr_nonnull(strstr(out, ": killed ['policy."));
    /* a mutant that crashes the whole run is judged by the cases of the files it does not crash */
    ck_assert_ptr_nonnull(strstr(out, ": crash, then file by file killed ['"));
    /* the self-test also checks the case-insensitive out-of-memory filter
     * and the kills / required / detected columns: it reported no problem */
    ck_assert_ptr_null(strstr(out, "out-of-memory filter mutates"));
    ck_assert_ptr_null(strstr(out, "score table total"));
}
END_TEST

START_TEST(test_equivalent_list_well_formed)
{
    /* every marked mutant has an id of 10 hex digits and a reason */
    char *text = gt_test_slurp("scripts/mutation-equivalent.txt");
    for (char *line = strtok(text, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        if (line[0] == '#')
            continue;
        ck_assert_msg(strspn(line, "0123456789abcdef") == 10 && line[10] == ' ', "bad id: %s", line);
        ck_assert_msg(strlen(line + 10) > 3, "no reason: %s", line);
    }
    free(text);
}
END_TEST

/* No line of the list names a mutant that no longer exists: a reference line
 * that changed must have its new mutant judged again, not stay listed. */
START_TEST(test_equivalent_list_not_stale)
{
    char out[8192];
    int rc = gt_test_shell("python3 scripts/mutation.py --stale 2>&1", out, sizeof out);
    ck_assert_msg(rc == 0, "%s", out);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("mutation");
    TCase *tc = tcase_create("driver");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_sample_is_seeded);
    tcase_add_test(tc, test_equivalent_list_not_stale);
    tcase_add_test(tc, test_fresh_seed_without_mutation_seed);
    tcase_add_test(tc, test_known_mutant_killed);
    tcase_add_test(tc, test_equivalent_list_well_formed);
    suite_add_tcase(suite, tc);
    return suite;
}

GT_TEST_MAIN()
