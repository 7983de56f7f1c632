#!/bin/sh
# anthropic-sdk-parse "as documented": the same wrapper (client.mjs) plus the one check the
# vendor's docs tell the caller to make before using the parsed object (see the
# comment at the check in client.mjs); the column "anthropic-sdk-parse.documented" of make matrix.
MATRIX_VARIANT=documented exec "$(dirname "$0")/../../matrix/node-client.sh" "$(dirname "$0")/client.mjs"
