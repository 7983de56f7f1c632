#!/bin/sh
# openai: client.chat.completions.parse() with response_format = zodResponseFormat(schema, name); the object is message.parsed.
# An http-target client for gauntlet (docs/adapter-protocol.md); the library is
# pinned in matrix/package.json and installed by 'make matrix-deps'. Exit 3 when it is not.
#   ./gauntlet run --smoke --target 'http:adapters/openai-chat-parse/run.sh'
exec "$(dirname "$0")/../../matrix/node-client.sh" "$(dirname "$0")/client.mjs"
