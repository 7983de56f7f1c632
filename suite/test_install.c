/* test_install.c — an installed gauntlet works on its own:
 * scripts/test-install.sh runs `make install` into a temporary DESTDIR and
 * checks the installed tree (files, soname, a man page per command, the
 * binary finding its corpus outside the checkout, a program built with only
 * pkg-config against the shared and the static library, every function of
 * the installed headers defined in both). Its lines are printed here. */
#include <string.h>

#include "gt_test.h"

START_TEST(install_into_a_temporary_prefix)
{
    char log_path[64], command[160];
    snprintf(log_path, sizeof log_path, "/tmp/gt-install-test-%d.log", (int)getpid());
    snprintf(command, sizeof command, "sh scripts/test-install.sh > %s 2>&1", log_path);
    fflush(NULL);
    int status = system(command);
    char *log = gt_test_slurp(log_path);
    fputs(log, stdout);
    fflush(stdout);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "scripts/test-install.sh failed");
    ck_assert_ptr_null(strstr(log, "install: FAIL"));
    ck_assert_ptr_nonnull(strstr(log, " passed, 0 failed"));
    free(log);
    unlink(log_path);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("install");
    TCase *install = tcase_create("install");
    tcase_set_timeout(install, 900);
    tcase_add_test(install, install_into_a_temporary_prefix);
    suite_add_tcase(suite, install);
    return suite;
}

GT_TEST_MAIN()
