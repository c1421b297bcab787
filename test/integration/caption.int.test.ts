import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { KEYS, startTestService, type SocketTestService, type TestService } from '../helpers/service.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/media/${name}`, import.meta.url));
const CAPTION = 'A horizontal gradient from red to blue, like a sunset sky.';
const TRANSCRIPT = 'Remember to water the orchids on Thursday.';

interface Seen {
  path: string;
  auth: string | undefined;
  contentType: string | undefined;
  body: Buffer;
}

/** A loopback provider speaking the OpenAI-compatible protocol; `mode` switches it to failing. */
class ProviderStub {
  mode: 'ok' | 'fail' = 'ok';
  readonly seen: Seen[] = [];
  private server!: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer(async (req, res) => {
      const body = await readAll(req);
      this.seen.push({ path: req.url ?? '', auth: req.headers.authorization, contentType: req.headers['content-type'], body });
      res.setHeader('content-type', 'application/json');
      if (this.mode === 'fail') {
        res.statusCode = 500;
        res.end(JSON.stringify({ error: { message: 'model overloaded' } }));
      } else if (req.url?.endsWith('/chat/completions')) {
        res.end(JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: `${req.url.startsWith('/safe') ? '[safe] ' : ''}${CAPTION}` } }] }));
      } else if (req.url?.endsWith('/audio/transcriptions')) {
        res.end(JSON.stringify({ text: TRANSCRIPT }));
      } else {
        res.statusCode = 404;
        res.end('{}');
      }
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }
}

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
  });
}

const stub = new ProviderStub();
const dir = mkdtempSync(join(tmpdir(), 'engram-caption-'));
let svc: SocketTestService;
let bare: TestService;
let temporal: Connection;

beforeAll(async () => {
  await stub.start();
  const yaml = join(dir, 'temporal.yaml');
  writeFileSync(
    yaml,
    [
      'media:',
      '  caption_timeout_ms: 5000',
      '  retry: { initial_interval_ms: 50, backoff_coefficient: 1, maximum_interval_ms: 50, maximum_attempts: 3 }',
      '  routes:',
      `    - { name: stub-vision, kind: caption, url: "${stub.url}/v1", model: vision-1 }`,
      `    - { name: safe-vision, kind: caption, url: "${stub.url}/safe/v1", phi_safe: true }`,
      `    - { name: stub-asr, kind: transcribe, url: "${stub.url}/v1", model: asr-1 }`,
    ].join('\n'),
  );
  const temporalEnv = { TEMPORAL_ENABLED: 'true', TEMPORAL_ADDRESS: inject('temporalAddress') };
  // A socket: the transcription test fetches the raw download from `svc.url`.
  svc = await startTestService({
    socket: true,
    env: { ...temporalEnv, TEMPORAL_TASK_QUEUE: `caption-${randomUUID()}`, TEMPORAL_CONFIG: yaml, MEDIA_PROVIDER_KEY: 'sk-provider-test' },
  });
  bare = await startTestService({ env: { ...temporalEnv, TEMPORAL_TASK_QUEUE: `caption-bare-${randomUUID()}` } });
  temporal = await Connection.connect({ address: inject('temporalAddress') });
});

afterAll(async () => {
  await temporal?.close();
  await svc?.stop();
  await bare?.stop();
  await stub.stop();
  rmSync(dir, { recursive: true, force: true });
});

const upload = (service: TestService, entity: string, file: string, modality: 'image' | 'audio', contentType: string, key?: string) =>
  service.call('POST', `/v1/memory/media?entity_id=${entity}`, { body: { modality, content_type: contentType, data_base64: fixture(file).toString('base64'), filename: file }, key });

async function kept(service: TestService, entity: string, key?: string): Promise<number> {
  return (await service.call('GET', `/v1/documents?entity_id=${entity}&include_deleted=true`, { key })).body.count;
}

