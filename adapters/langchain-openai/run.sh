#!/bin/sh
# LangChain.js: new ChatOpenAI(...).withStructuredOutput(schema).invoke(prompt) with @langchain/openai.
# An http-target client for gauntlet (docs/adapter-protocol.md); the library is
# pinned in matrix/package.json and installed by 'make matrix-deps'. Exit 3 when it is not.
#   ./gauntlet run --smoke --target 'http:adapters/langchain-openai/run.sh'
exec "$(dirname "$0")/../../matrix/node-client.sh" "$(dirname "$0")/client.mjs"
