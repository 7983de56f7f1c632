/* test_gen.c — `gauntlet gen` and `gauntlet explore` (issue 15,
 * docs/explore.md): every bundled contract gives >= 200 cases that pass
 * against the reference, a seed reproduces the bytes, the cap spreads over
 * operators, ambiguity is reported, bad inputs exit 2, the shrinker keeps its
 * property, and explore finds and shrinks the naive pipeline's failure. */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <sys/stat.h>
#include <time.h>

#include "gauntlet/runner/corpus.h"
#include "gauntlet/runner/run.h"
#include "gt_test.h"
#include "runner/cli/cli.h"
#include "runner/cli/commands.h"
#include "runner/explore/gen.h"
#include "runner/explore/shrink.h"

#define OUT_LEN (1 << 16)

static char *temp_dir(void)
{
    char *dir = strdup("/tmp/gt-test-gen-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    return dir;
}

static void remove_tree(const char *dir)
{
    char command[512];
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(command), 0);
}

static int gen_cli(char **argv, char *out)
{
    return gt_test_cli(gt_cmd_gen, argv, out, OUT_LEN);
}

/* Load DIR as a corpus: no load problem; every case passes against the
 * reference. Returns the number of cases. */
static size_t run_against_reference(const char *dir)
{
    gt_corpus *corpus = gt_corpus_new();
    ck_assert_int_ge(gt_corpus_load(corpus, dir), 0);
    for (size_t i = 0; i < gt_corpus_problem_count(corpus); i++) {
        const gt_load_problem *problem = gt_corpus_problem(corpus, i);
        ck_abort_msg("%s:%u: %s: %s", problem->file, problem->line, problem->field, problem->message);
    }
    char err[256];
    gt_run *run = gt_run_cases(corpus, "reference", 2, NULL, NULL, err, sizeof err);
    ck_assert_msg(run != NULL, "%s", err);
    for (size_t i = 0; i < run->count; i++)
        ck_assert_msg(run->results[i].outcome == GT_OUTCOME_PASS, "%s: %s: %s", dir, run->results[i].kase->input.id,
                      run->results[i].note ? run->results[i].note : "");
    size_t count = run->count;
    gt_run_free(run);
    gt_corpus_free(corpus);
    return count;
}

/* The bundled contracts: every JSON file at the top of corpus/schemas — an
 * object contract, a string contract (ticket-id-v1.json), a library of
 * $defs that gen splits per definition (money-v1.json), a string-or-object
 * under a custom metaschema (order-code-validation-vocab-v1.json, which
 * needs corpus/schemas/meta registered). */
static size_t contract_schemas(char paths[][512], size_t max)
{
    DIR *dir = opendir(GT_TEST_CORPUS "/schemas");
    ck_assert_ptr_nonnull(dir);
    size_t count = 0;
    for (struct dirent *entry; (entry = readdir(dir)) != NULL && count < max;) {
        size_t len = strlen(entry->d_name);
        if (len < 6 || strcmp(entry->d_name + len - 5, ".json") != 0)
            continue;
        snprintf(paths[count++], 512, GT_TEST_CORPUS "/schemas/%.400s", entry->d_name);
    }
    closedir(dir);
    return count;
}

START_TEST(test_each_contract_gives_200_passing_cases)
{
    char schemas[32][512];
    size_t count = contract_schemas(schemas, 32);
    ck_assert_uint_ge(count, 17); /* 17 on the day this was written; more may come */
    char *out = malloc(OUT_LEN);
    for (size_t i = 0; i < count; i++) {
        char *dir = temp_dir();
        char *argv[] = {"gen", "--schema", schemas[i], "--ref-dir", GT_TEST_CORPUS "/schemas/meta", "--out", dir, NULL};
        ck_assert_msg(gen_cli(argv, out) == 0, "%s: %s", schemas[i], out);
        ck_assert_msg(strstr(out, "gauntlet gen: ") != NULL, "%s", out);
        size_t cases = run_against_reference(dir);
        ck_assert_msg(cases >= 200, "%s: only %zu cases", schemas[i], cases);
        remove_tree(dir);
        free(dir);
    }
    free(out);
}
END_TEST

/* Every file of `a` equals the same file of `b`, byte for byte. */
static bool same_files(const char *a, const char *b)
{
    static const char *const names[] = {"schema.json",       "rules.json",           "valid.cases.json",
                                        "syntax.cases.json", "structure.cases.json", "loop.cases.json"};
    bool same = true;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char pa[512], pb[512];
        snprintf(pa, sizeof pa, "%s/%s", a, names[i]);
        snprintf(pb, sizeof pb, "%s/%s", b, names[i]);
        char *ta = gt_test_slurp(pa), *tb = gt_test_slurp(pb);
        same = same && strcmp(ta, tb) == 0;
        free(ta);
        free(tb);
    }
    return same;
}

/* Remove the temporary corpus folder and free the buffers of a test. */
static void done_with(char *dir, char *out)
{
    remove_tree(dir);
    free(dir);
    free(out);
}

/* The categories of the cases in DIR/FILE, joined by spaces (malloc'd). */
static char *categories(const char *dir, const char *file)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    char *text = gt_test_slurp(path);
    cJSON *corpus = cJSON_Parse(text);
    free(text);
    size_t cap = 1 << 16, used = 0;
    char *joined = calloc(1, cap);
    const cJSON *kase;
    cJSON_ArrayForEach(kase, cJSON_GetObjectItem(corpus, "cases"))
    {
        const char *category = cJSON_GetStringValue(cJSON_GetObjectItem(kase, "category"));
        if (category != NULL && used + strlen(category) + 3 < cap)
            used += (size_t)snprintf(joined + used, cap - used, " %s ", category);
    }
    cJSON_Delete(corpus);
    return joined;
}

