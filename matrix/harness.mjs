// harness.mjs — what every library wrapper in adapters/<name>/ shares: the
// http target's environment (docs/adapter-protocol.md, "Black-box HTTP
// target"), loading the pinned libraries from matrix/node_modules (`npm ci`
// of matrix/package-lock.json; exit 3, "cannot run", when they are missing),
// and the result envelope. A wrapper calls its library the way the library's
// own documentation recommends and hands the object (or the thrown error)
// to run(); it never validates, repairs or retries on its own.
import { readFileSync } from 'node:fs';

/* A package from matrix/node_modules: import() resolves bare names from this
 * file's folder, so the wrappers need no NODE_PATH. */
export async function load(name) {
    try {
        return await import(name);
    } catch (error) {
        if (error && (error.code === 'ERR_MODULE_NOT_FOUND' || /Cannot find (package|module)/.test(error.message)))
            cannotRun(`${name} is not installed: run 'make matrix-deps' (npm ci in matrix/)`);
        throw error;
    }
}

export function cannotRun(why) {
    process.stderr.write(`gauntlet matrix wrapper: ${why}\n`);
    /* in a persistent worker (matrix/worker.mjs) the case ends with status 3, the worker lives on */
    if (globalThis.gauntletWorker)
        throw new globalThis.gauntletWorker.CaseExit(3);
    process.exit(3);
}

/* What the http target gives: the schema (as text: some cases give invalid
 * text on purpose), the prompt, base URLs and keys, the script's limits. */
export function gauntletEnv() {
    const env = process.env;
    if (!env.ANTHROPIC_BASE_URL && !env.OPENAI_BASE_URL)
        cannotRun('no ANTHROPIC_BASE_URL / OPENAI_BASE_URL: run me through gauntlet run --target http:...');
    let script = {};
    try {
        script = JSON.parse(readFileSync(env.GAUNTLET_SCRIPT_FILE, 'utf8'));
    } catch {
        script = {};
    }
    const retries = Number.parseInt(env.MAX_STRUCTURED_OUTPUT_RETRIES ?? '', 10);
    return {
        schemaText: env.GAUNTLET_JSON_SCHEMA ?? '{}',
        prompt: env.GAUNTLET_PROMPT || 'Complete the task.',
        anthropicBaseURL: env.ANTHROPIC_BASE_URL,
        openaiBaseURL: env.OPENAI_BASE_URL,
        apiKey: env.ANTHROPIC_API_KEY || env.OPENAI_API_KEY || 'gauntlet',
        script,
        /* the attempt budget a case sets for the StructuredOutput loop; libraries with retries get it */
        maxRetries: Number.isFinite(retries) ? retries : undefined,
        /* the script's transport retry budget (docs/loop-scripts.md, max_api_retries; gauntlet's default 2):
           every library gets it as its own maxRetries, so a stream-fault row compares verdicts, not defaults */
        apiRetries: Number.isInteger(script.max_api_retries) ? script.max_api_retries : 2,
        /* the case's "formats" option: `format` asserted, or only an annotation (the default) */
        formats: env.GAUNTLET_FORMATS === '1',
        noSchema: env.GAUNTLET_NO_SCHEMA === '1',
        model: script.model,
        /* MATRIX_VARIANT=documented (adapters/<name>/documented.sh): the column "library as documented",
           the wrapper also makes the one check the vendor's docs tell the caller to make */
        documented: env.MATRIX_VARIANT === 'documented',
    };
}

/* The caller's schema as a JSON value; a schema that is not JSON throws (the
 * library never gets to run, as with any caller passing garbage). */
export function schemaValue(env) {
    return JSON.parse(env.schemaText);
}

/* The caller's schema for a library whose API takes a schema object: a case
 * with no schema, or a schema that is not an object ([], true, null, 5), has
 * no faithful form there (zod would turn `true` or `[]` into "accept
 * anything"), so it is a harness limit: exit 3, the case is an error with
 * this reason, never the library's verdict. */
