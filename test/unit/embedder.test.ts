import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { cosineDistance } from '../../src/vector/embedder.js';
import { tokenize } from '../../src/domain/text.js';
import { LocalEmbedder } from '../../src/vector/local-embedder.js';
import { OpenAiEmbedder } from '../../src/vector/openai-embedder.js';

describe('LocalEmbedder (lexical feature hashing)', () => {
  const embedder = new LocalEmbedder();

  it('gives unit vectors of 384 dimensions, the same for the same text', async () => {
    const [a, b] = await embedder.embed(['the quick brown fox', 'the quick brown fox']);
    expect(a).toHaveLength(384);
    expect(Math.hypot(...a!)).toBeCloseTo(1, 5);
    expect(cosineDistance(a!, b!)).toBeCloseTo(0, 6);
  });

  it('puts texts that share words closer than texts that do not', () => {
    const q = embedder.embedOne('repair the bicycle chain');
    const near = embedder.embedOne('bicycle chains need repair and oil');
    const far = embedder.embedOne('quarterly tax return deadline');
    expect(cosineDistance(q, near)).toBeLessThan(cosineDistance(q, far));
  });

  it('is lexical: word fragments overlap, synonyms without shared letters do not', () => {
    const run = embedder.embedOne('running');
    expect(cosineDistance(run, embedder.embedOne('runner'))).toBeLessThan(cosineDistance(run, embedder.embedOne('sprint')));
    expect(cosineDistance(embedder.embedOne('car'), embedder.embedOne('automobile'))).toBeGreaterThan(0.8);
  });

  it('gives the vectors it always gave (stored passages stay comparable with new queries)', () => {
    const texts = [
      '', 'a', 'ab', 'abc', 'Person 12 keeps notes about project 345 and likes colour 7.',
      'the quick brown fox jumps over the lazy dog; the dog sleeps',
      'Straße café naïve ﬁle İstanbul 東京 タワー', 'emoji 😀 text 𝒜𝒷𝒸 with astral letters 𠜎𠜱',
      'repeat repeat repeat repeat words words words', 'x'.repeat(300) + ' ' + 'yz '.repeat(50),
      'Numbers 1 22 333 4444 55555 and mixed a1b2c3 tokens',
    ];
    // Digests of the vectors of the first implementation, which hashed each feature's string.
    const digests: Record<number, string> = {
      384: 'f4ca5408ec957f9ef0f83fdb153e5e0d8f3a7882101cdf33897b158417be2d35',
      64: '9ccf434b8647448965772dae525e1fd3b5f13f0f7b32e6cccf6e31495275aa63',
      7: 'ef7b981bc1e13ddf66c7a50c9a3d7c85584996ff5d4804eba306ea720acfe99e',
    };
    for (const [dims, digest] of Object.entries(digests)) {
      const sized = new LocalEmbedder(Number(dims));
      const hash = createHash('sha256');
      for (const text of texts) hash.update(sized.embedOne(text));
      expect(hash.digest('hex')).toBe(digest);
    }
  });

  it('tokenizes case-insensitively, drops stop words, folds plurals', () => {
    expect(tokenize('The Cats and THE dogs!')).toEqual(['cat', 'dog']);
    expect(embedder.embedOne('')).toEqual(new Float32Array(384));
  });
});

describe('OpenAiEmbedder', () => {
  it('speaks the /embeddings protocol over HTTP and normalises the vectors', async () => {
    const seen: any[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const parsed = JSON.parse(body);
        seen.push({ url: req.url, auth: req.headers.authorization, body: parsed });
        const data = parsed.input.map((_: string, i: number) => ({ index: i, embedding: [3 * (i + 1), 4 * (i + 1), 0] }));
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ data: data.reverse() }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    try {
      const embedder = new OpenAiEmbedder({ url: `http://127.0.0.1:${port}/v1`, key: 'k', model: 'm', dimensions: 3 });
      const [a, b] = await embedder.embed(['x', 'y']);
      expect([...a!]).toEqual([expect.closeTo(0.6), expect.closeTo(0.8), 0]);
      expect([...b!]).toEqual([expect.closeTo(0.6), expect.closeTo(0.8), 0]);
      expect(seen[0]).toMatchObject({ url: '/v1/embeddings', auth: 'Bearer k', body: { model: 'm', input: ['x', 'y'] } });
      const wrongDims = new OpenAiEmbedder({ url: `http://127.0.0.1:${port}`, model: 'm', dimensions: 5 });
      await expect(wrongDims.embed(['x'])).rejects.toMatchObject({ code: 'provider_error' });
    } finally {
      server.close();
    }
  });
});
