/* test_parse.c — the syntax gate: every reason code, every limit, exactness. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gauntlet/parse.h"
#include "gt_test.h"
#include "reference/parse_impl.h"
#include "reference/swar.h"

static gt_arena *arena;

static void setup(void)
{
    arena = gt_arena_new();
}

static void teardown(void)
{
    gt_arena_free(arena);
}

/* Parse with default options; return the reason code ("ok" on success). */
static const char *reason_of_len(const char *text, size_t len, gt_parse_error *error)
{
    gt_value *value = gt_parse(arena, text, len, NULL, error);
    if (value != NULL) {
        ck_assert_int_eq(error->reason, GT_SYNTAX_OK);
        return "ok";
    }
    return gt_syntax_reason_code(error->reason);
}

static const char *reason_of(const char *text)
{
    gt_parse_error error;
    return reason_of_len(text, strlen(text), &error);
}

#define REJECTS(text, code) ck_assert_str_eq(reason_of(text), code)
#define ACCEPTS(text) ck_assert_str_eq(reason_of(text), "ok")

START_TEST(test_accepts_rfc8259_values)
{
    ACCEPTS("{}");
    ACCEPTS("[]");
    ACCEPTS("\"ok\"");
    ACCEPTS("0");
    ACCEPTS("-0");
    ACCEPTS("1E+2");
    ACCEPTS("-1.5e-3");
    ACCEPTS("true");
    ACCEPTS("false");
    ACCEPTS("null");
    ACCEPTS(" \n\t{\"a\" : [ 1 , 2 ] }\r\n ");
    ACCEPTS("{\"s\":\"```json\\n{}\\n```\"}");
    ACCEPTS("{\"html\":\"<script>alert(1)</script>\"}");
    ACCEPTS("[\"\\u00e9\\ud83d\\ude00\\/\\b\\f\\n\\r\\t\\\"\\\\\"]");
    ACCEPTS("{\"a\":1,\"A\":2}");
    ACCEPTS("[\"\xe2\x80\xa8\"]"); /* raw U+2028 is legal JSON */
    ACCEPTS("9007199254740992");
    ACCEPTS("-9007199254740992");
}
END_TEST

START_TEST(test_fences_and_prose)
{
    REJECTS("```json\n{\"a\":1}\n```", "markdown_fence");
    REJECTS("```\n{}\n```", "markdown_fence");
    REJECTS("Sure! Here it is:\n```json\n{\"a\":1}\n```", "markdown_fence");
    REJECTS("{\"a\":1}\n```", "markdown_fence");
    REJECTS("Here is the JSON: {\"a\":1}", "leading_text");
    REJECTS("json\n{\"a\":1}", "leading_text");
    REJECTS("{\"a\":1}\nLet me know if you need anything else!", "trailing_text");
    REJECTS("{\"a\":1}.", "trailing_text");
    REJECTS("{\"a\":1}\n{\"a\":2}", "multiple_values");
    REJECTS("{\"a\":1},{\"a\":2}", "multiple_values");
    REJECTS("[1] [2]", "multiple_values");
    REJECTS("\"a\" \"b\"", "multiple_values");
    REJECTS("{\"a\":1} // done", "comment");
}
END_TEST

START_TEST(test_empty_and_bom)
{
    REJECTS("", "empty_input");
    REJECTS(" \n\t\r ", "empty_input");
    REJECTS("\xef\xbb\xbf{}", "bom");
    gt_parse_error error;
    ck_assert_ptr_null(gt_parse(arena, NULL, 0, NULL, &error));
    ck_assert_int_eq(error.reason, GT_SYNTAX_EMPTY_INPUT);
}
END_TEST

START_TEST(test_duplicate_keys)
{
    REJECTS("{\"a\":1,\"a\":2}", "duplicate_key");
    REJECTS("{\"a\":1,\"\\u0061\":2}", "duplicate_key");
    REJECTS("{\"x\":{\"b\":1,\"b\":1}}", "duplicate_key");
    /* four to sixteen names: a (length, first byte) filter first, names compared only where it clashes */
    REJECTS("{\"a\":1,\"b\":2,\"c\":3,\"a\":4}", "duplicate_key");
    REJECTS("{\"id\":1,\"idx\":2,\"name\":3,\"note\":4,\"nose\":5,\"note\":6}", "duplicate_key");
    ACCEPTS("{\"ab\":1,\"ac\":2,\"x\":3,\"y\":4}");
    ACCEPTS("{\"note\":1,\"nose\":2,\"node\":3,\"none\":4,\"\":5}");
    REJECTS("{\"\":1,\"a\":2,\"b\":3,\"\":4}", "duplicate_key");
    /* a large object takes the hashed path */
    char text[4096];
    size_t o = 0;
    o += (size_t)snprintf(text + o, sizeof text - o, "{");
    for (int i = 0; i < 100; i++)
        o += (size_t)snprintf(text + o, sizeof text - o, "\"k%d\":%d,", i, i);
    o += (size_t)snprintf(text + o, sizeof text - o, "\"k42\":0}");
    gt_parse_error error;
    ck_assert_str_eq(reason_of_len(text, o, &error), "duplicate_key");
    ck_assert_ptr_nonnull(strstr(error.message, "\"k42\""));
    text[o - 6] = 'x'; /* "k42" -> "kx2": now unique */
    ck_assert_str_eq(reason_of_len(text, o, &error), "ok");
}
END_TEST

START_TEST(test_encoding)
{
    REJECTS("[\"\x80\"]", "invalid_utf8");
    REJECTS("[\"\xc0\xaf\"]", "invalid_utf8");         /* overlong '/' */
    REJECTS("[\"\xe0\x80\xaf\"]", "invalid_utf8");     /* overlong 3-byte */
    REJECTS("[\"\xed\xa0\x80\"]", "invalid_utf8");     /* encoded surrogate (CESU-8) */
    REJECTS("[\"\xf5\x80\x80\x80\"]", "invalid_utf8"); /* beyond U+10FFFF */
    REJECTS("[\"\xf4\x90\x80\x80\"]", "invalid_utf8");
    REJECTS("[\"\xc3(\"]", "invalid_utf8");
    REJECTS("{\"a\":1}\xff", "invalid_utf8");
    REJECTS("[\"\\ud800\"]", "lone_surrogate");
    REJECTS("[\"\\udc00\"]", "lone_surrogate");
    REJECTS("[\"\\ud800\\u0041\"]", "lone_surrogate");
    ACCEPTS("[\"\\u0000\"]"); /* RFC 8259; the reject_nul policy is test_nul_policy */
    REJECTS("[\"a\x01\"]", "control_character");
    REJECTS("[\"a\nb\"]", "control_character");
    REJECTS("[\"a\tb\"]", "control_character");
    ACCEPTS("[\"a\x7f\"]");
}
END_TEST

START_TEST(test_escapes)
{
    REJECTS("[\"\\x41\"]", "bad_escape");
    REJECTS("[\"\\'\"]", "bad_escape");
    REJECTS("[\"\\a\"]", "bad_escape");
    REJECTS("[\"\\u12G4\"]", "bad_escape");
    REJECTS("[\"\\u12\"]", "bad_escape");
}
END_TEST

