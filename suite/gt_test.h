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
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* Directory of the bundled corpus and test data, relative to the repo root
 * (tests run from there). */
#define GT_TEST_CORPUS "corpus"

/* Run a CLI command function (gt_cmd_run, ...) in a child process with
 * stdout and stderr captured, in flush order, into `out`; CI is unset so the
 * output is the terminal-free form. Returns the exit code. */
static inline int gt_test_cli(int (*command)(int, char **), char **argv, char *out, size_t out_len)
{
    int argc = 0;
    while (argv[argc] != NULL)
        argc++;
    char path[] = "/tmp/gt-test-cli-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        dup2(fd, 1);
        dup2(fd, 2);
        unsetenv("CI");
        int code = command(argc, argv);
        fflush(NULL);
        _exit(code);
    }
    int status = 0;
    waitpid(child, &status, 0);
    lseek(fd, 0, SEEK_SET);
    ssize_t got = read(fd, out, out_len - 1);
    out[got > 0 ? got : 0] = '\0';
    close(fd);
    unlink(path);
    ck_assert(WIFEXITED(status));
    return WEXITSTATUS(status);
}

/* GAUNTLET defaults to build/gauntlet, and a suite binary takes no
 * arguments: the http target hands wrappers such as
 * adapters/http-reference-client/run.sh its own executable (GAUNTLET_BIN),
 * which in a test binary run by hand would be the test binary itself, started
 * again as "test_x client ..." recursively (a fork bomb). The http target
 * also sets GAUNTLET_BIN only for an executable named gauntlet*. */

/* Run `command` with /bin/sh, its stdout into `out` (NUL-terminated,
 * truncated to fit). Returns the exit status, or -1 when it did not exit. */
static inline int gt_test_shell(const char *command, char *out, size_t out_len)
{
    FILE *pipe = popen(command, "r");
    ck_assert_ptr_nonnull(pipe);
    size_t got = fread(out, 1, out_len - 1, pipe);
    out[got] = '\0';
    int status = pclose(pipe);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* A whole file as a NUL-terminated malloc'd string (fails the test when it
 * cannot be read). */
static inline char *gt_test_slurp(const char *path)
{
    FILE *in = fopen(path, "rb");
    ck_assert_msg(in != NULL, "cannot open %s", path);
    fseek(in, 0, SEEK_END);
    long len = ftell(in);
    rewind(in);
    char *text = malloc((size_t)len + 1);
    ck_assert_uint_eq(fread(text, 1, (size_t)len, in), (size_t)len);
    text[len] = '\0';
    fclose(in);
    return text;
}

/* How many times `needle` occurs in `text` (overlaps counted). */
static inline size_t gt_test_count_of(const char *text, const char *needle)
{
    size_t count = 0;
    for (const char *at = strstr(text, needle); at != NULL; at = strstr(at + 1, needle))
        count++;
    return count;
}

/* Third-party test data (never copied into the repository) is found, in
 * order, through its environment variable, the git submodule under
 * third_party/ (when checked out) and the shared folder beside the
 * repository; scripts/test-data.sh applies the same order to the shell
 * checks. Absent everywhere, the check that needs it is skipped with one
 * line starting GT_TEST_SKIP_PREFIX (scripts/run-tests.sh counts them). */
#define GT_TEST_SKIP_PREFIX "skipped (test data): "
#define GT_TEST_FETCH_HINT "fetch it with `git submodule update --init`"

/* The first of `env`'s value, `submodule` and `shared` under which `probe`
 * (a file or folder inside the data set, "" for the path itself) exists;
 * NULL when none does. `env` set but wrong is NULL too: an explicit choice
 * is never silently replaced. The result is `env`'s value or a literal. */
