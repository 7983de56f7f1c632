#!/bin/sh
# Claude Code CLI as an http-target client: certify it against the mock.
#   make interop            # installs the pinned @anthropic-ai/claude-code into interop/node (git-ignored)
#   ./gauntlet run corpus/loop corpus/stream --target 'http:adapters/claude-code/run.sh' --report md:cc.md
# Which claude: $CLAUDE when set, else the pinned one from `make interop`, else
# `claude` on PATH. None: exit 3, the wrapper's documented "cannot run".
# The CLI runs unmodified; only its base URL points at the mock. Each run gets
# an empty HOME so no user settings, sessions or credentials leak in.
HERE=$(cd "$(dirname "$0")/../.." && pwd)
PINNED=$HERE/interop/node/node_modules/.bin/claude
if [ -z "${CLAUDE:-}" ]; then
    if [ -x "$PINNED" ]; then CLAUDE=$PINNED; else CLAUDE=$(command -v claude); fi
fi
if [ -z "$CLAUDE" ] || [ ! -x "$CLAUDE" ]; then
    echo "claude-code adapter: no claude CLI (CLAUDE=${CLAUDE:-unset}, none at $PINNED, none on PATH);" \
         "run 'make interop' or set CLAUDE=/path/to/claude" >&2
    exit 3
fi
home=$(mktemp -d)
# Not `exec`: the shell stays to remove the empty HOME when the CLI ends (an
# exec'd CLI left one /tmp/tmp.* folder per run behind). INT/TERM end the
# shell through exit, so the EXIT trap runs then too; the runner's SIGKILL of
# the process group takes the CLI with it.
trap 'rm -rf "$home"' EXIT
trap 'exit 143' INT TERM
# A case with no schema (GAUNTLET_NO_SCHEMA) runs without --json-schema, as a
# user who gives none; the script's disallowed_tools become --disallowedTools.
set -- -p --output-format json
[ -z "${GAUNTLET_NO_SCHEMA:-}" ] && set -- "$@" --json-schema "$(cat "$GAUNTLET_SCHEMA_FILE")"
[ -n "${GAUNTLET_MAX_TURNS:-}" ] && set -- "$@" --max-turns "$GAUNTLET_MAX_TURNS"
[ -n "${GAUNTLET_DISALLOWED_TOOLS:-}" ] && set -- "$@" --disallowedTools "$GAUNTLET_DISALLOWED_TOOLS"
# With a fallback model: a provider failing the response in flight
# (docs/adapter-protocol.md "Fallbacks") is a model fallback only when the CLI
# has one ("--fallback-model: Models to fall back to when the main model is busy
# or unavailable", claude --help). The client never sees the script's turns,
# so every case runs configured with one, as a user who sets it.
set -- "$@" --fallback-model "${GAUNTLET_FALLBACK_MODEL:-claude-haiku-4-5}"
cd "$home" && HOME="$home" DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
    DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1 \
    "$CLAUDE" "$@" "$GAUNTLET_PROMPT"