START_TEST(test_lenient_syntax)
{
    REJECTS("// comment\n{}", "comment");
    REJECTS("{\"a\":1 /* why */}", "comment");
    REJECTS("[1, /* x */ 2]", "comment");
    REJECTS("{\"a\":1,}", "trailing_comma");
    REJECTS("[1,2,]", "trailing_comma");
    REJECTS("[1,2,\n]", "trailing_comma");
    REJECTS("{'a': 1}", "single_quotes");
    REJECTS("{\"a\": 'b'}", "single_quotes");
    REJECTS("['x']", "single_quotes");
    REJECTS("{a: 1}", "unquoted_key");
    REJECTS("{\"a\":1, b: 2}", "unquoted_key");
    REJECTS("{\"a\": True}", "bad_literal");
    REJECTS("{\"a\": None}", "bad_literal");
    REJECTS("[undefined]", "bad_literal");
    REJECTS("[nul]", "bad_literal");
    REJECTS("True", "bad_literal");
    REJECTS("[1 2]", "unexpected_character");
    REJECTS("{\"a\" 1}", "unexpected_character");
    REJECTS("{\"a\":1;}", "unexpected_character");
    REJECTS("[,1]", "unexpected_character");
    REJECTS("{\"a\":\xe2\x80\x9c" "b\xe2\x80\x9d}", "unexpected_character");
}
END_TEST

START_TEST(test_numbers)
{
    REJECTS("[NaN]", "non_finite_number");
    REJECTS("[Infinity]", "non_finite_number");
    REJECTS("[-Infinity]", "non_finite_number");
    REJECTS("NaN", "non_finite_number");
    REJECTS("[01]", "leading_zero");
    REJECTS("[-01]", "leading_zero");
    REJECTS("[00]", "leading_zero");
    REJECTS("[1.]", "bad_number");
    REJECTS("[.5]", "bad_number");
    REJECTS("[+1]", "bad_number");
    REJECTS("[1e]", "bad_number");
    REJECTS("[1e+]", "bad_number");
    REJECTS("[-]", "bad_number");
    REJECTS("[0x1F]", "bad_number");
    REJECTS("[1.5.2]", "bad_number");
    REJECTS("[1e999]", "number_overflow");
    REJECTS("[-1e400]", "number_overflow");
    REJECTS("[9007199254740993]", "number_precision");
    REJECTS("[-9007199254740993]", "number_precision");
    REJECTS("[12345678901234567890]", "number_precision");
    REJECTS("[1e-400]", "number_precision");
    ACCEPTS("[0e-400]");
    ACCEPTS("[1e300]");
}
END_TEST

/* The interoperable range does not depend on spelling (issue 12): up to
 * 2^53-1 everything; beyond it what a double reproduces as written. */
START_TEST(test_number_range_any_spelling)
{
    const char *beyond[] = {"9007199254740993", "9007199254740993.0", "90071992547409930e-1", "9.007199254740993e15",
                            "-9007199254740993.00", "9007199254740991.5", "18446744073709551616", "1.00000000000000001e300"};
    for (size_t i = 0; i < sizeof beyond / sizeof *beyond; i++)
        ck_assert_msg(strcmp(reason_of(beyond[i]), "number_precision") == 0, "%s: %s", beyond[i], reason_of(beyond[i]));
    const char *inside[] = {"9007199254740991",  "-9007199254740991", "9007199254740991.0", "90071992547409910e-1",
                            "9007199254740990.5", "9007199254740992",  "9.007199254740992e15", "1E22",
                            "123e45",             "1e300",             "0.1000000000000000000001"};
    for (size_t i = 0; i < sizeof inside / sizeof *inside; i++)
        ck_assert_msg(strcmp(reason_of(inside[i]), "ok") == 0, "%s: %s", inside[i], reason_of(inside[i]));
    /* kept exactly on request, flagged beyond the safe range */
    gt_parse_options options;
    gt_parse_options_init(&options);
    options.allow_big_integers = true;
    gt_parse_error error;
    const gt_value *big = gt_parse(arena, "90071992547409930e-1", 20, &options, &error);
    ck_assert_ptr_nonnull(big);
    ck_assert(big->flags & GT_NUM_BIG);
    ck_assert(gt_value_is_integer(big));
    const gt_value *safe = gt_parse(arena, "9007199254740991", 16, NULL, &error);
    ck_assert(!(safe->flags & GT_NUM_BIG));
    /* 2^53 itself (16 digits, read by the decimal fast path) is beyond the safe range too */
    const gt_value *edge = gt_parse(arena, "9007199254740992", 16, NULL, &error);
    ck_assert_ptr_nonnull(edge);
    ck_assert(edge->flags & GT_NUM_BIG);
    /* JSONTestSuite y_number_* files */
    const char *y_numbers[] = {"[123e65]", "[0e+1]", "[0e1]", "[ 4]", "[-0.000000000000000000000000000000000000000000000000000000000000000000000000000001]",
                               "[20e1]", "[-0]", "[-123]", "[-1]", "[-0]", "[1E22]", "[1E-2]", "[1E+2]", "[123e45]",
                               "[123.456e78]", "[1e-2]", "[1e+2]", "[123]", "[123.456789]"};
    for (size_t i = 0; i < sizeof y_numbers / sizeof *y_numbers; i++)
        ck_assert_msg(strcmp(reason_of(y_numbers[i]), "ok") == 0, "%s: %s", y_numbers[i], reason_of(y_numbers[i]));
}
END_TEST

/* \u0000 is JSON: kept exactly by default, rejected (nul_character) only under
 * the reject_nul policy. The JSONTestSuite y_ files that hold a NUL, a control
 * escape or a noncharacter are accepted. */
START_TEST(test_nul_policy)
{
    const char *y_files[] = {
        "[\"\\u0000\"]",                 /* y_string_null_escape */
        "{\"foo\\u0000bar\": 42}",       /* y_object_escaped_null_in_key */
        "[\"\\\\u0000\"]",               /* y_string_backslash_and_u_escaped_zero (no NUL) */
        "[\"\\u0012\"]",                 /* y_string_escaped_control_character */
        "[\"\\uFFFF\"]",                 /* y_string_escaped_noncharacter */
        "[\"\xef\xbf\xbf\"]",           /* y_string_nonCharacterInUTF-8_U+FFFF */
        "[\"\xf4\x8f\xbf\xbf\"]",       /* y_string_nonCharacterInUTF-8_U+10FFFF */
        "[\"\\uFDD0\"]",                 /* y_string_unicode_U+FDD0_nonchar */
        "[\"\\uFFFE\"]",                 /* y_string_unicode_U+FFFE_nonchar */
        "[\"\\uDBFF\\uDFFE\"]",          /* y_string_unicode_U+10FFFE_nonchar */
        "[\"\\uD83F\\uDFFE\"]",          /* y_string_unicode_U+1FFFE_nonchar */
    };
    for (size_t i = 0; i < sizeof y_files / sizeof *y_files; i++)
        ck_assert_msg(strcmp(reason_of(y_files[i]), "ok") == 0, "%s: %s", y_files[i], reason_of(y_files[i]));
    gt_parse_error error;
    const gt_value *key = gt_parse(arena, y_files[1], strlen(y_files[1]), NULL, &error);
    ck_assert_uint_eq(key->u.obj.members[0].key_len, 7);
    ck_assert(memcmp(key->u.obj.members[0].key, "foo\0bar", 7) == 0);
    gt_parse_options options;
    gt_parse_options_init(&options);
    options.reject_nul = true;
    ck_assert_ptr_null(gt_parse(arena, y_files[1], strlen(y_files[1]), &options, &error));
    ck_assert_str_eq(gt_syntax_reason_code(error.reason), "nul_character");
    ck_assert_uint_eq(error.column, 6);
    ck_assert_ptr_nonnull(gt_parse(arena, y_files[2], strlen(y_files[2]), &options, &error));
    /* a raw NUL byte is still a control character, whatever the policy */
    ck_assert_str_eq(reason_of_len("[\"a\0b\"]", 7, &error), "control_character");
}
END_TEST

