import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, startTestService, type SocketTestService } from '../helpers/service.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/media/${name}`, import.meta.url));

/** Every accepted content type with a real file made by a real encoder (test/fixtures/media/generate.sh). */
const ACCEPTED: Array<[modality: 'image' | 'audio', contentType: string, file: string]> = [
  ['image', 'image/jpeg', 'image.jpg'],
  ['image', 'image/png', 'image.png'],
  ['image', 'image/webp', 'image.webp'],
  ['image', 'image/gif', 'image.gif'],
  ['audio', 'audio/mpeg', 'audio.mp3'],
  ['audio', 'audio/mp4', 'audio.m4a'],
  ['audio', 'audio/x-m4a', 'audio.m4a'],
  ['audio', 'audio/wav', 'audio.wav'],
  ['audio', 'audio/x-wav', 'audio.wav'],
  ['audio', 'audio/wave', 'audio.wav'],
  ['audio', 'audio/webm', 'audio.webm'],
  ['audio', 'audio/ogg', 'audio.ogg'],
  ['audio', 'audio/flac', 'audio.flac'],
];

let svc: SocketTestService;
beforeAll(async () => {
  // A socket: `download` fetches the raw bytes from `svc.url`.
  svc = await startTestService({ socket: true });
});
afterAll(async () => {
  await svc?.stop();
});

const upload = (entity: string, body: Record<string, unknown>, extra = '', key?: string) =>
  svc.call('POST', `/v1/memory/media?entity_id=${entity}${extra}`, { body, key });
const textFor = (modality: string, text: string) => (modality === 'image' ? { caption: text } : { transcript: text });

