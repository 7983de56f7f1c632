#!/bin/sh
# make interop: install the pinned real clients (interop/package.json and its
# package-lock.json, exact versions) with `npm ci` into interop/node
# (git-ignored), start `gauntlet serve` on 127.0.0.1:0 with the fault
# scenarios of suite/data/mock, run each client x scenario, print one JSON line
# per run, and compare every line with interop/expected.jsonl (compare.py):
# a changed outcome, a missing or an extra line fails the target.
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
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
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
echo "interop: $(wc -l <"$tmp/journal.jsonl") requests journaled"
echo "== outcomes against interop/expected.jsonl"
python3 "$HERE/compare.py" "$tmp/actual.jsonl" "$HERE/expected.jsonl" ${INTEROP_UPDATE:+--update} || status=1
exit $status
