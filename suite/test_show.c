/* test_show.c — `gauntlet show CASE`: the one-screen view of a case. The
 * contract (last line, exit codes), and what a person debugging a case needs
 * to see: where a syntax error is (a caret under the column), which code
 * points are not what they look like (homoglyphs, combining marks, invisible
 * characters), and that a rejection the case asks for is not called FAILED. */
#include <string.h>

#include "runner/cli/commands.h"
#include "gt_test.h"

static char out[262144];

static int show(const char *id)
{
    char *argv[] = {"show", (char *)id, NULL};
    return gt_test_cli(gt_cmd_show, argv, out, sizeof out);
}

static const char *last_line(void)
{
    static char line[512];
    size_t len = strlen(out);
    while (len > 0 && out[len - 1] == '\n')
        len--;
    size_t start = len;
    while (start > 0 && out[start - 1] != '\n')
        start--;
    snprintf(line, sizeof line, "%.*s", (int)(len - start), out + start);
    return line;
}

START_TEST(expected_rejection_is_not_failed)
{
    ck_assert_int_eq(show("structure.enum.cyrillic-homoglyph"), 0);
    ck_assert_str_eq(last_line(), "PASS structure.enum.cyrillic-homoglyph");
    ck_assert_msg(strstr(out, "  structure  rejected, as expected\n") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "FAILED") == NULL, "%s", out);
    /* the Cyrillic i looks like a Latin one: its number and place are listed */
    ck_assert_msg(strstr(out, "non-ASCII code points (line:column):\n    1:16  U+0456  \xe2\x80\x9c\xd1\x96\xe2\x80\x9d\n") !=
                      NULL,
                  "%s", out);
}
END_TEST

START_TEST(invisible_and_combining_are_marked)
{
    ck_assert_int_eq(show("structure.keys.zero-width-space-in-key"), 0);
    ck_assert_msg(strstr(out, "  U+200B  invisible\n") != NULL, "%s", out);
    ck_assert_int_eq(show("structure.keys.nfd-against-nfc-property"), 0);
    ck_assert_msg(strstr(out, "1:7  U+0301  combining\n") != NULL, "%s", out);
}
END_TEST

START_TEST(caret_under_the_failing_column)
{
    ck_assert_int_eq(show("syntax.duplicate.priority-twice"), 0);
    const char *where = strstr(out, "where it failed (line 1, column 93):\n    ...");
    ck_assert_msg(where != NULL, "%s", out);
    /* the caret sits under the second "priority" key's opening quote */
    const char *text = strchr(where, '\n') + 1;
    const char *caret_line = strchr(text, '\n') + 1;
    size_t caret = strcspn(caret_line, "^");
    ck_assert_int_lt(caret, strlen(text));
    ck_assert_msg(strncmp(text + caret, "\"priority\": 5", 13) == 0, "%.*s", 200, text);
    ck_assert_msg(strstr(out, "  syntax     rejected, as expected\n") != NULL, "%s", out);
}
END_TEST

START_TEST(no_such_case_exits_2)
{
    ck_assert_int_eq(show("syntax.duplicate.priority-twise"), 2);
    ck_assert_msg(strstr(out, "no case 'syntax.duplicate.priority-twise'") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "syntax.duplicate.priority-twice") != NULL, "a suggestion: %s", out);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("show");
    TCase *tc = tcase_create("show");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, expected_rejection_is_not_failed);
    tcase_add_test(tc, invisible_and_combining_are_marked);
    tcase_add_test(tc, caret_under_the_failing_column);
    tcase_add_test(tc, no_such_case_exits_2);
    suite_add_tcase(suite, tc);
    return suite;
}

GT_TEST_MAIN()
