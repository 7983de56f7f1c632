/* cmd_matrix.c — `gauntlet matrix`: many implementations over one corpus
 * selection, side by side (after bowtie.report for JSON Schema validators).
 *
 * Contract:
 *   gauntlet matrix --target NAME=SPEC [--target NAME=SPEC]... [--report FORMAT:FILE[,...]]
 *                   [--gate G] [--tag T] [--id GLOB] [-j N] [--notes DIR] [--version NAME=TEXT]...
 *                   [--language NAME=TEXT]... [--profile NAME=LIST]... [--evidence NAME=TEXT]...
 *                   [--column-jobs NAME=N]... [PATH...]
 *   stdout: one line per implementation (`NAME: played N, pass P, fail F
 *           (unsafe U), error E, skip S`), then `matrix: N implementations,
 *           M cases, K could not run`;
 *   stderr: the smokes, a progress line at least every 10 s while columns run
 *           (cases done per running column), a line per finished column,
 *           smoke failures, load problems;
 *   exit:   0 every implementation ran (whatever its cells say: a matrix
 *           is a comparison, not a gate), 1 an implementation could not run
 *           (its smoke failed; its column says why), 2 usage, I/O or case-file
 *           error, or an empty selection.
 * Every target is smoked first (run --smoke), then the columns run in
 * parallel like `gauntlet run` (gt_run_cases_with): -j N workers in all
 * (default one per CPU, as `run`), min(N, columns) columns at a time with
 * N / that many threads each (--column-jobs NAME=N: N for that column, e.g.
 * Claude Code, whose cases mostly wait). Versions come from the envelopes' optional
 * "implementation" object, an adapter's handshake, or --version. Formats:
 * json, html, md (reports/matrix.c, docs/matrix-format.md). */
#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli_io.h"
#include "commands.h"
#include "gauntlet/runner/corpus.h"
#include "gauntlet/runner/matrix.h"
#include "gauntlet/runner/report.h"
#include "gauntlet/runner/run.h"
#include "gauntlet/util.h"
#include "reports/report_util.h"
#include "runner/smoke.h"

#define MATRIX_MAX_TARGETS 64
#define MATRIX_MAX_REPORTS 8
#define MATRIX_MAX_PATHS 64

typedef int (*matrix_writer)(FILE *out, const gt_matrix *matrix);

typedef struct matrix_report {
    const char *format;
    const char *path;
    matrix_writer writer;
} matrix_report;

typedef struct matrix_options {
    const char *names[MATRIX_MAX_TARGETS], *specs[MATRIX_MAX_TARGETS], *versions[MATRIX_MAX_TARGETS];
    const char *languages[MATRIX_MAX_TARGETS], *evidence[MATRIX_MAX_TARGETS], *repos[MATRIX_MAX_TARGETS];
    unsigned profiles[MATRIX_MAX_TARGETS]; /* --profile NAME=LIST; 0 = what the target claims */
    unsigned column_jobs[MATRIX_MAX_TARGETS]; /* --column-jobs NAME=N; 0 = its share of -j */
    size_t target_count;
    const char *paths[MATRIX_MAX_PATHS];
    size_t path_count;
    matrix_report reports[MATRIX_MAX_REPORTS];
    size_t report_count;
    const char *gate, *tag, *id_glob, *notes_dir, *previous;
    unsigned jobs;
    bool merge;           /* --merge: PATHs are matrix JSON files whose columns are joined */
    const char *run_only; /* the first option that runs columns, refused with --merge */
    char *owned[MATRIX_MAX_TARGETS * 8 + MATRIX_MAX_REPORTS]; /* strdup'd values split in place */
    size_t owned_count;
} matrix_options;