START_TEST(test_truncation)
{
    REJECTS("{\"category\": \"bil", "unexpected_end");
    REJECTS("[1, 2", "unexpected_end");
    REJECTS("{\"a\":", "unexpected_end");
    REJECTS("{\"a\"", "unexpected_end");
    REJECTS("{", "unexpected_end");
    REJECTS("[1, 2,", "unexpected_end");
    REJECTS("tru", "unexpected_end");
    REJECTS("[-", "unexpected_end");
    REJECTS("[1.", "unexpected_end");
    REJECTS("[\"\\u00", "unexpected_end");
    REJECTS("[\"\\", "unexpected_end");
    REJECTS("[\"\xe2\x80", "unexpected_end");
    REJECTS("[\"\\ud83d", "unexpected_end");
}
END_TEST

START_TEST(test_limits)
{
    char deep[1200];
    gt_parse_options options;
    gt_parse_options_init(&options);
    ck_assert_uint_eq(options.max_depth, GT_PARSE_DEFAULT_MAX_DEPTH);
    ck_assert_uint_eq(options.max_bytes, GT_PARSE_DEFAULT_MAX_BYTES);
    size_t depth = GT_PARSE_DEFAULT_MAX_DEPTH;
    memset(deep, '[', depth);
    memset(deep + depth, ']', depth);
    gt_parse_error error;
    ck_assert_ptr_nonnull(gt_parse(arena, deep, depth * 2, NULL, &error));
    deep[depth] = '[';
    memset(deep + depth + 1, ']', depth + 1);
    ck_assert_ptr_null(gt_parse(arena, deep, depth * 2 + 2, NULL, &error));
    ck_assert_int_eq(error.reason, GT_SYNTAX_TOO_DEEP);
    ck_assert_uint_eq(error.column, depth + 1);

    options.max_depth = 2;
    ck_assert_ptr_nonnull(gt_parse(arena, "[[1]]", 5, &options, &error));
    ck_assert_ptr_null(gt_parse(arena, "[[[1]]]", 7, &options, &error));
    ck_assert_int_eq(error.reason, GT_SYNTAX_TOO_DEEP);
    /* the parser is iterative: a large limit with deep input does not crash */
    options.max_depth = 100000;
    size_t huge = 200000;
    char *bombs = malloc(huge);
    memset(bombs, '[', huge / 2);
    memset(bombs + huge / 2, ']', huge / 2);
    ck_assert_ptr_nonnull(gt_parse(arena, bombs, huge, &options, &error));
    free(bombs);

    gt_parse_options_init(&options);
    options.max_bytes = 8;
    ck_assert_ptr_nonnull(gt_parse(arena, "[1,2,3]", 7, &options, &error));
    ck_assert_ptr_null(gt_parse(arena, "[1,2,3,4]", 9, &options, &error));
    ck_assert_int_eq(error.reason, GT_SYNTAX_TOO_LARGE);
    ck_assert_ptr_nonnull(strstr(error.message, "9 bytes"));
}
END_TEST

/* gt_utf8_valid judges exactly `len` bytes: the byte after them (another
 * sequence's lead, a stray continuation byte, 0xFF) never counts, whether or
 * not a NUL follows. gt_json_write_string checks prefixes of a longer text
 * this way when it replaces ill-formed bytes. C API only: the corpus passes
 * NUL-terminated texts (scripts/mutation-equivalent.txt lists the mutant). */
START_TEST(test_utf8_valid_reads_len_bytes)
{
    ck_assert(gt_utf8_valid("a\xff", 1));
    ck_assert(gt_utf8_valid("\xc3\xa9\xc3", 2));
    ck_assert(gt_utf8_valid("ok\x80", 2));
    ck_assert(gt_utf8_valid("", 0));
    ck_assert(!gt_utf8_valid("a\xff", 2));
    ck_assert(!gt_utf8_valid("\xc3\xa9\xc3", 3));
}
END_TEST

START_TEST(test_positions_and_excerpt)
{
    gt_parse_error error;
    const char *text = "{\n  \"a\": 1,\n  \"b\": [1, 2,]\n}";
    ck_assert_ptr_null(gt_parse(arena, text, strlen(text), NULL, &error));
    ck_assert_int_eq(error.reason, GT_SYNTAX_TRAILING_COMMA);
    ck_assert_uint_eq(error.line, 3);
    ck_assert_uint_eq(error.column, 13);
    ck_assert_uint_eq(error.offset, 24);
    ck_assert_ptr_nonnull(strstr(error.excerpt, "\\n"));
    /* columns count code points, not bytes */
    text = "[\"\xc3\xa9\xc3\xa9\", 01]";
    ck_assert_ptr_null(gt_parse(arena, text, strlen(text), NULL, &error));
    ck_assert_uint_eq(error.column, 8);
    /* invisible bytes are shown escaped */
    text = "{\"a\":1}\xc2\xa0x";
    ck_assert_ptr_null(gt_parse(arena, text, strlen(text), NULL, &error));
    ck_assert_ptr_nonnull(strstr(error.excerpt, "\\u00a0"));
    /* each escape of the excerpt (the C API's only reader: no target or report carries it), and visible
       characters of 2 to 4 bytes kept as they are; U+200A is visible, U+200B and U+200C are not */
    text = "\r\t[\"\x7f\xc3\xa9\xe2\x82\xac\", x \"\xf0\x9f\x98\x80\xe2\x80\x8b\xe2\x80\x8a\xe2\x80\x8c\"]";
    ck_assert_ptr_null(gt_parse(arena, text, strlen(text), NULL, &error));
    ck_assert_uint_eq(error.offset, 13);
    ck_assert_str_eq(error.excerpt, "\\r\\t[\"\\x7f\xc3\xa9\xe2\x82\xac\", x \"\xf0\x9f\x98\x80\\u200b\xe2\x80\x8a\\u200c\"]");
}
END_TEST

