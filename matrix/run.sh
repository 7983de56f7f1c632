#!/bin/sh
# make matrix: install the pinned libraries, then run every implementation
# over corpus/loop, corpus/stream and corpus/field with `gauntlet matrix` and
# regenerate docs/matrix.md (plus build/matrix/matrix.json and matrix.html).
# Columns: the reference client and Claude Code (when `make interop`
# installed it), then every library wrapper of adapters/. The columns run in
# parallel: MATRIX_JOBS workers in all (default: gauntlet's, one per CPU);
# MATRIX_TARGETS="name ..." runs only those columns.
#
# Modes (docs/ci.md, "The implementations matrix, one job per library"):
#   MATRIX_COLUMN_ONLY=1  (make matrix-column NAME=...) each wanted column
#                         runs alone into $MATRIX_OUT/columns/NAME.json, a
#                         mergeable matrix JSON;
#   MATRIX_MERGE=1        (make matrix-merge) the column files of every wanted
#                         column (NAME.json or */NAME.json, as a CI artifact
#                         download leaves them), in column order, merged
#                         (`gauntlet matrix --merge`) into the three reports;
#                         no npm needed; a column without its file is an error,
#                         except claude-code (a machine without the CLI has
#                         no such column);
#   MATRIX_LIST=1         print the column names, one a line, and exit.
# The node wrappers run as persistent clients (`--target http-worker:...`,
# matrix/worker.mjs: one node process per worker thread serves many cases, so
# the libraries are imported once, not once per case); MATRIX_ONE_SHOT=1 runs
# them as `http:` clients, one process per case, as a vendor's wrapper runs.
# The verdicts are the same either way (docs/adapter-protocol.md, "Persistent
# clients", with the measured run times).
# MATRIX_OUT=DIR writes the reports to DIR/matrix.{md,json,html} and the
# columns to DIR/columns (default: docs/matrix.md, build/matrix/...);
# MATRIX_REPORT replaces the --report list of a whole run (to explore without
# overwriting docs/matrix.md);
# MATRIX_PATHS (default "corpus/loop corpus/stream corpus/field") and
# MATRIX_SELECT (more selection options, e.g. "--id GLOB") narrow the cases;
# MATRIX_PREVIOUS=OLD.json (a matrix JSON of an earlier make matrix, e.g.
# before a bump of matrix/package.json) adds "fixed since" / "new since"
# lines to the field sections (`--previous`). MATRIX_NO_INSTALL=1 skips `make matrix-deps` (for columns that need no npm
# package: reference-client, naive-node, claude-code).
#
# Each column claims the profiles (docs/profiles.md) its library documents,
# with the evidence shown beside the claim; a case of another profile is not
# applicable to it (never sent). column NAME SPEC PROFILES EVIDENCE.
set -u
set -f # no globbing of the evidence texts or the selection
HERE=$(cd "$(dirname "$0")" && pwd)
NODE_KIND=http-worker
[ "${MATRIX_ONE_SHOT:-}" = 1 ] && NODE_KIND=http
ROOT=$(cd "$HERE/.." && pwd)
GAUNTLET=${GAUNTLET:-build/gauntlet}
PATHS=${MATRIX_PATHS:-corpus/loop corpus/stream corpus/field}
SELECT=${MATRIX_SELECT:-}
if [ -n "${MATRIX_OUT:-}" ]; then
    MD=$MATRIX_OUT/matrix.md JSON=$MATRIX_OUT/matrix.json HTML=$MATRIX_OUT/matrix.html COLUMNS=$MATRIX_OUT/columns
else
    MD=docs/matrix.md JSON=build/matrix/matrix.json HTML=build/matrix/matrix.html COLUMNS=build/matrix/columns
fi
REPORTS=${MATRIX_REPORT:-md:$MD,json:$JSON,html:$HTML}
MODE=run
[ "${MATRIX_COLUMN_ONLY:-}" = 1 ] && MODE=column
[ "${MATRIX_MERGE:-}" = 1 ] && MODE=merge
[ "${MATRIX_LIST:-}" = 1 ] && MODE=list

