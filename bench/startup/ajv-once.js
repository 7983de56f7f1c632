// ajv-once.js — the one-shot peer: node start-up, require ajv (Ajv2020,
// allErrors), compile one schema, validate one document, exit 0 valid / 1
// invalid. Usage: node ajv-once.js SCHEMA DOC NODE_DIR
'use strict';
const fs = require('fs');
const path = require('path');
const Ajv2020 = require(path.resolve(process.argv[4], 'node_modules/ajv/dist/2020')).default;
const ajv = new Ajv2020({ allErrors: true, strict: false });
const validate = ajv.compile(JSON.parse(fs.readFileSync(process.argv[2], 'utf8')));
process.exitCode = validate(JSON.parse(fs.readFileSync(process.argv[3], 'utf8'))) ? 0 : 1;
