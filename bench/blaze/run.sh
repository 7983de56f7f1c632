#!/bin/sh
# run.sh — gauntlet's structure gate against Blaze (sourcemeta's validator,
# through its CLI @sourcemeta/jsonschema, pinned in bench/package.json) on the
# validate workloads (bench/validate/gen.js, their `.values.jsonl`: one JSON
# value a line): the flat triage schema (the first BLAZE_SMALL_LINES lines,
# default 20,000: Blaze prints a line per instance), the nested order
# ($ref/anyOf/pattern/multipleOf) and 100 KB+ documents.
#   Blaze:    `jsonschema validate S F --fast --benchmark --loop 20 --continue`
#             prints each instance's mean evaluation time over 20 loops; the
#             figure is the mean over the instances.
#   gauntlet: `gauntlet validate --schema S --jsonl F --values --time-first-failure`:
#             the mean over the documents of each one's fastest of 5 structure-gate
#             runs on its already-parsed value (docs/structure-gate.md), for the
#             first-failure gate (`time-first-failure:` line, verdict only, stops
#             at the first failing keyword) and for the all-errors gate (`time:`
#             line, every error with its paths and message).
# ratio = Blaze ns/doc / gauntlet first-failure ns/doc (goal >= 1.0): Blaze
# --fast also answers only valid/invalid and stops at the first failure, so
# that is the like-for-like pairing; the all-errors figure and its ratio are
# printed beside it. Median of ROUNDS rounds per side, interleaved. Never
# fails on the ratio; a missing peer is one "skipped" line.
set -u
GAUNTLET=${GAUNTLET:-build/gauntlet}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
WORK=${BENCH_WORK_BLAZE:-$ROOT/build/bench-blaze}
. "$HERE/../ajv.sh"
. "$HERE/../median.sh"
ensure_peers bench/blaze || exit 0
BLAZE="$NODE_DIR/node_modules/.bin/jsonschema"
[ -x "$BLAZE" ] || { echo "bench/blaze: skipped: @sourcemeta/jsonschema is not in bench/node/"; exit 0; }
version=$("$BLAZE" version 2>/dev/null | head -n 1)
[ -n "$version" ] || { echo "bench/blaze: skipped: $BLAZE does not run on this machine"; exit 0; }
mkdir -p "$WORK"
node "$ROOT/bench/validate/gen.js" "$WORK" "${BENCH_SCALE:-1}"
head -n "${BLAZE_SMALL_LINES:-20000}" "$WORK/small.values.jsonl" > "$WORK/small.head.jsonl"
DIALECT=https://json-schema.org/draft/2020-12/schema
# The triage lines split by verdict (Blaze's, one loop; its "FILE[N]" counts
# from 1): valid and invalid documents cost each side differently (on an
# invalid one gauntlet's all-errors gate computes every error with its path and
# checks its limits to the end; Blaze --fast and gauntlet's first-failure gate
# stop at the first failure).
"$BLAZE" validate "$WORK/small.schema.json" "$WORK/small.head.jsonl" -d "$DIALECT" --fast --benchmark --loop 1 --continue 2>&1 |
    sed -n 's/^.*\[\([0-9]*\)\]: \(PASS\|FAIL\) .*/\1 \2/p' > "$WORK/small.verdicts"
awk 'NR == FNR { v[$1] = $2; next } v[FNR] == "PASS" { print > valid } v[FNR] == "FAIL" { print > invalid }' \
    valid="$WORK/small-valid.values.jsonl" invalid="$WORK/small-invalid.values.jsonl" \
    "$WORK/small.verdicts" "$WORK/small.head.jsonl"
cp "$WORK/small.schema.json" "$WORK/small-valid.schema.json"
cp "$WORK/small.schema.json" "$WORK/small-invalid.schema.json"
ROUNDS=${BENCH_ROUNDS:-3}
echo "peer: Blaze, @sourcemeta/jsonschema $version (--fast --benchmark --loop 20 --continue; mean per instance)"
printf '%-13s %8s %14s %14s %8s %14s %8s %12s\n' workload docs "blaze ns/doc" "first-fail ns" ratio \
    "all-errors ns" ratio "(parse ns)"
for w in small small-valid small-invalid nested large; do
    schema="$WORK/$w.schema.json"; data="$WORK/$w.values.jsonl"
    [ "$w" = small ] && data="$WORK/small.head.jsonl"
    docs=$(wc -l < "$data" | tr -d ' ')
    b_all=""; g_all=""; f_all=""; p_all=""; b_valid=""; g_valid=""; same=""
    for round in $(seq "$ROUNDS"); do
        # one line per instance: "FILE[N]: PASS 0.119 +- 0.432 us (0.034)"; the mean in microseconds
        b=$("$BLAZE" validate "$schema" "$data" -d "$DIALECT" --fast --benchmark --loop 20 --continue 2>&1 |
            awk '$2 == "PASS" || $2 == "FAIL" { n++; sum += $3; if ($2 == "PASS") ok++ }
                 END { if (n) printf "%.1f %d %d\n", sum * 1000 / n, n, ok; else print "none" }')
        [ "$b" = none ] && { echo "bench/blaze: skipped: $w: Blaze printed no per-instance time"; exit 0; }
        b_all="$b_all $(echo "$b" | awk '{ print $1 }')"; b_valid=$(echo "$b" | awk '{ print $3 }')
        t=$("$GAUNTLET" validate --schema "$schema" --jsonl "$data" --values --time-first-failure)
        g_all="$g_all $(echo "$t" | sed -n 's/^time: .* validate \([0-9.]*\) ns\/doc$/\1/p')"
        f_all="$f_all $(echo "$t" | sed -n 's/^time-first-failure: .* validate \([0-9.]*\) ns\/doc, .*$/\1/p')"
        same=$(echo "$t" | sed -n 's/^time-first-failure: \([0-9]*\) docs, .* same verdict \([0-9]*\)$/\2 of \1/p')
        p_all="$p_all $(echo "$t" | sed -n 's/^time: .* parse \([0-9.]*\) ns\/doc.*$/\1/p')"
        g_valid=$(echo "$t" | sed -n 's/^\([0-9]*\) valid, .*/\1/p')
    done
    # shellcheck disable=SC2086 # word splitting of the lists is intended
    bm=$(median $b_all); gm=$(median $g_all); fm=$(median $f_all); pm=$(median $p_all)
    echo "$w $docs $bm $fm $gm $pm $b_valid $g_valid $same" | awk '{
        printf "%-13s %8d %14.1f %14.1f %7.2fx %14.1f %7.2fx %12.1f   (goal >= 1.00x first-fail; valid: blaze %s, gauntlet %s; same verdict %s %s %s)\n",
            $1, $2, $3, $4, ($4 > 0 ? $3 / $4 : 0), $5, ($5 > 0 ? $3 / $5 : 0), $6, $7, $8, $9, $10, $11 }'
done
echo "median of $ROUNDS interleaved rounds per side; ratio = Blaze ns/doc / gauntlet ns/doc: first-fail (gauntlet's"
echo "first-failure gate, verdict only: Blaze --fast's like) and all-errors (every error with its paths and message)"
echo "gauntlet's figure is each document's fastest of 5 runs, Blaze's the mean of 20 loops: the method favours gauntlet"
echo "valid = the documents each side accepted (they must agree: the same verdicts)"
