/* cli_io.c — argument parsing, model-output reads and report files for the CLI.
 * Whole-file reads, atomic writes and base64 live in reference/util.c. */
#include "cli_io.h"
#include "commands.h"

#include "gauntlet/runner/corpus.h"
#include "gauntlet/parse.h"
#include "gauntlet/schema.h"
#include "gauntlet/util.h"
#include "gauntlet/value.h"
#include "reports/report_util.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

gt_value *gt_read_and_parse(gt_arena *arena, const char *path, const gt_parse_options *options, char **text,
                            gt_parse_error *error, char *err, size_t err_len)
{
    size_t max = options != NULL && options->max_bytes != 0 ? options->max_bytes : GT_PARSE_DEFAULT_MAX_BYTES;
    size_t len;
    bool over = false;
    *text = gt_read_file_max(path, max, &len, &over, err, err_len);
    if (*text == NULL)
        return NULL;
    gt_value *value = gt_parse(arena, *text, len, options, error);
    if (value == NULL && over) /* the parser saw max + 1 bytes: say that reading stopped there */
        snprintf(error->message, sizeof error->message, "input is over the limit of %zu bytes (reading stopped there)",
                 max);
    return value;
}

int gt_cli_ref_flag(const char *who, int argc, char **argv, int *i, struct gt_schema_registry **registry)
{
    const char *arg = argv[*i];
    bool dir = strcmp(arg, "--ref-dir") == 0;
    if (!dir && strcmp(arg, "--ref") != 0)
        return 0;
    if (*i + 1 >= argc) {
        fprintf(stderr, "%s: %s needs a %s\n", who, arg, dir ? "directory" : "file");
        return -1;
    }
    const char *path = argv[++*i];
    if (*registry == NULL && (*registry = gt_schema_registry_new()) == NULL) {
        fprintf(stderr, "%s: out of memory\n", who);
        return -1;
    }
    gt_schema_problem problem;
    int rc = dir ? gt_schema_registry_add_dir(*registry, path, &problem)
                 : gt_schema_registry_add_file(*registry, path, &problem);
    if (rc != 0) {
        fprintf(stderr, "%s: %s %s: %s\n", who, arg, path, problem.message);
        return -1;
    }
    return 1;
}

bool gt_cli_nul_flag(const char *arg, bool *reject_nul)
{
    if (strcmp(arg, "--reject-nul") == 0)
        *reject_nul = true;
    return strcmp(arg, "--reject-nul") == 0 || strcmp(arg, "--allow-nul") == 0;
}

int gt_parse_size(const char *text, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long number = strtoull(text, &end, 10);
    if (end == text || errno != 0 || text[0] == '-')
        return -1;
    unsigned long long scale = 1;
    if (*end == 'k' || *end == 'K')
        scale = 1024ull, end++;
    else if (*end == 'm' || *end == 'M')
        scale = 1024ull * 1024ull, end++;
    else if (*end == 'g' || *end == 'G')
        scale = 1024ull * 1024ull * 1024ull, end++;
    if (*end != '\0')
        return -1;
    *out = (size_t)(number * scale);
    return 0;
}

int gt_make_parent_dirs(const char *path, char *err, size_t err_len)
{
    char folder[PATH_MAX];
    if (snprintf(folder, sizeof folder, "%s", path) >= (int)sizeof folder) {
        snprintf(err, err_len, "path too long: '%.64s...'", path);
        return -1;
    }
    char *slash = strrchr(folder, '/');
    if (slash == NULL)
        return 0;
    *slash = '\0';
    /* each prefix ending before a '/', then the whole parent; the root and
     * empty components (a leading or doubled '/') are skipped */
    for (char *at = folder + 1;; at++) {
        bool end = *at == '\0';
        if (!end && *at != '/')
            continue;
        *at = '\0';
        struct stat st;
        if (folder[0] != '\0' && stat(folder, &st) != 0) {
            if (mkdir(folder, 0777) != 0 && errno != EEXIST) {
                snprintf(err, err_len, "cannot create folder '%s': %s", folder, strerror(errno));
                return -1;
            }
        } else if (folder[0] != '\0' && !S_ISDIR(st.st_mode)) {
            snprintf(err, err_len, "'%s' is not a folder", folder);
            return -1;
        }
        if (end)
            return 0;
        *at = '/';
    }
}