async function download(docId: string, entity: string, key: string = KEYS.acme) {
  const res = await fetch(`${svc.url}/v1/documents/${docId}/download?entity_id=${entity}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
}

describe('media memories', () => {
  it.each(ACCEPTED)('accepts %s %s (%s) with caller text, and downloads the same bytes', async (modality, contentType, file) => {
    const bytes = fixture(file);
    const res = await upload('m-all', {
      modality,
      content_type: contentType,
      data_base64: bytes.toString('base64'),
      filename: file,
      metadata: { camera: 'test' },
      ...textFor(modality, `a ${modality} fixture named ${file}`),
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      modality,
      content_type: contentType,
      derived_text: `a ${modality} fixture named ${file}`,
      derived_by: 'client',
      entity_id: 'm-all',
      partition: null,
      metadata: { camera: 'test' },
      cid: `mgc1-${createHash('sha256').update(bytes).digest('hex')}`,
    });
    expect(JSON.stringify(res.body)).not.toContain(bytes.toString('base64'));
    const got = await download(res.body.doc_id, 'm-all');
    expect(got.status).toBe(200);
    expect(got.type).toBe(contentType);
    expect(got.bytes.equals(bytes)).toBe(true);
    const record = await svc.call('GET', `/v1/documents/${res.body.doc_id}?entity_id=m-all`);
    expect(record.body).toMatchObject({ modality, derived_text: `a ${modality} fixture named ${file}` });
    expect(record.body.content).toBeUndefined();
  });

  it('stores the bytes encrypted: the plaintext is nowhere in DATA_DIR', async () => {
    const bytes = fixture('audio.wav');
    await upload('m-enc', { modality: 'audio', content_type: 'audio/wav', data_base64: bytes.toString('base64'), transcript: 'a tone' });
    const db = readFileSync(`${svc.dataDir}/engram.mdb`);
    expect(db.includes(bytes.subarray(0, 64))).toBe(false);
  });

  it('answers every kind of mismatch with 400 and keeps nothing', async () => {
    const png = fixture('image.png').toString('base64');
    const wav = fixture('audio.wav').toString('base64');
    const cases: Array<[string, Record<string, unknown>]> = [
      ['unaccepted MIME type', { modality: 'image', content_type: 'image/bmp', data_base64: png, caption: 'x' }],
      ['modality disagrees with MIME', { modality: 'audio', content_type: 'image/png', data_base64: png, transcript: 'x' }],
      ['bytes disagree with MIME (png as jpeg)', { modality: 'image', content_type: 'image/jpeg', data_base64: png, caption: 'x' }],
      ['bytes of the other modality', { modality: 'image', content_type: 'image/png', data_base64: wav, caption: 'x' }],
      ['bytes disagree with audio MIME (wav as mpeg)', { modality: 'audio', content_type: 'audio/mpeg', data_base64: wav, transcript: 'x' }],
      ['unrecognised bytes', { modality: 'image', content_type: 'image/png', data_base64: Buffer.from('just some text, not an image').toString('base64'), caption: 'x' }],
      ['not base64', { modality: 'image', content_type: 'image/png', data_base64: 'not base64!!', caption: 'x' }],
      ['unknown modality', { modality: 'video', content_type: 'image/png', data_base64: png, caption: 'x' }],
      ['caption on audio', { modality: 'audio', content_type: 'audio/wav', data_base64: wav, caption: 'x' }],
      ['transcript on an image', { modality: 'image', content_type: 'image/png', data_base64: png, transcript: 'x' }],
      ['missing data', { modality: 'image', content_type: 'image/png', caption: 'x' }],
      ['nested metadata', { modality: 'image', content_type: 'image/png', data_base64: png, caption: 'x', metadata: { a: [1] } }],
    ];
    for (const [name, body] of cases) {
      const res = await upload('m-bad', body);
      expect(res.status, name).toBe(400);
      expect(res.body.code, name).toBe('invalid_input');
    }
    expect((await svc.call('GET', '/v1/documents?entity_id=m-bad&include_deleted=true')).body.count).toBe(0);
  });

  it('answers 413 for an oversized caption, transcript or payload', async () => {
    const png = fixture('image.png').toString('base64');
    const wav = fixture('audio.wav').toString('base64');
    const caption = await upload('m-big', { modality: 'image', content_type: 'image/png', data_base64: png, caption: 'é'.repeat(4097) });
    expect(caption.status).toBe(413);
    expect(caption.body.code).toBe('payload_too_large');
    const transcript = await upload('m-big', { modality: 'audio', content_type: 'audio/wav', data_base64: wav, transcript: 'x'.repeat(256 * 1024 + 1) });
    expect(transcript.status).toBe(413);
    const huge = Buffer.alloc(25 * 1024 * 1024 + 3);
    fixture('image.png').copy(huge);
    const payload = await upload('m-big', { modality: 'image', content_type: 'image/png', data_base64: huge.toString('base64'), caption: 'x' });
    expect(payload.status).toBe(413);
    expect((await svc.call('GET', '/v1/documents?entity_id=m-big').then((r) => r.body.count))).toBe(0);
  });

  it('without caller text and without a provider: 422 and nothing kept', async () => {
    const res = await upload('m-422', { modality: 'image', content_type: 'image/png', data_base64: fixture('image.png').toString('base64') });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('media_processing_unavailable');
    expect((await svc.call('GET', '/v1/documents?entity_id=m-422&include_deleted=true')).body.count).toBe(0);
  });

  it('media hits join text hits in one ranked search, and modality filters them', async () => {
    await svc.call('POST', '/v1/documents?entity_id=m-search', { body: { content: 'notes about the red sunset over the harbour' } });
    const img = await upload('m-search', { modality: 'image', content_type: 'image/png', data_base64: fixture('image.png').toString('base64'), caption: 'photo of a red sunset over the harbour' });
    const aud = await upload('m-search', { modality: 'audio', content_type: 'audio/wav', data_base64: fixture('audio.wav').toString('base64'), transcript: 'voice memo about the harbour sunset' });
    const all = await svc.call('GET', '/v1/search?entity_id=m-search&q=red%20sunset%20harbour');
    expect(all.body.results.map((r: any) => r.modality).sort()).toEqual(['audio', 'image', 'text']);
    const images = await svc.call('GET', '/v1/search?entity_id=m-search&q=sunset&modality=image&include_content=true');
    expect(images.body.results).toHaveLength(1);
    expect(images.body.results[0]).toMatchObject({ doc_id: img.body.doc_id, modality: 'image', content_type: 'image/png', content: 'photo of a red sunset over the harbour' });
    const audio = await svc.call('GET', '/v1/search?entity_id=m-search&q=sunset&modality=audio');
    expect(audio.body.results.map((r: any) => r.doc_id)).toEqual([aud.body.doc_id]);
  });

  it('readers: other principals get 404 on the record and the download, and never see it in search', async () => {
    const res = await upload('m-acl', { modality: 'image', content_type: 'image/gif', data_base64: fixture('image.gif').toString('base64'), caption: 'confidential diagram' }, '&readers=auditor');
    expect(res.status).toBe(201);
    expect(res.body.readers).toEqual(['auditor']);
    expect((await svc.call('GET', `/v1/documents/${res.body.doc_id}?entity_id=m-acl`)).status).toBe(404);
    expect((await download(res.body.doc_id, 'm-acl')).status).toBe(404);
    expect((await svc.call('GET', '/v1/search?entity_id=m-acl&q=confidential%20diagram')).body.count).toBe(0);
    expect((await download(res.body.doc_id, 'm-acl', KEYS.globex)).status).toBe(404);
  });

  it('a soft-deleted media record cannot be downloaded until restored', async () => {
    const bytes = fixture('image.jpg');
    const { doc_id } = (await upload('m-del', { modality: 'image', content_type: 'image/jpeg', data_base64: bytes.toString('base64'), caption: 'a jpeg' })).body;
    await svc.call('DELETE', `/v1/documents/${doc_id}?entity_id=m-del`);
    expect((await download(doc_id, 'm-del')).status).toBe(404);
    await svc.call('POST', `/v1/documents/${doc_id}/restore?entity_id=m-del`);
    expect((await download(doc_id, 'm-del')).bytes.equals(bytes)).toBe(true);
    await svc.call('DELETE', `/v1/documents/${doc_id}?entity_id=m-del&hard=true`);
    expect((await download(doc_id, 'm-del')).status).toBe(404);
  });
});

describe('media without caller text while the job system is off', () => {
  it('answers 503 and keeps nothing, without calling the provider', async () => {
    let called = 0;
    const { createServer } = await import('node:http');
    const stub = createServer((_req, res) => {
      called++;
      res.end('{}');
    });
    await new Promise<void>((r) => stub.listen(0, '127.0.0.1', r));
    const port = (stub.address() as { port: number }).port;
    const off = await startTestService({ env: { MEDIA_PROVIDER_URL: `http://127.0.0.1:${port}/v1` } });
    try {
      const res = await off.call('POST', '/v1/memory/media?entity_id=m-503', { body: { modality: 'image', content_type: 'image/png', data_base64: fixture('image.png').toString('base64') } });
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('unavailable');
      expect(called).toBe(0);
      expect((await off.call('GET', '/v1/documents?entity_id=m-503&include_deleted=true')).body.count).toBe(0);
    } finally {
      await off.stop();
      await new Promise((r) => stub.close(r));
    }
  });
});
