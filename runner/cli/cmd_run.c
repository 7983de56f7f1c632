/* cmd_run.c — `gauntlet run`: replay the corpus against a target and report.
 *
 * Contract (relied on by external checks):
 *   stdout: the per-gate table (gate, cases, pass, fail, error, skip, total),
 *           then one `FAIL|ERROR|SKIP <id>: <note>` line per case that did not
 *           pass, then the last line `N passed, N failed, N skipped` (errors
 *           count as failed);
 *   stderr: load problems as `<file>:<line>: <field>: <message>`;
 *   exit:   0 every case passed (skips allowed), 1 a case failed or errored,
 *           2 usage, I/O or case-file error (load problems give 2 even though
 *           the good cases ran and appear in the reports).
 *           With --baseline FILE: 1 only when a case that passed in FILE
 *           fails or errors now (a regression); known failures give 0; 2 as
 *           above, or when FILE cannot be read. docs/ci.md.
 * Between the table and the FAIL lines: the attempt-accounting table (cases
 * with accounting only); before the totals line: the baseline diff (with
 * --baseline) and the certification footer (with --certify). On a terminal
 * a progress line is redrawn; otherwise (a log, CI) a plain progress line
 * `[done/total] N failed, S s` goes to stderr at most every RUN_LOG_PROGRESS_MS.
 * --list prints the selected case ids, one per line, and runs nothing
 * (exit 0, or 2 as above for load problems or an empty selection).
 * When a --report goes to standard output ("json:-"), the human output moves
 * to stderr so the report stays parseable. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cli_io.h"
#include "commands.h"
#include "runner/corpus_shard.h"
#include "test_sharding.h"
#include "gauntlet/runner/corpus.h"
#include "gauntlet/runner/report.h"
#include "gauntlet/runner/run.h"
#include "reports/report_util.h"
#include "runner/smoke.h"
#include "runner/targets/target_adapter.h"
#include "runner/jsts.h"

#define RUN_MAX_JOBS 1024u
#define RUN_MAX_REPORTS 16
#define RUN_MAX_SHARDS 1024u
#define RUN_LOG_PROGRESS_MS 10000.0 /* a log line every 10 s keeps long runs visibly alive */


typedef struct run_options {
    const char **paths;
    size_t path_count;
    const char **jsts_dirs; /* --jsts DIR: JSON-Schema-Test-Suite dialect folders, as structure cases */
    size_t jsts_count;
    bool jsts_formats;      /* --formats: also their optional/format/ tests, `format` asserted */
    const char *gate, *tag, *id_glob;
    const char *target;
    unsigned jobs;
    int timeout_ms; /* adapter per-case deadline; 0 = the adapter's default */
    gt_report_spec reports[RUN_MAX_REPORTS];
    size_t report_count;
    bool quiet;
    bool certify;
    bool smoke_only; /* --smoke: play the built-in smoke case through the target, nothing else */
    bool list;       /* --list: print the selected case ids, run nothing */
    size_t max_fail; /* --max-fail N / -x: stop after N failed or errored cases; 0 = never */
    int colour;      /* --color: -1 auto (a terminal without NO_COLOR), 0 never, 1 always */
    const char *baseline; /* earlier JSON report, or NULL */
    unsigned shard_index, shard_count; /* 0 = not sharded */
    unsigned profiles; /* --profile LIST: the claim the target is judged on; 0 = what the target claims */
    char *report_args[RUN_MAX_REPORTS]; /* strdup'd --report values (split in place) */
    size_t report_arg_count;
} run_options;