static void matrix_usage(FILE *out)
{
    fputs("usage: gauntlet matrix --target NAME=SPEC [--target NAME=SPEC]... [--report FORMAT:FILE[,...]]\n"
          "                       [--gate G] [--tag T] [--id GLOB] [-j N] [--notes DIR] [--version NAME=TEXT]...\n"
          "                       [--repos NAME=OWNER/REPO,...]... [--previous OLD.json] [PATH...]\n"
          "       gauntlet matrix --merge FILE.json [FILE.json]... --report FORMAT:FILE[,...] [--notes DIR]\n"
          "                       [--previous OLD.json]\n"
          "\n"
          "Run one corpus selection against several implementations and report them side by side.\n"
          "  --target NAME=SPEC   an implementation: NAME labels its column, SPEC is what `run --target` takes\n"
          "                       (reference, adapter:CMD, http:CMD, http-worker:CMD, http-reference); repeatable, in column order\n"
          "  --report FORMAT:FILE json, html or md (FILE '-' = standard output); comma-separated or repeated\n"
          "  --gate G, --tag T, --id GLOB   select cases, as for `gauntlet run`\n"
          "  -j, --jobs N         worker threads in all (default: one per CPU); columns run in parallel\n"
          "  --notes DIR          hand-written notes: DIR/NAME.md is copied into NAME's section of the md report,\n"
          "                       DIR/NAME.labels labels its red cells (docs/matrix-labels.md)\n"
          "                       (with --merge: instead of the notes the column was run with)\n"
          "  --version NAME=TEXT  the version shown for NAME when its envelopes and handshake name none\n"
          "  --language NAME=TEXT the language shown for NAME when its envelopes name none\n"
          "  --profile NAME=LIST  judge NAME on these profiles (as `run --profile`; default: what it claims,\n"
          "                       core for http: targets); cases of other profiles are not applicable\n"
          "  --evidence NAME=TEXT why NAME claims its profiles (the library's docs), shown with the claim\n"
          "  --column-jobs NAME=N  NAME's column runs N cases at a time (default: its share of -j), e.g. a\n"
          "                       client that spends its time waiting, not computing\n"
          "  --repos NAME=LIST    the library's own repositories (owner/repo, comma-separated): NAME's section\n"
          "                       lists each case whose source is a thread of them (\"Reported in the field\")\n"
          "  --previous OLD.json  a previous matrix JSON: a field case fixed or new since that column's version\n"
          "  --merge FILE.json... join the columns of matrix JSON reports (same corpus and cases, each column\n"
          "                       once), in the order given, into the reports one run over them would write\n"
          "Exit: 0 every implementation ran, 1 one could not run (its smoke failed), 2 usage, I/O or case-file\n"
          "error (with --merge: a file that is not a matrix JSON of this gauntlet, or columns that do not\n"
          "belong together).\n",
          out);
}

static int usage_error(const char *message, const char *detail)
{
    fprintf(stderr, "gauntlet matrix: %s%s\n", message, detail ? detail : "");
    matrix_usage(stderr);
    return 2;
}

static char *own(matrix_options *options, const char *value)
{
    char *copy = strdup(value);
    if (copy != NULL && options->owned_count < sizeof options->owned / sizeof options->owned[0])
        options->owned[options->owned_count++] = copy;
    return copy;
}

/* NAME=VALUE into name and value (split in an owned copy); NAME is
 * [A-Za-z0-9._-]+. */
