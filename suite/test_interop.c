/* test_interop.c — the tooling around real clients: `make interop`'s
 * assertion (interop/compare.py), the Claude Code wrapper's lookup of the
 * CLI (adapters/claude-code/run.sh), and the generated certification report
 * (scripts/certification-doc). Each runs as a subprocess, as make runs it. */
#include <string.h>
#include <sys/stat.h>

#include "gt_test.h"

static char dir[64];

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/gt-interop-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
    char command[128];
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(command), 0);
}

static void write_file(const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *file = fopen(path, "w");
    ck_assert_ptr_nonnull(file);
    fputs(text, file);
    fclose(file);
}

/* Run `command` with /bin/sh, output (stdout and stderr) into `out`; returns
 * the exit status. */
static int run(const char *command, char *out, size_t out_len)
{
    char full[2048];
    snprintf(full, sizeof full, "(%s) 2>&1", command);
    return gt_test_shell(full, out, out_len);
}

static const char expected_lines[] =
    "{\"client\":\"openai\",\"scenario\":\"error-401\",\"mode\":\"json\",\"ok\":false,\"status\":401,"
    "\"message\":\"401 req_gauntlet… at 127.0.0.1:PORT\"}\n"
    "{\"client\":\"claude-code\",\"scenario\":\"cc-refusal\",\"subtype\":\"success\",\"is_error\":true}\n";

/* A run that matches, up to timings, request ids and ports, passes. */
START_TEST(test_compare_same_outcomes_pass)
{
    write_file("expected.jsonl", expected_lines);
    write_file("actual.jsonl",
               "noise a client printed\n"
               "{\"client\":\"openai\",\"scenario\":\"error-401\",\"mode\":\"json\",\"ms\":12,\"ok\":false,"
               "\"status\":401,\"message\":\"401 req_gauntlet0000abcd000000000023 at 127.0.0.1:41234\"}\n"
               "{\"client\":\"claude-code\",\"scenario\":\"cc-refusal\",\"subtype\":\"success\",\"is_error\":true}\n");
    char command[512], out[8192];
    snprintf(command, sizeof command, "python3 interop/compare.py %s/actual.jsonl %s/expected.jsonl", dir, dir);
    ck_assert_msg(run(command, out, sizeof out) == 0, "%s", out);
    ck_assert_ptr_nonnull(strstr(out, "2 client x scenario lines, 2 as expected, 0 differ"));
}
END_TEST

/* A changed outcome, a missing line, an extra line, an empty run: each fails. */
START_TEST(test_compare_differences_fail)
{
    write_file("expected.jsonl", expected_lines);
    const char *actuals[] = {
        /* changed: Claude Code now returns an object */
        "{\"client\":\"openai\",\"scenario\":\"error-401\",\"mode\":\"json\",\"ok\":false,\"status\":401,"
        "\"message\":\"401 req_gauntlet1 at 127.0.0.1:1\"}\n"
        "{\"client\":\"claude-code\",\"scenario\":\"cc-refusal\",\"subtype\":\"success\",\"is_error\":false}\n",
        /* missing: the CLI crashed before its line */
        "{\"client\":\"openai\",\"scenario\":\"error-401\",\"mode\":\"json\",\"ok\":false,\"status\":401,"
        "\"message\":\"401 req_gauntlet1 at 127.0.0.1:1\"}\n",
        /* extra: a scenario nobody recorded */
        "{\"client\":\"openai\",\"scenario\":\"error-401\",\"mode\":\"json\",\"ok\":false,\"status\":401,"
        "\"message\":\"401 req_gauntlet1 at 127.0.0.1:1\"}\n"
        "{\"client\":\"claude-code\",\"scenario\":\"cc-refusal\",\"subtype\":\"success\",\"is_error\":true}\n"
        "{\"client\":\"openai\",\"scenario\":\"new\",\"mode\":\"json\",\"ok\":true}\n",
        "",
    };
    const char *evidence[] = {"DIFF    claude-code cc-refusal", "MISSING claude-code cc-refusal", "EXTRA   openai new json",
                              "0 client x scenario lines"};
    for (size_t i = 0; i < 4; i++) {
        write_file("actual.jsonl", actuals[i]);
        char command[512], out[8192];
        snprintf(command, sizeof command, "python3 interop/compare.py %s/actual.jsonl %s/expected.jsonl", dir, dir);
        ck_assert_msg(run(command, out, sizeof out) == 1, "%zu: %s", i, out);
        ck_assert_msg(strstr(out, evidence[i]) != NULL, "%zu: %s", i, out);
    }
}
END_TEST