START_TEST(test_string_contract_gets_text_near_misses)
{
    /* a plain pattern string: per code point near-misses (class, drop,
     * repeat, case, fullwidth, look-alike, zero-width, combining), whitespace
     * around it, scalar syntax misspellings, escapes of each character and
     * other strings of the pattern as valid cases */
    char *dir = temp_dir(), *out = malloc(OUT_LEN);
    char *argv[] = {"gen", "--schema", "corpus/schemas/ticket-id-v1.json", "--out", dir, NULL};
    ck_assert_msg(gen_cli(argv, out) == 0, "%s", out);
    char *structure = categories(dir, "structure.cases.json");
    static const char *const ops[] = {"text-class",      "text-drop",      "text-repeat",      "text-case",
                                      "text-fullwidth",  "text-homoglyph", "text-zero-width",  "text-combining",
                                      "text-whitespace", "wrong-type",     "stringified-string", NULL};
    for (size_t i = 0; ops[i] != NULL; i++) {
        char needle[64];
        snprintf(needle, sizeof needle, " %s ", ops[i]);
        ck_assert_msg(strstr(structure, needle) != NULL, "no %s case: %s", ops[i], structure);
    }
    char *valid = categories(dir, "valid.cases.json");
    ck_assert_msg(strstr(valid, " escape-one ") && strstr(valid, " pattern-variant ") &&
                      strstr(valid, " outer-whitespace "),
                  "%s", valid);
    char *syntax = categories(dir, "syntax.cases.json");
    ck_assert_msg(strstr(syntax, " raw-control ") && strstr(syntax, " bad-escape ") &&
                      strstr(syntax, " lone-surrogate ") && strstr(syntax, " invalid-utf8 "),
                  "%s", syntax);
    ck_assert_uint_ge(run_against_reference(dir), 200);
    free(structure);
    free(valid);
    free(syntax);
    done_with(dir, out);
}
END_TEST

START_TEST(test_root_picks_a_definition)
{
    /* --root: schema.json is the document with its root $ref set to the
     * definition, and the cases are that definition's (number bounds) */
    char *dir = temp_dir(), *out = malloc(OUT_LEN);
    char *argv[] = {"gen", "--schema", "corpus/schemas/money-v1.json", "--root", "#/$defs/amount", "--out", dir, NULL};
    ck_assert_msg(gen_cli(argv, out) == 0, "%s", out);
    char path[512];
    snprintf(path, sizeof path, "%s/schema.json", dir);
    char *schema = gt_test_slurp(path);
    ck_assert_msg(strstr(schema, "\"$ref\": \"#/$defs/amount\"") != NULL, "%s", schema);
    free(schema);
    char *structure = categories(dir, "structure.cases.json");
    ck_assert_msg(strstr(structure, " below-minimum ") && strstr(structure, " multiple-of "), "%s", structure);
    free(structure);
    ck_assert_uint_ge(run_against_reference(dir), 50);
    char *bad[] = {"gen", "--schema", "corpus/schemas/money-v1.json", "--root", "#/$defs/nope", "--out", dir, NULL};
    ck_assert_int_eq(gen_cli(bad, out), 2);
    ck_assert_msg(strstr(out, "#/$defs/nope: names no schema"), "%s", out);
    done_with(dir, out);
}
END_TEST

START_TEST(test_open_root_generates_per_definition)
{
    /* a document that constrains nothing at its root: said on stderr, one
     * corpus per definition with ids scoped by the definition's name */
    char *dir = temp_dir(), *out = malloc(OUT_LEN);
    char *argv[] = {"gen", "--schema", "corpus/schemas/money-v1.json", "--out", dir, NULL};
    ck_assert_msg(gen_cli(argv, out) == 0, "%s", out);
    ck_assert_msg(strstr(out, "constrains nothing at its root"), "%s", out);
    static const char *const names[] = {"currency", "amount", "money"};
    for (size_t i = 0; i < 3; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s/valid.cases.json", dir, names[i]);
        char *text = gt_test_slurp(path);
        char id[64];
        snprintf(id, sizeof id, "\"gen.%s.valid.as-is.0\"", names[i]);
        ck_assert_msg(strstr(text, id) != NULL, "%s", path);
        free(text);
    }
    ck_assert_uint_ge(run_against_reference(dir), 200);
    done_with(dir, out);
}
END_TEST

START_TEST(test_seed_reproduces_bytes)
{
    char *out = malloc(OUT_LEN);
    char *first = temp_dir(), *second = temp_dir(), *other = temp_dir();
    char *a1[] = {"gen", "--schema", "corpus/schemas/order-ticket-v1.json", "--seed", "42", "--out", first, NULL};
    char *a2[] = {"gen", "--seed", "42", "--out", second, "--schema", "corpus/schemas/order-ticket-v1.json", NULL};
    char *a3[] = {"gen", "--schema", "corpus/schemas/order-ticket-v1.json", "--seed", "43", "--out", other, NULL};
    ck_assert_int_eq(gen_cli(a1, out), 0);
    ck_assert_int_eq(gen_cli(a2, out), 0);
    ck_assert_int_eq(gen_cli(a3, out), 0);
    ck_assert_msg(same_files(first, second), "seed 42 twice wrote different bytes");
    ck_assert_msg(!same_files(first, other), "seeds 42 and 43 wrote the same bytes");
    remove_tree(first);
    remove_tree(second);
    remove_tree(other);
    free(first);
    free(second);
    free(other);
    free(out);
}
END_TEST

