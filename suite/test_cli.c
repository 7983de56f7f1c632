/* test_cli.c — the CLI people expect: `help CMD` prints exactly `CMD
 * --help`; `version` and `--version`; man pages generated from the help
 * texts (groff reads them without a warning, every option is in them); bash
 * and zsh completion generated from the command table; `run --list`,
 * `--max-fail N` / `-x` (cases not run are skipped, never dropped),
 * `--color`, -j defaulting to one thread per CPU, and the progress line a
 * log gets when standard output is not a terminal. */
#include <string.h>

#include "runner/cli/cli.h"
#include "runner/cli/commands.h"
#include "gauntlet/runner/run.h"
#include "gauntlet/version.h"
#include "gt_test.h"

static char out[1 << 20];

static int cli(char **argv)
{
    return gt_test_cli(gt_cli_main, argv, out, sizeof out);
}

/* Run `command` in a shell with `text` on its standard input; returns the
 * exit code and its output (stdout and stderr) in `out`. */
static int shell_with_input(const char *command, const char *text)
{
    char in_path[] = "/tmp/gt-cli-in-XXXXXX", out_path[] = "/tmp/gt-cli-out-XXXXXX";
    int in_fd = mkstemp(in_path), out_fd = mkstemp(out_path);
    ck_assert_int_ge(in_fd, 0);
    ck_assert_int_ge(out_fd, 0);
    ck_assert_int_eq(write(in_fd, text, strlen(text)), (ssize_t)strlen(text));
    close(in_fd);
    close(out_fd);
    char line[1024];
    snprintf(line, sizeof line, "%s < %s > %s 2>&1", command, in_path, out_path);
    int status = system(line);
    char *got = gt_test_slurp(out_path);
    snprintf(out, sizeof out, "%s", got);
    free(got);
    unlink(in_path);
    unlink(out_path);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

START_TEST(help_command_prints_that_commands_help)
{
    size_t count;
    const gt_cli_command *commands = gt_cli_commands(&count);
    ck_assert_uint_ge(count, 16);
    static char direct[1 << 16];
    for (size_t i = 0; i < count; i++) {
        char *help_argv[] = {"gauntlet", "help", (char *)commands[i].name, NULL};
        ck_assert_int_eq(cli(help_argv), 0);
        char *own_argv[] = {"gauntlet", (char *)commands[i].name, "--help", NULL};
        ck_assert_int_eq(gt_test_cli(gt_cli_main, own_argv, direct, sizeof direct), 0);
        ck_assert_str_eq(out, direct);
        char usage[64];
        snprintf(usage, sizeof usage, "usage: gauntlet %s", commands[i].name);
        ck_assert_msg(strncmp(out, usage, strlen(usage)) == 0, "%s: help starts '%.40s'", commands[i].name, out);
        /* the captured text (what man pages and completion read) is the same text */
        char *captured = gt_cli_help_text(&commands[i]);
        ck_assert_str_eq(captured, direct);
        free(captured);
    }
    char *bare[] = {"gauntlet", "help", NULL};
    ck_assert_int_eq(cli(bare), 0);
    ck_assert_ptr_nonnull(strstr(out, "usage: gauntlet <command>"));
    ck_assert_ptr_nonnull(strstr(out, "  completion "));
    char *unknown[] = {"gauntlet", "help", "frobnicate", NULL};
    ck_assert_int_eq(cli(unknown), 2);
    ck_assert_ptr_nonnull(strstr(out, "unknown command 'frobnicate'"));
    char *names[] = {"gauntlet", "help", "--commands", NULL};
    ck_assert_int_eq(cli(names), 0);
    char expected[1024] = "";
    for (size_t i = 0; i < count; i++)
        snprintf(expected + strlen(expected), sizeof expected - strlen(expected), "%s\n", commands[i].name);
    ck_assert_str_eq(out, expected); /* the table, in order, one per line */
}
END_TEST

/* A typo of a command or of an option: the nearest name is suggested (only
 * when it is close), the usage error and its exit code 2 are unchanged. */
START_TEST(typos_suggest_the_nearest_name)
{
    char *command[] = {"gauntlet", "rnu", NULL};
    ck_assert_int_eq(cli(command), 2);
    ck_assert_ptr_nonnull(strstr(out, "gauntlet: unknown command 'rnu'\ngauntlet: did you mean 'run'?\n"));
    ck_assert_ptr_nonnull(strstr(out, "usage: gauntlet <command>"));
    char *validat[] = {"gauntlet", "validat", NULL};
    ck_assert_int_eq(cli(validat), 2);
    ck_assert_ptr_nonnull(strstr(out, "did you mean 'validate'?"));
    char *far[] = {"gauntlet", "frobnicate", NULL};
    ck_assert_int_eq(cli(far), 2);
    ck_assert_ptr_null(strstr(out, "did you mean"));
    char *option[] = {"gauntlet", "run", "--gaet", "syntax", NULL};
    ck_assert_int_eq(cli(option), 2);
    ck_assert_str_eq(out, "gauntlet run: unknown option '--gaet'\n"
                          "gauntlet run: did you mean '--gate'?\n"
                          "(gauntlet run --help lists the options)\n");
    char *with_value[] = {"gauntlet", "run", "--reprot=json:x.json", NULL};
    ck_assert_int_eq(cli(with_value), 2);
    ck_assert_ptr_nonnull(strstr(out, "did you mean '--report'?"));
    char *far_option[] = {"gauntlet", "run", "--frobnicate", NULL};
    ck_assert_int_eq(cli(far_option), 2);
    ck_assert_ptr_null(strstr(out, "did you mean"));
    ck_assert_ptr_nonnull(strstr(out, "unknown option '--frobnicate'"));
    char *validate_option[] = {"gauntlet", "validate", "--schmea", "x.json", NULL};
    ck_assert_int_eq(cli(validate_option), 2);
    ck_assert_ptr_nonnull(strstr(out, "gauntlet validate: did you mean '--schema'?"));
    const char *names[] = {"run", "rules", "merge"};
    ck_assert_str_eq(gt_cli_nearest("rnu", names, 3), "run");
    ck_assert_str_eq(gt_cli_nearest("rules", names, 3), "rules");
    ck_assert_ptr_null(gt_cli_nearest("xyz", names, 3));
}
END_TEST

START_TEST(version_and_dash_dash_version)
{
    char *forms[][3] = {{"gauntlet", "version", NULL}, {"gauntlet", "--version", NULL}, {"gauntlet", "-V", NULL}};
    for (size_t i = 0; i < 3; i++) {
        ck_assert_int_eq(cli(forms[i]), 0);
        ck_assert_str_eq(out, "gauntlet " GAUNTLET_VERSION "\n");
    }
    char *extra[] = {"gauntlet", "version", "now", NULL};
    ck_assert_int_eq(cli(extra), 2);
    char *none[] = {"gauntlet", NULL};
    ck_assert_int_eq(cli(none), 2);
}
END_TEST

/* Every command's page: groff reads it with every warning on and says
 * nothing; its name, summary and every option of its help text are there. */
START_TEST(man_pages_come_from_the_help_texts)
{
    size_t count;
    const gt_cli_command *commands = gt_cli_commands(&count);
    ck_assert_int_eq(gt_test_cli(gt_cmd_completion, (char *[]){"completion", "bash", NULL}, out, sizeof out), 0);
    char *completion = strdup(out);
    for (size_t i = 0; i <= count; i++) {
        const gt_cli_command *command = i < count ? &commands[i] : NULL;
        char *man_argv[] = {"gauntlet", "help", "--man", command ? (char *)command->name : NULL, NULL};
        ck_assert_int_eq(cli(man_argv), 0);
        char *page = strdup(out);
        ck_assert_ptr_nonnull(strstr(page, ".SH NAME\n"));
        ck_assert_ptr_nonnull(strstr(page, ".SH SYNOPSIS\n.nf\n"));
        ck_assert_ptr_nonnull(strstr(page, ".SH \"SEE ALSO\"\n"));
        /* every help text says its exit codes, so every page has them */
        ck_assert_msg(strstr(page, ".SH \"EXIT STATUS\"\n") != NULL, "%s: no exit codes in its help",
                      command ? command->name : "gauntlet");
        ck_assert_int_eq(shell_with_input("groff -man -Tutf8 -ww -z", page), 0);
        ck_assert_msg(out[0] == '\0', "groff warns about %s: %s", command ? command->name : "gauntlet", out);
        if (command == NULL) {
            ck_assert_ptr_nonnull(strstr(page, ".SH COMMANDS\n"));
            ck_assert_ptr_nonnull(strstr(page, ".BR gauntlet\\-run (1),\n"));
            free(page);
            continue;
        }
        char name_line[256];
        snprintf(name_line, sizeof name_line, "gauntlet\\-%s \\- ", command->name);
        ck_assert_ptr_nonnull(strstr(page, name_line));
        /* each option the completion offers (read from the same help text) is documented */
        char needle[128];
        snprintf(needle, sizeof needle, "\n            %s) words=\"", command->name);
        const char *words = strstr(completion, needle);
        ck_assert_ptr_nonnull(words);
        words += strlen(needle);
        const char *end = strchr(words, '"');
        for (const char *word = words; word < end;) {
            size_t len = strcspn(word, " \"");
            if (word[0] == '-' && strncmp(word, "--help", len) != 0) {
                char roff[96] = "";
                for (size_t k = 0; k < len && strlen(roff) < sizeof roff - 3; k++)
                    strncat(roff, word[k] == '-' ? "\\-" : (char[]){word[k], '\0'}, sizeof roff - strlen(roff) - 1);
                ck_assert_msg(strstr(page, roff) != NULL, "%s: %s missing from the man page", command->name, roff);
            }
            word += len + (word[len] == ' ');
        }
        free(page);
    }
    free(completion);
    /* the run page: an option with its description, the exit status section */
    char *run_man[] = {"gauntlet", "help", "--man", "run", NULL};
    ck_assert_int_eq(cli(run_man), 0);
    ck_assert_ptr_nonnull(strstr(out, ".TH \"GAUNTLET-RUN\" 1 \"\" \"gauntlet " GAUNTLET_VERSION "\""));
    ck_assert_ptr_nonnull(strstr(out, ".TP\n.B \"\\-\\-gate G\"\nonly cases of gate G"));
    ck_assert_ptr_nonnull(strstr(out, ".SH \"EXIT STATUS\"\n0 all passed"));
}
END_TEST

/* The bash script: valid, completes commands, each command's options, gate
 * names after --gate, and leaves other words to file completion. */
START_TEST(bash_completion_from_the_command_table)
{
    ck_assert_int_eq(gt_test_cli(gt_cmd_completion, (char *[]){"completion", "bash", NULL}, out, sizeof out), 0);
    char *script = strdup(out);
    ck_assert_int_eq(shell_with_input("bash -n", script), 0);
    char *test = NULL;
    ck_assert_int_gt(asprintf(&test,
                              "%s\n"
                              "t() { COMP_WORDS=(\"$@\"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _gauntlet; echo "
                              "\"[${COMPREPLY[*]}]\"; }\n"
                              "t gauntlet ru\n"
                              "t gauntlet run --ga\n"
                              "t gauntlet run --max\n"
                              "t gauntlet run --gate po\n"
                              "t gauntlet run --color n\n"
                              "t gauntlet run corp\n"
                              "t gauntlet help tra\n"
                              "t gauntlet completion z\n"
                              "t gauntlet parse --allow-b\n"
                              "complete -p gauntlet\n",
                              script),
                     0);
    ck_assert_int_eq(shell_with_input("bash", test), 0);
    ck_assert_str_eq(out, "[run rules]\n[--gate]\n[--max-fail]\n[policy]\n[never]\n[]\n[transform]\n[zsh]\n"
                          "[--allow-big-integers]\ncomplete -o default -F _gauntlet gauntlet\n");
    free(test);
    free(script);
    ck_assert_int_eq(gt_test_cli(gt_cmd_completion, (char *[]){"completion", "fish", NULL}, out, sizeof out), 2);
}
END_TEST

START_TEST(zsh_completion_from_the_command_table)
{
    ck_assert_int_eq(gt_test_cli(gt_cmd_completion, (char *[]){"completion", "zsh", NULL}, out, sizeof out), 0);
    char *script = strdup(out);
    ck_assert(strncmp(script, "#compdef gauntlet\n", 18) == 0);
    ck_assert_ptr_nonnull(strstr(script, "'run:replay the corpus against a target and report per gate'"));
    ck_assert_ptr_nonnull(strstr(script, "'merge:join the JSON reports of '\\''run --shard K/N'\\''"));
    ck_assert_ptr_nonnull(strstr(script, "'--list:print the ids of the selected cases"));
    ck_assert_ptr_nonnull(strstr(script, "(--gate) compadd syntax structure semantic policy stream loop wire;"));
    ck_assert_msg(system("zsh --version >/dev/null 2>&1") == 0, "zsh missing: scripts/deps installs it");
    ck_assert_int_eq(shell_with_input("zsh -n", script), 0);
    ck_assert_str_eq(out, "");
    /* loaded into a zsh with the completion system, it registers itself */
    char *test = NULL;
    ck_assert_int_gt(asprintf(&test,
                              "autoload -Uz compinit && compinit -u -d /tmp/gt-zcompdump-%d\n%s\n"
                              "print -r -- ${_comps[gauntlet]}\n",
                              (int)getpid(), script),
                     0);
    ck_assert_int_eq(shell_with_input("zsh -f", test), 0);
    ck_assert_str_eq(out, "_gauntlet\n");
    free(test);
    free(script);
}
END_TEST

START_TEST(run_list_prints_the_selection)
{
    char *all[] = {"gauntlet", "run", "--list", GT_TEST_CORPUS "/wire", NULL};
    ck_assert_int_eq(cli(all), 0);
    ck_assert_ptr_null(strstr(out, "passed"));
    ck_assert_ptr_nonnull(strstr(out, "wire.lint.anthropic.clean\n"));
    size_t lines = gt_test_count_of(out, "\n");
    ck_assert_uint_gt(lines, 10);
    ck_assert_uint_eq(gt_test_count_of(out, "wire."), lines); /* ids only, one per line */

    char *filtered[] = {"gauntlet", "run", "--list", GT_TEST_CORPUS, "--id", "wire.lint.*", NULL};
    ck_assert_int_eq(cli(filtered), 0);
    size_t lint = gt_test_count_of(out, "\n");
    ck_assert_uint_gt(lint, 0);
    ck_assert_uint_lt(lint, lines);
    ck_assert_uint_eq(gt_test_count_of(out, "wire.lint."), lint);

    char *shard[] = {"gauntlet", "run", "--list", GT_TEST_CORPUS "/wire", "--shard", "2/2", NULL};
    ck_assert_int_eq(cli(shard), 0);
    ck_assert_uint_eq(gt_test_count_of(out, "\n"), lines / 2);

    char *none[] = {"gauntlet", "run", "--list", GT_TEST_CORPUS, "--id", "no.such.*", NULL};
    ck_assert_int_eq(cli(none), 2);
}
END_TEST

/* --max-fail 3 on one thread: exactly three failures, the rest skipped
 * with the reason, nothing dropped; -x stops at the first. */
START_TEST(max_fail_stops_and_keeps_every_case)
{
    char *stop[] = {"gauntlet", "run", GT_TEST_CORPUS, "--target", "adapter:sh suite/adapters/fake.sh ok",
                    "-j",       "1",   "--max-fail",   "3",        NULL};
    ck_assert_int_eq(cli(stop), 1);
    ck_assert_uint_eq(gt_test_count_of(out, "\nFAIL "), 3);
    ck_assert_uint_gt(gt_test_count_of(out, ": " GT_RUN_NOT_RUN_NOTE "\n"), 100);
    unsigned passed, failed, skipped;
    const char *totals = strstr(out, " passed, ");
    while (totals > out && totals[-1] != '\n')
        totals--;
    ck_assert_int_eq(sscanf(totals, "%u passed, %u failed, %u skipped", &passed, &failed, &skipped), 3);
    ck_assert_uint_eq(failed, 3);
    /* the adapter claims core alone: the other cases are not applicable, counted apart */
    unsigned applicable, selected, not_applicable;
    const char *header = strstr(out, " cases (");
    while (header != NULL && header > out && header[-1] != '\n')
        header--;
    ck_assert_ptr_nonnull(header);
    ck_assert_int_eq(sscanf(header, "%u of %u cases (%u not applicable)", &applicable, &selected, &not_applicable), 3);
    ck_assert_uint_eq(applicable, passed + failed + skipped);
    char *all[] = {"gauntlet", "run", "--list", GT_TEST_CORPUS, NULL};
    ck_assert_int_eq(cli(all), 0);
    ck_assert_uint_eq(passed + failed + skipped + not_applicable, gt_test_count_of(out, "\n"));

    char *first[] = {"gauntlet", "run", GT_TEST_CORPUS, "--target", "adapter:sh suite/adapters/fake.sh ok",
                     "-j1",      "-x",  "-q",           NULL};
    ck_assert_int_eq(cli(first), 1);
    ck_assert_ptr_nonnull(strstr(out, " passed, 1 failed, "));
    char *bad[] = {"gauntlet", "run", "--max-fail", "0", NULL};
    ck_assert_int_eq(cli(bad), 2);
}
END_TEST

/* The library: cases not started are skips with the note, in corpus order. */
START_TEST(run_options_max_fail_in_the_library)
{
    gt_corpus *corpus = gt_corpus_new();
    ck_assert_int_gt(gt_corpus_load(corpus, GT_TEST_CORPUS "/syntax"), 20);
    char err[256];
    gt_run_options how = {.target_spec = "adapter:sh suite/adapters/fake.sh ok", .jobs = 1, .max_fail = 2};
    gt_run *run = gt_run_cases_with(corpus, &how, err, sizeof err);
    ck_assert_ptr_nonnull(run);
    ck_assert_uint_eq(run->count, gt_corpus_count(corpus));
    gt_run_counts counts[GT_GATE_COUNT + 1];
    gt_run_count(run, counts);
    ck_assert_uint_eq(counts[GT_GATE_COUNT].fail, 2);
    size_t not_run = 0;
    for (size_t i = 0; i < run->count; i++) {
        ck_assert_ptr_eq(run->results[i].kase, gt_corpus_case(corpus, i));
        if (run->results[i].note && strcmp(run->results[i].note, GT_RUN_NOT_RUN_NOTE) == 0) {
            ck_assert_int_eq(run->results[i].outcome, GT_OUTCOME_SKIP);
            not_run++;
        }
    }
    /* the adapter claims core: the optional syntax cases are not applicable, stopped early or not */
    ck_assert_uint_gt(counts[GT_GATE_COUNT].not_applicable, 0);
    ck_assert_uint_eq(not_run + counts[GT_GATE_COUNT].pass + 2 + counts[GT_GATE_COUNT].not_applicable, run->count);
    gt_run_free(run);
    gt_corpus_free(corpus);
}
END_TEST

START_TEST(color_flag_and_no_color)
{
    setenv("NO_COLOR", "1", 1);
    char *always[] = {
        "gauntlet",       "run", GT_TEST_CORPUS "/syntax", "--target", "adapter:sh suite/adapters/fake.sh ok",
        "--color=always", NULL};
    ck_assert_int_eq(cli(always), 1);
    ck_assert_ptr_nonnull(strstr(out, "\033[31mFAIL\033[0m "));
    unsetenv("NO_COLOR");
    char *never[] = {
        "gauntlet", "run", GT_TEST_CORPUS "/syntax", "--target", "adapter:sh suite/adapters/fake.sh ok", "--color",
        "never",    NULL};
    ck_assert_int_eq(cli(never), 1);
    ck_assert_ptr_null(strstr(out, "\033["));
    ck_assert_ptr_nonnull(strstr(out, "\nFAIL "));
    char *bad[] = {"gauntlet", "run", "--color=sometimes", NULL};
    ck_assert_int_eq(cli(bad), 2);
    ck_assert_ptr_nonnull(strstr(out, "--color needs auto, always or never"));
}
END_TEST

/* -j defaults to one thread per CPU; a log (not a terminal) gets a plain
 * progress line on stderr at the interval. */
START_TEST(jobs_default_and_log_progress)
{
    char report[96], path[64];
    snprintf(path, sizeof path, "/tmp/gt-cli-%d.json", (int)getpid());
    snprintf(report, sizeof report, "json:%s", path);
    setenv("GAUNTLET_PROGRESS_MS", "1", 1);
    char *run[] = {"gauntlet", "run", GT_TEST_CORPUS, "--report", report, NULL};
    ck_assert_int_eq(cli(run), 0);
    unsetenv("GAUNTLET_PROGRESS_MS");
    ck_assert_ptr_nonnull(strstr(out, " failed, 0 s\n"));
    const char *line = strstr(out, "\n[");
    unsigned done, total, failed;
    ck_assert_ptr_nonnull(line);
    ck_assert_int_eq(sscanf(line + 1, "[%u/%u] %u failed,", &done, &total, &failed), 3);
    ck_assert_uint_lt(done, total);
    ck_assert_uint_eq(failed, 0);
    char *json = gt_test_slurp(path);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    char jobs[32];
    snprintf(jobs, sizeof jobs, "\"jobs\": %ld,", cpus);
    ck_assert_msg(strstr(json, jobs) != NULL, "report lacks %s", jobs);
    free(json);
    unlink(path);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("cli");
    TCase *help = tcase_create("help");
    tcase_set_timeout(help, 180);
    tcase_add_test(help, help_command_prints_that_commands_help);
    tcase_add_test(help, version_and_dash_dash_version);
    tcase_add_test(help, typos_suggest_the_nearest_name);
    tcase_add_test(help, man_pages_come_from_the_help_texts);
    tcase_add_test(help, bash_completion_from_the_command_table);
    tcase_add_test(help, zsh_completion_from_the_command_table);
    suite_add_tcase(suite, help);
    TCase *run = tcase_create("run");
    tcase_set_timeout(run, 180);
    tcase_add_test(run, run_list_prints_the_selection);
    tcase_add_test(run, max_fail_stops_and_keeps_every_case);
    tcase_add_test(run, run_options_max_fail_in_the_library);
    tcase_add_test(run, color_flag_and_no_color);
    tcase_add_test(run, jobs_default_and_log_progress);
    suite_add_tcase(suite, run);
    return suite;
}

GT_TEST_MAIN()
