import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { RequestThread } from '../../src/spawn-worker.js';

/** A thread that echoes `{ id, x }` as `{ id, doubled }`, sends a notice first, and exits on `{ exit }`. */
const ECHO = `
const { parentPort } = require('node:worker_threads');
parentPort.postMessage({ notice: 'ready' });
parentPort.on('message', (m) => {
  if (m.exit) process.exit(3);
  if (!m.silent) parentPort.postMessage({ id: m.id, doubled: m.x * 2 });
});`;

type Request = { id: number; x?: number; exit?: boolean; silent?: boolean };
type Reply = { id: number; doubled: number };

/** The worker threads behind the vector index, the embedding model and the query helper: their shared lifecycle. */
describe('RequestThread', () => {
  let thread: RequestThread<Request, Reply> | null = null;
  afterEach(() => thread?.close('done'));

  const make = (hooks: ConstructorParameters<typeof RequestThread>[2] = {}) => {
    let started = 0;
    thread = new RequestThread<Request, Reply>(() => (started++, new Worker(ECHO, { eval: true })), 'the echo thread', hooks);
    return { thread, started: () => started };
  };

  it('starts on the first request, answers each by its id, and hands other messages to the hook', async () => {
    const notices: unknown[] = [];
    const { thread, started } = make({ other: (m) => 'notice' in (m as object) && notices.push(m) > 0 });
    expect(started()).toBe(0);
    const [a, b] = await Promise.all([thread.ask({ id: thread.nextRequestId(), x: 2 }), thread.ask({ id: thread.nextRequestId(), x: 5 })]);
    expect([a.doubled, b.doubled]).toEqual([4, 10]);
    expect(notices).toEqual([{ notice: 'ready' }]);
    expect(started()).toBe(1);
  });

  it('rejects what waits with 503 unavailable when the thread exits, tells `lost`, and starts a new one on the next request', async () => {
    const lost: string[] = [];
    const { thread, started } = make({ lost: (reason) => lost.push(reason) });
    const waiting = expect(thread.ask({ id: thread.nextRequestId(), silent: true })).rejects.toMatchObject({ code: 'unavailable', message: 'the echo thread exited (code 3)' });
    thread.post({ id: 0, exit: true });
    await waiting;
    expect(lost).toEqual(['the echo thread exited (code 3)']);
    expect((await thread.ask({ id: thread.nextRequestId(), x: 1 })).doubled).toBe(2);
    expect(started()).toBe(2);
  });

  it('rejects what waits with the reason it was closed for, and does not call it lost', async () => {
    const lost: string[] = [];
    const { thread } = make({ lost: (reason) => lost.push(reason) });
    const waiting = expect(thread.ask({ id: thread.nextRequestId(), silent: true })).rejects.toMatchObject({ code: 'unavailable', message: 'shut down' });
    await thread.close('shut down');
    await waiting;
    expect(lost).toEqual([]);
  });
});
