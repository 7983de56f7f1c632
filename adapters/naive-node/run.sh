#!/bin/sh
# naive-node as an http-target client (client.mjs): fetch + JSON.parse, no
# validation: the low end of the implementations matrix. Exit 3 without node.
#   ./gauntlet run --smoke --target 'http:adapters/naive-node/run.sh'
command -v node >/dev/null 2>&1 || { echo "naive-node: node is not installed" >&2; exit 3; }
# under --target http-worker: one persistent node process for many cases (matrix/worker.mjs)
[ "${GAUNTLET_HTTP_WORKER:-}" = 1 ] && exec node "$(dirname "$0")/../../matrix/worker.mjs" "$(dirname "$0")/client.mjs"
exec node "$(dirname "$0")/client.mjs"
