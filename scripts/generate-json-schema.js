#!/usr/bin/env node
// Regenerates environments/environment.schema.json from the compiled schema (run `npm run build` first).
const fs = require('fs');
const path = require('path');
const { environmentJsonSchema } = require('../dist/lib/config/json-schema');
const out = path.join(__dirname, '..', 'environments', 'environment.schema.json');
fs.writeFileSync(out, JSON.stringify(environmentJsonSchema(), null, 2) + '\n');
console.log(`wrote ${path.relative(process.cwd(), out)}`);
