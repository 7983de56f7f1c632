// openai: chat.completions.parse() with response_format =
// zodResponseFormat(schema, name) (the SDK's structured-outputs helper); the
// answer is message.parsed, a refusal is message.refusal.
import { gauntletEnv, libraryFormat, load, run, zodSchema } from '../../matrix/harness.mjs';

const env = gauntletEnv();
const { default: OpenAI } = await load('openai');
const { zodResponseFormat } = await load('openai/helpers/zod');
const schema = await zodSchema(env);
const format = libraryFormat(() => zodResponseFormat(schema, 'answer'));
await run(async () => {
    const client = new OpenAI({ baseURL: env.openaiBaseURL, apiKey: env.apiKey, maxRetries: env.apiRetries });
    const completion = await client.chat.completions.parse({
        model: env.model ?? 'gpt-4o',
        messages: [{ role: 'user', content: env.prompt }],
        response_format: format,
    });
    const message = completion.choices[0]?.message;
    if (message?.refusal)
        throw new Error(`refusal: ${message.refusal}`);
    return message?.parsed;
}, { name: 'openai chat.completions.parse', packages: ['openai', 'zod'] });
