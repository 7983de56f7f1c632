// openai: chat.completions.parse() with response_format =
// zodResponseFormat(schema, name) (the SDK's structured-outputs helper); the
// answer is message.parsed (the SDK leaves it null on a refusal), a refusal is
// message.refusal, which only the "as documented" variant (documented.sh) reads.
import { documentedCheck, gauntletEnv, libraryFormat, load, run, zodSchema } from '../../matrix/harness.mjs';

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
    /* as documented: OpenAI's Structured Outputs guide, "Refusals"
       (platform.openai.com/docs/guides/structured-outputs#refusals): check message.refusal before using parsed */
    if (env.documented)
        documentedCheck(Boolean(message?.refusal), `message.refusal ${JSON.stringify(message?.refusal).slice(0, 80)}`);
    return message?.parsed;
}, { name: 'openai chat.completions.parse', packages: ['openai', 'zod'], check: 'message.refusal check' });
