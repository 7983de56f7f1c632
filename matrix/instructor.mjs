// instructor.mjs — the @instructor-ai/instructor wrapper, one mode per
// adapters/instructor-*/client.mjs: Instructor({client: new OpenAI(...), mode})
// and chat.completions.create({response_model: {schema, name}, max_retries}).
// max_retries is the case's attempt budget minus one
// (MAX_STRUCTURED_OUTPUT_RETRIES, default 5 attempts), so the library gets as
// many model calls as the reference loop. The schema is zod 3 (instructor
// 1.7 breaks on zod 4 schemas, see harness.mjs).
import { gauntletEnv, load, run, zodV3Schema } from './harness.mjs';

export async function instructor(mode) {
    const env = gauntletEnv();
    const { default: OpenAI } = await load('openai');
    const { default: Instructor } = await load('@instructor-ai/instructor');
    await run(async () => {
        const client = Instructor({ client: new OpenAI({ baseURL: env.openaiBaseURL, apiKey: env.apiKey, maxRetries: env.apiRetries }), mode });
        const attempts = env.maxRetries ?? 5;
        const answer = await client.chat.completions.create({
            model: env.model ?? 'gpt-4o',
            messages: [{ role: 'user', content: env.prompt }],
            response_model: { schema: await zodV3Schema(env), name: 'Answer' },
            max_retries: Math.max(attempts - 1, 0),
        });
        if (answer && typeof answer === 'object' && '_meta' in answer)
            delete answer._meta; // instructor's bookkeeping, not the model's object
        return answer;
    }, { name: `@instructor-ai/instructor ${mode}`, packages: ['@instructor-ai/instructor', 'openai', 'zod'] });
}
