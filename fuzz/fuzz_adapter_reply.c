/* fuzz_adapter_reply.c — the adapter target's reply reader (one line of a
 * vendor adapter's stdout). A reply it takes has a verdict; a refused one has
 * a reason. */
#include <string.h>

#include "fuzz.h"
#include "gauntlet/runner/run.h"
#include "runner/targets/target_adapter.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gt_observed observed;
    memset(&observed, 0, sizeof observed);
    char why[256] = "";
    int status = gt_adapter_reply_read((const char *)data, size, &observed, why, sizeof why);
    if (status == 0)
        FUZZ_CHECK(observed.verdict == GT_VERDICT_ACCEPT || observed.verdict == GT_VERDICT_REJECT,
                   "a reply taken has a verdict");
    else
        FUZZ_CHECK(why[0] != '\0' || status == -1, "a refused reply says why");
    gt_observed_clear(&observed);
    return 0;
}
