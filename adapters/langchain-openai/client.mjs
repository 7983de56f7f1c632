// LangChain.js: ChatOpenAI(...).withStructuredOutput(schema).invoke(prompt)
// with @langchain/openai (its default method), the schema as zod.
import { gauntletEnv, load, run, zodSchema } from '../../matrix/harness.mjs';

const env = gauntletEnv();
const { ChatOpenAI } = await load('@langchain/openai');
await run(async () => {
    const model = new ChatOpenAI({ model: env.model ?? 'gpt-4o', apiKey: env.apiKey, maxRetries: env.apiRetries,
                                   configuration: { baseURL: env.openaiBaseURL } });
    return await model.withStructuredOutput(await zodSchema(env)).invoke(env.prompt);
}, { name: 'LangChain.js withStructuredOutput + @langchain/openai', packages: ['@langchain/openai', '@langchain/core', 'openai', 'zod'] });