static inline const char *gt_test_data_find(const char *env, const char *submodule, const char *shared,
                                            const char *probe)
{
    const char *from_env = getenv(env);
    const char *candidates[] = {from_env, submodule, shared};
    for (int i = 0; i < 3; i++) {
        if (candidates[i] == NULL || candidates[i][0] == '\0')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s%s%s", candidates[i], probe[0] ? "/" : "", probe);
        if (access(path, R_OK) == 0)
            return candidates[i];
        if (i == 0)
            return NULL;
    }
    return NULL;
}

/* Print the named skip of `check` (one line, flushed before the test's
 * process ends) for the data set `what` looked for in `where`. */
static inline void gt_test_data_skip(const char *check, const char *what, const char *where)
{
    printf(GT_TEST_SKIP_PREFIX "%s: %s not found (%s); " GT_TEST_FETCH_HINT "\n", check, what, where);
    fflush(stdout);
}

#define GT_TEST_JUNIT_XSD_WHERE "GT_JUNIT_XSD, third_party/JUnit-Schema/JUnit.xsd, ../shared/junit/JUnit.xsd"

/* The Apache Ant JUnit schema (Jenkins' xunit plugin): GT_JUNIT_XSD, the
 * JUnit-Schema submodule, ../shared/junit; NULL when absent everywhere. */
static inline const char *gt_test_junit_xsd(void)
{
    return gt_test_data_find("GT_JUNIT_XSD", "third_party/JUnit-Schema/JUnit.xsd", "../shared/junit/JUnit.xsd", "");
}

/* The JSON-Schema-Test-Suite checkout (a folder holding tests/):
 * GT_JSTS_DIR, the submodule, ../shared; NULL when absent everywhere. */
static inline const char *gt_test_jsts_dir(void)
{
    return gt_test_data_find("GT_JSTS_DIR", "third_party/JSON-Schema-Test-Suite", "../shared/JSON-Schema-Test-Suite",
                             "tests");
}
#define GT_TEST_JSTS_WHERE "GT_JSTS_DIR, third_party/JSON-Schema-Test-Suite, ../shared/JSON-Schema-Test-Suite"

/* Validate the XML file `path` with `xmllint --schema gt_test_junit_xsd()`
 * (Debian libxml2-utils). When the schema is absent everywhere, prints the
 * named skip and returns 0 (the rest of the test still runs); when a
 * GT_JUNIT_XSD that names no readable file or xmllint is missing, fails the
 * test. Returns xmllint's exit code (0 = valid); its messages go to the
 * test's output. */
static inline int gt_test_junit_validate(const char *path)
{
    const char *xsd = gt_test_junit_xsd();
    const char *env = getenv("GT_JUNIT_XSD");
    ck_assert_msg(xsd != NULL || env == NULL || env[0] == '\0', "GT_JUNIT_XSD=%s is not a readable file", env);
    if (xsd == NULL) {
        gt_test_data_skip("JUnit schema check", "JUnit.xsd", GT_TEST_JUNIT_XSD_WHERE);
        return 0;
    }
    ck_assert_msg(system("xmllint --version >/dev/null 2>&1") == 0, "xmllint missing: apt-get install libxml2-utils");
    char command[4096];
    int len = snprintf(command, sizeof command, "xmllint --noout --schema '%s' '%s' 2>&1", xsd, path);
    ck_assert_int_lt(len, (int)sizeof command);
    int status = system(command);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

#define GT_TEST_MAIN()                                                     \
    int main(int argc, char **argv)                                        \
    {                                                                      \
        if (argc > 1) {                                                    \
            fprintf(stderr, "%s: a test suite takes no arguments\n", argv[0]); \
            return 2;                                                      \
        }                                                                  \
        setenv("GAUNTLET", "build/gauntlet", 0);                           \
        SRunner *runner = srunner_create(make_suite());                    \
        srunner_run_all(runner, CK_NORMAL);                                \
        int failed = srunner_ntests_failed(runner);                        \
        srunner_free(runner);                                              \
        return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;                  \
    }

#endif
