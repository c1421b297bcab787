import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BlobCipher, loadMasterKey } from '../../src/store/blobs.js';

describe('BlobCipher (AES-256-GCM, per-tenant HKDF keys)', () => {
  const cipher = new BlobCipher(Buffer.alloc(32, 7));
  const plain = Buffer.from('original media bytes \u0000\u0001\u0002');

  it('round-trips and never stores the plaintext', () => {
    const sealed = cipher.seal('acme', 'doc_1', plain);
    expect(sealed.includes(plain)).toBe(false);
    expect(cipher.open('acme', 'doc_1', sealed).equals(plain)).toBe(true);
    expect(cipher.seal('acme', 'doc_1', plain).equals(sealed)).toBe(false);
  });

  it('refuses another tenant, another document, a tampered blob or another master key', () => {
    const sealed = cipher.seal('acme', 'doc_1', plain);
    expect(() => cipher.open('globex', 'doc_1', sealed)).toThrow();
    expect(() => cipher.open('acme', 'doc_2', sealed)).toThrow();
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 1]! ^= 1;
    expect(() => cipher.open('acme', 'doc_1', tampered)).toThrow();
    expect(() => new BlobCipher(Buffer.alloc(32, 8)).open('acme', 'doc_1', sealed)).toThrow();
  });

  it('generates the master key once into DATA_DIR with mode 0600, or takes ENCRYPTION_KEY', () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-key-'));
    try {
      const first = loadMasterKey(undefined, dir);
      expect(first).toHaveLength(32);
      expect(statSync(join(dir, 'encryption-key')).mode & 0o777).toBe(0o600);
      expect(loadMasterKey(undefined, dir).equals(first)).toBe(true);
      expect(readFileSync(join(dir, 'encryption-key'), 'utf8').trim()).toBe(first.toString('base64'));
      const given = Buffer.alloc(32, 1).toString('base64');
      expect(loadMasterKey(given, dir).equals(Buffer.alloc(32, 1))).toBe(true);
      expect(() => loadMasterKey('c2hvcnQ=', dir)).toThrow(/32 bytes/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
