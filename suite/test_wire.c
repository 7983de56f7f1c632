/* test_wire.c — the wire layer rule by rule: every strict fallback reason
 * (seed 000), every transform rule and error (seed 004), every lint finding,
 * the limits, value rendering in both flavours, and the reference target. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gauntlet/runner/corpus.h"
#include "gauntlet/parse.h"
#include "gauntlet/runner/run.h"
#include "gauntlet/wire.h"
#include "gt_test.h"
#include "runner/cli/commands.h"
#include "runner/targets/reference_hooks.h"

static gt_arena *arena;

static void setup(void)
{
    arena = gt_arena_new();
}

static void teardown(void)
{
    gt_arena_free(arena);
}

static const gt_value *json(const char *text)
{
    gt_parse_options options;
    gt_parse_options_init(&options);
    options.allow_big_integers = true;
    options.max_depth = 100000;
    gt_parse_error error;
    const gt_value *value = gt_parse(arena, text, strlen(text), &options, &error);
    ck_assert_msg(value != NULL, "test JSON does not parse: %s: %s", error.message, text);
    return value;
}

/* ---- strict ---------------------------------------------------------------- */

/* Convert; return the compact output, or "code@location" on fallback. */
static char *strict_of(const char *schema)
{
    gt_value *out = NULL;
    gt_wire_problem problem;
    int status = gt_wire_strict(arena, json(schema), &out, &problem);
    ck_assert_int_ne(status, GT_WIRE_OUT_OF_MEMORY);
    if (status == GT_WIRE_OK)
        return gt_value_to_json(out, NULL);
    ck_assert_ptr_nonnull(problem.code);
    ck_assert_ptr_nonnull(gt_wire_strict_jzo_reason(problem.code));
    size_t len = strlen(problem.code) + strlen(problem.location) + 2;
    char *text = malloc(len);
    snprintf(text, len, "%s@%s", problem.code, problem.location);
    return text;
}

#define STRICT(schema, expected)                                                                                   \
    do {                                                                                                           \
        char *got_ = strict_of(schema);                                                                            \
        ck_assert_str_eq(got_, expected);                                                                          \
        free(got_);                                                                                                \
    } while (0)

START_TEST(test_strict_converts_and_normalises)
{
    /* Seed 000's running example: additionalProperties stays false. */
    STRICT("{\"type\":\"object\",\"properties\":{\"cause\":{\"type\":\"string\"},\"fixes\":{\"type\":\"array\","
           "\"items\":{\"type\":\"string\"}}},\"required\":[\"cause\",\"fixes\"],\"additionalProperties\":false}",
           "{\"type\":\"object\",\"required\":[\"cause\",\"fixes\"],\"properties\":{\"cause\":{\"type\":\"string\"},"
           "\"fixes\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}},\"additionalProperties\":false}");
    /* additionalProperties absent is emitted as false; $schema is dropped;
     * annotations come first. */
    STRICT("{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"type\":\"object\",\"properties\":{},"
           "\"title\":\"T\",\"description\":\"D\"}",
           "{\"description\":\"D\",\"title\":\"T\",\"type\":\"object\",\"properties\":{},"
           "\"additionalProperties\":false}");
    /* anyOf with its allowed companions; enum/const without a type; type arrays. */
    STRICT("{\"type\":\"object\",\"properties\":{\"a\":{\"$schema\":\"x\",\"description\":\"d\",\"anyOf\":[{\"type\":"
           "\"string\"},{\"type\":\"null\"}]},\"b\":{\"enum\":[\"x\",1,true,null]},\"c\":{\"const\":1.50},"
           "\"d\":{\"type\":[\"string\",\"null\"]}}}",
           "{\"type\":\"object\",\"properties\":{\"a\":{\"description\":\"d\",\"anyOf\":[{\"type\":\"string\"},{"
           "\"type\":\"null\"}]},\"b\":{\"enum\":[\"x\",1,true,null]},\"c\":{\"const\":1.50},\"d\":{\"type\":["
           "\"string\",\"null\"]}},\"additionalProperties\":false}");
}
END_TEST

