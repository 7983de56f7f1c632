/* test_bounds.c — bounded work on hostile input (issue 13): schema evaluation
 * memoised and budgeted, the reference target's per-case deadline, PCRE2
 * limits reported as their own reason, float-to-integer conversions of
 * attacker numbers, size limits enforced while reading. */
#include <arpa/inet.h>
#include <curl/curl.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "gauntlet/runner/corpus.h"
#include "gauntlet/runner/mock.h"
#include "gauntlet/runner/report.h"
#include "gauntlet/util.h"
#include "gauntlet/parse.h"
#include "gauntlet/pipeline.h"
#include "gauntlet/runner/run.h"
#include "gauntlet/schema.h"
#include "gauntlet/stream.h"
#include "runner/cli/commands.h"
#include "gt_test.h"
#include "gt_test_http.h"
#include "runner/targets/target_adapter.h"

/* The issue's schema: every level offers two equal references, so a naive
 * evaluator of an invalid instance tries 2^depth paths. */
#define EXP_ANY_OF                                                                                                     \
    "{\"$defs\":{\"x\":{\"anyOf\":[{\"$ref\":\"#/$defs/z\"},{\"$ref\":\"#/$defs/z\"}]},"                               \
    "\"z\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/$defs/x\"}}},\"$ref\":\"#/$defs/x\"}"
/* allOf needs both branches even on the error path: exponential errors, which
 * only the budget can stop. */
#define EXP_ALL_OF                                                                                                     \
    "{\"$defs\":{\"x\":{\"allOf\":[{\"$ref\":\"#/$defs/z\"},{\"$ref\":\"#/$defs/z\"}]},"                               \
    "\"z\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/$defs/x\"}}},\"$ref\":\"#/$defs/x\"}"

static gt_schema *compile_with(const char *json, size_t max_evaluations)
{
    gt_schema_options options;
    gt_schema_options_init(&options);
    options.max_evaluations = max_evaluations;
    gt_schema_problem problem;
    gt_schema *schema = gt_schema_compile(json, strlen(json), &options, &problem);
    ck_assert_msg(schema != NULL, "compile: %s", problem.message);
    return schema;
}

/* "[[[...[1]...]]]" `depth` deep: invalid at the bottom. */
static char *nested(size_t depth, const char *leaf)
{
    char *text = malloc(2 * depth + strlen(leaf) + 1);
    memset(text, '[', depth);
    strcpy(text + depth, leaf);
    memset(text + depth + strlen(leaf), ']', depth);
    text[2 * depth + strlen(leaf)] = '\0';
    return text;
}

static const gt_value *parse_in(gt_arena *arena, const char *text)
{
    gt_parse_error error;
    const gt_value *value = gt_parse(arena, text, strlen(text), NULL, &error);
    ck_assert_msg(value != NULL, "parse: %s", error.message);
    return value;
}

/* Validate "[[...leaf...]]" `depth` deep against `schema` with `errors`
 * (arena and text freed here); the verdict. */
static gt_schema_result validate_nested(const gt_schema *schema, size_t depth, const char *leaf,
                                        gt_schema_errors *errors)
{
    gt_arena *arena = gt_arena_new();
    char *text = nested(depth, leaf);
    gt_schema_result result = gt_schema_validate(schema, parse_in(arena, text), errors);
    free(text);
    gt_arena_free(arena);
    return result;
}

START_TEST(exponential_any_of_is_memoised)
{
    /* 60 levels would be 2^60 branch evaluations without the memo; with it a
     * few hundred fit in a budget of 10,000 */
    gt_schema *schema = compile_with(EXP_ANY_OF, 10000);
    ck_assert_int_eq(validate_nested(schema, 60, "1", NULL), GT_SCHEMA_INVALID);
    gt_schema_errors errors;
    gt_schema_errors_init(&errors);
    ck_assert_int_eq(validate_nested(schema, 60, "1", &errors), GT_SCHEMA_INVALID);
    ck_assert_int_eq(errors.failure, GT_SCHEMA_FAILURE_NONE);
    ck_assert_uint_eq(errors.count, 1);
    ck_assert_str_eq(errors.items[0].keyword, "anyOf");
    ck_assert_int_eq(validate_nested(schema, 60, "", &errors), GT_SCHEMA_VALID);
    gt_schema_errors_free(&errors);
    gt_schema_free(schema);
}
END_TEST

/* The memo is kept only for nodes one instance can meet twice: here both
 * properties and patternProperties apply #/$defs/x to member "a", so 40
 * levels of {"a": ...} would be 2^40 evaluations without it. */
START_TEST(node_shared_by_two_child_keywords_is_memoised)
{
    gt_schema *schema = compile_with("{\"$defs\":{\"x\":{\"type\":\"object\",\"properties\":{\"a\":{\"$ref\":\"#/$defs/x\"}},"
                                     "\"patternProperties\":{\"^a$\":{\"$ref\":\"#/$defs/x\"}}}},\"$ref\":\"#/$defs/x\"}",
                                     10000);
    enum { LEVELS = 40 };
    char text[LEVELS * 8 + 8]; /* valid: a verdict the memo may reuse */
    size_t len = 0;
    for (int i = 0; i < LEVELS; i++)
        len += (size_t)sprintf(text + len, "{\"a\":");
    text[len++] = '{', text[len++] = '}';
    for (int i = 0; i < LEVELS; i++)
        text[len++] = '}';
    text[len] = '\0';
    gt_arena *arena = gt_arena_new();
    const gt_value *value = parse_in(arena, text);
    gt_schema_errors errors;
    gt_schema_errors_init(&errors);
    ck_assert_int_eq(gt_schema_validate(schema, value, &errors), GT_SCHEMA_VALID);
    ck_assert_int_eq(errors.failure, GT_SCHEMA_FAILURE_NONE);
    ck_assert_uint_eq(errors.count, 0);
    gt_schema_errors_free(&errors);
    gt_arena_free(arena);
    gt_schema_free(schema);
}
END_TEST

START_TEST(evaluation_budget_is_its_own_reason)
{
    gt_schema *schema = compile_with(EXP_ALL_OF, 5000);
    gt_arena *arena = gt_arena_new();
    char *text = nested(24, "1");
    const gt_value *value = parse_in(arena, text);
    /* the verdict alone stops at the first failing branch: cheap */
    ck_assert_int_eq(gt_schema_validate(schema, value, NULL), GT_SCHEMA_INVALID);
    gt_schema_errors errors;
    gt_schema_errors_init(&errors);
    ck_assert_int_eq(gt_schema_validate(schema, value, &errors), GT_SCHEMA_ERROR);
    ck_assert_int_eq(errors.failure, GT_SCHEMA_FAILURE_BUDGET);
    ck_assert(gt_schema_failure_is_limit(errors.failure));
    ck_assert_uint_eq(errors.count, 1);
    ck_assert_str_eq(errors.items[0].keyword, "evaluation_budget");
    ck_assert_str_eq(gt_schema_errors_reason(&errors), "evaluation_budget");
    ck_assert_msg(strstr(errors.items[0].message, "5000") != NULL, "%s", errors.items[0].message);
    gt_schema_errors_free(&errors);

    /* the pipeline rejects at the structure gate with the bound as reason */
    gt_pipeline_outcome outcome;
    gt_pipeline_outcome_init(&outcome);
    ck_assert_int_eq(gt_pipeline_check(text, strlen(text), schema, NULL, arena, &outcome), 0);
    ck_assert(!outcome.accepted);
    ck_assert_int_eq(outcome.failed_gate, GT_PIPELINE_STRUCTURE);
    ck_assert_str_eq(outcome.reason, "evaluation_budget");
    ck_assert_ptr_nonnull(strstr(outcome.message, "evaluation budget"));
    gt_pipeline_outcome_free(&outcome);
    free(text);
    gt_arena_free(arena);
    gt_schema_free(schema);
}
END_TEST