static bool split_pair(matrix_options *options, const char *text, const char **name, const char **value)
{
    char *copy = own(options, text);
    char *equals = copy ? strchr(copy, '=') : NULL;
    if (equals == NULL || equals == copy || equals[1] == '\0')
        return false;
    *equals = '\0';
    for (const char *p = copy; *p; p++)
        if (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", *p) == NULL)
            return false;
    *name = copy;
    *value = equals + 1;
    return true;
}

/* owner/repo[,owner/repo]...: each of two non-empty names of GitHub's letters. */
static bool repos_valid(const char *list)
{
    for (const char *item = list; item != NULL;) {
        const char *end = strchr(item, ',');
        size_t len = end ? (size_t)(end - item) : strlen(item);
        const char *slash = memchr(item, '/', len);
        if (len == 0 || slash == NULL || slash == item || slash == item + len - 1 ||
            memchr(slash + 1, '/', len - (size_t)(slash + 1 - item)) != NULL)
            return false;
        for (size_t i = 0; i < len; i++)
            if (item[i] != '/' &&
                strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", item[i]) == NULL)
                return false;
        item = end ? end + 1 : NULL;
    }
    return true;
}

static int add_reports(matrix_options *options, const char *value)
{
    char *copy = own(options, value);
    for (char *item = copy, *next; item != NULL; item = next) {
        next = strchr(item, ',');
        if (next != NULL)
            *next++ = '\0';
        char *colon = strchr(item, ':');
        if (colon == NULL || colon == item || colon[1] == '\0')
            return usage_error("--report needs FORMAT:FILE (json, html or md), got ", item);
        *colon = '\0';
        matrix_writer writer = strcmp(item, "json") == 0                                   ? gt_matrix_json
                               : strcmp(item, "html") == 0                                 ? gt_matrix_html
                               : strcmp(item, "md") == 0 || strcmp(item, "markdown") == 0 ? gt_matrix_markdown
                                                                                          : NULL;
        if (writer == NULL)
            return usage_error("unknown matrix report format (json, html, md): ", item);
        if (options->report_count == MATRIX_MAX_REPORTS)
            return usage_error("too many reports", NULL);
        options->reports[options->report_count++] = (matrix_report){item, colon + 1, writer};
    }
    return 0;
}

static int parse_args(int argc, char **argv, matrix_options *options, bool *help)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        bool takes_value = strcmp(arg, "--target") == 0 || strcmp(arg, "--report") == 0 || strcmp(arg, "--gate") == 0 ||
                           strcmp(arg, "--tag") == 0 || strcmp(arg, "--id") == 0 || strcmp(arg, "-j") == 0 ||
                           strcmp(arg, "--jobs") == 0 || strcmp(arg, "--notes") == 0 || strcmp(arg, "--version") == 0 ||
                           strcmp(arg, "--profile") == 0 || strcmp(arg, "--language") == 0 ||
                           strcmp(arg, "--evidence") == 0 || strcmp(arg, "--repos") == 0 ||
                           strcmp(arg, "--column-jobs") == 0 || strcmp(arg, "--previous") == 0;
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            *help = true;
            return 0;
        }
        if (strcmp(arg, "--merge") == 0) {
            options->merge = true;
            continue;
        }
        if (takes_value && strcmp(arg, "--report") != 0 && strcmp(arg, "--previous") != 0 &&
            strcmp(arg, "--notes") != 0 && options->run_only == NULL)
            options->run_only = arg;
        if (!takes_value) {
            if (arg[0] == '-')
                return usage_error("unknown option ", arg);
            if (options->path_count == MATRIX_MAX_PATHS)
                return usage_error("too many paths", NULL);
            options->paths[options->path_count++] = arg;
            continue;
        }
        if (i + 1 >= argc)
            return usage_error("missing value after ", arg);
        const char *value = argv[++i];
        if (strcmp(arg, "--target") == 0) {
            if (options->target_count == MATRIX_MAX_TARGETS)
                return usage_error("too many targets", NULL);
            size_t at = options->target_count;
            if (!split_pair(options, value, &options->names[at], &options->specs[at]))
                return usage_error("--target needs NAME=SPEC (NAME: letters, digits, . _ -), got ", value);
            for (size_t j = 0; j < at; j++)
                if (strcmp(options->names[j], options->names[at]) == 0)
                    return usage_error("--target names must differ: ", options->names[at]);
            options->target_count++;
        } else if (strcmp(arg, "--version") == 0 || strcmp(arg, "--language") == 0 || strcmp(arg, "--evidence") == 0 ||
                   strcmp(arg, "--repos") == 0) {
            const char *name, *text;
            char message[64];
            if (!split_pair(options, value, &name, &text)) {
                snprintf(message, sizeof message, "%s needs NAME=TEXT, got ", arg);
                return usage_error(message, value);
            }
            if (strcmp(arg, "--repos") == 0 && !repos_valid(text))
                return usage_error("--repos needs NAME=OWNER/REPO[,OWNER/REPO]..., got ", value);
            const char **slot = strcmp(arg, "--version") == 0    ? options->versions
                                : strcmp(arg, "--language") == 0 ? options->languages
                                : strcmp(arg, "--repos") == 0    ? options->repos
                                                                 : options->evidence;
            bool known = false;
            for (size_t j = 0; j < options->target_count; j++)
                if (strcmp(options->names[j], name) == 0) {
                    slot[j] = text;
                    known = true;
                }
            if (!known) {
                snprintf(message, sizeof message, "%s names no --target given before it: ", arg);
                return usage_error(message, name);
            }
        } else if (strcmp(arg, "--profile") == 0) {
            const char *name, *list;
            char err[256];
            unsigned mask = 0;
            if (!split_pair(options, value, &name, &list))
                return usage_error("--profile needs NAME=LIST, got ", value);
            if (gt_profiles_parse(list, &mask, err, sizeof err) != 0)
                return usage_error("--profile: ", err);
            bool known = false;
            for (size_t j = 0; j < options->target_count; j++)
                if (strcmp(options->names[j], name) == 0) {
                    options->profiles[j] = mask;
                    known = true;
                }
            if (!known)
                return usage_error("--profile names no --target given before it: ", name);
        } else if (strcmp(arg, "--column-jobs") == 0) {
            const char *name, *count;
            if (!split_pair(options, value, &name, &count))
                return usage_error("--column-jobs needs NAME=N, got ", value);
            char *end;
            errno = 0;
            unsigned long n = strtoul(count, &end, 10);
            if (errno != 0 || end == count || *end != '\0' || count[0] == '-' || n < 1 || n > 64)
                return usage_error("--column-jobs needs NAME=N with N from 1 to 64, got ", value);
            bool known = false;
            for (size_t j = 0; j < options->target_count; j++)
                if (strcmp(options->names[j], name) == 0) {
                    options->column_jobs[j] = (unsigned)n;
                    known = true;
                }
            if (!known)
                return usage_error("--column-jobs names no --target given before it: ", name);
        } else if (strcmp(arg, "--report") == 0) {
            if (add_reports(options, value) != 0)
                return 2;
        } else if (strcmp(arg, "--gate") == 0) {
            options->gate = value;
        } else if (strcmp(arg, "--tag") == 0) {
            options->tag = value;
        } else if (strcmp(arg, "--id") == 0) {
            options->id_glob = value;
        } else if (strcmp(arg, "--notes") == 0) {
            struct stat st;
            if (stat(value, &st) != 0 || !S_ISDIR(st.st_mode))
                return usage_error("--notes needs a directory of NAME.md files, got ", value);
            options->notes_dir = value;
        } else if (strcmp(arg, "--previous") == 0) {
            options->previous = value;
        } else {
            char *end;
            errno = 0;
            unsigned long jobs = strtoul(value, &end, 10);
            if (errno || *end || jobs == 0 || jobs > 64)
                return usage_error("-j needs a number from 1 to 64, got ", value);
            options->jobs = (unsigned)jobs;
        }
    }
    if (options->merge) {
        if (options->run_only != NULL)
            return usage_error("--merge joins columns already run: it takes no ", options->run_only);
        if (options->path_count == 0)
            return usage_error("--merge needs at least one matrix JSON file", NULL);
        if (options->report_count == 0)
            return usage_error("--merge needs --report FORMAT:FILE", NULL);
        return 0;
    }
    if (options->target_count == 0)
        return usage_error("at least one --target NAME=SPEC is needed", NULL);
    return 0;
}

