#!/bin/sh
# matrix/node-client.sh CLIENT.mjs — run one library wrapper (adapters/<name>/client.mjs)
# with node, or exit 3 ("cannot run here", docs/adapter-protocol.md) when node or
# the pinned libraries (npm ci of matrix/package-lock.json: make matrix-deps) are missing.
# Started by `--target http-worker:...` (GAUNTLET_HTTP_WORKER=1), it runs the
# wrapper as a persistent client instead (matrix/worker.mjs: one node process
# serving many cases; docs/adapter-protocol.md, "Persistent clients").
HERE=$(cd "$(dirname "$0")" && pwd)
if ! command -v node >/dev/null 2>&1; then
    echo "gauntlet matrix wrapper: node is not installed (apt-get install nodejs)" >&2
    exit 3
fi
if [ ! -d "$HERE/node_modules" ]; then
    echo "gauntlet matrix wrapper: the pinned libraries are not installed in $HERE/node_modules: run 'make matrix-deps'" >&2
    exit 3
fi
[ "${GAUNTLET_HTTP_WORKER:-}" = 1 ] && exec node --no-warnings "$HERE/worker.mjs" "$1"
exec node --no-warnings "$1"
