/* cmd_jsts.c — `gauntlet jsts`: run JSON-Schema-Test-Suite files against the
 * structure gate.
 *
 * Contract: every failing test is printed as `FAIL file | group | test: why`;
 * the last line is `N passed, N failed, N skipped`; exit 0 when nothing
 * failed, 1 otherwise, 2 usage or unreadable input. The dialect follows the
 * directory name (tests/draft7 -> draft 7); remotes default to <suite>/remotes. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_io.h"
#include "commands.h"
#include "gauntlet/parse.h"
#include "gauntlet/schema.h"

typedef struct jsts_options {
    const char *remotes;
    gt_schema_registry *registry; /* --ref / --ref-dir, or NULL */
    bool optional;
    bool formats;
    bool verbose;
} jsts_options;

typedef struct jsts_totals {
    size_t passed, failed, skipped;
} jsts_totals;

static void jsts_usage(FILE *out)
{
    fprintf(out,
            "usage: gauntlet jsts DIR... [--remotes DIR] [--ref FILE]... [--ref-dir DIR]... [--optional] [--formats]\n"
            "                            [--verbose]\n"
            "\n"
            "Run JSON-Schema-Test-Suite files (DIR/*.json) against the structure gate.\n"
            "The dialect follows the directory name (draft4, draft6, draft7, draft2019-09,\n"
            "draft2020-12); a DIR may also be a single .json file or an optional/ folder.\n"
            "  --remotes DIR   directory served as http://localhost:1234/ (default: <suite>/remotes\n"
            "                  when DIR is <suite>/tests/<draft>)\n"
            GT_CLI_REF_HELP
            "  --optional      also run DIR/optional/*.json and DIR/optional/format/*.json\n"
            "  --formats       make `format` an assertion\n"
            "  --verbose       print every test, not only failures\n"
            "exit: 0 all passed, 1 a test failed, 2 usage or I/O error\n");
}

static int dialect_of_path(const char *path)
{
    static const char *const names[] = {"draft2020-12", "draft2019-09", "draft7", "draft6", "draft4"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *at = strstr(path, names[i]);
        while (at != NULL) {
            char after = at[strlen(names[i])];
            if ((at == path || at[-1] == '/') && (after == '\0' || after == '/' || after == '.'))
                return gt_schema_dialect_from_name(names[i]);
            at = strstr(at + 1, names[i]);
        }
    }
    return -1;
}

/* <suite>/tests/<draft>[/...] -> <suite>/remotes, when that directory exists. */
static char *default_remotes(const char *dir)
{
    const char *tests = strstr(dir, "tests/");
    while (tests != NULL && tests != dir && tests[-1] != '/')
        tests = strstr(tests + 1, "tests/");
    if (tests == NULL)
        return NULL;
    size_t prefix = (size_t)(tests - dir);
    char *remotes = malloc(prefix + 8);
    if (remotes == NULL)
        return NULL;
    memcpy(remotes, dir, prefix);
    strcpy(remotes + prefix, "remotes");
    struct stat st;
    if (stat(remotes, &st) != 0 || !S_ISDIR(st.st_mode)) {
        free(remotes);
        return NULL;
    }
    return remotes;
}

static int compare_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Sorted *.json files directly in `dir` (malloc'd array of malloc'd paths). */
static char **list_json(const char *dir, size_t *count)
{
    *count = 0;
    DIR *d = opendir(dir);
    if (d == NULL)
        return NULL;
    size_t cap = 16;
    char **paths = malloc(cap * sizeof *paths);
    struct dirent *entry;
    while (paths != NULL && (entry = readdir(d)) != NULL) {
        size_t n = strlen(entry->d_name);
        if (n < 6 || strcmp(entry->d_name + n - 5, ".json") != 0)
            continue;
        if (*count == cap) {
            char **grown = realloc(paths, 2 * cap * sizeof *paths);
            if (grown == NULL)
                break;
            paths = grown, cap *= 2;
        }
        char *path = malloc(strlen(dir) + n + 2);
        if (path == NULL)
            break;
        sprintf(path, "%s/%s", dir, entry->d_name);
        paths[(*count)++] = path;
    }
    closedir(d);
    if (paths != NULL)
        qsort(paths, *count, sizeof *paths, compare_names);
    return paths;
}

