/* fuzz_schema.c — schema compile + validate. Input: schema JSON, a NUL byte,
 * then the instance JSON (no NUL: compile only). Properties: the verdict
 * alone and the verdict with every error agree (unless a bound stopped one
 * of them), and an invalid verdict names at least one error. */
#include <string.h>

#include "fuzz.h"
#include "gauntlet/arena.h"
#include "gauntlet/parse.h"
#include "gauntlet/schema.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, 0, size);
    size_t schema_len = nul ? (size_t)(nul - data) : size;
    gt_schema_options options;
    gt_schema_options_init(&options);
    options.max_evaluations = 200000; /* keeps one execution well under libFuzzer's timeout */
    options.assert_formats = schema_len % 2 == 1;
    gt_schema_problem problem;
    gt_schema *schema = gt_schema_compile((const char *)data, schema_len, &options, &problem);
    if (schema == NULL) {
        FUZZ_CHECK(gt_schema_problem_code_str(problem.code) != NULL, "a compile problem has a code");
        return 0;
    }
    if (nul != NULL) {
        gt_arena *arena = gt_arena_new();
        gt_parse_error error;
        const gt_value *instance =
            arena ? gt_parse(arena, (const char *)nul + 1, size - schema_len - 1, NULL, &error) : NULL;
        if (instance != NULL) {
            gt_schema_result quick = gt_schema_validate(schema, instance, NULL);
            gt_schema_errors errors;
            gt_schema_errors_init(&errors);
            gt_schema_result full = gt_schema_validate(schema, instance, &errors);
            if (quick != GT_SCHEMA_ERROR && full != GT_SCHEMA_ERROR)
                FUZZ_CHECK(quick == full, "the verdict does not depend on collecting errors");
            if (full == GT_SCHEMA_INVALID)
                FUZZ_CHECK(errors.count > 0, "an invalid verdict names an error");
            if (full == GT_SCHEMA_ERROR && gt_schema_failure_is_limit(errors.failure))
                FUZZ_CHECK(errors.count == 1, "a limit hit is one error naming the limit");
            gt_schema_errors_free(&errors);
        }
        gt_arena_free(arena);
    }
    gt_schema_free(schema);
    return 0;
}
