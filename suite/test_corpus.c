/* test_corpus.c — the case-file loader: every kind of broken file gives a
 * problem naming file, line and field, and good files beside it still load. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gauntlet/runner/corpus.h"
#include "gt_test.h"

#define LOADER_DIR "suite/data/loader"

static const gt_load_problem *find_problem(const gt_corpus *corpus, const char *file_suffix, const char *field)
{
    for (size_t i = 0; i < gt_corpus_problem_count(corpus); i++) {
        const gt_load_problem *problem = gt_corpus_problem(corpus, i);
        size_t file_len = strlen(problem->file), suffix_len = strlen(file_suffix);
        if (file_len >= suffix_len && strcmp(problem->file + file_len - suffix_len, file_suffix) == 0 &&
            strcmp(problem->field, field) == 0)
            return problem;
    }
    return NULL;
}

static const gt_case *find_case(const gt_corpus *corpus, const char *id)
{
    for (size_t i = 0; i < gt_corpus_count(corpus); i++)
        if (strcmp(gt_corpus_case(corpus, i)->input.id, id) == 0)
            return gt_corpus_case(corpus, i);
    return NULL;
}

/* Assert a problem exists at file/field/line whose message mentions `words`. */
#define ck_problem(corpus, file, field, line_number, words)                                                  \
    do {                                                                                                     \
        const gt_load_problem *found_ = find_problem((corpus), (file), (field));                             \
        ck_assert_msg(found_ != NULL, "no problem for %s %s", (file), (field));                              \
        ck_assert_uint_eq(found_->line, (line_number));                                                      \
        ck_assert_msg(strstr(found_->message, (words)) != NULL, "message '%s' lacks '%s'", found_->message, \
                      (words));                                                                              \
    } while (0)

static gt_corpus *load_dir(void)
{
    gt_corpus *corpus = gt_corpus_new();
    ck_assert_ptr_nonnull(corpus);
    ck_assert_int_eq(gt_corpus_load(corpus, LOADER_DIR), 6);
    return corpus;
}

START_TEST(directory_good_cases_load_in_sorted_order)
{
    gt_corpus *corpus = load_dir();
    static const char *const ids[] = {"loader.good.accept",         "loader.good.reject-type",
                                      "loader.good.base64",         "loader.broken.dup-in-file",
                                      "loader.broken.good-neighbour", "loader.nested.found"};
    ck_assert_uint_eq(gt_corpus_count(corpus), 6);
    for (size_t i = 0; i < 6; i++)
        ck_assert_str_eq(gt_corpus_case(corpus, i)->input.id, ids[i]);
    /* every problem of the directory, and nothing for ignored.json or schemas/ */
    ck_assert_uint_eq(gt_corpus_problem_count(corpus), 12);
    gt_corpus_free(corpus);
}
END_TEST

START_TEST(broken_files_name_file_line_and_field)
{
    gt_corpus *corpus = load_dir();
    ck_problem(corpus, "b-not-json.cases.json", "", 3, "not valid JSON");
    ck_problem(corpus, "c-wrong-format.cases.json", "/format", 2, "gauntlet-corpus/2");
    ck_assert_ptr_null(find_case(corpus, "loader.wrong-format.never-loaded"));
    gt_corpus_free(corpus);
}
END_TEST

START_TEST(broken_cases_are_skipped_with_a_problem)
{
    gt_corpus *corpus = load_dir();
    const char *file = "d-broken-cases.cases.json";
    ck_problem(corpus, file, "/cases/0/id", 5, "id is missing");
    ck_problem(corpus, file, "/cases/1/expect/verdict", 6, "'maybe'");
    ck_problem(corpus, file, "/cases/2/expect/reason", 7, "required when the verdict is reject");
    ck_problem(corpus, file, "/cases/3/expect/reason", 8, "unknown syntax reason 'looks_wrong'");
    ck_problem(corpus, file, "/cases/4/input_base64", 9, "base64");
    ck_problem(corpus, file, "/cases/5/input_base64", 10, "not both");
    ck_problem(corpus, file, "/cases/6/schema_file", 11, "nope.json");
    ck_problem(corpus, file, "/cases/7/schema_file", 12, "not valid JSON");
    ck_problem(corpus, file, "/cases/9/id", 14, "d-broken-cases.cases.json:13");
    ck_assert_ptr_null(find_case(corpus, "loader.broken.bad-verdict"));
    ck_assert_ptr_null(find_case(corpus, "loader.broken.both-inputs"));
    ck_assert_ptr_nonnull(find_case(corpus, "loader.broken.good-neighbour"));
    const gt_case *first = find_case(corpus, "loader.broken.dup-in-file");
    ck_assert_ptr_nonnull(first);
    ck_assert_uint_eq(first->line, 13); /* the first definition wins */
    gt_corpus_free(corpus);
}
END_TEST