START_TEST(test_exact_values)
{
    gt_parse_error error;
    gt_parse_options options;
    gt_parse_options_init(&options);
    options.allow_big_integers = true;
    const char *text = "{\"s\":\"a\\u0000b\",\"n\":123456789012345678901234567890,\"d\":0.1,\"i\":4.0}";
    gt_value *root = gt_parse(arena, text, strlen(text), &options, &error);
    ck_assert_ptr_nonnull(root);
    const gt_value *s = gt_value_get(root, "s", 1);
    ck_assert_uint_eq(s->u.str.len, 3);
    ck_assert_int_eq(s->u.str.chars[1], '\0');
    const gt_value *n = gt_value_get(root, "n", 1);
    ck_assert(n->flags & GT_NUM_BIG);
    ck_assert_str_eq(n->u.num.text, "123456789012345678901234567890");
    ck_assert(gt_value_is_integer(n));
    ck_assert(gt_value_is_integer(gt_value_get(root, "i", 1)));
    ck_assert(!gt_value_is_integer(gt_value_get(root, "d", 1)));
    char *json = gt_value_to_json(root, NULL);
    ck_assert_str_eq(json, "{\"s\":\"a\\u0000b\",\"n\":123456789012345678901234567890,\"d\":0.1,\"i\":4.0}");
    free(json);
    /* escapes decode and re-encode minimally */
    text = "[\"\\u00e9\\ud83d\\ude00\\/\\u2028<\"]";
    root = gt_parse(arena, text, strlen(text), NULL, &error);
    ck_assert_ptr_nonnull(root);
    ck_assert_str_eq(root->u.arr.items[0]->u.str.chars, "\xc3\xa9\xf0\x9f\x98\x80/\xe2\x80\xa8<");
    json = gt_value_to_json(root, NULL);
    ck_assert_str_eq(json, "[\"\xc3\xa9\xf0\x9f\x98\x80/\\u2028<\"]");
    free(json);
}
END_TEST

START_TEST(test_equality)
{
    gt_parse_error error;
    const char *a_text = "{\"x\":[1,{\"y\":null}],\"z\":1.0}";
    const char *b_text = "{\"z\":1,\"x\":[1.0,{\"y\":null}]}";
    gt_value *a = gt_parse(arena, a_text, strlen(a_text), NULL, &error);
    gt_value *b = gt_parse(arena, b_text, strlen(b_text), NULL, &error);
    ck_assert(gt_value_equal(a, b));
    gt_value *c = gt_parse(arena, "{\"z\":1,\"x\":[1,{\"y\":false}]}", 27, NULL, &error);
    ck_assert_ptr_nonnull(c);
    ck_assert(!gt_value_equal(a, c));
    ck_assert(!gt_value_equal(gt_parse(arena, "1", 1, NULL, &error), gt_parse(arena, "true", 4, NULL, &error)));
    ck_assert(!gt_value_equal(gt_parse(arena, "[1]", 3, NULL, &error), gt_parse(arena, "[1,1]", 5, NULL, &error)));
}
END_TEST

START_TEST(test_reason_codes_round_trip)
{
    for (int i = 1; i < GT_SYNTAX_REASON_COUNT; i++) {
        const char *code = gt_syntax_reason_code((gt_syntax_reason)i);
        ck_assert_int_eq(gt_syntax_reason_from_code(code), i);
    }
    ck_assert_int_eq(gt_syntax_reason_from_code("no_such_reason"), -1);
    ck_assert_str_eq(gt_syntax_reason_code((gt_syntax_reason)999), "unknown");
}
END_TEST

START_TEST(test_builders_and_arena)
{
    gt_value *object = gt_value_new_object(arena);
    gt_value *array = gt_value_new_array(arena);
    for (int i = 0; i < 40; i++)
        ck_assert_int_eq(gt_value_array_append(arena, array, gt_value_new_number(arena, i * 0.5)), 0);
    ck_assert_int_eq(gt_value_object_append(arena, object, "list", 4, array), 0);
    ck_assert_int_eq(gt_value_object_append(arena, object, "ok", 2, gt_value_new_bool(arena, true)), 0);
    ck_assert_int_eq(gt_value_object_append(arena, object, "none", 4, gt_value_new_null(arena)), 0);
    ck_assert_int_eq(gt_value_object_append(arena, object, "s", 1, gt_value_new_string(arena, "q\"", 2)), 0);
    char *json = gt_value_to_json(object, NULL);
    ck_assert_ptr_nonnull(strstr(json, "[0,0.5,1,1.5,"));
    ck_assert_ptr_nonnull(strstr(json, "\"ok\":true,\"none\":null,\"s\":\"q\\\"\""));
    free(json);
    ck_assert(gt_value_is_integer(array->u.arr.items[2]));
    ck_assert_str_eq(gt_type_name(GT_TRUE), "boolean");
    ck_assert(gt_arena_used(arena) > 0);
    gt_arena_reset(arena);
    ck_assert_uint_eq(gt_arena_used(arena), 0);
    void *big = gt_arena_alloc(arena, 10u * 1024u * 1024u);
    ck_assert_ptr_nonnull(big);
    memset(big, 1, 10u * 1024u * 1024u);
}
END_TEST

/* A reset keeps the largest block: the second round of a loop over documents
 * of the same size allocates nothing new (its pieces are contiguous in one
 * block) once warm. Before, only the first 64 KiB block was kept and every
 * round allocated fresh blocks again. */
START_TEST(test_arena_reset_keeps_the_largest_block)
{
    gt_arena *own = gt_arena_new();
    ck_assert_ptr_nonnull(own);
    enum { pieces = 900, piece = 1024 };
    for (int round = 0; round < 4; round++) {
        char *first = gt_arena_alloc(own, piece), *prev = first;
        ck_assert_ptr_nonnull(first);
        int contiguous = 1;
        for (int i = 1; i < pieces; i++) {
            char *p = gt_arena_alloc(own, piece);
            ck_assert_ptr_nonnull(p);
            contiguous &= p == prev + piece;
            prev = p;
        }
        if (round > 1) /* round 1 may still outgrow the block round 0 ended in */
            ck_assert_msg(contiguous, "round %d of %d KiB came from more than one block", round, pieces);
        gt_arena_reset(own);
        ck_assert_uint_eq(gt_arena_used(own), 0);
    }
    gt_arena_free(own);
}
END_TEST

/* RFC 8259 mode (protocol framing): every JSON text the RFC allows is read;
 * only depth and size are limited. */
/* Decimal literals take a fast path (at most 19 digits, |exponent| <= 22)
 * that must give strtod's correctly rounded double, sign of zero included. */
