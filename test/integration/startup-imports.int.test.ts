import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The module specifiers a fresh process resolves while it runs `script` (TypeScript through tsx). */
function importsOf(script: string, env: Record<string, string> = {}): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'engram-imports-'));
  const log = join(dir, 'imports.log');
  try {
    execFileSync(process.execPath, ['--import', 'tsx', '--import', './test/fixtures/record-imports.mjs', '--input-type=module', '-e', script], {
      cwd: root,
      env: { ...process.env, ...env, IMPORTS_LOG: log, DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'silent' },
      stdio: 'pipe',
    });
    return readFileSync(log, 'utf8').split('\n').filter(Boolean);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('start-up without Temporal', () => {
  it('a node with TEMPORAL_ENABLED=false composes and closes without loading anything of Temporal', () => {
    const imports = importsOf(
      "const { loadConfig } = await import('./src/config.ts'); const { composeService } = await import('./src/server.ts');" +
        " const service = await composeService(loadConfig({ ...process.env, TEMPORAL_ENABLED: 'false', EMBEDDER: 'hash', PORT: '0' })); await service.close();",
    );
    expect(imports.some((s) => s.includes('src/server'))).toBe(true);
    expect(imports.filter((s) => s.includes('@temporalio') || /temporal\/(jobs|engine|worker|client)/.test(s))).toEqual([]);
  });

  it('the same check sees Temporal when it is on (the recorder records what it should)', () => {
    const imports = importsOf("await import('./src/temporal/jobs.ts');");
    expect(imports.some((s) => s.startsWith('@temporalio/'))).toBe(true);
  });
});
