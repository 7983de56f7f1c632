#!/bin/sh
# claude-code.sh BASE_URL [JOURNAL_URL] — the Claude Code CLI (npm
# @anthropic-ai/claude-code), unmodified, run with --json-schema against
# gauntlet scenarios; one JSON line per run: the CLI's result envelope
# (subtype, structured_output, errors) and what the mock's journal saw.
# BASE_URL is the mock, or a proxy in front of it (`gauntlet record`): then
# JOURNAL_URL is the mock's own base URL, where the journal is read.
# Environment: CC_SCENARIOS (the scenarios to run, default all eight below),
# CC_CLIENT (the line's "client", default claude-code).
BASE=$1
JOURNAL=${2:-$1}
CLIENT=${CC_CLIENT:-claude-code}
HERE=$(cd "$(dirname "$0")" && pwd)
CLAUDE="$HERE/node/node_modules/.bin/claude"
SCHEMA='{"type":"object","properties":{"cause":{"type":"string"},"fixes":{"type":"array","items":{"type":"string"}}},"required":["cause","fixes"],"additionalProperties":false}'
home=$(mktemp -d); trap 'rm -rf "$home"' EXIT
for scenario in ${CC_SCENARIOS:-claude-code cc-invalid-then-valid cc-overloaded cc-cut-stream cc-refusal \
                cc-never-calls-tool cc-max-retries cc-max-tokens}; do
    run="cc-$$-$scenario"
    out=$(cd "$home" && HOME="$home" ANTHROPIC_BASE_URL="$BASE/s/$scenario/$run" ANTHROPIC_API_KEY=sk-ant-not-a-real-key \
          DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1 \
          timeout 120 "$CLAUDE" -p --json-schema "$SCHEMA" --output-format json "Why did the build fail?" 2>&1 | tail -n 1)
    rc=$?
    curl -s "$JOURNAL/_gauntlet/journal?session=$scenario/$run" >"$home/journal.json"
    printf '%s' "$out" >"$home/out.txt"
    node -e '
const fs = require("fs");
const [client, scenario, outFile, journalFile] = process.argv.slice(1);
const out = fs.readFileSync(outFile, "utf8"), journal = fs.readFileSync(journalFile, "utf8");
let result; try { result = JSON.parse(out); } catch { result = { unparsed: out.slice(0, 200) }; }
let requests = [];
try { requests = JSON.parse(journal).entries.filter((e) => e.route !== "/").map((e) =>
  `${e.status}${e.stream ? "/sse" : ""}${e.side ? " side" : ""}${e.turn !== null && e.turn !== undefined ? " t" + e.turn : ""}${e.beyond_script ? " beyond-script" : ""}${e.body && e.body.stream === false ? " nostream" : ""}${e.deviations.length ? " dev:" + e.deviations.join("|") : ""}`); } catch {}
console.log(JSON.stringify({ client, scenario, subtype: result.subtype, is_error: result.is_error,
  structured_output: result.structured_output, errors: result.errors, num_turns: result.num_turns,
  result: result.is_error ? String(result.result || "").slice(0, 160) : undefined,
  unparsed: result.unparsed, requests }));' "$CLIENT" "$scenario" "$home/out.txt" "$home/journal.json"
done