static void run_usage(FILE *out)
{
    fprintf(out,
            "usage: gauntlet run [PATH...] [--gate G] [--tag T] [--id GLOB] [--target SPEC] [-j N]\n"
            "                    [--report FORMAT:FILE]... [--baseline FILE] [--shard K/N] [--certify] [--quiet]\n"
            "                    [--max-fail N] [-x] [--color WHEN] [--profile LIST]\n"
            "       gauntlet run --jsts DIR [--formats] [PATH...] [options as above]\n"
            "       gauntlet run --list [PATH...] [--gate G] [--tag T] [--id GLOB] [--shard K/N]\n"
            "       gauntlet run --smoke --target SPEC\n"
            "\n"
            "Replay corpus cases against a target and report per gate.\n"
            "  PATH                 case files or directories (recursive, *.cases.json);\n"
            "                       default: ./corpus, else the corpus next to the gauntlet binary\n"
            "  --jsts DIR           every JSON-Schema-Test-Suite test in DIR (a tests/<draft> folder, read\n"
            "                       at run time) as a structure case: DIR/*.json tier required, optional/\n"
            "                       tier optional; repeatable; without PATH the bundled corpus is not loaded\n"
            "  --formats            with --jsts: also optional/format/, with `format` asserted\n"
            "  --gate G             only cases of gate G (syntax, structure, semantic, policy, stream, loop, wire)\n"
            "  --tag T              only cases tagged T\n"
            "  --id GLOB            only cases whose id matches the shell glob\n"
            "  --target SPEC        implementation under test (default: reference)\n"
            "  --profile LIST       judge the target on these profiles (comma-separated: core, repair-loop,\n"
            "                       claude-code, sdk-transform, reasons, or all); default: what the target\n"
            "                       claims (the reference: all; an adapter: its hello's profiles, else core;\n"
            "                       http: and http-worker: core). Cases of other profiles are not\n"
            "                       applicable: never sent, counted apart (gauntlet profiles lists them)\n"
            "  -j, --jobs N         worker threads, each with its own target (default and 0: one per CPU)\n"
            "  --timeout T          per-case deadline of an adapter or the reference target: seconds,\n"
            "                       or with a unit (500ms, 10s; default %d s)\n"
            "  --report FORMAT:FILE write a report: " GT_REPORT_FORMATS "; FILE '-' is standard output;\n"
            "                       repeatable, or comma-separated (json:r.json,junit:r.xml,html:r.html)\n"
            "  --baseline FILE      compare with an earlier JSON report: exit 1 only when a case that passed\n"
            "                       there fails now (regressions, fixed and new cases are listed)\n"
            "  --shard K/N          run only shard K of N (round-robin over the selected cases); join the\n"
            "                       JSON reports with 'gauntlet merge'. Without it, Bazel's sharding\n"
            "                       environment is honoured: TEST_TOTAL_SHARDS=N, TEST_SHARD_INDEX=K-1\n"
            "                       (TEST_SHARD_STATUS_FILE is touched; XML_OUTPUT_FILE gets a JUnit report)\n"
            "  --certify            print the certification summary (implementation, corpus hash, pass\n"
            "                       rates, attempt accounting, command to reproduce)\n"
            "  -q, --quiet          print only the totals line (and load problems)\n"
            "  --list               print the ids of the selected cases, one per line, and run nothing\n"
            "  --max-fail N         stop starting cases after N failed or errored ones; the cases not run\n"
            "                       are reported as skipped (not run)\n"
            "  -x, --exitfirst      the same as --max-fail 1\n"
            "  --color WHEN         colour the console: auto (a terminal, unless NO_COLOR is set), always,\n"
            "                       never\n"
            "  --smoke              only play gauntlet's built-in, always-valid case through the target and\n"
            "                       say whether it produced a verdict (adapter: and http: targets are smoked\n"
            "                       before every run; a failed smoke stops the run with exit 2)\n"
            "exit: 0 all passed (other-reason and not-applicable cases are no failures), 1 a case failed or\n"
            "      errored (with --baseline: a regression), 2 usage, I/O or case-file error, no case\n"
            "      selected or none applicable, or a target that failed its smoke test\n",
            GT_ADAPTER_DEFAULT_TIMEOUT_MS / 1000);
}

static int usage_error(const char *fmt, const char *detail)
{
    fputs("gauntlet run: ", stderr);
    fprintf(stderr, fmt, detail);
    fputs("\n(gauntlet run --help lists the options)\n", stderr);
    return 2;
}

/* Split one --report value ("json:a.json,junit:b.xml") into specs. */
static int add_reports(run_options *options, const char *value)
{
    if (options->report_arg_count == RUN_MAX_REPORTS)
        return usage_error("too many --report options%s", "");
    char *copy = strdup(value);
    if (copy == NULL)
        return usage_error("out of memory%s", "");
    options->report_args[options->report_arg_count++] = copy;
    char err[256];
    if (gt_report_specs_parse(copy, options->reports, &options->report_count, RUN_MAX_REPORTS, err, sizeof err) != 0)
        return usage_error("%s", err);
    return 0;
}

static int parse_jobs(const char *text, unsigned *jobs)
{
    if (text == NULL || *text == '\0')
        return -1;
    unsigned long value = 0;
    for (const char *p = text; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        value = value * 10 + (unsigned long)(*p - '0');
        if (value > RUN_MAX_JOBS)
            return -1;
    }
    *jobs = (unsigned)value;
    return 0;
}

