#!/bin/sh
# openai: client.responses.parse() with text.format = zodTextFormat(schema, name) (Responses API); the object is output_parsed.
# An http-target client for gauntlet (docs/adapter-protocol.md); the library is
# pinned in matrix/package.json and installed by 'make matrix-deps'. Exit 3 when it is not.
#   ./gauntlet run --smoke --target 'http:adapters/openai-responses-parse/run.sh'
exec "$(dirname "$0")/../../matrix/node-client.sh" "$(dirname "$0")/client.mjs"