START_TEST(test_fast_decimals_match_strtod)
{
    static const char *const fixed[] = {"0.1", "-0.0", "0.0", "1.5e-3", "9007199254740991.0", "0.3e22",
                                        "1234567890123456789e-22", "1234567890123456789e-5", "4.35",
                                        "1e22", "1e23", "8.98846567431158e307", "2.2250738585072014e-308",
                                        "0.30000000000000004", "-123.456e+7", "5e-324", "17.7", "1.005"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        gt_parse_error error;
        gt_value *v = gt_parse(arena, fixed[i], strlen(fixed[i]), NULL, &error);
        ck_assert_msg(v != NULL, "%s: %s", fixed[i], error.message);
        double want = strtod(fixed[i], NULL);
        ck_assert_msg(memcmp(&v->u.num.number, &want, sizeof want) == 0, "%s: %.17g, strtod %.17g", fixed[i],
                      v->u.num.number, want);
    }
    unsigned seed = 12345;
    for (int i = 0; i < 20000; i++) {
        char text[64];
        seed = seed * 1103515245u + 12345u;
        unsigned long long digits = ((unsigned long long)seed << 32 | (seed * 2654435761u)) % 100000000000000000ull;
        int point = (int)(seed >> 7) % 18, exponent = (int)((seed >> 13) % 61) - 30;
        int n = snprintf(text, sizeof text, "%s%llu", (seed & 1) ? "-" : "", digits);
        if (point > 0 && point < n - 1 && text[n - point - 1] != '-') { /* insert a point */
            memmove(text + n - point + 1, text + n - point, (size_t)point + 1);
            text[n - point] = '.';
            n++;
        }
        if ((seed >> 20) & 1)
            snprintf(text + n, sizeof text - (size_t)n, "e%d", exponent);
        gt_parse_error error;
        gt_value *v = gt_parse(arena, text, strlen(text), NULL, &error);
        if (v == NULL) /* a leading zero or a number beyond 2^53 written inexactly: not this test's concern */
            continue;
        double want = strtod(text, NULL);
        ck_assert_msg(memcmp(&v->u.num.number, &want, sizeof want) == 0, "%s: %.17g, strtod %.17g", text,
                      v->u.num.number, want);
        gt_arena_reset(arena);
    }
}
END_TEST

/* Strings are scanned a word (8 bytes) at a time: a stop byte (control
 * character, invalid UTF-8, quote, escape) at any offset inside or across a
 * word is found at its exact column. */
START_TEST(test_word_scan_finds_every_offset)
{
    for (size_t at = 0; at < 24; at++) {
        char text[64] = "[\"";
        memset(text + 2, 'a', 30);
        memcpy(text + 32, "\"]", 3);
        gt_parse_error error;
        text[2 + at] = '\n';
        ck_assert_str_eq(reason_of_len(text, strlen(text), &error), "control_character");
        ck_assert_uint_eq(error.column, 3 + at);
        text[2 + at] = (char)0xff;
        ck_assert_str_eq(reason_of_len(text, strlen(text), &error), "invalid_utf8");
        ck_assert_uint_eq(error.column, 3 + at);
        text[2 + at] = '"'; /* the string ends early: the rest is not JSON */
        ck_assert_str_eq(reason_of_len(text, strlen(text), &error), "unexpected_character");
        memcpy(text + 2 + at, "\\n", 2); /* an escape at every offset decodes */
        gt_value *v = gt_parse(arena, text, strlen(text), NULL, &error);
        ck_assert_ptr_nonnull(v);
        ck_assert_uint_eq(v->u.arr.items[0]->u.str.len, 29);
        ck_assert_int_eq(v->u.arr.items[0]->u.str.chars[at], '\n');
        memcpy(text + 2 + at, "\xc3\xa9", 2); /* two-byte UTF-8 at every offset */
        v = gt_parse(arena, text, strlen(text), NULL, &error);
        ck_assert_ptr_nonnull(v);
        ck_assert_int_eq(memcmp(v->u.arr.items[0]->u.str.chars + at, "\xc3\xa9", 2), 0);
        gt_arena_reset(arena);
    }
}
END_TEST

/* gt_swar_same (member names, duplicate checks) compares overlapping words:
 * every length from 0 to 40, a difference at every position is seen; and
 * gt_swar_copy copies exactly the bytes asked for. */
START_TEST(test_word_compare_sees_every_byte)
{
    char a[48], b[48];
    for (size_t n = 0; n <= 40; n++) {
        for (size_t i = 0; i < n; i++)
            a[i] = b[i] = (char)('a' + (i * 7) % 26);
        ck_assert(gt_swar_same(a, b, n));
        char copy[48] = {0};
        gt_swar_copy(copy, a, n); /* the short-string copy moves exactly n bytes */
        ck_assert(gt_swar_same(copy, a, n));
        ck_assert_int_eq(copy[n], 0);
        for (size_t at = 0; at < n; at++) {
            b[at] ^= 0x20;
            ck_assert_msg(!gt_swar_same(a, b, n), "length %zu, difference at %zu", n, at);
            b[at] ^= 0x20;
        }
    }
}
END_TEST

/* The parser's scratch stacks start in the arena and move to the heap past a
 * few kilobytes: wide and deep documents keep every item, member and level. */
START_TEST(test_scratch_stacks_grow_past_the_arena)
{
    enum { WIDE = 12000, DEEP = 900 }; /* items and members past PARSE_ARENA_STACK (64 KiB) */
    size_t cap = WIDE * 24 + DEEP * 8 + 64, len = 0;
    char *text = malloc(cap);
    len += (size_t)snprintf(text + len, cap - len, "{\"items\":[");
    for (int i = 0; i < WIDE; i++)
        len += (size_t)snprintf(text + len, cap - len, "%s%d", i ? "," : "", i);
    len += (size_t)snprintf(text + len, cap - len, "],\"deep\":");
    for (int i = 0; i < DEEP; i++)
        text[len++] = '[';
    text[len++] = '7';
    for (int i = 0; i < DEEP; i++)
        text[len++] = ']';
    for (int i = 0; i < WIDE / 4; i++)
        len += (size_t)snprintf(text + len, cap - len, ",\"k%d\":%d", i, i);
    text[len++] = '}';
    gt_parse_options options;
    gt_parse_options_init(&options);
    options.max_depth = DEEP + 2;
    gt_parse_error error;
    gt_value *v = gt_parse(arena, text, len, &options, &error);
    ck_assert_msg(v != NULL, "%s", error.message);
    ck_assert_uint_eq(v->u.obj.count, 2 + WIDE / 4);
    const gt_value *items = v->u.obj.members[0].value;
    ck_assert_uint_eq(items->u.arr.count, WIDE);
    for (int i = 0; i < WIDE; i++)
        ck_assert_double_eq(items->u.arr.items[i]->u.num.number, i);
    const gt_value *deep = v->u.obj.members[1].value;
    for (int i = 0; i < DEEP; i++) {
        ck_assert_int_eq(deep->type, GT_ARRAY);
        ck_assert_uint_eq(deep->u.arr.count, 1);
        deep = deep->u.arr.items[0];
    }
    ck_assert_double_eq(deep->u.num.number, 7);
    for (int i = 0; i < WIDE / 4; i++) {
        char key[16];
        snprintf(key, sizeof key, "k%d", i);
        ck_assert_str_eq(v->u.obj.members[2 + i].key, key);
        ck_assert_double_eq(v->u.obj.members[2 + i].value->u.num.number, i);
    }
    free(text);
}
END_TEST

