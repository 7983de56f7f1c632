// ajv-run.js — the peer: Ajv2020 with allErrors, JSON.parse + validate per
// line, on the same JSONL as `gauntlet validate --jsonl`. Prints
// "<lines> lines <seconds> s <valid> valid <cpu> cpu" (loop time only:
// compile and node start-up excluded, which favours ajv; <cpu> is the CPU
// seconds of the loop, every node thread included).
'use strict';
const fs = require('fs');
const path = require('path');
const Ajv2020 = require(path.resolve(process.argv[4], 'node_modules/ajv/dist/2020')).default;
const schema = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const lines = fs.readFileSync(process.argv[3], 'utf8').split('\n').filter((l) => l.length > 0);
const ajv = new Ajv2020({ allErrors: true, strict: false });
const validate = ajv.compile(schema);
let valid = 0;
const start = process.hrtime.bigint();
const cpuStart = process.cpuUsage();
for (const line of lines) {
  const raw = JSON.parse(line);
  let doc;
  try { doc = JSON.parse(raw); } catch (e) { continue; }
  if (validate(doc)) valid++;
}
const seconds = Number(process.hrtime.bigint() - start) / 1e9;
const cpu = process.cpuUsage(cpuStart);
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
console.log(`${lines.length} lines ${seconds.toFixed(4)} s ${valid} valid ${cpuSeconds.toFixed(4)} cpu`);
