#!/bin/sh
# make matrix: install the pinned libraries, then run every implementation
# over corpus/loop, corpus/stream and corpus/field with `gauntlet matrix` and regenerate
# docs/matrix.md (plus build/matrix/matrix.json and matrix.html). Columns: the
# reference client and Claude Code (when `make interop` installed it), then
# every library wrapper of adapters/. The columns run in parallel:
# MATRIX_JOBS workers in all (default: gauntlet's, one per CPU);
# MATRIX_TARGETS="name ..." runs only those columns; MATRIX_PATHS="DIR ..."
# replaces the corpus paths; MATRIX_REPORT replaces the --report list (to
# explore without overwriting docs/matrix.md).
#
# Each column claims the profiles (docs/profiles.md) its library documents,
# with the evidence shown beside the claim; a case of another profile is not
# applicable to it (never sent). claim NAME PROFILES EVIDENCE.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
GAUNTLET=${GAUNTLET:-build/gauntlet}
sh "$HERE/install.sh" || exit 1
mkdir -p build/matrix
set -- "$GAUNTLET" matrix ${MATRIX_PATHS:-corpus/loop corpus/stream corpus/field} ${MATRIX_JOBS:+-j "$MATRIX_JOBS"} --notes matrix/notes \
    --report "${MATRIX_REPORT:-md:docs/matrix.md,json:build/matrix/matrix.json,html:build/matrix/matrix.html}"
want() { [ -z "${MATRIX_TARGETS:-}" ] || case " $MATRIX_TARGETS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
# column NAME SPEC PROFILES EVIDENCE
column() {
    want "$1" && COLUMNS_ARGS="$COLUMNS_ARGS
--target
$1=$2
--profile
$1=$3
--evidence
$1=$4"
    return 0
}
COLUMNS_ARGS=
column reference-client http:adapters/http-reference-client/run.sh all \
    "gauntlet's reference loop (seed 000's StructuredOutput contract, seed 002's repair, seed 004's transform): it claims every profile"
if want claude-code && { [ -n "${CLAUDE:-}" ] || [ -x "$ROOT/interop/node/node_modules/.bin/claude" ] || command -v claude >/dev/null 2>&1; }; then
    claude=${CLAUDE:-$ROOT/interop/node/node_modules/.bin/claude}
    [ -x "$claude" ] || claude=$(command -v claude)
    CLAUDE_VERSION=$("$claude" --version 2>/dev/null | head -n 1)
    # its language: what the installed package ships (a node script, or the
    # platform package's compiled executable)
    claude_bin=$(readlink -f "$claude")
    case $(head -c 4 "$claude_bin" | od -An -c | tr -d ' ') in
    *177ELF*) CLAUDE_LANGUAGE="JavaScript (compiled ELF executable $(basename "$claude_bin"))" ;;
    *) CLAUDE_LANGUAGE="JavaScript (node $(node --version 2>/dev/null))" ;;
    esac
    column claude-code http:adapters/claude-code/run.sh core,repair-loop,claude-code \
        "seed 000 is Claude Code's own --json-schema loop: StructuredOutput tool, MAX_STRUCTURED_OUTPUT_RETRIES (default 5) re-prompts with the validation errors; run with --fallback-model (claude --help) so a provider fallback is a model fallback"
fi
column naive-node http:adapters/naive-node/run.sh core \
    "one fetch and JSON.parse, no validation and no retry: it claims nothing beyond what every pipeline must do"
column anthropic-sdk-parse http:adapters/anthropic-sdk-parse/run.sh core \
    "messages.parse() makes one request and validates the text into parsed_output (SDK README, helpers/zod); maxRetries retries transport errors only"
column anthropic-sdk-tool http:adapters/anthropic-sdk-tool/run.sh core \
    "messages.create() with a forced tool is one request; the wrapper validates the tool input with zod once"
column openai-chat-parse http:adapters/openai-chat-parse/run.sh core \
    "chat.completions.parse() makes one request and parses message.content with the zod schema (openai-node helpers.md); maxRetries is transport only"
column openai-responses-parse http:adapters/openai-responses-parse/run.sh core \
    "responses.parse() makes one request and parses output_text into output_parsed (openai-node helpers.md); maxRetries is transport only"
# "library as documented": the same wrappers plus the one check the vendor's
# docs tell the caller to make before using the parsed object
column anthropic-sdk-parse.documented http:adapters/anthropic-sdk-parse/documented.sh core \
    "messages.parse() as above, plus the caller check Anthropic's docs ask for (Handle streaming refusals: \"Include stop_reason: refusal checks in your error handling\")"
column openai-chat-parse.documented http:adapters/openai-chat-parse/documented.sh core \
    "chat.completions.parse() as above, plus the caller check OpenAI's Structured Outputs guide shows (Refusals: message.refusal before message.parsed)"
column openai-responses-parse.documented http:adapters/openai-responses-parse/documented.sh core \
    "responses.parse() as above, plus the caller check OpenAI's Structured Outputs guide shows (Refusals: an output item of type refusal before output_parsed)"
for name in ai-sdk-anthropic ai-sdk-anthropic-stream ai-sdk-openai ai-sdk-openai-stream; do
    column "$name" "http:adapters/$name/run.sh" core \
        "generateObject/streamObject make one model call and throw NoObjectGeneratedError when the object fails the schema (AI SDK docs, Generating Structured Data); maxRetries is for API call errors"
done
for name in langchain-anthropic langchain-openai; do
    column "$name" "http:adapters/$name/run.sh" core \
        "withStructuredOutput() is the model bound to a tool plus an output parser: one call, OutputParserException on a bad answer (LangChain.js docs, Structured outputs); maxRetries is the AsyncCaller's transport retry"
done
for name in instructor-tools instructor-json-schema; do
    column "$name" "http:adapters/$name/run.sh" core,repair-loop \
        "max_retries re-asks the model with the validation errors until the response model validates (instructor-js docs, Retries): a repair loop"
done
# the column arguments, one a line (evidence texts hold spaces)
set -f # no globbing of the evidence texts
OLD_IFS=$IFS
IFS='
'
# shellcheck disable=SC2086
set -- "$@" $COLUMNS_ARGS
IFS=$OLD_IFS
want reference-client && set -- "$@" --version "reference-client=gauntlet $("$GAUNTLET" --version | sed 's/^gauntlet //')" \
    --language reference-client=C
[ -n "${CLAUDE_VERSION:-}" ] && set -- "$@" --version "claude-code=$CLAUDE_VERSION" --language "claude-code=$CLAUDE_LANGUAGE"
echo "matrix: $*"
start=$(date +%s)
"$@"
status=$?
echo "matrix: make matrix took $(( $(date +%s) - start )) s"
exit $status
