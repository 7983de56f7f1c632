/* test_fastpaths.c — differential checks of the fast paths of
 * `validate --jsonl` against the slow paths they stand in for: on generated
 * inputs, each must give exactly the slow path's answer whenever it answers.
 *   - the JSONL line decoder (runner/cli/jsonl_literal.c) against gt_parse;
 *   - simple patterns (schema_regex.c, sc_regex.simple) against PCRE2;
 *   - the valid-document fast pass (schema_fast.c) against the full
 *     evaluation (sc_validate_full), and its "not valid" and the
 *     first-failure gate (gt_schema_validate_first_failure) against its verdict;
 *   - the `properties` entry tried in schema order (sc_find_prop_at) against
 *     the hash lookup (sc_find_prop), and `required` answered from what
 *     `properties` saw against the names it lists, missing or not. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gauntlet/parse.h"
#include "gauntlet/schema.h"
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
        gt_jsonl_use_portable(round >= 10000); /* both ways of compacting a chunk */
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
    gt_jsonl_use_portable(false);
    free(buf.data);
    gt_arena_free(arena);
}
END_TEST

/* Patterns the scan takes, and patterns it must leave to PCRE2 (a choice a
 * greedy scan could get wrong, or syntax it does not read). */
static const char *const simple_patterns[] = {
    "^[A-Z]{3}-[0-9]{4}$", "^[0-9]{5}(-[0-9]{4})?$", "^ORD-[0-9]{6}$", "^[^@\\s]+@[^@\\s]+$", "^a*b", "^(ab)?c",
    "^[a-c]{2,3}d?$", "^\\d+(\\.\\d{1,2})?$", "^.{0,5}$", "^x(?:yz)?", "^\\s*\\S+$", "^[\\w-]+\\.x$", "^", "^$",
    "^(?:a)", "^[^a]{2,}", "^\\D\\W?$", "^[\\-.]+a$", "^[a-]b", "^(-?\\d)?x$", "^a{0}b$", "^\\.\\*\\t$",
    /* too many states for the automaton: the item-by-item scan */
    "^[a-c]{2,300}d?$", "^x?\\d{0,400}(-[0-9]{4})?$", "^[^@\\s]{1,260}@"};
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
            static const char *const tokens[] = {"ABC", "ORD", "-", "12345", "6789", "1234", "@", "ada", "x", "yz",
                                                 ".", " ", "ab", "c", "d", "AB", "0", "-1"};
            for (size_t k = 0; round % 3 == 1 && k < 1 + next_random(5); k++) { /* shapes the patterns want */
                const char *t = tokens[next_random(sizeof tokens / sizeof tokens[0])];
                memcpy(subject + len, t, strlen(t)), len += strlen(t);
            }
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


/* ---- the valid-document fast pass ---- */

/* Random JSON text of small depth: keys from a short list, scalars from
 * pools near the boundaries the schemas below draw. */
static void random_json(char *out, size_t *len, size_t cap, int depth)
{
    static const char *const keys[] = {"a", "b", "c", "foo", "bar", "sku", "x-1", "fo"};
    static const char *const scalars[] = {"0", "1", "-1", "2.5", "1e2", "0.01", "3", "10", "100", "1.0", "\"\"",
                                          "\"a\"", "\"abc\"", "\"ABC-1234\"", "\"foo\"", "\"2024-01-02\"",
                                          "\"a@b.c\"", "true", "false", "null", "0.5", "4", "2", "19.99", "1.50",
                                          "-0.01", "1.005", "0.010", "1e-2", "123456789012.345", "1234567890123456.75", "1.00000000000000000001",
                                          "9007199254740991", "0.1234567890123456789", "0.1", "-3.0"};
    if (*len + 64 >= cap)
        depth = 3;
    unsigned kind = depth >= 3 ? 2 : next_random(5);
    if (kind == 0 || kind == 1) {
        bool object = kind == 0;
        unsigned n = next_random(5), used = 0;
        out[(*len)++] = object ? '{' : '[';
        for (unsigned i = 0; i < n; i++) {
            unsigned key = next_random(8);
            if (object && (used >> key) & 1)
                continue; /* no duplicate member names */
            used |= 1u << key;
            if (*len > 0 && out[*len - 1] != '{' && out[*len - 1] != '[')
                out[(*len)++] = ',';
            if (object)
                *len += (size_t)snprintf(out + *len, cap - *len, "\"%s\":", keys[key]);
            random_json(out, len, cap, depth + 1);
        }
        out[(*len)++] = object ? '}' : ']';
    } else
        *len += (size_t)snprintf(out + *len, cap - *len, "%s", scalars[next_random(sizeof scalars / sizeof scalars[0])]);
    out[*len] = '\0';
}