/* The operators named by the cases of one family file. */
static size_t operators_in(const char *dir, size_t *cases)
{
    static const char *const files[] = {"valid", "syntax", "structure", "loop"};
    char seen[256][64];
    size_t count = 0;
    *cases = 0;
    for (size_t f = 0; f < 4; f++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s.cases.json", dir, files[f]);
        if (access(path, R_OK) != 0)
            continue;
        char *text = gt_test_slurp(path);
        cJSON *file = cJSON_Parse(text);
        free(text);
        const cJSON *kase;
        cJSON_ArrayForEach(kase, cJSON_GetObjectItem(file, "cases"))
        {
            (*cases)++;
            const char *op = cJSON_GetObjectItem(kase, "category")->valuestring;
            size_t i = 0;
            while (i < count && strcmp(seen[i], op) != 0)
                i++;
            if (i == count && count < 256)
                snprintf(seen[count++], 64, "%s", op);
        }
        cJSON_Delete(file);
    }
    return count;
}

START_TEST(test_max_spreads_over_operators)
{
    char *out = malloc(OUT_LEN);
    char *all = temp_dir(), *capped = temp_dir();
    char *a1[] = {"gen", "--schema", "corpus/schemas/support-triage-v2.json", "--out", all, NULL};
    char *a2[] = {"gen", "--schema", "corpus/schemas/support-triage-v2.json", "--max", "80", "--out", capped, NULL};
    ck_assert_int_eq(gen_cli(a1, out), 0);
    ck_assert_int_eq(gen_cli(a2, out), 0);
    ck_assert_msg(strstr(out, "gauntlet gen: 80 cases") != NULL, "%s", out);
    size_t all_cases, capped_cases;
    size_t all_ops = operators_in(all, &all_cases), capped_ops = operators_in(capped, &capped_cases);
    ck_assert_uint_eq(capped_cases, 80);
    ck_assert_uint_gt(all_cases, 80);
    ck_assert_uint_lt(all_ops, 80);
    ck_assert_uint_eq(capped_ops, all_ops); /* every operator keeps at least one case */
    ck_assert_uint_eq(run_against_reference(capped), 80);
    /* a cap below the number of operators keeps every family, and rules.json
     * names only the rules of the cases kept */
    remove_tree(capped);
    char *a3[] = {"gen", "--schema", "corpus/schemas/support-triage-v2.json", "--max", "8", "--out", capped, NULL};
    ck_assert_int_eq(gen_cli(a3, out), 0);
    ck_assert_msg(strstr(out, "8 cases (2 valid, 2 syntax, 2 structure, 2 loop/stream)"), "%s", out);
    char *rules[] = {"rules", capped, NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_rules, rules, out, OUT_LEN), 0);
    remove_tree(all);
    remove_tree(capped);
    free(all);
    free(capped);
    free(out);
}
END_TEST

static void write_text(const char *path, const char *text)
{
    FILE *file = fopen(path, "w");
    ck_assert_ptr_nonnull(file);
    fputs(text, file);
    fclose(file);
}

START_TEST(test_ambiguous_mutations_are_reported_not_emitted)
{
    /* an extra member where extras are allowed, null on a nullable member:
     * the reference accepts both, so neither may become a reject case */
    char *dir = temp_dir(), *out = malloc(OUT_LEN);
    char schema[512], report[512];
    snprintf(schema, sizeof schema, "%s/open.json", dir);
    snprintf(report, sizeof report, "%s/report.json", dir);
    write_text(schema, "{\"type\": \"object\", \"required\": [\"note\"],"
                       " \"properties\": {\"note\": {\"type\": [\"string\", \"null\"], \"maxLength\": 8}}}");
    char *argv[] = {"gen", "--schema", schema, "--report", report, "--out", dir, NULL};
    ck_assert_msg(gen_cli(argv, out) == 0, "%s", out);
    ck_assert_msg(strstr(out, "ambiguous candidates left out (listed in the report)"), "%s", out);
    char *text = gt_test_slurp(report);
    cJSON *json = cJSON_Parse(text);
    free(text);
    bool extra_listed = false;
    const cJSON *row;
    cJSON_ArrayForEach(row, cJSON_GetObjectItem(json, "ambiguous_candidates"))
    {
        const char *op = cJSON_GetObjectItem(row, "operator")->valuestring;
        bool accepted = strcmp(cJSON_GetObjectItem(row, "reference")->valuestring, "accept") == 0;
        extra_listed =
            extra_listed || (strcmp(op, "extra-member") == 0 && accepted &&
                             strcmp(cJSON_GetObjectItem(row, "intended")->valuestring, "reject structure/*") == 0);
    }
    cJSON_Delete(json);
    ck_assert_msg(extra_listed, "the report lacks the accepted extra-member mutation");
    char path[512];
    snprintf(path, sizeof path, "%s/structure.cases.json", dir);
    text = gt_test_slurp(path);
    ck_assert_msg(strstr(text, "\"extra-member\"") == NULL, "an unconfirmed extra-member case was written");
    ck_assert_msg(strstr(text, "null at /note") == NULL, "null on a nullable member written as a reject case");
    free(text);
    snprintf(path, sizeof path, "%s/valid.cases.json", dir);
    text = gt_test_slurp(path);
    ck_assert_msg(strstr(text, "nullable at /note"), "null on a nullable member is not a valid case");
    free(text);
    run_against_reference(dir);
    remove_tree(dir);
    free(dir);
    free(out);
}
END_TEST