static const char *string_member(const gt_value *obj, const char *key)
{
    const gt_value *v = gt_value_get(obj, key, strlen(key));
    return v && v->type == GT_STRING ? v->u.str.chars : "?";
}

/* Run one test; returns true when the verdict matches. */
static bool run_test(const gt_schema *schema, const gt_value *test, gt_schema_errors *errors, char *why, size_t cap)
{
    const gt_value *data = gt_value_get(test, "data", 4);
    const gt_value *valid = gt_value_get(test, "valid", 5);
    if (data == NULL || valid == NULL) {
        snprintf(why, cap, "malformed test");
        return false;
    }
    bool expected = valid->type == GT_TRUE;
    gt_schema_result quick = gt_schema_validate(schema, data, NULL);
    gt_schema_result full = gt_schema_validate(schema, data, errors);
    if (quick != full) {
        snprintf(why, cap, "verdict differs between fast and error-collecting modes (%d vs %d)", quick, full);
        return false;
    }
    if (full == GT_SCHEMA_ERROR) {
        if (gt_schema_failure_is_limit(errors->failure) && errors->count > 0)
            snprintf(why, cap, "evaluation stopped by a limit: %s: %s", errors->items[0].keyword,
                     errors->items[0].message);
        else
            snprintf(why, cap, "evaluation error (%s)",
                     gt_schema_failure_code_str(errors->failure) ? gt_schema_failure_code_str(errors->failure)
                                                                 : "out_of_memory");
        return false;
    }
    if ((full == GT_SCHEMA_VALID) == expected)
        return true;
    if (expected && errors->count > 0)
        snprintf(why, cap, "expected valid, got invalid: %s %s: %s", errors->items[0].instance_path_dollar,
                 errors->items[0].keyword, errors->items[0].message);
    else
        snprintf(why, cap, "expected %s, got %s", expected ? "valid" : "invalid", expected ? "invalid" : "valid");
    return false;
}

static void run_group(const char *file, const gt_value *group, const gt_schema_options *so, const jsts_options *o,
                      jsts_totals *t, gt_schema_errors *errors)
{
    const gt_value *schema_v = gt_value_get(group, "schema", 6);
    const gt_value *tests = gt_value_get(group, "tests", 5);
    const char *gname = string_member(group, "description");
    if (schema_v == NULL || tests == NULL || tests->type != GT_ARRAY) {
        printf("FAIL %s | %s: malformed group\n", file, gname);
        t->failed++;
        return;
    }
    gt_schema_problem problem;
    gt_schema *schema = gt_schema_compile_value(schema_v, so, &problem);
    for (size_t i = 0; i < tests->u.arr.count; i++) {
        const gt_value *test = tests->u.arr.items[i];
        const char *tname = string_member(test, "description");
        char why[600];
        bool ok;
        if (schema == NULL) {
            snprintf(why, sizeof why, "schema rejected: %s at \"%s\": %s", gt_schema_problem_code_str(problem.code),
                     problem.location, problem.message);
            ok = false;
        } else
            ok = run_test(schema, test, errors, why, sizeof why);
        if (ok)
            t->passed++;
        else
            t->failed++;
        if (!ok || o->verbose)
            printf("%s %s | %s | %s%s%s\n", ok ? "ok  " : "FAIL", file, gname, tname, ok ? "" : ": ", ok ? "" : why);
    }
    gt_schema_free(schema);
}

static int run_file(const char *path, int dialect, const char *remotes, const jsts_options *o, jsts_totals *t)
{
    char err[512];
    size_t len;
    char *text = gt_read_file(path, &len, err, sizeof err);
    if (text == NULL) {
        fprintf(stderr, "gauntlet jsts: %s\n", err);
        return -1;
    }
    gt_arena *arena = gt_arena_new();
    gt_parse_options po;
    gt_parse_options_init(&po);
    po.allow_big_integers = true;
    po.max_depth = 100000;
    po.max_bytes = 256u * 1024u * 1024u;
    gt_parse_error perr;
    gt_value *root = arena ? gt_parse(arena, text, len, &po, &perr) : NULL;
    free(text);
    if (root == NULL || root->type != GT_ARRAY) {
        fprintf(stderr, "gauntlet jsts: %s: not a test file (%s)\n", path,
                root ? "not an array" : gt_syntax_reason_code(perr.reason));
        gt_arena_free(arena);
        return -1;
    }
    gt_schema_options so;
    gt_schema_options_init(&so);
    so.default_dialect = (gt_schema_dialect)dialect;
    so.assert_formats = o->formats;
    so.remotes_dir = remotes;
    so.registry = o->registry;
    gt_schema_errors errors;
    gt_schema_errors_init(&errors);
    for (size_t i = 0; i < root->u.arr.count; i++)
        run_group(path, root->u.arr.items[i], &so, o, t, &errors);
    gt_schema_errors_free(&errors);
    gt_arena_free(arena);
    return 0;
}

