// openai: responses.parse() with text.format = zodTextFormat(schema, name)
// (the Responses API's structured-outputs helper); the answer is output_parsed.
import { gauntletEnv, libraryFormat, load, run, zodSchema } from '../../matrix/harness.mjs';

const env = gauntletEnv();
const { default: OpenAI } = await load('openai');
const { zodTextFormat } = await load('openai/helpers/zod');
const schema = await zodSchema(env);
const format = libraryFormat(() => zodTextFormat(schema, 'answer'));
await run(async () => {
    const client = new OpenAI({ baseURL: env.openaiBaseURL, apiKey: env.apiKey, maxRetries: env.apiRetries });
    const response = await client.responses.parse({
        model: env.model ?? 'gpt-4o',
        input: [{ role: 'user', content: env.prompt }],
        text: { format },
    });
    return response.output_parsed;
}, { name: 'openai responses.parse', packages: ['openai', 'zod'] });
