/* fuzz_adapter_request.c — the reference adapter's request reader
 * (adapters/reference/request.h): one line of the runner's stdin, parsed as
 * the adapter parses it, then read. A request taken has its members in
 * range; a refused one says which member and why. */
#include <string.h>

#include "fuzz.h"
#include "adapters/reference/request.h"
#include "gauntlet/arena.h"
#include "gauntlet/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gt_arena *arena = gt_arena_new();
    if (arena == NULL)
        return 0;
    gt_parse_options options;
    gt_parse_options_init(&options);
    options.rfc8259 = true;
    options.max_depth = 100000;
    options.max_bytes = 1u << 30;
    gt_parse_error perr;
    const gt_value *request = gt_parse(arena, (const char *)data, size, &options, &perr);
    if (request != NULL && request->type == GT_OBJECT) {
        gt_ref_request r;
        char why[256] = "";
        if (gt_ref_request_read(request, &r, why, sizeof why) == 0) {
            FUZZ_CHECK(r.id != NULL && r.gate != NULL && r.seq != NULL, "a request taken has seq, id and gate");
            FUZZ_CHECK(r.raw != NULL, "a request taken has its raw bytes");
            FUZZ_CHECK((unsigned long long)r.max_bytes <= (unsigned long long)GT_REF_ADAPTER_MAX_BYTES_LIMIT,
                       "max_bytes is in range");
            gt_ref_request_clear(&r);
        } else {
            FUZZ_CHECK(why[0] != '\0', "a refused request says why");
        }
    }
    gt_arena_free(arena);
    return 0;
}
