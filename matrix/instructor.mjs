// instructor.mjs — the @instructor-ai/instructor wrapper, one mode per
// adapters/instructor-*/client.mjs: Instructor({client: new OpenAI(...), mode})
// and chat.completions.create({response_model: {schema, name}, max_retries}).
// max_retries is the case's attempt budget minus one
// (MAX_STRUCTURED_OUTPUT_RETRIES, default 5 attempts), so the library gets as
// many model calls as the reference loop. The schema is zod 3 (instructor
// 1.7 breaks on zod 4 schemas, see harness.mjs). instructor retries only
// when the validation error is `instanceof ZodError` of the "zod" it imports
// (dist/index.js: `if(!this.retryAllErrors&&!(i instanceof L))throw i`, L =
// zod's ZodError), which here is zod 4's, not zod/v3's: so the schema's
// failed parse carries its issues in that ZodError class, as it would with
// the zod 3 release instructor was built against. Without this its repair
// loop never runs (every validation failure ends the call at once).
import { gauntletEnv, load, run, zodV3Schema } from './harness.mjs';

/* `schema` whose failed safeParseAsync reports an error that is both
 * instructor's ZodError (zod 4's class, whose instanceof checks the `_zod`
 * traits: zod/v4/core/core.js, Symbol.hasInstance) and the zod 3 Error its
 * zod-validation-error expects (isZodErrorLike: an Error named ZodError with
 * issues): what one zod 3 package would give it. */
async function withInstructorZodError(schema) {
    const safeParseAsync = schema.safeParseAsync.bind(schema);
    schema.safeParseAsync = async (value) => {
        const result = await safeParseAsync(value);
        if (!result.success)
            Object.defineProperty(result.error, '_zod', { value: { traits: new Set(['ZodError']) }, enumerable: false });
        return result;
    };
    return schema;
}

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
            response_model: { schema: await withInstructorZodError(await zodV3Schema(env)), name: 'Answer' },
            max_retries: Math.max(attempts - 1, 0),
        });
        if (answer && typeof answer === 'object' && '_meta' in answer)
            delete answer._meta; // instructor's bookkeeping, not the model's object
        return answer;
    }, { name: `@instructor-ai/instructor ${mode}`, packages: ['@instructor-ai/instructor', 'openai', 'zod'] });
}
