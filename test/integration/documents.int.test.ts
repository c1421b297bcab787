import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, startTestService, type SocketTestService } from '../helpers/service.js';

let svc: SocketTestService;
beforeAll(async () => {
  // A socket: the download test fetches the raw bytes from `svc.url`.
  svc = await startTestService({ socket: true });
});
afterAll(async () => {
  await svc?.stop();
});

const post = (entity: string, body: unknown, extra = '', key?: string) =>
  svc.call('POST', `/v1/documents?entity_id=${entity}${extra}`, { body, key });

describe('documents', () => {
  it('creates a text document and returns the record of DECISIONS.md', async () => {
    const res = await post('u-doc', { content: 'Quarterly report on solar panels', title: 'Q3', metadata: { year: 2026 }, tags: ['energy'], source: 'upload' });
    expect(res.status).toBe(201);
    const doc = res.body;
    expect(Object.keys(doc)).toEqual(
      expect.arrayContaining(['doc_id', 'cid', 'entity_id', 'partition', 'modality', 'content_type', 'title', 'content', 'metadata', 'tags', 'source', 'fields', 'created_at', 'updated_at', 'deleted_at']),
    );
    expect(doc.doc_id).toMatch(/^doc_[0-9A-Z]{26}$/);
    expect(doc.cid).toBe(`mgc1-${createHash('sha256').update('Quarterly report on solar panels').digest('hex')}`);
    expect(doc).toMatchObject({ entity_id: 'u-doc', partition: null, modality: 'text', content_type: 'text/plain', title: 'Q3', metadata: { year: 2026 }, tags: ['energy'], source: 'upload', fields: {}, deleted_at: null });
    const got = await svc.call('GET', `/v1/documents/${doc.doc_id}?entity_id=u-doc`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(doc);
  });

  it('lists newest first with limit and offset, and hides soft-deleted documents unless asked', async () => {
    const ids: string[] = [];
    for (const n of [1, 2, 3]) ids.push((await post('u-list', { content: `note ${n}` })).body.doc_id);
    const list = await svc.call('GET', '/v1/documents?entity_id=u-list');
    expect(list.body.documents.map((d: any) => d.doc_id)).toEqual([...ids].reverse());
    expect(list.body.count).toBe(3);
    const page = await svc.call('GET', '/v1/documents?entity_id=u-list&limit=1&offset=1');
    expect(page.body.documents.map((d: any) => d.doc_id)).toEqual([ids[1]]);

    const del = await svc.call('DELETE', `/v1/documents/${ids[0]}?entity_id=u-list`);
    expect(del.status).toBe(200);
    expect(del.body.deleted_at).not.toBeNull();
    expect((await svc.call('GET', '/v1/documents?entity_id=u-list')).body.count).toBe(2);
    const all = await svc.call('GET', '/v1/documents?entity_id=u-list&include_deleted=true');
    expect(all.body.count).toBe(3);

    const restored = await svc.call('POST', `/v1/documents/${ids[0]}/restore?entity_id=u-list`);
    expect(restored.status).toBe(200);
    expect(restored.body.deleted_at).toBeNull();
    expect((await svc.call('GET', '/v1/documents?entity_id=u-list')).body.count).toBe(3);
  });

  it('hard delete removes the document for good', async () => {
    const { doc_id } = (await post('u-hard', { content: 'to be forgotten' })).body;
    expect((await svc.call('DELETE', `/v1/documents/${doc_id}?entity_id=u-hard&hard=true`)).status).toBe(204);
    expect((await svc.call('GET', `/v1/documents/${doc_id}?entity_id=u-hard`)).status).toBe(404);
    expect((await svc.call('POST', `/v1/documents/${doc_id}/restore?entity_id=u-hard`)).status).toBe(404);
    expect((await svc.call('GET', '/v1/documents?entity_id=u-hard&include_deleted=true')).body.count).toBe(0);
  });

  it('downloads a text document as its original UTF-8', async () => {
    const content = '# Título\n\nÜnïcödé ✓';
    const { doc_id } = (await post('u-dl', { content, content_type: 'text/markdown' })).body;
    const res = await fetch(`${svc.url}/v1/documents/${doc_id}/download?entity_id=u-dl`, { headers: { authorization: `Bearer ${KEYS.acme}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/markdown');
    expect(Buffer.from(await res.arrayBuffer()).toString('utf8')).toBe(content);
  });

  it('refuses bad input with 400 and oversized content with 413', async () => {
    expect((await post('u-bad', {})).status).toBe(400);
    expect((await post('u-bad', { content: 'x', content_type: 'application/pdf' })).body.code).toBe('invalid_input');
    expect((await post('u-bad', { content: 'x', metadata: { a: { nested: true } } })).status).toBe(400);
    expect((await post('u-bad', { content: 'x', extra: 1 })).status).toBe(400);
    expect((await svc.call('GET', '/v1/documents/bad%20id?entity_id=u-bad')).status).toBe(400);
    const big = await post('u-bad', { content: 'x'.repeat(1024 * 1024 + 1) });
    expect(big.status).toBe(413);
    expect(big.body.code).toBe('payload_too_large');
    expect((await svc.call('GET', '/v1/documents?entity_id=u-bad')).body.count).toBe(0);
  });

  it('keeps owners and tenants apart', async () => {
    const { doc_id } = (await post('owner-a', { content: 'private to a' })).body;
    expect((await svc.call('GET', `/v1/documents/${doc_id}?entity_id=owner-b`)).status).toBe(404);
    expect((await svc.call('GET', `/v1/documents/${doc_id}?entity_id=owner-a`, { key: KEYS.globex })).status).toBe(404);
    expect((await svc.call('DELETE', `/v1/documents/${doc_id}?entity_id=owner-b`)).status).toBe(404);
    expect((await svc.call('GET', '/v1/documents?entity_id=owner-a', { key: KEYS.globex })).body.count).toBe(0);
    expect((await svc.call('GET', '/v1/documents?entity_id=owner-b')).body.count).toBe(0);
    expect((await svc.call('GET', '/v1/documents?entity_id=owner-a&partition=p1')).body.count).toBe(0);
  });

  it('readers: only the listed principals see the document; for others it does not exist', async () => {
    const { doc_id } = (await post('u-acl', { content: 'for globex eyes only' }, '&readers=someone-else')).body;
    await post('u-acl', { content: 'public' });
    expect((await svc.call('GET', `/v1/documents/${doc_id}?entity_id=u-acl`)).status).toBe(404);
    expect((await svc.call('GET', '/v1/documents?entity_id=u-acl')).body.count).toBe(1);
    expect((await svc.call('DELETE', `/v1/documents/${doc_id}?entity_id=u-acl`)).status).toBe(404);
    const mine = (await post('u-acl', { content: 'mine' }, '&readers=acme-backend,someone-else')).body;
    expect(mine.readers).toEqual(['acme-backend', 'someone-else']);
    expect((await svc.call('GET', `/v1/documents/${mine.doc_id}?entity_id=u-acl`)).status).toBe(200);
    expect((await post('u-acl', { content: 'x' }, '&readers=,,')).status).toBe(400);
  });

  it('writes the master key once with mode 0600', () => {
    const file = join(svc.dataDir, 'encryption-key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64')).toHaveLength(32);
    expect(readdirSync(svc.dataDir)).toContain('vectors');
  });
});
