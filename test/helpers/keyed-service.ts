import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { spawnService, type ServiceProcess } from './process.js';

/**
 * Starts services in processes of their own, each on a DATA_DIR of its own with an API_KEYS_FILE beside it
 * (`keys`: the file's JSON, or text written as it is). Each is stopped (SIGTERM) and its directory removed
 * after the test that started it. Call at the top of a test file.
 */
export function servicesWithKeysFile(prefix: string) {
  const services: ServiceProcess[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    for (const service of services.splice(0)) {
      service.child.kill('SIGTERM');
      await service.exited;
    }
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return async (keys: unknown, env: Record<string, string> = {}): Promise<{ service: ServiceProcess; keysFile: string }> => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(dir);
    const keysFile = join(dir, 'keys.json');
    writeFileSync(keysFile, typeof keys === 'string' ? keys : JSON.stringify(keys));
    const service = await spawnService({ DATA_DIR: join(dir, 'data'), API_KEYS_FILE: keysFile, ...env });
    services.push(service);
    return { service, keysFile };
  };
}