/* --update records this run's outcomes, normalised; a re-check then passes. */
START_TEST(test_compare_update_records)
{
    write_file("actual.jsonl", "{\"client\":\"openai\",\"scenario\":\"x\",\"ms\":5,\"message\":\"at 127.0.0.1:999\"}\n");
    char command[512], out[8192];
    snprintf(command, sizeof command, "python3 interop/compare.py %s/actual.jsonl %s/new.jsonl --update", dir, dir);
    ck_assert_msg(run(command, out, sizeof out) == 0, "%s", out);
    snprintf(command, sizeof command, "cat %s/new.jsonl", dir);
    run(command, out, sizeof out);
    ck_assert_str_eq(out, "{\"client\":\"openai\",\"scenario\":\"x\",\"message\":\"at 127.0.0.1:PORT\"}\n");
    snprintf(command, sizeof command, "python3 interop/compare.py %s/actual.jsonl %s/new.jsonl", dir, dir);
    ck_assert_msg(run(command, out, sizeof out) == 0, "%s", out);
}
END_TEST

/* The pinned clients: exact versions in package.json, a lockfile beside it. */
START_TEST(test_interop_clients_are_pinned)
{
    char out[8192];
    ck_assert_int_eq(run("cat interop/package.json", out, sizeof out), 0);
    ck_assert_ptr_nonnull(strstr(out, "\"@anthropic-ai/claude-code\""));
    ck_assert_msg(strchr(out, '^') == NULL && strchr(out, '~') == NULL && strstr(out, "latest") == NULL, "%s", out);
    ck_assert_int_eq(run("grep -c '\"lockfileVersion\"' interop/package-lock.json", out, sizeof out), 0);
    ck_assert_int_eq(run("grep -q 'npm ci' interop/run.sh", out, sizeof out), 0);
}
END_TEST

/* Copy the wrapper where no `make interop` install sits beside it. */
static void lone_wrapper(void)
{
    char command[512], out[4096];
    snprintf(command, sizeof command,
             "mkdir -p %s/adapters/claude-code %s/bin && cp adapters/claude-code/run.sh %s/adapters/claude-code/ && "
             "printf '{\"type\":\"object\"}' > %s/schema.json",
             dir, dir, dir, dir);
    ck_assert_int_eq(run(command, out, sizeof out), 0);
}

/* Without CLAUDE and without the pinned install, `claude` on PATH is used. */
START_TEST(test_claude_wrapper_finds_claude_on_path)
{
    lone_wrapper();
    write_file("bin/claude", "#!/bin/sh\necho \"fake claude: $1 $2 $3 | HOME=$HOME\"\n");
    char command[1024], out[4096];
    snprintf(command, sizeof command,
             "chmod +x %s/bin/claude && PATH=%s/bin:/usr/bin:/bin GAUNTLET_SCHEMA_FILE=%s/schema.json "
             "GAUNTLET_PROMPT=hi sh %s/adapters/claude-code/run.sh",
             dir, dir, dir, dir);
    ck_assert_msg(run(command, out, sizeof out) == 0, "%s", out);
    ck_assert_msg(strstr(out, "fake claude: -p --output-format json | HOME=/tmp/") != NULL, "%s", out);
    /* CLAUDE wins over PATH */
    snprintf(command, sizeof command,
             "PATH=%s/bin:/usr/bin:/bin CLAUDE=/bin/echo GAUNTLET_SCHEMA_FILE=%s/schema.json GAUNTLET_PROMPT=hi "
             "sh %s/adapters/claude-code/run.sh",
             dir, dir, dir);
    ck_assert_msg(run(command, out, sizeof out) == 0, "%s", out);
    ck_assert_msg(strncmp(out, "-p --output-format json --json-schema {\"type\":\"object\"} hi", 56) == 0, "%s", out);
}
END_TEST

/* The CLI's empty HOME is removed when it ends, and its exit status is the
 * wrapper's (an exec'd CLI left one folder per run in /tmp). */
START_TEST(test_claude_wrapper_removes_its_home)
{
    lone_wrapper();
    write_file("bin/claude", "#!/bin/sh\necho \"home $HOME\"; touch \"$HOME/.claude.json\"; exit 7\n");
    char command[1024], out[4096];
    snprintf(command, sizeof command,
             "mkdir -p %s/tmp && chmod +x %s/bin/claude && TMPDIR=%s/tmp CLAUDE=%s/bin/claude "
             "GAUNTLET_SCHEMA_FILE=%s/schema.json GAUNTLET_PROMPT=hi sh %s/adapters/claude-code/run.sh",
             dir, dir, dir, dir, dir, dir);
    ck_assert_msg(run(command, out, sizeof out) == 7, "%s", out);
    ck_assert_msg(strstr(out, "home ") != NULL && strstr(out, "/tmp/tmp.") != NULL, "%s", out);
    snprintf(command, sizeof command, "ls -A %s/tmp", dir);
    ck_assert_int_eq(run(command, out, sizeof out), 0);
    ck_assert_msg(out[0] == '\0', "left behind: %s", out);
}
END_TEST

/* No claude anywhere: the documented "cannot run" status 3 and the fix. */
START_TEST(test_claude_wrapper_without_claude_cannot_run)
{
    lone_wrapper();
    char command[1024], out[4096];
    snprintf(command, sizeof command,
             "PATH=%s/bin:/usr/bin:/bin GAUNTLET_SCHEMA_FILE=%s/schema.json GAUNTLET_PROMPT=hi "
             "sh %s/adapters/claude-code/run.sh",
             dir, dir, dir);
    ck_assert_msg(run(command, out, sizeof out) == 3, "%s", out);
    ck_assert_msg(strstr(out, "run 'make interop' or set CLAUDE=") != NULL, "%s", out);
}
END_TEST

