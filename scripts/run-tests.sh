#!/bin/sh
# Run every Check suite binary given as arguments, then the bundled corpus
# against the reference and through the reference adapter, the layout check
# (scripts/check-layout.py: includes, and calls in $BUILD's objects), the
# rule coverage (gauntlet rules), then the JSON-Schema-Test-Suite floor; add
# the counts up into the final "N passed, N failed" line. Exit non-zero on
# any failure.
GAUNTLET=${GAUNTLET:-build/gauntlet}
BUILD=${BUILD:-build}
passed=0; failed=0; skipped=0; status=0
# suites that drive the CLI or the adapters find them here
GAUNTLET_ADAPTER_REFERENCE=${GAUNTLET_ADAPTER_REFERENCE:-$BUILD/adapters/gauntlet-adapter-reference}
export GAUNTLET GAUNTLET_ADAPTER_REFERENCE
log=$(mktemp); recap=$(mktemp); skips=$(mktemp); trap 'rm -f "$log" "$recap" "$skips"' EXIT
# Each step's whole output is kept in $BUILD/test-logs/NAME.log; the terminal
# gets it whole only when the step failed (or GAUNTLET_TEST_VERBOSE=1), else
# its summary lines (Check's, gauntlet's totals, named skips): a green run is
# a page, not 10,000 lines.
logs=$BUILD/test-logs; mkdir -p "$logs"
show() { # show NAME OK(0|1) SUMMARY-ERE
    cp "$log" "$logs/$1.log"
    if [ "$2" -ne 0 ] || [ -n "${GAUNTLET_TEST_VERBOSE:-}" ]; then
        cat "$log"
    else
        grep -E "$3" "$log"
        echo "   (whole output: $logs/$1.log)"
    fi
}
# note LABEL: keep the failing lines of $log for the recap printed just before
# the totals line (CI shows only the tail of a long log)
note() {
    grep -E "$2" "$log" | sed "s|^|$1: |" >>"$recap"
}

for bin in "$@"; do
    "$bin" >"$log" 2>&1; rc=$?
    line=$(grep -E '^[0-9]+%: Checks: ' "$log" | tail -n 1)
    echo "== $(basename "$bin")"
    if [ "$rc" -eq 0 ] && echo "$line" | grep -qE 'Failures: 0, Errors: 0'; then ok=0; else ok=1; fi
    show "$(basename "$bin")" "$ok" '^[0-9]+%: Checks: |^skipped \(test data\): '
    if [ -z "$line" ]; then
        echo "run-tests: $bin produced no Check summary (exit $rc)"; failed=$((failed + 1)); status=1
        echo "$bin: no Check summary (exit $rc): $(tail -n 3 "$log" | tr '\n' ' ')" >>"$recap"; continue
    fi
    checks=$(echo "$line" | sed -E 's/.*Checks: ([0-9]+).*/\1/')
    fails=$(echo "$line" | sed -E 's/.*Failures: ([0-9]+).*/\1/')
    errs=$(echo "$line" | sed -E 's/.*Errors: ([0-9]+).*/\1/')
    bad=$((fails + errs))
    note "$(basename "$bin")" ':[FE]:'
    # a check whose third-party data is absent everywhere prints one named
    # skip (suite/gt_test.h) and goes on with the rest of its test
    data_skips=$(grep -c '^skipped (test data): ' "$log")
    grep '^skipped (test data): ' "$log" | sed "s|^|$(basename "$bin"): |" >>"$skips"
    passed=$((passed + checks - bad)); failed=$((failed + bad)); skipped=$((skipped + data_skips))
    [ "$rc" -eq 0 ] && [ "$bad" -eq 0 ] || status=1
done