/* ---- what each implementation is -------------------------------------------- */

typedef struct column_text {
    char about[256], version[128], language[64], packages[512];
    char *unavailable; /* malloc'd smoke explanation */
    char *notes;       /* malloc'd notes file */
    char *labels_text; /* malloc'd labels file */
    gt_matrix_labels *labels;
} column_text;

/* The first envelope's "implementation" object: {name, version, language,
 * packages: {name: version}}. */
static bool describe_from_envelopes(const gt_run *run, column_text *text)
{
    for (size_t i = 0; run && i < run->count; i++) {
        const char *envelope = run->results[i].observed.output_json;
        if (envelope == NULL || strstr(envelope, "\"implementation\"") == NULL)
            continue;
        cJSON *root = cJSON_Parse(envelope);
        const cJSON *impl = cJSON_GetObjectItemCaseSensitive(root, "implementation");
        if (!cJSON_IsObject(impl)) {
            cJSON_Delete(root);
            continue;
        }
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(impl, "name"));
        const char *version = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(impl, "version"));
        const char *language = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(impl, "language"));
        snprintf(text->about, sizeof text->about, "%s", name ? name : "");
        snprintf(text->version, sizeof text->version, "%s", version ? version : "");
        snprintf(text->language, sizeof text->language, "%s", language ? language : "");
        size_t used = 0;
        const cJSON *package;
        cJSON_ArrayForEach(package, cJSON_GetObjectItemCaseSensitive(impl, "packages"))
        {
            const char *package_version = cJSON_GetStringValue(package);
            int n = snprintf(text->packages + used, sizeof text->packages - used, "%s%s %s", used ? ", " : "",
                             package->string, package_version ? package_version : "?");
            if (n < 0 || (size_t)n >= sizeof text->packages - used)
                break;
            used += (size_t)n;
        }
        cJSON_Delete(root);
        return true;
    }
    return false;
}

static char *read_small_file(const char *path)
{
    FILE *file = fopen(path, "rb");
    if (file == NULL)
        return NULL;
    char *text = malloc(65537);
    size_t len = text ? fread(text, 1, 65536, file) : 0;
    fclose(file);
    if (text)
        text[len] = '\0';
    return text;
}

/* DIR/NAME.labels (docs/matrix-labels.md): 0 with *text and *labels NULL
 * when there is none, 0 with both set, or -1 with `err` naming the file (and
 * the line). The file is read whole (at most 1 MiB). */
#define MATRIX_LABELS_MAX_BYTES (1 << 20)
static int load_labels(const char *dir, const char *name, char **text, gt_matrix_labels **labels, char *err,
                       size_t err_len)
{
    *text = NULL;
    *labels = NULL;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s.labels", dir, name);
    FILE *file = fopen(path, "rb");
    if (file == NULL) {
        if (errno == ENOENT)
            return 0;
        snprintf(err, err_len, "%.700s: cannot read: %s", path, strerror(errno));
        return -1;
    }
    char *body = malloc(MATRIX_LABELS_MAX_BYTES + 1);
    size_t len = body ? fread(body, 1, MATRIX_LABELS_MAX_BYTES + 1, file) : 0;
    bool failed = body == NULL || ferror(file);
    fclose(file);
    if (failed || len > MATRIX_LABELS_MAX_BYTES) {
        snprintf(err, err_len, "%.700s: %s", path, failed ? "cannot read" : "over 1 MiB: not a labels file");
        free(body);
        return -1;
    }
    body[len] = '\0';
    if (memchr(body, '\0', len) != NULL) {
        snprintf(err, err_len, "%.700s: holds a NUL byte: not a labels file", path);
        free(body);
        return -1;
    }
    if ((*labels = gt_matrix_labels_parse(body, path, err, err_len)) == NULL) {
        free(body);
        return -1;
    }
    *text = body;
    return 0;
}

