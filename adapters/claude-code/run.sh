#!/bin/sh
# Claude Code CLI as an http-target client: certify it against the mock.
#   make interop            # installs @anthropic-ai/claude-code into interop/node (git-ignored)
#   ./gauntlet run corpus/loop corpus/stream --target 'http:adapters/claude-code/run.sh' --report md:cc.md
# The CLI runs unmodified; only its base URL points at the mock. Each run gets
# an empty HOME so no user settings, sessions or credentials leak in.
HERE=$(cd "$(dirname "$0")/../.." && pwd)
CLAUDE=${CLAUDE:-$HERE/interop/node/node_modules/.bin/claude}
if [ ! -x "$CLAUDE" ]; then
    echo "claude-code adapter: $CLAUDE not found; run 'make interop' first" >&2
    exit 3
fi
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
set -- -p --output-format json --json-schema "$(cat "$GAUNTLET_SCHEMA_FILE")"
[ -n "$GAUNTLET_MAX_TURNS" ] && set -- "$@" --max-turns "$GAUNTLET_MAX_TURNS"
cd "$home" && HOME="$home" DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
    DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1 \
    exec "$CLAUDE" "$@" "$GAUNTLET_PROMPT"