START_TEST(duplicate_id_across_files_names_both)
{
    gt_corpus *corpus = load_dir();
    const gt_load_problem *problem = find_problem(corpus, "e-dup.cases.json", "/cases/0/id");
    ck_assert_ptr_nonnull(problem);
    ck_assert_uint_eq(problem->line, 4);
    ck_assert_ptr_nonnull(strstr(problem->message, "a-good.cases.json:6"));
    ck_assert_ptr_nonnull(strstr(problem->file, "e-dup.cases.json"));
    gt_corpus_free(corpus);
}
END_TEST

START_TEST(defaults_schema_file_and_fields)
{
    gt_corpus *corpus = load_dir();
    const gt_case *kase = find_case(corpus, "loader.good.reject-type");
    ck_assert_ptr_nonnull(kase);
    ck_assert_str_eq(kase->input.gate, "structure");
    ck_assert_str_eq(kase->category, "triage");
    ck_assert_uint_eq(kase->tag_count, 2);
    ck_assert_str_eq(kase->tags[1], "coercion");
    ck_assert_ptr_nonnull(kase->input.schema_json);
    ck_assert_ptr_nonnull(strstr(kase->input.schema_json, "\"additionalProperties\":false"));
    ck_assert_ptr_nonnull(strstr(kase->input.schema_origin, "schemas/triage.json"));
    ck_assert_int_eq(kase->expect.verdict, GT_VERDICT_REJECT);
    ck_assert_str_eq(kase->expect.gate, "structure");
    ck_assert_str_eq(kase->expect.reason, "type");
    ck_assert(kase->expect.errors_given);
    ck_assert_uint_eq(kase->expect.error_count, 1);
    ck_assert_str_eq(kase->expect.errors[0].path, "/priority");
    ck_assert_str_eq(kase->expect.errors[0].keyword, "type");
    /* later layers' fields survive: case_json has defaults merged, no expect */
    ck_assert_ptr_nonnull(strstr(kase->input.case_json, "\"script\":{\"later\":\"layers read this\"}"));
    ck_assert_ptr_nonnull(strstr(kase->input.case_json, "\"schema_file\":\"schemas/triage.json\""));
    ck_assert_ptr_nonnull(strstr(kase->input.case_json, "\"category\":\"triage\""));
    ck_assert_ptr_null(strstr(kase->input.case_json, "expect"));
    ck_assert_ptr_nonnull(strstr(kase->expect.expect_json, "\"attempts\":1"));
    ck_assert_uint_eq(kase->line, 11);

    const gt_case *accept = find_case(corpus, "loader.good.accept");
    ck_assert_int_eq(accept->expect.verdict, GT_VERDICT_ACCEPT);
    ck_assert(!accept->expect.errors_given);
    ck_assert_ptr_null(accept->expect.gate);
    ck_assert_uint_eq(accept->tag_count, 1);
    /* one schema file, read once: both cases share the text */
    ck_assert_ptr_eq(accept->input.schema_json, kase->input.schema_json);

    const gt_case *base64 = find_case(corpus, "loader.good.base64");
    ck_assert_uint_eq(base64->input.raw_len, 10);
    ck_assert_int_eq(memcmp(base64->input.raw, "{\"a\": \"\xff\"}", 10), 0);
    ck_assert_str_eq(base64->input.schema_json, "true");
    ck_assert_str_eq(base64->category, "utf8");
    gt_corpus_free(corpus);
}
END_TEST

START_TEST(input_keeps_nul_and_exact_bytes)
{
    gt_corpus *corpus = gt_corpus_new();
    const char text[] = "{\"format\": \"gauntlet-corpus/1\", \"cases\": [{\"id\": \"nul\", \"gate\": \"syntax\", "
                        "\"category\": \"c\", \"input\": \"{\\\"a\\\": \\\"x\\u0000y\\\"}\\r\\n\", "
                        "\"expect\": {\"verdict\": \"reject\", \"gate\": \"syntax\", \"reason\": "
                        "\"control_character\"}}]}";
    ck_assert_int_eq(gt_corpus_load_text(corpus, "mem.cases.json", text, sizeof text - 1), 1);
    const gt_case *kase = gt_corpus_case(corpus, 0);
    ck_assert_uint_eq(kase->input.raw_len, 14);
    ck_assert_int_eq(memcmp(kase->input.raw, "{\"a\": \"x\0y\"}\r\n", 14), 0);
    ck_assert_ptr_null(kase->input.schema_json);
    ck_assert_uint_eq(gt_corpus_problem_count(corpus), 0);
    gt_corpus_free(corpus);
}
END_TEST