/* Smoke the target, capturing the explanation; 0 when it can run. */
static int smoke(const char *spec, char **explanation)
{
    *explanation = NULL;
    if (!gt_smoke_wanted(spec))
        return 0;
    char *said = NULL, *why = NULL;
    size_t said_len = 0, why_len = 0;
    FILE *out = open_memstream(&said, &said_len);
    FILE *err = open_memstream(&why, &why_len);
    int rc = out && err ? gt_smoke_run(spec, out, err) : -1;
    if (out)
        fclose(out);
    if (err)
        fclose(err);
    free(said);
    if (rc != 0)
        *explanation = why ? why : strdup("the smoke test could not run (out of memory)");
    else
        free(why);
    return rc;
}

static void iso_now(char out[32])
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* What write_report hands to gt_write_file_atomic. */
typedef struct matrix_job {
    matrix_writer writer;
    const gt_matrix *matrix;
} matrix_job;

static int write_matrix_job(FILE *out, const void *user)
{
    const matrix_job *job = user;
    return job->writer(out, job->matrix);
}

static int write_report(const matrix_report *report, const gt_matrix *matrix)
{
    if (strcmp(report->path, "-") == 0)
        return report->writer(stdout, matrix) == 0 && fflush(stdout) == 0 ? 0 : -1;
    char why[PATH_MAX + 64];
    if (gt_make_parent_dirs(report->path, why, sizeof why) != 0) {
        fprintf(stderr, "gauntlet matrix: cannot write the %s report %s: %s\n", report->format, report->path, why);
        return -1;
    }
    matrix_job job = {report->writer, matrix};
    if (gt_write_file_atomic(report->path, write_matrix_job, &job) == 0)
        return 0;
    fprintf(stderr, "gauntlet matrix: cannot write the %s report %s: %s\n", report->format, report->path,
            strerror(errno ? errno : EIO));
    return -1;
}

/* The console lines (one per implementation, then the total) and every
 * report; -1 when a report could not be written. */
static int print_and_write(const matrix_options *options, const gt_matrix *matrix)
{
    size_t unavailable = 0;
    for (size_t t = 0; t < matrix->column_count; t++) {
        const gt_matrix_column *column = &matrix->columns[t];
        if (column->run == NULL) {
            printf("%s: could not run\n", column->name);
            unavailable++;
            continue;
        }
        gt_run_counts counts[GT_GATE_COUNT + 1];
        gt_run_count(column->run, counts);
        size_t unsafe = 0;
        for (size_t i = 0; i < column->run->count; i++)
            unsafe += gt_matrix_classify(&column->run->results[i]) == GT_MATRIX_UNSAFE;
        const gt_run_counts *total = &counts[GT_GATE_COUNT];
        printf("%s: played %zu, pass %zu, fail %zu (unsafe %zu), error %zu, skip %zu\n", column->name,
               total->pass + total->fail, total->pass, total->fail, unsafe, total->error, total->skip);
    }
    bool io_failed = false;
    for (size_t i = 0; i < options->report_count; i++)
        io_failed |= write_report(&options->reports[i], matrix) != 0;
    printf("matrix: %zu implementations, %zu cases, %zu could not run\n", matrix->column_count,
           gt_corpus_count(matrix->corpus), unavailable);
    return io_failed ? -1 : 0;
}

/* --merge: the columns of every file, in order, written as one matrix. */
static int merge_matrices(const matrix_options *options, const char *command)
{
    gt_matrix_set *set = gt_matrix_set_new();
    char err[1024] = "";
    int status = set == NULL ? 2 : 0;
    if (set == NULL)
        fputs("gauntlet matrix: out of memory\n", stderr);
    for (size_t i = 0; status == 0 && i < options->path_count; i++)
        if (gt_matrix_set_add(set, options->paths[i], err, sizeof err) != 0) {
            fprintf(stderr, "gauntlet matrix --merge: %s\n", err);
            status = 2;
        }
    gt_matrix_previous *previous = NULL;
    if (status == 0 && options->previous != NULL) {
        if ((previous = gt_matrix_previous_load(options->previous, err, sizeof err)) == NULL) {
            fprintf(stderr, "gauntlet matrix --previous: %s\n", err);
            status = 2;
        } else {
            size_t count;
            gt_matrix_column *columns = gt_matrix_set_columns(set, &count);
            gt_matrix_previous_apply(previous, columns, count, gt_matrix_set_matrix(set, command, "")->corpus);
        }
    }
    /* --notes DIR: the notes as they are now (DIR/NAME.md, none when absent),
     * not as the column's run copied them */
    char *notes[MATRIX_MAX_TARGETS * 4] = {0};
    size_t notes_count = 0;
    if (status == 0 && options->notes_dir != NULL) {
        size_t count;
        gt_matrix_column *columns = gt_matrix_set_columns(set, &count);
        for (size_t c = 0; c < count && c < sizeof notes / sizeof notes[0]; c++) {
            char path[PATH_MAX];
            snprintf(path, sizeof path, "%s/%s.md", options->notes_dir, columns[c].name);
            columns[c].notes = notes[notes_count++] = read_small_file(path);
        }
    }
    /* the labels: DIR/NAME.labels with --notes, else what the column was run with */
    char *label_texts[MATRIX_MAX_TARGETS * 4] = {0};
    gt_matrix_labels *labels[MATRIX_MAX_TARGETS * 4] = {0};
    size_t labels_count = 0;
    if (status == 0) {
        size_t count;
        gt_matrix_column *columns = gt_matrix_set_columns(set, &count);
        for (size_t c = 0; c < count && c < sizeof labels / sizeof labels[0] && status == 0; c++) {
            if (options->notes_dir != NULL) {
                if (load_labels(options->notes_dir, columns[c].name, &label_texts[c], &labels[c], err,
                                sizeof err) != 0) {
                    fprintf(stderr, "gauntlet matrix --merge: %s\n", err);
                    status = 2;
                }
                columns[c].labels_text = label_texts[c];
            } else if (columns[c].labels_text != NULL) {
                char where[300];
                snprintf(where, sizeof where, "%s: column %s: labels_text", "--merge", columns[c].name);
                if ((labels[c] = gt_matrix_labels_parse(columns[c].labels_text, where, err, sizeof err)) == NULL) {
                    fprintf(stderr, "gauntlet matrix --merge: %s\n", err);
                    status = 2;
                }
            }
            columns[c].labels = labels[c];
            labels_count = c + 1;
        }
    }
    if (status == 0) {
        char generated[32];
        iso_now(generated);
        const gt_matrix *matrix = gt_matrix_set_matrix(set, command, generated);
        size_t unavailable = 0;
        for (size_t c = 0; c < matrix->column_count; c++)
            unavailable += matrix->columns[c].run == NULL;
        status = print_and_write(options, matrix) != 0 ? 2 : unavailable > 0 ? 1 : 0;
    }
    gt_matrix_set_free(set);
    gt_matrix_previous_free(previous);
    for (size_t i = 0; i < notes_count; i++)
        free(notes[i]);
    for (size_t i = 0; i < labels_count; i++) {
        free(label_texts[i]);
        gt_matrix_labels_free(labels[i]);
    }
    return status;
}

