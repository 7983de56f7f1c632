#!/bin/sh
# run.sh — `gauntlet validate --jsonl` against ajv (Ajv2020, allErrors: true,
# JSON.parse + validate per line) on three generated workloads: a small flat
# triage schema (100k lines, so start-up is amortised honestly), a nested
# schema ($ref/anyOf/pattern/multipleOf), and 100 KB+ documents. Prints
# lines/s for both and the ratio (goal >= 2.0x, whole gauntlet process against
# ajv's loop alone); never fails on the ratio. ROUNDS interleaved rounds, the
# median of each side reported. ajv (pinned, bench/package-lock.json) is installed with npm ci into bench/node/
# (git-ignored). Needs node and python3 (bench/validate/cpu-run.py times the
# gauntlet process): without them, one "skipped" line.
set -u
GAUNTLET=${GAUNTLET:-build/gauntlet}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
WORK=${BENCH_WORK:-$ROOT/build/bench-validate}
. "$HERE/../ajv.sh"
. "$HERE/../median.sh"
ensure_ajv bench/validate || exit 0
command -v python3 >/dev/null 2>&1 || { echo "bench/validate: skipped: python3 is not installed"; exit 0; }
mkdir -p "$WORK"
node "$HERE/gen.js" "$WORK" "${BENCH_SCALE:-1}"

ROUNDS=${BENCH_ROUNDS:-5}
: > "$WORK/empty.jsonl"
echo "peer: node $(node --version) + ajv $(ajv_version) (Ajv2020, allErrors; JSON.parse + validate per line, loop time only)"
printf '%-8s %8s %12s %12s %8s %10s %10s\n' workload lines gauntlet/s ajv/s ratio loop-only "cpu ratio"
for w in small nested large; do
    schema="$WORK/$w.schema.json"; data="$WORK/$w.jsonl"
    lines=$(wc -l < "$data" | tr -d ' ')
    g_all=""; s_all=""; a_all=""; gc_all=""; ac_all=""; out=""; a=""
    for round in $(seq "$ROUNDS"); do
        run=$(python3 "$HERE/cpu-run.py" "$GAUNTLET" validate --schema "$schema" --jsonl "$data")
        out=$(echo "$run" | head -n 1)
        gc_all="$gc_all $(echo "$run" | tail -n 1 | awk '{ print $1 }')"
        g_all="$g_all $(echo "$run" | tail -n 1 | awk '{ print $2 }')"
        s_all="$s_all $(python3 "$HERE/cpu-run.py" "$GAUNTLET" validate --schema "$schema" --jsonl "$WORK/empty.jsonl" |
            tail -n 1 | awk '{ print $2 }')"
        a=$(node "$HERE/ajv-run.js" "$schema" "$data" "$NODE_DIR")
        a_all="$a_all $(echo "$a" | awk '{ print $3 }')"; ac_all="$ac_all $(echo "$a" | awk '{ print $7 }')"
    done
    # shellcheck disable=SC2086 # word splitting of the lists is intended
    g=$(median $g_all); s0=$(median $s_all); a_med=$(median $a_all); gc=$(median $gc_all); ac=$(median $ac_all)
    echo "$w" "$lines" "$g" "$a_med" "$(echo "$a" | awk '{ print $5 }')" "$out" "$s0" "$gc" "$ac" | awk '{
        gl = $2 / $3; al = $2 / $4; loop = $3 - $10; if (loop <= 0) loop = 1e-6;
        printf "%-8s %8d %12.0f %12.0f %7.2fx %9.2fx %9.2fx   (goal >= 2.00x; valid: gauntlet %s, ajv %s)\n",
            $1, $2, gl, al, gl / al, ($2 / loop) / al, $12 / $11, $6, $5 }'
done
echo "median of $ROUNDS interleaved rounds per side"
echo "ratio = gauntlet lines/s / ajv lines/s, wall clock (gauntlet: whole process incl. start-up and compile; ajv: validation loop only)"
echo "loop-only = the same with gauntlet's start-up + compile (the median run on an empty file) taken out, like ajv's figure"
echo "cpu ratio = ajv loop CPU seconds / gauntlet whole-process CPU seconds (user + system): steadier than wall clock on a shared machine"
echo "valid counts differ where ajv's floating-point multipleOf rejects exact decimals (19.99 multipleOf 0.01)"