want() { [ -z "${MATRIX_TARGETS:-}" ] || case " $MATRIX_TARGETS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
var_of() { printf %s "$1" | tr -c 'A-Za-z0-9' _; }
# column NAME SPEC PROFILES EVIDENCE: NAME's arguments, one a line, in COL_<NAME>
NAMES=
column() {
    want "$1" || return 0
    NAMES="$NAMES $1"
    eval "COL_$(var_of "$1")=\$(printf '%s\n' --target \"\$1=\$2\" --profile \"\$1=\$3\" --evidence \"\$1=\$4\")"
}
# more NAME ARG...: more arguments of column NAME (after its --target)
more() {
    want "$1" || return 0
    _var=COL_$(var_of "$1")
    shift
    eval "$_var=\"\$$_var
\$(printf '%s\n' \"\$@\")\""
}
have_claude() {
    [ -n "${CLAUDE:-}" ] || [ -x "$ROOT/interop/node/node_modules/.bin/claude" ] || command -v claude >/dev/null 2>&1
}

column reference-client http:adapters/http-reference-client/run.sh all \
    "gauntlet's reference loop (seed 000's StructuredOutput contract, seed 002's repair, seed 004's transform): it claims every profile"
if want claude-code && { [ "$MODE" = merge ] || [ "$MODE" = list ] || have_claude; }; then
    column claude-code http:adapters/claude-code/run.sh core,repair-loop,claude-code \
        "seed 000 is Claude Code's own --json-schema loop: StructuredOutput tool, MAX_STRUCTURED_OUTPUT_RETRIES (default 5) re-prompts with the validation errors; run with --fallback-model (claude --help) so a provider fallback is a model fallback"
fi
column naive-node "$NODE_KIND:adapters/naive-node/run.sh" core \
    "one fetch and JSON.parse, no validation and no retry: it claims nothing beyond what every pipeline must do"
column anthropic-sdk-parse "$NODE_KIND:adapters/anthropic-sdk-parse/run.sh" core \
    "messages.parse() makes one request and validates the text into parsed_output (SDK README, helpers/zod); maxRetries retries transport errors only"
column anthropic-sdk-tool "$NODE_KIND:adapters/anthropic-sdk-tool/run.sh" core \
    "messages.create() with a forced tool is one request; the wrapper validates the tool input with zod once"
column openai-chat-parse "$NODE_KIND:adapters/openai-chat-parse/run.sh" core \
    "chat.completions.parse() makes one request and parses message.content with the zod schema (openai-node helpers.md); maxRetries is transport only"
column openai-responses-parse "$NODE_KIND:adapters/openai-responses-parse/run.sh" core \
    "responses.parse() makes one request and parses output_text into output_parsed (openai-node helpers.md); maxRetries is transport only"
# "library as documented": the same wrappers plus the one check the vendor's
# docs tell the caller to make before using the parsed object
column anthropic-sdk-parse.documented "$NODE_KIND:adapters/anthropic-sdk-parse/documented.sh" core \
    "messages.parse() as above, plus the caller check Anthropic's docs ask for (Handle streaming refusals: \"Include stop_reason: refusal checks in your error handling\")"
column openai-chat-parse.documented "$NODE_KIND:adapters/openai-chat-parse/documented.sh" core \
    "chat.completions.parse() as above, plus the caller check OpenAI's Structured Outputs guide shows (Refusals: message.refusal before message.parsed)"
column openai-responses-parse.documented "$NODE_KIND:adapters/openai-responses-parse/documented.sh" core \
    "responses.parse() as above, plus the caller check OpenAI's Structured Outputs guide shows (Refusals: an output item of type refusal before output_parsed)"
for name in ai-sdk-anthropic ai-sdk-anthropic-stream ai-sdk-openai ai-sdk-openai-stream; do
    column "$name" "$NODE_KIND:adapters/$name/run.sh" core \
        "generateObject/streamObject make one model call and throw NoObjectGeneratedError when the object fails the schema (AI SDK docs, Generating Structured Data); maxRetries is for API call errors"
done
for name in langchain-anthropic langchain-openai; do
    column "$name" "$NODE_KIND:adapters/$name/run.sh" core \
        "withStructuredOutput() is the model bound to a tool plus an output parser: one call, OutputParserException on a bad answer (LangChain.js docs, Structured outputs); maxRetries is the AsyncCaller's transport retry"
done
for name in instructor-tools instructor-json-schema; do
    column "$name" "$NODE_KIND:adapters/$name/run.sh" core,repair-loop \
        "max_retries re-asks the model with the validation errors until the response model validates (instructor-js docs, Retries): a repair loop"
done
# repos NAME OWNER/REPO,...: the repositories of the package the wrapper
# calls; the column's "Reported in the field" section lists each case whose
# source is one of their threads (corpus/field, docs/corpus-format.md)
repos() { more "$1" --repos "$1=$2"; }
repos claude-code anthropics/claude-code,anthropics/claude-agent-sdk-typescript
repos anthropic-sdk-parse anthropics/anthropic-sdk-typescript
repos anthropic-sdk-tool anthropics/anthropic-sdk-typescript
repos openai-chat-parse openai/openai-node
repos openai-responses-parse openai/openai-node
repos anthropic-sdk-parse.documented anthropics/anthropic-sdk-typescript
repos openai-chat-parse.documented openai/openai-node
repos openai-responses-parse.documented openai/openai-node
for name in ai-sdk-anthropic ai-sdk-anthropic-stream ai-sdk-openai ai-sdk-openai-stream; do repos "$name" vercel/ai; done
for name in langchain-anthropic langchain-openai; do repos "$name" langchain-ai/langchainjs; done
for name in instructor-tools instructor-json-schema; do repos "$name" instructor-ai/instructor-js; done

if [ "$MODE" = list ]; then
    for name in $NAMES; do echo "$name"; done
    exit 0
fi
if [ -z "$NAMES" ]; then
    echo "matrix: MATRIX_TARGETS=\"${MATRIX_TARGETS:-}\" names no column (MATRIX_LIST=1 sh matrix/run.sh lists them)" >&2
    exit 2
fi

if [ "$MODE" = merge ]; then
    set -- "$GAUNTLET" matrix --merge
    for name in $NAMES; do
        file=$COLUMNS/$name.json
        if [ ! -f "$file" ]; then
            set +f
            for found in "$COLUMNS"/*/"$name".json; do [ -f "$found" ] && file=$found; done
            set -f
        fi
        if [ -f "$file" ]; then
            set -- "$@" "$file"
        elif [ "$name" = claude-code ]; then
            echo "matrix: no $COLUMNS/claude-code.json: the matrix has no claude-code column" >&2
        else
            echo "matrix: no column file $COLUMNS/$name.json (nor $COLUMNS/*/$name.json): run make matrix-column NAME=$name" >&2
            exit 2
        fi
    done
    set -- "$@" --notes "$HERE/notes" --report "$REPORTS" ${MATRIX_PREVIOUS:+--previous "$MATRIX_PREVIOUS"}
    echo "matrix: $*"
    "$@"
    exit $?
fi

[ "${MATRIX_NO_INSTALL:-}" = 1 ] || sh "$HERE/install.sh" || exit 1
if want reference-client; then
    more reference-client --version "reference-client=gauntlet $("$GAUNTLET" --version | sed 's/^gauntlet //')" \
        --language reference-client=C
fi
case " $NAMES " in *" claude-code "*)
    claude=${CLAUDE:-$ROOT/interop/node/node_modules/.bin/claude}
    [ -x "$claude" ] || claude=$(command -v claude)
    # its language: what the installed package ships (a node script, or the
    # platform package's compiled executable)
    claude_bin=$(readlink -f "$claude")
    case $(head -c 4 "$claude_bin" | od -An -c | tr -d ' ') in
    *177ELF*) claude_language="JavaScript (compiled ELF executable $(basename "$claude_bin"))" ;;
    *) claude_language="JavaScript (node $(node --version 2>/dev/null))" ;;
    esac
    # a Claude Code case mostly waits (the CLI's own start-up and turns), so
    # its column runs MATRIX_CLAUDE_JOBS cases at a time beside the others
    more claude-code --column-jobs "claude-code=${MATRIX_CLAUDE_JOBS:-4}"
    more claude-code --version "claude-code=$("$claude" --version 2>/dev/null | head -n 1)" --language "claude-code=$claude_language"
    ;;
