#!/usr/bin/env node
// naive-node — the pipeline most projects ship: strip the Markdown fence,
// JSON.parse, trust the result. Kept as an adapter so one gauntlet run shows
// what it misses (duplicate keys, NaN-free but lossy numbers, lone surrogates,
// "4" where an integer belongs, extra fields, ...). Protocol: docs/adapter-protocol.md.
'use strict';
const readline = require('readline');

function naivePipeline(raw) {
  let text = raw.trim();
  // the usual "helpful" clean-up
  text = text.replace(/^```(?:json)?\s*/i, '').replace(/\s*```$/, '');
  const start = text.search(/[{[]/);
  if (start > 0) text = text.slice(start);
  return JSON.parse(text); // throws on what it cannot parse
}

const rl = readline.createInterface({ input: process.stdin, terminal: false });
rl.on('line', (line) => {
  let req;
  try {
    req = JSON.parse(line);
  } catch (e) {
    process.stderr.write(`naive-node: unreadable request: ${e.message}\n`);
    return;
  }
  let out;
  if (req.cmd === 'hello') {
    out = {
      protocol: 1,
      implementation: { name: 'naive-node', version: '1.0.0', language: 'javascript' },
      // it claims the gates a JSON.parse pipeline believes it covers
      capabilities: ['syntax', 'structure', 'semantic', 'policy'],
    };
  } else if (req.cmd === 'check') {
    const raw = Buffer.from(req.raw_base64, 'base64').toString('utf8');
    try {
      naivePipeline(raw);
      out = { seq: req.seq, verdict: 'accept', gates: { syntax: 'passed' } };
    } catch (e) {
      out = { seq: req.seq, verdict: 'reject', gate: 'syntax', reason: 'unexpected_character', message: e.message };
    }
  } else if (req.cmd === 'stop') {
    process.exit(0);
  } else {
    out = { seq: req.seq, errored: true, message: `unknown cmd ${req.cmd}` };
  }
  process.stdout.write(JSON.stringify(out) + '\n');
});
