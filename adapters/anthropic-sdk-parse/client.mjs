// @anthropic-ai/sdk's structured-output helper: messages.parse() with
// output_config.format = zodOutputFormat(schema) (the SDK README's example);
// the answer is parsed and validated by the SDK into message.parsed_output.
import { documentedCheck, gauntletEnv, libraryFormat, load, run, zodSchema } from '../../matrix/harness.mjs';

const env = gauntletEnv();
const { default: Anthropic } = await load('@anthropic-ai/sdk');
const { zodOutputFormat } = await load('@anthropic-ai/sdk/helpers/zod');
const schema = await zodSchema(env);
const format = libraryFormat(() => zodOutputFormat(schema));
await run(async () => {
    const client = new Anthropic({ baseURL: env.anthropicBaseURL, apiKey: env.apiKey, maxRetries: env.apiRetries });
    const message = await client.messages.parse({
        model: env.model ?? 'claude-sonnet-4-5',
        max_tokens: 4096,
        messages: [{ role: 'user', content: env.prompt }],
        output_config: { format },
    });
    /* as documented (documented.sh): Anthropic's docs, "Handle streaming refusals": "Include
       `stop_reason: refusal` checks in your error handling"; the SDK's parser never reads it */
    if (env.documented)
        documentedCheck(message.stop_reason === 'refusal', `stop_reason is "refusal"`);
    return message.parsed_output;
}, { name: '@anthropic-ai/sdk messages.parse', packages: ['@anthropic-ai/sdk', 'zod'],
     check: 'stop_reason refusal check' });