START_TEST(test_rfc8259_mode)
{
    gt_parse_error error;
    gt_parse_options options;
    gt_parse_options_init(&options);
    options.rfc8259 = true;
    /* what Python's json.dumps writes for "a\0b" and lone surrogates */
    const char *text = "{\"s\":\"a\\u0000b\",\"hi\":\"x\\ud800y\",\"lo\":\"\\udc00\",\"end\":\"\\ud83d\","
                       "\"pair\":\"\\ud83d\\ude00\",\"big\":123456789012345678901234567890,\"huge\":1e999,"
                       "\"neg\":-1e999,\"tiny\":1e-999,\"k\":1,\"k\":2}";
    gt_value *root = gt_parse(arena, text, strlen(text), &options, &error);
    ck_assert_msg(root != NULL, "%s", gt_syntax_reason_code(error.reason));
    const gt_value *s = gt_value_get(root, "s", 1);
    ck_assert_uint_eq(s->u.str.len, 3);
    ck_assert_int_eq(s->u.str.chars[1], '\0');
    ck_assert_str_eq(gt_value_get(root, "hi", 2)->u.str.chars, "x\xef\xbf\xbdy");
    ck_assert_str_eq(gt_value_get(root, "lo", 2)->u.str.chars, "\xef\xbf\xbd");
    ck_assert_str_eq(gt_value_get(root, "end", 3)->u.str.chars, "\xef\xbf\xbd");
    ck_assert_str_eq(gt_value_get(root, "pair", 4)->u.str.chars, "\xf0\x9f\x98\x80");
    ck_assert(gt_value_get(root, "big", 3)->flags & GT_NUM_BIG);
    const gt_value *huge = gt_value_get(root, "huge", 4);
    ck_assert(huge->flags & GT_NUM_BIG);
    ck_assert(isfinite(huge->u.num.number) && huge->u.num.number > 1e308);
    ck_assert(gt_value_get(root, "neg", 3)->u.num.number < -1e308);
    ck_assert_str_eq(gt_value_get(root, "tiny", 4)->u.num.text, "1e-999");
    /* the last of a repeated name wins, in the first one's place */
    ck_assert_uint_eq(root->u.obj.count, 10);
    ck_assert_str_eq(root->u.obj.members[9].key, "k");
    ck_assert_double_eq(gt_value_get(root, "k", 1)->u.num.number, 2);
    char *json = gt_value_to_json(root, NULL);
    ck_assert_ptr_nonnull(strstr(json, "\"huge\":1e999,\"neg\":-1e999,\"tiny\":1e-999,\"k\":2}"));
    free(json);
    /* many members (the hashed path) with repeats */
    char many[2048] = "{";
    for (int i = 0; i < 40; i++)
        snprintf(many + strlen(many), sizeof many - strlen(many), "%s\"m%d\":%d", i ? "," : "", i % 20, i);
    strcat(many, "}");
    root = gt_parse(arena, many, strlen(many), &options, &error);
    ck_assert_ptr_nonnull(root);
    ck_assert_uint_eq(root->u.obj.count, 20);
    ck_assert_double_eq(gt_value_get(root, "m3", 2)->u.num.number, 23);
    /* still not JSON: the mode is RFC 8259, not lenient */
    const char *not_json[] = {"{\"a\":1,}", "[NaN]", "\xef\xbb\xbf{}", "{'a':1}", "[01]", "[\"\xc0\xaf\"]", "{} {}",
                              "[\"a\nb\"]"};
    for (size_t i = 0; i < sizeof not_json / sizeof *not_json; i++)
        ck_assert_msg(gt_parse(arena, not_json[i], strlen(not_json[i]), &options, &error) == NULL, "%s", not_json[i]);
    /* depth and size stay limited */
    options.max_depth = 3;
    ck_assert_ptr_null(gt_parse(arena, "[[[[1]]]]", 9, &options, &error));
    ck_assert_str_eq(gt_syntax_reason_code(error.reason), "too_deep");
    options.max_bytes = 4;
    ck_assert_ptr_null(gt_parse(arena, "[1,2]", 5, &options, &error));
    ck_assert_str_eq(gt_syntax_reason_code(error.reason), "too_large");
    /* and the default mode still rejects each of them */
    REJECTS("[\"\\ud800\"]", "lone_surrogate");
    REJECTS("[1e999]", "number_overflow");
    REJECTS("[1e-999]", "number_precision");
    REJECTS("{\"k\":1,\"k\":2}", "duplicate_key");
}
END_TEST

/* ---- the SIMD scans against the portable ones --------------------------
 *
 * gt_parse scans strings and whitespace 16 bytes at a time on x86-64 (and
 * copies plain strings straight into the arena block while it scans); the
 * portable scans are what every other machine runs. gt_parse_with_scan
 * (reference/parse_impl.h) picks either on any machine, so these tests parse
 * every input both ways and require the same tree and the same error. Each
 * input is copied into an allocation of exactly its length: a load past the
 * end is an AddressSanitizer error under `make sanitize`. */

static void assert_same_value(const gt_value *a, const gt_value *b, const char *what)
{
    ck_assert_msg(a->type == b->type && a->flags == b->flags && a->offset == b->offset, "%s: value at %zu differs",
                  what, a->offset);
    switch (a->type) {
    case GT_NUMBER:
        ck_assert_msg(memcmp(&a->u.num.number, &b->u.num.number, sizeof(double)) == 0 &&
                          a->u.num.text_len == b->u.num.text_len &&
                          memcmp(a->u.num.text, b->u.num.text, a->u.num.text_len + 1) == 0,
                      "%s: number at %zu differs", what, a->offset);
        break;
    case GT_STRING:
        ck_assert_msg(a->u.str.len == b->u.str.len && memcmp(a->u.str.chars, b->u.str.chars, a->u.str.len + 1) == 0,
                      "%s: string at %zu differs", what, a->offset);
        break;
    case GT_ARRAY:
        ck_assert_msg(a->u.arr.count == b->u.arr.count, "%s: array at %zu differs", what, a->offset);
        for (size_t i = 0; i < a->u.arr.count; i++)
            assert_same_value(a->u.arr.items[i], b->u.arr.items[i], what);
        break;
    case GT_OBJECT:
        ck_assert_msg(a->u.obj.count == b->u.obj.count, "%s: object at %zu differs", what, a->offset);
        for (size_t i = 0; i < a->u.obj.count; i++) {
            const gt_member *x = &a->u.obj.members[i], *y = &b->u.obj.members[i];
            ck_assert_msg(x->key_len == y->key_len && x->key_offset == y->key_offset &&
                              memcmp(x->key, y->key, x->key_len + 1) == 0,
                          "%s: member name at %zu differs", what, x->key_offset);
            assert_same_value(x->value, y->value, what);
        }
        break;
    default:
        break;
    }
}

/* Parse `len` bytes both ways, each into an arena that first had `filler`
 * bytes taken from it (0: none), and require the same outcome. Returns the
 * reason, for tests that also want a particular verdict. */
