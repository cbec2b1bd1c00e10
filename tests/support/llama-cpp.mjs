// llama.cpp's own grammar machinery, from the prebuilt binaries of the npm node-llama-cpp, for the
// grammar test (tests/e2e/grammar.test.mjs) and the real-model bench (bench/real-model.mjs).
//
// Two parts of llama.cpp are used, both as node-llama-cpp ships them, without a model:
// - JSON-schema-to-grammar: llama.cpp's C++ `json_schema_to_grammar`, the converter that
//   llama.cpp's server and Ollama run on a request's schema. node-llama-cpp does not expose it (its
//   `createGrammarForJsonSchema` is a converter of its own, in JavaScript, for a subset of JSON
//   Schema: it reads no `anyOf`, and turns the navigator's action list into a list of nulls), but
//   its libllama-common.so holds it. A 15-line C++ program calls it; it is built once with g++
//   against that library and the two headers of the very llama.cpp source node-llama-cpp ships
//   (its llama/gitRelease.bundle), and kept under .tmp/.
// - The grammar engine: `llama.createGrammar({ grammar })` parses the GBNF with llama.cpp's parser
//   (it throws on a grammar llama.cpp cannot load), and `admits()` runs llama.cpp's
//   `llama_grammar_accept` over a text, code point by code point, as sampling does token by token
//   (node-llama-cpp's AddonGrammar.isTextCompatible): true when the grammar accepts the whole text
//   and may end there.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const require = createRequire(import.meta.url);

const SHIM_SOURCE = `// Reads a JSON schema on stdin, prints llama.cpp's GBNF grammar for it (json_schema_to_grammar).
#include "json-schema-to-grammar.h"
#include <iostream>
#include <iterator>
#include <string>
int main() {
    std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    try {
        // force_gbnf: GBNF even in a build with llguidance, as llama.cpp's server sends to the sampler.
        std::cout << json_schema_to_grammar(common_json::parse(text), true);
    } catch (const std::exception & e) {
        std::cerr << e.what() << std::endl;
        return 1;
    }
    return 0;
}
`;

const FIX = 'run ./build.sh (npm ci installs node-llama-cpp and its prebuilt binary from package-lock.json)';

/** node-llama-cpp with its prebuilt CPU binary, never a build from source (`build: 'never'`). */
export async function loadLlama() {
  let nodeLlamaCpp;
  try {
    nodeLlamaCpp = await import('node-llama-cpp');
  } catch (err) {
    throw new Error(`node-llama-cpp is not installed (${err.message}): ${FIX}`);
  }
  try {
    return await nodeLlamaCpp.getLlama({ gpu: false, build: 'never', progressLogs: false, logLevel: 'warn' });
  } catch (err) {
    throw new Error(
      `node-llama-cpp could not load its prebuilt binary for ${process.platform}-${process.arch} (${err.message}): ${FIX}; `
      + `it needs the package @node-llama-cpp/${process.platform}-${process.arch} in node_modules`,
    );
  }
}

/** node-llama-cpp's own folder (its package.json is not among its exports). */
function nodeLlamaCppFolder() {
  let folder = dirname(require.resolve('node-llama-cpp'));
  while (!existsSync(join(folder, 'package.json'))) folder = dirname(folder);
  return folder;
}

/** The folder of node-llama-cpp's prebuilt llama.cpp libraries for this machine, as its binary
 * package tells node-llama-cpp. */
async function binariesFolder() {
  const name = `${process.platform}-${process.arch}`;
  let binsDir;
  try {
    const entry = createRequire(join(nodeLlamaCppFolder(), 'package.json')).resolve(`@node-llama-cpp/${name}`);
    ({ binsDir } = (await import(pathToFileURL(entry))).getBinsDir());
  } catch (err) {
    throw new Error(`node-llama-cpp's prebuilt binary package @node-llama-cpp/${name} is missing (${err.message}): ${FIX}`);
  }
  const folder = join(binsDir, name);
  if (!existsSync(join(folder, 'libllama-common.so'))) {
    throw new Error(`${folder} has no libllama-common.so: llama.cpp's JSON-schema-to-grammar is reached through it, on Linux only`);
  }
  return folder;
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
  if (result.error?.code === 'ENOENT') {
    const apt = { 'g++': 'g++', git: 'git' }[command];
    throw new Error(`${command} is missing: it is needed to build the caller of llama.cpp's json_schema_to_grammar (apt-get install ${apt})`);
  }
  if (result.error) throw result.error;
  return result;
}

