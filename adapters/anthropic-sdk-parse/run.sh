#!/bin/sh
# @anthropic-ai/sdk: client.messages.parse() with output_config.format = zodOutputFormat(schema), the SDK's structured-output helper; the object is parsed_output.
# An http-target client for gauntlet (docs/adapter-protocol.md); the library is
# pinned in matrix/package.json and installed by 'make matrix-deps'. Exit 3 when it is not.
#   ./gauntlet run --smoke --target 'http:adapters/anthropic-sdk-parse/run.sh'
exec "$(dirname "$0")/../../matrix/node-client.sh" "$(dirname "$0")/client.mjs"