static void print_problems(const gt_corpus *corpus)
{
    for (size_t i = 0; i < gt_corpus_problem_count(corpus); i++) {
        const gt_load_problem *problem = gt_corpus_problem(corpus, i);
        fprintf(stderr, "%s:%u: %s: %s\n", problem->file, problem->line, problem->field, problem->message);
    }
}

/* ---- running the columns in parallel ---------------------------------------- */

#define MATRIX_PROGRESS_SECONDS 10 /* a progress line at least this often while columns run */

/* One column's run, shared between its worker, the progress thread and the
 * main thread (under `lock`). */
typedef struct column_job {
    const char *name, *spec;
    unsigned profiles, jobs;
    size_t done, total;
    bool started, finished;
    gt_run *run;
    char err[512];
} column_job;

typedef struct matrix_pool {
    const gt_corpus *corpus;
    column_job *columns;
    size_t count, next, finished;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    struct timespec started;
} matrix_pool;

static double seconds_since(const struct timespec *start)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

typedef struct progress_user {
    matrix_pool *pool;
    column_job *column;
} progress_user;

static void column_progress(void *user, size_t done, size_t total, const gt_case_result *last)
{
    progress_user *who = user;
    pthread_mutex_lock(&who->pool->lock);
    who->column->done = done;
    who->column->total = total;
    pthread_mutex_unlock(&who->pool->lock);
}

/* A worker: takes the next column not started and runs it, until none is left. */
static void *column_worker(void *user)
{
    matrix_pool *pool = user;
    for (;;) {
        pthread_mutex_lock(&pool->lock);
        while (pool->next < pool->count && pool->columns[pool->next].run == NULL &&
               pool->columns[pool->next].spec == NULL)
            pool->next++; /* a column whose smoke failed */
        if (pool->next == pool->count) {
            pthread_mutex_unlock(&pool->lock);
            return NULL;
        }
        column_job *column = &pool->columns[pool->next++];
        column->started = true;
        pthread_mutex_unlock(&pool->lock);
        progress_user who = {pool, column};
        gt_run_options how = {.target_spec = column->spec, .jobs = column->jobs, .profiles = column->profiles,
                              .progress = column_progress, .user = &who};
        char err[512] = "";
        gt_run *run = gt_run_cases_with(pool->corpus, &how, err, sizeof err);
        pthread_mutex_lock(&pool->lock);
        column->run = run;
        snprintf(column->err, sizeof column->err, "%s", err);
        column->finished = true;
        pool->finished++;
        if (run != NULL)
            fprintf(stderr, "matrix: %s: %zu cases in %.1f s (%.0f s since the start)\n", column->name, run->count,
                    run->elapsed_ms / 1000.0, seconds_since(&pool->started));
        else
            fprintf(stderr, "matrix: %s: could not run: %s\n", column->name, err[0] ? err : "(no reason)");
        pthread_cond_broadcast(&pool->changed);
        pthread_mutex_unlock(&pool->lock);
    }
}