/* One case carrying `source` (JSON text); returns the number loaded. */
static int load_with_source(gt_corpus *corpus, const char *source)
{
    char text[2048];
    snprintf(text, sizeof text,
             "{\"format\": \"gauntlet-corpus/1\", \"cases\": [{\"id\": \"s\", \"gate\": \"syntax\", "
             "\"category\": \"c\", \"source\": %s, \"input\": \"{}\", \"expect\": {\"verdict\": \"accept\"}}]}",
             source);
    return gt_corpus_load_text(corpus, "src.cases.json", text, strlen(text));
}

START_TEST(source_is_normalized_and_checked)
{
    gt_corpus *corpus = gt_corpus_new();
    ck_assert_int_eq(load_with_source(corpus, "[{\"thread\": \"anthropics/claude-code#80402\", \"url\": "
                                              "\"https://github.com/anthropics/claude-code/issues/80402\"}, "
                                              "{\"spec\": \"RFC 8259 section 4\"}, {\"rule\": \"S2-01\"}]"),
                     1);
    const gt_case *kase = gt_corpus_case(corpus, 0);
    ck_assert_uint_eq(kase->source_count, 3);
    ck_assert_str_eq(kase->sources[0], "anthropics/claude-code#80402 https://github.com/anthropics/claude-code/issues/80402");
    ck_assert_str_eq(kase->sources[1], "spec: RFC 8259 section 4");
    ck_assert_str_eq(kase->sources[2], "rule: S2-01");
    char thread[128];
    ck_assert_uint_eq(gt_case_source_thread(kase->sources[0], thread, sizeof thread), strlen("anthropics/claude-code"));
    ck_assert_str_eq(thread, "anthropics/claude-code#80402");
    ck_assert_uint_eq(gt_case_source_thread(kase->sources[1], thread, sizeof thread), 0);
    gt_corpus_free(corpus);

    static const struct {
        const char *source, *field, *message;
    } bad[] = {
        {"\"x#1\"", "/cases/0/source", "source must be an object"},
        {"[]", "/cases/0/source", "an empty array"},
        {"{\"thread\": \"claude-code#1\", \"url\": \"x\"}", "/cases/0/source/thread", "owner/repo#N"},
        {"{\"thread\": \"a/b#0\", \"url\": \"x\"}", "/cases/0/source/thread", "owner/repo#N"},
        {"{\"thread\": \"a/b#7\"}", "/cases/0/source/url", "needs its url"},
        {"[{\"rule\": \"S2-01\"}, {\"thread\": \"a/b#7\", \"url\": \"https://github.com/a/b/issues/8\"}]",
         "/cases/0/source/1/url", "thread's address"},
        {"{\"spec\": \"x\", \"rule\": \"S2-01\"}", "/cases/0/source", "exactly one"},
        {"{\"issue\": \"a/b#7\"}", "/cases/0/source/issue", "unknown source member"},
        {"{\"rule\": \"S 2\"}", "/cases/0/source/rule", "rule id"},
        {"{\"spec\": \"\"}", "/cases/0/source/spec", "one-line string"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        corpus = gt_corpus_new();
        ck_assert_int_eq(load_with_source(corpus, bad[i].source), 0);
        ck_assert_uint_eq(gt_corpus_problem_count(corpus), 1);
        const gt_load_problem *problem = gt_corpus_problem(corpus, 0);
        ck_assert_str_eq(problem->field, bad[i].field);
        ck_assert_uint_eq(problem->line, 1);
        ck_assert_msg(strstr(problem->message, bad[i].message) != NULL, "%s: %s", bad[i].source, problem->message);
        gt_corpus_free(corpus);
    }
    /* A pull request's address is the thread's too. */
    corpus = gt_corpus_new();
    ck_assert_int_eq(load_with_source(corpus, "{\"thread\": \"a/b#7\", \"url\": \"https://github.com/a/b/pull/7\"}"), 1);
    gt_corpus_free(corpus);
}
END_TEST

/* Load one in-memory file and return its single problem's field (or ""). */
static int load_one(gt_corpus *corpus, const char *text)
{
    return gt_corpus_load_text(corpus, "dir/mem.cases.json", text, strlen(text));
}

START_TEST(expectation_rules)
{
    gt_corpus *corpus = gt_corpus_new();
    int loaded = load_one(corpus, "{\"format\": \"gauntlet-corpus/1\",\n"
                                  " \"defaults\": {\"gate\": \"syntax\", \"category\": \"c\"},\n"
                                  " \"cases\": [\n"
                                  "  {\"id\": \"a\", \"input\": \"1\", \"expect\": {\"verdict\": \"accept\", "
                                  "\"gate\": \"syntax\"}},\n"
                                  "  {\"id\": \"b\", \"input\": \"1\", \"expect\": {\"verdict\": \"reject\", "
                                  "\"reason\": \"trailing_text\"}},\n"
                                  "  {\"id\": \"c\", \"input\": \"1\", \"expect\": {\"verdict\": \"reject\", "
                                  "\"gate\": \"stage\", \"reason\": \"x\"}},\n"
                                  "  {\"id\": \"d\", \"gate\": \"structure\", \"input\": \"1\", \"expect\": "
                                  "{\"verdict\": \"accept\"}},\n"
                                  "  {\"id\": \"e\", \"input\": \"1\", \"expect\": {\"verdict\": \"accept\", "
                                  "\"errors\": [{\"path\": \"priority\", \"keyword\": \"type\"}]}},\n"
                                  "  {\"id\": \"Bad Id\", \"input\": \"1\", \"expect\": {\"verdict\": \"accept\"}},\n"
                                  "  {\"id\": \"g\", \"input\": 7, \"expect\": {\"verdict\": \"accept\"}},\n"
                                  "  {\"id\": \"h\", \"input\": \"1\"},\n"
                                  "  {\"id\": \"i\", \"tags\": [\"ok\", 3], \"input\": \"1\", \"expect\": "
                                  "{\"verdict\": \"accept\"}},\n"
                                  "  {\"id\": \"j\", \"input\": \"1\", \"expect\": {\"verdict\": \"reject\", "
                                  "\"gate\": \"semantic\", \"reason\": \"not-a-code\"}},\n"
                                  "  \"k\",\n"
                                  "  {\"id\": \"ok\", \"input\": \"1\", \"expect\": {\"verdict\": \"reject\", "
                                  "\"gate\": \"semantic\", \"reason\": \"cross_field\", \"subtype\": \"later\"}}\n"
                                  " ]}\n");
    ck_assert_int_eq(loaded, 1);
    ck_problem(corpus, "mem.cases.json", "/cases/0/expect/gate", 4, "only for reject");
    ck_problem(corpus, "mem.cases.json", "/cases/1/expect/gate", 5, "required");
    ck_problem(corpus, "mem.cases.json", "/cases/2/expect/gate", 6, "'stage'");
    ck_problem(corpus, "mem.cases.json", "/cases/3/schema", 7, "needs a schema");
    ck_problem(corpus, "mem.cases.json", "/cases/4/expect/errors/0/path", 8, "JSON Pointer");
    ck_problem(corpus, "mem.cases.json", "/cases/5/id", 9, "'Bad Id'");
    ck_problem(corpus, "mem.cases.json", "/cases/6/input", 10, "must be a string");
    ck_problem(corpus, "mem.cases.json", "/cases/7/expect", 11, "expect is missing");
    ck_problem(corpus, "mem.cases.json", "/cases/8/tags/1", 12, "tag");
    ck_problem(corpus, "mem.cases.json", "/cases/9/expect/reason", 13, "reason code");
    ck_problem(corpus, "mem.cases.json", "/cases/10", 14, "must be an object");
    ck_assert_str_eq(gt_corpus_case(corpus, 0)->input.id, "ok");
    ck_assert_str_eq(gt_corpus_case(corpus, 0)->expect.reason, "cross_field");
    gt_corpus_free(corpus);
}
END_TEST

START_TEST(file_level_problems_contribute_nothing)
{
    gt_corpus *corpus = gt_corpus_new();
    ck_assert_int_eq(load_one(corpus, "[1, 2]"), 0);
    ck_problem(corpus, "mem.cases.json", "", 1, "must be a JSON object");
    gt_corpus_free(corpus);

    corpus = gt_corpus_new();
    ck_assert_int_eq(load_one(corpus, "{\"format\": \"gauntlet-corpus/1\",\n \"defaults\": {\"id\": \"x\"},\n"
                                      " \"cases\": [{\"id\": \"a\", \"gate\": \"syntax\", \"category\": \"c\", "
                                      "\"input\": \"1\", \"expect\": {\"verdict\": \"accept\"}}]}"),
                     0);
    ck_problem(corpus, "mem.cases.json", "/defaults/id", 2, "cannot have a default");
    gt_corpus_free(corpus);

    corpus = gt_corpus_new();
    ck_assert_int_eq(load_one(corpus, "{\"format\": \"gauntlet-corpus/1\", \"cases\": {}}"), 0);
    ck_problem(corpus, "mem.cases.json", "/cases", 1, "must be an array");
    gt_corpus_free(corpus);

    corpus = gt_corpus_new();
    ck_assert_int_eq(load_one(corpus, "{\"cases\": []}"), 0);
    ck_problem(corpus, "mem.cases.json", "/format", 1, "format is missing");
    gt_corpus_free(corpus);

    /* a strict file: a duplicate key in the case file itself is a problem */
    corpus = gt_corpus_new();
    ck_assert_int_eq(load_one(corpus, "{\"format\": \"gauntlet-corpus/1\",\n \"format\": \"gauntlet-corpus/1\", "
                                      "\"cases\": []}"),
                     0);
    ck_problem(corpus, "mem.cases.json", "", 2, "duplicate_key");
    gt_corpus_free(corpus);
}
END_TEST

START_TEST(unknown_top_level_field_is_a_problem_but_cases_load)
{
    gt_corpus *corpus = gt_corpus_new();
    ck_assert_int_eq(load_one(corpus, "{\"format\": \"gauntlet-corpus/1\", \"case\": 1, \"a/b\": 2, \"cases\": "
                                      "[{\"id\": \"a\", \"gate\": \"syntax\", \"category\": \"c\", \"input\": "
                                      "\"1\", \"expect\": {\"verdict\": \"accept\"}}]}"),
                     1);
    ck_assert_ptr_nonnull(find_problem(corpus, "mem.cases.json", "/case"));
    ck_assert_ptr_nonnull(find_problem(corpus, "mem.cases.json", "/a~1b"));
    gt_corpus_free(corpus);
}
END_TEST

START_TEST(missing_path_and_loading_twice)
{
    gt_corpus *corpus = gt_corpus_new();
    ck_assert_int_eq(gt_corpus_load(corpus, "suite/data/no-such-dir"), 0);
    ck_problem(corpus, "no-such-dir", "", 0, "cannot open");
    ck_assert_int_eq(gt_corpus_load(corpus, LOADER_DIR "/a-good.cases.json"), 3);
    /* the same file again (also via the directory) adds nothing and no duplicate problems */
    ck_assert_int_eq(gt_corpus_load(corpus, "suite/data/loader/../loader/a-good.cases.json"), 0);
    ck_assert_uint_eq(gt_corpus_problem_count(corpus), 1);
    ck_assert_uint_eq(gt_corpus_count(corpus), 3);
    gt_corpus_free(corpus);
}
END_TEST

START_TEST(filters)
{
    gt_corpus *corpus = load_dir();
    ck_assert_uint_eq(gt_corpus_filter(corpus, "syntax", NULL, NULL), 4);
    ck_assert_uint_eq(gt_corpus_filter(corpus, NULL, NULL, "loader.broken.*"), 2);
    ck_assert_uint_eq(gt_corpus_filter(corpus, NULL, "deep", NULL), 0);
    gt_corpus_free(corpus);

    corpus = load_dir();
    ck_assert_uint_eq(gt_corpus_filter(corpus, NULL, "deep", "*.nested.*"), 1);
    ck_assert_str_eq(gt_corpus_case(corpus, 0)->input.id, "loader.nested.found");
    gt_corpus_free(corpus);
}
END_TEST

START_TEST(base64_is_strict)
{
    static const char *const bad[] = {"e30", "e3=0", "e30==", "e3 0", "e31=" /* non-zero padding bits */};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gt_corpus *corpus = gt_corpus_new();
        char text[512];
        snprintf(text, sizeof text,
                 "{\"format\": \"gauntlet-corpus/1\", \"cases\": [{\"id\": \"a\", \"gate\": \"syntax\", "
                 "\"category\": \"c\", \"input_base64\": \"%s\", \"expect\": {\"verdict\": \"accept\"}}]}",
                 bad[i]);
        ck_assert_int_eq(load_one(corpus, text), 0);
        ck_assert_ptr_nonnull(find_problem(corpus, "mem.cases.json", "/cases/0/input_base64"));
        gt_corpus_free(corpus);
    }
    gt_corpus *corpus = gt_corpus_new();
    ck_assert_int_eq(load_one(corpus, "{\"format\": \"gauntlet-corpus/1\", \"cases\": [{\"id\": \"a\", \"gate\": "
                                      "\"syntax\", \"category\": \"c\", \"input_base64\": \"\", \"expect\": "
                                      "{\"verdict\": \"reject\", \"gate\": \"syntax\", \"reason\": "
                                      "\"empty_input\"}}]}"),
                     1);
    ck_assert_uint_eq(gt_corpus_case(corpus, 0)->input.raw_len, 0);
    ck_assert_ptr_nonnull(gt_corpus_case(corpus, 0)->input.raw);
    gt_corpus_free(corpus);
}
END_TEST