START_TEST(test_bad_input_exits_2_naming_it)
{
    char *dir = temp_dir(), *out = malloc(OUT_LEN);
    char schema[512], sample[512], target[512];
    snprintf(schema, sizeof schema, "%s/bad.json", dir);
    snprintf(sample, sizeof sample, "%s/sample.json", dir);
    snprintf(target, sizeof target, "%s/out", dir);
    write_text(schema, "{\"type\": \"object\", \"properties\": {\"a\": {\"minLength\": -1}}}");
    char *a1[] = {"gen", "--schema", schema, "--out", target, NULL};
    ck_assert_int_eq(gen_cli(a1, out), 2);
    ck_assert_msg(strstr(out, "bad schema") && strstr(out, "bad.json") && strstr(out, "/properties/a"), "%s", out);
    write_text(schema, "{\"type\": \"object\",}");
    ck_assert_int_eq(gen_cli(a1, out), 2);
    ck_assert_msg(strstr(out, "bad.json: not strict JSON: line 1"), "%s", out);
    /* a sample the reference rejects */
    write_text(sample, "{\"category\": \"billing\"}");
    char *a2[] = {"gen",  "--schema", "corpus/schemas/support-triage-v1.json", "--sample", sample, "--out",
                  target, NULL};
    ck_assert_int_eq(gen_cli(a2, out), 2);
    ck_assert_msg(strstr(out, "sample.json: the reference rejects this sample"), "%s", out);
    /* a folder given as the schema: the message says so */
    char *a5[] = {"gen", "--schema", dir, "--out", target, NULL};
    ck_assert_int_eq(gen_cli(a5, out), 2);
    ck_assert_msg(strstr(out, dir) && strstr(out, "Is a directory"), "%s", out);
    /* a number beyond 64 bits is refused, not saturated into another seed */
    char *a6[] = {"gen", "--schema", "corpus/schemas/support-triage-v1.json", "--seed", "18446744073709551616",
                  "--out", target, NULL};
    ck_assert_int_eq(gen_cli(a6, out), 2);
    ck_assert_msg(strstr(out, "--seed wants"), "%s", out);
    char *a7[] = {"gen", "--schema", "corpus/schemas/support-triage-v1.json", "--max", "99999999999999999999",
                  "--out", target, NULL};
    ck_assert_int_eq(gen_cli(a7, out), 2);
    char *a3[] = {"gen", "--schema", "corpus/schemas/support-triage-v1.json", NULL};
    ck_assert_int_eq(gen_cli(a3, out), 2);
    char *a4[] = {"gen",  "--schema", "corpus/schemas/support-triage-v1.json", "--gates", "syntax,wire", "--out",
                  target, NULL};
    ck_assert_int_eq(gen_cli(a4, out), 2);
    ck_assert_msg(strstr(out, "unknown family 'wire'"), "%s", out);
    remove_tree(dir);
    free(dir);
    free(out);
}
END_TEST

/* A schema no instance satisfies (a root $ref cycle): gen and explore exit 2
 * with the reason and write nothing (before: a warning, exit 0 and 33 cases,
 * none valid). */
START_TEST(test_unsatisfiable_schema_writes_nothing)
{
    char *dir = temp_dir(), *out = malloc(OUT_LEN);
    char schema[512], cases[512];
    snprintf(schema, sizeof schema, "%s/cycle.json", dir);
    snprintf(cases, sizeof cases, "%s/out", dir);
    write_text(schema, "{\"$ref\": \"#\"}");
    char *argv[] = {"gen", "--schema", schema, "--out", cases, NULL};
    ck_assert_int_eq(gen_cli(argv, out), 2);
    ck_assert_msg(strstr(out, "reference loop") && strstr(out, "no instance satisfies") &&
                      strstr(out, "nothing written"),
                  "%s", out);
    ck_assert_msg(access(cases, F_OK) != 0, "gen wrote %s", cases);
    char *explore[] = {"explore", "--schema", schema, "--target", "reference", NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_explore, explore, out, OUT_LEN), 2);
    ck_assert_msg(strstr(out, "no instance satisfies") && strstr(out, "no disagreement") == NULL, "%s", out);
    remove_tree(dir);
    free(dir);
    free(out);
}
END_TEST

START_TEST(test_unsatisfiable_pattern_is_said)
{
    char *dir = temp_dir(), *out = malloc(OUT_LEN);
    char schema[512];
    snprintf(schema, sizeof schema, "%s/lookahead.json", dir);
    write_text(schema, "{\"type\": \"object\", \"required\": [\"id\"],"
                       " \"properties\": {\"id\": {\"type\": \"string\", \"pattern\": \"^(?=T)T-[0-9]+$\"}}}");
    char *argv[] = {"gen", "--schema", schema, "--out", dir, NULL};
    ck_assert_int_eq(gen_cli(argv, out), 0);
    ck_assert_msg(strstr(out, "cannot synthesise a valid instance") && strstr(out, "/id") &&
                      strstr(out, "lookaround") && strstr(out, "--sample"),
                  "%s", out);
    /* with a sample the same schema works */
    char sample[512];
    snprintf(sample, sizeof sample, "%s/sample.json", dir);
    write_text(sample, "{\"id\": \"T-123\"}\n");
    char *with[] = {"gen", "--schema", schema, "--sample", sample, "--out", dir, NULL};
    ck_assert_int_eq(gen_cli(with, out), 0);
    ck_assert_msg(strstr(out, "cannot synthesise") == NULL, "%s", out);
    char path[512];
    snprintf(path, sizeof path, "%s/valid.cases.json", dir);
    char *text = gt_test_slurp(path);
    ck_assert_msg(strstr(text, "\"input\":\t\"{\\\"id\\\": \\\"T-123\\\"}\\n\""), "the sample is not kept verbatim");
    free(text);
    ck_assert_uint_ge(run_against_reference(dir), 50);
    remove_tree(dir);
    free(dir);
    free(out);
}
END_TEST

