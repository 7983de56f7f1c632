#!/bin/sh
# run.sh — `gauntlet validate --jsonl` streams: its peak memory must not grow
# with the file (bounded by the longest line). Two generated files of the same
# lines, ~10 MB and ~80 MB, peak RSS of each whole process (GNU time's %M);
# goal: the big file within 8 MiB of the small one. Needs no peer; without
# /usr/bin/time (Debian package time), one "skipped" line.
set -u
GAUNTLET=${GAUNTLET:-build/gauntlet}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
WORK=${BENCH_WORK:-$ROOT/build/bench-jsonl-memory}
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "bench/jsonl-memory: skipped: /usr/bin/time is not installed (Debian package time)"; exit 0; }
mkdir -p "$WORK"
printf '%s\n' '{"type":"object","properties":{"id":{"type":"integer"},"note":{"type":"string","maxLength":200}},"required":["id"]}' >"$WORK/schema.json"
gen() { # $1 lines, $2 file: each line a JSON string literal holding one object
    awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++)
        printf "\"{\\\"id\\\": %d, \\\"note\\\": \\\"line %d of a streamed file, padded to about eighty bytes\\\"}\"\n", i, i }' >"$2"
}
[ -s "$WORK/small.jsonl" ] || gen 110000 "$WORK/small.jsonl"
[ -s "$WORK/big.jsonl" ] || gen 880000 "$WORK/big.jsonl"
peak() { # peak RSS in KiB of validate --jsonl on $1
    "$TIME" -f '%M' -o "$WORK/rss" "$GAUNTLET" validate --schema "$WORK/schema.json" --jsonl "$1" >"$WORK/out" 2>&1
    cat "$WORK/rss"
}
small_mb=$(($(wc -c <"$WORK/small.jsonl") / 1048576)); big_mb=$(($(wc -c <"$WORK/big.jsonl") / 1048576))
small_kb=$(peak "$WORK/small.jsonl"); small_out=$(head -n 1 "$WORK/out")
big_kb=$(peak "$WORK/big.jsonl"); big_out=$(head -n 1 "$WORK/out")
echo "jsonl peak RSS: ${small_mb} MB file: $small_kb KiB ($small_out); ${big_mb} MB file: $big_kb KiB ($big_out)"
awk -v a="$small_kb" -v b="$big_kb" 'BEGIN { d = b - a;
    printf "jsonl memory: %+d KiB for %sx the file (goal: independent of file size, within 8192 KiB): %s\n",
        d, "8", (d < 8192 ? "met" : "NOT met") }'
