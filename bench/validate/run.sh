#!/bin/sh
# run.sh — `gauntlet validate --jsonl` against ajv (Ajv2020, allErrors: true,
# JSON.parse + validate per line) on three generated workloads: a small flat
# triage schema (100k lines, so start-up is amortised honestly), a nested
# schema ($ref/anyOf/pattern/multipleOf), and 100 KB+ documents. Prints
# lines/s for both and the ratio (goal >= 2.0x, whole gauntlet process against
# ajv's loop alone); never fails on the ratio. ROUNDS interleaved rounds, the
# median of each side reported. ajv is installed with npm into bench/node/
# (git-ignored). Needs node: without it, one "skipped" line.
set -u
GAUNTLET=${GAUNTLET:-build/gauntlet}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
WORK=${BENCH_WORK:-$ROOT/build/bench-validate}
. "$HERE/../ajv.sh"
. "$HERE/../median.sh"
ensure_ajv bench/validate || exit 0
mkdir -p "$WORK"
node "$HERE/gen.js" "$WORK" "${BENCH_SCALE:-1}"

now() { date +%s.%N; }
ROUNDS=${BENCH_ROUNDS:-5}
: > "$WORK/empty.jsonl"
echo "peer: node $(node --version) + ajv $(ajv_version) (Ajv2020, allErrors; JSON.parse + validate per line, loop time only)"
printf '%-8s %8s %14s %14s %8s %12s\n' workload lines gauntlet/s ajv/s ratio "loop-only"
for w in small nested large; do
    schema="$WORK/$w.schema.json"; data="$WORK/$w.jsonl"
    lines=$(wc -l < "$data" | tr -d ' ')
    g_all=""; s_all=""; a_all=""; out=""; a=""
    for round in $(seq "$ROUNDS"); do
        t0=$(now)
        out=$("$GAUNTLET" validate --schema "$schema" --jsonl "$data" | head -n 1)
        t1=$(now)
        g_all="$g_all $(echo "$t1 $t0" | awk '{ printf "%.4f", $1 - $2 }')"
        t0=$(now)
        "$GAUNTLET" validate --schema "$schema" --jsonl "$WORK/empty.jsonl" >/dev/null
        t1=$(now)
        s_all="$s_all $(echo "$t1 $t0" | awk '{ printf "%.4f", $1 - $2 }')"
        a=$(node "$HERE/ajv-run.js" "$schema" "$data" "$NODE_DIR")
        a_all="$a_all $(echo "$a" | awk '{ print $3 }')"
    done
    # shellcheck disable=SC2086 # word splitting of the lists is intended
    g=$(median $g_all); s0=$(median $s_all); a_med=$(median $a_all)
    echo "$w" "$lines" "$g" "$a_med" "$(echo "$a" | awk '{ print $5 }')" "$out" "$s0" | awk '{
        gl = $2 / $3; al = $2 / $4; loop = $3 - $10; if (loop <= 0) loop = 1e-6;
        printf "%-8s %8d %14.0f %14.0f %7.2fx %11.2fx   (goal >= 2.00x; valid: gauntlet %s, ajv %s)\n", $1, $2, gl, al, gl / al, ($2 / loop) / al, $6, $5 }'
done
echo "median of $ROUNDS interleaved rounds per side"
echo "ratio = gauntlet lines/s / ajv lines/s (gauntlet: whole process incl. start-up and compile; ajv: validation loop only)"
echo "loop-only = the same with gauntlet's start-up + compile (the median run on an empty file) taken out, like ajv's figure"
echo "valid counts differ where ajv's floating-point multipleOf rejects exact decimals (19.99 multipleOf 0.01)"
