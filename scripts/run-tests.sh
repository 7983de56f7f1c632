#!/bin/sh
# Run every Check suite binary given as arguments, then the bundled corpus
# against the reference, then the JSON-Schema-Test-Suite floor; add the counts
# up into the final "N passed, N failed" line. Exit non-zero on any failure.
GAUNTLET=${GAUNTLET:-build/gauntlet}
BUILD=${BUILD:-build}
passed=0; failed=0; skipped=0; status=0
# suites that drive the CLI or the adapters find them here
GAUNTLET_ADAPTER_REFERENCE=${GAUNTLET_ADAPTER_REFERENCE:-$BUILD/adapters/gauntlet-adapter-reference}
export GAUNTLET GAUNTLET_ADAPTER_REFERENCE
log=$(mktemp); trap 'rm -f "$log"' EXIT

for bin in "$@"; do
    "$bin" >"$log" 2>&1; rc=$?
    cat "$log"
    line=$(grep -E '^[0-9]+%: Checks: ' "$log" | tail -n 1)
    if [ -z "$line" ]; then
        echo "run-tests: $bin produced no Check summary (exit $rc)"; failed=$((failed + 1)); status=1; continue
    fi
    checks=$(echo "$line" | sed -E 's/.*Checks: ([0-9]+).*/\1/')
    fails=$(echo "$line" | sed -E 's/.*Failures: ([0-9]+).*/\1/')
    errs=$(echo "$line" | sed -E 's/.*Errors: ([0-9]+).*/\1/')
    bad=$((fails + errs))
    passed=$((passed + checks - bad)); failed=$((failed + bad))
    [ "$rc" -eq 0 ] && [ "$bad" -eq 0 ] || status=1
done

# The bundled corpus against the in-process reference: every case must pass.
echo "== gauntlet run (bundled corpus, reference target)"
"$GAUNTLET" run --report "json:$BUILD/corpus-report.json" >"$log" 2>&1; rc=$?
cat "$log"
line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
if [ -z "$line" ]; then
    echo "run-tests: gauntlet run printed no totals (exit $rc)"; failed=$((failed + 1)); status=1
else
    p=$(echo "$line" | sed -E 's/^([0-9]+) passed.*/\1/')
    f=$(echo "$line" | sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/')
    passed=$((passed + p)); failed=$((failed + f))
    [ "$rc" -eq 0 ] || status=1
fi

# The official JSON-Schema-Test-Suite, when ../shared has it, against a committed floor.
if [ -f scripts/jsts-floor.sh ]; then
    . scripts/jsts-floor.sh
fi

echo "$passed passed, $failed failed, $skipped skipped"
exit $status
