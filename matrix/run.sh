#!/bin/sh
# make matrix: install the pinned libraries, then run every implementation
# over corpus/loop and corpus/stream with `gauntlet matrix` and regenerate
# docs/matrix.md (plus build/matrix/matrix.json and matrix.html). Columns: the
# reference client and Claude Code (when `make interop` installed it), then
# every library wrapper of adapters/. MATRIX_JOBS (default 2) threads per
# implementation; MATRIX_TARGETS="name ..." runs only those columns.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
GAUNTLET=${GAUNTLET:-build/gauntlet}
sh "$HERE/install.sh" || exit 1
mkdir -p build/matrix
set -- "$GAUNTLET" matrix corpus/loop corpus/stream -j "${MATRIX_JOBS:-2}" --notes matrix/notes \
    --report md:docs/matrix.md,json:build/matrix/matrix.json,html:build/matrix/matrix.html
want() { [ -z "${MATRIX_TARGETS:-}" ] || case " $MATRIX_TARGETS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
want reference-client && set -- "$@" --target reference-client=http:adapters/http-reference-client/run.sh \
    --version "reference-client=gauntlet $("$GAUNTLET" --version | sed 's/^gauntlet //')" \
    --profile reference-client=all
if want claude-code && { [ -n "${CLAUDE:-}" ] || [ -x "$ROOT/interop/node/node_modules/.bin/claude" ] || command -v claude >/dev/null 2>&1; }; then
    claude=${CLAUDE:-$ROOT/interop/node/node_modules/.bin/claude}
    [ -x "$claude" ] || claude=$(command -v claude)
    set -- "$@" --target claude-code=http:adapters/claude-code/run.sh \
        --version "claude-code=$("$claude" --version 2>/dev/null | head -n 1)" \
        --profile claude-code=core,repair-loop,claude-code
fi
want naive-node && set -- "$@" --target naive-node=http:adapters/naive-node/run.sh
for name in anthropic-sdk-parse anthropic-sdk-tool openai-chat-parse openai-responses-parse \
            ai-sdk-anthropic ai-sdk-anthropic-stream ai-sdk-openai ai-sdk-openai-stream \
            langchain-anthropic langchain-openai instructor-tools instructor-json-schema; do
    want "$name" && set -- "$@" --target "$name=http:adapters/$name/run.sh"
done
echo "matrix: $*"
"$@"