START_TEST(default_budget_bounds_the_issue_input)
{
    /* the default budget: depth 20 of the allOf form ends, and fast */
    gt_schema *schema = compile_with(EXP_ALL_OF, 0);
    gt_schema_errors errors;
    gt_schema_errors_init(&errors);
    ck_assert_int_eq(validate_nested(schema, 20, "1", &errors), GT_SCHEMA_ERROR);
    ck_assert_int_eq(errors.failure, GT_SCHEMA_FAILURE_BUDGET);
    /* an already passed deadline stops it at the first check instead */
    errors.deadline_ms = gt_schema_clock_ms() - 1;
    ck_assert_int_eq(validate_nested(schema, 20, "1", &errors), GT_SCHEMA_ERROR);
    ck_assert_int_eq(errors.failure, GT_SCHEMA_FAILURE_DEADLINE);
    ck_assert_str_eq(errors.items[0].keyword, "evaluation_deadline");
    gt_schema_errors_free(&errors);
    gt_schema_free(schema);
}
END_TEST

/* The in-process reference target has the adapter's per-case deadline: a case
 * whose evaluation outlives it is an error naming the timeout. */
START_TEST(reference_target_has_a_deadline)
{
    char *text = nested(22, "1");
    size_t size = strlen(text) * 2 + 1024;
    char *json = malloc(size);
    snprintf(json, size,
             "{\"format\": \"gauntlet-corpus/1\", \"cases\": [{\"id\": \"slow\", \"gate\": \"structure\", "
             "\"category\": \"limits\", \"input\": \"%s\", \"schema\": %s, \"expect\": {\"verdict\": \"reject\", "
             "\"gate\": \"structure\", \"reason\": \"evaluation_budget\"}}]}",
             text, EXP_ALL_OF);
    gt_corpus *corpus = gt_corpus_new();
    ck_assert_int_eq(gt_corpus_load_text(corpus, "slow.cases.json", json, strlen(json)), 1);
    char err[256];
    gt_run *run = gt_run_cases(corpus, "reference", 1, NULL, NULL, err, sizeof err);
    ck_assert_ptr_nonnull(run);
    ck_assert_msg(run->results[0].outcome == GT_OUTCOME_PASS, "%s", run->results[0].note);
    gt_run_free(run);
    /* the budget's work takes far longer than 1 ms */
    gt_adapter_set_timeout_ms(1);
    run = gt_run_cases(corpus, "reference", 1, NULL, NULL, err, sizeof err);
    ck_assert_ptr_nonnull(run);
    ck_assert_int_eq(run->results[0].outcome, GT_OUTCOME_ERROR);
    ck_assert_msg(strstr(run->results[0].note, "timed out after 1 ms") != NULL, "%s", run->results[0].note);
    gt_adapter_set_timeout_ms(0);
    gt_run_free(run);
    gt_corpus_free(corpus);
    free(json);
    free(text);
}
END_TEST

/* Schema memory linear in nesting depth: every node and keyword owns its
 * location, so locations are elided past 256 bytes (before, a 9,000-deep
 * schema took 495 MiB for its location strings alone). */
START_TEST(deep_schema_locations_are_bounded)
{
    enum { DEPTH = 3000 };
    char *schema_json = malloc(DEPTH * 10 + 64), *w = schema_json;
    for (int i = 0; i < DEPTH; i++)
        w += sprintf(w, "{\"items\":");
    w += sprintf(w, "{\"type\":\"string\"}");
    for (int i = 0; i < DEPTH; i++)
        *w++ = '}';
    *w = '\0';
    gt_schema *schema = compile_with(schema_json, 0);
    free(schema_json);
    gt_arena *arena = gt_arena_new();
    gt_parse_options options;
    gt_parse_options_init(&options);
    options.max_depth = DEPTH + 10;
    char *text = nested(DEPTH, "1");
    gt_parse_error error;
    const gt_value *value = gt_parse(arena, text, strlen(text), &options, &error);
    ck_assert_ptr_nonnull(value);
    gt_schema_errors errors;
    gt_schema_errors_init(&errors);
    ck_assert_int_eq(gt_schema_validate(schema, value, &errors), GT_SCHEMA_INVALID);
    const char *location = errors.items[0].keyword_location;
    ck_assert_msg(strncmp(location, ".../items/", 10) == 0, "%.80s", location);
    ck_assert_uint_le(strlen(location), 270);
    ck_assert_msg(strcmp(location + strlen(location) - 11, "/items/type") == 0, "%s", location);
    gt_schema_errors_free(&errors);
    free(text);
    gt_arena_free(arena);
    gt_schema_free(schema);
}
END_TEST

/* ---- PCRE2 limits ---- */

static gt_schema_result match(const char *pattern, const char *text, gt_schema_errors *errors)
{
    char schema_json[256];
    snprintf(schema_json, sizeof schema_json, "{\"type\": \"string\", \"pattern\": \"%s\"}", pattern);
    gt_schema *schema = compile_with(schema_json, 0);
    gt_arena *arena = gt_arena_new();
    const gt_value *value = gt_value_new_string(arena, text, strlen(text));
    gt_schema_result quick = gt_schema_validate(schema, value, NULL);
    gt_schema_result full = gt_schema_validate(schema, value, errors);
    ck_assert_int_eq(quick, full);
    gt_arena_free(arena);
    gt_schema_free(schema);
    return full;
}

START_TEST(long_repetitions_match_past_the_jit_stack)
{
    gt_schema_errors errors;
    gt_schema_errors_init(&errors);
    char *ab = malloc(2001);
    for (int i = 0; i < 2000; i++)
        ab[i] = i % 3 ? 'a' : 'b';
    ab[2000] = '\0';
    ck_assert_int_eq(match("^(a|b)*$", ab, &errors), GT_SCHEMA_VALID);
    ab[1999] = 'c';
    ck_assert_int_eq(match("^(a|b)*$", ab, &errors), GT_SCHEMA_INVALID);
    ck_assert_str_eq(errors.items[0].keyword, "pattern");
    free(ab);
    /* 15 KB of words */
    static const char *const words[] = {"alpha", "bravo", "charlie", "delta", "echo", "fox"};
    char *text = malloc(16 * 1024);
    size_t len = 0;
    for (int i = 0; len < 15 * 1024; i++) {
        len += (size_t)sprintf(text + len, "%s ", words[i % 6]);
    }
    text[len - 1] = '\0';
    ck_assert_int_eq(match("^([a-z]+ ?)*$", text, &errors), GT_SCHEMA_VALID);
    free(text);
    gt_schema_errors_free(&errors);
}
END_TEST