static gt_syntax_reason assert_scans_agree_filled(const char *text, size_t len, const gt_parse_options *options,
                                                  size_t filler, const char *what)
{
    char *exact = malloc(len > 0 ? len : 1);
    ck_assert_ptr_nonnull(exact);
    if (len > 0)
        memcpy(exact, text, len);
    gt_arena *portable_arena = gt_arena_new(), *simd_arena = gt_arena_new();
    if (filler > 0) {
        ck_assert_ptr_nonnull(gt_arena_alloc(portable_arena, filler));
        ck_assert_ptr_nonnull(gt_arena_alloc(simd_arena, filler));
    }
    gt_parse_error portable_error, simd_error;
    gt_value *portable =
        gt_parse_with_scan(portable_arena, exact, len, options, &portable_error, GT_PARSE_SCAN_PORTABLE);
    gt_value *simd = gt_parse_with_scan(simd_arena, exact, len, options, &simd_error, GT_PARSE_SCAN_SIMD);
    ck_assert_msg((portable == NULL) == (simd == NULL) && portable_error.reason == simd_error.reason &&
                      portable_error.offset == simd_error.offset && portable_error.line == simd_error.line &&
                      portable_error.column == simd_error.column,
                  "%s (%zu bytes): portable %s at %zu (%u:%u), SIMD %s at %zu (%u:%u)", what, len,
                  gt_syntax_reason_code(portable_error.reason), portable_error.offset, portable_error.line,
                  portable_error.column, gt_syntax_reason_code(simd_error.reason), simd_error.offset, simd_error.line,
                  simd_error.column);
    ck_assert_str_eq(portable_error.message, simd_error.message);
    ck_assert_str_eq(portable_error.excerpt, simd_error.excerpt);
    if (portable != NULL)
        assert_same_value(portable, simd, what);
    gt_arena_free(portable_arena);
    gt_arena_free(simd_arena);
    free(exact);
    return simd_error.reason;
}

static gt_syntax_reason assert_scans_agree(const char *text, size_t len, const char *what)
{
    return assert_scans_agree_filled(text, len, NULL, 0, what);
}

/* Bytes that end a plain run inside a string, or look like they might. */
static const char *const string_stops[] = {
    "\"", "\\", "\\n", "\\u00e9", "\\ud83d\\ude00", "\\ud800", "\\x", "\x01", "\x1f", "\n", "\x7f", " ",
    "\x80", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xff",
    "\xe2\x82", "\xf0\x9f\x98",
};

/* A quote, backslash, control or high byte at every offset 0..64 of a
 * string (a value, a member name, the whole document), across the 16-byte
 * blocks and the end of the input: both scans stop at the same byte, and an
 * input cut anywhere around the stop is the same truncation both ways. */
START_TEST(test_scans_agree_at_every_string_offset)
{
    static const char *const shapes[][2] = {{"[\"", "\"]"}, {"{\"", "\":1}"}, {"\"", "\""}, {"{\"k\": \"", "\"}"}};
    char text[256], what[96];
    size_t n_stops = sizeof string_stops / sizeof string_stops[0], n_shapes = sizeof shapes / sizeof shapes[0];
    for (size_t s = 0; s < n_shapes; s++)
        for (size_t stop = 0; stop < n_stops; stop++)
            for (size_t at = 0; at <= 64; at++) {
                size_t len = (size_t)snprintf(text, sizeof text, "%s%.*s%s%.*s%s", shapes[s][0], (int)at,
                                              "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:/+",
                                              string_stops[stop], (int)(at % 19),
                                              "0123456789abcdefghijklmn", shapes[s][1]);
                snprintf(what, sizeof what, "shape %zu, stop %zu at offset %zu", s, stop, at);
                assert_scans_agree(text, len, what);
                /* cut inside the string, around the stop and at its end */
                size_t open_len = strlen(shapes[s][0]);
                for (size_t cut = open_len + (at > 2 ? at - 2 : 0); cut < len; cut++)
                    if (cut <= open_len + at + 5 || cut + 3 >= len)
                        assert_scans_agree(text, cut, what);
            }
}
END_TEST

/* A long string cut at every length (every position of the 16-byte blocks
 * against the end of the input), plain and with a stop byte near the end. */
START_TEST(test_scans_agree_when_the_input_ends_inside_a_string)
{
    char text[200], what[64];
    size_t len = (size_t)snprintf(text, sizeof text, "{\"name\": \"");
    for (; len < 150; len++)
        text[len] = (char)('a' + len % 26);
    memcpy(text + len, "\"}", 2);
    len += 2;
    for (size_t cut = 0; cut <= len; cut++) {
        snprintf(what, sizeof what, "cut at %zu", cut);
        gt_syntax_reason reason = assert_scans_agree(text, cut, what);
        ck_assert_int_eq(reason, cut == len ? GT_SYNTAX_OK : cut == 0 ? GT_SYNTAX_EMPTY_INPUT : GT_SYNTAX_UNEXPECTED_END);
    }
    for (size_t at = 100; at < 150; at++) {
        char copy[200];
        memcpy(copy, text, len);
        copy[at] = (char)0xe2; /* a three-byte sequence begun and cut at every point */
        for (size_t cut = at; cut < at + 4 && cut <= len; cut++) {
            snprintf(what, sizeof what, "high byte at %zu, cut at %zu", at, cut);
            assert_scans_agree(copy, cut, what);
        }
    }
}
END_TEST

/* Runs of whitespace of every length up to 40 (as pretty-printed documents
 * indent), with a byte that is not JSON whitespace (\v, \f, a letter, a high
 * byte) at every position of the run, and runs the input ends in. */
START_TEST(test_scans_agree_on_whitespace_runs)
{
    static const char *const frames[][2] = {{"[1,", "2]"}, {"{\"a\":", "1}"}, {"", "{}"}, {"{\"a\":[]", "}"}};
    static const char intruders[] = {'\v', '\f', 'x', (char)0xa0, '\0'};
    char run[48], text[128], what[96];
    for (size_t f = 0; f < sizeof frames / sizeof frames[0]; f++)
        for (size_t n = 0; n <= 40; n++) {
            for (size_t i = 0; i < n; i++)
                run[i] = " \n\t\r  \n    "[(i * 5 + n) % 11];
            size_t len = (size_t)snprintf(text, sizeof text, "%s%.*s%s", frames[f][0], (int)n, run, frames[f][1]);
            snprintf(what, sizeof what, "frame %zu, run of %zu", f, n);
            ck_assert_int_eq(assert_scans_agree(text, len, what), GT_SYNTAX_OK);
            assert_scans_agree(text, strlen(frames[f][0]) + n, what); /* ends inside the run */
            for (size_t at = 0; at < n; at++)
                for (size_t k = 0; k < sizeof intruders; k++) {
                    char copy[128];
                    memcpy(copy, text, len);
                    copy[strlen(frames[f][0]) + at] = intruders[k];
                    snprintf(what, sizeof what, "frame %zu, run of %zu, byte %zu at %zu", f, n, k, at);
                    ck_assert_int_ne(assert_scans_agree(copy, len, what), GT_SYNTAX_OK);
                }
        }
}
END_TEST

/* The SIMD path copies a string straight into the free part of the arena
 * block while it scans: with every amount of room left in the block (none,
 * a few bytes, exactly the string, plenty), strings of every length up to 100
 * are the same values as the portable path's. */