/* An order of bench/validate/gen.js's nested workload, each field right most
 * of the time and otherwise one of the usual model mistakes. */
static unsigned order_odds = 12; /* one field in this many is wrong */

static void random_order(char *out, size_t cap)
{
#define PICK(good, ...) (next_random(order_odds) != 0 ? (good) : (const char *[]){__VA_ARGS__}[next_random(3)])
    char items[1024] = "";
    size_t n = 1 + next_random(4), at = 0;
    for (size_t i = 0; i < n && at + 200 < sizeof items; i++)
        at += (size_t)snprintf(items + at, sizeof items - at, "%s{\"sku\":%s,\"qty\":%s,\"price\":%s%s}",
                               i ? "," : "", PICK("\"ABC-1234\"", "\"abc-1\"", "12", "\"ABC-12345\""),
                               PICK("3", "0", "\"3\"", "1.5"), PICK("19.99", "1.005", "-1", "null"),
                               PICK(",\"note\":null", ",\"note\":1", ",\"note\":\"gift wrap\"", ",\"extra\":1"));
    snprintf(out, cap,
             "{\"id\":%s,\"customer\":{\"name\":%s,\"email\":%s,\"address\":{\"street\":\"1 Main\",\"city\":\"X\","
             "\"zip\":%s,\"country\":%s}},\"items\":[%s],\"discount\":%s,\"status\":%s%s}",
             PICK("\"ORD-123456\"", "\"ORD-12345\"", "1", "\"ord-123456\""), PICK("\"Ada\"", "\"\"", "null", "7"),
             PICK("\"ada@example.com\"", "\"ada example\"", "\"a@b@c\"", "\"a\\u00a0b@c\""),
             PICK("\"12345\"", "\"1234\"", "\"12345-6789\"", "12345"), PICK("\"US\"", "\"us\"", "\"DE\"", "null"), items,
             PICK("null", "\"5\"", "0.001", "12.5"), PICK("\"paid\"", "\"Paid\"", "1", "\"new\""),
             PICK("", ",\"debug\":1", ",\"status2\":1", ""));
#undef PICK
}

static const char order_schema[] =
    "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"type\":\"object\",\"$defs\":{"
    "\"money\":{\"type\":\"number\",\"minimum\":0,\"multipleOf\":0.01},"
    "\"address\":{\"type\":\"object\",\"properties\":{\"street\":{\"type\":\"string\"},\"city\":{\"type\":\"string\"},"
    "\"zip\":{\"type\":\"string\",\"pattern\":\"^[0-9]{5}(-[0-9]{4})?$\"},\"country\":{\"enum\":[\"US\",\"CA\",\"MX\"]}},"
    "\"required\":[\"street\",\"city\",\"zip\",\"country\"],\"additionalProperties\":false},"
    "\"item\":{\"type\":\"object\",\"properties\":{\"sku\":{\"type\":\"string\",\"pattern\":\"^[A-Z]{3}-[0-9]{4}$\"},"
    "\"qty\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100},\"price\":{\"$ref\":\"#/$defs/money\"},"
    "\"note\":{\"anyOf\":[{\"type\":\"null\"},{\"type\":\"string\",\"maxLength\":80}]}},"
    "\"required\":[\"sku\",\"qty\",\"price\"],\"additionalProperties\":false}},"
    "\"properties\":{\"id\":{\"type\":\"string\",\"pattern\":\"^ORD-[0-9]{6}$\"},"
    "\"customer\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\",\"minLength\":1},"
    "\"email\":{\"type\":\"string\",\"pattern\":\"^[^@\\\\s]+@[^@\\\\s]+$\"},\"address\":{\"$ref\":\"#/$defs/address\"}},"
    "\"required\":[\"name\",\"email\",\"address\"]},"
    "\"items\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/$defs/item\"},\"minItems\":1},"
    "\"discount\":{\"anyOf\":[{\"type\":\"null\"},{\"$ref\":\"#/$defs/money\"}]},"
    "\"status\":{\"enum\":[\"new\",\"paid\",\"shipped\",\"cancelled\"]}},"
    "\"required\":[\"id\",\"customer\",\"items\",\"status\"],\"additionalProperties\":false}";

