import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { KeysFileSchema, KeyRing } from '../../src/auth/keys.js';
import { mintedKey, runKeysCli } from '../helpers/keys-cli.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('npm run keys -- new', () => {
  it('prints a new key once and the key_sha256 entry of that key, which the service accepts', async () => {
    const run = await runKeysCli(['new', '--tenant', 'acme', '--principal', 'acme-backend', '--multi-tenant']);
    expect(run.code).toBe(0);
    const { key, entry } = mintedKey(run);
    expect(run.stdout.split(key)).toHaveLength(2);
    expect(key.length).toBeGreaterThanOrEqual(32);
    expect(entry).toEqual({ key_sha256: sha256(key), tenant: 'acme', principal: 'acme-backend', multi_tenant: true });
    const ring = KeyRing.fromKeysFile(KeysFileSchema.parse({ keys: [entry] }));
    expect(ring.authenticate(key)).toMatchObject({ tenant: 'acme', principal: 'acme-backend', multiTenant: true });
  });

  it('makes an admin key with --admin: an operator key of its tenant', async () => {
    const run = await runKeysCli(['new', '--tenant', 'acme', '--principal', 'ops', '--admin']);
    expect(run.code).toBe(0);
    const { key, entry } = mintedKey(run);
    expect(entry).toEqual({ key_sha256: sha256(key), tenant: 'acme', principal: 'ops', admin: true });
    expect(run.stdout).toContain('admin');
    const ring = KeyRing.fromKeysFile(KeysFileSchema.parse({ keys: [entry] }));
    expect(ring.authenticate(key)).toMatchObject({ tenant: 'acme', principal: 'ops', admin: true });
  });

  it('mints a different key every time, and leaves principal and multi_tenant to their defaults when not given', async () => {
    const [first, second] = await Promise.all([runKeysCli(['new', '--tenant', 'acme']), runKeysCli(['new', '--tenant', 'acme'])]);
    const a = mintedKey(first!);
    const b = mintedKey(second!);
    expect(a.key).not.toBe(b.key);
    expect(a.entry).toEqual({ key_sha256: sha256(a.key), tenant: 'acme' });
    expect(KeyRing.fromKeysFile(KeysFileSchema.parse({ keys: [a.entry] })).authenticate(a.key)?.admin).toBe(false);
  });

  it.each([
    ['no command', [], /a command is required/],
    ['an unknown command', ['rotate', '--tenant', 'acme'], /unknown command "rotate"/],
    ['no --tenant', ['new'], /--tenant is required/],
    ['--tenant without a value', ['new', '--tenant'], /--tenant.*argument missing/],
    ['an empty tenant', ['new', '--tenant', ''], /--tenant: .*>=1 characters/],
    ['a principal over 256 characters', ['new', '--tenant', 'acme', '--principal', 'p'.repeat(257)], /--principal: .*<=256 characters/],
    ['an unknown option', ['new', '--tenants', 'acme'], /Unknown option '--tenants'/],
  ])('refuses %s with a message and a non-zero exit, printing no key', async (_case, args, message) => {
    const run = await runKeysCli(args);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toContain('usage: npm run keys -- new --tenant');
    expect(run.stdout).not.toMatch(/sk_live_/);
  });
});
