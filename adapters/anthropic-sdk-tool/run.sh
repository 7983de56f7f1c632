#!/bin/sh
# @anthropic-ai/sdk: one tool forced with tool_choice, its input validated with zod (the SDK's documented 'JSON output via tools' pattern).
# An http-target client for gauntlet (docs/adapter-protocol.md); the library is
# pinned in matrix/package.json and installed by 'make matrix-deps'. Exit 3 when it is not.
#   ./gauntlet run --smoke --target 'http:adapters/anthropic-sdk-tool/run.sh'
exec "$(dirname "$0")/../../matrix/node-client.sh" "$(dirname "$0")/client.mjs"