export function objectSchema(env) {
    if (env.noSchema)
        cannotRun('harness limit: the case gives no schema, and this library\'s structured-output API requires one');
    const schema = schemaValue(env);
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
        cannotRun(`harness limit: the caller's schema ${JSON.stringify(schema).slice(0, 80)} is not a JSON Schema ` +
                  'object; zod has no faithful form of it (it would accept anything)');
    return env.formats ? schema : withoutFormats(schema);
}

/* `schema` without its `format` keywords: the case treats `format` as an
 * annotation (JSON Schema 2020-12's default), and z.fromJSONSchema asserts it. */
function withoutFormats(schema) {
    if (Array.isArray(schema))
        return schema.map(withoutFormats);
    if (typeof schema !== 'object' || schema === null)
        return schema;
    const out = {};
    for (const [key, value] of Object.entries(schema)) {
        if (key === 'format' && typeof value === 'string')
            continue;
        /* property names and enum/const values are data, not subschemas */
        out[key] = key === 'enum' || key === 'const' || key === 'examples' || key === 'default' ? value
                   : key === 'properties' || key === 'patternProperties' || key === '$defs' || key === 'definitions'
                       ? Object.fromEntries(Object.entries(value ?? {}).map(([k, v]) => [k, withoutFormats(v)]))
                       : withoutFormats(value);
    }
    return out;
}

/* The schema as zod, the form every one of these libraries documents first,
 * converted by zod's own z.fromJSONSchema (format asserted only when the case
 * says so). */
export async function zodSchema(env) {
    const { z } = await load('zod');
    return z.fromJSONSchema(objectSchema(env));
}

/* The library's own structured-output format for the case's schema, built
 * before any model call: a schema the helper refuses up front (outside the
 * provider's strict subset: no root type, additionalProperties not false, ...)
 * is the library's documented limit, not a verdict on the answer: exit 3,
 * the case is an error with the helper's words. */
export function libraryFormat(build) {
    try {
        return build();
    } catch (error) {
        cannotRun(`library limit: the helper refuses the case's schema before any model call: ${error?.message ?? error}`);
    }
}

function print(envelope) {
    process.stdout.write(JSON.stringify(envelope) + '\n');
}

/* A "cannot run" thrown inside the library call is the case's exit, not the library's error. */
function isCaseExit(error) {
    return globalThis.gauntletWorker !== undefined && error instanceof globalThis.gauntletWorker.CaseExit;
}

/* Installed version of a package of matrix/node_modules, or null. */
export function installedVersion(name) {
    try {
        return JSON.parse(readFileSync(new URL(`./node_modules/${name}/package.json`, import.meta.url), 'utf8')).version;
    } catch {
        return null;
    }
}

/* The envelope's "implementation": the library, its version and the
 * packages it ran with (gauntlet matrix shows them). */
function implementation(about) {
    const packages = {};
    for (const name of about.packages ?? [])
        packages[name] = installedVersion(name);
    const first = (about.packages ?? [])[0];
    const name = about.name ?? first;
    return { name: process.env.MATRIX_VARIANT === 'documented' && about.check ? `${name} + ${about.check}` : name,
             version: first ? packages[first] : null, language: `JavaScript (node ${process.version})`,
             node: process.version, packages };
}

/* The check a vendor documents for the caller (the "library as documented"
 * column): `failed` true means the documented check refuses the answer; the
 * error names the check and the doc that asks for it. */
export function documentedCheck(failed, what) {
    if (failed)
        throw new DocumentedCheckError(`the documented caller check refused the answer: ${what}`);
}

export class DocumentedCheckError extends Error {}

/* Run the library call; print success with its object, or is_error with the
 * error's class and message (the library's own words). `about`: {name,
 * packages: [the package that does the work first, then the others, zod],
 * check: the documented caller check of the "as documented" variant}. */