START_TEST(catastrophic_backtracking_names_the_limit)
{
    char text[64];
    memset(text, 'a', 40);
    strcpy(text + 40, "!");
    gt_schema_errors errors;
    gt_schema_errors_init(&errors);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ck_assert_int_eq(match("^(a+)+$", text, &errors), GT_SCHEMA_ERROR);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    ck_assert_int_eq(errors.failure, GT_SCHEMA_FAILURE_REGEX_LIMIT);
    ck_assert_uint_eq(errors.count, 1); /* never also "expected string matching" */
    ck_assert_str_eq(errors.items[0].keyword, "regex_limit");
    ck_assert_msg(strstr(errors.items[0].message, "match limit") != NULL, "%s", errors.items[0].message);
    ck_assert_ptr_nonnull(strstr(errors.items[0].message, "^(a+)+$"));
    ck_assert_msg(t1.tv_sec - t0.tv_sec < 20, "took %ld s", (long)(t1.tv_sec - t0.tv_sec));
    gt_schema_errors_free(&errors);
}
END_TEST

/* ---- float to integer conversions of attacker numbers ---- */

START_TEST(number_clamp_is_defined_everywhere)
{
    ck_assert_int_eq(gt_number_clamp(1e300, 0, GT_COUNT_MAX), GT_COUNT_MAX);
    ck_assert_int_eq(gt_number_clamp(-1e300, -1, 10), -1);
    ck_assert_int_eq(gt_number_clamp(0.0 / 0.0, 3, 10), 3);
    ck_assert_int_eq(gt_number_clamp(9223372036854775807.0, 0, LLONG_MAX), LLONG_MAX);
    ck_assert_int_eq(gt_number_clamp(-9223372036854775808.0, LLONG_MIN, 0), LLONG_MIN);
    ck_assert_int_eq(gt_number_clamp(42.9, 0, 100), 42);
}
END_TEST

START_TEST(stream_usage_figures_saturate)
{
    const char *text =
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"usage\":"
        "{\"input_tokens\":1e300,\"output_tokens\":1e19}}}\n\n";
    gt_arena *arena = gt_arena_new();
    gt_stream_result result;
    ck_assert_int_eq(gt_stream_assemble(GT_PROVIDER_ANTHROPIC, text, strlen(text), arena, &result),
                     GT_STREAM_TRUNCATED);
    ck_assert_int_eq(result.usage.input_tokens, GT_COUNT_MAX);
    ck_assert_int_eq(result.usage.output_tokens, GT_COUNT_MAX);
    gt_arena_free(arena);
}
END_TEST

START_TEST(contains_bounds_of_1e300)
{
    gt_schema *at_least = compile_with("{\"contains\": {\"type\": \"integer\"}, \"minContains\": 1e300}", 0);
    gt_schema *at_most = compile_with("{\"contains\": {\"type\": \"integer\"}, \"maxContains\": 1e300}", 0);
    gt_arena *arena = gt_arena_new();
    const gt_value *one = parse_in(arena, "[1, 2]");
    ck_assert_int_eq(gt_schema_validate(at_least, one, NULL), GT_SCHEMA_INVALID);
    ck_assert_int_eq(gt_schema_validate(at_most, one, NULL), GT_SCHEMA_VALID);
    gt_arena_free(arena);
    gt_schema_free(at_least);
    gt_schema_free(at_most);
}
END_TEST

/* An accounting figure out of 0..INT_MAX (1e300, -1e300, 2^31) is a
 * protocol error naming the field (before: silently "not given"). */
START_TEST(adapter_accounting_figures_out_of_range_are_errors)
{
    void *state;
    char err[512], note[2048];
    char command[256];
    snprintf(command, sizeof command, "sh suite/adapters/fake.sh hugefigures /tmp/gauntlet-fake-%d", (int)getpid());
    ck_assert_int_eq(gt_target_adapter_ops.open(command, &state, err, sizeof err), 0);
    gt_case_input input = {.id = "syntax.test.one", .gate = "syntax", .raw = (const unsigned char *)"{}", .raw_len = 2,
                           .case_json = "{\"id\":\"syntax.test.one\",\"gate\":\"syntax\"}"};
    gt_observed observed;
    memset(&observed, 0, sizeof observed);
    ck_assert_int_eq(gt_target_adapter_ops.check(state, &input, &observed, note, sizeof note), GT_CHECK_ERROR);
    ck_assert_msg(strstr(note, "accounting.attempts_used is 1e+300") || strstr(note, "accounting.attempts_used is 1e300"),
                  "%s", note);
    ck_assert_msg(strstr(note, "not an integer from 0 through 2147483647"), "%s", note);
    gt_observed_clear(&observed);
    gt_target_adapter_ops.close(state);
    static const char *const replies[] = {
        "{\"seq\":1,\"verdict\":\"accept\",\"accounting\":{\"model_calls\":1e23}}",
        "{\"seq\":1,\"verdict\":\"accept\",\"accounting\":{\"retracted\":-1}}",
        "{\"seq\":1,\"verdict\":\"accept\",\"accounting\":{\"api_attempts\":\"3\"}}",
    };
    static const char *const fields[] = {"accounting.model_calls", "accounting.retracted", "accounting.api_attempts"};
    for (size_t i = 0; i < 3; i++) {
        char why[256] = "";
        memset(&observed, 0, sizeof observed);
        ck_assert_int_eq(gt_adapter_reply_read(replies[i], strlen(replies[i]), &observed, why, sizeof why), -1);
        ck_assert_msg(strstr(why, fields[i]) != NULL, "%s", why);
        gt_observed_clear(&observed);
    }
    const char *fine = "{\"seq\":1,\"verdict\":\"accept\",\"accounting\":{\"model_calls\":2,\"retracted\":null}}";
    char why[256] = "";
    memset(&observed, 0, sizeof observed);
    ck_assert_int_eq(gt_adapter_reply_read(fine, strlen(fine), &observed, why, sizeof why), 0);
    ck_assert_int_eq(observed.accounting.model_calls, 2);
    ck_assert_int_eq(observed.accounting.retracted, -1);
    gt_observed_clear(&observed);
}
END_TEST

START_TEST(adapter_reply_reader_is_callable_alone)
{
    /* the entry point fuzz_adapter_reply drives */
    gt_observed observed;
    memset(&observed, 0, sizeof observed);
    char why[256] = "";
    static const char good[] = "{\"seq\":1,\"verdict\":\"reject\",\"gate\":\"syntax\",\"reason\":\"too_large\"}";
    ck_assert_int_eq(gt_adapter_reply_read(good, sizeof good - 1, &observed, why, sizeof why), 0);
    ck_assert_int_eq(observed.verdict, GT_VERDICT_REJECT);
    gt_observed_clear(&observed);
    memset(&observed, 0, sizeof observed);
    ck_assert_int_eq(gt_adapter_reply_read("[1e300", 6, &observed, why, sizeof why), -1);
    ck_assert_str_eq(why, "not a JSON object");
    gt_observed_clear(&observed);
}
END_TEST