/* "10" (seconds), "10s" or "500ms" -> milliseconds, 1 ms .. 24 h. */
static int parse_timeout(const char *text, int *timeout_ms)
{
    char *end = NULL;
    unsigned long value = strtoul(text, &end, 10);
    if (end == text || text[0] == '-' || text[0] == '+')
        return -1;
    unsigned long scale = 1000;
    if (strcmp(end, "ms") == 0)
        scale = 1;
    else if (strcmp(end, "s") != 0 && *end != '\0')
        return -1;
    if (value == 0 || value > 86400000ul / scale)
        return -1;
    *timeout_ms = (int)(value * scale);
    return 0;
}

/* `--name value` or `--name=value`. Returns the value (advancing *index) or
 * NULL when `arg` is not this option; *missing is set when it is but has no
 * value. */
static const char *option_value(int argc, char **argv, int *index, const char *name, bool *missing)
{
    const char *arg = argv[*index];
    size_t len = strlen(name);
    if (strncmp(arg, name, len) != 0)
        return NULL;
    if (arg[len] == '=')
        return arg + len + 1;
    if (arg[len] != '\0')
        return NULL;
    if (*index + 1 >= argc) {
        *missing = true;
        return NULL;
    }
    return argv[++*index];
}

/* "K/N" with 1 <= K <= N <= RUN_MAX_SHARDS. */
static int parse_shard(const char *text, unsigned *index, unsigned *count)
{
    char *end = NULL;
    if (text[0] < '0' || text[0] > '9')
        return -1;
    unsigned long k = strtoul(text, &end, 10);
    if (*end != '/' || end[1] < '0' || end[1] > '9')
        return -1;
    unsigned long n = strtoul(end + 1, &end, 10);
    if (*end != '\0' || k == 0 || n == 0 || k > n || n > RUN_MAX_SHARDS)
        return -1;
    *index = (unsigned)k;
    *count = (unsigned)n;
    return 0;
}

static int parse_args(int argc, char **argv, run_options *options, bool *help)
{
    options->paths = calloc((size_t)argc, sizeof *options->paths);
    options->jsts_dirs = calloc((size_t)argc, sizeof *options->jsts_dirs);
    if (options->paths == NULL || options->jsts_dirs == NULL)
        return usage_error("out of memory%s", "");
    bool options_done = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        bool missing = false;
        const char *value;
        if (options_done || arg[0] != '-' || arg[1] == '\0') {
            options->paths[options->path_count++] = arg;
        } else if (strcmp(arg, "--") == 0) {
            options_done = true;
        } else if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            *help = true;
            return 0;
        } else if (strcmp(arg, "--quiet") == 0 || strcmp(arg, "-q") == 0) {
            options->quiet = true;
        } else if (strcmp(arg, "--certify") == 0) {
            options->certify = true;
        } else if (strcmp(arg, "--smoke") == 0) {
            options->smoke_only = true;
        } else if (strcmp(arg, "--list") == 0) {
            options->list = true;
        } else if (strcmp(arg, "--formats") == 0) {
            options->jsts_formats = true;
        } else if ((value = option_value(argc, argv, &i, "--jsts", &missing)) != NULL) {
            options->jsts_dirs[options->jsts_count++] = value;
        } else if (strcmp(arg, "-x") == 0 || strcmp(arg, "--exitfirst") == 0) {
            options->max_fail = 1;
        } else if ((value = option_value(argc, argv, &i, "--max-fail", &missing)) != NULL) {
            unsigned count = 0;
            if (parse_jobs(value, &count) != 0 || count == 0)
                return usage_error("--max-fail needs a number of failures from 1 to 1024, got '%s'", value);
            options->max_fail = count;
        } else if ((value = option_value(argc, argv, &i, "--color", &missing)) != NULL) {
            options->colour = strcmp(value, "always") == 0 ? 1 : strcmp(value, "never") == 0 ? 0 : -1;
            if (options->colour == -1 && strcmp(value, "auto") != 0)
                return usage_error("--color needs auto, always or never, got '%s'", value);
        } else if ((value = option_value(argc, argv, &i, "--baseline", &missing)) != NULL) {
            if (options->baseline != NULL)
                return usage_error("--baseline given twice%s", "");
            options->baseline = value;
        } else if ((value = option_value(argc, argv, &i, "--shard", &missing)) != NULL) {
            if (options->shard_count != 0)
                return usage_error("--shard given twice%s", "");
            if (parse_shard(value, &options->shard_index, &options->shard_count) != 0)
                return usage_error("--shard needs K/N with 1 <= K <= N <= 1024 (e.g. 2/4), got '%s'", value);
        } else if ((value = option_value(argc, argv, &i, "--gate", &missing)) != NULL) {
            if (options->gate != NULL)
                return usage_error("--gate given twice%s", "");
            if (gt_gate_from_name(value) < 0)
                return usage_error(
                    "unknown gate '%s' (known: syntax, structure, semantic, policy, stream, loop, wire)", value);
            options->gate = value;
        } else if ((value = option_value(argc, argv, &i, "--tag", &missing)) != NULL) {
            if (options->tag != NULL)
                return usage_error("--tag given twice%s", "");
            options->tag = value;
        } else if ((value = option_value(argc, argv, &i, "--id", &missing)) != NULL) {
            if (options->id_glob != NULL)
                return usage_error("--id given twice%s", "");
            options->id_glob = value;
        } else if ((value = option_value(argc, argv, &i, "--target", &missing)) != NULL) {
            options->target = value;
        } else if ((value = option_value(argc, argv, &i, "--profile", &missing)) != NULL) {
            char err[256];
            if (options->profiles != 0)
                return usage_error("--profile given twice%s", "");
            if (gt_profiles_parse(value, &options->profiles, err, sizeof err) != 0)
                return usage_error("--profile: %s", err);
        } else if ((value = option_value(argc, argv, &i, "--timeout", &missing)) != NULL) {
            if (parse_timeout(value, &options->timeout_ms) != 0)
                return usage_error("--timeout needs a positive duration (10, 10s or 500ms), got '%s'", value);
        } else if ((value = option_value(argc, argv, &i, "--report", &missing)) != NULL) {
            int status = add_reports(options, value);
            if (status != 0)
                return status;
        } else if ((value = option_value(argc, argv, &i, "--jobs", &missing)) != NULL ||
                   (value = option_value(argc, argv, &i, "-j", &missing)) != NULL ||
                   (!missing && strncmp(arg, "-j", 2) == 0 && arg[2] != '\0')) {
            if (value == NULL)
                value = arg + 2; /* -j4 */
            if (parse_jobs(value, &options->jobs) != 0)
                return usage_error("-j needs a number of threads from 0 (one per CPU) to 1024, got '%s'", value);
        } else if (missing) {
            return usage_error("%s needs a value", arg);
        } else {
            fprintf(stderr, "gauntlet run: unknown option '%s'\n", arg);
            gt_cli_hint_option("run", arg);
            fputs("(gauntlet run --help lists the options)\n", stderr);
            return 2;
        }
    }
    if (options->jsts_formats && options->jsts_count == 0)
        return usage_error("--formats goes with --jsts DIR%s", "");
    return 0;
}

