/* bench_parse.c — syntax gate throughput against bare cJSON_ParseWithOpts and,
 * when built with GT_BENCH_SIMDJSON (bench/peers/simdjson_peer.cpp), against
 * simdjson's DOM parse: the physical ceiling.
 *
 * All parse the same generated model outputs in the same process, rounds
 * interleaved, the median round reported. The strict gate does more work than
 * cJSON (UTF-8 validation, duplicate names, exact number text, positions), so
 * the targets are ratios: >= 0.7x cJSON; against simdjson issue 34's >= 1.0x
 * on ~300 B documents and >= 0.75x on ~1 MB (not met yet: the ratio is
 * printed beside the goal, never hidden).
 * Output: one line per workload and peer with MB/s for each and the ratio,
 * and one for the gate on its portable byte scans (what a machine without
 * SSE2 runs; reference/parse_impl.h) against simdjson. */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gauntlet/parse.h"
#include "reference/parse_impl.h"

#ifdef GT_BENCH_SIMDJSON
const char *gt_peer_simdjson_version(void);
int gt_peer_simdjson_parse(const char *text, size_t len);
#endif
/* simdjson reads up to 64 bytes past a document (SIMDJSON_PADDING): every
 * document buffer has that much slack, so no peer copies its input. */
#define PEER_PADDING 64

typedef struct doc {
    char *text;
    size_t len;
} doc;

/* CPU time of this thread: every parser here runs on it alone, and waiting
 * for a core on a shared machine does not count against either side. */
static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *categories[] = {"billing", "bug", "account", "other"};
static const char *summaries[] = {
    "Customer reports a duplicate charge on the March invoice",
    "App crashes when uploading a profile photo larger than 5 MB \\u2014 reproducible on Android 14",
    "Cannot reset password; the reset e-mail never arrives (checked spam)",
    "Asks whether the annual plan can be paid in two instalments",
};

/* A realistic triage object, about 200-400 bytes. */
static size_t small_doc(char *out, size_t cap, unsigned seed)
{
    return (size_t)snprintf(out, cap,
                            "{\"category\": \"%s\", \"priority\": %u, \"summary\": \"%s\", \"needs_human\": %s, "
                            "\"evidence_ids\": [\"invoice-%u\", \"message-%u\"], \"uncertainty\": \"%s\", "
                            "\"confidence\": 0.%02u, \"refund_amount\": %u.%02u}",
                            categories[seed % 4], 1 + seed % 5, summaries[seed % 4], seed % 3 ? "false" : "true",
                            400 + seed % 100, seed % 50, seed % 2 ? "medium" : "low", seed % 100, seed % 500,
                            seed % 100);
}

/* About `target` bytes: an array of nested ticket objects. */
static doc large_doc(size_t target, unsigned seed)
{
    size_t cap = target + 4096;
    char *text = calloc(1, cap + PEER_PADDING);
    size_t len = 0;
    len += (size_t)snprintf(text + len, cap - len, "{\"tickets\": [");
    unsigned i = 0;
    while (len + 1024 < target) {
        if (i > 0)
            text[len++] = ',';
        len += (size_t)snprintf(text + len, cap - len, "{\"id\": %u, \"triage\": ", seed * 100000 + i);
        len += small_doc(text + len, cap - len, seed + i);
        len += (size_t)snprintf(text + len, cap - len,
                                ", \"history\": [{\"at\": \"2026-11-%02uT10:00:00Z\", \"by\": \"agent-%u\", "
                                "\"note\": \"escalated to tier %u\"}], \"tags\": [\"t%u\", \"t%u\"]}",
                                1 + i % 28, i % 7, 1 + i % 3, i % 13, i % 17);
        i++;
    }
    len += (size_t)snprintf(text + len, cap - len, "], \"count\": %u}", i);
    doc d = {text, len};
    return d;
}

enum { PEER_CJSON, PEER_SIMDJSON, PEERS };
enum { ROUNDS = 7 };

typedef struct result {
    double gt_seconds, peer_seconds[PEERS]; /* medians of ROUNDS */
    double portable_seconds;                /* the gate on its portable scans */
    size_t bytes;
} result;

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Parse one document with `parser` (0 gauntlet, 1 cJSON, 2 simdjson, 3
 * gauntlet on its portable scans); 1 when accepted. */
static size_t parse_one(int parser, gt_arena *arena, const gt_parse_options *options, const doc *d)
{
    size_t accepted = 0;
    if (parser == 0 || parser == 3) {
        gt_parse_error error;
        accepted = gt_parse_with_scan(arena, d->text, d->len, options, &error,
                                      parser == 0 ? GT_PARSE_SCAN_DEFAULT : GT_PARSE_SCAN_PORTABLE) != NULL;
        gt_arena_reset(arena);
    } else if (parser == 1) {
        cJSON *json = cJSON_ParseWithOpts(d->text, NULL, 1);
        accepted = json != NULL;
        cJSON_Delete(json);
    }
#ifdef GT_BENCH_SIMDJSON
    else
        accepted = (size_t)gt_peer_simdjson_parse(d->text, d->len);
#endif
    return accepted;
}

/* One pass of `repeat` x `count` documents through `parser`; returns seconds
 * and adds the accepted count. Every pass of every parser starts with one
 * untimed parse of the first document (BENCH_PARSE_COLD=1: none): the goal
 * is the throughput of a loop over many documents, and the first large
 * malloc after cJSON's pass settles what cJSON left in malloc's fast bins
 * (several ms; on ~1 MB documents the gate's arena makes one per document:
 * bench/README.md). */
