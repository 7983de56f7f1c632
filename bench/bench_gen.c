/* bench_gen.c — `gauntlet gen` throughput: candidates generated and checked
 * by the in-process reference per second, on the triage contract
 * (corpus/schemas/support-triage-v1.json), every operator family on. The
 * floor is 10,000 cases/s (issue 15): a rate, best of several rounds, one
 * seed per round. Output: one line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gauntlet/util.h"
#include "runner/explore/gen.h"

#define BENCH_GEN_ROUNDS 5
#define BENCH_GEN_FLOOR 10000.0

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(void)
{
    const char *path = "corpus/schemas/support-triage-v1.json";
    char err[512];
    size_t len;
    char *schema = gt_read_file(path, &len, err, sizeof err);
    if (schema == NULL) {
        fprintf(stderr, "bench_gen: %s\n", err);
        return 1;
    }
    double best = 0;
    size_t cases = 0;
    for (unsigned round = 0; round < BENCH_GEN_ROUNDS; round++) {
        double start = now_seconds();
        size_t made = 0;
        /* several generators per round so that a round lasts long enough to time */
        for (unsigned seed = 1; seed <= 20; seed++) {
            gt_gen_options options = {.seed = round * 100 + seed, .origin = path};
            gt_gen *gen = gt_gen_new(schema, len, &options, err, sizeof err);
            if (gen == NULL || gt_gen_generate(gen, err, sizeof err) != 0) {
                fprintf(stderr, "bench_gen: %s\n", err);
                gt_gen_free(gen);
                free(schema);
                return 1;
            }
            made += gt_gen_count(gen);
            gt_gen_free(gen);
        }
        double rate = (double)made / (now_seconds() - start);
        if (rate > best) {
            best = rate;
            cases = made;
        }
    }
    free(schema);
    printf(
        "gen    triage schema  %6zu cases/round  generated + reference-checked %9.0f cases/s (target >= %.0f/s) %s\n",
        cases, best, BENCH_GEN_FLOOR, best >= BENCH_GEN_FLOOR ? "ok" : "BELOW TARGET");
    return 0;
}
