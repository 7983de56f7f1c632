/* fuzz_syntax.c — the syntax gate (gt_parse) with a round-trip property: a
 * value the gate accepts serialises to JSON that the gate accepts again and
 * that serialises to the same bytes, under every option set. */
#include <string.h>

#include "fuzz.h"
#include "gauntlet/arena.h"
#include "gauntlet/parse.h"
#include "gauntlet/value.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gt_arena *arena = gt_arena_new();
    if (arena == NULL)
        return 0;
    gt_parse_options options;
    gt_parse_options_init(&options);
    /* the first byte picks the policies: NUL rejected, RFC 8259 framing, big integers */
    options.reject_nul = size > 0 && (data[0] & 1);
    options.rfc8259 = size > 0 && (data[0] & 2);
    options.allow_big_integers = size > 0 && (data[0] & 4);
    gt_parse_error error;
    gt_value *value = gt_parse(arena, (const char *)data, size, &options, &error);
    if (value != NULL) {
        size_t len;
        char *json = gt_value_to_json(value, &len);
        FUZZ_CHECK(json != NULL, "an accepted value serialises");
        gt_value *again = gt_parse(arena, json, len, &options, &error);
        FUZZ_CHECK(again != NULL, "the serialisation of an accepted value is accepted");
        FUZZ_CHECK(gt_value_equal(value, again), "the round trip keeps the value");
        size_t len2;
        char *json2 = gt_value_to_json(again, &len2);
        FUZZ_CHECK(json2 != NULL && len2 == len && memcmp(json, json2, len) == 0, "serialisation is stable");
        free(json2);
        free(json);
    } else {
        FUZZ_CHECK(gt_syntax_reason_code(error.reason) != NULL, "a rejection has a reason code");
    }
    gt_arena_free(arena);
    return 0;
}
