/* test_fastpaths.c — differential checks of the fast paths of
 * `validate --jsonl` against the slow paths they stand in for: on generated
 * inputs, each must give exactly the slow path's answer whenever it answers.
 *   - the JSONL line decoder (runner/cli/jsonl_literal.c) against gt_parse;
 *   - simple patterns (schema_regex.c, sc_regex.simple) against PCRE2. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gauntlet/parse.h"
#include "gt_test.h"
#include "reference/schema_impl.h"
#include "runner/cli/jsonl_literal.h"

static unsigned long long seed = 12345;
static unsigned next_random(unsigned bound)
{
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)((seed >> 33) % bound);
}

/* Append one piece of a string literal's inside to `line`. `quotes_only`
 * keeps to plain bytes and \" (the decoder's 64-byte chunk path). */
static void add_piece(char *line, size_t *len, size_t cap, bool quotes_only)
{
    static const char *const common[] = {"a", "bcdefgh", "0123456789abcdef", "\\\"", "\\\"", "\xc3\xa9"};
    static const char *const rare[] = {"\\\\", "\\n", "\\t", "\\/", "\\b", "\\f", "\\r", "\\u00e9", "\\u0000",
                                       "\\ud83d\\ude00", "\\ud800", "\\udc00x", "\\x", "\"", "\t", "\\u12",
                                       "\\\\\"", "\\U0041", "\\u004G"};
    const char *piece = quotes_only || next_random(8) != 0 ? common[next_random(6)] : rare[next_random(19)];
    size_t n = strlen(piece);
    if (*len + n + 2 < cap)
        memcpy(line + *len, piece, n), *len += n;
}

START_TEST(jsonl_decoder_agrees_with_the_parser)
{
    char line[1024];
    gt_jsonl_buffer buf = {0};
    gt_arena *arena = gt_arena_new();
    gt_parse_options options;
    gt_parse_options_init(&options);
    size_t decoded = 0, long_quoted = 0;
    for (int round = 0; round < 20000; round++) {
        bool quotes_only = round % 2 == 0;
        size_t len = 0, pieces = next_random(120);
        line[len++] = '"';
        for (size_t p = 0; p < pieces; p++)
            add_piece(line, &len, sizeof line, quotes_only);
        line[len++] = '"';
        if (round % 97 == 0)
            len--; /* no closing quote */
        gt_arena_reset(arena);
        gt_parse_error error;
        gt_value *parsed = gt_parse(arena, line, len, &options, &error);
        size_t got = gt_jsonl_decode_literal(line, len, &buf);
        if (got == (size_t)-1)
            continue; /* refused: the parser decides, as for any unusual line */
        decoded++;
        long_quoted += quotes_only && len > 200;
        ck_assert_msg(parsed != NULL && parsed->type == GT_STRING, "decoded a line the parser rejects: %.*s",
                      (int)len, line);
        ck_assert_msg(got == parsed->u.str.len && memcmp(buf.data, parsed->u.str.chars, got) == 0,
                      "decoded differently: %.*s", (int)len, line);
    }
    /* most lines take the fast path, many of them long enough for 64-byte chunks */
    ck_assert_uint_gt(decoded, 9000);
    ck_assert_uint_gt(long_quoted, 3000);
    free(buf.data);
    gt_arena_free(arena);
}
END_TEST

/* Patterns the scan takes, and patterns it must leave to PCRE2 (a choice a
 * greedy scan could get wrong, or syntax it does not read). */
static const char *const simple_patterns[] = {
    "^[A-Z]{3}-[0-9]{4}$", "^[0-9]{5}(-[0-9]{4})?$", "^ORD-[0-9]{6}$", "^[^@\\s]+@[^@\\s]+$", "^a*b", "^(ab)?c",
    "^[a-c]{2,3}d?$", "^\\d+(\\.\\d{1,2})?$", "^.{0,5}$", "^x(?:yz)?", "^\\s*\\S+$", "^[\\w-]+\\.x$", "^", "^$",
    "^(?:a)", "^[^a]{2,}", "^\\D\\W?$", "^[\\-.]+a$", "^[a-]b", "^(-?\\d)?x$", "^a{0}b$", "^\\.\\*\\t$"};
static const char *const complex_patterns[] = {
    "^a*a$", "^(a|b)$", "^[a-z]+[a-c]$", "x$", "[0-9]", "^(a+)+$", "^a+?$", "^(?=a)a", "^\\bx", "^\u00e9$",
    "^(a?)?b", "^(a)\\1$", "^[]$", "^[^]$", "^a{2,}?", "^(ab)*$", "^a?(ab)?b"};

