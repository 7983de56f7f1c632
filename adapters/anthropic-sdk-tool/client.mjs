// @anthropic-ai/sdk, the "JSON output via a forced tool" pattern: one tool
// whose input_schema is the caller's schema, tool_choice forcing it, and the
// tool input validated with zod before anyone acts on it.
import { gauntletEnv, load, run, schemaValue, zodSchema } from '../../matrix/harness.mjs';

const env = gauntletEnv();
const { default: Anthropic } = await load('@anthropic-ai/sdk');
await run(async () => {
    const schema = await zodSchema(env);
    const client = new Anthropic({ baseURL: env.anthropicBaseURL, apiKey: env.apiKey, maxRetries: env.apiRetries });
    const message = await client.messages.create({
        model: env.model ?? 'claude-sonnet-4-5',
        max_tokens: 4096,
        messages: [{ role: 'user', content: env.prompt }],
        tools: [{ name: 'record_answer', description: 'Record the answer.', input_schema: schemaValue(env) }],
        tool_choice: { type: 'tool', name: 'record_answer' },
    });
    const call = message.content.find((block) => block.type === 'tool_use' && block.name === 'record_answer');
    if (call === undefined)
        throw new Error(`no record_answer call (stop_reason ${message.stop_reason})`);
    return schema.parse(call.input);
}, { name: '@anthropic-ai/sdk forced tool + zod', packages: ['@anthropic-ai/sdk', 'zod'] });