static bool is_directory(const char *path)
{
    struct stat info;
    return stat(path, &info) == 0 && S_ISDIR(info.st_mode);
}

/* The corpus that belongs to this executable (build/gauntlet -> ./corpus,
 * build/x/gauntlet -> ../../corpus, bin/gauntlet ->
 * ../share/gauntlet/corpus) into `out`; false when none exists. */
static bool corpus_beside_executable(char *out, size_t out_len)
{
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0)
        return false;
    exe[len] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash == NULL)
        return false;
    *slash = '\0';
    static const char *const relative[] = {"/../corpus", "/../../corpus", "/../share/gauntlet/corpus"};
    for (size_t i = 0; i < sizeof relative / sizeof relative[0]; i++) {
        snprintf(out, out_len, "%s%s", exe, relative[i]);
        if (is_directory(out))
            return true;
    }
    return false;
}

/* The bundled corpus: ./corpus, else the one beside the executable. A
 * ./corpus that is not the executable's own (a folder of that name in
 * the current directory shadowing the installed corpus) is said on stderr,
 * once, with both paths. Returns false when none exists. */
bool gt_cmd_default_corpus(char *out, size_t out_len)
{
    char beside[PATH_MAX];
    bool have_beside = corpus_beside_executable(beside, sizeof beside);
    if (is_directory("corpus")) {
        snprintf(out, out_len, "corpus");
        char here[PATH_MAX], own[PATH_MAX];
        static bool said;
        if (have_beside && !said && realpath("corpus", here) != NULL && realpath(beside, own) != NULL &&
            strcmp(here, own) != 0) {
            said = true;
            fprintf(stderr,
                    "gauntlet: using the corpus in ./corpus (%s), not this gauntlet's own (%s): give a path to "
                    "choose\n",
                    here, own);
        }
        return true;
    }
    if (have_beside)
        snprintf(out, out_len, "%s", beside);
    return have_beside;
}

typedef struct progress_state {
    FILE *out;
    double last_ms;
    double started_ms;
    size_t not_passed; /* failed or errored so far */
    bool ci;           /* not a terminal: line-oriented, to stderr, rarely */
    double interval_ms; /* RUN_LOG_PROGRESS_MS, or $GAUNTLET_PROGRESS_MS (tests) */
} progress_state;

static double wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

/* `\r[done/total] id`, at most every 50 ms (a terminal is slower than the
 * reference on small cases). */