START_TEST(test_formats_adds_format_near_misses)
{
    char *dir = temp_dir(), *out = malloc(OUT_LEN);
    char schema[512];
    snprintf(schema, sizeof schema, "%s/dated.json", dir);
    write_text(schema, "{\"type\": \"object\", \"required\": [\"due\", \"contact\"], \"additionalProperties\": false,"
                       " \"properties\": {\"due\": {\"type\": \"string\", \"format\": \"date\"},"
                       " \"contact\": {\"type\": \"string\", \"format\": \"email\"}}}");
    char *plain[] = {"gen", "--schema", schema, "--out", dir, NULL};
    ck_assert_int_eq(gen_cli(plain, out), 0);
    char path[512];
    snprintf(path, sizeof path, "%s/structure.cases.json", dir);
    char *text = gt_test_slurp(path);
    ck_assert_msg(strstr(text, "\"category\":\t\"format\"") == NULL, "format near-misses without --formats");
    free(text);
    char *formats[] = {"gen", "--schema", schema, "--formats", "--out", dir, NULL};
    ck_assert_int_eq(gen_cli(formats, out), 0);
    text = gt_test_slurp(path);
    ck_assert_msg(strstr(text, "2024-02-30") && strstr(text, "user.example.com"), "no format near-misses");
    ck_assert_msg(strstr(text, "\"formats\":\ttrue"), "the cases do not assert formats");
    free(text);
    run_against_reference(dir);
    remove_tree(dir);
    free(dir);
    free(out);
}
END_TEST

START_TEST(test_ref_dir_is_registered_and_copied)
{
    /* a contract under a custom metaschema: without the registry it does not
     * compile; with --ref-dir it does, and the written corpus carries the
     * metaschema in its schemas/ folder so that `gauntlet run DIR` loads it */
    char *dir = temp_dir(), *out = malloc(OUT_LEN);
    char *bare[] = {"gen", "--schema", "corpus/schemas/order-code-validation-vocab-v1.json", "--out", dir, NULL};
    ck_assert_int_eq(gen_cli(bare, out), 2);
    ck_assert_msg(strstr(out, "schema_unknown_dialect"), "%s", out);
    char *with[] = {"gen",
                    "--schema",
                    "corpus/schemas/order-code-validation-vocab-v1.json",
                    "--ref-dir",
                    "corpus/schemas/meta",
                    "--out",
                    dir,
                    NULL};
    ck_assert_msg(gen_cli(with, out) == 0, "%s", out);
    char path[512];
    snprintf(path, sizeof path, "%s/schemas/ref1-core-and-validation-only.json", dir);
    ck_assert_int_eq(access(path, R_OK), 0);
    ck_assert_uint_ge(run_against_reference(dir), 20);
    remove_tree(dir);
    free(dir);
    free(out);
}
END_TEST

START_TEST(test_large_sample_stays_bounded)
{
    /* 2,000 elements: every mutation copies the instance, so the locations
     * mutated and the cut points are capped (evenly spaced), not quadratic */
    char *dir = temp_dir(), *out = malloc(OUT_LEN);
    char sample[512];
    snprintf(sample, sizeof sample, "%s/big.json", dir);
    FILE *file = fopen(sample, "w");
    ck_assert_ptr_nonnull(file);
    fputs("{\"cause\": \"disk full\", \"fixes\": [", file);
    for (int i = 0; i < 2000; i++)
        fprintf(file, "%s\"fix %d\"", i ? ", " : "", i);
    fputs("]}", file);
    fclose(file);
    char *argv[] = {"gen", "--schema", "corpus/schemas/build-failure-v1.json", "--sample", sample, "--gates", "syntax",
                    "--out", dir, NULL};
    ck_assert_msg(gen_cli(argv, out) == 0, "%s", out);
    size_t cases = 0;
    ck_assert_int_eq(sscanf(out, "gauntlet gen: %zu cases", &cases), 1);
    ck_assert_uint_lt(cases, 2 * 2 * GT_GEN_MAX_SITES + 2 * GT_GEN_MAX_SITES);
    ck_assert_uint_gt(cases, GT_GEN_MAX_SITES);
    remove_tree(dir);
    free(dir);
    free(out);
}
END_TEST

/* Shrinker properties for the unit tests. */
static bool holds_xyz(void *user, const unsigned char *bytes, size_t len)
{
    return memmem(bytes, len, "xyz", 3) != NULL;
}

static bool holds_member_k(void *user, const unsigned char *bytes, size_t len)
{
    return memmem(bytes, len, "\"k\":", 4) != NULL;
}

/* Holds while "a":1 and "c":3 are both there (members that must be put back
 * where they were after a failed drop, not only at the head). */
static bool holds_a_and_c(void *user, const unsigned char *bytes, size_t len)
{
    return memmem(bytes, len, "\"a\":1", 5) != NULL && memmem(bytes, len, "\"c\":3", 5) != NULL;
}