function runOrThrow(command, args, options) {
  const result = run(command, args, options);
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed:\n${result.stderr}`);
  return result.stdout;
}

let converter;

/**
 * Builds, on first use (a few seconds) and once for all processes, the caller of
 * json_schema_to_grammar; `jsonSchemaToGrammar` needs it done.
 */
export async function prepareJsonSchemaToGrammar() {
  if (converter) return;
  const bins = await binariesFolder();
  const library = join(bins, 'libllama-common.so');
  const key = createHash('sha256').update(readFileSync(library)).update(SHIM_SOURCE).digest('hex').slice(0, 16);
  const folder = join(ROOT, '.tmp', 'llama-json-schema-to-grammar', key);
  const binary = join(folder, 'json-schema-to-grammar');
  if (!existsSync(binary)) {
    const work = `${folder}.${process.pid}`;
    rmSync(work, { recursive: true, force: true });
    mkdirSync(join(work, 'include'), { recursive: true });
    // The headers of the llama.cpp source that node-llama-cpp's binaries were built from.
    const bundle = join(nodeLlamaCppFolder(), 'llama', 'gitRelease.bundle');
    const git = join(work, 'llama.cpp.git');
    runOrThrow('git', ['init', '--quiet', '--bare', git]);
    runOrThrow('git', ['--git-dir', git, 'fetch', '--quiet', bundle, 'HEAD:refs/heads/release']);
    for (const header of ['json.h', 'json-schema-to-grammar.h']) {
      writeFileSync(join(work, 'include', header), runOrThrow('git', ['--git-dir', git, 'show', `release:common/${header}`]));
    }
    writeFileSync(join(work, 'shim.cpp'), SHIM_SOURCE);
    runOrThrow('g++', ['-std=c++17', '-O1', '-I', join(work, 'include'), join(work, 'shim.cpp'), '-o', join(work, 'json-schema-to-grammar'),
      '-L', bins, '-l:libllama-common.so', `-Wl,-rpath,${bins}`]);
    rmSync(git, { recursive: true, force: true });
    try {
      renameSync(work, folder);
    } catch (err) {
      // Another process built it meanwhile.
      rmSync(work, { recursive: true, force: true });
      if (!existsSync(binary)) throw err;
    }
  }
  converter = binary;
}

/**
 * llama.cpp's GBNF grammar for `schema`, from its own json_schema_to_grammar. Throws what llama.cpp
 * said when it cannot convert the schema, or converts it only in part (its "incomplete" warning:
 * a keyword it skipped, so the grammar would be looser than the schema).
 */
export function jsonSchemaToGrammar(schema) {
  if (!converter) throw new Error('call prepareJsonSchemaToGrammar() first');
  const result = run(converter, [], { input: JSON.stringify(schema) });
  if (result.status !== 0) throw new Error(`llama.cpp's json_schema_to_grammar refused the schema: ${result.stderr.trim()}`);
  if (result.stderr.trim()) throw new Error(`llama.cpp's json_schema_to_grammar converted the schema only in part: ${result.stderr.trim()}`);
  return result.stdout;
}

/** llama.cpp's grammar sampler's verdict on `text`: the grammar accepts it whole and may end there. */
export function admits(grammar, text) {
  // Internal to node-llama-cpp (its own tests use it); pinned in package-lock.json.
  if (typeof grammar._testText !== 'function') {
    throw new Error('node-llama-cpp\'s LlamaGrammar has no _testText (AddonGrammar.isTextCompatible) any more: find its replacement');
  }
  return grammar._testText(text);
}
