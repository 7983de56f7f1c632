// naive-node over HTTP — the low end of the matrix: one plain fetch to the
// Messages API offering the StructuredOutput tool, the first call's input (or
// the text, fence stripped, JSON.parse'd) taken as the answer. No schema
// validation, no retries, no stop_reason check: what many hand-rolled
// pipelines ship. The adapter-protocol version is adapter.js.
const env = process.env;
const implementation = { name: 'naive-node (fetch + JSON.parse)', version: '1', language: 'JavaScript',
                         node: process.version, packages: {} };
function print(envelope) {
    process.stdout.write(JSON.stringify({ ...envelope, implementation }) + '\n');
}
try {
    const schema = JSON.parse(env.GAUNTLET_JSON_SCHEMA ?? '{}');
    const response = await fetch(`${env.ANTHROPIC_BASE_URL}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': env.ANTHROPIC_API_KEY ?? 'x',
                   'anthropic-version': '2023-06-01' },
        body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 4096,
                               messages: [{ role: 'user', content: env.GAUNTLET_PROMPT ?? '' }],
                               tools: [{ name: 'StructuredOutput', input_schema: schema }] }),
    });
    const message = await response.json();
    const call = (message.content ?? []).find((block) => block.type === 'tool_use');
    let value = call?.input;
    if (value === undefined) {
        let text = (message.content ?? []).filter((b) => b.type === 'text').map((b) => b.text).join('').trim();
        text = text.replace(/^```(?:json)?\s*/i, '').replace(/\s*```$/, '');
        const start = text.search(/[{[]/);
        value = JSON.parse(start > 0 ? text.slice(start) : text);
    }
    print({ type: 'result', subtype: 'success', is_error: false, structured_output: value });
} catch (error) {
    print({ type: 'result', subtype: 'error_during_execution', is_error: true,
            result: `${error?.constructor?.name}: ${error?.message}` });
}
