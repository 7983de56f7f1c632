/* fuzz_stream.c — the SSE parser and stream assembler. The first byte picks
 * the provider and how the rest is split into feeds; the assembled result
 * must not depend on the split. */
#include <string.h>

#include "fuzz.h"
#include "gauntlet/arena.h"
#include "gauntlet/stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    gt_stream_provider provider = (data[0] & 1) ? GT_PROVIDER_OPENAI : GT_PROVIDER_ANTHROPIC;
    size_t step = 1 + (data[0] >> 1);
    const char *bytes = (const char *)data + 1;
    size_t len = size - 1;
    gt_arena *arena = gt_arena_new();
    if (arena == NULL)
        return 0;
    gt_stream_result whole;
    gt_stream_reason one = gt_stream_assemble(provider, bytes, len, arena, &whole);
    gt_stream *stream = gt_stream_new(provider, arena);
    if (stream != NULL) {
        for (size_t at = 0; at < len; at += step)
            gt_stream_feed(stream, bytes + at, at + step <= len ? step : len - at);
        gt_stream_result pieces;
        gt_stream_reason split = gt_stream_finish(stream, &pieces);
        FUZZ_CHECK(split == one, "the verdict does not depend on how the bytes arrive");
        FUZZ_CHECK(gt_stream_reason_code(one) != NULL, "a verdict has a reason code");
        gt_stream_free(stream);
    }
    gt_arena_free(arena);
    return 0;
}
