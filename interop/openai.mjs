// openai.mjs — the openai npm package, unmodified, against the gauntlet mock.
// Usage: node openai.mjs BASE_URL
import { createRequire } from 'node:module';
const require = createRequire(new URL('./node/', import.meta.url));
const OpenAI = require('openai').default ?? require('openai');
const base = process.argv[2];
const schema = { type: 'object', properties: { cause: { type: 'string' }, fixes: { type: 'array', items: { type: 'string' } } },
                 required: ['cause', 'fixes'], additionalProperties: false };
const tools = [{ type: 'function', function: { name: 'StructuredOutput', parameters: schema, strict: true } }];
const runs = [
  ['openai-tool-call', 'json'], ['openai-tool-call', 'stream'], ['openai-refusal', 'json'], ['openai-refusal', 'stream'],
  ['openai-length', 'json'], ['openai-content-filter', 'stream'], ['openai-json-content', 'parse'],
  ['overloaded-then-success', 'json'], ['connection-reset', 'json'], ['error-401', 'json'], ['cut-after-event', 'stream'],
];
let n = 0;
for (const [scenario, mode] of runs) {
  const run = `oai-${process.pid}-${n++}`;
  const client = new OpenAI({ baseURL: `${base}/s/${scenario}/${run}/v1`, apiKey: 'sk-not-a-real-key', maxRetries: 2, timeout: 20000 });
  const params = { model: 'gpt-4o-mini', tools, messages: [{ role: 'user', content: 'Why did the build fail?' }] };
  const started = Date.now();
  let outcome;
  try {
    if (mode === 'parse') {
      const completion = await client.chat.completions.parse({ model: 'gpt-4o-mini', messages: params.messages,
        response_format: { type: 'json_schema', json_schema: { name: 'triage', schema, strict: true } } });
      const choice = completion.choices[0];
      outcome = { ok: true, finish_reason: choice.finish_reason, parsed: choice.message.parsed };
    } else if (mode === 'stream') {
      const stream = await client.chat.completions.create({ ...params, stream: true, stream_options: { include_usage: true } });
      let finish = null, args = '', refusal = '', content = '', usage = null;
      for await (const chunk of stream) {
        if (chunk.usage) usage = chunk.usage;
        for (const c of chunk.choices) {
          if (c.finish_reason) finish = c.finish_reason;
          if (c.delta?.content) content += c.delta.content;
          if (c.delta?.refusal) refusal += c.delta.refusal;
          for (const t of c.delta?.tool_calls ?? []) args += t.function?.arguments ?? '';
        }
      }
      outcome = { ok: true, finish_reason: finish, arguments: args || undefined, refusal: refusal || undefined,
                  content: content || undefined, usage: usage ? usage.total_tokens : undefined };
    } else {
      const completion = await client.chat.completions.create(params);
      const choice = completion.choices[0];
      outcome = { ok: true, finish_reason: choice.finish_reason, refusal: choice.message.refusal ?? undefined,
                  arguments: choice.message.tool_calls?.[0]?.function.arguments };
    }
  } catch (error) {
    outcome = { ok: false, error: error.constructor.name, status: error.status, message: String(error.message).slice(0, 160) };
  }
  let requests = null;
  try {
    const journal = await (await fetch(`${base}/_gauntlet/journal?session=${scenario}/${run}`)).json();
    requests = journal.entries.map((e) => `${e.status}${e.stream ? '/sse' : ''}`);
  } catch { /* journal unavailable */ }
  console.log(JSON.stringify({ client: 'openai', scenario, mode, ms: Date.now() - started, ...outcome, requests }));
}