/* tier and rules: defaults apply, a case overrides, bad values are problems
 * at file:line and JSON Pointer, and rule ids are checked against the nearest
 * rules.json above the case file. */
START_TEST(tier_and_rules)
{
    gt_corpus *corpus = gt_corpus_new();
    ck_assert_int_eq(gt_corpus_load(corpus, "suite/data/tiers/sub/tiers.cases.json"), 2);
    const gt_case *inherits = find_case(corpus, "tiers.inherits"), *own = find_case(corpus, "tiers.own");
    ck_assert_int_eq(inherits->tier, GT_TIER_OPTIONAL);
    ck_assert_uint_eq(inherits->rule_count, 1);
    ck_assert_str_eq(inherits->rules[0], "RFC8259-6");
    ck_assert_int_eq(own->tier, GT_TIER_REQUIRED);
    ck_assert_uint_eq(own->rule_count, 2);
    ck_assert_str_eq(own->rules[1], "S0-24");
    const char *file = "tiers.cases.json";
    ck_problem(corpus, file, "/cases/2/tier", 6, "tier must be \"required\" or \"optional\", not 'mandatory'");
    ck_problem(corpus, file, "/cases/3/rules/1", 7, "unknown rule id 'S9-99'");
    ck_problem(corpus, file, "/cases/4/rules/0", 8, "semantic_rules");
    ck_problem(corpus, file, "/cases/5/rules", 9, "empty array");
    ck_problem(corpus, file, "/cases/6/rules/1", 10, "named twice");
    ck_problem(corpus, file, "/cases/7/tier", 11, "not a number");
    ck_problem(corpus, file, "/cases/7/rules", 11, "not a string");
    ck_assert_uint_eq(gt_corpus_problem_count(corpus), 7);
    ck_assert_str_eq(gt_tier_name(GT_TIER_OPTIONAL), "optional");
    ck_assert_int_eq(gt_tier_from_name("required"), GT_TIER_REQUIRED);
    ck_assert_int_eq(gt_tier_from_name("Required"), -1);
    gt_corpus_free(corpus);
}
END_TEST

