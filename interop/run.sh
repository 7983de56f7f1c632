#!/bin/sh
# make interop: install the pinned real clients (interop/package.json and its
# package-lock.json, exact versions) with `npm ci` into interop/node
# (git-ignored), start `gauntlet serve` on 127.0.0.1:0 with the fault
# scenarios of suite/data/mock, run each client x scenario, print one JSON line
# per run, and compare every line with interop/expected.jsonl (compare.py):
# a changed outcome, a missing or an extra line fails the target. Then the
# same SDKs again through `gauntlet record` (record.mjs: tool loops, parse,
# the Responses API), and one line for the recording: its cases against the
# reference in process and over HTTP, `gen --from`'s variants both ways, and
# whether the API key reached the recording.
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
echo "== @anthropic-ai/sdk and openai through gauntlet record (record.mjs)"
"$GAUNTLET" record --upstream "$BASE" --out "$tmp/rec" >"$tmp/rec.url" 2>"$tmp/record.log" &
rpid=$!
for _ in $(seq 1 50); do [ -s "$tmp/rec.url" ] && break; sleep 0.1; done
RECORDER=$(head -n 1 "$tmp/rec.url")
if [ -n "$RECORDER" ]; then
    node "$HERE/record.mjs" "$RECORDER" "$NODE_DIR" | tee -a "$tmp/actual.jsonl" || status=1
else
    cat "$tmp/record.log"; echo "interop: the recorder did not start"; status=1
fi
kill "$rpid" 2>/dev/null; wait "$rpid" 2>/dev/null; rpid=
# the recording's own line: the totals lines of each run, and the key (record.mjs's) never in it
totals() { "$GAUNTLET" run "$@" 2>&1 | grep -E '^[0-9]+ passed, ' | tail -n 1; }
"$GAUNTLET" gen --from "$tmp/rec" --out "$tmp/variants" >/dev/null 2>"$tmp/gen.log" || cat "$tmp/gen.log"
key_in_dir=false; grep -rqF 'sk-RECORD-SECRET-0451' "$tmp/rec" && key_in_dir=true
python3 -c 'import json, sys; a = sys.argv; print(json.dumps({"client": "gauntlet record", "scenario": "record.mjs",
    "mode": "recording", "cases": len([f for f in a[1].split() if f]), "run": a[2], "http_reference": a[3],
    "variants": a[4], "variants_http_reference": a[5], "key_in_dir": a[6] == "true"}))' \
    "$(cd "$tmp/rec" && ls -- *.cases.json 2>/dev/null | tr '\n' ' ')" "$(totals "$tmp/rec")" \
    "$(totals "$tmp/rec" --target http-reference)" "$(totals "$tmp/variants")" \
    "$(totals "$tmp/variants" --target http-reference)" "$key_in_dir" | tee -a "$tmp/actual.jsonl"
echo "interop: $(wc -l <"$tmp/journal.jsonl") requests journaled"
echo "== outcomes against interop/expected.jsonl"
python3 "$HERE/compare.py" "$tmp/actual.jsonl" "$HERE/expected.jsonl" ${INTEROP_UPDATE:+--update} || status=1
exit $status
