// openai: responses.parse() with text.format = zodTextFormat(schema, name)
// (the Responses API's structured-outputs helper); the answer is output_parsed.
import { documentedCheck, gauntletEnv, libraryFormat, load, run, zodSchema } from '../../matrix/harness.mjs';

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
    /* as documented: OpenAI's Structured Outputs guide, "Refusals": a refusal is an output content
       item of type "refusal"; check for it before using output_parsed */
    if (env.documented) {
        const refusal = (response.output ?? []).flatMap((item) => item.content ?? [])
            .find((part) => part.type === 'refusal');
        documentedCheck(refusal !== undefined, `a "refusal" output item ${JSON.stringify(refusal?.refusal ?? '').slice(0, 80)}`);
    }
    return response.output_parsed;
}, { name: 'openai responses.parse', packages: ['openai', 'zod'], check: 'refusal output check' });