/* A broken rules.json is reported once under its own name; only the cases
 * that name rules are skipped. No rules.json at all: cases naming rules are
 * problems, the others load. */
START_TEST(rule_list_problems)
{
    gt_corpus *corpus = gt_corpus_new();
    ck_assert_int_eq(gt_corpus_load(corpus, "suite/data/tiers-broken"), 1);
    ck_assert_ptr_nonnull(find_case(corpus, "tiers-broken.no-rules"));
    ck_problem(corpus, "tiers-broken/rules.json", "/rules", 3, "rule id 'S0-21' is listed twice");
    ck_problem(corpus, "tiers-broken/rules.json", "/rules/2/id", 6, "[A-Za-z0-9._-]");
    ck_problem(corpus, "tiers-broken/rules.json", "/rules/3/statement", 7, "statement");
    ck_problem(corpus, "broken.cases.json", "/cases/1/rules", 5, "has problems");
    ck_assert_uint_eq(gt_corpus_problem_count(corpus), 4);
    gt_corpus_free(corpus);

    char dir[] = "/tmp/gt-tiers-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char name[64];
    snprintf(name, sizeof name, "%s/x.cases.json", dir);
    const char *text = "{\"format\": \"gauntlet-corpus/1\", \"cases\": [\n"
                       " {\"id\": \"a\", \"gate\": \"syntax\", \"category\": \"c\", \"input\": \"1\", "
                       "\"expect\": {\"verdict\": \"accept\"}},\n"
                       " {\"id\": \"b\", \"gate\": \"syntax\", \"category\": \"c\", \"rules\": [\"S0-21\"], "
                       "\"input\": \"1\", \"expect\": {\"verdict\": \"accept\"}}]}";
    corpus = gt_corpus_new();
    ck_assert_int_eq(gt_corpus_load_text(corpus, name, text, strlen(text)), 1);
    ck_problem(corpus, "x.cases.json", "/cases/1/rules", 3, "no rules.json");
    gt_corpus_free(corpus);
    rmdir(dir);
}
END_TEST

