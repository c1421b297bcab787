import { existsSync } from 'node:fs';
import { AppError } from './errors.js';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * Starts a worker thread from `<name>.js` beside `base` (built, under dist/), or `<name>.ts` (sources under
 * tsx or vitest), which needs tsx's loader registered inside the new thread first; tsx is a dev
 * dependency, used only then.
 */
export function spawnWorker(base: string, name: string, workerData: unknown): Worker {
  for (const ext of ['js', 'ts'] as const) {
    const url = new URL(`./${name}.${ext}`, base);
    if (!existsSync(fileURLToPath(url))) continue;
    if (ext === 'js') return new Worker(url, { workerData });
    const tsx = import.meta.resolve('tsx/esm/api');
    const boot = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(url.href)}); })`;
    return new Worker(boot, { eval: true, workerData });
  }
  throw new Error(`${name}.ts (or its compiled ${name}.js) not found beside ${base}`);
}

interface Waiter<Reply> {
  resolve(reply: Reply): void;
  reject(error: Error): void;
}

/**
 * A worker thread that answers requests by their `id` (the vector worker, the embedding model, the query
 * helper): started by `start` on the first message, it keeps the process alive only while a request waits
 * for it. A thread that fails or exits rejects what waits with 503 `unavailable`, and the next message
 * starts a new one. What the thread answers is the caller's to read: a reply naming an error resolves
 * like any other.
 */
export class RequestThread<Request extends { id: number }, Reply extends { id: number }> {
  private worker: Worker | null = null;
  private readonly waiting = new Map<number, Waiter<Reply>>();
  private nextId = 1;

  /**
   * @param label the thread as its errors name it ("the vector worker")
   * @param hooks `other`: a message that is no reply (an event, a notice); `lost`: the thread died
   */
  constructor(
    private readonly start: () => Worker,
    private readonly label: string,
    private readonly hooks: { other?: (message: unknown) => boolean; lost?: (reason: string) => void } = {},
  ) {}

  nextRequestId(): number {
    return this.nextId++;
  }

  /** Sends a message no reply answers. */
  post(message: unknown): void {
    this.thread().postMessage(message);
  }

  ask(request: Request): Promise<Reply> {
    const worker = this.thread();
    return new Promise<Reply>((resolve, reject) => {
      this.waiting.set(request.id, { resolve, reject });
      worker.ref();
      worker.postMessage(request);
    });
  }

  /** Terminates the thread; what waits is rejected with `reason`. */
  async close(reason: string): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    this.fail(reason);
    if (worker) await worker.terminate();
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = this.start();
    worker.unref();
    worker.on('message', (message: Reply) => this.receive(message));
    worker.on('error', (error) => this.died(worker, `${this.label} failed: ${error.message}`));
    worker.on('exit', (code) => this.died(worker, `${this.label} exited (code ${code})`));
    return (this.worker = worker);
  }

  private receive(message: Reply): void {
    if (this.hooks.other?.(message)) return;
    const waiter = this.waiting.get(message.id);
    if (!waiter) return;
    this.waiting.delete(message.id);
    if (this.waiting.size === 0) this.worker?.unref();
    waiter.resolve(message);
  }

  private died(worker: Worker, reason: string): void {
    if (this.worker !== worker) return;
    this.worker = null;
    this.fail(reason);
    this.hooks.lost?.(reason);
  }

  private fail(reason: string): void {
    const waiters = [...this.waiting.values()];
    this.waiting.clear();
    for (const waiter of waiters) waiter.reject(new AppError('unavailable', reason));
  }
}