/* What gt_write_report_file hands to gt_write_file_atomic. */
typedef struct report_job {
    int (*writer)(FILE *, const struct gt_run *, const struct gt_report_info *);
    const struct gt_run *run;
    const struct gt_report_info *info;
} report_job;

static int write_report_job(FILE *out, const void *user)
{
    const report_job *job = user;
    return job->writer(out, job->run, job->info);
}

/* A run's reports as a set (gt_report_set_begin / gt_report_set_commit):
 * each written to its temporary first, all renamed into place only when
 * every one was written. The CLI writes reports from one thread. */
typedef struct pending_report {
    char temporary[PATH_MAX + 32];
    char path[PATH_MAX];
} pending_report;

static struct {
    bool open, failed;
    pending_report *items;
    size_t count;
} report_set;

void gt_report_set_begin(void)
{
    report_set.open = true;
    report_set.failed = false;
    report_set.count = 0;
}

static int set_add(const char *path, const report_job *job)
{
    pending_report *grown = realloc(report_set.items, (report_set.count + 1) * sizeof *grown);
    if (grown == NULL) {
        report_set.failed = true;
        errno = ENOMEM;
        return -1;
    }
    report_set.items = grown;
    pending_report *item = &report_set.items[report_set.count];
    snprintf(item->path, sizeof item->path, "%s", path);
    int status = gt_write_file_temporary(path, write_report_job, job, item->temporary, sizeof item->temporary);
    if (status != 0)
        report_set.failed = true;
    else
        report_set.count++;
    return status;
}

int gt_report_set_commit(const char *who)
{
    int status = report_set.failed ? -1 : 0;
    for (size_t i = 0; i < report_set.count; i++) {
        pending_report *item = &report_set.items[i];
        if (report_set.failed)
            remove(item->temporary); /* one failed: every report stays as it was */
        else if (gt_commit_file_temporary(item->temporary, item->path) != 0) {
            fprintf(stderr, "%s: cannot put report '%s' in place: %s\n", who, item->path, strerror(errno));
            status = -1;
        }
    }
    if (report_set.failed && report_set.count > 0)
        fprintf(stderr, "%s: no report replaced (the reports are written as a set: all new or all as they were)\n",
                who);
    free(report_set.items);
    report_set.items = NULL;
    report_set.count = 0;
    report_set.open = report_set.failed = false;
    return status;
}

int gt_write_report_file(const char *who, const char *format,
                         int (*writer)(FILE *, const struct gt_run *, const struct gt_report_info *),
                         const char *path, const struct gt_run *run, const struct gt_report_info *info)
{
    if (strcmp(path, "-") == 0) {
        if (writer(stdout, run, info) != 0) {
            fprintf(stderr, "%s: cannot write the %s report to standard output\n", who, format);
            return -1;
        }
        return 0;
    }
    char why[PATH_MAX + 64];
    struct stat existing;
    if (stat(path, &existing) == 0 && S_ISDIR(existing.st_mode)) {
        fprintf(stderr, "%s: cannot write %s report '%s': it is a folder (give a file name in it)\n", who, format,
                path);
        if (report_set.open)
            report_set.failed = true;
        return -1;
    }
    if (gt_make_parent_dirs(path, why, sizeof why) != 0) {
        fprintf(stderr, "%s: cannot write %s report '%s': %s\n", who, format, path, why);
        if (report_set.open)
            report_set.failed = true; /* the set fails whole */
        return -1;
    }
    report_job job = {writer, run, info};
    int status = report_set.open ? set_add(path, &job) : gt_write_file_atomic(path, write_report_job, &job);
    if (status == -1) {
        fprintf(stderr, "%s: cannot write %s report '%s': %s\n", who, format, path, strerror(errno));
        return -1;
    }
    if (status != 0) {
        fprintf(stderr, "%s: cannot write %s report '%s'\n", who, format, path);
        return -1;
    }
    if (strcmp(format, "badge") == 0) {
        /* badge:FILE also writes the static SVG beside it (x.json -> x.svg) */
        char svg[PATH_MAX];
        size_t stem = strlen(path);
        if (stem > 5 && strcmp(path + stem - 5, ".json") == 0)
            stem -= 5;
        snprintf(svg, sizeof svg, "%.*s.svg", (int)stem, path);
        return gt_write_report_file(who, "svg", gt_report_badge_svg, svg, run, info);
    }
    return 0;
}

