// worker.mjs CLIENT.mjs — a library wrapper (adapters/<name>/client.mjs) as a
// persistent client of `gauntlet run --target http-worker:CMD`
// (docs/adapter-protocol.md, "Persistent clients"): one node process that
// serves many cases, so the libraries are imported once per worker thread,
// not once per case. Each request line is {"cmd":"case","env":{...}}, the
// environment a one-shot run of CLIENT.mjs would get; the reply line is
// {"status":N,"stdout":TEXT}, the exit status and stdout that run would have
// had. Each case is isolated as a fresh process would be: the wrapper module
// is evaluated afresh (its client objects are new), process.env is the
// worker's start-up environment plus the case's only, and fetch gets a new
// connection pool. A case that throws uncaught is status 1 (node's own exit
// status for it); an error that escapes the case (an unhandled rejection, an
// uncaught exception from a stray callback) ends the case with status 1 and
// then the worker, which the runner starts afresh for the next case.
import { writeSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

const client = process.argv[2];
if (!client) {
    process.stderr.write('usage: node matrix/worker.mjs CLIENT.mjs (started by gauntlet run --target http-worker:CMD)\n');
    process.exit(2);
}
const clientURL = pathToFileURL(resolve(client)).href;
const startEnv = { ...process.env };

class CaseExit extends Error {
    constructor(status) {
        super(`the case exits with status ${status}`);
        this.status = status;
    }
}
globalThis.gauntletWorker = { CaseExit };

/* The protocol's stdout is fd 1, written directly; the case's own stdout
 * (console.log, process.stdout.write) is collected for the reply. */
let captured = null;
const realWrite = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, encoding, callback) => {
    if (captured === null)
        return realWrite(chunk, encoding, callback);
    captured += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    if (typeof encoding === 'function')
        encoding();
    else if (typeof callback === 'function')
        callback();
    return true;
};

let current = null; /* the case in progress: {reply(status)} */
function reply(status) {
    const text = captured ?? '';
    captured = null;
    current = null;
    writeSync(1, JSON.stringify({ status, stdout: text }) + '\n');
}
/* An error outside the case's own promise chain: node would have exited
 * with status 1 there; the case ends so, and the worker too. */
function escaped(error) {
    process.stderr.write(`${error?.stack ?? String(error)}\n`);
    if (current !== null)
        reply(1);
    process.exit(1);
}
process.on('unhandledRejection', escaped);
process.on('uncaughtException', escaped);

/* fetch's pool (undici's global dispatcher) afresh, as in a new process */
const dispatcherKey = Symbol.for('undici.globalDispatcher.1');
function freshConnections() {
    const old = globalThis[dispatcherKey];
    if (old === undefined)
        return;
    globalThis[dispatcherKey] = new old.constructor();
    old.destroy().catch(() => {});
}

let count = 0;
async function serve(line) {
    let request;
    try {
        request = JSON.parse(line);
    } catch {
        process.stderr.write(`gauntlet matrix worker: not a JSON request line: ${line.slice(0, 200)}\n`);
        process.exit(2);
    }
    if (request?.cmd !== 'case' || typeof request.env !== 'object' || request.env === null) {
        process.stderr.write(`gauntlet matrix worker: want {"cmd":"case","env":{...}}: ${line.slice(0, 200)}\n`);
        process.exit(2);
    }
    for (const name of Object.keys(process.env))
        if (!(name in startEnv))
            delete process.env[name];
    Object.assign(process.env, startEnv, request.env);
    freshConnections();
    captured = '';
    current = { n: ++count };
    let status = 0;
    try {
        await import(`${clientURL}?case=${count}`);
    } catch (error) {
        if (error instanceof CaseExit) {
            status = error.status;
        } else {
            process.stderr.write(`${error?.stack ?? String(error)}\n`);
            status = 1;
        }
    }
    if (current !== null)
        reply(status);
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
const queue = [];
let busy = false;
lines.on('line', (line) => {
    queue.push(line);
    if (!busy)
        drain();
});
lines.on('close', () => {
    if (!busy)
        process.exit(0);
    queue.push(null);
});
async function drain() {
    busy = true;
    while (queue.length > 0) {
        const line = queue.shift();
        if (line === null)
            process.exit(0);
        await serve(line);
    }
    busy = false;
}