/* Schemas for random_json, each with the keywords it exercises. `full`: every
 * keyword is one the fast pass decides, so it must say valid exactly when the
 * full evaluation does; otherwise it may only be more cautious. */
static const struct {
    const char *json;
    bool full, formats;
} fast_schemas[] = {
    {"{\"allOf\":[{\"type\":\"object\"},{\"required\":[\"a\"]}],\"oneOf\":[{\"required\":[\"b\"]},{\"required\":[\"c\"]}]}",
     true, false},
    {"{\"not\":{\"type\":\"string\"},\"if\":{\"properties\":{\"a\":{\"const\":1}}},\"then\":{\"required\":[\"b\"]},"
     "\"else\":{\"maxProperties\":2}}",
     true, false},
    {"{\"type\":\"array\",\"prefixItems\":[{\"type\":\"integer\"},{\"type\":\"string\"}],\"items\":{\"type\":\"boolean\"},"
     "\"uniqueItems\":true,\"minItems\":1,\"maxItems\":3}",
     true, false},
    {"{\"patternProperties\":{\"^f\":{\"type\":\"string\"},\"^b\":{\"minLength\":2}},\"additionalProperties\":{\"type\":"
     "\"integer\"},\"dependentRequired\":{\"a\":[\"b\"]},\"dependentSchemas\":{\"c\":{\"required\":[\"foo\"]}},"
     "\"minProperties\":1}",
     true, false},
    {"{\"$schema\":\"http://json-schema.org/draft-04/schema#\",\"properties\":{\"a\":{\"type\":\"integer\",\"maximum\":3,"
     "\"exclusiveMaximum\":true},\"b\":{\"type\":\"number\",\"minimum\":0,\"exclusiveMinimum\":true,\"multipleOf\":0.5}},"
     "\"dependencies\":{\"a\":[\"b\"],\"b\":{\"required\":[\"c\"]}},\"items\":[{\"type\":\"string\"}],\"additionalItems\":false}",
     true, false},
    {"{\"$defs\":{\"n\":{\"anyOf\":[{\"type\":\"null\"},{\"$ref\":\"#/$defs/m\"}]},\"m\":{\"type\":\"number\","
     "\"exclusiveMinimum\":0,\"exclusiveMaximum\":100}},\"properties\":{\"a\":{\"$ref\":\"#/$defs/n\"},\"b\":{\"items\":"
     "{\"$ref\":\"#/$defs/n\"}},\"c\":false,\"foo\":true},\"required\":[\"a\"],\"additionalProperties\":false}",
     true, false},
    {"{\"$defs\":{\"t\":{\"type\":[\"object\",\"null\"],\"properties\":{\"a\":{\"$ref\":\"#/$defs/t\"},\"b\":{\"enum\":"
     "[1,\"abc\",[1,2],{\"a\":1},null,true]}}}},\"$ref\":\"#/$defs/t\"}",
     true, false},
    {"{\"properties\":{\"a\":{\"format\":\"date\"},\"b\":{\"format\":\"email\"},\"foo\":{\"maxLength\":3,\"minLength\":1}},"
     "\"required\":[\"b\",\"zzz\"]}",
     true, true},
    {"{\"type\":[\"object\",\"array\",\"string\"],\"contains\":{\"type\":\"integer\"},\"propertyNames\":{\"maxLength\":2}}",
     false, false},
    {"{\"properties\":{\"a\":{},\"b\":{\"type\":\"number\"},\"c\":{}},\"required\":[\"a\",\"b\"]}", true, false},
    {"{\"items\":{\"enum\":[1,2,\"a\",null]},\"uniqueItems\":true,\"maxItems\":4}", true, false},
    {"{\"items\":{\"multipleOf\":0.01},\"properties\":{\"a\":{\"multipleOf\":1},\"b\":{\"multipleOf\":0.1},"
     "\"c\":{\"multipleOf\":0.010},\"foo\":{\"multipleOf\":0.001}}}",
     true, false},
    {"{\"properties\":{\"a\":{\"type\":\"integer\"}},\"unevaluatedProperties\":false}", false, false},
};