export async function run(call, about = {}) {
    const impl = implementation(about);
    let value;
    try {
        value = await call();
    } catch (error) {
        if (isCaseExit(error))
            throw error;
        const name = error?.constructor?.name ?? typeof error;
        print({ type: 'result', subtype: 'error_during_execution', is_error: true, error_class: name,
                result: `${name}: ${error?.message ?? String(error)}`.slice(0, 2000), implementation: impl });
        return;
    }
    if (value === undefined || value === null) {
        print({ type: 'result', subtype: 'error_during_execution', is_error: true, error_class: null,
                result: 'the library returned no object', implementation: impl });
        return;
    }
    print({ type: 'result', subtype: 'success', is_error: false, structured_output: value, implementation: impl });
}

/* The schema as a zod 3 schema (zod's `zod/v3` API), for libraries built on
 * zod 3 that break on zod 4 schemas (@instructor-ai/instructor 1.7: its
 * zod-to-json-schema sends `parameters: {}` for a zod 4 schema). zod 3 has no
 * JSON Schema import, so this converts the keywords the corpus's loop and
 * stream contracts use; any other keyword is a harness limit: exit 3, the
 * case is an error, never a verdict. */
export async function zodV3Schema(env) {
    const { z } = await load('zod/v3');
    const known = new Set(['type', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'minimum',
                           'maximum', 'format', 'description', 'title', '$schema']);
    const annotations = new Set(['examples', 'default', 'deprecated', 'readOnly', 'writeOnly', '$comment']);
    /* `format` asserted only when the case asserts it (GAUNTLET_FORMATS), as the zod 4 conversion */
    const formats = { 'email': (s) => s.email(), 'uuid': (s) => s.uuid(), 'uri': (s) => s.url(),
                      'date-time': (s) => s.datetime({ offset: true }), 'date': (s) => s.date() };
    const convert = (schema, path) => {
        if (schema === true || (typeof schema === 'object' && schema !== null && Object.keys(schema).length === 0))
            return z.any();
        if (schema === false) /* accepts nothing: an optional member with `false` must be absent */
            return z.never();
        if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
            throw new Error(`${path}: a schema must be an object or a boolean`);
        /* a vendor `x-` key and the meta-data vocabulary's keywords are annotations (the case
         * loop.json-schema.near-miss-unknown-keyword-is-annotation, rule S0-03): nothing to assert, so nothing
         * to convert */
        for (const key of Object.keys(schema))
            if (!known.has(key) && !annotations.has(key) && !key.startsWith('x-'))
                cannotRun(`harness limit: ${path} uses '${key}', which the zod 3 conversion does not cover`);
        if (schema.enum !== undefined)
            return z.any().refine((value) => schema.enum.some((item) => JSON.stringify(item) === JSON.stringify(value)),
                                  { message: `expected one of ${JSON.stringify(schema.enum)}` });
        switch (schema.type) {
        case 'object': {
            const shape = {};
            const required = new Set(schema.required ?? []);
            for (const [name, sub] of Object.entries(schema.properties ?? {})) {
                const member = convert(sub, `${path}.${name}`);
                shape[name] = required.has(name) ? member : member.optional();
            }
            const object = z.object(shape);
            return schema.additionalProperties === false ? object.strict() : object.passthrough();
        }
        case 'array': return z.array(schema.items === undefined ? z.any() : convert(schema.items, `${path}[]`));
        case 'string': {
            if (!env.formats || schema.format === undefined)
                return z.string();
            if (formats[schema.format] === undefined)
                cannotRun(`harness limit: ${path} asserts format '${schema.format}', which the zod 3 conversion does not cover`);
            return formats[schema.format](z.string());
        }
        case 'boolean': return z.boolean();
        case 'null': return z.null();
        case 'integer':
        case 'number': {
            let number = schema.type === 'integer' ? z.number().int() : z.number();
            if (schema.minimum !== undefined) number = number.gte(schema.minimum);
            if (schema.maximum !== undefined) number = number.lte(schema.maximum);
            return number;
        }
        default: throw new Error(`${path}: unsupported type ${JSON.stringify(schema.type)}`);
        }
    };
    return convert(objectSchema(env), '$');
}