/* expect.output_at (JSON Pointer keys) and expect.trace are non-empty
 * objects, kept as compact JSON for the comparison. */
START_TEST(output_at_and_trace_expectations)
{
    const char *text = "{\"format\": \"gauntlet-corpus/1\", \"defaults\": {\"gate\": \"loop\", \"category\": \"c\"}, \"cases\": [\n"
                       " {\"id\": \"a\", \"expect\": {\"verdict\": \"accept\", \"output_at\": {\"/result\": \"x\", \"\": {}},"
                       " \"trace\": {\"schema\": \"s\"}}},\n"
                       " {\"id\": \"b\", \"expect\": {\"verdict\": \"accept\", \"output_at\": {\"result\": 1}}},\n"
                       " {\"id\": \"c\", \"expect\": {\"verdict\": \"accept\", \"output_at\": []}},\n"
                       " {\"id\": \"d\", \"expect\": {\"verdict\": \"accept\", \"trace\": {}}},\n"
                       " {\"id\": \"e\", \"expect\": {\"verdict\": \"accept\", \"output_contains\": {\"/a\": [\"x\", \"\"]}}},\n"
                       " {\"id\": \"f\", \"expect\": {\"verdict\": \"accept\", \"output_excludes\": {\"/a\": \"x\"}}}]}";
    gt_corpus *corpus = gt_corpus_new();
    ck_assert_int_eq(gt_corpus_load_text(corpus, "x.cases.json", text, strlen(text)), 2);
    const gt_case *good = find_case(corpus, "a");
    ck_assert_str_eq(good->expect.output_at_json, "{\"/result\":\"x\",\"\":{}}");
    ck_assert_str_eq(good->expect.trace_json, "{\"schema\":\"s\"}");
    ck_problem(corpus, "x.cases.json", "/cases/1/expect/output_at/result", 3, "JSON Pointers");
    ck_problem(corpus, "x.cases.json", "/cases/2/expect/output_at", 4, "non-empty object");
    ck_problem(corpus, "x.cases.json", "/cases/3/expect/trace", 5, "an empty object");
    ck_problem(corpus, "x.cases.json", "/cases/4/expect/output_contains/~1a", 6, "non-empty string or an array");
    ck_assert_str_eq(find_case(corpus, "f")->expect.output_excludes_json, "{\"/a\":\"x\"}");
    gt_corpus_free(corpus);
}
END_TEST

