#!/bin/sh
# make bench: every benchmark measures a ratio against a named peer in the same run.
BUILD=${BUILD:-build}
GAUNTLET=${GAUNTLET:-$BUILD/gauntlet}
export BUILD GAUNTLET
echo "== syntax gate vs bare cJSON_ParseWithOpts (same bytes, same process)"
"$BUILD/bench/bench_parse" || exit 1
echo "== gauntlet gen: cases generated and checked by the in-process reference per second"
"$BUILD/bench/bench_gen" || exit 1
for script in bench/*/run.sh; do
    [ -f "$script" ] || continue
    echo "== $(dirname "$script")"
    sh "$script" || exit 1
done