# One `gauntlet run` over the bundled corpus: add its "N passed, N failed,
# N skipped" line to the totals. Every case must pass: a failure, an error
# (counted in "failed") or a skip fails the run.
corpus_run() {
    label=$1; shift
    skip_reason=${SKIP_REASON:-}
    echo "== gauntlet run (bundled corpus, $label)"
    "$GAUNTLET" run "$@" >"$log" 2>&1; rc=$?
    show "run-$(echo "$label" | tr -c 'a-zA-Z0-9\n' '-')" "$rc" '^coverage |^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped'
    note "run $label" '^(FAIL|ERROR) '
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped' "$log" | tail -n 1)
    if [ -z "$line" ]; then
        echo "run-tests: gauntlet run ($label) printed no totals (exit $rc)"; failed=$((failed + 1)); status=1
        echo "run $label: no totals (exit $rc): $(tail -n 3 "$log" | tr '\n' ' ')" >>"$recap"
        return
    fi
    p=$(echo "$line" | sed -E 's/^([0-9]+) passed.*/\1/')
    f=$(echo "$line" | sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/')
    s=$(echo "$line" | sed -E 's/.* ([0-9]+) skipped.*/\1/')
    # a skip is allowed only for the reason SKIP_REASON names (an ERE matched
    # against the SKIP line's note); any other skip counts as a failure
    if [ -n "$skip_reason" ]; then
        other=$(grep -E '^SKIP ' "$log" | grep -cvE "$skip_reason")
    else
        other=$s
    fi
    if [ "$other" -eq 0 ]; then
        passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
    else
        passed=$((passed + p)); failed=$((failed + f + other)); skipped=$((skipped + s - other))
        echo "run-tests: $other case(s) skipped against $label for a reason that is not allowed"
        grep -E '^SKIP ' "$log" | { if [ -n "$skip_reason" ]; then grep -vE "$skip_reason"; else cat; fi; } |
            sed "s|^|run $label: not an allowed skip: |" >>"$recap"
        status=1
    fi
    [ "$rc" -eq 0 ] && [ "$f" -eq 0 ] || status=1
}

# The bundled corpus against the in-process reference, then through the
# reference adapter (the adapter protocol end to end): 100% both times.
corpus_run "reference target" --report "json:$BUILD/corpus-report.json"
corpus_run "reference adapter" --target "adapter:$GAUNTLET_ADAPTER_REFERENCE" \
    --report "json:$BUILD/corpus-adapter-report.json"

# Every loop and stream case through the reference client as a black box
# (`http:` target: a real process, the mock on the wire, no gauntlet
# headers read for the verdict). Skipped, and only for these reasons: the
# cases whose script needs an event inside the client's own message queue (a
# late attachment, a fallback retracting an older message; 11 today, in
# loop/tombstone, loop/details, loop/mutants and stream/mutants), and the
# OpenAI Chat streams whose fault is one of that format's own (a chunk that is
# not JSON, a field of the wrong type, an event out of order; 17 today, in
# stream/faults and stream/malformed), which the client's Anthropic Messages
# API cannot carry (docs/mock-server.md, "Inexpressible turns"). Any other
# skip fails the run.
SKIP_REASON='needs a client-internal event .* that a black-box client cannot be driven into over HTTP$|the script.s openai stream breaks that API.s stream protocol \(sse_[a-z_]+\), which the client.s Anthropic API cannot carry$' corpus_run "reference client over HTTP, black box" corpus/loop corpus/stream \
    --target "http:adapters/http-reference-client/run.sh" --profile all -j2

# The include graph and the call graph (nm over this build's objects, which
# exist by now) against the room table of docs/architecture.md (arrows one
# way, every C file in a room), and the check's own proof that it fails on
# planted violations: two checks.
for args in "" "--self-test"; do
    echo "== check-layout $args --build $BUILD"
    python3 scripts/check-layout.py $args --build "$BUILD" >"$log" 2>&1; rc=$?
    cat "$log"
    if [ "$rc" -eq 0 ]; then
        passed=$((passed + 1))
    else
        note "check-layout$args" '^layout'
        failed=$((failed + 1)); status=1
    fi
done

# Every rule of the corpus's rule list (corpus/rules.json) is named by at
# least one case: one check, passed when `gauntlet rules` exits 0 (it lists
# the unproven rules otherwise).
echo "== gauntlet rules (bundled corpus)"
"$GAUNTLET" rules --uncovered >"$log" 2>&1; rc=$?
cat "$log"
if [ "$rc" -eq 0 ]; then
    passed=$((passed + 1))
else
    echo "run-tests: gauntlet rules exited $rc: a rule has no case (or the corpus has load problems)"
    echo "gauntlet rules: exit $rc" >>"$recap"
    failed=$((failed + 1)); status=1
fi

# The official JSON-Schema-Test-Suite, when GT_JSTS_DIR, the submodule or
# ../shared has it, against a committed floor.
if [ -f scripts/jsts-floor.sh ]; then
    . scripts/jsts-floor.sh
fi

if [ -s "$skips" ]; then
    echo "== checks skipped for absent third-party test data (git submodule update --init)"
    sort "$skips" | uniq -c | sed -E 's/^ *([0-9]+) (.*)/\2 (x\1)/'
fi
if [ -s "$recap" ]; then
    echo "== what failed (repeated from above)"
    head -n 40 "$recap"
fi
echo "$passed passed, $failed failed, $skipped skipped"
exit $status