/* expect.message_present: true on a rejection only; false, another type or an
 * accept is a problem naming the field, and the case is skipped. */
START_TEST(message_present_expectation)
{
    const char *text = "{\"format\": \"gauntlet-corpus/1\", \"defaults\": {\"gate\": \"policy\", \"category\": \"c\"}, \"cases\": [\n"
                       " {\"id\": \"a\", \"input\": \"{}\", \"expect\": {\"verdict\": \"reject\", \"gate\": \"policy\","
                       " \"reason\": \"role_not_permitted\", \"message_present\": true}},\n"
                       " {\"id\": \"b\", \"input\": \"{}\", \"expect\": {\"verdict\": \"accept\", \"message_present\": true}},\n"
                       " {\"id\": \"c\", \"input\": \"{}\", \"expect\": {\"verdict\": \"reject\", \"gate\": \"policy\","
                       " \"reason\": \"x\", \"message_present\": false}},\n"
                       " {\"id\": \"d\", \"input\": \"{}\", \"expect\": {\"verdict\": \"reject\", \"gate\": \"policy\","
                       " \"reason\": \"x\", \"message_present\": \"yes\"}},\n"
                       " {\"id\": \"e\", \"input\": \"{}\", \"expect\": {\"verdict\": \"reject\", \"gate\": \"policy\","
                       " \"reason\": \"x\"}}]}";
    gt_corpus *corpus = gt_corpus_new();
    ck_assert_int_eq(gt_corpus_load_text(corpus, "x.cases.json", text, strlen(text)), 2);
    ck_assert(find_case(corpus, "a")->expect.message_present);
    ck_assert(!find_case(corpus, "e")->expect.message_present);
    ck_assert_ptr_null(find_case(corpus, "b"));
    ck_assert_ptr_null(find_case(corpus, "c"));
    ck_assert_ptr_null(find_case(corpus, "d"));
    ck_problem(corpus, "x.cases.json", "/cases/1/expect/message_present", 3, "only for reject");
    ck_problem(corpus, "x.cases.json", "/cases/2/expect/message_present", 4, "must be true");
    ck_problem(corpus, "x.cases.json", "/cases/3/expect/message_present", 5, "not a string");
    gt_corpus_free(corpus);
}
END_TEST

