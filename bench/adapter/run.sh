#!/bin/sh
# Adapter target overhead: the full corpus through the reference adapter
# (subprocess, line protocol) against the in-process reference, same run.
# Target: the adapter within 2x of in-process. Best of 3 runs each.
BUILD=${BUILD:-build}
GAUNTLET=${GAUNTLET:-$BUILD/gauntlet}
ADAPTER=$BUILD/adapters/gauntlet-adapter-reference
[ -x "$ADAPTER" ] || { echo "adapter bench: skipped ($ADAPTER not built)"; exit 0; }
best() { # best wall time in ms of 3 runs of: gauntlet run --quiet --target "$1"
    b=""
    for i in 1 2 3; do
        s=$(date +%s%N)
        "$GAUNTLET" run --quiet --target "$1" >/dev/null 2>&1
        e=$(date +%s%N)
        t=$(( (e - s) / 1000000 ))
        if [ -z "$b" ] || [ "$t" -lt "$b" ]; then b=$t; fi
    done
    echo "$b"
}
cases=$("$GAUNTLET" run --quiet --target reference 2>/dev/null | grep -E '^[0-9]+ passed' | sed -E 's/^([0-9]+) passed, ([0-9]+) failed.*/\1 \2/' | awk '{print $1 + $2}')
[ -n "$cases" ] && [ "$cases" -gt 0 ] || cases=1
ref=$(best reference)
ada=$(best "adapter:$ADAPTER")
[ "$ref" -gt 0 ] || ref=1
awk -v r="$ref" -v a="$ada" -v n="$cases" 'BEGIN {
    printf "adapter   %d cases  in-process %d ms (%.1f us/case)  adapter %d ms (%.1f us/case)  ratio %.2fx (target <= 2.00x)\n",
        n, r, r * 1000 / n, a, a * 1000 / n, a / r }'