/* evidence: the report's figures, the envelope (from the report or the saved
 * stdout), the journal one line per request; render: every case with its
 * evidence, the explanation beside it, nothing unexplained left silent. */
START_TEST(test_certification_doc_generated_from_evidence)
{
    char command[1024], out[1 << 16];
    snprintf(command, sizeof command,
             "scripts/certification-doc evidence suite/data/certification/report.json "
             "suite/data/certification/evidence > %s/evidence.json",
             dir);
    ck_assert_msg(run(command, out, sizeof out) == 0, "%s", out);
    snprintf(command, sizeof command,
             "scripts/certification-doc render %s/evidence.json suite/data/certification/explanations.json", dir);
    ck_assert_msg(run(command, out, sizeof out) == 0, "%s", out);
    const char *wanted[] = {
        "# Certification report: Fake CLI (black box, over HTTP)",
        "user agent seen by the mock: `fake-cli/9.9`",
        "| loop | 3 | 1 | 1 | 0 | 1 |\n| total | 3 | 1 | 1 | 0 | 1 |",
        /* the passing case's envelope comes from the saved stdout, trimmed to its telling fields */
        "### `loop.t.passes`: PASS",
        "message: client exited with status 1 and no result envelope; stderr: Error: --json-schema must be a JSON object",
        "- envelope: `{\"subtype\":\"success\",\"is_error\":false,\"structured_output\":{\"ok\":true}}`",
        /* the evidence next to the explanation */
        "- envelope: `{\"subtype\":\"success\",\"is_error\":false,\"stop_reason\":\"max_tokens\","
        "\"structured_output\":{\"a\":1}}`\n- journal: 4 requests\n"
        "  - `#1 200, /v1/messages, sse, turn 0, 2 tools incl. StructuredOutput, fault cut`\n"
        "  - `#2 200, /v1/messages, sse, beyond the script, 1 tools, no StructuredOutput | sent user: "
        "tool_result is_error \"No such tool available: StructuredOutput\"`\n"
        "  - `#3-#4 (2x) 200, /v1/messages, sse, beyond the script, 1 tools, no StructuredOutput | sent the same messages "
        "again (a resend)`\n"
        "- note: expected reject, observed accept (subtype success)\n"
        "- **explanation** (Safety-relevant: the client accepted an object the reference refuses): It accepted",
        "violation: request 2: a tool error was fed back without naming the instance path",
        "| cases (outcome) | explanation |\n|---|---|\n| `loop.t.accepts-truncated` (fail) | It accepted tool input",
        /* neither an unexplained case nor a stale explanation is silent */
        "### Not explained yet\n\n| case | outcome | note |\n|---|---|---|\n| `loop.t.skipped` | skip |",
        "### Explanations for cases not in this run\n\n- `loop.t.gone`:",
        "certification-doc: 1 case(s) not explained, 1 explanation(s) for cases not in the run",
    };
    for (size_t i = 0; i < sizeof wanted / sizeof *wanted; i++)
        ck_assert_msg(strstr(out, wanted[i]) != NULL, "missing: %s\n--- in:\n%s", wanted[i], out);
    ck_assert_ptr_null(strstr(out, "total_cost_usd")); /* bookkeeping is not evidence */
}
END_TEST

/* The published report is generated: rendering the committed evidence with
 * the committed explanations gives docs/certification-claude-code.md byte
 * for byte, and every case that did not pass is explained. */
START_TEST(test_committed_certification_is_generated)
{
    char command[1024], out[8192];
    snprintf(command, sizeof command,
             "scripts/certification-doc render docs/certification/claude-code.evidence.json "
             "docs/certification/claude-code.explanations.json > %s/cc.md && "
             "cmp %s/cc.md docs/certification-claude-code.md && echo same",
             dir, dir);
    ck_assert_msg(run(command, out, sizeof out) == 0, "%s", out);
    ck_assert_msg(strcmp(out, "same\n") == 0, "%s", out); /* no warning: nothing unexplained */
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("interop tooling");
    TCase *tc = tcase_create("interop");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_compare_same_outcomes_pass);
    tcase_add_test(tc, test_compare_differences_fail);
    tcase_add_test(tc, test_compare_update_records);
    tcase_add_test(tc, test_interop_clients_are_pinned);
    tcase_add_test(tc, test_claude_wrapper_finds_claude_on_path);
    tcase_add_test(tc, test_claude_wrapper_without_claude_cannot_run);
    tcase_add_test(tc, test_claude_wrapper_removes_its_home);
    tcase_add_test(tc, test_certification_doc_generated_from_evidence);
    tcase_add_test(tc, test_committed_certification_is_generated);
    suite_add_tcase(suite, tc);
    return suite;
}

GT_TEST_MAIN()
