import { mkdtempSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelEmbedder } from '../../src/vector/onnx/model-embedder.js';
import { requireTestModel } from '../helpers/model.js';

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, v, i) => sum + v * b[i]!, 0);
const maxDiff = (a: Float32Array, b: Float32Array) => a.reduce((max, v, i) => Math.max(max, Math.abs(v - b[i]!)), 0);
const sentence = (i: number) => `Memory number ${i}: ${'the user mentioned a trip to the mountains and a new bicycle '.repeat(1 + (i % 5))}`;

let dir: string;
let embedder: ModelEmbedder;
let loadMs: number | undefined;
beforeAll(() => {
  dir = requireTestModel();
  embedder = new ModelEmbedder({ dir, threads: 1, onLoaded: (ms) => (loadMs = ms) });
});
afterAll(async () => {
  await embedder?.close();
});

describe('ModelEmbedder: all-MiniLM-L6-v2 in a worker thread', () => {
  it('gives the similarities sentence-transformers publishes for this model', async () => {
    const [weather, sunny, stadium] = await embedder.embed(['The weather is lovely today.', "It's so sunny outside!", 'He drove to the stadium.']);
    expect(embedder.id).toBe('all-minilm-l6-v2-384');
    expect(weather).toHaveLength(384);
    expect(Math.hypot(...weather!)).toBeCloseTo(1, 5);
    expect(dot(weather!, sunny!)).toBeCloseTo(0.666, 3);
    expect(dot(weather!, stadium!)).toBeCloseTo(0.1046, 3);
    expect(dot(sunny!, stadium!)).toBeCloseTo(0.1411, 3);
    expect(loadMs).toBeGreaterThan(0);
  });

  it('gives the same vectors batched and one by one (fp32 is batch-invariant)', async () => {
    const texts = Array.from({ length: 12 }, (_, i) => sentence(i));
    const batched = await embedder.embed(texts);
    for (let i = 0; i < texts.length; i++) {
      const [alone] = await embedder.embed([texts[i]!]);
      expect(maxDiff(batched[i]!, alone!)).toBeLessThan(1e-5);
    }
  });

  it('cuts a text longer than 256 tokens (what follows the cut changes nothing), and embeds an empty one', async () => {
    const long = 'word '.repeat(600);
    const [cut, longer, empty] = await embedder.embed([long, `${long} and a tail that lies beyond the cut`, '']);
    expect(maxDiff(cut!, longer!)).toBeLessThan(1e-6);
    expect(Math.hypot(...cut!)).toBeCloseTo(1, 5);
    expect(empty).toHaveLength(384);
    expect(Math.hypot(...empty!)).toBeCloseTo(1, 5);
  });

  it('counts tokens with the model tokenizer (with [CLS] and [SEP]) without embedding', async () => {
    expect(embedder.maxTokens).toBe(256);
    expect(await embedder.countTokens(['hello world', '', 'word '.repeat(600)])).toEqual([4, 2, 602]);
  });

  it('serves a live request before a background backlog (re-embedding yields to queries)', async () => {
    const done: string[] = [];
    const backlog = embedder.embedInBackground(Array.from({ length: 24 }, (_, i) => sentence(i + 4))).then(() => done.push('background'));
    const query = embedder.embed(['what does the user like to drink?']).then(() => done.push('live'));
    await Promise.all([backlog, query]);
    expect(done).toEqual(['live', 'background']);
    // Background vectors are the same vectors.
    const [a] = await embedder.embedInBackground([sentence(3)]);
    const [b] = await embedder.embed([sentence(3)]);
    expect(maxDiff(a!, b!)).toBeLessThan(1e-6);
  });

  it('answers concurrent callers each with their own vectors, in order', async () => {
    const requests = Array.from({ length: 24 }, (_, i) => [sentence(i), `caller ${i} asks about tea`]);
    const expected = await Promise.all(requests.map(async (texts) => Promise.all(texts.map(async (t) => (await embedder.embed([t]))[0]!))));
    const got = await Promise.all(requests.map((texts) => embedder.embed(texts)));
    got.forEach((vectors, i) => {
      expect(vectors).toHaveLength(2);
      vectors.forEach((v, j) => expect(maxDiff(v, expected[i]![j]!)).toBeLessThan(1e-5));
    });
  });

  it('keeps the event loop turning while it embeds', async () => {
    const passages = Array.from({ length: 16 }, (_, i) => `${sentence(i)} ${'and then some more words about the weather '.repeat(12)}`);
    // Count event-loop turns until the answer arrives: inference on this thread would run the whole
    // forward pass inside one turn (onnxruntime computes on the calling thread), so few would pass.
    let turns = 0;
    let done = false;
    const spin = () => {
      turns++;
      if (!done) setImmediate(spin);
    };
    setImmediate(spin);
    await embedder.embed(passages);
    done = true;
    expect(turns).toBeGreaterThan(50);
  });
});

describe('ModelEmbedder failures reach the caller', () => {
  let broken: string;
  beforeAll(() => {
    broken = mkdtempSync(join(tmpdir(), 'engram-broken-model-'));
    for (const file of ['tokenizer.json', 'tokenizer_config.json', 'config.json']) copyFileSync(join(dir, file), join(broken, file));
    writeFileSync(join(broken, 'model.onnx'), 'not an onnx graph');
  });
  afterAll(() => rmSync(broken, { recursive: true, force: true }));

  it('rejects every call when the model cannot load, and after close', async () => {
    const bad = new ModelEmbedder({ dir: broken, threads: 1 });
    await expect(bad.embed(['a'])).rejects.toMatchObject({ code: 'unavailable', message: expect.stringMatching(/embedding model failed/) });
    await expect(bad.embed(['b'])).rejects.toMatchObject({ code: 'unavailable' });
    expect(await bad.embed([])).toEqual([]);
    await bad.close();
    await expect(bad.embed(['c'])).rejects.toMatchObject({ code: 'unavailable', message: expect.stringMatching(/shut down/) });
  });
});