START_TEST(test_shrinkers_keep_the_property)
{
    const char *raw = "aaaaaaaaaaxbbbbbbxyzccccccccccccccccc";
    gt_shrink_stats stats = {0};
    size_t len;
    unsigned char *small = gt_shrink_bytes((const unsigned char *)raw, strlen(raw), holds_xyz, NULL, &stats, &len);
    ck_assert_uint_eq(len, 3);
    ck_assert(memcmp(small, "xyz", 3) == 0);
    ck_assert_uint_gt(stats.tests, 0);
    free(small);
    const char *json = "{\"a\": 1, \"k\": [1, 2, {\"z\": \"a long string\"}], \"b\": \"x\"}";
    gt_shrink_stats json_stats = {0};
    char *tree = gt_shrink_json(json, strlen(json), holds_member_k, NULL, &json_stats, &len);
    ck_assert_ptr_nonnull(tree);
    ck_assert_str_eq(tree, "{\"k\":[]}"); /* simpler values keep their type */
    free(tree);
    ck_assert_ptr_null(gt_shrink_json("{", 1, holds_member_k, NULL, &json_stats, &len));
    /* a member whose drop fails goes back in its place: nothing is lost, the
     * walk ends (it looped to the test budget when a put-back failed) */
    const char *four = "{\"a\":1,\"b\":2,\"c\":3,\"d\":4,\"e\":[5,6,7]}";
    gt_shrink_stats four_stats = {0};
    tree = gt_shrink_json(four, strlen(four), holds_a_and_c, NULL, &four_stats, &len);
    ck_assert_ptr_nonnull(tree);
    ck_assert_str_eq(tree, "{\"a\":1,\"c\":3}");
    ck_assert_uint_lt(four_stats.tests, 100);
    free(tree);
    /* the budget is a hard stop */
    gt_shrink_stats capped = {.max_tests = 5};
    small = gt_shrink_bytes((const unsigned char *)raw, strlen(raw), holds_xyz, NULL, &capped, &len);
    ck_assert_uint_le(capped.tests, 5);
    ck_assert(memmem(small, len, "xyz", 3) != NULL);
    free(small);
}
END_TEST

START_TEST(test_explore_reference_finds_nothing)
{
    char *out = malloc(OUT_LEN);
    char *argv[] = {"explore", "--schema", "corpus/schemas/support-action-v1.json", "--target", "reference", "--budget",
                    "400",     NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_explore, argv, out, OUT_LEN), 0);
    ck_assert_msg(strstr(out, "no disagreement in 400 cases"), "%s", out);
    char *timed[] = {"explore", "--schema", "corpus/schemas/build-failure-v1.json", "--target", "reference", "--time",
                     "1",       NULL};
    time_t start = time(NULL);
    ck_assert_int_eq(gt_test_cli(gt_cmd_explore, timed, out, OUT_LEN), 0);
    ck_assert_int_le(time(NULL) - start, 10);
    ck_assert_msg(strstr(out, "no disagreement in "), "%s", out);
    char *both[] = {"explore",  "--schema",  "corpus/schemas/support-action-v1.json",
                    "--target", "reference", "--budget",
                    "4",        "--time",    "3",
                    NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_explore, both, out, OUT_LEN), 2);
    char *missing[] = {"explore", "--schema", "corpus/schemas/support-action-v1.json", NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_explore, missing, out, OUT_LEN), 2);
    free(out);
}
END_TEST

/* An adapter in sh that claims `capabilities` and answers every check with
 * `reply` (after "seq": N,). */
static void write_adapter(const char *path, const char *capabilities, const char *reply)
{
    char text[2048];
    snprintf(text, sizeof text,
             "#!/bin/sh\n"
             "while IFS= read -r line; do\n"
             "  case \"$line\" in\n"
             "  *'\"hello\"'*) echo '{\"protocol\": 1, \"implementation\": {\"name\": \"stub\", \"version\": \"1\"},"
             " \"capabilities\": [%s]}' ;;\n"
             "  *'\"check\"'*) seq=$(printf '%%s' \"$line\" | sed -n 's/.*\"seq\": *\\([0-9]*\\).*/\\1/p')\n"
             "    echo \"{\\\"seq\\\": $seq, %s}\" ;;\n"
             "  *) exit 0 ;;\n"
             "  esac\n"
             "done\n",
             capabilities, reply);
    write_text(path, text);
    ck_assert_int_eq(chmod(path, 0700), 0);
}

/* A run in which the target gave no verdict is never green, and an errored
 * case is never taken for a disagreement: a target that errors on every
 * case, one that skips every case, and a schema that gives no case all exit
 * 2. */
START_TEST(test_explore_without_a_verdict_is_not_green)
{
    char *dir = temp_dir(), *out = malloc(OUT_LEN);
    char adapter[512], target[600];
    snprintf(adapter, sizeof adapter, "%s/erroring.sh", dir);
    write_adapter(adapter, "\"syntax\", \"structure\", \"loop\", \"stream\"",
                  "\\\"errored\\\": true, \\\"message\\\": \\\"boom\\\"");
    snprintf(target, sizeof target, "adapter:%s", adapter);
    char *erroring[] = {"explore", "--schema", "corpus/schemas/support-triage-v1.json", "--target", target, "--budget",
                        "20",      NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_explore, erroring, out, OUT_LEN), 2);
    ck_assert_msg(strstr(out, "disagreement after") == NULL && strstr(out, "20 errors") &&
                      strstr(out, "no verdict on any case"),
                  "%s", out);

    snprintf(adapter, sizeof adapter, "%s/syntax-only.sh", dir);
    write_adapter(adapter, "\"syntax\"", "\\\"verdict\\\": \\\"accept\\\"");
    snprintf(target, sizeof target, "adapter:%s", adapter);
    char *skipping[] = {"explore", "--schema", "corpus/schemas/support-triage-v1.json", "--target", target,
                        "--gates", "structure", "--budget", "50", NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_explore, skipping, out, OUT_LEN), 2);
    ck_assert_msg(strstr(out, "50 skipped") && strstr(out, "no verdict on any case"), "%s", out);

    char schema[512];
    snprintf(schema, sizeof schema, "%s/false.json", dir);
    write_text(schema, "false");
    char *nothing[] = {"explore", "--schema", schema, "--target", "reference", NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_explore, nothing, out, OUT_LEN), 2);
    ck_assert_msg(strstr(out, "0 tried"), "%s", out);
    remove_tree(dir);
    free(dir);
    free(out);
}
END_TEST