static void show_progress(void *user, size_t done, size_t total, const gt_case_result *last)
{
    progress_state *state = user;
    double now = wall_ms();
    if (last->outcome == GT_OUTCOME_FAIL || last->outcome == GT_OUTCOME_ERROR)
        state->not_passed++;
    if (state->ci) {
        if (done == total || now - state->last_ms < state->interval_ms)
            return;
        state->last_ms = now;
        fprintf(state->out, "[%zu/%zu] %zu failed, %.0f s\n", done, total, state->not_passed,
                (now - state->started_ms) / 1000.0);
        fflush(state->out);
        return;
    }
    if (done != total && now - state->last_ms < 50.0)
        return;
    state->last_ms = now;
    fprintf(state->out, "\r[%zu/%zu] ", done, total);
    if (state->not_passed > 0)
        fprintf(state->out, "%zu failed ", state->not_passed);
    gt_report_console_text(state->out, last->kase->input.id);
    fputs("\033[K", state->out);
    fflush(state->out);
}

/* Bazel's and GoogleTest's sharding environment (test_sharding.h): the
 * shard when --shard is not given, the status file touched, a JUnit report
 * to XML_OUTPUT_FILE. 0, or -1 after a message. */
static int apply_test_sharding(run_options *options)
{
    gt_test_sharding sharding;
    char err[1024];
    if (gt_test_sharding_read(&sharding, RUN_MAX_SHARDS, err, sizeof err) != 0 ||
        gt_test_sharding_touch_status(&sharding, err, sizeof err) != 0) {
        fprintf(stderr, "gauntlet run: %s\n", err);
        return -1;
    }
    if (options->shard_count == 0 && sharding.shard_count > 0) {
        options->shard_index = sharding.shard_index;
        options->shard_count = sharding.shard_count;
    }
    if (sharding.xml_output != NULL && !options->list) {
        if (options->report_count == RUN_MAX_REPORTS) {
            fprintf(stderr, "gauntlet run: too many --report options for XML_OUTPUT_FILE's JUnit report too\n");
            return -1;
        }
        options->reports[options->report_count++] =
            (gt_report_spec){"junit", sharding.xml_output, gt_report_writer_for("junit")};
    }
    return 0;
}

static void free_options(run_options *options)
{
    free(options->paths);
    free(options->jsts_dirs);
    for (size_t i = 0; i < options->report_arg_count; i++)
        free(options->report_args[i]);
}

/* Append `word` to `out` quoted for a POSIX shell (as is when it needs no
 * quoting). */
static void shell_word(FILE *out, const char *word)
{
    bool plain = word[0] != '\0';
    for (const char *p = word; *p && plain; p++)
        plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,+@%", *p) != NULL;
    if (plain) {
        fputs(word, out);
        return;
    }
    fputc('\'', out);
    for (const char *p = word; *p; p++) {
        if (*p == '\'')
            fputs("'\\''", out);
        else
            fputc(*p, out);
    }
    fputc('\'', out);
}

