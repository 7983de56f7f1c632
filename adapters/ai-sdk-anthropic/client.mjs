// Vercel AI SDK: generateObject({model, schema, prompt}) with @ai-sdk/anthropic, as the AI
// SDK documents structured data generation; the schema is zod.
import { gauntletEnv, load, run, zodSchema } from '../../matrix/harness.mjs';

globalThis.AI_SDK_LOG_WARNINGS = false;
const env = gauntletEnv();
const { generateObject } = await load('ai');
const { createAnthropic } = await load('@ai-sdk/anthropic');
await run(async () => {
    const model = createAnthropic({ baseURL: `${env.anthropicBaseURL}/v1`, apiKey: env.apiKey })(env.model ?? 'claude-sonnet-4-5');
    const result = await generateObject({ model, schema: await zodSchema(env), prompt: env.prompt, maxRetries: env.apiRetries });
    return result.object;
}, { name: 'ai generateObject + @ai-sdk/anthropic', packages: ['@ai-sdk/anthropic', 'ai', 'zod'] });
