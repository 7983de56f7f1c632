/* gt_test.h — shared helpers for the Check suites in suite/.
 *
 * Each suite/test_*.c is its own binary: it defines `static Suite *make_suite(void)`
 * and ends with GT_TEST_MAIN(). scripts/run-tests.sh runs every binary and
 * adds up Check's summaries into the final "N passed, N failed" line. */
#ifndef GT_TEST_H
#define GT_TEST_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

/* Directory of the bundled corpus and test data, relative to the repo root
 * (tests run from there). */
#define GT_TEST_CORPUS "corpus"

#define GT_TEST_MAIN()                                                     \
    int main(void)                                                         \
    {                                                                      \
        SRunner *runner = srunner_create(make_suite());                    \
        srunner_run_all(runner, CK_NORMAL);                                \
        int failed = srunner_ntests_failed(runner);                        \
        srunner_free(runner);                                              \
        return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;                  \
    }

#endif