int gt_report_specs_parse(char *value, gt_report_spec *specs, size_t *count, size_t max, char *err, size_t err_len)
{
    for (char *item = value, *next; item != NULL; item = next) {
        next = strchr(item, ',');
        if (next != NULL)
            *next++ = '\0';
        char *colon = strchr(item, ':');
        if (colon == NULL || colon == item || colon[1] == '\0') {
            snprintf(err, err_len, "--report needs FORMAT:FILE (e.g. json:report.json), got '%s'", item);
            return -1;
        }
        *colon = '\0';
        gt_report_writer writer = gt_report_writer_for(item);
        if (writer == NULL) {
            snprintf(err, err_len, "unknown report format '%s' (known: " GT_REPORT_FORMATS ")", item);
            return -1;
        }
        if (*count == max) {
            snprintf(err, err_len, "too many reports (at most %zu)", max);
            return -1;
        }
        for (size_t i = 0; i < *count; i++)
            if (strcmp(specs[i].path, colon + 1) == 0) {
                snprintf(err, err_len, "two reports on one path: %s:%s and %s:%s (each report needs its own file)",
                         specs[i].format, specs[i].path, item, colon + 1);
                return -1;
            }
        specs[(*count)++] = (gt_report_spec){item, colon + 1, writer};
    }
    return 0;
}

void gt_print_load_problem(const gt_load_problem *problem)
{
    /* file:line: field: message; a problem of the whole file (it cannot be
     * opened or read) has neither line nor field, and prints neither */
    gt_report_console_text(stderr, problem->file);
    if (problem->line > 0)
        fprintf(stderr, ":%u", problem->line);
    fputs(": ", stderr);
    if (problem->field[0]) {
        gt_report_console_text(stderr, problem->field);
        fputs(": ", stderr);
    }
    gt_report_console_text(stderr, problem->message);
    fputc('\n', stderr);
}

void gt_print_load_problems(const gt_corpus *corpus)
{
    for (size_t i = 0; i < gt_corpus_problem_count(corpus); i++)
        gt_print_load_problem(gt_corpus_problem(corpus, i));
}

struct gt_corpus *gt_cli_load_corpus(const char *who, const char *const *paths, size_t count, bool rules)
{
    char bundled[4096];
    const char *one = bundled;
    if (count == 0) {
        if (!gt_cmd_default_corpus(bundled, sizeof bundled)) {
            fprintf(stderr, "gauntlet %s: no corpus given and none found (./corpus or next to the binary)\n", who);
            return NULL;
        }
        paths = &one;
        count = 1;
    }
    gt_corpus *corpus = gt_corpus_new();
    for (size_t i = 0; corpus != NULL && i < count; i++)
        if ((rules && gt_corpus_load_rules(corpus, paths[i]) < 0) || gt_corpus_load(corpus, paths[i]) < 0) {
            gt_corpus_free(corpus);
            corpus = NULL;
        }
    if (corpus == NULL)
        fprintf(stderr, "gauntlet %s: out of memory loading the corpus\n", who);
    return corpus;
}