/* ---- size limits while reading ---- */

/* `gauntlet parse` on a pipe that would carry 64 MiB: with --max-bytes 1M it
 * says too_large after reading 1 MiB + 1 byte, so the writer sees the pipe
 * close long before it is done (before the fix it read everything). */
START_TEST(stdin_is_read_only_up_to_the_limit)
{
    int pipe_fds[2];
    ck_assert_int_eq(pipe(pipe_fds), 0);
    pid_t writer = fork();
    if (writer == 0) {
        signal(SIGPIPE, SIG_IGN);
        close(pipe_fds[0]);
        static char spaces[65536];
        memset(spaces, ' ', sizeof spaces);
        for (int i = 0; i < 1024; i++) /* 64 MiB at most: the test ends even if nobody reads */
            if (write(pipe_fds[1], spaces, sizeof spaces) < 0)
                _exit(errno == EPIPE ? 3 : 4);
        _exit(0);
    }
    close(pipe_fds[1]);
    int saved_stdin = dup(0);
    dup2(pipe_fds[0], 0);
    close(pipe_fds[0]);
    char out[4096];
    char *argv[] = {"parse", "--max-bytes", "1M", "-", NULL};
    int code = gt_test_cli(gt_cmd_parse, argv, out, sizeof out);
    dup2(saved_stdin, 0); /* the last reader goes: the writer gets EPIPE */
    close(saved_stdin);
    int status = 0;
    waitpid(writer, &status, 0);
    ck_assert_int_eq(code, 1);
    ck_assert_msg(strstr(out, "reject syntax too_large") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "reading stopped") != NULL, "%s", out);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 3, "the writer finished: the whole input was read");
}
END_TEST

/* Write `path`: a one-line schema file. */
static void write_text(const char *path, const char *text)
{
    FILE *file = fopen(path, "w");
    ck_assert_ptr_nonnull(file);
    fputs(text, file);
    fclose(file);
}

/* A regular file of `bytes` zeros that takes no disk (a hole). */
static void make_sparse(const char *path, off_t bytes)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(ftruncate(fd, bytes), 0);
    close(fd);
}

/* --values reads JSONL lines as JSON values (as Blaze, ajv-cli and jq do):
 * the same verdicts the string-literal form gives for the same documents;
 * --time adds the timing line last, --time-first-failure the first-failure
 * gate's line before it; all three need --jsonl. */
START_TEST(jsonl_values_and_time)
{
    char dir[] = "/tmp/gt-values-XXXXXX", schema[64], values[64], literals[64], out[4096], again[4096];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(schema, sizeof schema, "%s/s.json", dir);
    snprintf(values, sizeof values, "%s/v.jsonl", dir);
    snprintf(literals, sizeof literals, "%s/l.jsonl", dir);
    write_text(schema, "{\"type\":\"object\",\"required\":[\"n\"],\"properties\":{\"n\":{\"type\":\"integer\"}}}");
    write_text(values, "{\"n\": 1}\n{\"n\": true}\n{\"n\": 2, \"n\": 3}\n{\"n\":\n");
    write_text(literals, "\"{\\\"n\\\": 1}\"\n\"{\\\"n\\\": true}\"\n\"{\\\"n\\\": 2, \\\"n\\\": 3}\"\n\"{\\\"n\\\":\"\n");
    char *by_value[] = {"validate", "--schema", schema, "--jsonl", values, "--values", NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_validate, by_value, out, sizeof out), 1);
    ck_assert_msg(strstr(out, "1 valid, 3 invalid") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "syntax duplicate_key 1") != NULL && strstr(out, "structure type 1") != NULL, "%s", out);
    char *by_literal[] = {"validate", "--schema", schema, "--jsonl", literals, NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_validate, by_literal, again, sizeof again), 1);
    ck_assert_msg(strstr(again, "1 valid, 3 invalid") != NULL, "the two line forms disagree: %s / %s", out, again);
    char *timed[] = {"validate", "--schema", schema, "--jsonl", values, "--values", "--time", NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_validate, timed, out, sizeof out), 1);
    ck_assert_msg(strstr(out, "1 valid, 3 invalid") != NULL, "--time changed the verdicts: %s", out);
    const char *time_line = strstr(out, "time: 4 docs, parse ");
    ck_assert_msg(time_line != NULL && strstr(time_line, " ns/doc, validate ") != NULL, "%s", out);
    ck_assert_msg(strchr(time_line, '\n') == NULL || strchr(time_line, '\n')[1] == '\0', "time: is not last: %s", out);
    char *first_failure[] = {"validate", "--schema", schema, "--jsonl", values, "--values", "--time-first-failure",
                             NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_validate, first_failure, again, sizeof again), 1);
    ck_assert_msg(strstr(again, "1 valid, 3 invalid") != NULL, "--time-first-failure changed the verdicts: %s", again);
    const char *quick_line = strstr(again, "\ntime-first-failure: 2 docs, validate ");
    ck_assert_msg(quick_line != NULL && strstr(quick_line, " ns/doc, same verdict 2\ntime: 4 docs, parse ") != NULL,
                  "%s", again);
    time_line = strstr(again, "time: 4 docs, parse ");
    ck_assert_msg(strchr(time_line, '\n') == NULL || strchr(time_line, '\n')[1] == '\0', "time: is not last: %s", again);
    char *alone[] = {"validate", "--schema", schema, "--time", NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_validate, alone, out, sizeof out), 2);
    ck_assert_msg(strstr(out, "--time needs --jsonl FILE") != NULL, "%s", out);
    char *alone_first_failure[] = {"validate", "--schema", schema, "--time-first-failure", NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_validate, alone_first_failure, out, sizeof out), 2);
    ck_assert_msg(strstr(out, "--time-first-failure needs --jsonl FILE") != NULL, "%s", out);
    unlink(schema), unlink(values), unlink(literals);
    rmdir(dir);
}
END_TEST

/* A --jsonl line over its limit (6 x --max-bytes + 3) is that line's
 * too_large rejection and the run goes on; a 96 MiB line streamed through
 * stdin is never buffered (the child's peak RSS stays small). */
