/* bench_parse.c — syntax gate throughput against bare cJSON_ParseWithOpts.
 *
 * Both parse the same generated model outputs in the same process, rounds
 * interleaved, best round kept. The strict gate does more work than cJSON
 * (UTF-8 validation, duplicate names, exact number text), so the target is a
 * ratio (>= 0.7x), not a win. Output: one line per workload with MB/s for
 * each and the ratio. */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gauntlet/parse.h"

typedef struct doc {
    char *text;
    size_t len;
} doc;

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
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
    char *text = malloc(cap);
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

typedef struct result {
    double gt_seconds, cjson_seconds;
    size_t bytes;
} result;

static result measure(doc *docs, size_t count, int rounds, int repeat)
{
    result best = {1e30, 1e30, 0};
    for (size_t i = 0; i < count; i++)
        best.bytes += docs[i].len;
    best.bytes *= (size_t)repeat;
    gt_arena *arena = gt_arena_new();
    gt_parse_options options;
    gt_parse_options_init(&options);
    size_t accepted = 0;
    for (int round = 0; round < rounds; round++) {
        double t0 = now_seconds();
        for (int r = 0; r < repeat; r++)
            for (size_t i = 0; i < count; i++) {
                gt_parse_error error;
                accepted += gt_parse(arena, docs[i].text, docs[i].len, &options, &error) != NULL;
                gt_arena_reset(arena);
            }
        double t1 = now_seconds();
        for (int r = 0; r < repeat; r++)
            for (size_t i = 0; i < count; i++) {
                cJSON *json = cJSON_ParseWithOpts(docs[i].text, NULL, 1);
                accepted += json != NULL;
                cJSON_Delete(json);
            }
        double t2 = now_seconds();
        if (t1 - t0 < best.gt_seconds)
            best.gt_seconds = t1 - t0;
        if (t2 - t1 < best.cjson_seconds)
            best.cjson_seconds = t2 - t1;
    }
    gt_arena_free(arena);
    if (accepted != (size_t)rounds * (size_t)repeat * count * 2)
        fprintf(stderr, "bench_parse: a generated document was rejected (%zu accepted)\n", accepted);
    return best;
}

static void print_line(const char *name, size_t docs, result r)
{
    double mb = (double)r.bytes / (1024.0 * 1024.0);
    double gt_rate = mb / r.gt_seconds, cj_rate = mb / r.cjson_seconds;
    printf("syntax %-22s %6zu docs  gauntlet %8.1f MB/s  cJSON %8.1f MB/s  ratio %.2fx (target >= 0.70x)\n", name,
           docs, gt_rate, cj_rate, gt_rate / cj_rate);
}

int main(void)
{
    enum { SMALL = 20000, LARGE = 8 };
    doc *small = calloc(SMALL, sizeof *small);
    for (unsigned i = 0; i < SMALL; i++) {
        char buffer[1024];
        size_t len = small_doc(buffer, sizeof buffer, i);
        small[i].text = malloc(len + 1);
        memcpy(small[i].text, buffer, len + 1);
        small[i].len = len;
    }
    doc large[LARGE];
    for (unsigned i = 0; i < LARGE; i++)
        large[i] = large_doc(1024 * 1024, i);
    print_line("small (~300 B)", SMALL, measure(small, SMALL, 7, 5));
    print_line("large (~1 MB)", LARGE, measure(large, LARGE, 7, 5));
    for (unsigned i = 0; i < SMALL; i++)
        free(small[i].text);
    free(small);
    for (unsigned i = 0; i < LARGE; i++)
        free(large[i].text);
    return 0;
}
