#!/usr/bin/env node
// Converts a BERT sentence encoder (sentence-transformers all-MiniLM-L6-v2 and checkpoints like it) from
// `model.safetensors` + `config.json` to an ONNX graph that onnxruntime runs, with Node alone: no Python,
// no PyTorch, no npm package. The install step (scripts/install-embedding-model.mjs) calls the same
// function; this command is for building by hand. The output is byte-for-byte the same on every run.
//
//   node scripts/build-onnx.mjs <folder with model.safetensors + config.json> <out.onnx>
//
// Graph: see scripts/onnx/bert-graph.mjs (inputs input_ids / attention_mask / token_type_ids, outputs
// sentence_embedding and last_hidden_state).
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { buildBertOnnx } from './onnx/bert-graph.mjs';

const [modelDir, outFile, ...rest] = process.argv.slice(2);
if (!modelDir || !outFile || rest.length > 0) {
  console.error('usage: node scripts/build-onnx.mjs <model dir> <out.onnx>');
  process.exit(2);
}
const started = performance.now();
const bytes = buildBertOnnx(modelDir);
writeFileSync(outFile, bytes);
const sha256 = createHash('sha256').update(bytes).digest('hex');
const ms = Math.round(performance.now() - started);
console.log(`build-onnx: wrote ${outFile} (${(bytes.length / 1e6).toFixed(1)} MB, sha256 ${sha256}) in ${ms} ms`);