/* Wait for every column, printing the running columns' progress at least
 * every MATRIX_PROGRESS_SECONDS. Call with the lock not held. */
static void wait_columns(matrix_pool *pool, size_t runnable)
{
    pthread_mutex_lock(&pool->lock);
    while (pool->finished < runnable) {
        struct timespec deadline;
        clock_gettime(CLOCK_REALTIME, &deadline);
        deadline.tv_sec += MATRIX_PROGRESS_SECONDS;
        size_t before = pool->finished;
        while (pool->finished == before &&
               pthread_cond_timedwait(&pool->changed, &pool->lock, &deadline) == 0)
            ;
        if (pool->finished != before)
            continue; /* a column finished (its line is printed): restart the clock */
        fprintf(stderr, "matrix: %.0f s, %zu of %zu columns done;", seconds_since(&pool->started), pool->finished,
                runnable);
        for (size_t t = 0; t < pool->count; t++)
            if (pool->columns[t].started && !pool->columns[t].finished)
                fprintf(stderr, " %s %zu/%zu", pool->columns[t].name, pool->columns[t].done,
                        pool->columns[t].total);
        fputc('\n', stderr);
    }
    pthread_mutex_unlock(&pool->lock);
}

int gt_cmd_matrix(int argc, char **argv)
{
    matrix_options options = {.jobs = 0};
    bool help = false;
    int status = parse_args(argc, argv, &options, &help);
    if (status != 0 || help) {
        if (help)
            matrix_usage(stdout);
        for (size_t i = 0; i < options.owned_count; i++)
            free(options.owned[i]);
        return status;
    }
    if (options.merge) {
        char *command = gt_cmd_command_line(argc, argv);
        status = command ? merge_matrices(&options, command) : 2;
        free(command);
        for (size_t i = 0; i < options.owned_count; i++)
            free(options.owned[i]);
        return status;
    }
    /* a labels file that cannot be read is a usage error now, not after the run */
    for (size_t t = 0; options.notes_dir && t < options.target_count; t++) {
        char *text, why[600];
        gt_matrix_labels *labels;
        if (load_labels(options.notes_dir, options.names[t], &text, &labels, why, sizeof why) != 0) {
            fprintf(stderr, "gauntlet matrix: %s\n", why);
            for (size_t i = 0; i < options.owned_count; i++)
                free(options.owned[i]);
            return 2;
        }
        free(text);
        gt_matrix_labels_free(labels);
    }
    gt_corpus *corpus = gt_corpus_new();
    char bundled[PATH_MAX];
    if (options.path_count == 0 && gt_cmd_default_corpus(bundled, sizeof bundled))
        options.paths[options.path_count++] = bundled;
    for (size_t i = 0; corpus && i < options.path_count; i++)
        if (gt_corpus_load(corpus, options.paths[i]) < 0) {
            gt_corpus_free(corpus);
            corpus = NULL;
        }
    char *command = gt_cmd_command_line(argc, argv);
    char sha256[65] = "";
    if (corpus)
        gt_report_corpus_hash(corpus, sha256);
    size_t selected = corpus ? gt_corpus_filter(corpus, options.gate, options.tag, options.id_glob) : 0;
    if (corpus == NULL || command == NULL || selected == 0) {
        if (corpus)
            print_problems(corpus);
        fprintf(stderr, "gauntlet matrix: %s\n",
                corpus == NULL || command == NULL ? "out of memory, or no corpus found"
                                                  : "no case matches the selection: a matrix of nothing is not a result");
        gt_corpus_free(corpus);
        free(command);
        for (size_t i = 0; i < options.owned_count; i++)
            free(options.owned[i]);
        return 2;
    }

    gt_matrix_previous *previous = NULL;
    if (options.previous != NULL) {
        char err[1024];
        if ((previous = gt_matrix_previous_load(options.previous, err, sizeof err)) == NULL) {
            fprintf(stderr, "gauntlet matrix --previous: %s\n", err);
            gt_corpus_free(corpus);
            free(command);
            for (size_t i = 0; i < options.owned_count; i++)
                free(options.owned[i]);
            return 2;
        }
    }
    gt_matrix_column columns[MATRIX_MAX_TARGETS];
    column_text texts[MATRIX_MAX_TARGETS];
    gt_run *runs[MATRIX_MAX_TARGETS];
    memset(columns, 0, sizeof columns);
    memset(texts, 0, sizeof texts);
    memset(runs, 0, sizeof runs);
    size_t unavailable = 0, runnable = 0;
    column_job jobs[MATRIX_MAX_TARGETS];
    memset(jobs, 0, sizeof jobs);
    /* every target smoked up front: one that cannot run says so at once */
    for (size_t t = 0; t < options.target_count; t++) {
        fprintf(stderr, "matrix: smoke [%zu/%zu] %s (%s): ", t + 1, options.target_count, options.names[t],
                options.specs[t]);
        fflush(stderr);
        jobs[t].name = options.names[t];
        jobs[t].profiles = options.profiles[t];
        if (smoke(options.specs[t], &texts[t].unavailable) == 0) {
            jobs[t].spec = options.specs[t];
            runnable++;
            fputs("ok\n", stderr);
        } else {
            fprintf(stderr, "could not run\n%s", texts[t].unavailable ? texts[t].unavailable : "");
        }
    }
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned workers = options.jobs ? options.jobs : cpus > 0 ? (unsigned)cpus : 1;
    size_t parallel = runnable < workers ? runnable : workers;
    for (size_t t = 0; t < options.target_count; t++)
        jobs[t].jobs = options.column_jobs[t] ? options.column_jobs[t] : parallel ? (unsigned)(workers / parallel) : 1;
    matrix_pool pool = {.corpus = corpus, .columns = jobs, .count = options.target_count};
    pthread_mutex_init(&pool.lock, NULL);
    pthread_cond_init(&pool.changed, NULL);
    clock_gettime(CLOCK_MONOTONIC, &pool.started);
    fprintf(stderr, "matrix: %zu columns, %zu at a time, %u thread%s each, %zu cases\n", runnable, parallel,
            parallel ? workers / (unsigned)parallel : 1, parallel && workers / parallel == 1 ? "" : "s", selected);
    pthread_t threads[MATRIX_MAX_TARGETS];
    size_t started = 0;
    for (size_t w = 0; w < parallel; w++)
        if (pthread_create(&threads[started], NULL, column_worker, &pool) == 0)
            started++;
    if (started == 0 && runnable > 0)
        column_worker(&pool); /* no thread could start: run them here, one after another */
    else
        wait_columns(&pool, runnable);
    for (size_t w = 0; w < started; w++)
        pthread_join(threads[w], NULL);
    pthread_cond_destroy(&pool.changed);
    pthread_mutex_destroy(&pool.lock);
    fprintf(stderr, "matrix: every column in %.1f s\n", seconds_since(&pool.started));

    for (size_t t = 0; t < options.target_count; t++) {
        column_text *text = &texts[t];
        runs[t] = jobs[t].run;
        if (jobs[t].spec != NULL && runs[t] == NULL)
            text->unavailable = strdup(jobs[t].err[0] ? jobs[t].err : "the target could not be opened");
        if (runs[t] == NULL)
            unavailable++;
        if (!describe_from_envelopes(runs[t], text) && runs[t] != NULL && runs[t]->target_name &&
            strncmp(options.specs[t], "adapter:", 8) == 0) {
            char name[256], version[128];
            gt_report_split_name(runs[t]->target_name, name, sizeof name, version, sizeof version);
            snprintf(text->about, sizeof text->about, "%s", name);
            snprintf(text->version, sizeof text->version, "%s", version);
        }
        if (options.versions[t])
            snprintf(text->version, sizeof text->version, "%s", options.versions[t]);
        if (options.languages[t] && text->language[0] == '\0')
            snprintf(text->language, sizeof text->language, "%s", options.languages[t]);
        if (options.notes_dir) {
            char path[PATH_MAX], why[600];
            snprintf(path, sizeof path, "%s/%s.md", options.notes_dir, options.names[t]);
            text->notes = read_small_file(path);
            if (load_labels(options.notes_dir, options.names[t], &text->labels_text, &text->labels, why,
                            sizeof why) != 0) /* checked before the run: changed since */
                fprintf(stderr, "gauntlet matrix: %s (the column is shown unlabelled)\n", why);
        }
        columns[t] = (gt_matrix_column){
            .name = options.names[t],
            .spec = options.specs[t],
            .run = runs[t],
            .unavailable = text->unavailable,
            .about = text->about[0] ? text->about : NULL,
            .version = text->version[0] ? text->version : NULL,
            .language = text->language[0] ? text->language : NULL,
            .packages = text->packages[0] ? text->packages : NULL,
            .notes = text->notes,
            .labels_text = text->labels_text,
            .labels = text->labels,
            .evidence = options.evidence[t],
            .repos = options.repos[t],
        };
    }
    if (previous != NULL)
        gt_matrix_previous_apply(previous, columns, options.target_count, corpus);
    char generated[32];
    iso_now(generated);
    gt_matrix matrix = {corpus, columns, options.target_count, command, sha256, generated};

    bool io_failed = print_and_write(&options, &matrix) != 0;
    print_problems(corpus);
    status = io_failed || gt_corpus_problem_count(corpus) > 0 ? 2 : unavailable > 0 ? 1 : 0;
    for (size_t t = 0; t < options.target_count; t++) {
        gt_run_free(runs[t]);
        free(texts[t].unavailable);
        free(texts[t].notes);
        free(texts[t].labels_text);
        gt_matrix_labels_free(texts[t].labels);
    }
    gt_matrix_previous_free(previous);
    gt_corpus_free(corpus);
    free(command);
    for (size_t i = 0; i < options.owned_count; i++)
        free(options.owned[i]);
    return status;
}
