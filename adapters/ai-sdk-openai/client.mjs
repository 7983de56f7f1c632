// Vercel AI SDK: generateObject({model, schema, prompt}) with @ai-sdk/openai, as the AI
// SDK documents structured data generation; the schema is zod.
import { gauntletEnv, load, run, zodSchema } from '../../matrix/harness.mjs';

globalThis.AI_SDK_LOG_WARNINGS = false;
const env = gauntletEnv();
const { generateObject } = await load('ai');
const { createOpenAI } = await load('@ai-sdk/openai');
await run(async () => {
    const model = createOpenAI({ baseURL: env.openaiBaseURL, apiKey: env.apiKey })(env.model ?? 'gpt-4o');
    const result = await generateObject({ model, schema: await zodSchema(env), prompt: env.prompt, maxRetries: env.apiRetries });
    return result.object;
}, { name: 'ai generateObject + @ai-sdk/openai', packages: ['@ai-sdk/openai', 'ai', 'zod'] });
