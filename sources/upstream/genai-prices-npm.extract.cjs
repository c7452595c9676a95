// Deterministic extraction of the provider data bundled in @pydantic/genai-prices dist/index.js:
// the top-level array `const E = [ ... ]` (lines 1..']'), evaluated as a JS literal, written as JSON (2-space indent).
const fs = require('fs');
const src = fs.readFileSync(process.argv[2], 'utf8').split('\n');
const end = src.findIndex((l, i) => i > 0 && l.startsWith(']'));
const lit = src.slice(0, end + 1).join('\n').replace(/^const E = /, '').replace(/\]$/, ']');
const providers = (0, eval)('(' + lit.replace(/\][^\]]*$/, ']') + ')');
const out = { source: JSON.parse(process.argv[3]), providers };
process.stdout.write(JSON.stringify(out, null, 2) + '\n');