START_TEST(test_scans_agree_near_the_end_of_an_arena_block)
{
    enum { BLOCK = 64 * 1024 }; /* the arena's first block (ARENA_BLOCK_MIN) */
    char text[160], what[64];
    for (size_t room = 0; room <= 256; room += 16)
        for (size_t n = 0; n <= 100; n += 3) {
            size_t len = (size_t)snprintf(text, sizeof text, "[\"%.*s\",1]", (int)n,
                                          "The quick brown fox jumps over the lazy dog; pack my box with five dozen "
                                          "liquor jugs. Sphinx of black quartz, judge my vow!");
            snprintf(what, sizeof what, "room %zu, string of %zu", room, n);
            ck_assert_int_eq(assert_scans_agree_filled(text, len, NULL, BLOCK - room, what), GT_SYNTAX_OK);
        }
}
END_TEST

/* Generated and mutated documents (a PRNG with a fixed seed): insertions of
 * stop bytes, escapes and structure, deletions, replacements, cuts, under
 * the default, RFC 8259, reject_nul and tight-limit options. */
START_TEST(test_scans_agree_on_mutated_documents)
{
    static const char *const bases[] = {
        "{\"category\": \"billing\", \"priority\": 3, \"summary\": \"Customer reports a duplicate charge on the "
        "March invoice \\u2014 twice\", \"needs_human\": false, \"evidence_ids\": [\"invoice-412\", \"message-12\"], "
        "\"confidence\": 0.87, \"refund_amount\": 123.45, \"tags\": []}",
        "{\n  \"items\": [\n    {\n      \"id\": 1,\n      \"note\": \"caf\xc3\xa9 \xe2\x82\xac 5 \xf0\x9f\x98\x80\"\n"
        "    },\n    {\n      \"id\": -2.5e-3,\n      \"note\": null\n    }\n  ],\n  \"ok\": true\n}\n",
        "[\"\\\"quoted\\\" and \\\\ backslashes \\/ \\b\\f\\n\\r\\t\", 9007199254740991, 1e22, -0, 0.1, "
        "[[[[\"deep\"]]]], {\"a\": {\"b\": {\"c\": \"\\ud83d\\ude00\"}}}]",
        "\"a single top-level string long enough to span several sixteen-byte blocks of input\"",
    };
    static const char *const inserts[] = {"\"", "\\", "\\u", "\\ud800", "\x01", "\n", "\x80", "\xc3\xa9",
                                          "\xe2\x82", "\xed\xa0\x80", ",", "]", "}", ":", " ", "\t\t\t\t",
                                          "1e999", "01", "true", "nul", "//", "'", "```", "\\u0000"};
    uint64_t state = 0x9e3779b97f4a7c15ull;
    char buffer[1024], what[64];
    for (size_t b = 0; b < sizeof bases / sizeof bases[0]; b++)
        for (int round = 0; round < 600; round++) {
            size_t len = strlen(bases[b]);
            memcpy(buffer, bases[b], len);
            int edits = 1 + round % 3;
            for (int e = 0; e < edits; e++) {
                state = state * 6364136223846793005ull + 1442695040888963407ull;
                unsigned r = (unsigned)(state >> 33);
                size_t at = len > 0 ? r % (len + 1) : 0;
                switch ((r >> 20) % 4) {
                case 0: { /* insert */
                    const char *piece = inserts[(r >> 8) % (sizeof inserts / sizeof inserts[0])];
                    size_t piece_len = strlen(piece);
                    if (len + piece_len < sizeof buffer) {
                        memmove(buffer + at + piece_len, buffer + at, len - at);
                        memcpy(buffer + at, piece, piece_len);
                        len += piece_len;
                    }
                    break;
                }
                case 1: /* replace one byte */
                    if (at < len)
                        buffer[at] = (char)(r >> 5);
                    break;
                case 2: /* delete a few bytes */
                    if (at < len) {
                        size_t n = 1 + (r >> 9) % 6;
                        if (n > len - at)
                            n = len - at;
                        memmove(buffer + at, buffer + at + n, len - at - n);
                        len -= n;
                    }
                    break;
                default: /* cut */
                    len = at;
                    break;
                }
            }
            snprintf(what, sizeof what, "base %zu, mutant %d", b, round);
            gt_parse_options options;
            gt_parse_options_init(&options);
            assert_scans_agree_filled(buffer, len, &options, 0, what);
            options.rfc8259 = round % 2 == 0;
            options.reject_nul = round % 3 == 0;
            options.max_depth = round % 5 == 0 ? 3 : 0;
            assert_scans_agree_filled(buffer, len, &options, 0, what);
        }
}
END_TEST

/* The SIMD scans are built on x86-64 (SSE2 is part of its baseline) and
 * nowhere else; the default is the SIMD path wherever it is built. */
START_TEST(test_simd_scans_are_built_on_x86_64)
{
#if defined(__x86_64__)
    ck_assert(gt_parse_simd_built());
#else
    ck_assert(!gt_parse_simd_built());
#endif
    gt_parse_error error;
    ck_assert_ptr_nonnull(gt_parse_with_scan(arena, "{\"a\": [1, \"b\"]}", 15, NULL, &error, GT_PARSE_SCAN_DEFAULT));
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("syntax gate");
    TCase *tc = tcase_create("parse");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_accepts_rfc8259_values);
    tcase_add_test(tc, test_arena_reset_keeps_the_largest_block);
    tcase_add_test(tc, test_fences_and_prose);
    tcase_add_test(tc, test_empty_and_bom);
    tcase_add_test(tc, test_duplicate_keys);
    tcase_add_test(tc, test_encoding);
    tcase_add_test(tc, test_escapes);
    tcase_add_test(tc, test_lenient_syntax);
    tcase_add_test(tc, test_numbers);
    tcase_add_test(tc, test_number_range_any_spelling);
    tcase_add_test(tc, test_nul_policy);
    tcase_add_test(tc, test_truncation);
    tcase_add_test(tc, test_limits);
    tcase_add_test(tc, test_positions_and_excerpt);
    tcase_add_test(tc, test_utf8_valid_reads_len_bytes);
    tcase_add_test(tc, test_exact_values);
    tcase_add_test(tc, test_rfc8259_mode);
    tcase_add_test(tc, test_fast_decimals_match_strtod);
    tcase_add_test(tc, test_word_scan_finds_every_offset);
    tcase_add_test(tc, test_word_compare_sees_every_byte);
    tcase_add_test(tc, test_scratch_stacks_grow_past_the_arena);
    tcase_add_test(tc, test_equality);
    tcase_add_test(tc, test_reason_codes_round_trip);
    tcase_add_test(tc, test_builders_and_arena);
    suite_add_tcase(suite, tc);
    TCase *scans = tcase_create("scans");
    tcase_add_checked_fixture(scans, setup, teardown);
    tcase_set_timeout(scans, 120); /* tens of thousands of parses, slower under ASan */
    tcase_add_test(scans, test_scans_agree_at_every_string_offset);
    tcase_add_test(scans, test_scans_agree_when_the_input_ends_inside_a_string);
    tcase_add_test(scans, test_scans_agree_on_whitespace_runs);
    tcase_add_test(scans, test_scans_agree_near_the_end_of_an_arena_block);
    tcase_add_test(scans, test_scans_agree_on_mutated_documents);
    tcase_add_test(scans, test_simd_scans_are_built_on_x86_64);
    suite_add_tcase(suite, scans);
    return suite;
}

GT_TEST_MAIN()