char *gt_cmd_command_line(int argc, char **argv)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (out == NULL)
        return NULL;
    fputs("gauntlet", out);
    for (int i = 0; i < argc; i++) {
        fputc(' ', out);
        shell_word(out, argv[i]);
    }
    if (fclose(out) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* The corpus version: the first line of VERSION at the root of the first
 * corpus directory that has one. Returns false when none does. */
static bool corpus_version(const run_options *options, char *out, size_t out_len)
{
    for (size_t i = 0; i < options->path_count; i++) {
        if (!is_directory(options->paths[i]))
            continue;
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/VERSION", options->paths[i]);
        FILE *in = fopen(path, "r");
        if (in == NULL)
            continue;
        bool ok = fgets(out, (int)out_len, in) != NULL;
        fclose(in);
        if (!ok)
            continue;
        out[strcspn(out, "\r\n")] = '\0';
        if (out[0] != '\0')
            return true;
    }
    return false;
}

/* The tags (or, with `gates`, the gates) the loaded cases carry, sorted and
 * comma-separated: what an empty selection could have named. Malloc'd. */
static int compare_text(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static char *known_values(const gt_corpus *corpus, bool gates)
{
    size_t cap = 64, count = 0;
    const char **values = malloc(cap * sizeof *values);
    for (size_t i = 0; values != NULL && i < gt_corpus_count(corpus); i++) {
        const gt_case *kase = gt_corpus_case(corpus, i);
        size_t n = gates ? 1 : kase->tag_count;
        for (size_t t = 0; t < n; t++) {
            const char *value = gates ? kase->input.gate : kase->tags[t];
            bool seen = false;
            for (size_t j = 0; j < count && !seen; j++)
                seen = strcmp(values[j], value) == 0;
            if (seen)
                continue;
            if (count == cap) {
                const char **grown = realloc(values, (cap *= 2) * sizeof *values);
                if (grown == NULL)
                    break;
                values = grown;
            }
            values[count++] = value;
        }
    }
    char *text = NULL;
    size_t len = 0;
    FILE *out = values ? open_memstream(&text, &len) : NULL;
    if (out != NULL) {
        qsort(values, count, sizeof *values, compare_text);
        for (size_t i = 0; i < count; i++)
            fprintf(out, "%s%s", i ? ", " : "", values[i]);
        fclose(out);
    }
    free(values);
    return text;
}

/* `--target adapter:python3 my_adapter.py` unquoted makes the script a PATH
 * argument: name that mistake when a PATH is a file that is no case file. */
static void hint_script_as_path(const run_options *options)
{
    static const char suffix[] = ".cases.json";
    for (size_t i = 0; i < options->path_count; i++) {
        const char *path = options->paths[i];
        size_t len = strlen(path);
        struct stat st;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
            (len >= sizeof suffix - 1 && strcmp(path + len - (sizeof suffix - 1), suffix) == 0))
            continue;
        fprintf(stderr, "  hint: %s is not a case file (*.cases.json); if it is your adapter's script, quote the whole "
                        "command: --target 'adapter:%s %s'\n",
                path, options->target && strncmp(options->target, "adapter:", 8) == 0 ? options->target + 8 : "python3",
                path);
        return;
    }
}

static void report_empty_selection(const run_options *options, size_t loaded, const char *known)
{
    if (!options->gate && !options->tag && !options->id_glob) {
        fputs("gauntlet run: no case found in", stderr);
        for (size_t i = 0; i < options->path_count; i++)
            fprintf(stderr, " %s", options->paths[i]);
        fputs(" (no *.cases.json with a loadable case there)\n", stderr);
        hint_script_as_path(options);
        return;
    }
    fputs("gauntlet run: no case matches", stderr);
    if (options->gate)
        fprintf(stderr, " --gate %s", options->gate);
    if (options->tag)
        fprintf(stderr, " --tag %s", options->tag);
    if (options->id_glob)
        fprintf(stderr, " --id '%s'", options->id_glob);
    fprintf(stderr, " among the %zu cases loaded", loaded);
    if (options->tag && known && known[0])
        fprintf(stderr, " (known tags: %s)", known);
    else if (options->gate && known && known[0])
        fprintf(stderr, " (gates with cases: %s)", known);
    fputs("\n", stderr);
}

/* Release what gt_cmd_run holds before its run and return 2. */
static int give_up(gt_corpus *corpus, char *command, gt_report_doc *baseline, run_options *options)
{
    gt_corpus_free(corpus);
    free(command);
    gt_report_doc_free(baseline);
    free_options(options);
    return 2;
}

/* A failed smoke still writes the reports asked for, every case an error
 * saying why, so CI finds a report whatever stopped the run. */
static void smoke_failure_reports(gt_corpus *corpus, const run_options *options, const gt_report_info *info,
                                  const char *why)
{
    if (options->report_count == 0)
        return;
    if (options->shard_count > 0)
        gt_corpus_shard(corpus, options->shard_index, options->shard_count);
    gt_run *run = gt_smoke_failed_run(corpus, options->target, why, options->profiles);
    gt_report_set_begin();
    for (size_t i = 0; run != NULL && i < options->report_count; i++)
        gt_write_report_file("gauntlet run", options->reports[i].format, options->reports[i].writer,
                             options->reports[i].path, run, info);
    gt_report_set_commit("gauntlet run");
    gt_run_free(run);
}

/* --list: the selected (and sharded) case ids on stdout, load problems on
 * stderr. Returns the exit code: 2 when a case file had problems. */
static int list_cases(gt_corpus *corpus, const run_options *options)
{
    if (options->shard_count > 0)
        gt_corpus_shard(corpus, options->shard_index, options->shard_count);
    for (size_t i = 0; i < gt_corpus_count(corpus); i++) {
        gt_report_console_text(stdout, gt_corpus_case(corpus, i)->input.id);
        fputc('\n', stdout);
    }
    fflush(stdout);
    gt_print_load_problems(corpus);
    return gt_corpus_problem_count(corpus) > 0 ? 2 : 0;
}

static bool ci_environment(void)
{
    const char *ci = getenv("CI");
    return ci != NULL && ci[0] != '\0' && strcmp(ci, "false") != 0 && strcmp(ci, "0") != 0;
}

int gt_cmd_run(int argc, char **argv)
{
    run_options options = {.target = "reference", .jobs = 0, .colour = -1};
    bool help = false;
    int status = parse_args(argc, argv, &options, &help);
    if (status != 0 || help) {
        if (help)
            run_usage(stdout);
        free_options(&options);
        return status;
    }

    if (!options.smoke_only && apply_test_sharding(&options) != 0) {
        free_options(&options);
        return 2;
    }
    if (options.smoke_only) {
        status = gt_smoke_run(options.target, stdout, stderr) == 0 ? 0 : 2;
        free_options(&options);
        return status;
    }

    /* A baseline that cannot be read is a usage error: find out before running. */
    gt_report_doc *baseline = NULL;
    if (options.baseline != NULL) {
        char err[512];
        baseline = gt_report_load(options.baseline, err, sizeof err);
        if (baseline == NULL) {
            fprintf(stderr, "gauntlet run: --baseline: ");
            gt_report_console_text(stderr, err);
            fputc('\n', stderr);
            free_options(&options);
            return 2;
        }
    }

    gt_corpus *corpus = gt_corpus_new();
    char *command = gt_cmd_command_line(argc, argv);
    if (corpus == NULL || command == NULL) {
        fprintf(stderr, "gauntlet run: out of memory\n");
        return give_up(corpus, command, baseline, &options);
    }
    char bundled[PATH_MAX];
    for (size_t i = 0; i < options.jsts_count; i++) {
        if (gt_jsts_load_cases(corpus, "gauntlet run", options.jsts_dirs[i], options.jsts_formats) < 0)
            return give_up(corpus, command, baseline, &options);
    }
    if (options.path_count == 0 && options.jsts_count == 0) {
        if (!gt_cmd_default_corpus(bundled, sizeof bundled)) {
            fprintf(stderr, "gauntlet run: no corpus given and none found (./corpus or next to the binary)\n");
            return give_up(corpus, command, baseline, &options);
        }
        options.paths[options.path_count++] = bundled;
    }
    for (size_t i = 0; i < options.path_count; i++) {
        if (gt_corpus_load(corpus, options.paths[i]) < 0) {
            fprintf(stderr, "gauntlet run: out of memory loading '%s'\n", options.paths[i]);
            return give_up(corpus, command, baseline, &options);
        }
    }
    char sha256[65], version[256];
    gt_report_corpus_hash(corpus, sha256);
    gt_report_info info = {
        .command = command,
        .corpus_version = corpus_version(&options, version, sizeof version) ? version : NULL,
        .corpus_sha256 = sha256,
        .corpus_cases = gt_corpus_count(corpus),
        .shard_index = options.shard_index,
        .shard_count = options.shard_count,
        .certify = options.certify,
    };
    gt_report_count_profiles(corpus, &info);
    size_t loaded_cases = gt_corpus_count(corpus);
    char *known = known_values(corpus, options.gate != NULL && options.tag == NULL);
    info.selected_cases = gt_corpus_filter(corpus, options.gate, options.tag, options.id_glob);
    if (info.selected_cases == 0) {
        /* an empty selection is never green */
        gt_print_load_problems(corpus);
        report_empty_selection(&options, loaded_cases, known);
        free(known);
        fflush(stderr);
        bool report_on_stdout = false;
        for (size_t i = 0; i < options.report_count; i++)
            report_on_stdout = report_on_stdout || strcmp(options.reports[i].path, "-") == 0;
        if (!options.list) /* --list prints ids only: no totals line to mistake for one */
            fputs("0 passed, 0 failed, 0 skipped\n", report_on_stdout ? stderr : stdout); /* the totals line contract */
        return give_up(corpus, command, baseline, &options);
    }
    free(known);
    if (options.list) {
        status = list_cases(corpus, &options);
        give_up(corpus, command, baseline, &options);
        return status;
    }
    if (options.timeout_ms > 0) /* the smoke obeys --timeout too */
        gt_adapter_set_timeout_ms(options.timeout_ms);
    char smoke_why[1024];
    if (gt_smoke_wanted(options.target) &&
        gt_smoke_run_why(options.target, options.quiet ? NULL : stderr, stderr, smoke_why, sizeof smoke_why) != 0) {
        gt_print_load_problems(corpus);
        smoke_failure_reports(corpus, &options, &info, smoke_why);
        return give_up(corpus, command, baseline, &options);
    }
    if (options.shard_count > 0)
        gt_corpus_shard(corpus, options.shard_index, options.shard_count);

    bool report_on_stdout = false;
    for (size_t i = 0; i < options.report_count; i++)
        report_on_stdout = report_on_stdout || strcmp(options.reports[i].path, "-") == 0;
    FILE *human = report_on_stdout ? stderr : stdout;
    bool ci = ci_environment();
    bool terminal = !report_on_stdout && isatty(fileno(stdout)) && !ci;
    bool colour = options.colour >= 0 ? options.colour == 1 : terminal && getenv("NO_COLOR") == NULL;
    const char *interval = getenv("GAUNTLET_PROGRESS_MS");
    progress_state progress = {terminal ? stdout : stderr, wall_ms(), wall_ms(), 0, !terminal,
                               interval && atof(interval) > 0 ? atof(interval) : RUN_LOG_PROGRESS_MS};
    bool show = !options.quiet;

    if (options.timeout_ms > 0)
        gt_adapter_set_timeout_ms(options.timeout_ms);
    char err[512] = "";
    gt_run_options how = {options.target, options.jobs, options.max_fail, show ? show_progress : NULL, &progress,
                          options.profiles};
    gt_run *run = gt_run_cases_with(corpus, &how, err, sizeof err);
    if (run == NULL) {
        fprintf(stderr, "gauntlet run: %s\n", err);
        gt_print_load_problems(corpus);
        return give_up(corpus, command, baseline, &options);
    }
    if (terminal && show && run->count > 0)
        fputs("\r\033[K", stdout);

    gt_baseline_diff *diff = NULL;
    if (baseline != NULL) {
        diff = gt_baseline_compare(gt_report_doc_run(baseline), options.baseline, run);
        if (diff == NULL) {
            fprintf(stderr, "gauntlet run: out of memory comparing with the baseline\n");
            status = 2;
        }
        info.baseline = diff;
    }

    if (!options.quiet) {
        gt_report_console_summary(human, run, &info, colour);
        gt_report_console_baseline(human, diff, colour);
    } else if (diff != NULL && diff->counts[GT_BASELINE_REGRESSED] > 0) {
        gt_report_console_regressions(human, diff); /* a gating failure is never silent */
    }
    if (options.certify)
        gt_report_console_certification(human, run, &info);
    fflush(human);
    gt_print_load_problems(corpus);
    gt_run_counts counts[GT_GATE_COUNT + 1];
    gt_run_count(run, counts);
    bool none_applicable = run->count > 0 && counts[GT_GATE_COUNT].cases == 0;
    /* every applicable case skipped (none stopped by --max-fail): nothing was judged */
    bool none_judged = !none_applicable && counts[GT_GATE_COUNT].cases > 0 &&
                       counts[GT_GATE_COUNT].skip == counts[GT_GATE_COUNT].cases && options.max_fail == 0;
    if (run->count == 0)
        fprintf(stderr, "gauntlet run: no cases to run%s\n",
                options.gate || options.tag || options.id_glob || options.shard_count
                    ? " (no case matched the filters or this shard is empty)"
                    : "");
    else if (none_applicable) {
        char claimed[160];
        gt_profiles_format(run->profiles, ", ", claimed, sizeof claimed);
        /* an empty applicable selection is never green */
        fprintf(stderr,
                "gauntlet run: none of the %zu selected cases is applicable: the target is judged on %s "
                "and every selected case belongs to other profiles (--profile LIST; gauntlet profiles)\n",
                run->count, claimed);
    } else if (none_judged)
        fprintf(stderr,
                "gauntlet run: every one of the %zu applicable cases was skipped: the target can express none of "
                "them (see the skip notes: a capability it does not declare?); nothing was judged\n",
                counts[GT_GATE_COUNT].cases);

    bool io_failed = status != 0;
    gt_report_set_begin(); /* the run's reports: all new or all old */
    for (size_t i = 0; i < options.report_count; i++)
        if (gt_write_report_file("gauntlet run", options.reports[i].format, options.reports[i].writer, options.reports[i].path, run, &info) != 0)
            io_failed = true;
    if (gt_report_set_commit("gauntlet run") != 0)
        io_failed = true;
    fflush(stdout);
    fflush(stderr);
    if (!options.quiet)
        fputc('\n', human);
    gt_report_console_totals(human, run);
    fflush(human);

    if (io_failed || gt_corpus_problem_count(corpus) > 0 || none_applicable || none_judged)
        status = 2;
    else if (diff != NULL)
        status = diff->counts[GT_BASELINE_REGRESSED] > 0 ? 1 : 0;
    else if (counts[GT_GATE_COUNT].fail + counts[GT_GATE_COUNT].error > 0)
        status = 1;
    else
        status = 0;
    gt_baseline_diff_free(diff);
    gt_report_doc_free(baseline);
    gt_run_free(run);
    gt_corpus_free(corpus);
    free(command);
    free_options(&options);
    return status;
}