/* gen never clobbers a folder it did not write (a hand-made corpus, its
 * rules.json), and explore --save never drops an earlier finding; gen may
 * rewrite its own folder. */
START_TEST(test_out_folder_is_not_clobbered)
{
    char *dir = temp_dir(), *out = malloc(OUT_LEN);
    char rules[512];
    snprintf(rules, sizeof rules, "%s/rules.json", dir);
    const char *mine = "{\"format\": \"gauntlet-rules/1\", \"rules\": []}\n";
    write_text(rules, mine);
    char *argv[] = {"gen", "--schema", "corpus/schemas/support-triage-v1.json", "--max", "20", "--out", dir, NULL};
    ck_assert_int_eq(gen_cli(argv, out), 2);
    ck_assert_msg(strstr(out, "rules.json, which gauntlet gen did not write"), "%s", out);
    char *text = gt_test_slurp(rules);
    ck_assert_str_eq(text, mine);
    free(text);
    ck_assert_int_eq(remove(rules), 0);
    ck_assert_int_eq(gen_cli(argv, out), 0);
    ck_assert_int_eq(gen_cli(argv, out), 0); /* its own folder, again */
    char *save[] = {"explore", "--schema", "corpus/schemas/support-triage-v1.json", "--target", "reference",
                    "--budget", "5", "--save", dir, NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_explore, save, out, OUT_LEN), 2);
    ck_assert_msg(strstr(out, "already holds") && strstr(out, ".cases.json"), "%s", out);
    ck_assert_uint_eq(run_against_reference(dir), 20);
    /* --out and --report below folders that do not exist yet (the README's
     * out/my-corpus in a fresh checkout): created */
    char nested[512], report[512];
    snprintf(nested, sizeof nested, "%s/out/deeper/my-corpus", dir);
    snprintf(report, sizeof report, "%s/out/reports/gen-report.json", dir);
    char *fresh[] = {"gen", "--schema", "corpus/schemas/support-triage-v1.json", "--max", "20", "--out", nested,
                     "--report", report, NULL};
    ck_assert_msg(gen_cli(fresh, out) == 0, "%s", out);
    ck_assert_uint_eq(run_against_reference(nested), 20);
    ck_assert_int_eq(access(report, R_OK), 0);
    remove_tree(dir);
    free(dir);
    free(out);
}
END_TEST

/* A loop-script disagreement is not shrunk, but --save still writes it as a
 * ready case (it wrote nothing), and its script is printed. */
START_TEST(test_explore_saves_a_loop_finding)
{
    char *dir = temp_dir(), *out = malloc(OUT_LEN);
    char adapter[512], target[600], save[512];
    snprintf(adapter, sizeof adapter, "%s/loop-accepts.sh", dir);
    write_adapter(adapter, "\"loop\"", "\\\"verdict\\\": \\\"accept\\\", \\\"subtype\\\": \\\"success\\\"");
    snprintf(target, sizeof target, "adapter:%s", adapter);
    snprintf(save, sizeof save, "%s/found", dir);
    char *argv[] = {"explore", "--schema", "corpus/schemas/support-triage-v1.json", "--target", target,
                    "--gates", "loop", "--save", save, NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_explore, argv, out, OUT_LEN), 1);
    ck_assert_msg(strstr(out, "not shrunk: a loop script") && strstr(out, "\"json_schema\"") &&
                      strstr(out, "saved as gen.loop."),
                  "%s", out);
    ck_assert_uint_eq(run_against_reference(save), 1);
    /* its rules.json holds the rules of that one case, each proven */
    char *rules[] = {"rules", save, NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_rules, rules, out, OUT_LEN), 0);
    remove_tree(dir);
    free(dir);
    free(out);
}
END_TEST

/* The shrunk input of a disagreement on a homoglyph lists its non-ASCII
 * code points, as gauntlet show does: "DЕ" (Cyrillic Е) looks like "DE". */
START_TEST(test_explore_marks_homoglyphs)
{
    char *dir = temp_dir(), *out = malloc(OUT_LEN);
    char schema[512], sample[512], adapter[512], target[600];
    snprintf(schema, sizeof schema, "%s/s.json", dir);
    snprintf(sample, sizeof sample, "%s/v.json", dir);
    snprintf(adapter, sizeof adapter, "%s/cyrillic.sh", dir);
    write_text(schema, "{\"type\": \"object\", \"properties\": {\"name\": {\"type\": \"string\"}}}");
    write_text(sample, "{\"name\": \"D\xd0\x95\"}");
    /* rejects (structure) whatever holds a Cyrillic Е, accepts the rest */
    write_text(adapter, "#!/bin/sh\n"
                        "while IFS= read -r line; do\n"
                        "  seq=$(printf '%s' \"$line\" | sed -n 's/.*\"seq\": *\\([0-9]*\\).*/\\1/p')\n"
                        "  case \"$line\" in\n"
                        "  *'\"hello\"'*) echo '{\"protocol\": 1, \"implementation\": {\"name\": \"stub\"},"
                        " \"capabilities\": [\"syntax\", \"structure\"]}' ;;\n"
                        "  *'\"stop\"'*) exit 0 ;;\n"
                        "  *\xd0\x95*) echo \"{\\\"seq\\\": $seq, \\\"verdict\\\": \\\"reject\\\", \\\"gate\\\": "
                        "\\\"structure\\\", \\\"reason\\\": \\\"x\\\"}\" ;;\n"
                        "  *) echo \"{\\\"seq\\\": $seq, \\\"verdict\\\": \\\"accept\\\"}\" ;;\n"
                        "  esac\n"
                        "done\n");
    ck_assert_int_eq(chmod(adapter, 0700), 0);
    snprintf(target, sizeof target, "adapter:%s", adapter);
    char *argv[] = {"explore", "--schema", schema, "--sample", sample, "--target", target, "--gates", "structure", NULL};
    ck_assert_int_eq(gt_test_cli(gt_cmd_explore, argv, out, OUT_LEN), 1);
    ck_assert_msg(strstr(out, "shrunk from ") && strstr(out, "non-ASCII code points (line:column):\n") &&
                      strstr(out, "U+0415"),
                  "%s", out);
    remove_tree(dir);
    free(dir);
    free(out);
}
END_TEST