static int run_files_in(const char *dir, int dialect, const char *remotes, const jsts_options *o, jsts_totals *t)
{
    size_t count;
    char **paths = list_json(dir, &count);
    if (paths == NULL) {
        fprintf(stderr, "gauntlet jsts: cannot read directory %s\n", dir);
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < count; i++) {
        if (run_file(paths[i], dialect, remotes, o, t) != 0)
            rc = -1;
        free(paths[i]);
    }
    free(paths);
    return rc;
}

static int run_dir(const char *dir, const jsts_options *o, jsts_totals *t)
{
    int dialect = dialect_of_path(dir);
    if (dialect < 0) {
        fprintf(stderr, "gauntlet jsts: cannot tell the dialect of '%s' (expected draft4, draft6, draft7, "
                        "draft2019-09 or draft2020-12 in the path)\n", dir);
        return -1;
    }
    char *remotes = o->remotes ? NULL : default_remotes(dir);
    const char *use_remotes = o->remotes ? o->remotes : remotes;
    struct stat st;
    int rc;
    if (stat(dir, &st) == 0 && S_ISREG(st.st_mode))
        rc = run_file(dir, dialect, use_remotes, o, t);
    else {
        rc = run_files_in(dir, dialect, use_remotes, o, t);
        if (rc == 0 && o->optional) {
            char sub[4096];
            snprintf(sub, sizeof sub, "%s/optional", dir);
            if (run_files_in(sub, dialect, use_remotes, o, t) != 0)
                rc = -1;
            snprintf(sub, sizeof sub, "%s/optional/format", dir);
            if (run_files_in(sub, dialect, use_remotes, o, t) != 0)
                rc = -1;
        }
    }
    free(remotes);
    return rc;
}

int gt_cmd_jsts(int argc, char **argv)
{
    jsts_options o = {0};
    const char **dirs = calloc((size_t)argc + 1, sizeof *dirs);
    size_t ndirs = 0;
    if (dirs == NULL)
        return 2;
    int rc = 0;
    for (int i = 1; i < argc && rc == 0; i++) {
        const char *arg = argv[i];
        int ref = gt_cli_ref_flag("gauntlet jsts", argc, argv, &i, &o.registry);
        if (ref != 0)
            rc = ref < 0 ? 2 : 0;
        else if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            jsts_usage(stdout);
            rc = -1;
        } else if (strcmp(arg, "--optional") == 0)
            o.optional = true;
        else if (strcmp(arg, "--formats") == 0)
            o.formats = true;
        else if (strcmp(arg, "--verbose") == 0)
            o.verbose = true;
        else if (strcmp(arg, "--remotes") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "gauntlet jsts: --remotes needs a directory\n");
                rc = 2;
            } else
                o.remotes = argv[++i];
        } else if (arg[0] == '-' && arg[1] != '\0') {
            fprintf(stderr, "gauntlet jsts: unknown option '%s'\n", arg);
            jsts_usage(stderr);
            rc = 2;
        } else
            dirs[ndirs++] = arg;
    }
    if (rc == 0 && ndirs == 0) {
        jsts_usage(stderr);
        rc = 2;
    }
    if (rc != 0) {
        free(dirs);
        gt_schema_registry_free(o.registry);
        return rc < 0 ? 0 : rc;
    }
    jsts_totals t = {0};
    for (size_t i = 0; i < ndirs; i++)
        if (run_dir(dirs[i], &o, &t) != 0)
            rc = 2;
    free(dirs);
    gt_schema_registry_free(o.registry);
    printf("%zu passed, %zu failed, %zu skipped\n", t.passed, t.failed, t.skipped);
    if (rc != 0)
        return rc;
    return t.failed == 0 ? 0 : 1;
}
