import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { servicesWithKeysFile } from '../helpers/keyed-service.js';
import { mintKeyWithCli } from '../helpers/keys-cli.js';
import type { ServiceProcess } from '../helpers/process.js';

const KEY_A = 'sk_reload_a_0123456789abcdef';
const BROKEN_FILE_SECRET = 'sk_reload_in_a_broken_file_0123456789';

const start = servicesWithKeysFile('engram-keys-');

/** A service process on its own DATA_DIR, with an API_KEYS_FILE the test rewrites. */
async function serviceWithKeysFile(content: unknown, env: Record<string, string> = {}) {
  const { service, keysFile } = await start(content, env);
  const write = (next: unknown) => writeFileSync(keysFile, typeof next === 'string' ? next : JSON.stringify(next));
  const { url, child } = service;
  const get = async (key: string) => (await fetch(`${url}/v1/memory/facts?entity_id=owner-1`, { headers: { authorization: `Bearer ${key}` } })).status;
  return { service, write, get, reload: () => child.kill('SIGHUP') };
}

/** Polls until `check` passes: a bound against a hang, not a timing assertion. */
const eventually = (check: () => Promise<void> | void) => vi.waitFor(check, { timeout: 15_000, interval: 50 });

describe('API_KEYS_FILE reloads on SIGHUP', () => {
  it('revokes a removed key, admits a key minted by `npm run keys`, and keeps the keys when the new file is broken', async () => {
    const { service, write, get, reload } = await serviceWithKeysFile({ keys: [{ key: KEY_A, tenant: 'alpha' }] });
    expect(await get(KEY_A)).toBe(200);
    const b = await mintKeyWithCli(['--tenant', 'beta', '--principal', 'beta-app']);
    expect(await get(b.key)).toBe(401);

    write({ keys: [b.entry] });
    reload();
    await eventually(async () => expect(await get(KEY_A)).toBe(401));
    expect(await get(b.key)).toBe(200);
    // The log arrives through a pipe, maybe after the answers: it is polled too.
    await eventually(() => expect(logged(service, 'API keys reloaded')).toMatchObject({ level: 30, keys: 1, tenants: 1 }));

    write(`{"keys": [{"key": ${BROKEN_FILE_SECRET}, "tenant": "alpha"}]}`);
    reload();
    await eventually(() =>
      expect(logged(service, 'API keys not reloaded')).toMatchObject({ level: 40, reason: expect.stringMatching(/^invalid API_KEYS_FILE .*: not valid JSON/) }),
    );
    expect(await get(b.key)).toBe(200);
    expect(await get(KEY_A)).toBe(401);

    const log = service.lines.join('\n');
    for (const secret of [KEY_A, b.key, BROKEN_FILE_SECRET.slice(0, 12)]) expect(log).not.toContain(secret);
  });

  it('applies changed tenant policies (phi_strict) and rate limits from the next request on', async () => {
    const key = 'sk_reload_policy_0123456789abcdef';
    // A captioning route that is not PHI-safe: an image without caption is refused for a PHI-strict tenant
    // (422), and otherwise reaches the job system, which is off here (503).
    const env = { MEDIA_PROVIDER_URL: 'http://127.0.0.1:9/v1' };
    const { service, write, get, reload } = await serviceWithKeysFile({ keys: [{ key, tenant: 'clinic' }] }, env);
    const image = readFileSync(new URL('../fixtures/media/image.png', import.meta.url)).toString('base64');
    const upload = async () => {
      const res = await fetch(`${service.url}/v1/memory/media?entity_id=owner-1`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ modality: 'image', content_type: 'image/png', data_base64: image }),
      });
      return `${res.status} ${((await res.json()) as { code: string }).code}`;
    };
    expect(await upload()).toBe('503 unavailable');

    // Two requests in ~2000 s: the upload that sees the new file, one more, then 429.
    write({ tenants: { clinic: { phi_strict: true } }, keys: [{ key, tenant: 'clinic', rate_limit: { per_second: 0.001, burst: 2 } }] });
    reload();
    await eventually(async () => expect(await upload()).toBe('422 media_processing_unavailable'));
    expect(await get(key)).toBe(200);
    expect(await get(key)).toBe(429);

    write({ keys: [{ key, tenant: 'clinic', rate_limit: { per_second: 100, burst: 100 } }] });
    reload();
    await eventually(async () => expect(await get(key)).toBe(200));
    expect(await get(key)).toBe(200);
  });
});

/** The last log entry whose message starts so. */
function logged(service: ServiceProcess, msg: string): Record<string, unknown> | undefined {
  return service.lines
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .findLast((entry) => String(entry.msg).startsWith(msg));
}