START_TEST(test_strict_every_fallback_reason)
{
    static const struct {
        const char *schema, *expected;
    } cases[] = {
        {"true", "strict_not_object@"},
        {"{\"type\":\"object\",\"properties\":{\"a\":true}}", "strict_not_object@/properties/a"},
        {"{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\",\"minimum\":0}}}",
         "strict_unsupported_keyword@/properties/a/minimum"},
        {"{\"type\":\"object\",\"properties\":{},\"$defs\":{}}", "strict_unsupported_keyword@/$defs"},
        {"{\"type\":\"object\",\"properties\":{},\"description\":7}", "strict_annotation_not_string@/description"},
        {"{\"type\":\"object\",\"properties\":{},\"title\":null}", "strict_annotation_not_string@/title"},
        {"{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\",\"anyOf\":[{\"type\":\"string\"}]}}}",
         "strict_anyof_siblings@/properties/a/type"},
        {"{\"type\":\"object\",\"properties\":{\"a\":{\"anyOf\":[]}}}", "strict_anyof_invalid@/properties/a/anyOf"},
        {"{\"type\":\"object\",\"properties\":{\"a\":{\"anyOf\":{}}}}", "strict_anyof_invalid@/properties/a/anyOf"},
        {"{\"type\":\"object\",\"properties\":{\"a\":{\"const\":{\"k\":1}}}}",
         "strict_const_complex@/properties/a/const"},
        {"{\"type\":\"object\",\"properties\":{\"a\":{\"enum\":\"x\"}}}", "strict_enum_not_array@/properties/a/enum"},
        {"{\"type\":\"object\",\"properties\":{\"a\":{\"enum\":[]}}}", "strict_enum_empty@/properties/a/enum"},
        {"{\"type\":\"object\",\"properties\":{\"a\":{\"enum\":[\"x\",[1]]}}}",
         "strict_enum_complex@/properties/a/enum/1"},
        {"{\"type\":\"object\",\"properties\":{\"a\":{\"enum\":[1,\"1\",1.0]}}}",
         "strict_enum_duplicate@/properties/a/enum/2"},
        {"{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"text\"}}}", "strict_type_unknown@/properties/a/type"},
        {"{\"type\":\"object\",\"properties\":{\"a\":{\"type\":[\"string\",5]}}}",
         "strict_type_unknown@/properties/a/type/1"},
        {"{\"type\":\"object\",\"properties\":{\"a\":{\"type\":[]}}}", "strict_type_array_empty@/properties/a/type"},
        {"{\"type\":\"object\",\"properties\":{\"a\":{\"type\":[\"object\",\"null\"]}}}",
         "strict_type_array_composite@/properties/a/type/0"},
        {"{\"type\":\"object\",\"properties\":{\"a\":{\"type\":[\"string\",\"string\"]}}}",
         "strict_type_array_duplicate@/properties/a/type/1"},
        {"{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\",\"properties\":{}}}}",
         "strict_mismatched_keywords@/properties/a/properties"},
        {"{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\",\"items\":{\"type\":\"string\"}}}}",
         "strict_mismatched_keywords@/properties/a/items"},
        {"{\"properties\":{}}", "strict_mismatched_keywords@/properties"},
        {"{\"type\":\"object\"}", "strict_properties_missing@"},
        {"{\"type\":\"object\",\"properties\":[]}", "strict_properties_not_object@/properties"},
        {"{\"type\":\"object\",\"properties\":{},\"additionalProperties\":true}",
         "strict_additional_properties@/additionalProperties"},
        {"{\"type\":\"object\",\"properties\":{},\"additionalProperties\":{\"type\":\"string\"}}",
         "strict_additional_properties@/additionalProperties"},
        {"{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}},\"required\":\"a\"}",
         "strict_required_not_array@/required"},
        {"{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}},\"required\":[\"a\",1]}",
         "strict_required_not_string@/required/1"},
        {"{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}},\"required\":[\"a\",\"b\"]}",
         "strict_required_unknown@/required/1"},
        {"{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}},\"required\":[\"a\",\"a\"]}",
         "strict_required_duplicate@/required/1"},
        {"{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"array\"}}}", "strict_items_missing@/properties/x"},
        {"{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"array\",\"items\":[{\"type\":\"string\"}]}}}",
         "strict_tuple_items@/properties/x/items"},
        {"{\"type\":\"object\",\"properties\":{\"a\":{\"description\":\"anything\"}}}",
         "strict_missing_type@/properties/a"},
        {"{\"type\":\"string\"}", "strict_root_not_object@"},
        {"{\"anyOf\":[{\"type\":\"object\",\"properties\":{}}]}", "strict_root_not_object@"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        STRICT(cases[i].schema, cases[i].expected);
}
END_TEST

/* Nested objects `levels` deep (the root is level 1; the innermost level is a string). */
static char *nested_schema(size_t levels)
{
    size_t cap = levels * 64 + 64, used = 0;
    char *text = malloc(cap);
    for (size_t i = 1; i < levels; i++)
        used += (size_t)snprintf(text + used, cap - used, "{\"type\":\"object\",\"properties\":{\"a\":");
    used += (size_t)snprintf(text + used, cap - used, "{\"type\":\"string\"}");
    for (size_t i = 1; i < levels; i++)
        used += (size_t)snprintf(text + used, cap - used, "}}");
    return text;
}

START_TEST(test_strict_depth_limit_is_32)
{
    char *ok = nested_schema(32), *deep = nested_schema(33);
    char *got = strict_of(ok);
    ck_assert_msg(got[0] == '{', "32 levels must convert, got %s", got);
    free(got);
    got = strict_of(deep);
    char expected[600] = "strict_max_depth@";
    for (int i = 1; i < 33; i++)
        strcat(expected, "/properties/a");
    ck_assert_str_eq(got, expected);
    free(got);
    free(ok);
    free(deep);
}
END_TEST

/* A root object with `properties` string properties: 1 + properties nodes. */
static char *wide_schema(size_t properties)
{
    size_t cap = properties * 32 + 64, used = 0;
    char *text = malloc(cap);
    used += (size_t)snprintf(text, cap, "{\"type\":\"object\",\"properties\":{");
    for (size_t i = 0; i < properties; i++)
        used += (size_t)snprintf(text + used, cap - used, "%s\"p%zu\":{\"type\":\"string\"}", i ? "," : "", i);
    snprintf(text + used, cap - used, "}}");
    return text;
}

START_TEST(test_strict_node_limit_is_100000)
{
    char *ok = wide_schema(99999), *over = wide_schema(100000);
    char *got = strict_of(ok);
    ck_assert_msg(got[0] == '{', "100,000 nodes must convert");
    free(got);
    got = strict_of(over);
    ck_assert_str_eq(got, "strict_max_nodes@/properties/p99999");
    free(got);
    free(ok);
    free(over);
}
END_TEST

START_TEST(test_strict_jzo_reason_map)
{
    ck_assert_str_eq(gt_wire_strict_jzo_reason("strict_tuple_items"), "unsupported_items");
    ck_assert_str_eq(gt_wire_strict_jzo_reason("strict_items_missing"), "unsupported_items");
    ck_assert_str_eq(gt_wire_strict_jzo_reason("strict_root_not_object"), "root_not_object");
    ck_assert_str_eq(gt_wire_strict_jzo_reason("strict_max_nodes"), "max_nodes");
    ck_assert_ptr_null(gt_wire_strict_jzo_reason("nope"));
}
END_TEST

/* ---- transform ------------------------------------------------------------- */

static char *transform_of(const char *schema, gt_wire_flavor flavor)
{
    gt_value *out = NULL;
    gt_wire_problem problem;
    int status = gt_wire_transform(arena, json(schema), flavor, &out, &problem);
    ck_assert_int_ne(status, GT_WIRE_OUT_OF_MEMORY);
    if (status == GT_WIRE_OK)
        return gt_value_to_json(out, NULL);
    size_t len = strlen(problem.code) + strlen(problem.location) + 2;
    char *text = malloc(len);
    snprintf(text, len, "%s@%s", problem.code, problem.location);
    return text;
}

#define TRANSFORM_AS(flavor, schema, expected)                                                                     \
    do {                                                                                                           \
        char *got_ = transform_of(schema, flavor);                                                                 \
        ck_assert_str_eq(got_, expected);                                                                          \
        free(got_);                                                                                                \
    } while (0)
#define TRANSFORM(schema, expected) TRANSFORM_AS(GT_WIRE_FLAVOR_PYTHON, schema, expected)
#define TRANSFORM_TS(schema, expected) TRANSFORM_AS(GT_WIRE_FLAVOR_TYPESCRIPT, schema, expected)

START_TEST(test_transform_seed_004_person)
{
    /* Seed 004's Person model as pydantic emits it (minus titles). */
    TRANSFORM("{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\",\"maxLength\":40,\"minLength\":1},"
              "\"age\":{\"type\":\"integer\",\"maximum\":150,\"minimum\":0},\"tags\":{\"type\":\"array\",\"items\":{"
              "\"type\":\"string\"},\"minItems\":3}},\"required\":[\"name\",\"age\",\"tags\"]}",
              "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\",\"description\":\"{maxLength: 40, "
              "minLength: 1}\"},\"age\":{\"type\":\"integer\",\"description\":\"{maximum: 150, minimum: 0}\"},"
              "\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"description\":\"{minItems: 3}\"}},"
              "\"additionalProperties\":false,\"required\":[\"name\",\"age\",\"tags\"]}");
    /* Seed 004's second example: format color and multipleOf move, date stays,
     * additionalProperties true becomes false. */
    TRANSFORM("{\"type\":\"object\",\"properties\":{\"c\":{\"type\":\"string\",\"format\":\"color\"},\"d\":{\"type\":"
              "\"string\",\"format\":\"date\"},\"n\":{\"type\":\"number\",\"multipleOf\":0.5}},"
              "\"additionalProperties\":true}",
              "{\"type\":\"object\",\"properties\":{\"c\":{\"type\":\"string\",\"description\":\"{format: color}\"},"
              "\"d\":{\"type\":\"string\",\"format\":\"date\"},\"n\":{\"type\":\"number\",\"description\":\"{"
              "multipleOf: 0.5}\"}},\"additionalProperties\":false}");
    /* The SDK docstring example: the description is kept and extended. */
    TRANSFORM("{\"type\":\"integer\",\"minimum\":1,\"maximum\":10,\"description\":\"A number\"}",
              "{\"type\":\"integer\",\"description\":\"A number\\n\\n{minimum: 1, maximum: 10}\"}");
    /* pattern moves too (seed 004: even a simple one). */
    TRANSFORM("{\"type\":\"string\",\"pattern\":\"^\\\\d{3}$\"}",
              "{\"type\":\"string\",\"description\":\"{pattern: ^\\\\d{3}$}\"}");
    TRANSFORM_TS("{\"type\":\"string\",\"pattern\":\"^\\\\d{3}$\"}",
                 "{\"type\":\"string\",\"description\":\"{pattern: \\\"^\\\\\\\\d{3}$\\\"}\"}");
}
END_TEST

START_TEST(test_transform_rules)
{
    /* properties added when absent; required copied; enum, title kept. */
    TRANSFORM("{\"type\":\"object\",\"title\":\"T\",\"required\":[\"x\"]}",
              "{\"type\":\"object\",\"title\":\"T\",\"properties\":{},\"additionalProperties\":false,\"required\":["
              "\"x\"]}");
    TRANSFORM("{\"type\":\"string\",\"enum\":[\"a\",\"b\"],\"const\":\"a\"}",
              "{\"type\":\"string\",\"enum\":[\"a\",\"b\"],\"description\":\"{const: a}\"}");
    TRANSFORM_TS("{\"type\":\"string\",\"enum\":[\"a\",\"b\"],\"const\":\"a\"}",
                 "{\"type\":\"string\",\"enum\":[\"a\",\"b\"],\"description\":\"{const: \\\"a\\\"}\"}");
    /* oneOf becomes anyOf; precedence anyOf > oneOf > allOf > type; losers dropped. */
    TRANSFORM("{\"oneOf\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}",
              "{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}");
    TRANSFORM("{\"type\":\"string\",\"allOf\":[{\"type\":\"string\"}],\"oneOf\":[{\"type\":\"null\"}],\"anyOf\":[{"
              "\"type\":\"integer\"}]}",
              "{\"anyOf\":[{\"type\":\"integer\"}]}");
    TRANSFORM("{\"allOf\":[{\"type\":\"string\",\"maxLength\":3}]}",
              "{\"allOf\":[{\"type\":\"string\",\"description\":\"{maxLength: 3}\"}]}");
    /* A combinator beside "type": "object": gauntlet drops the type and keeps
     * properties as a leftover (the SDK would close the object: unsatisfiable). */
    TRANSFORM("{\"type\":\"object\",\"anyOf\":[{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}}}],"
              "\"required\":[\"a\"]}",
              "{\"anyOf\":[{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}},"
              "\"additionalProperties\":false}],\"description\":\"{required: ['a']}\"}");
    /* minItems 0/1 kept, others moved last (after the other leftovers). */
    TRANSFORM("{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"minItems\":1,\"maxItems\":5}",
              "{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"minItems\":1,\"description\":\"{maxItems: 5}\"}");
    TRANSFORM("{\"type\":\"array\",\"minItems\":3,\"maxItems\":5,\"uniqueItems\":true}",
              "{\"type\":\"array\",\"description\":\"{maxItems: 5, uniqueItems: True, minItems: 3}\"}");
    /* Unsupported formats move, the ten stay, format is last among leftovers. */
    TRANSFORM("{\"type\":\"string\",\"format\":\"binary\",\"maxLength\":9}",
              "{\"type\":\"string\",\"description\":\"{maxLength: 9, format: binary}\"}");
    TRANSFORM("{\"type\":\"string\",\"format\":\"uuid\"}", "{\"type\":\"string\",\"format\":\"uuid\"}");
    /* Type arrays: kept, with the branches of each member type applied. */
    TRANSFORM("{\"type\":[\"string\",\"null\"],\"format\":\"email\",\"maxLength\":5}",
              "{\"type\":[\"string\",\"null\"],\"format\":\"email\",\"description\":\"{maxLength: 5}\"}");
    TRANSFORM("{\"type\":[\"object\",\"null\"],\"properties\":{\"a\":{\"type\":\"integer\"}}}",
              "{\"type\":[\"object\",\"null\"],\"properties\":{\"a\":{\"type\":\"integer\"}},"
              "\"additionalProperties\":false}");
    /* $defs transformed and kept beside a root $ref; the $ref node's siblings go. */
    TRANSFORM("{\"$ref\":\"#/$defs/P\",\"description\":\"gone\",\"$defs\":{\"P\":{\"type\":\"object\","
              "\"properties\":{\"n\":{\"type\":\"integer\",\"minimum\":0}}}}}",
              "{\"$defs\":{\"P\":{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\",\"description\":\"{"
              "minimum: 0}\"}},\"additionalProperties\":false}},\"$ref\":\"#/$defs/P\"}");
    /* Complex enum values are unsupported by the API: the enum becomes a leftover. */
    TRANSFORM("{\"type\":\"object\",\"enum\":[{\"a\":1}]}",
              "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false,\"description\":\"{enum: [{'a': "
              "1}]}\"}");
    /* Everything else is a leftover, in source order. */
    TRANSFORM("{\"$schema\":\"s\",\"type\":\"integer\",\"default\":3,\"not\":{\"const\":4},\"exclusiveMinimum\":0}",
              "{\"type\":\"integer\",\"description\":\"{$schema: s, default: 3, not: {'const': 4}, "
              "exclusiveMinimum: 0}\"}");
}
END_TEST

/* include/gauntlet/wire.h: "python" / "typescript" -> flavor; -1 when unknown
 * (NULL included: `gauntlet transform --flavor` with no value relies on it). */
START_TEST(test_flavor_from_name)
{
    ck_assert_int_eq(gt_wire_flavor_from_name("python"), GT_WIRE_FLAVOR_PYTHON);
    ck_assert_int_eq(gt_wire_flavor_from_name("typescript"), GT_WIRE_FLAVOR_TYPESCRIPT);
    ck_assert_int_eq(gt_wire_flavor_from_name(NULL), -1);
    ck_assert_int_eq(gt_wire_flavor_from_name(""), -1);
    ck_assert_int_eq(gt_wire_flavor_from_name("Python"), -1);
}
END_TEST

START_TEST(test_transform_errors)
{
    TRANSFORM("{\"type\":\"object\",\"properties\":{\"a\":{\"description\":\"x\"}}}",
              "transform_missing_type@/properties/a");
    TRANSFORM("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"text\"}}}",
              "transform_unknown_type@/properties/a/type");
    TRANSFORM("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":[\"string\",\"text\"]}}}",
              "transform_unknown_type@/properties/a/type");
    TRANSFORM("{\"type\":\"object\",\"properties\":{\"a\":true}}", "transform_not_object@/properties/a");
    TRANSFORM("{\"type\":\"array\",\"items\":false}", "transform_not_object@/items");
    TRANSFORM("{\"type\":\"object\",\"properties\":[]}", "transform_bad_properties@/properties");
    TRANSFORM("{\"type\":\"string\",\"description\":5}", "transform_bad_description@/description");
    TRANSFORM("{\"type\":\"object\",\"properties\":{\"a\":{\"$ref\":\"#/definitions/x\"}},\"definitions\":5}",
              "transform_dangling_ref@/properties/a/$ref");
    TRANSFORM("{\"type\":\"object\",\"properties\":{\"a\":{\"$ref\":\"https://example.com/s.json\"}}}",
              "transform_external_ref@/properties/a/$ref");
    TRANSFORM("{\"type\":\"object\",\"properties\":{\"child\":{\"$ref\":\"#\"}}}",
              "transform_recursive_ref@/properties/child/$ref");
    TRANSFORM("{\"$defs\":{\"a\":{\"type\":\"string\"}},\"allOf\":[{\"$ref\":\"#/$defs/a\"}]}",
              "transform_allof_ref@/allOf/0/$ref");
    char *deep = malloc(600 * 16 + 32);
    size_t used = 0;
    for (int i = 0; i < 600; i++)
        used += (size_t)sprintf(deep + used, "{\"allOf\":[");
    used += (size_t)sprintf(deep + used, "{\"type\":\"null\"}");
    for (int i = 0; i < 600; i++)
        used += (size_t)sprintf(deep + used, "]}");
    char *got = transform_of(deep, GT_WIRE_FLAVOR_PYTHON);
    ck_assert_msg(strncmp(got, "transform_too_deep@/allOf/0/allOf/0", 35) == 0, "%.80s", got);
    free(got);
    free(deep);
}
END_TEST

static char *render(const char *value, gt_wire_flavor flavor)
{
    return gt_wire_render_value(json(value), flavor);
}

#define RENDERS(value, python, typescript)                                                                         \
    do {                                                                                                           \
        char *py_ = render(value, GT_WIRE_FLAVOR_PYTHON), *ts_ = render(value, GT_WIRE_FLAVOR_TYPESCRIPT);         \
        ck_assert_str_eq(py_, python);                                                                             \
        ck_assert_str_eq(ts_, typescript);                                                                         \
        free(py_);                                                                                                 \
        free(ts_);                                                                                                 \
    } while (0)

START_TEST(test_render_values_like_python_and_javascript)
{
    RENDERS("[\"x\",true,null]", "['x', True, None]", "[\"x\",true,null]");
    RENDERS("\"a\"", "a", "\"a\"");
    RENDERS("150", "150", "150");
    RENDERS("-0", "0", "0");
    RENDERS("100.0", "100.0", "100");
    RENDERS("0.5", "0.5", "0.5");
    RENDERS("1e2", "100.0", "100");
    RENDERS("1e-5", "1e-05", "0.00001");
    RENDERS("1e-7", "1e-07", "1e-7");
    RENDERS("0.0001", "0.0001", "0.0001");
    RENDERS("1e16", "1e+16", "10000000000000000");
    RENDERS("1e21", "1e+21", "1e+21");
    RENDERS("123456789012345678", "123456789012345678", "123456789012345680");
    RENDERS("1.5e300", "1.5e+300", "1.5e+300");
    RENDERS("-2.5", "-2.5", "-2.5");
    RENDERS("-0.0", "-0.0", "0");
    RENDERS("0.1", "0.1", "0.1");
    RENDERS("{\"a\":[1,{\"b\":false}]}", "{'a': [1, {'b': False}]}", "{\"a\":[1,{\"b\":false}]}");
    RENDERS("[]", "[]", "[]");
    RENDERS("{}", "{}", "{}");
    RENDERS("[\"it's\"]", "[\"it's\"]", "[\"it's\"]");
    RENDERS("[\"both ' and \\\"\"]", "['both \\' and \"']", "[\"both ' and \\\"\"]");
    RENDERS("[\"tab\\there\\n\\u0001\\u007f\\u00e9\\u00a0\\\\\"]", "['tab\\there\\n\\x01\\x7fé\\xa0\\\\']",
            "[\"tab\\there\\n\\u0001\x7fé\xc2\xa0\\\\\"]");
    RENDERS("[\"\\u2028\\ud83d\\ude00\"]", "['\\u2028\xf0\x9f\x98\x80']", "[\"\xe2\x80\xa8\xf0\x9f\x98\x80\"]");
}
END_TEST

/* ---- lint ----------------------------------------------------------------- */

/* Lint one or more schemas; return "code@location code@location ..." */
static char *lint_of(const char *const *texts, size_t count, gt_wire_provider provider, size_t strict_tools)
{
    const gt_value *schemas[8];
    for (size_t i = 0; i < count; i++)
        schemas[i] = json(texts[i]);
    gt_wire_lint_options options;
    gt_wire_lint_options_init(&options);
    options.provider = provider;
    options.strict_tools = strict_tools;
    gt_wire_findings findings = {0};
    int status = gt_wire_lint(schemas, count, &options, &findings);
    ck_assert_int_ge(status, 0);
    ck_assert_int_eq(status, findings.count > 0);
    size_t cap = 64, used = 0;
    for (size_t i = 0; i < findings.count; i++)
        cap += strlen(findings.items[i].code) + strlen(findings.items[i].location) + 8;
    char *text = malloc(cap);
    text[0] = '\0';
    for (size_t i = 0; i < findings.count; i++) {
        const gt_wire_finding *finding = &findings.items[i];
        if (finding->schema_index == GT_WIRE_REQUEST)
            used += (size_t)snprintf(text + used, cap - used, "%s%s", used ? " " : "", finding->code);
        else
            used += (size_t)snprintf(text + used, cap - used, "%s%s@%s", used ? " " : "", finding->code,
                                     finding->location);
    }
    gt_wire_findings_free(&findings);
    return text;
}

#define LINT(provider, schema, expected)                                                                          \
    do {                                                                                                           \
        const char *texts_[] = {schema};                                                                           \
        char *got_ = lint_of(texts_, 1, provider, 0);                                                              \
        ck_assert_str_eq(got_, expected);                                                                          \
        free(got_);                                                                                                \
    } while (0)
#define ANTHROPIC(schema, expected) LINT(GT_WIRE_PROVIDER_ANTHROPIC, schema, expected)
#define OPENAI(schema, expected) LINT(GT_WIRE_PROVIDER_OPENAI, schema, expected)

START_TEST(test_lint_anthropic_keywords)
{
    ANTHROPIC("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\",\"format\":\"date\"}},"
              "\"required\":[\"a\"],\"additionalProperties\":false}",
              "");
    ANTHROPIC("{\"type\":\"integer\",\"minimum\":0,\"exclusiveMaximum\":9,\"multipleOf\":2}",
              "anthropic_numeric_bound@/minimum anthropic_numeric_bound@/exclusiveMaximum "
              "anthropic_numeric_bound@/multipleOf");
    ANTHROPIC("{\"type\":\"string\",\"minLength\":1,\"maxLength\":2}",
              "anthropic_string_bound@/minLength anthropic_string_bound@/maxLength");
    ANTHROPIC("{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"minItems\":1,\"maxItems\":3,\"uniqueItems\":true}",
              "anthropic_array_constraint@/maxItems anthropic_array_constraint@/uniqueItems");
    ANTHROPIC("{\"type\":\"array\",\"minItems\":2,\"prefixItems\":[{\"type\":\"string\"}]}",
              "anthropic_array_constraint@/minItems anthropic_array_constraint@/prefixItems");
    ANTHROPIC("{\"type\":\"object\",\"additionalProperties\":true}", "anthropic_additional_properties@/additionalProperties");
    ANTHROPIC("{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\"}}",
              "anthropic_additional_properties@/additionalProperties");
    ANTHROPIC("{\"enum\":[\"a\",{\"b\":1}]}", "anthropic_complex_enum@/enum/1");
    ANTHROPIC("{\"type\":\"string\",\"format\":\"color\"}", "anthropic_unsupported_format@/format");
    ANTHROPIC("{\"oneOf\":[{\"type\":\"string\"}],\"not\":{\"type\":\"null\"},\"patternProperties\":{}}",
              "anthropic_unsupported_keyword@/oneOf anthropic_unsupported_keyword@/not "
              "anthropic_unsupported_keyword@/patternProperties");
    ANTHROPIC("{\"$defs\":{\"a\":{\"type\":\"string\"}},\"allOf\":[{\"$ref\":\"#/$defs/a\"}]}",
              "anthropic_allof_ref@/allOf/0/$ref");
}
END_TEST

START_TEST(test_lint_anthropic_references)
{
    ANTHROPIC("{\"type\":\"object\",\"properties\":{\"a\":{\"$ref\":\"other.json#/x\"}}}",
              "anthropic_external_ref@/properties/a/$ref");
    ANTHROPIC("{\"type\":\"object\",\"properties\":{\"a\":{\"$ref\":\"#/$defs/missing\"}}}",
              "anthropic_unresolved_ref@/properties/a/$ref");
    ANTHROPIC("{\"type\":\"object\",\"properties\":{\"next\":{\"$ref\":\"#\"}}}",
              "anthropic_recursive_schema@/properties/next/$ref");
    ANTHROPIC("{\"$defs\":{\"node\":{\"type\":\"object\",\"properties\":{\"kids\":{\"type\":\"array\",\"items\":{"
              "\"$ref\":\"#/$defs/node\"}}}}},\"$ref\":\"#/$defs/node\"}",
              "anthropic_recursive_schema@/$defs/node/properties/kids/items/$ref");
}
END_TEST

START_TEST(test_lint_anthropic_patterns)
{
    ANTHROPIC("{\"type\":\"string\",\"pattern\":\"^[a-z]{2,5}\\\\d+$\"}", "");
    ANTHROPIC("{\"type\":\"string\",\"pattern\":\"(a)\\\\1\"}", "anthropic_pattern_backreference@/pattern");
    ANTHROPIC("{\"type\":\"string\",\"pattern\":\"(?<n>a)\\\\k<n>\"}", "anthropic_pattern_backreference@/pattern");
    ANTHROPIC("{\"type\":\"string\",\"pattern\":\"^(?=a)\"}", "anthropic_pattern_lookaround@/pattern");
    ANTHROPIC("{\"type\":\"string\",\"pattern\":\"(?<!x)y\"}", "anthropic_pattern_lookaround@/pattern");
    ANTHROPIC("{\"type\":\"string\",\"pattern\":\"\\\\bword\\\\B\"}", "anthropic_pattern_word_boundary@/pattern");
    ANTHROPIC("{\"type\":\"string\",\"pattern\":\"[\\\\b]x\"}", ""); /* \b in a class is a backspace */
    ANTHROPIC("{\"type\":\"string\",\"pattern\":\"^a{1,101}$\"}", "anthropic_pattern_large_repetition@/pattern");
    ANTHROPIC("{\"type\":\"string\",\"pattern\":\"^a{100}$\"}", "");
    ANTHROPIC("{\"type\":\"string\",\"pattern\":\"^a{500,}$\"}", "anthropic_pattern_large_repetition@/pattern");
    ANTHROPIC("{\"type\":\"string\",\"pattern\":\"(\\\\d)(?!x)\\\\1\\\\b.{1000}\"}",
              "anthropic_pattern_backreference@/pattern anthropic_pattern_lookaround@/pattern "
              "anthropic_pattern_word_boundary@/pattern anthropic_pattern_large_repetition@/pattern");
}
END_TEST

/* `count` strict tool schemas with `optional` optional and `unions` anyOf params each. */
static char *tool_schema(int optional, int unions)
{
    char *text = malloc(4096);
    size_t used = (size_t)sprintf(text, "{\"type\":\"object\",\"properties\":{");
    for (int i = 0; i < optional; i++)
        used += (size_t)sprintf(text + used, "%s\"o%d\":{\"type\":\"string\"}", i ? "," : "", i);
    for (int i = 0; i < unions; i++)
        used += (size_t)sprintf(text + used, "%s\"u%d\":{\"type\":[\"string\",\"null\"]}", optional + i ? "," : "", i);
    used += (size_t)sprintf(text + used, "},\"required\":[");
    for (int i = 0; i < unions; i++)
        used += (size_t)sprintf(text + used, "%s\"u%d\"", i ? "," : "", i);
    sprintf(text + used, "],\"additionalProperties\":false}");
    return text;
}

START_TEST(test_lint_anthropic_budgets)
{
    char *six = tool_schema(6, 0), *seven = tool_schema(1, 0), *unions = tool_schema(0, 8);
    const char *four[] = {six, six, six, six};
    char *got = lint_of(four, 4, GT_WIRE_PROVIDER_ANTHROPIC, 0); /* 24 optional: at the limit */
    ck_assert_str_eq(got, "");
    free(got);
    const char *five[] = {six, six, six, six, seven};
    got = lint_of(five, 5, GT_WIRE_PROVIDER_ANTHROPIC, 0);
    ck_assert_str_eq(got, "anthropic_too_many_optional_params");
    free(got);
    const char *two[] = {unions, unions};
    got = lint_of(two, 2, GT_WIRE_PROVIDER_ANTHROPIC, 0); /* 16 union params: at the limit */
    ck_assert_str_eq(got, "");
    free(got);
    const char *three[] = {unions, unions, seven};
    got = lint_of(three, 3, GT_WIRE_PROVIDER_ANTHROPIC, 20);
    ck_assert_str_eq(got, "");
    free(got);
    const char *more[] = {unions, unions, "{\"type\":\"object\",\"properties\":{\"x\":{\"anyOf\":[{\"type\":"
                                          "\"string\"}]}},\"required\":[\"x\"],\"additionalProperties\":false}"};
    got = lint_of(more, 3, GT_WIRE_PROVIDER_ANTHROPIC, 21);
    ck_assert_str_eq(got, "anthropic_too_many_strict_tools anthropic_too_many_union_params");
    free(got);
    free(six);
    free(seven);
    free(unions);
}
END_TEST

START_TEST(test_lint_openai)
{
    OPENAI("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":[\"string\",\"null\"],\"minLength\":1}},"
           "\"required\":[\"a\"],\"additionalProperties\":false}",
           "");
    OPENAI("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"},\"b\":{\"type\":\"string\"}},"
           "\"required\":[\"a\"],\"additionalProperties\":false}",
           "openai_required_missing@/properties/b");
    OPENAI("{\"type\":\"object\",\"properties\":{}}", "openai_additional_properties@");
    OPENAI("{\"type\":\"object\",\"properties\":{},\"additionalProperties\":true}",
           "openai_additional_properties@/additionalProperties");
    OPENAI("{\"type\":\"string\"}", "openai_root_not_object@");
    OPENAI("{\"anyOf\":[{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}]}",
           "openai_root_anyof@/anyOf openai_root_not_object@");
    OPENAI("{\"type\":\"object\",\"properties\":{\"a\":{\"allOf\":[{\"type\":\"string\"}],\"not\":{\"type\":\"null\"}"
           "}},\"required\":[\"a\"],\"additionalProperties\":false,\"if\":{},\"then\":{},\"else\":{},"
           "\"dependentRequired\":{},\"patternProperties\":{}}",
           "openai_unsupported_keyword@/if openai_unsupported_keyword@/then openai_unsupported_keyword@/else "
           "openai_unsupported_keyword@/dependentRequired openai_unsupported_keyword@/patternProperties "
           "openai_unsupported_keyword@/properties/a/allOf openai_unsupported_keyword@/properties/a/not");
    OPENAI("{\"type\":\"object\",\"properties\":{\"u\":{\"type\":\"string\",\"format\":\"uri\"}},\"required\":[\"u\"],"
           "\"additionalProperties\":false}",
           "openai_unsupported_format@/properties/u/format");
    OPENAI("{\"type\":\"object\",\"properties\":{\"a\":{\"$ref\":\"x.json\"},\"b\":{\"$ref\":\"#/nope\"},\"c\":{"
           "\"$ref\":\"#\"}},\"required\":[\"a\",\"b\",\"c\"],\"additionalProperties\":false}",
           "openai_external_ref@/properties/a/$ref openai_unresolved_ref@/properties/b/$ref");
}
END_TEST

START_TEST(test_lint_openai_limits)
{
    /* 11 nested objects: one over the 10 levels. */
    char *deep = nested_schema(12); /* 11 object levels plus the string leaf */
    char *got;
    {
        const char *texts[] = {deep};
        got = lint_of(texts, 1, GT_WIRE_PROVIDER_OPENAI, 0);
        char expected[400] = "openai_too_deep@";
        for (int i = 0; i < 10; i++)
            strcat(expected, "/properties/a");
        strcat(expected, " ");
        ck_assert_msg(strstr(got, expected) != NULL, "%s", got);
        free(got);
    }
    free(deep);
    char *ten = nested_schema(11); /* exactly 10 object levels */
    {
        const char *texts[] = {ten};
        got = lint_of(texts, 1, GT_WIRE_PROVIDER_OPENAI, 0);
        ck_assert_ptr_null(strstr(got, "openai_too_deep"));
        free(got);
    }
    free(ten);
    /* 5,001 properties; 1,001 enum values; 120,001 characters; a large string enum. */
    char *wide = wide_schema(5001);
    {
        const char *texts[] = {wide};
        got = lint_of(texts, 1, GT_WIRE_PROVIDER_OPENAI, 0);
        ck_assert_ptr_nonnull(strstr(got, "openai_too_many_properties@"));
        free(got);
    }
    free(wide);
    char *big = malloc(200000);
    size_t used = (size_t)sprintf(big, "{\"type\":\"object\",\"properties\":{\"e\":{\"enum\":[");
    for (int i = 0; i < 1001; i++)
        used += (size_t)sprintf(big + used, "%s%d", i ? "," : "", i);
    sprintf(big + used, "]}},\"required\":[\"e\"],\"additionalProperties\":false}");
    {
        const char *texts[] = {big};
        got = lint_of(texts, 1, GT_WIRE_PROVIDER_OPENAI, 0);
        ck_assert_str_eq(got, "openai_too_many_enum_values@");
        free(got);
    }
    used = (size_t)sprintf(big, "{\"type\":\"object\",\"properties\":{\"e\":{\"enum\":[");
    for (int i = 0; i < 251; i++)
        used += (size_t)sprintf(big + used, "%s\"%060d\"", i ? "," : "", i);
    sprintf(big + used, "]}},\"required\":[\"e\"],\"additionalProperties\":false}");
    {
        const char *texts[] = {big};
        got = lint_of(texts, 1, GT_WIRE_PROVIDER_OPENAI, 0); /* 251 x 60 = 15,060 characters */
        ck_assert_str_eq(got, "openai_large_string_enum@/properties/e/enum");
        free(got);
    }
    used = (size_t)sprintf(big, "{\"type\":\"object\",\"properties\":{\"e\":{\"const\":\"");
    memset(big + used, 'x', 120000);
    used += 120000;
    sprintf(big + used, "\"}},\"required\":[\"e\"],\"additionalProperties\":false}");
    {
        const char *texts[] = {big};
        got = lint_of(texts, 1, GT_WIRE_PROVIDER_OPENAI, 0); /* 120,000 + "e" */
        ck_assert_str_eq(got, "openai_too_many_chars@");
        free(got);
    }
    free(big);
}
END_TEST

/* Seed 004: citations or a prefill together with output_config.format are
 * 400s; values a cached schema must not hold are findings at their place. */
START_TEST(test_lint_anthropic_request_features_and_cached_values)
{
    const gt_value *schema = json("{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}");
    gt_wire_lint_options options;
    gt_wire_lint_options_init(&options);
    options.citations = options.prefill = true;
    gt_wire_findings findings = {0};
    ck_assert_int_eq(gt_wire_lint(&schema, 1, &options, &findings), 0); /* strict tool only: fine */
    options.output_format = true;
    ck_assert_int_eq(gt_wire_lint(&schema, 1, &options, &findings), 1);
    ck_assert_uint_eq(findings.count, 2);
    ck_assert_str_eq(findings.items[0].code, "anthropic_citations_with_output_format");
    ck_assert_str_eq(findings.items[1].code, "anthropic_prefill_with_output_format");
    ck_assert(findings.items[1].schema_index == GT_WIRE_REQUEST);
    gt_wire_findings_free(&findings);

    ANTHROPIC("{\"type\":\"object\",\"properties\":{\"alice@example.com\":{\"type\":\"string\"},"
              "\"status\":{\"enum\":[\"ok\",\"123-45-6789\"]},\"key\":{\"const\":\"sk-ant-api03-abcdefghijklmnopqrstuv\"},"
              "\"card\":{\"type\":\"string\",\"pattern\":\"^4111 1111 1111 1111$\"}},\"additionalProperties\":false}",
              "anthropic_sensitive_value@/properties/alice@example.com "
              "anthropic_sensitive_value@/properties/status/enum/1 anthropic_sensitive_value@/properties/key/const "
              "anthropic_sensitive_value@/properties/card/pattern");
    /* near misses: a name about e-mail, a task- prefix, an invalid card, a date */
    ANTHROPIC("{\"type\":\"object\",\"properties\":{\"email\":{\"type\":\"string\",\"format\":\"email\"},"
              "\"task-management-and-escalation-queue\":{\"enum\":[\"4111 1111 1111 1112\",\"2026-12-31\","
              "\"user@localhost\"]}},\"additionalProperties\":false}",
              "");
    ck_assert_str_eq(gt_wire_sensitive_kind("AKIAIOSFODNN7EXAMPLE", 20), "a credential");
    const char *escaped = "jane\\.doe@clinic\\.org"; /* as written in a pattern */
    ck_assert_str_eq(gt_wire_sensitive_kind(escaped, strlen(escaped)), "an e-mail address");
    ck_assert_ptr_null(gt_wire_sensitive_kind("1234-56-78901", 13)); /* not ddd-dd-dddd */
    ck_assert_ptr_null(gt_wire_sensitive_kind(NULL, 0));
}
END_TEST

/* Seed 004: a grammar is cached per structure; a description does not count,
 * a property named "description" does. */
START_TEST(test_grammar_key)
{
    char a[17], b[17], c[17], d[17];
    ck_assert_int_eq(gt_wire_grammar_key(json("{\"type\":\"object\",\"description\":\"v1\",\"properties\":"
                                              "{\"x\":{\"type\":\"string\",\"description\":\"old\"}}}"), a), 0);
    ck_assert_int_eq(gt_wire_grammar_key(json("{\"type\":\"object\",\"description\":\"v2\",\"properties\":"
                                              "{\"x\":{\"type\":\"string\"}}}"), b), 0);
    ck_assert_int_eq(gt_wire_grammar_key(json("{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"integer\"}}}"),
                                         c), 0);
    ck_assert_int_eq(gt_wire_grammar_key(json("{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"string\"},"
                                              "\"description\":{\"type\":\"string\"}}}"), d), 0);
    ck_assert_uint_eq(strlen(a), 16);
    ck_assert_str_eq(a, b);
    ck_assert_str_ne(a, c);
    ck_assert_str_ne(a, d);
}
END_TEST

/* ---- reference target ------------------------------------------------------ */

static void check_case(const char *case_json, gt_observed *observed)
{
    gt_case_input input = {.id = "t", .gate = "wire", .case_json = case_json};
    char note[256] = "";
    memset(observed, 0, sizeof *observed);
    ck_assert_int_eq(gt_reference_check_wire(&input, observed, note, sizeof note), GT_CHECK_DONE);
}

START_TEST(test_reference_target)
{
    gt_observed observed;
    check_case("{\"id\":\"t\",\"gate\":\"wire\",\"wire\":{\"op\":\"strict\",\"schema\":{\"type\":\"object\","
               "\"properties\":{\"x\":{\"type\":\"array\",\"items\":[]}}}}}",
               &observed);
    ck_assert_int_eq(observed.verdict, GT_VERDICT_REJECT);
    ck_assert_str_eq(observed.gate, "wire");
    ck_assert_str_eq(observed.reason, "strict_tuple_items");
    ck_assert_int_eq(observed.error_count, 1);
    ck_assert_str_eq(observed.errors[0].path, "/properties/x/items");
    ck_assert_str_eq(observed.errors[0].keyword, "strict_tuple_items");
    gt_observed_clear(&observed);

    check_case("{\"wire\":{\"op\":\"transform\",\"flavor\":\"typescript\",\"schema\":{\"type\":\"integer\","
               "\"default\":[true]}}}",
               &observed);
    ck_assert_int_eq(observed.verdict, GT_VERDICT_ACCEPT);
    ck_assert_str_eq(observed.output_json, "{\"type\":\"integer\",\"description\":\"{default: [true]}\"}");
    gt_observed_clear(&observed);

    check_case("{\"wire\":{\"op\":\"lint\",\"provider\":\"openai\",\"schemas\":[{\"type\":\"object\",\"properties\":{},"
               "\"additionalProperties\":false},{\"type\":\"string\"}]}}",
               &observed);
    ck_assert_int_eq(observed.verdict, GT_VERDICT_REJECT);
    ck_assert_str_eq(observed.reason, "openai_root_not_object");
    ck_assert_int_eq(observed.error_count, 1);
    ck_assert_str_eq(observed.errors[0].path, "/1");
    gt_observed_clear(&observed);

    /* respond: transformed for the wire, validated against the original */
    const char *respond = "{\"wire\":{\"op\":\"respond\",\"schema\":{\"type\":\"object\",\"properties\":{\"age\":"
                          "{\"type\":\"integer\",\"maximum\":150}},\"required\":[\"age\"]}}}";
    gt_case_input responded = {.id = "t", .gate = "wire", .case_json = respond,
                               .raw = (const unsigned char *)"{\"age\":200}", .raw_len = 11};
    char respond_note[256] = "";
    memset(&observed, 0, sizeof observed);
    ck_assert_int_eq(gt_reference_check_wire(&responded, &observed, respond_note, sizeof respond_note), GT_CHECK_DONE);
    ck_assert_int_eq(observed.verdict, GT_VERDICT_REJECT);
    ck_assert_str_eq(observed.gate, "structure");
    ck_assert_str_eq(observed.reason, "maximum");
    ck_assert_ptr_nonnull(strstr(observed.output_json, "\"description\":\"{maximum: 150}\""));
    ck_assert_ptr_nonnull(strstr(observed.output_json, "\"value\":null"));
    gt_observed_clear(&observed);
    responded.raw = (const unsigned char *)"{\"age\":150}";
    ck_assert_int_eq(gt_reference_check_wire(&responded, &observed, respond_note, sizeof respond_note), GT_CHECK_DONE);
    ck_assert_int_eq(observed.verdict, GT_VERDICT_ACCEPT);
    ck_assert_ptr_nonnull(strstr(observed.output_json, "\"value\":{\"age\":150}"));
    gt_observed_clear(&observed);

    gt_case_input input = {.id = "t", .gate = "wire", .case_json = "{\"wire\":{\"op\":\"compile\"}}"};
    char note[256];
    memset(&observed, 0, sizeof observed);
    ck_assert_int_eq(gt_reference_check_wire(&input, &observed, note, sizeof note), GT_CHECK_ERROR);
    ck_assert_ptr_nonnull(strstr(note, "compile"));
    gt_observed_clear(&observed);
}
END_TEST

/* Every case of corpus/wire through the reference hook and the runner's
 * comparison, plus the exact output: expect.output, serialised compactly in
 * its own member order, must equal observed.output_json byte for byte. */
START_TEST(test_corpus_wire_cases_pass)
{
    gt_corpus *corpus = gt_corpus_new();
    ck_assert_int_gt(gt_corpus_load(corpus, GT_TEST_CORPUS "/wire"), 0);
    ck_assert_msg(gt_corpus_problem_count(corpus) == 0, "%s: %s", gt_corpus_problem(corpus, 0)->file,
                  gt_corpus_problem(corpus, 0)->message);
    size_t count = gt_corpus_count(corpus), outputs = 0;
    ck_assert_uint_ge(count, 60);
    for (size_t i = 0; i < count; i++) {
        const gt_case *kase = gt_corpus_case(corpus, i);
        gt_observed observed;
        memset(&observed, 0, sizeof observed);
        char note[512] = "", why[1024] = "";
        ck_assert_msg(gt_reference_check_wire(&kase->input, &observed, note, sizeof note) == GT_CHECK_DONE, "%s: %s",
                      kase->input.id, note);
        ck_assert_msg(gt_compare(&kase->expect, &observed, why, sizeof why) == GT_OUTCOME_PASS, "%s: %s",
                      kase->input.id, why);
        const gt_value *expect = json(kase->expect.expect_json);
        const gt_value *output = gt_value_get(expect, "output", 6);
        if (output != NULL) {
            char *wanted = gt_value_to_json(output, NULL);
            ck_assert_msg(observed.output_json != NULL && strcmp(wanted, observed.output_json) == 0,
                          "%s: output differs:\n  expected %.300s\n  observed %.300s", kase->input.id, wanted,
                          observed.output_json ? observed.output_json : "(none)");
            free(wanted);
            outputs++;
        }
        gt_observed_clear(&observed);
    }
    printf("corpus/wire: %zu cases pass against the reference, %zu with an exact expected output\n", count, outputs);
    gt_corpus_free(corpus);
}
END_TEST

/* ---- the commands ------------------------------------------------------ */

/* Run a wire command in process with stdout captured; return its exit code. */
static int run_command(int (*command)(int, char **), const char *const *args, char *out, size_t out_len)
{
    char *argv[8];
    int argc = 0;
    for (; args[argc] != NULL; argc++)
        argv[argc] = (char *)args[argc];
    argv[argc] = NULL;
    fflush(stdout);
    FILE *capture = tmpfile();
    ck_assert_ptr_nonnull(capture);
    int saved = dup(1);
    dup2(fileno(capture), 1);
    int status = command(argc, argv);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    rewind(capture);
    size_t got = fread(out, 1, out_len - 1, capture);
    out[got] = '\0';
    fclose(capture);
    return status;
}

static void write_file(const char *path, const char *text)
{
    FILE *file = fopen(path, "w");
    ck_assert_ptr_nonnull(file);
    fputs(text, file);
    fclose(file);
}

START_TEST(test_commands_contract)
{
    char out[4096], tuple[64], person[64], broken[64];
    snprintf(tuple, sizeof tuple, "/tmp/gt-wire-%ld-tuple.json", (long)getpid());
    snprintf(person, sizeof person, "/tmp/gt-wire-%ld-person.json", (long)getpid());
    snprintf(broken, sizeof broken, "/tmp/gt-wire-%ld-broken.json", (long)getpid());
    write_file(tuple, "{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"array\",\"items\":[]}}}");
    write_file(person, "{\"type\":\"object\",\"properties\":{\"age\":{\"type\":\"integer\",\"minimum\":0}},"
                       "\"required\":[\"age\"],\"additionalProperties\":false}");
    write_file(broken, "{\"type\":");

    ck_assert_int_eq(run_command(gt_cmd_strict, (const char *[]){"strict", tuple, NULL}, out, sizeof out), 1);
    ck_assert_str_eq(out, "fallback strict_tuple_items at /properties/x/items: items must be a single schema, not a "
                          "tuple\n");
    ck_assert_int_eq(run_command(gt_cmd_strict, (const char *[]){"strict", person, NULL}, out, sizeof out), 1);
    ck_assert_int_eq(run_command(gt_cmd_strict, (const char *[]){"strict", broken, NULL}, out, sizeof out), 2);
    ck_assert_int_eq(run_command(gt_cmd_strict, (const char *[]){"strict", "/nonexistent/gt-wire.json", NULL}, out,
                                 sizeof out),
                     2);
    ck_assert_int_eq(run_command(gt_cmd_strict, (const char *[]){"strict", "--bogus", tuple, NULL}, out, sizeof out),
                     2);
    ck_assert_int_eq(run_command(gt_cmd_strict, (const char *[]){"strict", "--help", NULL}, out, sizeof out), 0);
    ck_assert_ptr_nonnull(strstr(out, "usage: gauntlet strict"));

    ck_assert_int_eq(run_command(gt_cmd_transform, (const char *[]){"transform", person, NULL}, out, sizeof out), 0);
    ck_assert_str_eq(out, "{\"type\":\"object\",\"properties\":{\"age\":{\"type\":\"integer\",\"description\":"
                          "\"{minimum: 0}\"}},\"additionalProperties\":false,\"required\":[\"age\"]}\n");
    ck_assert_int_eq(run_command(gt_cmd_transform, (const char *[]){"transform", "--flavor", "typescript", person, NULL},
                                 out, sizeof out),
                     0);
    ck_assert_int_eq(run_command(gt_cmd_transform, (const char *[]){"transform", "--flavor", "ruby", person, NULL}, out,
                                 sizeof out),
                     2);
    write_file(tuple, "{\"type\":\"object\",\"properties\":{\"x\":{}}}");
    ck_assert_int_eq(run_command(gt_cmd_transform, (const char *[]){"transform", tuple, NULL}, out, sizeof out), 1);
    ck_assert_str_eq(out, "error transform_missing_type at /properties/x: schema must have a 'type', 'anyOf', "
                          "'oneOf', or 'allOf' field\n");

    ck_assert_int_eq(run_command(gt_cmd_lint, (const char *[]){"lint", person, NULL}, out, sizeof out), 1);
    ck_assert_ptr_nonnull(strstr(out, ": anthropic_numeric_bound at /properties/age/minimum: "));
    ck_assert_int_eq(run_command(gt_cmd_lint, (const char *[]){"lint", "--provider", "openai", person, NULL}, out,
                                 sizeof out),
                     0);
    ck_assert_str_eq(out, "");
    ck_assert_int_eq(run_command(gt_cmd_lint, (const char *[]){"lint", "--strict-tools", "21", "--provider", "openai",
                                                                person, NULL},
                                 out, sizeof out),
                     0);
    ck_assert_int_eq(run_command(gt_cmd_lint, (const char *[]){"lint", "--strict-tools", "21", person, NULL}, out,
                                 sizeof out),
                     1);
    ck_assert_ptr_nonnull(strstr(out, "request: anthropic_too_many_strict_tools: "));
    ck_assert_int_eq(run_command(gt_cmd_lint, (const char *[]){"lint", "--provider", "gemini", person, NULL}, out,
                                 sizeof out),
                     2);
    ck_assert_int_eq(run_command(gt_cmd_lint, (const char *[]){"lint", NULL}, out, sizeof out), 2);
    remove(tuple);
    remove(person);
    remove(broken);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("wire");
    TCase *strict = tcase_create("strict");
    tcase_add_checked_fixture(strict, setup, teardown);
    tcase_set_timeout(strict, 60);
    tcase_add_test(strict, test_strict_converts_and_normalises);
    tcase_add_test(strict, test_strict_every_fallback_reason);
    tcase_add_test(strict, test_strict_depth_limit_is_32);
    tcase_add_test(strict, test_strict_node_limit_is_100000);
    tcase_add_test(strict, test_strict_jzo_reason_map);
    suite_add_tcase(suite, strict);

    TCase *transform = tcase_create("transform");
    tcase_add_checked_fixture(transform, setup, teardown);
    tcase_add_test(transform, test_transform_seed_004_person);
    tcase_add_test(transform, test_transform_rules);
    tcase_add_test(transform, test_flavor_from_name);
    tcase_add_test(transform, test_transform_errors);
    tcase_add_test(transform, test_render_values_like_python_and_javascript);
    suite_add_tcase(suite, transform);

    TCase *lint = tcase_create("lint");
    tcase_add_checked_fixture(lint, setup, teardown);
    tcase_set_timeout(lint, 60);
    tcase_add_test(lint, test_lint_anthropic_keywords);
    tcase_add_test(lint, test_lint_anthropic_references);
    tcase_add_test(lint, test_lint_anthropic_patterns);
    tcase_add_test(lint, test_lint_anthropic_budgets);
    tcase_add_test(lint, test_lint_openai);
    tcase_add_test(lint, test_lint_openai_limits);
    tcase_add_test(lint, test_lint_anthropic_request_features_and_cached_values);
    tcase_add_test(lint, test_grammar_key);
    suite_add_tcase(suite, lint);

    TCase *target = tcase_create("target");
    tcase_add_checked_fixture(target, setup, teardown);
    tcase_set_timeout(target, 120);
    tcase_add_test(target, test_reference_target);
    tcase_add_test(target, test_corpus_wire_cases_pass);
    tcase_add_test(target, test_commands_contract);
    suite_add_tcase(suite, target);
    return suite;
}

GT_TEST_MAIN()
