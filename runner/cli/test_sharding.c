/* test_sharding.c — Bazel's and GoogleTest's test-sharding environment for
 * `gauntlet run` (test_sharding.h). */
#include "test_sharding.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utime.h>

#include "cli_io.h"

/* The variable `name` when set and not empty, else NULL. */
static const char *variable(const char *name)
{
    const char *value = getenv(name);
    return value != NULL && value[0] != '\0' ? value : NULL;
}

/* A decimal number of at most 9 digits; -1 when `text` is not one. */
static long decimal(const char *text)
{
    long value = 0;
    size_t digits = 0;
    for (const char *p = text; *p; p++, digits++) {
        if (*p < '0' || *p > '9' || digits == 9)
            return -1;
        value = value * 10 + (*p - '0');
    }
    return digits > 0 ? value : -1;
}

int gt_test_sharding_read(gt_test_sharding *sharding, unsigned max_shards, char *err, size_t err_len)
{
    memset(sharding, 0, sizeof *sharding);
    sharding->status_file = variable("TEST_SHARD_STATUS_FILE");
    sharding->xml_output = variable("XML_OUTPUT_FILE");
    const char *total = variable("TEST_TOTAL_SHARDS"), *index = variable("TEST_SHARD_INDEX");
    if (total == NULL && index == NULL)
        return 0;
    if (total == NULL || index == NULL) {
        snprintf(err, err_len, "%s is set but %s is not (Bazel's test sharding sets both)",
                 total ? "TEST_TOTAL_SHARDS" : "TEST_SHARD_INDEX", total ? "TEST_SHARD_INDEX" : "TEST_TOTAL_SHARDS");
        return -1;
    }
    long count = decimal(total), at = decimal(index);
    if (count < 1 || count > (long)max_shards) {
        snprintf(err, err_len, "TEST_TOTAL_SHARDS needs a number from 1 to %u, got '%s'", max_shards, total);
        return -1;
    }
    if (at < 0 || at >= count) {
        snprintf(err, err_len, "TEST_SHARD_INDEX needs a number from 0 to %ld (TEST_TOTAL_SHARDS=%ld), got '%s'",
                 count - 1, count, index);
        return -1;
    }
    sharding->shard_index = (unsigned)at + 1;
    sharding->shard_count = (unsigned)count;
    return 0;
}

int gt_test_sharding_touch_status(const gt_test_sharding *sharding, char *err, size_t err_len)
{
    if (sharding->status_file == NULL)
        return 0;
    char why[512];
    if (gt_make_parent_dirs(sharding->status_file, why, sizeof why) != 0) {
        snprintf(err, err_len, "cannot touch TEST_SHARD_STATUS_FILE '%s': %s", sharding->status_file, why);
        return -1;
    }
    int fd = open(sharding->status_file, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0 || close(fd) != 0 || utime(sharding->status_file, NULL) != 0) {
        snprintf(err, err_len, "cannot touch TEST_SHARD_STATUS_FILE '%s': %s", sharding->status_file,
                 strerror(errno));
        return -1;
    }
    return 0;
}
