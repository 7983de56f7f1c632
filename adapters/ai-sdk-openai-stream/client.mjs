// Vercel AI SDK: streamObject({model, schema, prompt}) with @ai-sdk/openai, as the AI
// SDK documents structured data generation; the schema is zod.
import { gauntletEnv, load, run, zodSchema } from '../../matrix/harness.mjs';

globalThis.AI_SDK_LOG_WARNINGS = false;
const env = gauntletEnv();
const { streamObject } = await load('ai');
const { createOpenAI } = await load('@ai-sdk/openai');
await run(async () => {
    const model = createOpenAI({ baseURL: env.openaiBaseURL, apiKey: env.apiKey })(env.model ?? 'gpt-4o');
    const result = streamObject({ model, schema: await zodSchema(env), prompt: env.prompt, maxRetries: env.apiRetries,
                                 onError: () => {} });
    for await (const partial of result.partialObjectStream) void partial; // consumed as a UI would
    return await result.object;
}, { name: 'ai streamObject + @ai-sdk/openai', packages: ['@ai-sdk/openai', 'ai', 'zod'] });
