#!/bin/sh
# Vercel AI SDK (ai): streamObject({model: openai(...), schema}) with @ai-sdk/openai; the object is the awaited result.object.
# An http-target client for gauntlet (docs/adapter-protocol.md); the library is
# pinned in matrix/package.json and installed by 'make matrix-deps'. Exit 3 when it is not.
#   ./gauntlet run --smoke --target 'http:adapters/ai-sdk-openai-stream/run.sh'
exec "$(dirname "$0")/../../matrix/node-client.sh" "$(dirname "$0")/client.mjs"
