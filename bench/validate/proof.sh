#!/bin/sh
# proof.sh BASE NEW — byte-identical output proof for structure-gate speed
# work: runs two gauntlet binaries (BASE: a build of main before the change,
# NEW: the build with it) on the bench workloads (bench/validate/gen.js) and
# compares, byte for byte, stdout, stderr and exit status of
#   validate --schema S --jsonl F.jsonl            (raw outputs, string literals)
#   validate --schema S --jsonl F.values.jsonl --values
# and, because --jsonl prints only counts by reason (the first error's
# keyword), each document's full error list: `validate --schema S -` (one
# error per line, with its path and message) on the first PROOF_DOCS lines of
# each workload's .values.jsonl (default 1,500).
# Exit 0 when every comparison is identical, 1 on the first difference (the
# two outputs are left in the work directory and named), 2 on a usage error.
set -u
[ $# -eq 2 ] || { echo "usage: bench/validate/proof.sh BASE-GAUNTLET NEW-GAUNTLET" >&2; exit 2; }
BASE=$1; NEW=$2
for b in "$BASE" "$NEW"; do
    [ -x "$b" ] || { echo "proof.sh: $b is not an executable gauntlet binary" >&2; exit 2; }
done
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
WORK=${PROOF_WORK:-$ROOT/build/bench-proof}
DOCS=${PROOF_DOCS:-1500}
mkdir -p "$WORK"
node "$HERE/gen.js" "$WORK" "${BENCH_SCALE:-1}" || { echo "proof.sh: bench/validate/gen.js failed" >&2; exit 2; }
node "$HERE/gen-extra.js" "$WORK" || { echo "proof.sh: bench/validate/gen-extra.js failed" >&2; exit 2; }

checked=0
# same NAME ARGS...: run both binaries with ARGS, compare stdout+stderr+status
same() {
    name=$1; shift
    "$BASE" "$@" > "$WORK/$name.base.out" 2> "$WORK/$name.base.err"; echo "exit $?" >> "$WORK/$name.base.out"
    "$NEW" "$@" > "$WORK/$name.new.out" 2> "$WORK/$name.new.err"; echo "exit $?" >> "$WORK/$name.new.out"
    if ! cmp -s "$WORK/$name.base.out" "$WORK/$name.new.out" || ! cmp -s "$WORK/$name.base.err" "$WORK/$name.new.err"; then
        echo "proof.sh: DIFFERENT: $name ($*): see $WORK/$name.{base,new}.{out,err}"
        exit 1
    fi
    checked=$((checked + 1))
}

# per-document error lists: every one of the first DOCS values through the
# single-document mode, all outputs concatenated with a header per line
per_doc() {
    bin=$1 schema=$2 data=$3
    head -n "$DOCS" "$data" | while IFS= read -r line; do
        printf '%s' "$line" | "$bin" validate --schema "$schema" - 2>&1
        echo "-- exit $?"
    done
}

for w in $(cd "$WORK" && ls *.schema.json | sed 's/\.schema\.json$//'); do
    schema="$WORK/$w.schema.json"
    if [ -f "$WORK/$w.jsonl" ]; then
        same "$w.jsonl" validate --schema "$schema" --jsonl "$WORK/$w.jsonl"
    fi
    same "$w.values" validate --schema "$schema" --jsonl "$WORK/$w.values.jsonl" --values
    per_doc "$BASE" "$schema" "$WORK/$w.values.jsonl" > "$WORK/$w.docs.base.out"
    per_doc "$NEW" "$schema" "$WORK/$w.values.jsonl" > "$WORK/$w.docs.new.out"
    cmp -s "$WORK/$w.docs.base.out" "$WORK/$w.docs.new.out" ||
        { echo "proof.sh: DIFFERENT: $w per-document errors: see $WORK/$w.docs.{base,new}.out"; exit 1; }
    checked=$((checked + 1))
    printf 'proof.sh: %-16s identical (%s; first %s documents: %s error lines)\n' "$w" \
        "$(head -n 1 "$WORK/$w.values.base.out")" "$DOCS" "$(grep -vc '^-- exit' "$WORK/$w.docs.base.out")"
done
echo "proof.sh: $checked comparisons, all byte-identical"