/* The largest input explore may shrink the naive pipeline's failure to. */
#define NAIVE_SHRUNK_MAX_BYTES 16

START_TEST(test_explore_shrinks_naive_node_failure)
{
    if (system("command -v node >/dev/null 2>&1") != 0) {
        fprintf(stderr, "test_gen: SKIP explore against adapters/naive-node: node is not installed\n");
        return;
    }
    char *out = malloc(OUT_LEN), *dir = temp_dir();
    char *argv[] = {"explore",
                    "--schema",
                    "corpus/schemas/support-triage-v1.json",
                    "--target",
                    "adapter:node adapters/naive-node/adapter.js",
                    "--save",
                    dir,
                    NULL};
    time_t start = time(NULL);
    ck_assert_int_eq(gt_test_cli(gt_cmd_explore, argv, out, OUT_LEN), 1);
    ck_assert_int_le(time(NULL) - start, 30);
    const char *shrunk = strstr(out, "shrunk from ");
    ck_assert_msg(shrunk != NULL, "%s", out);
    size_t from = 0, to = 0;
    ck_assert_int_eq(sscanf(shrunk, "shrunk from %zu to %zu bytes", &from, &to), 2);
    ck_assert_msg(to <= NAIVE_SHRUNK_MAX_BYTES && to < from, "shrunk only from %zu to %zu bytes:\n%s", from, to, out);
    ck_assert_msg(strstr(out, "reference  reject syntax/") && strstr(out, "target     accept"), "%s", out);
    /* the saved case is a ready corpus case: the reference passes it, the naive pipeline fails it */
    ck_assert_uint_eq(run_against_reference(dir), 1);
    gt_corpus *corpus = gt_corpus_new();
    ck_assert_int_eq(gt_corpus_load(corpus, dir), 1);
    char err[256];
    gt_run *run = gt_run_cases(corpus, "adapter:node adapters/naive-node/adapter.js", 1, NULL, NULL, err, sizeof err);
    ck_assert_msg(run != NULL, "%s", err);
    ck_assert_int_eq(run->results[0].outcome, GT_OUTCOME_FAIL);
    gt_run_free(run);
    gt_corpus_free(corpus);
    remove_tree(dir);
    free(dir);
    free(out);
}
END_TEST

START_TEST(test_help_and_completion_list_the_commands)
{
    ck_assert_ptr_nonnull(gt_cli_find("gen"));
    ck_assert_ptr_nonnull(gt_cli_find("explore"));
    char *text = gt_cli_help_text(gt_cli_find("gen"));
    ck_assert_msg(text && strstr(text, "--schema") && strstr(text, "--max") && strstr(text, "--report"), "%s", text);
    free(text);
    text = gt_cli_help_text(gt_cli_find("explore"));
    ck_assert_msg(text && strstr(text, "--target") && strstr(text, "--budget") && strstr(text, "--save"), "%s", text);
    free(text);
    char *out = NULL;
    size_t len = 0;
    FILE *stream = open_memstream(&out, &len);
    ck_assert_int_eq(gt_cli_completion(stream, "bash"), 0);
    fclose(stream);
    ck_assert_msg(strstr(out, "explore") && strstr(out, "--budget"), "completion lacks explore");
    free(out);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("gen");
    TCase *tc = tcase_create("gen");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_each_contract_gives_200_passing_cases);
    tcase_add_test(tc, test_seed_reproduces_bytes);
    tcase_add_test(tc, test_string_contract_gets_text_near_misses);
    tcase_add_test(tc, test_root_picks_a_definition);
    tcase_add_test(tc, test_open_root_generates_per_definition);
    tcase_add_test(tc, test_max_spreads_over_operators);
    tcase_add_test(tc, test_ambiguous_mutations_are_reported_not_emitted);
    tcase_add_test(tc, test_bad_input_exits_2_naming_it);
    tcase_add_test(tc, test_unsatisfiable_pattern_is_said);
    tcase_add_test(tc, test_unsatisfiable_schema_writes_nothing);
    tcase_add_test(tc, test_formats_adds_format_near_misses);
    tcase_add_test(tc, test_ref_dir_is_registered_and_copied);
    tcase_add_test(tc, test_large_sample_stays_bounded);
    tcase_add_test(tc, test_shrinkers_keep_the_property);
    tcase_add_test(tc, test_explore_reference_finds_nothing);
    tcase_add_test(tc, test_explore_shrinks_naive_node_failure);
    tcase_add_test(tc, test_explore_without_a_verdict_is_not_green);
    tcase_add_test(tc, test_out_folder_is_not_clobbered);
    tcase_add_test(tc, test_explore_saves_a_loop_finding);
    tcase_add_test(tc, test_explore_marks_homoglyphs);
    tcase_add_test(tc, test_help_and_completion_list_the_commands);
    suite_add_tcase(suite, tc);
    return suite;
}

GT_TEST_MAIN()
