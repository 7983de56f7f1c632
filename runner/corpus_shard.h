/* corpus_shard.h — split a loaded corpus for CI fan-out (`gauntlet run
 * --shard K/N`); implemented next to gt_corpus_filter in corpus.c. */
#ifndef GT_CORPUS_SHARD_H
#define GT_CORPUS_SHARD_H

#include <stddef.h>

#include "gauntlet/runner/corpus.h"

/* Keep shard `index` (1-based) of `count` of the current selection: the
 * cases at positions index-1, index-1+count, ... (round-robin). Position p of
 * the selection is result p / count of shard p % count + 1, which is how
 * `gauntlet merge` puts the cases back in order. Returns the number kept; a
 * bad index or count keeps everything. */
size_t gt_corpus_shard(gt_corpus *corpus, unsigned index, unsigned count);

#endif
