import { open, type RootDatabase } from 'lmdb';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { timeCommits } from '../../src/metrics/commit-timer.js';

/** A histogram's `startTimer`, recording each batch's seconds, and how many timers are still running. */
function recorder() {
  const seconds: number[] = [];
  let running = 0;
  return {
    seconds,
    running: () => running,
    startTimer() {
      const started = performance.now();
      running++;
      return () => {
        running--;
        seconds.push((performance.now() - started) / 1000);
      };
    },
  };
}

describe('timeCommits: each LMDB commit batch timed to its own durable end', () => {
  let dir: string;
  let env: RootDatabase;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'commit-timer-'));
    env = open({ path: join(dir, 'test.mdb') });
  });
  afterEach(async () => {
    await env.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('ends every timer, though lmdb-js commits many batches in one transaction, and none from a batch long past', async () => {
    const timer = recorder();
    timeCommits(env, timer);
    let transactions = 0;
    env.on('aftercommit', () => transactions++);
    // A batch per event turn, issued while earlier ones commit: lmdb-js gathers them into fewer transactions.
    const puts: Promise<boolean>[] = [];
    for (let turn = 0; turn < 300; turn++) {
      for (let k = 0; k < 3; k++) puts.push(env.put(['k', turn, k], { turn }));
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(puts);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(transactions).toBeLessThan(300);
    expect(timer.seconds).toHaveLength(300);
    expect(timer.running()).toBe(0);

    await new Promise((resolve) => setTimeout(resolve, 600));
    await env.put(['late'], 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(timer.seconds).toHaveLength(301);
    expect(timer.running()).toBe(0);
    // The pause is not in it: the late batch is timed from its own start.
    expect(timer.seconds.at(-1)!).toBeLessThan(0.5);
  });
});
