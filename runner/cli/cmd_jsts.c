/* cmd_jsts.c — `gauntlet jsts`: run JSON-Schema-Test-Suite files against the
 * structure gate.
 *
 * Contract: every failing test is printed as `FAIL file | group | test: why`;
 * the last line is `N passed, N failed, N skipped`; exit 0 when nothing
 * failed, 1 otherwise, 2 usage or unreadable input. The dialect follows the
 * directory name (tests/draft7 -> draft 7); remotes default to <suite>/remotes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_io.h"
#include "commands.h"
#include "gauntlet/parse.h"
#include "gauntlet/schema.h"
#include "runner/jsts.h"

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

typedef struct jsts_walk {
    const jsts_options *options;
    jsts_totals *totals;
} jsts_walk;

static int run_file(void *user, const gt_jsts_file *file)
{
    const jsts_walk *walk = user;
    gt_schema_options so;
    gt_schema_options_init(&so);
    so.default_dialect = (gt_schema_dialect)file->dialect;
    so.assert_formats = walk->options->formats;
    so.remotes_dir = file->remotes;
    so.registry = walk->options->registry;
    gt_schema_errors errors;
    gt_schema_errors_init(&errors);
    for (size_t i = 0; i < file->root->u.arr.count; i++)
        run_group(file->path, file->root->u.arr.items[i], &so, walk->options, walk->totals, &errors);
    gt_schema_errors_free(&errors);
    return 0;
}

static int run_dir(const char *dir, const jsts_options *o, jsts_totals *t)
{
    gt_jsts_walk_options walk_options = {.remotes = o->remotes, .optional = o->optional, .format = o->optional};
    jsts_walk walk = {o, t};
    return gt_jsts_walk("gauntlet jsts", dir, &walk_options, run_file, &walk);
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
            gt_cli_hint_option("jsts", arg);
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
