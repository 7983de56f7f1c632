/* fuzz_corpus.c — the corpus loader on one case file's text. Every case it
 * keeps has an id and a gate; a problem always names a field. */
#include <string.h>

#include "fuzz.h"
#include "gauntlet/runner/corpus.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gt_corpus *corpus = gt_corpus_new();
    if (corpus == NULL)
        return 0;
    int added = gt_corpus_load_text(corpus, "fuzz/input.cases.json", (const char *)data, size);
    if (added >= 0) {
        FUZZ_CHECK((size_t)added == gt_corpus_count(corpus), "the count returned is the count kept");
        for (size_t i = 0; i < gt_corpus_count(corpus); i++) {
            const gt_case *kase = gt_corpus_case(corpus, i);
            FUZZ_CHECK(kase->input.id != NULL && kase->input.gate != NULL, "a kept case has an id and a gate");
        }
        for (size_t i = 0; i < gt_corpus_problem_count(corpus); i++)
            FUZZ_CHECK(gt_corpus_problem(corpus, i)->field != NULL, "a problem names a field");
    }
    gt_corpus_free(corpus);
    return 0;
}