static double one_pass(int parser, gt_arena *arena, const gt_parse_options *options, doc *docs, size_t count,
                       int repeat, size_t *accepted)
{
    const char *cold = getenv("BENCH_PARSE_COLD");
    if (cold == NULL || strcmp(cold, "1") != 0)
        parse_one(parser, arena, options, &docs[0]);
    double t0 = now_seconds();
    for (int r = 0; r < repeat; r++)
        for (size_t i = 0; i < count; i++)
            *accepted += parse_one(parser, arena, options, &docs[i]);
    return now_seconds() - t0;
}

static result measure(doc *docs, size_t count, int repeat)
{
    result out = {0, {0, 0}, 0, 0};
    for (size_t i = 0; i < count; i++)
        out.bytes += docs[i].len;
    out.bytes *= (size_t)repeat;
    gt_arena *arena = gt_arena_new();
    gt_parse_options options;
    gt_parse_options_init(&options);
    size_t accepted = 0, expected = 0;
    bool simdjson = false;
#ifdef GT_BENCH_SIMDJSON
    simdjson = true;
#endif
    /* The gate's pass follows simdjson's, which follows cJSON's, as before the
     * portable pass was added: that pass goes right after the gate's and has
     * no goal. */
    static const int order[] = {0, 3, 1, 2};
    double times[4][ROUNDS];
    for (int round = 0; round < ROUNDS; round++)
        for (int k = 0; k < 4; k++) {
            int p = order[k];
            if (p == 2 && !simdjson)
                continue;
            times[p][round] = one_pass(p, arena, &options, docs, count, repeat, &accepted);
            expected += (size_t)repeat * count;
        }
    gt_arena_free(arena);
    if (accepted != expected)
        fprintf(stderr, "bench_parse: a generated document was rejected (%zu of %zu accepted)\n", accepted, expected);
    out.gt_seconds = median(times[0], ROUNDS);
    out.peer_seconds[PEER_CJSON] = median(times[1], ROUNDS);
    if (simdjson)
        out.peer_seconds[PEER_SIMDJSON] = median(times[2], ROUNDS);
    out.portable_seconds = median(times[3], ROUNDS);
    return out;
}

/* `target` 0: no goal for this line.
 * `portable`: the gate's figure on its portable scans. */
static void print_line(const char *name, size_t docs, result r, int peer, double target, bool portable)
{
    static const char *const names[] = {"cJSON", "simdjson"};
    double mb = (double)r.bytes / (1024.0 * 1024.0);
    double gt_rate = mb / (portable ? r.portable_seconds : r.gt_seconds), peer_rate = mb / r.peer_seconds[peer];
    char goal[32] = "(no goal)";
    if (target > 0)
        snprintf(goal, sizeof goal, "(goal >= %.2fx)", target);
    printf("syntax %-15s %6zu docs  gauntlet %7.1f MB/s  %-8s %7.1f MB/s  ratio %.2fx %s\n", name, docs, gt_rate,
           names[peer], peer_rate, gt_rate / peer_rate, goal);
}

int main(void)
{
    enum { SMALL = 20000, LARGE = 8 };
    doc *small = calloc(SMALL, sizeof *small);
    for (unsigned i = 0; i < SMALL; i++) {
        char buffer[1024];
        size_t len = small_doc(buffer, sizeof buffer, i);
        small[i].text = calloc(1, len + 1 + PEER_PADDING);
        memcpy(small[i].text, buffer, len + 1);
        small[i].len = len;
    }
    doc large[LARGE];
    for (unsigned i = 0; i < LARGE; i++)
        large[i] = large_doc(1024 * 1024, i);
    printf("peers: cJSON %s", cJSON_Version());
#ifdef GT_BENCH_SIMDJSON
    printf(", simdjson %s (DOM parse)\n", gt_peer_simdjson_version());
#else
    printf("\nsyntax vs simdjson: skipped: simdjson not found (Debian libsimdjson-dev: sh scripts/deps bench)\n");
#endif
    result small_r = measure(small, SMALL, 5), large_r = measure(large, LARGE, 5);
    print_line("small (~300 B)", SMALL, small_r, PEER_CJSON, 0.7, false);
    print_line("large (~1 MB)", LARGE, large_r, PEER_CJSON, 0.7, false);
#ifdef GT_BENCH_SIMDJSON
    print_line("small (~300 B)", SMALL, small_r, PEER_SIMDJSON, 1.0, false);
    print_line("large (~1 MB)", LARGE, large_r, PEER_SIMDJSON, 0.75, false);
    print_line("large, portable", LARGE, large_r, PEER_SIMDJSON, 0, true);
#else
    print_line("large, portable", LARGE, large_r, PEER_CJSON, 0, true);
#endif
    const char *cold = getenv("BENCH_PARSE_COLD");
    printf("median of %d interleaved rounds, each 5 passes over the documents %s; thread CPU time\n", ROUNDS,
           cold != NULL && strcmp(cold, "1") == 0 ? "(cold: BENCH_PARSE_COLD=1)" : "after one untimed parse");
    for (unsigned i = 0; i < SMALL; i++)
        free(small[i].text);
    free(small);
    for (unsigned i = 0; i < LARGE; i++)
        free(large[i].text);
    return 0;
}