describe('captioning and transcription through the operator provider (Temporal workflow)', () => {
  it('captions an image: 201 once indexed, derived_by provider:<route>, searchable, history holds ids only', async () => {
    const owner = `cap-${randomUUID()}`;
    const before = stub.seen.length;
    const res = await upload(svc, owner, 'image.png', 'image', 'image/png');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ modality: 'image', derived_text: CAPTION, derived_by: 'provider:stub-vision', content_type: 'image/png' });

    const call = stub.seen[before]!;
    expect(call.path).toBe('/v1/chat/completions');
    expect(call.auth).toBe('Bearer sk-provider-test');
    const sent = JSON.parse(call.body.toString('utf8'));
    expect(sent.model).toBe('vision-1');
    const imagePart = sent.messages[0].content.find((p: any) => p.type === 'image_url');
    expect(imagePart.image_url.url).toBe(`data:image/png;base64,${fixture('image.png').toString('base64')}`);

    const hits = await svc.call('GET', `/v1/search?entity_id=${owner}&q=${encodeURIComponent('red blue gradient sunset')}&modality=image`);
    expect(hits.body.results.map((h: any) => h.doc_id)).toEqual([res.body.doc_id]);

    const history = historyToJSON(await new Client({ connection: temporal }).workflow.getHandle(`caption-media/acme//${owner}/${res.body.doc_id}`).fetchHistory());
    expect(history).toContain(res.body.doc_id);
    expect(history).not.toContain('gradient');
    expect(history).not.toContain(fixture('image.png').toString('base64').slice(0, 40));
  });

  it('transcribes audio through /audio/transcriptions (multipart with the file)', async () => {
    const owner = `asr-${randomUUID()}`;
    const before = stub.seen.length;
    const res = await upload(svc, owner, 'audio.mp3', 'audio', 'audio/mpeg');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ modality: 'audio', derived_text: TRANSCRIPT, derived_by: 'provider:stub-asr' });
    const call = stub.seen[before]!;
    expect(call.path).toBe('/v1/audio/transcriptions');
    expect(call.contentType).toMatch(/^multipart\/form-data/);
    expect(call.body.includes(fixture('audio.mp3'))).toBe(true);
    expect(call.body.toString('latin1')).toContain('asr-1');
    const dl = await fetch(`${svc.url}/v1/documents/${res.body.doc_id}/download?entity_id=${owner}`, { headers: { authorization: `Bearer ${KEYS.acme}` } });
    expect(Buffer.from(await dl.arrayBuffer()).equals(fixture('audio.mp3'))).toBe(true);
  });

  it('a provider that keeps failing gives 502 after the retries, and nothing is kept', async () => {
    const owner = `fail-${randomUUID()}`;
    const before = stub.seen.length;
    stub.mode = 'fail';
    try {
      const res = await upload(svc, owner, 'image.jpg', 'image', 'image/jpeg');
      expect(res.status).toBe(502);
      expect(res.body.code).toBe('provider_error');
    } finally {
      stub.mode = 'ok';
    }
    expect(stub.seen.length - before).toBe(3);
    expect(await kept(svc, owner)).toBe(0);
    expect((await svc.call('GET', `/v1/search?entity_id=${owner}&q=gradient`)).body.count).toBe(0);
  });

  it('no provider configured: 422 and the provider is never called', async () => {
    const owner = `none-${randomUUID()}`;
    const before = stub.seen.length;
    const res = await upload(bare, owner, 'image.gif', 'image', 'image/gif');
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('media_processing_unavailable');
    expect(stub.seen.length).toBe(before);
    expect(await kept(bare, owner)).toBe(0);
  });

  it('a phi_strict tenant never reaches a route that is not PHI-safe: 422, provider not called', async () => {
    const owner = `phi-${randomUUID()}`;
    const before = stub.seen.length;
    const res = await upload(svc, owner, 'audio.wav', 'audio', 'audio/wav', KEYS.clinic);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('media_processing_unavailable');
    expect(stub.seen.length).toBe(before);
    expect(await kept(svc, owner, KEYS.clinic)).toBe(0);
  });

  it('a phi_strict tenant uses the PHI-safe route when there is one', async () => {
    const owner = `phi-safe-${randomUUID()}`;
    const before = stub.seen.length;
    const res = await upload(svc, owner, 'image.webp', 'image', 'image/webp', KEYS.clinic);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ derived_by: 'provider:safe-vision', derived_text: `[safe] ${CAPTION}` });
    expect(stub.seen.slice(before).map((s) => s.path)).toEqual(['/safe/v1/chat/completions']);
  });
});
