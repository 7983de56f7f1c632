#!/bin/sh
# make interop: install the pinned real clients (interop/package.json and its
# package-lock.json, exact versions) with `npm ci` into interop/node
# (git-ignored), start `gauntlet serve` on 127.0.0.1:0 with the fault
# scenarios of suite/data/mock, run each client x scenario, print one JSON line
# per run, and compare every line with interop/expected.jsonl (compare.py):
# a changed outcome, a missing or an extra line fails the target. Then the
# same SDKs again through `gauntlet record` (record.mjs: tool loops, parse,
# the Responses API), and Claude Code through a second recorder (four of its
# scenarios); one line for each recording: its cases against the reference in
# process and over HTTP, `gen --from`'s variants both ways, and whether the
# API key reached the recording.
#   INTEROP_UPDATE=1 make interop    rewrite interop/expected.jsonl from this run
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
GAUNTLET=${GAUNTLET:-build/gauntlet}
NODE_DIR="$HERE/node"
if ! cmp -s "$HERE/package-lock.json" "$NODE_DIR/package-lock.json" ||
   [ ! -x "$NODE_DIR/node_modules/.bin/claude" ]; then
    echo "interop: npm ci (interop/package-lock.json) into $NODE_DIR"
    rm -rf "$NODE_DIR" && mkdir -p "$NODE_DIR" &&
        cp "$HERE/package.json" "$HERE/package-lock.json" "$NODE_DIR/" &&
        (cd "$NODE_DIR" && npm ci --no-audit --no-fund) || exit 1
fi
for p in @anthropic-ai/sdk openai @anthropic-ai/claude-code; do
    printf 'interop: %s %s\n' "$p" "$(node -p "require('$NODE_DIR/node_modules/$p/package.json').version")"
done

tmp=$(mktemp -d)
"$GAUNTLET" serve --corpus suite/data/mock --journal "$tmp/journal.jsonl" >"$tmp/url" 2>"$tmp/serve.log" &
pid=$!
rpid=
trap 'kill "$pid" $rpid 2>/dev/null; wait "$pid" $rpid 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
for _ in $(seq 1 50); do [ -s "$tmp/url" ] && break; sleep 0.1; done
BASE=$(head -n 1 "$tmp/url")
[ -n "$BASE" ] || { cat "$tmp/serve.log"; echo "interop: the server did not start"; exit 1; }
echo "interop: mock at $BASE"

status=0
echo "== @anthropic-ai/sdk"
node "$HERE/anthropic-sdk.mjs" "$BASE" | tee -a "$tmp/actual.jsonl" || status=1
echo "== openai"
node "$HERE/openai.mjs" "$BASE" | tee -a "$tmp/actual.jsonl" || status=1
echo "== claude-code (claude -p --json-schema ... --output-format json)"
sh "$HERE/claude-code.sh" "$BASE" | tee -a "$tmp/actual.jsonl" || status=1
# start_recorder NAME: `gauntlet record` in front of the mock into $tmp/NAME,
# its pid in $rpid, its base URL in $RECORDER (empty when it did not start)
start_recorder() {
    "$GAUNTLET" record --upstream "$BASE" --out "$tmp/$1" --name "$1" >"$tmp/$1.url" 2>"$tmp/$1.log" &
    rpid=$!
    for _ in $(seq 1 50); do [ -s "$tmp/$1.url" ] && break; sleep 0.1; done
    RECORDER=$(head -n 1 "$tmp/$1.url")
    [ -n "$RECORDER" ] || { cat "$tmp/$1.log"; echo "interop: the recorder did not start"; status=1; }
}
# stop_recorder: SIGTERM (the recorder drains and exits 0), wait for it
stop_recorder() {
    kill "$rpid" 2>/dev/null; wait "$rpid" 2>/dev/null || { echo "interop: the recorder did not exit 0"; status=1; }
    rpid=
}
# recording_line NAME SCENARIO KEY: the recording's own line: its case files,
# the totals lines of `gauntlet run` of it and of its `gen --from` variants
# (in process and over http-reference), and whether KEY reached it
totals() { "$GAUNTLET" run "$@" 2>&1 | grep -E '^[0-9]+ passed, ' | tail -n 1; }
recording_line() {
    "$GAUNTLET" gen --from "$tmp/$1" --out "$tmp/$1-variants" >/dev/null 2>"$tmp/$1-gen.log" || cat "$tmp/$1-gen.log"
    key_in_dir=false; grep -rqF "$3" "$tmp/$1" && key_in_dir=true
    python3 -c 'import json, sys; a = sys.argv; print(json.dumps({"client": "gauntlet record", "scenario": a[7],
    "mode": "recording", "cases": len([f for f in a[1].split() if f]), "run": a[2], "http_reference": a[3],
    "variants": a[4], "variants_http_reference": a[5], "key_in_dir": a[6] == "true"}))' \
        "$(cd "$tmp/$1" && ls -- *.cases.json 2>/dev/null | tr '\n' ' ')" "$(totals "$tmp/$1")" \
        "$(totals "$tmp/$1" --target http-reference)" "$(totals "$tmp/$1-variants")" \
        "$(totals "$tmp/$1-variants" --target http-reference)" "$key_in_dir" "$2" | tee -a "$tmp/actual.jsonl"
}
echo "== @anthropic-ai/sdk and openai through gauntlet record (record.mjs)"
start_recorder sdk
[ -z "$RECORDER" ] || node "$HERE/record.mjs" "$RECORDER" "$NODE_DIR" | tee -a "$tmp/actual.jsonl" || status=1
stop_recorder
recording_line sdk record.mjs sk-RECORD-SECRET-0451
echo "== claude-code through gauntlet record (claude-code.sh, the recorder between the CLI and the mock)"
start_recorder claude-code
[ -z "$RECORDER" ] || CC_CLIENT=record/claude-code CC_SCENARIOS="cc-invalid-then-valid cc-cut-stream cc-refusal cc-max-retries" \
    sh "$HERE/claude-code.sh" "$RECORDER" "$BASE" | tee -a "$tmp/actual.jsonl" || status=1
stop_recorder
recording_line claude-code claude-code.sh sk-ant-not-a-real-key
echo "interop: $(wc -l <"$tmp/journal.jsonl") requests journaled"
echo "== outcomes against interop/expected.jsonl"
python3 "$HERE/compare.py" "$tmp/actual.jsonl" "$HERE/expected.jsonl" ${INTEROP_UPDATE:+--update} || status=1
exit $status
