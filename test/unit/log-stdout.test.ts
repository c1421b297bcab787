import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const LOG_MODULE = fileURLToPath(new URL('../../src/log.ts', import.meta.url));

/**
 * Runs `body` in a process of its own with `log`, the service's logger on stdout at info, and returns the
 * messages it wrote there, in order (a killed process's stdout too).
 */
async function loggedBy(body: string): Promise<string[]> {
  const script = `const { createLogger } = await import(${JSON.stringify(LOG_MODULE)}); const log = createLogger('info'); ${body}`;
  const stdout = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script]).then(
    (done) => done.stdout,
    (failed: { stdout?: string }) => failed.stdout ?? '',
  );
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { msg: string }).msg);
}

describe('the log on stdout, written once per event-loop turn', () => {
  it('writes the lines of a turn once the turn ends, in order', async () => {
    expect(await loggedBy("log.info('one'); log.info('two'); setTimeout(() => process.kill(process.pid, 'SIGKILL'), 200);")).toEqual(['one', 'two']);
  });

  it('writes what the turn holds when the process exits in it', async () => {
    expect(await loggedBy("log.info('one'); log.info('two'); log.info('three'); process.exit(0);")).toEqual(['one', 'two', 'three']);
  });

  it('writes a warning at once, with the lines before it; a process killed in that turn loses only the info lines after it', async () => {
    expect(await loggedBy("log.info('before'); log.warn('warned'); log.info('after'); process.kill(process.pid, 'SIGKILL');")).toEqual(['before', 'warned']);
  });

  it('writes a turn that holds more than 64 KiB of lines as it goes, each line whole and in order', async () => {
    const messages = await loggedBy("for (let i = 0; i < 2000; i++) log.info('line ' + i + ' ' + 'x'.repeat(100)); process.kill(process.pid, 'SIGKILL');");
    // Killed in the turn: the lines written as the turn went past 64 KiB are there, in order, each whole.
    expect(messages.length).toBeGreaterThan(300);
    expect(messages.length).toBeLessThan(2000);
    messages.forEach((message, i) => expect(message.startsWith(`line ${i} `)).toBe(true));
  });
});