START_TEST(jsonl_line_over_its_limit_is_that_lines_rejection)
{
    char dir[] = "/tmp/gt-jsonl-XXXXXX", schema[64], lines[64], out[4096];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(schema, sizeof schema, "%s/s.json", dir);
    snprintf(lines, sizeof lines, "%s/in.jsonl", dir);
    write_text(schema, "{}");
    FILE *file = fopen(lines, "w");
    fputs("\"{}\"\n", file);
    for (int i = 0; i < 700; i++)
        fputc('a', file);
    fputs("\n\"[]\"\n", file);
    fclose(file);
    char *argv[] = {"validate", "--schema", schema, "--max-bytes", "100", "--jsonl", lines, NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_validate, argv, out, sizeof out), 1);
    ck_assert_msg(strstr(out, "2 valid, 1 invalid") && strstr(out, "syntax too_large 1") &&
                      strstr(out, "in.jsonl:2: line over the limit of 603 bytes"),
                  "%s", out);

    int pipe_fds[2];
    ck_assert_int_eq(pipe(pipe_fds), 0);
    pid_t writer = fork();
    if (writer == 0) {
        signal(SIGPIPE, SIG_IGN);
        close(pipe_fds[0]);
        static char filler[65536];
        memset(filler, 'a', sizeof filler);
        if (write(pipe_fds[1], "\"{}\"\n", 5) < 0)
            _exit(4);
        for (int i = 0; i < 1536; i++) /* 96 MiB */
            if (write(pipe_fds[1], filler, sizeof filler) < 0)
                _exit(4);
        _exit(write(pipe_fds[1], "\n\"[]\"\n", 6) < 0 ? 4 : 0);
    }
    close(pipe_fds[1]);
    int saved_stdin = dup(0);
    dup2(pipe_fds[0], 0);
    close(pipe_fds[0]);
    char *stream_argv[] = {"validate", "--schema", schema, "--max-bytes", "1k", "--jsonl", "-", NULL};
    int code = gt_test_cli(gt_cmd_validate, stream_argv, out, sizeof out);
    dup2(saved_stdin, 0);
    close(saved_stdin);
    int status = 0;
    waitpid(writer, &status, 0);
    struct rusage usage;
    getrusage(RUSAGE_CHILDREN, &usage);
    ck_assert_int_eq(code, 1);
    ck_assert_msg(strstr(out, "2 valid, 1 invalid") && strstr(out, "syntax too_large 1"), "%s", out);
    fprintf(stderr, "validate --jsonl: a 96 MiB line, peak RSS %ld KiB\n", usage.ru_maxrss);
    ck_assert_msg(usage.ru_maxrss < 32 * 1024, "peak RSS %ld KiB: the long line was buffered", usage.ru_maxrss);
    unlink(schema);
    unlink(lines);
    rmdir(dir);
}
END_TEST

/* The report reader (merge, run --baseline) and --ref FILE stop at
 * GT_READ_FILE_MAX_BYTES, checked before reading, and name the limit; a FIFO
 * is refused at once, never waited on. */
START_TEST(report_and_ref_readers_stop_at_their_limit)
{
    char dir[] = "/tmp/gt-readers-XXXXXX", big[64], schema[64], fifo[64], err[512], out[4096];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(big, sizeof big, "%s/big.json", dir);
    snprintf(schema, sizeof schema, "%s/s.json", dir);
    snprintf(fifo, sizeof fifo, "%s/fifo.json", dir);
    make_sparse(big, (off_t)GT_READ_FILE_MAX_BYTES + 4096);
    write_text(schema, "{}");
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    time_t start = time(NULL);
    ck_assert_ptr_null(gt_report_load(big, err, sizeof err));
    ck_assert_msg(strstr(err, big) && strstr(err, "larger than 268435456 bytes"), "%s", err);
    ck_assert_ptr_null(gt_report_load(fifo, err, sizeof err));
    ck_assert_msg(strstr(err, fifo) && strstr(err, "is not a regular file"), "%s", err);
    char *argv[] = {"validate", "--schema", schema, "--ref", big, "-", NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_validate, argv, out, sizeof out), 2);
    ck_assert_msg(strstr(out, "--ref") && strstr(out, big) && strstr(out, "larger than 268435456 bytes"), "%s", out);
    char *fifo_argv[] = {"validate", "--schema", schema, "--ref", fifo, "-", NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_validate, fifo_argv, out, sizeof out), 2);
    ck_assert_msg(strstr(out, fifo) && strstr(out, "is not a regular file"), "%s", out);
    ck_assert_msg(time(NULL) - start < 10, "the readers took %ld s", (long)(time(NULL) - start));
    unlink(big);
    unlink(schema);
    unlink(fifo);
    rmdir(dir);
}
END_TEST

/* A truncated report (a baseline cut by a full disk) says where it ends,
 * not only "not a JSON object". */
START_TEST(truncated_report_gives_the_position)
{
    char dir[] = "/tmp/gt-cut-XXXXXX", path[64], err[512];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/base.json", dir);
    write_text(path, "{\n  \"format\": \"gauntlet-report/1\",\n  \"cases\": [{\"id\": \"a\", \"outc");
    ck_assert_ptr_null(gt_report_load(path, err, sizeof err));
    ck_assert_msg(strstr(err, path) && strstr(err, "line 3") && strstr(err, "byte 64 of 64") &&
                      strstr(err, "truncated"),
                  "%s", err);
    unlink(path);
    rmdir(dir);
}
END_TEST

/* A FIFO named where a file or a corpus is expected is refused at once
 * (before: `gauntlet run FIFO` blocked in open() forever), and `serve` can
 * be stopped by SIGTERM while it is still loading (before: the stop signals
 * were blocked from the start, so a load that never ended took SIGKILL). */
START_TEST(fifos_are_refused_and_serve_stops_while_loading)
{
    char dir[] = "/tmp/gt-fifo-XXXXXX", fifo[64], out[4096];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(fifo, sizeof fifo, "%s/cases.json", dir);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    time_t start = time(NULL);
    char *run_argv[] = {"run", fifo, NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_run, run_argv, out, sizeof out), 2);
    ck_assert_msg(strstr(out, fifo) && strstr(out, "is not a regular file"), "%s", out);
    char *parse_argv[] = {"parse", fifo, NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_parse, parse_argv, out, sizeof out), 2);
    ck_assert_msg(strstr(out, fifo) && strstr(out, "is not a regular file"), "%s", out);
    ck_assert_int_lt(time(NULL) - start, 5);
    unlink(fifo);
    rmdir(dir);

    /* serve, loading a scenario from a stdin nobody writes to: stuck loading */
    const char *gauntlet = getenv("GAUNTLET") ? getenv("GAUNTLET") : "build/gauntlet";
    int never[2];
    ck_assert_int_eq(pipe(never), 0);
    pid_t serve = fork();
    if (serve == 0) {
        dup2(never[0], 0);
        close(never[1]);
        int null_fd = open("/dev/null", O_WRONLY);
        dup2(null_fd, 1);
        dup2(null_fd, 2);
        execl(gauntlet, "gauntlet", "serve", "--scenario", "stuck=-", (char *)NULL);
        _exit(127);
    }
    close(never[0]);
    usleep(500 * 1000);
    kill(serve, SIGTERM);
    int status = 0;
    pid_t done = 0;
    for (int tick = 0; tick < 50 && done == 0; tick++) { /* 5 s at most */
        done = waitpid(serve, &status, WNOHANG);
        if (done == 0)
            usleep(100 * 1000);
    }
    if (done == 0) {
        kill(serve, SIGKILL);
        waitpid(serve, &status, 0);
    }
    close(never[1]);
    ck_assert_msg(done == serve, "serve ignored SIGTERM while loading (SIGKILL needed)");
    ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM, "status %d", status);
}
END_TEST

