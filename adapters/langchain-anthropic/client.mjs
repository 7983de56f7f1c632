// LangChain.js: ChatAnthropic(...).withStructuredOutput(schema).invoke(prompt)
// with @langchain/anthropic (its default method), the schema as zod.
import { gauntletEnv, load, run, zodSchema } from '../../matrix/harness.mjs';

const env = gauntletEnv();
const { ChatAnthropic } = await load('@langchain/anthropic');
await run(async () => {
    const model = new ChatAnthropic({ model: env.model ?? 'claude-sonnet-4-5', anthropicApiUrl: env.anthropicBaseURL,
                                      apiKey: env.apiKey, maxRetries: env.apiRetries });
    return await model.withStructuredOutput(await zodSchema(env)).invoke(env.prompt);
}, { name: 'LangChain.js withStructuredOutput + @langchain/anthropic', packages: ['@langchain/anthropic', '@langchain/core', '@anthropic-ai/sdk', 'zod'] });
