#!/bin/sh
# The reference client (libcurl) as a black-box http-target client:
#   gauntlet run --gate loop --target 'http:adapters/http-reference-client/run.sh'
# It reads what the http target puts in its environment (docs/adapter-protocol.md,
# "Black-box HTTP target") and prints the terminal envelope, like any vendor
# client would. --script carries the scenario's history and limits.
GAUNTLET=${GAUNTLET:-${GAUNTLET_BIN:-$(dirname "$0")/../../build/gauntlet}}
exec "$GAUNTLET" client --base-url "$ANTHROPIC_BASE_URL" --script "$GAUNTLET_SCRIPT_FILE" \
    --api-key "$ANTHROPIC_API_KEY" ${GAUNTLET_STRICT:+--strict}