/* gt_schema_validate (fast pass first) and the full evaluation agree on the
 * verdict and on every error; the fast pass says valid only when the full
 * evaluation does. Returns whether the instance is valid. */
static bool agree(const gt_schema *schema, const char *text, bool decides_all, size_t *fast_valid)
{
    gt_arena *arena = gt_arena_new();
    gt_parse_error perr;
    gt_value *value = gt_parse(arena, text, strlen(text), NULL, &perr);
    ck_assert_msg(value != NULL, "test instance does not parse: %s", text);
    gt_schema_errors with_fast, full_only;
    gt_schema_errors_init(&with_fast), gt_schema_errors_init(&full_only);
    gt_schema_result r1 = gt_schema_validate(schema, value, &with_fast);
    gt_schema_result r2 = sc_validate_full(schema, value, &full_only, NULL);
    ck_assert_msg(r1 == r2, "verdicts differ on %s", text);
    ck_assert_uint_eq(with_fast.count, full_only.count);
    for (size_t i = 0; i < full_only.count; i++) {
        ck_assert_str_eq(with_fast.items[i].instance_path, full_only.items[i].instance_path);
        ck_assert_str_eq(with_fast.items[i].keyword_location, full_only.items[i].keyword_location);
        ck_assert_str_eq(with_fast.items[i].message, full_only.items[i].message);
    }
    pcre2_match_data *md = NULL;
    bool fast = sc_fast_valid(schema, value, &md, NULL);
    if (md != NULL)
        pcre2_match_data_free(md);
    ck_assert_msg(!fast || r2 == GT_SCHEMA_VALID, "fast pass says valid, full evaluation does not: %s", text);
    if (decides_all)
        ck_assert_msg(fast == (r2 == GT_SCHEMA_VALID), "fast pass gave up on %s", text);
    /* the first-failure gate: the pass's "not valid" answers for it when it can tell */
    md = NULL;
    int verdict = sc_fast_verdict(schema, value, &md, NULL);
    if (md != NULL)
        pcre2_match_data_free(md);
    ck_assert_msg(verdict == -1 || verdict == (r2 == GT_SCHEMA_VALID), "fast verdict %d, full %d on %s", verdict, r2,
                  text);
    gt_schema_errors scratch;
    gt_schema_errors_init(&scratch);
    gt_schema_result quick = gt_schema_validate_first_failure(schema, value, &scratch);
    if (r2 == GT_SCHEMA_ERROR && gt_schema_failure_is_limit(full_only.failure)) /* a limit past the first failure */
        ck_assert_msg(quick != GT_SCHEMA_VALID, "first-failure valid where the full evaluation hit a limit: %s", text);
    else
        ck_assert_msg(quick == r2, "first-failure %d, full %d on %s", quick, r2, text);
    gt_schema_errors_free(&scratch);
    *fast_valid += fast;
    gt_schema_errors_free(&with_fast), gt_schema_errors_free(&full_only);
    gt_arena_free(arena);
    return r2 == GT_SCHEMA_VALID;
}

