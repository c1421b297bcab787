import assert from 'node:assert/strict';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { NotFoundError } from '@engram-memory/sdk';
import { downloadToFile, uploadFile } from '@engram-memory/sdk/node';
import { client, ownerId } from './harness.js';

const dataDir = new URL('../../../test/fixtures/', import.meta.url);
const fixture = (name: string) => new URL(name, dataDir).pathname;

describe('documents and media through the SDK', () => {
  const engram = client();

  test('create, create many, get, list and iterate 15 documents in pages of 4, download, delete, restore, hard delete', async () => {
    const owner = engram.owner(ownerId('docs'));
    const note = await owner.documents.create({ content: 'Ada prefers tea to coffee.', title: 'note', metadata: { kind: 'note' }, readers: ['sdk-typescript'] });
    assert.equal(note.content, 'Ada prefers tea to coffee.');
    assert.deepEqual(note.readers, ['sdk-typescript']);
    const batch = await owner.documents.createMany(Array.from({ length: 14 }, (_, i) => ({ content: `batch document ${i}`, metadata: { n: i } })));
    assert.equal(batch.length, 14);
    assert.equal((await owner.documents.get(note.doc_id)).title, 'note');
    assert.equal((await owner.documents.list({ limit: 4 })).count, 4);

    const ids: string[] = [];
    for await (const doc of owner.documents.iterate({ limit: 4 })) ids.push(doc.doc_id);
    assert.equal(ids.length, 15);
    assert.equal(new Set(ids).size, 15);

    const bytes = await owner.documents.downloadBytes(note.doc_id);
    assert.equal(new TextDecoder().decode(bytes), 'Ada prefers tea to coffee.');

    const deleted = await owner.documents.delete(note.doc_id);
    assert.notEqual(deleted?.deleted_at, null);
    assert.ok(!(await owner.documents.list()).documents.some((d) => d.doc_id === note.doc_id), 'hidden from the list');
    assert.equal((await owner.documents.list({ include_deleted: true })).count, 15);
    const restored = await owner.documents.restore(note.doc_id);
    assert.equal(restored.deleted_at, null);
    assert.equal(await owner.documents.delete(note.doc_id, { hard: true }), null);
    await assert.rejects(owner.documents.get(note.doc_id), NotFoundError);
    await assert.rejects(owner.documents.restore(note.doc_id), NotFoundError);
  });

  test('media from a file path and from bytes: content type sniffed, base64 handled, download gives the same bytes', async () => {
    const owner = engram.owner(ownerId('media'));
    const jpeg = await uploadFile(owner, fixture('image.jpg'), { caption: 'a red kite over the hills' });
    assert.equal(jpeg.content_type, 'image/jpeg');
    assert.equal(jpeg.modality, 'image');
    assert.equal(jpeg.filename, 'image.jpg');
    assert.equal(jpeg.derived_by, 'client');

    const pngBytes = new Uint8Array(await readFile(fixture('image.png')));
    const png = await owner.media.upload({ data: pngBytes, caption: 'a blue boat on the lake', metadata: { place: 'lake' } });
    assert.equal(png.content_type, 'image/png');
    assert.deepEqual(await owner.documents.downloadBytes(png.doc_id), pngBytes);

    const wav = await owner.media.upload({ data: new Blob([await readFile(fixture('audio.wav'))]), transcript: 'hello from the lake' });
    assert.equal(wav.modality, 'audio');

    const dir = await mkdtemp(join(tmpdir(), 'engram-sdk-'));
    await downloadToFile(owner, jpeg.doc_id, join(dir, 'copy.jpg'));
    assert.deepEqual(await readFile(join(dir, 'copy.jpg')), await readFile(fixture('image.jpg')));

    const chunks: Uint8Array[] = [];
    await owner.documents.downloadTo(jpeg.doc_id, new WritableStream({ write: (chunk) => void chunks.push(chunk) }));
    assert.deepEqual(Buffer.concat(chunks), await readFile(fixture('image.jpg')));
    const download = await owner.documents.download(jpeg.doc_id);
    assert.equal(download.contentType, 'image/jpeg');
    await download.body.cancel();
  });
});
