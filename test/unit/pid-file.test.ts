import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { compactStore, CompactRefused } from '../../src/store/compact.js';
import { claimPidFile, runningService } from '../../src/store/pid-file.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'engram-pid-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('DATA_DIR/engram.pid', () => {
  it('names the live service until it releases it', () => {
    const dir = tempDir();
    expect(runningService(dir)).toBeNull();
    const release = claimPidFile(dir);
    expect(runningService(dir)).toBe(process.pid);
    release();
    expect(existsSync(join(dir, 'engram.pid'))).toBe(false);
    expect(runningService(dir)).toBeNull();
  });

  it('ignores a file left by a killed service (a dead pid) and lets compaction run', async () => {
    const dir = tempDir();
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    writeFileSync(join(dir, 'engram.pid'), `${dead}\n`);
    expect(runningService(dir)).toBeNull();
    // No store there: refused for that reason, not for a service.
    await expect(compactStore(dir)).rejects.toThrow(new CompactRefused(`${dir} holds no store (engram.mdb)`));
  });
});
