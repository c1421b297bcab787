import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { contentTypeFromName, modalityOf, sniffContentType } from '@engram-memory/sdk';

const data = new URL('../../../test/fixtures/', import.meta.url);

test('the content type is sniffed from the bytes of every format the service accepts', async () => {
  const expected: Record<string, string> = {
    'image.jpg': 'image/jpeg', 'image.png': 'image/png', 'image.gif': 'image/gif', 'image.webp': 'image/webp',
    'audio.mp3': 'audio/mpeg', 'audio.m4a': 'audio/mp4', 'audio.wav': 'audio/wav', 'audio.webm': 'audio/webm',
    'audio.ogg': 'audio/ogg', 'audio.flac': 'audio/flac',
  };
  for (const [file, type] of Object.entries(expected)) {
    assert.equal(sniffContentType(new Uint8Array(await readFile(new URL(file, data)))), type, file);
  }
  assert.equal(sniffContentType(new TextEncoder().encode('plain text, not media')), undefined);
  assert.equal(sniffContentType(new Uint8Array()), undefined);
});

test('file extensions and modalities', () => {
  assert.equal(contentTypeFromName('Holiday.JPEG'), 'image/jpeg');
  assert.equal(contentTypeFromName('voice.m4a'), 'audio/mp4');
  assert.equal(contentTypeFromName('notes.txt'), undefined);
  assert.equal(contentTypeFromName('no-extension'), undefined);
  assert.equal(modalityOf('audio/ogg; codecs=opus'), 'audio');
  assert.equal(modalityOf('IMAGE/PNG'), 'image');
  assert.equal(modalityOf('video/mp4'), undefined);
});

test('media bytes are sent as standard base64, large payloads included', async () => {
  const { Engram } = await import('@engram-memory/sdk');
  const png = new Uint8Array(await readFile(new URL('image.png', data)));
  const large = new Uint8Array(200_000);
  large.set(png);
  large.set(randomBytes(200_000 - png.length), png.length);
  let sent: { data_base64: string; content_type: string; modality: string } | undefined;
  const engram = new Engram({
    baseUrl: 'http://engram.invalid',
    apiKey: 'sk_test',
    fetch: async (_url, init) => {
      sent = JSON.parse(String(init?.body));
      return Response.json({}, { status: 201 });
    },
  });
  await engram.owner('u').media.upload({ data: large, caption: 'x' });
  assert.equal(sent?.data_base64, Buffer.from(large).toString('base64'));
  assert.equal(sent?.content_type, 'image/png');
  assert.equal(sent?.modality, 'image');
});
