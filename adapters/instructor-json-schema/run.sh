#!/bin/sh
# @instructor-ai/instructor: Instructor({client: new OpenAI(...), mode: 'JSON_SCHEMA'}) with response_model and max_retries.
# An http-target client for gauntlet (docs/adapter-protocol.md); the library is
# pinned in matrix/package.json and installed by 'make matrix-deps'. Exit 3 when it is not.
#   ./gauntlet run --smoke --target 'http:adapters/instructor-json-schema/run.sh'
exec "$(dirname "$0")/../../matrix/node-client.sh" "$(dirname "$0")/client.mjs"