START_TEST(simple_patterns_agree_with_pcre2)
{
    static const char alphabet[] = "abcdxyzABCZ0159-._@ \t\n\\*";
    static const char *const non_ascii[] = {"\xc3\xa9", "\xc2\xa0", "\xe3\x80\x80", "\xd9\xa1"};
    pcre2_match_data *md = pcre2_match_data_create(1, NULL);
    char why[160];
    for (size_t i = 0; i < sizeof complex_patterns / sizeof complex_patterns[0]; i++) {
        sc_regex re;
        ck_assert_int_eq(sc_regex_compile(&re, complex_patterns[i], strlen(complex_patterns[i]), why, sizeof why), 0);
        ck_assert_msg(re.simple == NULL, "/%s/ must be left to PCRE2", complex_patterns[i]);
        sc_regex_free(&re);
    }
    size_t decided_by_scan = 0;
    for (size_t i = 0; i < sizeof simple_patterns / sizeof simple_patterns[0]; i++) {
        sc_regex re;
        const char *pattern = simple_patterns[i];
        ck_assert_int_eq(sc_regex_compile(&re, pattern, strlen(pattern), why, sizeof why), 0);
        ck_assert_msg(re.simple != NULL, "/%s/ should be simple", pattern);
        sc_regex slow = re;
        slow.simple = NULL;
        for (int round = 0; round < 4000; round++) {
            char subject[1100];
            size_t len = 0, n = round < 3000 ? next_random(12) : next_random(1100);
            for (size_t k = 0; k < n && len + 4 < sizeof subject; k++) {
                if (next_random(40) == 0) {
                    const char *u = non_ascii[next_random(4)];
                    memcpy(subject + len, u, strlen(u)), len += strlen(u);
                } else if (round % 3 == 0 && k < 10) /* the shapes the patterns want, to reach deep */
                    subject[len++] = "ORD-12345@x.y"[next_random(13)];
                else
                    subject[len++] = alphabet[next_random(sizeof alphabet - 1)];
            }
            int fast = sc_regex_search(&re, subject, len, md, NULL);
            int reference = sc_regex_search(&slow, subject, len, md, NULL);
            ck_assert_msg(fast == reference, "/%s/ on \"%.*s\": scan %d, PCRE2 %d", pattern, (int)len, subject, fast,
                          reference);
            decided_by_scan += len <= 1024;
        }
        sc_regex_free(&re);
    }
    ck_assert_uint_gt(decided_by_scan, 50000);
    pcre2_match_data_free(md);
}
END_TEST

/* The verdicts the workload patterns must give (PCRE2 agreeing is checked above). */
START_TEST(simple_patterns_known_verdicts)
{
    static const struct {
        const char *pattern, *subject;
        int matches;
    } rows[] = {
        {"^[A-Z]{3}-[0-9]{4}$", "ABC-1234", 1},  {"^[A-Z]{3}-[0-9]{4}$", "ABC-1234\n", 0},
        {"^[A-Z]{3}-[0-9]{4}$", "abc-1234", 0},  {"^[0-9]{5}(-[0-9]{4})?$", "12345", 1},
        {"^[0-9]{5}(-[0-9]{4})?$", "12345-6789", 1}, {"^[0-9]{5}(-[0-9]{4})?$", "12345-678", 0},
        {"^[^@\\s]+@[^@\\s]+$", "ada@example.com", 1}, {"^[^@\\s]+@[^@\\s]+$", "a@b@c", 0},
        {"^[^@\\s]+@[^@\\s]+$", "a\xc2\xa0@b", 0}, /* U+00A0 is ECMA white space (decided by PCRE2) */
        {"^[^@\\s]+@[^@\\s]+$", "\xc3\xbc@b", 1},  {"^x(?:yz)?", "xy", 1}, {"^(ab)?c", "ac", 0},
    };
    pcre2_match_data *md = pcre2_match_data_create(1, NULL);
    char why[160];
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        sc_regex re;
        ck_assert_int_eq(sc_regex_compile(&re, rows[i].pattern, strlen(rows[i].pattern), why, sizeof why), 0);
        ck_assert_msg(sc_regex_search(&re, rows[i].subject, strlen(rows[i].subject), md, NULL) == rows[i].matches,
                      "/%s/ on %s", rows[i].pattern, rows[i].subject);
        sc_regex_free(&re);
    }
    pcre2_match_data_free(md);
}
END_TEST

static Suite *make_suite(void)
{
    Suite *suite = suite_create("fastpaths");
    TCase *tc = tcase_create("differential");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, jsonl_decoder_agrees_with_the_parser);
    tcase_add_test(tc, simple_patterns_agree_with_pcre2);
    tcase_add_test(tc, simple_patterns_known_verdicts);
    suite_add_tcase(suite, tc);
    return suite;
}

GT_TEST_MAIN()
