// The model that `npm install` puts at .tools/models/all-MiniLM-L6-v2 (scripts/install-embedding-model.mjs):
// its files are the pinned ones, and onnxruntime-node running it with the npm tokenizer reproduces the
// similarities that sentence-transformers publishes for all-MiniLM-L6-v2 (mean pooling, L2 norm, 256 tokens).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { MODEL_DIR, verifyModelDir } from '../../scripts/embedding-model-pins.mjs';

const MAX_TOKENS = 256;
const HIDDEN = 384;
const WEATHER = 'The weather is lovely today.';
const SUNNY = "It's so sunny outside!";
const STADIUM = 'He drove to the stadium.';

const installed = existsSync(join(MODEL_DIR, 'model.onnx'));
const notInstalled = `no embedding model at ${MODEL_DIR}: run \`npm install\` (its postinstall runs scripts/install-embedding-model.mjs)`;

let tokenizer: Tokenizer;
let session: InferenceSession;
let sepId: number;

/** Token ids with [CLS] and [SEP], cut to MAX_TOKENS keeping [SEP] last, as sentence-transformers does. */
function tokenize(text: string): number[] {
  const ids = tokenizer.encode(text).ids;
  return ids.length <= MAX_TOKENS ? ids : [...ids.slice(0, MAX_TOKENS - 1), sepId];
}

/** One padded forward pass; returns the graph's sentence_embedding and a mean pooling of last_hidden_state. */
async function embed(texts: string[]): Promise<{ graph: Float32Array[]; pooled: Float32Array[] }> {
  const ids = texts.map(tokenize);
  const seq = Math.max(...ids.map((t) => t.length));
  const feed = (value: (row: number[], i: number) => number) =>
    new Tensor('int64', BigInt64Array.from(ids.flatMap((row) => Array.from({ length: seq }, (_, i) => BigInt(value(row, i))))), [ids.length, seq]);
  const out = await session.run({
    input_ids: feed((row, i) => row[i] ?? 0),
    attention_mask: feed((row, i) => (i < row.length ? 1 : 0)),
    token_type_ids: feed(() => 0),
  });
  const sentence = out.sentence_embedding!.data as Float32Array;
  const tokens = out.last_hidden_state!.data as Float32Array;
  const graph = ids.map((_, b) => sentence.slice(b * HIDDEN, (b + 1) * HIDDEN));
  const pooled = ids.map((row, b) => {
    const mean = new Float32Array(HIDDEN);
    for (let t = 0; t < row.length; t++) for (let h = 0; h < HIDDEN; h++) mean[h]! += tokens[(b * seq + t) * HIDDEN + h]! / row.length;
    const norm = Math.hypot(...mean);
    return mean.map((x) => x / norm);
  });
  return { graph, pooled };
}

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);
const maxDiff = (a: Float32Array, b: Float32Array) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i]!)), 0);

describe('installed embedding model (all-MiniLM-L6-v2)', () => {
  beforeAll(async () => {
    if (!installed) return;
    const spec = JSON.parse(readFileSync(join(MODEL_DIR, 'tokenizer.json'), 'utf8'));
    // The file pads and truncates to 128 (its training setting); this test cuts at 256 itself, unpadded.
    spec.truncation = null;
    spec.padding = null;
    tokenizer = new Tokenizer(spec, JSON.parse(readFileSync(join(MODEL_DIR, 'tokenizer_config.json'), 'utf8')));
    sepId = tokenizer.token_to_id('[SEP]')!;
    session = await InferenceSession.create(join(MODEL_DIR, 'model.onnx'), { intraOpNumThreads: 1 });
  });

  it('is installed, and every file has the sha256 the installer pins', () => {
    expect(installed, notInstalled).toBe(true);
    expect(verifyModelDir()).toEqual([]);
  });

  it('reproduces the similarities sentence-transformers publishes for the model', async () => {
    expect(installed, notInstalled).toBe(true);
    expect(session.inputNames).toEqual(['input_ids', 'attention_mask', 'token_type_ids']);
    const { graph, pooled } = await embed([WEATHER, SUNNY, STADIUM]);
    const [weather, sunny, stadium] = pooled as [Float32Array, Float32Array, Float32Array];
    expect(dot(weather, sunny).toFixed(4)).toBe('0.6660');
    expect(dot(weather, stadium).toFixed(4)).toBe('0.1046');
    expect(dot(sunny, stadium).toFixed(4)).toBe('0.1411');
    // The graph's own pooled output is the same vector as pooling last_hidden_state here.
    graph.forEach((v, i) => expect(maxDiff(v, pooled[i]!)).toBeLessThan(1e-6));
  });

  it('embeds a text the same alone and in a padded batch, and takes the full 256 tokens', async () => {
    expect(installed, notInstalled).toBe(true);
    const long = Array.from({ length: 300 }, (_, i) => `word${i % 50}`).join(' ');
    expect(tokenize(long)).toHaveLength(MAX_TOKENS);
    const alone = await embed([STADIUM]);
    const batched = await embed([STADIUM, long]);
    expect(maxDiff(alone.graph[0]!, batched.graph[0]!)).toBeLessThan(1e-5);
    expect(Math.hypot(...batched.graph[1]!)).toBeCloseTo(1, 5);
  });
});
