// anthropic-sdk.mjs — @anthropic-ai/sdk, unmodified, against the gauntlet mock.
// Usage: node anthropic-sdk.mjs BASE_URL   (prints one JSON line per run)
import { createRequire } from 'node:module';
const require = createRequire(new URL('./node/', import.meta.url));
const Anthropic = require('@anthropic-ai/sdk').default ?? require('@anthropic-ai/sdk');
const base = process.argv[2];
const schema = { type: 'object', properties: { cause: { type: 'string' }, fixes: { type: 'array', items: { type: 'string' } } },
                 required: ['cause', 'fixes'], additionalProperties: false };
const tools = [{ name: 'StructuredOutput', description: 'final answer', input_schema: schema }];
const runs = [
  ['ok-message', 'json'], ['ok-stream', 'stream'], ['ok-message', 'stream'], ['ok-stream', 'json'],
  ['overloaded-then-success', 'json'], ['rate-limited-then-success', 'stream'], ['connection-reset', 'json'],
  ['http-error-body', 'json'], ['refusal', 'json'], ['max-tokens', 'stream'], ['cut-after-event', 'stream'],
  ['cut-inside-delta', 'stream'], ['malformed-sse', 'stream'], ['malformed-sse-named', 'stream'], ['wrong-content-type', 'json'], ['error-401', 'json'],
  ['error-500-exhausts', 'json'], ['latency', 'json'], ['slow-drip', 'stream'], ['oversized', 'json'],
];
let n = 0;
for (const [scenario, mode] of runs) {
  const run = `sdk-${process.pid}-${n++}`;
  const client = new Anthropic({ baseURL: `${base}/s/${scenario}/${run}`, apiKey: 'sk-ant-not-a-real-key', maxRetries: 2, timeout: 20000 });
  const params = { model: 'claude-gauntlet-mock', max_tokens: 1024, tools,
                   messages: [{ role: 'user', content: 'Why did the build fail?' }] };
  const started = Date.now();
  let outcome;
  try {
    const message = mode === 'stream' ? await client.messages.stream(params).finalMessage()
                                      : await client.messages.create(params);
    const tool = message.content.find((b) => b.type === 'tool_use');
    outcome = { ok: true, stop_reason: message.stop_reason, tool_input: tool ? tool.input : null,
                text: message.content.filter((b) => b.type === 'text').map((b) => b.text).join('') || undefined };
  } catch (error) {
    outcome = { ok: false, error: error.constructor.name, status: error.status, message: String(error.message).slice(0, 160) };
  }
  let requests = null;
  try {
    const journal = await (await fetch(`${base}/_gauntlet/journal?session=${scenario}/${run}`)).json();
    requests = journal.entries.map((e) => `${e.status}${e.stream ? '/sse' : ''}${e.headers['x-stainless-retry-count'] ? ' retry=' + e.headers['x-stainless-retry-count'] : ''}`);
  } catch { /* journal unavailable */ }
  console.log(JSON.stringify({ client: '@anthropic-ai/sdk', scenario, mode, ms: Date.now() - started, ...outcome, requests }));
}