/* Report files: a stale temporary of the same report left by a killed run
 * is removed (a live writer's is kept); a run's reports are a set: when one
 * cannot be written, none is replaced and no temporary is left (before: the
 * others were replaced, a mix of old and new, and stale temporaries stayed). */
START_TEST(reports_are_written_as_a_set)
{
    char dir[] = "/tmp/gt-set-XXXXXX", json[96], blocker[96], xml[128], stale[160], live[160], spec[400], out[8192];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(json, sizeof json, "%s/r.json", dir);
    snprintf(blocker, sizeof blocker, "%s/not-a-folder", dir);
    snprintf(xml, sizeof xml, "%s/r.xml", blocker);
    pid_t gone = fork();
    if (gone == 0)
        _exit(0);
    waitpid(gone, NULL, 0);
    snprintf(stale, sizeof stale, "%s.tmp.%ld", json, (long)gone);
    snprintf(live, sizeof live, "%s.tmp.%ld", json, (long)getpid());
    write_text(stale, "half a report");
    write_text(live, "another writer's");
    write_text(json, "OLD");
    write_text(blocker, "a file where a folder is needed");
    snprintf(spec, sizeof spec, "json:%s,junit:%s", json, xml);
    char *argv[] = {"run", "--report", spec, "suite/data/loader/a-good.cases.json", NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_run, argv, out, sizeof out), 2);
    ck_assert_msg(strstr(out, xml) && strstr(out, "no report replaced"), "%s", out);
    char *text = gt_test_slurp(json);
    ck_assert_msg(strcmp(text, "OLD") == 0, "the JSON report was replaced although the set failed: %.200s", text);
    free(text);
    ck_assert_msg(access(stale, F_OK) != 0, "the stale temporary %s is still there", stale);
    ck_assert_msg(access(live, F_OK) == 0, "a live writer's temporary was removed");
    char own[160];
    snprintf(own, sizeof own, "%s.tmp.", json);
    DIR *listing = opendir(dir);
    struct dirent *entry;
    int temporaries = 0;
    while ((entry = readdir(listing)) != NULL)
        temporaries += strstr(entry->d_name, ".tmp.") != NULL;
    closedir(listing);
    ck_assert_int_eq(temporaries, 1); /* the live writer's only */

    snprintf(spec, sizeof spec, "json:%s", json); /* a set that can be written replaces */
    char *ok_argv[] = {"run", "--report", spec, "suite/data/loader/a-good.cases.json", NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_run, ok_argv, out, sizeof out), 0);
    text = gt_test_slurp(json);
    ck_assert_msg(strncmp(text, "{", 1) == 0, "%.200s", text);
    free(text);
    unlink(json);
    unlink(live);
    unlink(blocker);
    rmdir(dir);
}
END_TEST

/* A case file in a fresh directory whose one case names `schema_file`. */
static void write_case(const char *dir, const char *schema_file)
{
    char path[512];
    snprintf(path, sizeof path, "%s/limits.cases.json", dir);
    FILE *file = fopen(path, "w");
    ck_assert_ptr_nonnull(file);
    fprintf(file,
            "{\"format\": \"gauntlet-corpus/1\", \"cases\": [{\"id\": \"a\", \"gate\": \"structure\", "
            "\"category\": \"limits\", \"input\": \"1\", \"schema_file\": \"%s\", "
            "\"expect\": {\"verdict\": \"accept\"}}]}",
            schema_file);
    fclose(file);
}

/* Load `dir`: no case, one problem at /cases/0/schema_file whose message
 * names the file and contains `why`. */
static void expect_schema_file_problem(const char *dir, const char *file, const char *why)
{
    gt_corpus *corpus = gt_corpus_new();
    ck_assert_int_eq(gt_corpus_load(corpus, dir), 0);
    ck_assert_uint_eq(gt_corpus_problem_count(corpus), 1);
    const gt_load_problem *problem = gt_corpus_problem(corpus, 0);
    ck_assert_str_eq(problem->field, "/cases/0/schema_file");
    ck_assert_msg(strstr(problem->message, file) != NULL && strstr(problem->message, why) != NULL, "%s",
                  problem->message);
    gt_corpus_free(corpus);
}

START_TEST(schema_file_must_be_a_regular_file_inside_the_root)
{
    char dir[] = "/tmp/gt-bounds-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[700], sub[64];
    snprintf(sub, sizeof sub, "%s/cases", dir);
    ck_assert_int_eq(mkdir(sub, 0700), 0);
    /* a FIFO would block the open (and the read) forever */
    snprintf(path, sizeof path, "%s/fifo.json", sub);
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    write_case(sub, "fifo.json");
    expect_schema_file_problem(sub, "fifo.json", "not a regular file");
    unlink(path);
    /* a device, reached through `..` */
    write_case(sub, "../../../../../../../../dev/zero");
    expect_schema_file_problem(sub, "dev/zero", "outside the corpus root");
    /* a symlink inside the root that points out of it */
    snprintf(path, sizeof path, "%s/zero.json", sub);
    ck_assert_int_eq(symlink("/dev/zero", path), 0);
    write_case(sub, "zero.json");
    expect_schema_file_problem(sub, "zero.json", "outside the corpus root");
    unlink(path);
    /* a regular file one level up is outside a root that is `sub` ... */
    snprintf(path, sizeof path, "%s/schema.json", dir);
    FILE *file = fopen(path, "w");
    fputs("{\"type\": \"integer\"}", file);
    fclose(file);
    write_case(sub, "../schema.json");
    expect_schema_file_problem(sub, "../schema.json", "outside the corpus root");
    /* ... and inside once the corpus's VERSION marks `dir` as the root */
    char version[600];
    snprintf(version, sizeof version, "%s/VERSION", dir);
    file = fopen(version, "w");
    fputs("0.1.0\n", file);
    fclose(file);
    gt_corpus *corpus = gt_corpus_new();
    ck_assert_int_eq(gt_corpus_load(corpus, sub), 1);
    ck_assert_uint_eq(gt_corpus_problem_count(corpus), 0);
    gt_corpus_free(corpus);
    unlink(version);
    unlink(path);
    snprintf(path, sizeof path, "%s/limits.cases.json", sub);
    unlink(path);
    rmdir(sub);
    rmdir(dir);
}
END_TEST

/* ---- mock server: sessions and connections ---- */

/* POST an Anthropic request to `path` of `server`; the HTTP status (0 when
 * the transfer failed). */
static long mock_post(const gt_mock_server *server, const char *path)
{
    static const char body[] = "{\"model\":\"m\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\","
                               "\"content\":\"hi\"}]}";
    gt_test_response r = gt_test_mock_request(server, NULL, path, body, NULL);
    long status = r.code == CURLE_OK ? r.status : 0;
    gt_test_response_free(&r);
    return status;
}

static gt_mock_server *mock_with(size_t max_sessions)
{
    gt_mock_options options = {0};
    options.max_sessions = max_sessions;
    return gt_test_mock_start(&options, "suite/data/mock", 1);
}