/* max_bytes: the syntax gate's size limit for one case, a positive integer. */
START_TEST(max_bytes_option)
{
    const char *text = "{\"format\": \"gauntlet-corpus/1\", \"defaults\": {\"gate\": \"syntax\", \"category\": \"c\"}, \"cases\": [\n"
                       " {\"id\": \"a\", \"max_bytes\": 1024, \"input\": \"1\", \"expect\": {\"verdict\": \"accept\"}},\n"
                       " {\"id\": \"b\", \"max_bytes\": 0, \"input\": \"1\", \"expect\": {\"verdict\": \"accept\"}},\n"
                       " {\"id\": \"c\", \"max_bytes\": 1.5, \"input\": \"1\", \"expect\": {\"verdict\": \"accept\"}},\n"
                       " {\"id\": \"d\", \"input\": \"1\", \"expect\": {\"verdict\": \"accept\"}}]}";
    gt_corpus *corpus = gt_corpus_new();
    ck_assert_int_eq(gt_corpus_load_text(corpus, "x.cases.json", text, strlen(text)), 2);
    ck_assert_uint_eq(find_case(corpus, "a")->input.max_bytes, 1024);
    ck_assert_uint_eq(find_case(corpus, "d")->input.max_bytes, 0);
    ck_problem(corpus, "x.cases.json", "/cases/1/max_bytes", 3, "integer from 1");
    ck_problem(corpus, "x.cases.json", "/cases/2/max_bytes", 4, "integer from 1");
    gt_corpus_free(corpus);
}
END_TEST

/* The bundled rule list loads and holds every seed rule id. */
START_TEST(bundled_rule_list)
{
    const char *text = "{\"format\": \"gauntlet-corpus/1\", \"cases\": [\n"
                       " {\"id\": \"a\", \"gate\": \"loop\", \"category\": \"c\", \"tier\": \"optional\", "
                       "\"rules\": [\"S0-01\", \"S0-32\", \"S2-30\", \"S4-19\", \"DC-05\", "
                       "\"ANTHROPIC-MESSAGES-pause_turn\"], \"expect\": {\"verdict\": \"accept\"}}]}";
    gt_corpus *corpus = gt_corpus_new();
    ck_assert_int_eq(gt_corpus_load_text(corpus, "corpus/loop/x.cases.json", text, strlen(text)), 1);
    ck_assert_uint_eq(gt_corpus_problem_count(corpus), 0);
    gt_corpus_free(corpus);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("corpus");
    TCase *loader = tcase_create("loader");
    tcase_add_test(loader, directory_good_cases_load_in_sorted_order);
    tcase_add_test(loader, broken_files_name_file_line_and_field);
    tcase_add_test(loader, broken_cases_are_skipped_with_a_problem);
    tcase_add_test(loader, duplicate_id_across_files_names_both);
    tcase_add_test(loader, defaults_schema_file_and_fields);
    tcase_add_test(loader, input_keeps_nul_and_exact_bytes);
    tcase_add_test(loader, expectation_rules);
    tcase_add_test(loader, file_level_problems_contribute_nothing);
    tcase_add_test(loader, unknown_top_level_field_is_a_problem_but_cases_load);
    tcase_add_test(loader, missing_path_and_loading_twice);
    tcase_add_test(loader, filters);
    tcase_add_test(loader, base64_is_strict);
    tcase_add_test(loader, tier_and_rules);
    tcase_add_test(loader, rule_list_problems);
    tcase_add_test(loader, bundled_rule_list);
    tcase_add_test(loader, output_at_and_trace_expectations);
    tcase_add_test(loader, message_present_expectation);
    tcase_add_test(loader, max_bytes_option);
    tcase_add_test(loader, source_is_normalized_and_checked);
    suite_add_tcase(suite, loader);
    return suite;
}

GT_TEST_MAIN()
