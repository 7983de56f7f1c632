# jsts-floor.sh — sourced by scripts/run-tests.sh: run the official
# JSON-Schema-Test-Suite through `gauntlet jsts` and hold each dialect to a
# committed floor (the number of tests passing today). Adds one check per
# floor to `passed`/`failed`, sets status=1 on a breach. The suite is found
# through GT_JSTS_DIR, the third_party/JSON-Schema-Test-Suite submodule or
# ../shared (scripts/test-data.sh); absent everywhere, the floor is skipped
# with a line naming the fetch command; GT_JSTS_DIR set to a folder without
# tests/ is a failure. Raise a floor when it improves.
. scripts/test-data.sh
JSTS_WHERE="GT_JSTS_DIR, third_party/JSON-Schema-Test-Suite, ../shared/JSON-Schema-Test-Suite"
JSTS_DIR=$(gt_data_find "${GT_JSTS_DIR:-}" third_party/JSON-Schema-Test-Suite ../shared/JSON-Schema-Test-Suite tests)

# dialect  required-floor  optional/format-floor (with --formats)  optional-floor (the rest of optional/:
# ecmascript-regex, bignum, float-overflow, cross-draft, ...; formats not asserted)
JSTS_FLOORS="draft2020-12 1299 763 158
draft2019-09 1259 756 158
draft7 927 675 114
draft6 839 325 106
draft4 618 219 100"

jsts_check() { # label floor args...
    _label=$1; _floor=$2; shift 2
    _line=$("$GAUNTLET" jsts "$@" 2>&1 | tail -n 1)
    _got=$(echo "$_line" | sed -n -E 's/^([0-9]+) passed, ([0-9]+) failed.*/\1/p')
    _bad=$(echo "$_line" | sed -n -E 's/^([0-9]+) passed, ([0-9]+) failed.*/\2/p')
    if [ -z "$_got" ]; then
        echo "jsts: $_label: no totals ($_line)"; failed=$((failed + 1)); status=1; return
    fi
    if [ "$_got" -lt "$_floor" ]; then
        echo "jsts: $_label: $_got passed, $_bad failed — BELOW FLOOR $_floor"; failed=$((failed + 1)); status=1
    else
        echo "jsts: $_label: $_got passed, $_bad failed (floor $_floor)"; passed=$((passed + 1))
    fi
}

# `gauntlet run --jsts`: the suite's tests as structure cases through the
# normal scheduler; the required tier must pass in full (optional tests may
# fail: the syntax gate refuses bignums a double cannot hold).
jsts_run_check() { # label args...
    _label=$1; shift
    _out=$("$GAUNTLET" run --jsts "$@" 2>&1); _rc=$?
    _tier=$(echo "$_out" | sed -n -E 's/^tiers +required [0-9.]+% \(([0-9]+)\/([0-9]+)\).*/\1 \2/p')
    _pass=${_tier% *}; _all=${_tier#* }
    if [ -n "$_tier" ] && [ "$_pass" = "$_all" ] && [ "$_all" -gt 0 ] && [ "$_rc" -le 1 ]; then
        echo "jsts run: $_label: required $_pass/$_all"; passed=$((passed + 1))
    else
        echo "jsts run: $_label: required tier not all passed (exit $_rc): $(echo "$_out" | grep -E '^(FAIL|tiers)' | head -n 5)"
        failed=$((failed + 1)); status=1
    fi
}

if [ -n "${GT_JSTS_DIR:-}" ] && [ -z "$JSTS_DIR" ]; then
    echo "jsts: GT_JSTS_DIR=$GT_JSTS_DIR has no tests/ folder"
    failed=$((failed + 1)); status=1
elif [ -n "$JSTS_DIR" ]; then
    echo "== JSON-Schema-Test-Suite ($JSTS_DIR)"
    _rows=$(echo "$JSTS_FLOORS" | tr ' ' ':')
    for _row in $_rows; do
        _d=${_row%%:*}; _rest=${_row#*:}; _req=${_rest%%:*}; _rest=${_rest#*:}; _fmt=${_rest%%:*}; _opt=${_rest#*:}
        jsts_check "$_d required" "$_req" "$JSTS_DIR/tests/$_d"
        jsts_check "$_d optional/format --formats" "$_fmt" "$JSTS_DIR/tests/$_d/optional/format" --formats
        jsts_check "$_d optional (not format)" "$_opt" "$JSTS_DIR/tests/$_d/optional"
    done
    jsts_run_check "draft2020-12 against the reference" "$JSTS_DIR/tests/draft2020-12" --formats
    jsts_run_check "draft7 through the reference adapter" "$JSTS_DIR/tests/draft7" \
        --target "adapter:$GAUNTLET_ADAPTER_REFERENCE"
else
    echo "jsts: skipped: JSON-Schema-Test-Suite floor: not found ($JSTS_WHERE); $GT_TEST_FETCH_HINT"
    [ -n "${skips:-}" ] && echo "jsts-floor: JSON-Schema-Test-Suite floor: not found ($JSTS_WHERE); $GT_TEST_FETCH_HINT" >>"$skips"
    skipped=$((skipped + 1))
fi
