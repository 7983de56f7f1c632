#!/bin/sh
# make interop: install the real clients with npm into interop/node (git-ignored),
# start `gauntlet serve` on 127.0.0.1:0 with the fault scenarios of
# suite/data/mock, run a handful of scenarios through each client, print one
# JSON line per run, and stop the server.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
GAUNTLET=${GAUNTLET:-build/gauntlet}
NODE_DIR="$HERE/node"
if [ ! -x "$NODE_DIR/node_modules/.bin/claude" ] || [ ! -d "$NODE_DIR/node_modules/openai" ] ||
   [ ! -d "$NODE_DIR/node_modules/@anthropic-ai/sdk" ]; then
    mkdir -p "$NODE_DIR"
    [ -f "$NODE_DIR/package.json" ] ||
        echo '{"name":"gauntlet-interop","private":true,"version":"0.0.0"}' >"$NODE_DIR/package.json"
    echo "interop: npm install @anthropic-ai/sdk openai @anthropic-ai/claude-code into $NODE_DIR"
    (cd "$NODE_DIR" && npm install --no-audit --no-fund @anthropic-ai/sdk openai @anthropic-ai/claude-code) || exit 1
fi
for p in @anthropic-ai/sdk openai @anthropic-ai/claude-code; do
    printf 'interop: %s %s\n' "$p" "$(node -p "require('$NODE_DIR/node_modules/$p/package.json').version")"
done

tmp=$(mktemp -d)
"$GAUNTLET" serve --corpus suite/data/mock --journal "$tmp/journal.jsonl" >"$tmp/url" 2>"$tmp/serve.log" &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
for _ in $(seq 1 50); do [ -s "$tmp/url" ] && break; sleep 0.1; done
BASE=$(head -n 1 "$tmp/url")
[ -n "$BASE" ] || { cat "$tmp/serve.log"; echo "interop: the server did not start"; exit 1; }
echo "interop: mock at $BASE"

status=0
echo "== @anthropic-ai/sdk"
node "$HERE/anthropic-sdk.mjs" "$BASE" || status=1
echo "== openai"
node "$HERE/openai.mjs" "$BASE" || status=1
echo "== claude-code (claude -p --json-schema ... --output-format json)"
sh "$HERE/claude-code.sh" "$BASE" || status=1
echo "interop: $(wc -l <"$tmp/journal.jsonl") requests journaled"
exit $status