START_TEST(fast_pass_agrees_with_the_full_evaluation)
{
    char text[4096];
    size_t valid = 0, fast_valid = 0;
    gt_schema_problem problem;
    gt_schema_options options;
    gt_schema_options_init(&options);
    gt_schema *order = gt_schema_compile(order_schema, strlen(order_schema), &options, &problem);
    ck_assert_msg(order != NULL, "%s", problem.message);
    ck_assert(sc_fast_usable(order));
    for (int round = 0; round < 3000; round++) {
        random_order(text, sizeof text);
        valid += agree(order, text, true, &fast_valid);
    }
    ck_assert_uint_gt(valid, 300); /* both verdicts well represented */
    ck_assert_uint_lt(valid, 2700);
    gt_schema_free(order);
    /* a small budget runs out in either pass, at the same place */
    size_t limited = 0;
    options.skip_metaschema = true; /* the metaschema check has the same budget */
    order_odds = 4;
    for (size_t budget = 4; budget < 90; budget += 1) {
        options.max_evaluations = budget;
        order = gt_schema_compile(order_schema, strlen(order_schema), &options, &problem);
        ck_assert_msg(order != NULL, "%s", problem.message);
        for (int round = 0; round < 40; round++) {
            random_order(text, sizeof text);
            size_t before = fast_valid;
            agree(order, text, false, &fast_valid);
            limited += fast_valid == before;
        }
        gt_schema_free(order);
    }
    /* anyOf re-runs its branches to explain a failure, past what the fast pass
     * saw: a valid part of a failing branch is met again with more counted */
    static const char any_of[] =
        "{\"anyOf\":[{\"properties\":{\"a\":{\"items\":{\"type\":\"integer\"}}},\"required\":[\"zz\"]},"
        "{\"properties\":{\"a\":{\"items\":{\"minimum\":0}}},\"required\":[\"yy\"]}]}";
    for (size_t budget = 2; budget < 40; budget++) {
        options.max_evaluations = budget;
        gt_schema *schema = gt_schema_compile(any_of, strlen(any_of), &options, &problem);
        ck_assert_msg(schema != NULL, "%s", problem.message);
        for (int round = 0; round < 20; round++) {
            snprintf(text, sizeof text, "{\"a\":[%u,%u,%u,%u,%u]%s}", next_random(3), next_random(3), next_random(3),
                     next_random(3), next_random(3), round % 4 == 0 ? ",\"zz\":1" : "");
            agree(schema, text, false, &fast_valid);
        }
        gt_schema_free(schema);
    }
    ck_assert_uint_gt(limited, 1000);
    order_odds = 12;
    options.max_evaluations = 0, options.skip_metaschema = false;
    for (size_t s = 0; s < sizeof fast_schemas / sizeof fast_schemas[0]; s++) {
        options.assert_formats = fast_schemas[s].formats;
        gt_schema *schema = gt_schema_compile(fast_schemas[s].json, strlen(fast_schemas[s].json), &options, &problem);
        ck_assert_msg(schema != NULL, "%s: %s", fast_schemas[s].json, problem.message);
        size_t schema_valid = 0;
        for (int round = 0; round < 3000; round++) {
            size_t len = 0;
            random_json(text, &len, sizeof text, 0);
            schema_valid += agree(schema, text, fast_schemas[s].full && sc_fast_usable(schema), &fast_valid);
        }
        ck_assert_msg(schema_valid > 10, "%s: only %zu valid instances", fast_schemas[s].json, schema_valid);
        gt_schema_free(schema);
    }
    ck_assert_uint_gt(fast_valid, 5000);
}
END_TEST

/* Members in any order, some undeclared, against a schema whose names are
 * not in sorted order: the entry tried first (the schema's i-th name) is
 * the hash lookup's answer whenever it is taken, and the full evaluation's
 * `required` errors are exactly the listed names that are missing, in the
 * listed order (a repeated name twice), whether `properties` ran first or not. */
