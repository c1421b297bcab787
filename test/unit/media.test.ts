import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { chooseMediaRoute, decodedBase64Length, isStandardBase64, judgeMedia, normaliseMime } from '../../src/domain/media.js';
import { sniffExtension } from '../../src/media/sniff.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/media/${name}`, import.meta.url));

describe('media rules', () => {
  it.each([
    ['image.jpg', 'jpg'],
    ['image.png', 'png'],
    ['image.webp', 'webp'],
    ['image.gif', 'gif'],
    ['audio.mp3', 'mp3'],
    ['audio.m4a', 'm4a'],
    ['audio.wav', 'wav'],
    ['audio.webm', 'webm'],
    ['audio.ogg', 'ogg'],
    ['audio.flac', 'flac'],
  ])('sniffs %s as %s', async (file, ext) => {
    expect(await sniffExtension(fixture(file))).toBe(ext);
  });

  it('accepts agreeing modality, MIME and magic bytes, ignoring case and parameters', () => {
    expect(judgeMedia('image', 'IMAGE/PNG', 'png')).toEqual({ ok: true, contentType: 'image/png' });
    expect(judgeMedia('audio', 'audio/ogg; codecs=opus', 'opus')).toEqual({ ok: true, contentType: 'audio/ogg' });
    expect(judgeMedia('audio', 'audio/mp4', 'mp4')).toMatchObject({ ok: true });
  });

  it('names the field that disagrees', () => {
    expect(judgeMedia('image', 'image/bmp', 'bmp')).toMatchObject({ ok: false, field: 'content_type' });
    for (const member of ['constructor', '__proto__', 'hasownproperty']) expect(judgeMedia('image', member, 'png'), member).toMatchObject({ ok: false, field: 'content_type' });
    expect(judgeMedia('audio', 'image/png', 'png')).toMatchObject({ ok: false, field: 'modality' });
    expect(judgeMedia('image', 'image/jpeg', 'png')).toMatchObject({ ok: false, field: 'data_base64' });
    expect(judgeMedia('image', 'image/png', undefined)).toMatchObject({ ok: false, field: 'data_base64' });
  });

  it('checks base64 and its decoded size without decoding', () => {
    expect(isStandardBase64('aGVsbG8=')).toBe(true);
    expect(isStandardBase64('aGVsbG8')).toBe(false);
    expect(isStandardBase64('aGV-bG8=')).toBe(false);
    expect(decodedBase64Length('aGVsbG8=')).toBe(5);
    expect(decodedBase64Length(Buffer.alloc(1000).toString('base64'))).toBe(1000);
    expect(normaliseMime(' Audio/WAV ;x=1')).toBe('audio/wav');
  });

  it('a PHI-strict tenant only ever gets a PHI-safe route', () => {
    const routes = [
      { name: 'cheap', kind: 'caption' as const, phiSafe: false },
      { name: 'safe', kind: 'caption' as const, phiSafe: true },
      { name: 'asr', kind: 'transcribe' as const, phiSafe: false },
    ];
    expect(chooseMediaRoute(routes, 'image', false)).toMatchObject({ ok: true, route: { name: 'cheap' } });
    expect(chooseMediaRoute(routes, 'image', true)).toMatchObject({ ok: true, route: { name: 'safe' } });
    expect(chooseMediaRoute(routes, 'audio', true)).toMatchObject({ ok: false });
    expect(chooseMediaRoute(routes, 'audio', false)).toMatchObject({ ok: true, route: { name: 'asr' } });
    expect(chooseMediaRoute([], 'image', false)).toMatchObject({ ok: false });
  });
});
