/**
 * A serial queue. Each command's `prepare` step (embedding, reading a provider, any await) starts only
 * after the previous command's `prepare` has finished, and its `apply` step is called in the same order.
 * `apply` usually queues an LMDB write transaction; the mailbox does not wait for that commit, because
 * LMDB's own write queue keeps the order and batches commits across owners. Errors reach the caller and
 * never stop the queue.
 */
export class Mailbox {
  private tail: Promise<unknown> = Promise.resolve();
  private pending = 0;
  private idleWaiters: Array<() => void> = [];

  get busy(): boolean {
    return this.pending > 0;
  }

  submit<P, T>(prepare: () => Promise<P> | P, apply: (prepared: P) => Promise<T>): Promise<T> {
    this.pending++;
    let applied: Promise<T> | undefined;
    const run = (prepared: P): void => {
      applied = apply(prepared);
    };
    // A `prepare` with nothing to wait for (the common command) returns its value: applied in the same turn.
    const queued = this.tail.then(() => {
      const prepared = prepare();
      return isThenable(prepared) ? prepared.then(run) : run(prepared);
    });
    // The next command waits until this one's apply has been called, not until it commits.
    this.tail = settled(queued);
    const done = queued.then(() => applied as Promise<T>);
    done.then(this.release, this.release);
    return done;
  }

  /**
   * Counts `work` that belongs to this owner but runs outside the queue (embedding before a write, the
   * index update after its commit) as in flight, so `busy` and `idle` cover it; nothing waits on it.
   */
  hold<T>(work: Promise<T>): Promise<T> {
    this.pending++;
    work.then(this.release, this.release);
    return work;
  }

  /** Resolves once nothing is in flight (at once when nothing is). */
  idle(): Promise<void> {
    return this.pending === 0 ? Promise.resolve() : new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private readonly release = (): void => {
    if (--this.pending > 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const wake of waiters) wake();
  };
}

function isThenable<P>(value: Promise<P> | P): value is Promise<P> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function';
}

/** Resolves once `promise` has settled, whichever way: for waiting on work whose outcome is someone else's. */
export function settled(promise: Promise<unknown>): Promise<void> {
  return promise.then(noop, noop);
}

function noop(): void {}
