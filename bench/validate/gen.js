// gen.js — write the three validate workloads: <dir>/<name>.schema.json,
// <dir>/<name>.jsonl (each line a JSON string literal holding one raw output)
// and <dir>/<name>.values.jsonl (the outputs that are JSON, one value a line).
// Deterministic (seeded), so gauntlet and ajv see identical bytes.
'use strict';
const fs = require('fs');
const path = require('path');

let seed = 42;
function rnd() { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed / 0x7fffffff; }
function pick(a) { return a[Math.floor(rnd() * a.length)]; }
function int(lo, hi) { return lo + Math.floor(rnd() * (hi - lo + 1)); }

const triage = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    category: { enum: ['billing', 'bug', 'feature', 'account', 'other'] },
    priority: { type: 'integer', minimum: 1, maximum: 5 },
    summary: { type: 'string', minLength: 1, maxLength: 200 },
    needs_human: { type: 'boolean' },
    tags: { type: 'array', items: { type: 'string', maxLength: 20 }, maxItems: 5 },
  },
  required: ['category', 'priority', 'summary', 'needs_human'],
  additionalProperties: false,
};

function triageDoc() {
  const d = { category: pick(['billing', 'bug', 'feature', 'account', 'other']), priority: int(1, 5),
    summary: 'Customer reports ' + pick(['a double charge', 'a crash on login', 'missing export', 'slow page']),
    needs_human: rnd() < 0.3, tags: ['t' + int(1, 9), 'x' + int(1, 9)] };
  const r = rnd();
  if (r < 0.05) d.priority = String(d.priority);
  else if (r < 0.10) d.category = 'Billing';
  else if (r < 0.13) d.debug_context = { trace: 'abc' };
  else if (r < 0.16) delete d.summary;
  else if (r < 0.18) d.priority = 9;
  let text = JSON.stringify(d);
  if (rnd() < 0.02) text = '```json\n' + text + '\n```';
  return text;
}

const order = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    money: { type: 'number', minimum: 0, multipleOf: 0.01 },
    address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' },
      zip: { type: 'string', pattern: '^[0-9]{5}(-[0-9]{4})?$' }, country: { enum: ['US', 'CA', 'MX'] } },
      required: ['street', 'city', 'zip', 'country'], additionalProperties: false },
    item: { type: 'object', properties: { sku: { type: 'string', pattern: '^[A-Z]{3}-[0-9]{4}$' },
      qty: { type: 'integer', minimum: 1, maximum: 100 }, price: { $ref: '#/$defs/money' },
      note: { anyOf: [{ type: 'null' }, { type: 'string', maxLength: 80 }] } },
      required: ['sku', 'qty', 'price'], additionalProperties: false },
  },
  properties: {
    id: { type: 'string', pattern: '^ORD-[0-9]{6}$' },
    customer: { type: 'object', properties: { name: { type: 'string', minLength: 1 },
      email: { type: 'string', pattern: '^[^@\\s]+@[^@\\s]+$' }, address: { $ref: '#/$defs/address' } },
      required: ['name', 'email', 'address'] },
    items: { type: 'array', items: { $ref: '#/$defs/item' }, minItems: 1 },
    discount: { anyOf: [{ type: 'null' }, { $ref: '#/$defs/money' }] },
    status: { enum: ['new', 'paid', 'shipped', 'cancelled'] },
  },
  required: ['id', 'customer', 'items', 'status'],
  additionalProperties: false,
};

function item(bad) {
  const it = { sku: 'ABC-' + String(int(1000, 9999)), qty: int(1, 20), price: int(100, 99999) / 100,
    note: rnd() < 0.5 ? null : 'gift wrap' };
  if (bad < 0.02) it.price = 1.005;
  else if (bad < 0.04) it.sku = 'abc-1';
  return it;
}

function orderDoc(nitems, badRate = 1) {
  const d = { id: 'ORD-' + String(int(100000, 999999)),
    customer: { name: 'Ada Lovelace', email: 'ada@example.com',
      address: { street: '1 Main St', city: 'Springfield', zip: '12345', country: pick(['US', 'CA', 'MX']) } },
    items: [], discount: rnd() < 0.5 ? null : int(0, 5000) / 100, status: pick(['new', 'paid', 'shipped']) };
  for (let i = 0; i < nitems; i++) d.items.push(item(rnd() * badRate));
  if (rnd() < 0.05) d.customer.address.zip = '1234';
  return JSON.stringify(d);
}

function write(dir, name, schema, lines) {
  fs.writeFileSync(path.join(dir, name + '.schema.json'), JSON.stringify(schema, null, 2));
  fs.writeFileSync(path.join(dir, name + '.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  // the same outputs as JSON values, one a line (what Blaze, ajv-cli and `validate --jsonl --values` read):
  // the raw text itself, byte for byte; a fenced output is no JSON value and is left out
  const values = lines.filter((l) => !l.startsWith('```'));
  fs.writeFileSync(path.join(dir, name + '.values.jsonl'), values.join('\n') + '\n');
}

const dir = process.argv[2] || '.';
const scale = Number(process.argv[3] || 1);
fs.mkdirSync(dir, { recursive: true });
write(dir, 'small', triage, Array.from({ length: 100000 * scale }, triageDoc));
write(dir, 'nested', order, Array.from({ length: 20000 * scale }, () => orderDoc(int(1, 6))));
write(dir, 'large', order, Array.from({ length: 300 * scale }, () => orderDoc(900, 900)));