/* Past the cap the least recently used session goes (its scenario starts
 * over), the recent ones keep their cursors; a reset of one key or of all
 * keeps the table consistent (backward-shift deletion, no rehash). */
START_TEST(sessions_evict_least_recently_used)
{
    gt_mock_server *server = mock_with(8);
    char path[128];
    /* overloaded-then-success: 529 on a session's first call, 200 on its second */
    for (int i = 0; i < 40; i++) {
        snprintf(path, sizeof path, "/s/overloaded-then-success/run-%d/v1/messages", i);
        ck_assert_int_eq(mock_post(server, path), 529);
    }
    for (int i = 39; i >= 32; i--) { /* the 8 newest are kept */
        snprintf(path, sizeof path, "/s/overloaded-then-success/run-%d/v1/messages", i);
        ck_assert_int_eq(mock_post(server, path), 200);
    }
    ck_assert_int_eq(mock_post(server, "/s/overloaded-then-success/run-0/v1/messages"), 529); /* evicted */
    gt_mock_reset(server, "overloaded-then-success/run-33");
    ck_assert_int_eq(mock_post(server, "/s/overloaded-then-success/run-33/v1/messages"), 529);
    ck_assert_int_eq(mock_post(server, "/s/overloaded-then-success/run-34/v1/messages"), 200);
    gt_mock_reset(server, NULL);
    ck_assert_int_eq(mock_post(server, "/s/overloaded-then-success/run-34/v1/messages"), 529);
    gt_mock_stop(server);
}
END_TEST

/* Bytes the process holds on the heap (every arena, mmapped blocks too). */
static size_t heap_in_use(void)
{
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}

/* Sessions share their scenario's script: N sessions of a 4 MiB scenario
 * cost N cursors, not N copies (GT_MOCK_MAX_SESSION_BYTES per session). */
START_TEST(sessions_share_their_scenario_script)
{
    gt_mock_server *server = mock_with(0);
    enum { TURNS = 4096, TEXT = 1000, SESSIONS = 48 };
    size_t cap = (size_t)TURNS * (TEXT + 128) + 64;
    char *script = malloc(cap);
    ck_assert_ptr_nonnull(script);
    size_t used = (size_t)snprintf(script, cap, "{\"turns\":[");
    for (int i = 0; i < TURNS; i++) {
        used += (size_t)snprintf(script + used, cap - used,
                                 "%s{\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"", i ? "," : "");
        memset(script + used, 'a' + i % 26, TEXT);
        used += TEXT;
        used += (size_t)snprintf(script + used, cap - used, "\"}],\"stop_reason\":\"end_turn\"}}");
    }
    used += (size_t)snprintf(script + used, cap - used, "]}");
    ck_assert_uint_gt(used, 4u << 20);
    char err[512] = "";
    ck_assert_msg(gt_mock_add_scenario(server, "big", script, NULL, err, sizeof err) == 0, "%s", err);
    free(script);
    char path[128];
    ck_assert_int_eq(mock_post(server, "/s/big/warm-up/v1/messages"), 200); /* the server's one-off costs */
    malloc_trim(0);
    size_t before = heap_in_use();
    for (int i = 0; i < SESSIONS; i++) {
        snprintf(path, sizeof path, "/s/big/run-%d/v1/messages", i);
        ck_assert_int_eq(mock_post(server, path), 200);
    }
    size_t after = heap_in_use();
    size_t per_session = after > before ? (after - before) / SESSIONS : 0;
    fprintf(stderr, "mock: %zu bytes of heap per session of a %zu-byte scenario\n", per_session, used);
    ck_assert_msg(per_session <= GT_MOCK_MAX_SESSION_BYTES, "%zu bytes per session (limit %u)", per_session,
                  (unsigned)GT_MOCK_MAX_SESSION_BYTES);
    gt_mock_stop(server);
}
END_TEST

/* Is `fd` closed by the peer within `ms`? */
static bool closed_by_peer(int fd, int ms)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (poll(&p, 1, ms) <= 0)
        return false;
    char byte;
    return recv(fd, &byte, 1, MSG_DONTWAIT) <= 0;
}

/* Send `raw` on a fresh loopback connection to `port` and read the answer
 * (at most 3 s) into `out`. */
static void raw_exchange(unsigned port, const char *raw, char *out, size_t out_len)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
    ck_assert_int_eq(connect(fd, (struct sockaddr *)&addr, sizeof addr), 0);
    ck_assert_int_eq(send(fd, raw, strlen(raw), MSG_NOSIGNAL), (ssize_t)strlen(raw));
    struct pollfd p = {.fd = fd, .events = POLLIN};
    size_t used = 0;
    while (used + 1 < out_len && poll(&p, 1, 3000) > 0) {
        ssize_t got = recv(fd, out + used, out_len - 1 - used, 0);
        if (got <= 0)
            break;
        used += (size_t)got;
    }
    out[used] = '\0';
    close(fd);
}

/* A run id over the limit is refused with a 400 naming it (it used to be
 * cut, so two long ids shared one session); a transfer coding other than
 * "chunked" is answered 501 at once (it left the connection hanging); the
 * mock binds ::1 as a loopback address. */
START_TEST(run_ids_codings_and_ipv6_loopback)
{
    gt_mock_server *server = mock_with(0);
    char path[512], long_run[200], out[4096];
    memset(long_run, 'r', 150);
    long_run[150] = '\0';
    snprintf(path, sizeof path, "/s/overloaded-then-success/%s/v1/messages", long_run);
    gt_test_response r = gt_test_mock_request(server, NULL, path, "{\"model\":\"m\",\"max_tokens\":1,\"messages\":[]}",
                                              NULL);
    ck_assert_int_eq(r.status, 400);
    ck_assert_msg(strstr(r.body, "150 bytes, over the limit of 120 bytes"), "%s", r.body);
    gt_test_response_free(&r);
    char run_header[256];
    snprintf(run_header, sizeof run_header, "x-gauntlet-run: %s", long_run);
    const char *const extra[] = {run_header, NULL};
    r = gt_test_mock_request(server, NULL, "/v1/messages", "{\"model\":\"m\",\"max_tokens\":1,\"messages\":[]}", extra);
    ck_assert_int_eq(r.status, 400);
    ck_assert_msg(strstr(r.body, "x-gauntlet-run is 150 bytes, over the limit of 120"), "%s", r.body);
    gt_test_response_free(&r);

    time_t start = time(NULL);
    raw_exchange(gt_mock_port(server),
                 "POST /v1/messages HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, identity\r\n\r\n"
                 "5\r\nhello\r\n0\r\n\r\n",
                 out, sizeof out);
    ck_assert_msg(strncmp(out, "HTTP/1.1 501", 12) == 0 && strstr(out, "chunked, identity"), "%s", out);
    ck_assert_int_lt(time(NULL) - start, 3);
    gt_mock_stop(server);

    int probe = socket(AF_INET6, SOCK_STREAM, 0);
    if (probe < 0)
        return; /* no IPv6 on this machine */
    close(probe);
    gt_mock_options options = {0};
    options.host = "::1";
    char err[256] = "";
    gt_mock_server *six = gt_mock_start(&options, err, sizeof err);
    if (six == NULL && strstr(err, "cannot listen"))
        return; /* ::1 not configured */
    ck_assert_msg(six != NULL, "::1 refused: %s", err);
    ck_assert_msg(strncmp(gt_mock_base_url(six), "http://[::1]:", 13) == 0, "%s", gt_mock_base_url(six));
    r = gt_test_mock_request(six, NULL, "/_gauntlet/health", NULL, NULL);
    ck_assert_int_eq(r.status, 200);
    gt_test_response_free(&r);
    gt_mock_stop(six);
}
END_TEST

