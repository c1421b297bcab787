import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonProblem, KeyFileRing } from '../../src/auth/key-file.js';
import { keyDigest } from '../../src/auth/keys.js';

const dir = mkdtempSync(join(tmpdir(), 'engram-keyfile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const OLD = 'sk_unit_old_0123456789abcdef';
const NEW = 'sk_unit_new_0123456789abcdef';
const SECRET = 'sk_unit_secret_in_a_broken_file_0123';

function ringOn(content: string): { ring: KeyFileRing; write: (next: string) => void } {
  const path = join(dir, `keys-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, content);
  return { ring: new KeyFileRing(path), write: (next) => writeFileSync(path, next) };
}

/** Why `reload` refused the file (the test fails if it did not). */
function reloadError(ring: KeyFileRing): string {
  try {
    ring.reload();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the reload was expected to refuse the file');
}

const file = (keys: unknown[], tenants: Record<string, unknown> = {}) => JSON.stringify({ tenants, keys });

describe('API_KEYS_FILE reload', () => {
  it('a valid file replaces the whole ring: removed keys go, new keys and changed policies apply', () => {
    const { ring, write } = ringOn(file([{ key: OLD, tenant: 'acme' }]));
    const before = ring.authenticate(OLD);
    write(file([{ key_sha256: keyDigest(NEW), tenant: 'acme', rate_limit: { per_second: 5, burst: 10 } }, { key: OLD.replace('old', 'two'), tenant: 'clinic' }], { acme: { phi_strict: true } }));
    expect(ring.reload()).toEqual({ keys: 2, tenants: 2 });
    expect(ring.authenticate(OLD)).toBeUndefined();
    expect(ring.authenticate(NEW)).toMatchObject({ tenant: 'acme', phiStrict: true, rateLimit: { per_second: 5, burst: 10 } });
    // What a request already authenticated holds does not change under it.
    expect(before).toMatchObject({ tenant: 'acme', phiStrict: false, rateLimit: undefined });
  });

  it.each([
    ['JSON with a bare key', `{"keys": [{"key": ${SECRET}, "tenant": "acme"}]}`, /not valid JSON/],
    ['JSON cut short', `{"keys": [{"key": "${SECRET}",\n "tenant": `, /not valid JSON: Unexpected end of JSON input/],
    ['a missing comma', `{"keys": [{"key": "${SECRET}"\n  "tenant": "acme"}]}`, /not valid JSON: Expected ',' or '}' after property value in JSON at line 2, column 3/],
    ['a key too short', file([{ key: 'sk_short', tenant: 'acme' }]), /keys\.0\.key: Too small/],
    ['no key at all', file([{ tenant: 'acme' }]), /keys\.0: each key needs exactly one of "key" or "key_sha256"/],
    ['an empty key list', file([]), /keys: Too small/],
    ['an unknown field', file([{ key: SECRET, tenant: 'acme', admn: true }]), /keys\.0: Unrecognized key: "admn"/],
  ])('a file with %s is refused with why, never a key, and the old keys stay', (_case, content, why) => {
    const { ring, write } = ringOn(file([{ key: OLD, tenant: 'acme' }]));
    write(content);
    const message = reloadError(ring);
    expect(message).toMatch(/^invalid API_KEYS_FILE /);
    expect(message).toMatch(why);
    expect(message).not.toContain(SECRET.slice(0, 12));
    expect(ring.authenticate(OLD)).toMatchObject({ tenant: 'acme' });
    expect(ring.counts).toEqual({ keys: 1, tenants: 1 });
  });

  it('an unreadable file is refused and the old keys stay', () => {
    const { ring } = ringOn(file([{ key: OLD, tenant: 'acme' }]));
    rmSync(ring.path);
    expect(reloadError(ring)).toMatch(/ENOENT/);
    expect(ring.authenticate(OLD)).toMatchObject({ tenant: 'acme' });
  });

  it('drops the text V8 quotes from JSON errors, whatever it is', () => {
    for (const text of [`${SECRET}`, `"${SECRET}`, `{"k": "x"} ${SECRET}`, `{"k": ${SECRET}}`]) {
      let message = '';
      try {
        JSON.parse(text);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(jsonProblem(message, text)).not.toContain(SECRET.slice(0, 12));
    }
  });
});
