import { describe, expect, it, vi } from 'vitest';
import { servicesWithKeysFile } from '../helpers/keyed-service.js';
import type { ServiceProcess } from '../helpers/process.js';

const KEY = 'sk_log_stdout_0123456789abcdef';
const startWithKeys = servicesWithKeysFile('engram-log-');
const start = async (): Promise<ServiceProcess> => (await startWithKeys({ keys: [{ key: KEY, tenant: 'acme' }] })).service;

const assert = (url: string, requestId: string) =>
  fetch(`${url}/v1/memory/facts?entity_id=ada`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'x-request-id': requestId },
    body: JSON.stringify({ predicate: 'city', value: requestId }),
  });

/** The request ids of the request log lines the process has written to stdout so far. */
const loggedRequestIds = (service: ServiceProcess): string[] =>
  service.lines
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg?: string; requestId?: string })
    .filter((entry) => entry.msg === 'request')
    .map((entry) => entry.requestId!);

// The log is written to stdout in blocks of kilobytes (src/log.ts, LOG_BUFFER_BYTES): these are the two
// ways a buffer could keep a line from an operator.
describe('the log on standard output', () => {
  it("reaches stdout while the service is quiet: one request's line, far less than a buffer", async () => {
    const service = await start();
    expect((await assert(service.url, 'quiet-1')).status).toBe(201);
    // A bound against a hang, not a timing assertion: the line is due within the flush interval.
    await vi.waitFor(() => expect(loggedRequestIds(service)).toContain('quiet-1'), { timeout: 15_000, interval: 50 });
  });

  it('holds every answered request line once the process has stopped on SIGTERM', async () => {
    const running = await start();
    // ~300 bytes a line, ~90 KB in all: several buffers' worth, and the lines still in the buffer when the
    // service stops must be written too.
    const ids = Array.from({ length: 300 }, (_, i) => `burst-${i}`);
    const answers = await Promise.all(ids.map((id) => assert(running.url, id)));
    expect(answers.map((res) => res.status)).toEqual(ids.map(() => 201));
    // The pipe's last bytes can be read after the exit is reported: both are awaited.
    const ended = new Promise((resolve) => running.child.stdout!.once('end', resolve));
    running.child.kill('SIGTERM');
    expect((await running.exited)[0]).toBe(0);
    await ended;
    expect(loggedRequestIds(running)).toEqual(expect.arrayContaining(ids));
  });
});