/* An HTTP GET of /_gauntlet/health from `interface` (a loopback address). */
static long health_from(const gt_mock_server *server, const char *interface, CURLcode *code)
{
    char url[256];
    snprintf(url, sizeof url, "%s/_gauntlet/health", gt_mock_base_url(server));
    CURL *curl = curl_easy_init();
    FILE *sink = fopen("/dev/null", "w");
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_INTERFACE, interface);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, sink);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT, 5L);
    long status = 0;
    *code = curl_easy_perform(curl);
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_cleanup(curl);
    fclose(sink);
    return status;
}

/* Slowloris on loopback: 400 idle half-open connections from 127.0.0.1, over
 * the per-address cap (256), and one that trickles its head a byte every
 * 100 ms. Every local client shares 127.0.0.1, so the per-address cap does
 * not apply to loopback: a fresh client from the same 127.0.0.1 is served at
 * once (before: reset for as long as they trickled). The request-head
 * deadline (1 s here, GT_MOCK_REQUEST_HEAD_TIMEOUT_MS by default) closes
 * every one of them, the trickler too, within a few seconds. */
START_TEST(idle_connections_cannot_lock_clients_out)
{
    gt_mock_options options = {0};
    options.head_timeout_ms = 1000;
    gt_mock_server *server = gt_test_mock_start(&options, "suite/data/mock", 1);
    struct rlimit files;
    getrlimit(RLIMIT_NOFILE, &files);
    if (files.rlim_cur < 1200 && files.rlim_max >= 1200) {
        files.rlim_cur = 1200;
        setrlimit(RLIMIT_NOFILE, &files);
    }
    enum { IDLE = 400 };
    int fds[IDLE + 1], opened = 0;
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)gt_mock_port(server))};
    inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
    for (; opened <= IDLE; opened++) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0)
            break;
        if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
            close(fd);
            break;
        }
        static const char partial[] = "GET /_gauntlet/health HTTP/1.1\r\nHost: x\r\n"; /* never finished */
        ssize_t sent = send(fd, partial, sizeof partial - 1, MSG_NOSIGNAL);
        (void)sent;
        fds[opened] = fd;
    }
    ck_assert_msg(opened > (int)GT_MOCK_MAX_CONNECTIONS_PER_IP + 100, "only %d sockets", opened);
    struct timespec begin, end;
    clock_gettime(CLOCK_MONOTONIC, &begin);
    CURLcode code;
    long status = health_from(server, "127.0.0.1", &code);
    ck_assert_msg(code == CURLE_OK && status == 200, "a fresh local client: %s, HTTP %ld", curl_easy_strerror(code),
                  status);
    /* the last socket trickles; every socket must be closed by the deadline */
    int trickler = fds[opened - 1], closed = 0;
    for (int tick = 0; tick < 40 && closed < opened; tick++) { /* 4 s at most */
        ssize_t sent = send(trickler, "X", 1, MSG_NOSIGNAL);
        (void)sent;
        closed = 0;
        for (int i = 0; i < opened; i++)
            closed += closed_by_peer(fds[i], 0);
        usleep(100 * 1000);
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    double seconds = (double)(end.tv_sec - begin.tv_sec) + (double)(end.tv_nsec - begin.tv_nsec) / 1e9;
    fprintf(stderr, "mock: %d of %d trickling/idle loopback connections closed by the head deadline in %.1f s\n",
            closed, opened, seconds);
    ck_assert_msg(closed == opened, "%d of %d closed after %.1f s (deadline 1 s)", closed, opened, seconds);
    for (int i = 0; i < opened; i++)
        close(fds[i]);
    status = health_from(server, "127.0.0.1", &code);
    ck_assert_msg(code == CURLE_OK && status == 200, "after: %s, HTTP %ld", curl_easy_strerror(code), status);
    gt_mock_stop(server);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("bounds");
    TCase *schema = tcase_create("schema");
    tcase_set_timeout(schema, 60);
    tcase_add_test(schema, exponential_any_of_is_memoised);
    tcase_add_test(schema, node_shared_by_two_child_keywords_is_memoised);
    tcase_add_test(schema, evaluation_budget_is_its_own_reason);
    tcase_add_test(schema, default_budget_bounds_the_issue_input);
    tcase_add_test(schema, reference_target_has_a_deadline);
    tcase_add_test(schema, deep_schema_locations_are_bounded);
    suite_add_tcase(suite, schema);
    TCase *regex = tcase_create("regex");
    tcase_set_timeout(regex, 60);
    tcase_add_test(regex, long_repetitions_match_past_the_jit_stack);
    tcase_add_test(regex, catastrophic_backtracking_names_the_limit);
    suite_add_tcase(suite, regex);
    TCase *numbers = tcase_create("numbers");
    tcase_set_timeout(numbers, 30);
    tcase_add_test(numbers, number_clamp_is_defined_everywhere);
    tcase_add_test(numbers, stream_usage_figures_saturate);
    tcase_add_test(numbers, contains_bounds_of_1e300);
    tcase_add_test(numbers, adapter_accounting_figures_out_of_range_are_errors);
    tcase_add_test(numbers, adapter_reply_reader_is_callable_alone);
    suite_add_tcase(suite, numbers);
    TCase *mock = tcase_create("mock");
    tcase_set_timeout(mock, 60);
    tcase_add_test(mock, sessions_evict_least_recently_used);
    tcase_add_test(mock, sessions_share_their_scenario_script);
    tcase_add_test(mock, idle_connections_cannot_lock_clients_out);
    tcase_add_test(mock, run_ids_codings_and_ipv6_loopback);
    suite_add_tcase(suite, mock);
    TCase *reading = tcase_create("reading");
    tcase_set_timeout(reading, 60);
    tcase_add_test(reading, stdin_is_read_only_up_to_the_limit);
    tcase_add_test(reading, jsonl_line_over_its_limit_is_that_lines_rejection);
    tcase_add_test(reading, jsonl_values_and_time);
    tcase_add_test(reading, report_and_ref_readers_stop_at_their_limit);
    tcase_add_test(reading, fifos_are_refused_and_serve_stops_while_loading);
    tcase_add_test(reading, truncated_report_gives_the_position);
    tcase_add_test(reading, reports_are_written_as_a_set);
    tcase_add_test(reading, schema_file_must_be_a_regular_file_inside_the_root);
    suite_add_tcase(suite, reading);
    return suite;
}

GT_TEST_MAIN()
