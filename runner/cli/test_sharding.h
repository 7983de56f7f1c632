/* test_sharding.h — the test-sharding contract of Bazel and GoogleTest, for
 * `gauntlet run`: TEST_TOTAL_SHARDS and TEST_SHARD_INDEX (0-based) select
 * the same shard as `--shard K/N` (1-based: K = index + 1), the file named
 * by TEST_SHARD_STATUS_FILE is touched to say sharding is supported, and
 * XML_OUTPUT_FILE names where a JUnit report goes. docs/ci.md. Not for:
 * the split itself (runner/corpus_shard.h). */
#ifndef GT_TEST_SHARDING_H
#define GT_TEST_SHARDING_H

#include <stddef.h>

typedef struct gt_test_sharding {
    unsigned shard_index;    /* 1-based, as --shard K/N; 0 = the environment asks for no sharding */
    unsigned shard_count;    /* N; 0 = not sharded */
    const char *status_file; /* TEST_SHARD_STATUS_FILE, or NULL */
    const char *xml_output;  /* XML_OUTPUT_FILE, or NULL */
} gt_test_sharding;

/* Read the four variables (an empty one counts as unset). TEST_TOTAL_SHARDS
 * without TEST_SHARD_INDEX, or either not a number (1 <= N <= `max_shards`,
 * 0 <= index < N), is an error. Returns 0, or -1 with a message in `err`
 * naming the variable and its value. */
int gt_test_sharding_read(gt_test_sharding *sharding, unsigned max_shards, char *err, size_t err_len);

/* Touch sharding->status_file (create it, or update its time; missing
 * parent folders are created) when set. Returns 0, or -1 with `err`. */
int gt_test_sharding_touch_status(const gt_test_sharding *sharding, char *err, size_t err_len);

#endif