START_TEST(properties_in_schema_order_agree_with_the_hash)
{
    static const char *const names[] = {"sku", "a", "x-1", "bar", "c", "fo", "foo", "b", "zz", "undeclared"};
    static const char *const schemas[] = {
        "{\"type\":\"object\",\"properties\":{\"sku\":{},\"a\":{\"type\":\"integer\"},\"x-1\":{},\"bar\":{},\"c\":{},"
        "\"fo\":{},\"foo\":{},\"b\":{}},\"required\":[\"c\",\"a\",\"zz\",\"a\",\"foo\"],\"additionalProperties\":false}",
        "{\"required\":[\"c\",\"a\",\"foo\",\"a\"],\"type\":\"object\",\"properties\":{\"sku\":{},\"a\":{\"type\":"
        "\"integer\"},\"x-1\":{},\"bar\":{},\"c\":{},\"fo\":{},\"foo\":{},\"b\":{}}}",
        "{\"$schema\":\"http://json-schema.org/draft-04/schema#\",\"properties\":{\"b\":{},\"a\":{\"type\":\"integer\"},"
        "\"c\":{},\"foo\":{}},\"required\":[\"foo\",\"c\",\"a\"]}",
    };
    size_t taken = 0, missing = 0;
    for (size_t s = 0; s < sizeof schemas / sizeof schemas[0]; s++) {
        gt_schema_problem problem;
        gt_schema_options options;
        gt_schema_options_init(&options);
        options.skip_metaschema = true; /* a repeated `required` name is not valid against the metaschema */
        gt_schema *schema = gt_schema_compile(schemas[s], strlen(schemas[s]), &options, &problem);
        ck_assert_msg(schema != NULL, "%s", problem.message);
        const sc_kw *props = schema->root->properties, *required = NULL;
        ck_assert_ptr_nonnull(props);
        for (size_t k = 0; k < schema->root->nkw; k++)
            if (schema->root->kws[k].kind == KW_REQUIRED)
                required = &schema->root->kws[k];
        ck_assert_ptr_nonnull(required);
        for (int round = 0; round < 3000; round++) {
            unsigned order[10], n = 0;
            for (unsigned k = 0; k < 10; k++)
                if (next_random(3) != 0)
                    order[n++] = k;
            for (unsigned k = 0; round % 2 && n > 1 && k < n; k++) { /* half of them shuffled */
                unsigned j = next_random(n), t = order[k];
                order[k] = order[j], order[j] = t;
            }
            char text[512];
            size_t len = 0;
            text[len++] = '{';
            for (unsigned k = 0; k < n; k++)
                len += (size_t)snprintf(text + len, sizeof text - len, "%s\"%s\":%s", k ? "," : "", names[order[k]],
                                        next_random(4) ? "1" : "\"x\"");
            text[len++] = '}', text[len] = '\0';
            gt_arena *arena = gt_arena_new();
            gt_parse_error perr;
            gt_value *value = gt_parse(arena, text, len, NULL, &perr);
            ck_assert_ptr_nonnull(value);
            for (size_t i = 0; i < value->u.obj.count; i++) {
                const gt_member *m = &value->u.obj.members[i];
                ck_assert_ptr_eq(sc_find_prop_at(props, i, m->key, m->key_len), sc_find_prop(props, m->key, m->key_len));
                taken += i < props->u.props.count && props->u.props.props[props->u.props.order[i]].len == m->key_len &&
                         memcmp(props->u.props.props[props->u.props.order[i]].name, m->key, m->key_len) == 0;
            }
            gt_schema_errors errors;
            gt_schema_errors_init(&errors);
            gt_schema_validate(schema, value, &errors);
            size_t at = 0;
            for (size_t r = 0; r < required->value->u.arr.count; r++) {
                const gt_value *name = required->value->u.arr.items[r];
                if (gt_value_get(value, name->u.str.chars, name->u.str.len) != NULL)
                    continue;
                char expected[64];
                snprintf(expected, sizeof expected, "missing required property \"%s\"", name->u.str.chars);
                while (at < errors.count && strcmp(errors.items[at].keyword, "required") != 0)
                    at++;
                ck_assert_msg(at < errors.count, "%s: no error for %s", text, expected);
                ck_assert_str_eq(errors.items[at].message, expected);
                at++, missing++;
            }
            while (at < errors.count)
                ck_assert_str_ne(errors.items[at++].keyword, "required");
            gt_schema_errors_free(&errors);
            gt_arena_free(arena);
        }
        gt_schema_free(schema);
    }
    ck_assert_uint_gt(taken, 5000);   /* the schema-order entry was often the one */
    ck_assert_uint_gt(missing, 1000); /* and `required` often failed */
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
    tcase_add_test(tc, fast_pass_agrees_with_the_full_evaluation);
    tcase_add_test(tc, properties_in_schema_order_agree_with_the_hash);
    suite_add_tcase(suite, tc);
    return suite;
}

GT_TEST_MAIN()
