/* test_loop_cli.c — `gauntlet loop`: exit codes, the one-line envelope,
 * bad-script messages naming file and JSON Pointer, flags, the transcript,
 * and the real MAX_STRUCTURED_OUTPUT_RETRIES (which a script's env beats).
 * Runs gt_cmd_loop in process with stdout/stderr sent to temporary files. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runner/cli/commands.h"
#include "gt_test.h"

typedef struct cli_run {
    int status;
    char out[65536];
    char err[65536];
} cli_run;

static void slurp(FILE *file, char *into, size_t size)
{
    rewind(file);
    size_t got = fread(into, 1, size - 1, file);
    into[got] = '\0';
    fclose(file);
}

static void run_cli(cli_run *run, int argc, char **argv)
{
    fflush(stdout);
    fflush(stderr);
    FILE *out = tmpfile(), *err = tmpfile();
    ck_assert(out && err);
    int saved_out = dup(STDOUT_FILENO), saved_err = dup(STDERR_FILENO);
    dup2(fileno(out), STDOUT_FILENO);
    dup2(fileno(err), STDERR_FILENO);
    run->status = gt_cmd_loop(argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, STDOUT_FILENO);
    dup2(saved_err, STDERR_FILENO);
    close(saved_out);
    close(saved_err);
    slurp(out, run->out, sizeof run->out);
    slurp(err, run->err, sizeof run->err);
}

static char *write_script(const char *text)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/gt-loop-cli-XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return path;
}

#define SCHEMA "{\"type\":\"object\",\"properties\":{\"cause\":{\"type\":\"string\"}},\"required\":[\"cause\"]}"
#define CALL(id, input) "{\"message\":{\"content\":[{\"type\":\"tool_use\",\"id\":\"" id "\",\"name\":\"StructuredOutput\",\"input\":" input "}]}}"

static void run_script(cli_run *run, const char *script, bool transcript)
{
    char *path = write_script(script);
    char *argv[] = {"loop", "--script", path, transcript ? "--transcript" : NULL, NULL};
    run_cli(run, transcript ? 4 : 3, argv);
    unlink(path);
}

START_TEST(success_prints_one_line_and_exits_0)
{
    cli_run run;
    run_script(&run, "{\"json_schema\":" SCHEMA ",\"turns\":[" CALL("t1", "{\"cause\":\"x\"}") "]}", false);
    ck_assert_int_eq(run.status, 0);
    ck_assert_msg(strncmp(run.out, "{\"type\":\"result\",\"subtype\":\"success\"", 36) == 0, "%s", run.out);
    ck_assert(strstr(run.out, "\"structured_output\":{\"cause\":\"x\"}") != NULL);
    char *newline = strchr(run.out, '\n');
    ck_assert_ptr_nonnull(newline);
    ck_assert_str_eq(newline, "\n"); /* exactly one line */
    ck_assert_str_eq(run.err, "");
}
END_TEST

START_TEST(error_subtype_exits_1)
{
    cli_run run;
    run_script(&run, "{\"json_schema\":" SCHEMA ",\"turns\":[{\"message\":{\"content\":\"no\"}},{\"message\":{\"content\":\"no\"}}]}",
               false);
    ck_assert_int_eq(run.status, 1);
    ck_assert(strstr(run.out, "\"subtype\":\"error_no_structured_output\"") != NULL);
    run_script(&run, "{\"json_schema_text\":\"[\",\"turns\":[]}", false);
    ck_assert_int_eq(run.status, 1);
    ck_assert(strstr(run.out, "--json-schema is not valid JSON") != NULL);
}
END_TEST

START_TEST(bad_script_exits_2_naming_file_and_pointer)
{
    cli_run run;
    char *path = write_script("{\"turns\":[{\"message\":{\"content\":\"x\",\"usage\":{\"input_tokens\":-4}}}]}");
    char *argv[] = {"loop", "--script", path, NULL};
    run_cli(&run, 3, argv);
    ck_assert_int_eq(run.status, 2);
    ck_assert_msg(strstr(run.err, path) != NULL, "%s", run.err);
    ck_assert_msg(strstr(run.err, "/turns/0/message/usage/input_tokens") != NULL, "%s", run.err);
    ck_assert_str_eq(run.out, "");
    unlink(path);
    path = write_script("not json");
    argv[2] = path;
    run_cli(&run, 3, argv);
    ck_assert_int_eq(run.status, 2);
    ck_assert_msg(strstr(run.err, "not valid JSON") != NULL, "%s", run.err);
    unlink(path);
}
END_TEST

START_TEST(usage_errors_exit_2)
{
    cli_run run;
    char *unknown[] = {"loop", "--scirpt", "x.json", NULL};
    run_cli(&run, 3, unknown);
    ck_assert_int_eq(run.status, 2);
    ck_assert_msg(strstr(run.err, "'--scirpt'") != NULL, "%s", run.err);
    char *missing[] = {"loop", NULL};
    run_cli(&run, 1, missing);
    ck_assert_int_eq(run.status, 2);
    ck_assert(strstr(run.err, "--script") != NULL);
    char *dangling[] = {"loop", "--script", NULL};
    run_cli(&run, 2, dangling);
    ck_assert_int_eq(run.status, 2);
    char *absent[] = {"loop", "--script", "/nonexistent/script.json", NULL};
    run_cli(&run, 3, absent);
    ck_assert_int_eq(run.status, 2);
    ck_assert(strstr(run.err, "/nonexistent/script.json") != NULL);
    char *stray[] = {"loop", "extra", NULL};
    run_cli(&run, 2, stray);
    ck_assert_int_eq(run.status, 2);
    ck_assert(strstr(run.err, "'extra'") != NULL);
}
END_TEST