esac

# run_matrix REPORTS NAME...: one `gauntlet matrix` over those columns
run_matrix() {
    _reports=$1
    shift
    _args=
    for _name in "$@"; do
        eval "_args=\"\$_args
\$COL_$(var_of "$_name")\""
    done
    # shellcheck disable=SC2086 # PATHS and SELECT are word lists
    set -- "$GAUNTLET" matrix $PATHS $SELECT ${MATRIX_JOBS:+-j "$MATRIX_JOBS"} --notes matrix/notes --report "$_reports" \
        ${MATRIX_PREVIOUS:+--previous "$MATRIX_PREVIOUS"}
    _old_ifs=$IFS
    IFS='
'
    # shellcheck disable=SC2086 # the column arguments, one a line (evidence texts hold spaces)
    set -- "$@" $_args
    IFS=$_old_ifs
    echo "matrix: $*"
    "$@"
}

start=$(date +%s)
status=0
if [ "$MODE" = column ]; then
    mkdir -p "$COLUMNS"
    for name in $NAMES; do
        run_matrix "json:$COLUMNS/$name.json" "$name"
        rc=$?
        [ "$rc" -gt "$status" ] && status=$rc
    done
else
    mkdir -p "$(dirname "$JSON")" "$(dirname "$HTML")" "$(dirname "$MD")"
    # shellcheck disable=SC2086 # NAMES is a word list
    run_matrix "$REPORTS" $NAMES
    status=$?
fi
echo "matrix: make matrix took $(( $(date +%s) - start )) s"
exit $status
