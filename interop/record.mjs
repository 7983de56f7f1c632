// record.mjs — @anthropic-ai/sdk and openai, unmodified, through `gauntlet record` (docs/record.md).
// Usage: node record.mjs RECORDER_BASE_URL [NODE_MODULES_PARENT]
// Each run is one conversation: a forced tool or a response_format, JSON or streamed, and a
// tool loop (an invalid call answered with an is_error tool_result, then a valid one) that
// must record as ONE scenario. Prints one JSON line per run.
import { createRequire } from 'node:module';
const require = createRequire(process.argv[3] ? `${process.argv[3].replace(/\/$/, '')}/` : new URL('./node/', import.meta.url));
const Anthropic = require('@anthropic-ai/sdk').default ?? require('@anthropic-ai/sdk');
const OpenAI = require('openai').default ?? require('openai');
const base = process.argv[2];
const schema = { type: 'object', properties: { cause: { type: 'string' }, fixes: { type: 'array', items: { type: 'string' } } },
                 required: ['cause', 'fixes'], additionalProperties: false };
const key = 'sk-RECORD-SECRET-0451';
const ok = (v) => v && typeof v.cause === 'string' && Array.isArray(v.fixes);

async function anthropicLoop(scenario, run, stream) {
  const client = new Anthropic({ baseURL: `${base}/s/${scenario}/${run}`, apiKey: key, maxRetries: 0 });
  const messages = [{ role: 'user', content: 'Why did the build fail?' }];
  const params = { model: 'claude-sonnet-4-5', max_tokens: 512, tools: [{ name: 'extract', input_schema: schema }],
                   tool_choice: { type: 'tool', name: 'extract' } };
  for (let turn = 0; turn < 3; turn++) {
    const reply = stream ? await client.messages.stream({ ...params, messages }).finalMessage()
                         : await client.messages.create({ ...params, messages });
    const call = reply.content.find((b) => b.type === 'tool_use');
    if (!call) return { ok: false, why: 'no tool call', turns: turn + 1 };
    if (ok(call.input)) return { ok: true, input: call.input, turns: turn + 1 };
    messages.push({ role: 'assistant', content: reply.content });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, is_error: true,
                                              content: 'cause must be a string, fixes an array' }] });
  }
  return { ok: false, why: 'gave up' };
}

async function openaiLoop(scenario, run, stream) {
  const client = new OpenAI({ baseURL: `${base}/s/${scenario}/${run}/v1`, apiKey: key, maxRetries: 0 });
  const messages = [{ role: 'user', content: 'Why did the build fail?' }];
  const params = { model: 'gpt-4o-mini', tools: [{ type: 'function', function: { name: 'extract', parameters: schema } }],
                   tool_choice: { type: 'function', function: { name: 'extract' } } };
  for (let turn = 0; turn < 3; turn++) {
    let call;
    if (stream) {
      const s = await client.chat.completions.create({ ...params, messages, stream: true });
      let id = '', name = '', args = '';
      for await (const chunk of s)
        for (const c of chunk.choices)
          for (const t of c.delta?.tool_calls ?? []) { id ||= t.id ?? ''; name ||= t.function?.name ?? ''; args += t.function?.arguments ?? ''; }
      call = { id, type: 'function', function: { name, arguments: args } };
    } else {
      call = (await client.chat.completions.create({ ...params, messages })).choices[0].message.tool_calls?.[0];
    }
    if (!call) return { ok: false, why: 'no tool call', turns: turn + 1 };
    let input = null;
    try { input = JSON.parse(call.function.arguments); } catch { /* invalid JSON: fed back */ }
    if (ok(input)) return { ok: true, input, turns: turn + 1 };
    messages.push({ role: 'assistant', content: null, tool_calls: [call] });
    messages.push({ role: 'tool', tool_call_id: call.id, content: 'cause must be a string, fixes an array' });
  }
  return { ok: false, why: 'gave up' };
}

async function openaiParse(scenario, run) {
  const client = new OpenAI({ baseURL: `${base}/s/${scenario}/${run}/v1`, apiKey: key, maxRetries: 0 });
  const completion = await client.chat.completions.parse({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Why?' }],
    response_format: { type: 'json_schema', json_schema: { name: 'triage', schema, strict: true } } });
  return { ok: true, parsed: completion.choices[0].message.parsed };
}

async function openaiResponses(scenario, run, stream) {
  const client = new OpenAI({ baseURL: `${base}/s/${scenario}/${run}/v1`, apiKey: key, maxRetries: 0 });
  const params = { model: 'gpt-4o-mini', input: 'Why did the build fail?',
                   text: { format: { type: 'json_schema', name: 'triage', schema, strict: true } } };
  let text = '';
  if (stream) {
    const s = await client.responses.create({ ...params, stream: true });
    for await (const event of s) if (event.type === 'response.output_text.delta') text += event.delta;
  } else {
    text = (await client.responses.create(params)).output_text;
  }
  let parsed = null;
  try { parsed = JSON.parse(text); } catch { /* not JSON */ }
  return { ok: ok(parsed), parsed };
}

const runs = [
  ['anthropic', 'cc-invalid-then-valid', 'json', () => anthropicLoop('cc-invalid-then-valid', 'a1', false)],
  ['anthropic', 'cc-invalid-then-valid', 'stream', () => anthropicLoop('cc-invalid-then-valid', 'a2', true)],
  ['openai', 'cc-invalid-then-valid', 'json', () => openaiLoop('cc-invalid-then-valid', 'o1', false)],
  ['openai', 'cc-invalid-then-valid', 'stream', () => openaiLoop('cc-invalid-then-valid', 'o2', true)],
  ['openai', 'openai-json-content', 'parse', () => openaiParse('openai-json-content', 'o3')],
  ['openai', 'ok-message', 'responses', () => openaiResponses('ok-message', 'r1', false)],
  ['openai', 'ok-stream', 'responses-stream', () => openaiResponses('ok-stream', 'r2', true)],
];
for (const [client, scenario, mode, run] of runs) {
  const started = Date.now();
  let outcome;
  try { outcome = await run(); } catch (error) { outcome = { ok: false, error: error.constructor.name, message: String(error.message).slice(0, 160) }; }
  console.log(JSON.stringify({ client: `record/${client}`, scenario, mode, ms: Date.now() - started, ...outcome }));
}