START_TEST(help_exits_0)
{
    cli_run run;
    char *argv[] = {"loop", "--help", NULL};
    run_cli(&run, 2, argv);
    ck_assert_int_eq(run.status, 0);
    ck_assert(strstr(run.out, "usage: gauntlet loop") != NULL);
    ck_assert(strstr(run.out, "MAX_STRUCTURED_OUTPUT_RETRIES") != NULL);
}
END_TEST

START_TEST(transcript_goes_to_stderr)
{
    cli_run run;
    run_script(&run, "{\"json_schema\":" SCHEMA ",\"turns\":[{\"message\":{\"content\":\"text\"}}," CALL(
                         "t1", "{\"cause\":\"x\"}") "," CALL("t9", "{}") "]}",
               true);
    ck_assert_int_eq(run.status, 0);
    ck_assert_msg(strstr(run.err, "-> request 1") != NULL, "%s", run.err);
    ck_assert(strstr(run.err, "[structured-output-enforce]") != NULL);
    ck_assert(strstr(run.err, "1 script turn not played") != NULL);
    ck_assert(strstr(run.out, "-> request") == NULL);
}
END_TEST

START_TEST(real_env_applies_unless_script_sets_it)
{
    const char *script = "{\"json_schema\":" SCHEMA ",\"turns\":[" CALL("t1", "{}") "," CALL("t2", "{}") "," CALL(
        "t3", "{\"cause\":\"x\"}") "]}";
    cli_run run;
    setenv("MAX_STRUCTURED_OUTPUT_RETRIES", "2", 1);
    run_script(&run, script, false);
    ck_assert_int_eq(run.status, 1);
    ck_assert_msg(strstr(run.out, "after 2 attempts") != NULL, "%s", run.out);
    ck_assert(strstr(run.out, "\"attempts_limit\":2") != NULL);
    /* The script's env wins. */
    run_script(&run, "{\"env\":{\"MAX_STRUCTURED_OUTPUT_RETRIES\":\"3\"},\"json_schema\":" SCHEMA ",\"turns\":[" CALL(
                         "t1", "{}") "," CALL("t2", "{}") "," CALL("t3", "{\"cause\":\"x\"}") "]}",
               false);
    ck_assert_int_eq(run.status, 0);
    ck_assert(strstr(run.out, "\"attempts_limit\":3") != NULL);
    setenv("MAX_STRUCTURED_OUTPUT_RETRIES", "lots", 1);
    run_script(&run, script, false);
    ck_assert_int_eq(run.status, 2);
    ck_assert(strstr(run.err, "'lots'") != NULL);
    unsetenv("MAX_STRUCTURED_OUTPUT_RETRIES");
}
END_TEST

/* Issue 12's "done when": a first stream cut inside the StructuredOutput
 * block, then a valid turn, ends success with two API attempts, the cut
 * call retracted and counted; pause_turn then a valid call spends no
 * enforce message. */
START_TEST(cut_then_valid_and_pause_turn)
{
    cli_run run;
    run_script(&run,
               "{\"json_schema\":" SCHEMA ",\"turns\":[{\"stream\":{\"from_message\":{\"content\":[{\"type\":"
               "\"tool_use\",\"id\":\"t1\",\"name\":\"StructuredOutput\",\"input\":{\"cause\":\"x\"}}]},"
               "\"cut\":{\"inside_event\":3,\"keep_bytes\":10}}}," CALL("t2", "{\"cause\":\"y\"}") "]}",
               false);
    ck_assert_msg(run.status == 0, "%s%s", run.out, run.err);
    ck_assert(strstr(run.out, "\"structured_output\":{\"cause\":\"y\"}") != NULL);
    ck_assert_msg(strstr(run.out, "\"accounting\":{\"attempts_used\":2,\"attempts_limit\":5,\"retracted\":1,"
                                  "\"enforce_messages\":0,\"api_attempts\":2,\"model_calls\":2}") != NULL,
                  "%s", run.out);
    run_script(&run,
               "{\"json_schema\":" SCHEMA ",\"turns\":[{\"message\":{\"stop_reason\":\"pause_turn\",\"content\":"
               "\"searching\"}}," CALL("t1", "{\"cause\":\"x\"}") "]}",
               false);
    ck_assert_msg(run.status == 0, "%s%s", run.out, run.err);
    ck_assert_msg(strstr(run.out, "\"enforce_messages\":0,\"api_attempts\":2") != NULL, "%s", run.out);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("loop_cli");
    TCase *cli = tcase_create("cli");
    tcase_add_test(cli, success_prints_one_line_and_exits_0);
    tcase_add_test(cli, error_subtype_exits_1);
    tcase_add_test(cli, bad_script_exits_2_naming_file_and_pointer);
    tcase_add_test(cli, usage_errors_exit_2);
    tcase_add_test(cli, help_exits_0);
    tcase_add_test(cli, transcript_goes_to_stderr);
    tcase_add_test(cli, real_env_applies_unless_script_sets_it);
    tcase_add_test(cli, cut_then_valid_and_pause_turn);
    suite_add_tcase(suite, cli);
    return suite;
}

GT_TEST_MAIN()
