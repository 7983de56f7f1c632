/* fuzz_wire.c — the wire conversions on a schema: strict subset (seed 000),
 * SDK transform (seed 004) in both flavors, provider lint. Property: what the
 * strict conversion produces converts again to the same schema (idempotent),
 * and every rejection carries a code. */
#include <string.h>

#include "fuzz.h"
#include "gauntlet/arena.h"
#include "gauntlet/parse.h"
#include "gauntlet/value.h"
#include "gauntlet/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gt_arena *arena = gt_arena_new();
    if (arena == NULL)
        return 0;
    gt_parse_error error;
    gt_value *schema = gt_parse(arena, (const char *)data, size, NULL, &error);
    if (schema != NULL) {
        gt_value *strict = NULL;
        gt_wire_problem problem;
        int rc = gt_wire_strict(arena, schema, &strict, &problem);
        if (rc == GT_WIRE_OK) {
            gt_value *again = NULL;
            FUZZ_CHECK(gt_wire_strict(arena, strict, &again, &problem) == GT_WIRE_OK, "strict output is strict");
            FUZZ_CHECK(gt_value_equal(strict, again), "the strict conversion is idempotent");
        } else if (rc == GT_WIRE_REJECTED)
            FUZZ_CHECK(problem.code != NULL, "a strict rejection has a code");
        for (int flavor = 0; flavor < 2; flavor++) {
            gt_value *out = NULL;
            rc = gt_wire_transform(arena, schema, (gt_wire_flavor)flavor, &out, &problem);
            if (rc == GT_WIRE_REJECTED)
                FUZZ_CHECK(problem.code != NULL, "a transform rejection has a code");
        }
        for (int provider = 0; provider < 2; provider++) {
            gt_wire_lint_options options;
            gt_wire_lint_options_init(&options);
            options.provider = (gt_wire_provider)provider;
            gt_wire_findings findings = {0};
            const gt_value *one = schema;
            gt_wire_lint(&one, 1, &options, &findings);
            for (size_t i = 0; i < findings.count; i++)
                FUZZ_CHECK(findings.items[i].code != NULL, "a finding has a code");
            gt_wire_findings_free(&findings);
        }
    }
    gt_arena_free(arena);
    return 0;
}
