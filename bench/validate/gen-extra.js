// gen-extra.js — SchemaStore-like workloads for bench/validate/proof.sh (not
// timed): schemas shaped like a package manifest and a CI workflow, with
// documents that break several keywords at once (so the error lists, their
// order and the first error's keyword are exercised, not only the verdict).
// Writes <dir>/<name>.schema.json, <name>.jsonl (string literals) and
// <name>.values.jsonl. Deterministic (seeded).
'use strict';
const fs = require('fs');
const path = require('path');

let seed = 7;
function rnd() { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed / 0x7fffffff; }
function pick(a) { return a[Math.floor(rnd() * a.length)]; }
function int(lo, hi) { return lo + Math.floor(rnd() * (hi - lo + 1)); }

const manifest = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    deps: { type: 'object', patternProperties: { '^(@[a-z0-9-]+/)?[a-z0-9._-]+$': { type: 'string', minLength: 1 } },
      additionalProperties: false, maxProperties: 8 },
    person: { oneOf: [{ type: 'string', pattern: '^[^<>]+( <[^@]+@[^>]+>)?$' },
      { type: 'object', properties: { name: { type: 'string' }, email: { type: 'string' }, url: { type: 'string' } },
        required: ['name'], additionalProperties: false }] },
  },
  properties: {
    name: { type: 'string', pattern: '^(@[a-z0-9-]+/)?[a-z0-9._-]+$', maxLength: 214 },
    version: { type: 'string', pattern: '^[0-9]+\\.[0-9]+\\.[0-9]+(-[0-9A-Za-z.-]+)?$' },
    private: { const: true },
    license: { enum: ['MIT', 'ISC', 'Apache-2.0', 'BSD-3-Clause', 'UNLICENSED'] },
    keywords: { type: 'array', items: { type: 'string' }, uniqueItems: true, maxItems: 6 },
    author: { $ref: '#/$defs/person' },
    contributors: { type: 'array', items: { $ref: '#/$defs/person' } },
    dependencies: { $ref: '#/$defs/deps' },
    devDependencies: { $ref: '#/$defs/deps' },
    engines: { type: 'object', propertyNames: { enum: ['node', 'npm'] }, additionalProperties: { type: 'string' } },
    publishConfig: { type: 'object', properties: { access: { enum: ['public', 'restricted'] } } },
  },
  required: ['name', 'version'],
  dependentRequired: { publishConfig: ['license'] },
  if: { properties: { private: { const: true } }, required: ['private'] },
  then: { not: { required: ['publishConfig'] } },
  minProperties: 2,
};

function person(bad) {
  if (rnd() < 0.5) return bad ? 'Ada <ada>' : 'Ada Lovelace <ada@example.com>';
  const p = { name: 'Ada', email: 'ada@example.com' };
  if (bad) p.twitter = '@ada';
  return p;
}

function manifestDoc() {
  const bad = () => rnd() < 0.08;
  const d = { name: pick(['left-pad', '@acme/core', 'x.y_z']), version: `${int(0, 9)}.${int(0, 20)}.${int(0, 99)}` };
  if (bad()) d.name = 'Left Pad';
  if (bad()) d.version = 'v1';
  if (rnd() < 0.3) d.private = bad() ? 'yes' : true;
  if (rnd() < 0.6) d.license = bad() ? 'GPL' : pick(['MIT', 'ISC', 'Apache-2.0']);
  if (rnd() < 0.5) { d.keywords = ['a', 'b', pick(['c', 'a'])]; if (bad()) d.keywords.push(1, 2, 3, 4); }
  if (rnd() < 0.5) d.author = person(bad());
  if (rnd() < 0.3) d.contributors = [person(false), person(bad())];
  if (rnd() < 0.7) {
    d.dependencies = {};
    for (let i = int(0, 10); i > 0; i--) d.dependencies[pick(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'])] = '^1.0.0';
    if (bad()) d.dependencies['Bad Name'] = '';
  }
  if (rnd() < 0.3) d.engines = bad() ? { node: '>=18', deno: 1 } : { node: '>=18' };
  if (rnd() < 0.2) d.publishConfig = { access: bad() ? 'open' : 'public' };
  if (rnd() < 0.02) return JSON.stringify(d).slice(0, -1); // truncated: the syntax gate's
  return JSON.stringify(d);
}

const workflow = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  definitions: {
    step: { type: 'object', properties: { name: { type: 'string' }, run: { type: 'string' }, uses: { type: 'string' },
      with: { type: 'object', additionalProperties: { type: ['string', 'number', 'boolean'] } },
      'timeout-minutes': { type: 'number', exclusiveMinimum: 0, maximum: 360 } },
    oneOf: [{ required: ['run'] }, { required: ['uses'] }], additionalProperties: false },
    job: { type: 'object', properties: { 'runs-on': { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, minItems: 1 }] },
      needs: { type: ['string', 'array'], items: { type: 'string' } },
      steps: { type: 'array', items: { $ref: '#/definitions/step' }, minItems: 1 } },
    required: ['runs-on', 'steps'] },
  },
  properties: {
    name: { type: 'string' },
    on: { anyOf: [{ enum: ['push', 'pull_request', 'workflow_dispatch'] }, { type: 'array', items: { enum: ['push', 'pull_request'] } }, { type: 'object' }] },
    jobs: { type: 'object', patternProperties: { '^[_a-zA-Z][a-zA-Z0-9_-]*$': { $ref: '#/definitions/job' } },
      additionalProperties: false, minProperties: 1 },
  },
  required: ['on', 'jobs'],
  additionalProperties: false,
};

function workflowDoc() {
  const bad = () => rnd() < 0.05;
  const jobs = {};
  for (let j = int(1, 3); j > 0; j--) {
    const steps = [];
    for (let s = int(bad() ? 0 : 1, 5); s > 0; s--) {
      const st = rnd() < 0.5 ? { uses: 'actions/checkout@v4' } : { name: 'test', run: 'make test' };
      if (bad()) st.run = st.uses = 'both';
      if (rnd() < 0.2) st['timeout-minutes'] = bad() ? 0 : int(1, 60);
      if (rnd() < 0.2) st.with = { 'fetch-depth': bad() ? null : 0 };
      steps.push(st);
    }
    const job = { 'runs-on': bad() ? [] : pick(['ubuntu-latest', ['self-hosted', 'x64']]), steps };
    if (rnd() < 0.3) job.needs = bad() ? 3 : 'build';
    jobs[bad() ? '1job' : 'job' + j] = job;
  }
  const d = { name: 'CI', on: bad() ? 'tag' : pick(['push', ['push', 'pull_request'], { push: { branches: ['main'] } }]), jobs };
  if (bad()) d.env = { CI: true };
  return JSON.stringify(d);
}

function write(dir, name, schema, lines) {
  fs.writeFileSync(path.join(dir, name + '.schema.json'), JSON.stringify(schema, null, 2));
  fs.writeFileSync(path.join(dir, name + '.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  fs.writeFileSync(path.join(dir, name + '.values.jsonl'), lines.join('\n') + '\n');
}

const dir = process.argv[2] || '.';
fs.mkdirSync(dir, { recursive: true });
write(dir, 'x-manifest', manifest, Array.from({ length: 5000 }, manifestDoc));
write(dir, 'x-workflow', workflow, Array.from({ length: 5000 }, workflowDoc));
