/* simdjson_peer.cpp — simdjson's DOM parse as the physical-ceiling peer of
 * bench/bench_parse.c (bench only; Debian libsimdjson-dev, never vendored).
 * Built and linked only when pkg-config finds simdjson; bench_parse.c then
 * defines GT_BENCH_SIMDJSON and calls these two functions. */
#include <simdjson.h>

#define GT_STR2(x) #x
#define GT_STR(x) GT_STR2(x)

static simdjson::dom::parser parser; /* reused across documents, like gauntlet's arena */

extern "C" {
/* simdjson's version as compiled ("3.0.1"). */
const char *gt_peer_simdjson_version(void) { return GT_STR(SIMDJSON_VERSION); }

/* Parse `len` bytes into a DOM (UTF-8 validated). The caller's buffer has at
 * least SIMDJSON_PADDING (64) readable bytes past `len`. 1 accepted, 0 not. */
int gt_peer_simdjson_parse(const char *text, size_t len)
{
    simdjson::dom::element root;
    return parser.parse(text, len, false).get(root) == simdjson::SUCCESS;
}
}
