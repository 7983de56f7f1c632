/* sha256.c — SHA-256 for the corpus content hash of the certification summary,
 * computed by libnettle (a SHA-256 is the same on every machine whichever
 * library computes it; suite/test_report.c pins a corpus hash). Not for:
 * anything security-sensitive beyond identifying a corpus (and the HTML
 * report's script, whose hash its Content-Security-Policy names). */
#include <stdio.h>

#include "report_util.h"

void gt_sha256_init(gt_sha256 *sha)
{
    sha256_init(&sha->ctx);
}

void gt_sha256_update(gt_sha256 *sha, const void *data, size_t len)
{
    sha256_update(&sha->ctx, len, data);
}

void gt_sha256_digest(gt_sha256 *sha, unsigned char digest[GT_SHA256_SIZE])
{
    sha256_digest(&sha->ctx, GT_SHA256_SIZE, digest);
}

void gt_sha256_hex(gt_sha256 *sha, char hex[65])
{
    unsigned char digest[GT_SHA256_SIZE];
    gt_sha256_digest(sha, digest);
    for (size_t i = 0; i < sizeof digest; i++)
        snprintf(hex + 2 * i, 3, "%02x", digest[i]);
}
