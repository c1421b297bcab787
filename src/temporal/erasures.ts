import type { Config } from '../config.js';
import type { EraseOwnerInput, ErasureRef } from '../jobs/contract.js';
import type { Logger } from '../log.js';
import type { JobRunner } from './client.js';

/** Attempts of an erasure's step: as good as unbounded (the SDK takes no 0 here), and within the wire's int32. */
const ERASE_ATTEMPTS = 1_000_000;

/** An erasure to start: its receipt, tenant and partition (which places the run, and names its scope in the UI). */
export type ErasureStart = ErasureRef & { partition: string | null };

/** `erase-owner/<receipt_id>`: the receipt names the run; the owner appears nowhere in it. */
export function eraseWorkflowId(receiptId: string): string {
  return `erase-owner/${encodeURIComponent(receiptId)}`;
}

/**
 * Starts owners' erasure workflows. A start that cannot happen now (Temporal not ready, or the call
 * failed) waits for Temporal's next ready check (`resume`), so an erasure requested while Temporal is down
 * starts once it is back. Each is started once per process; a later start of the same receipt (a new
 * process resuming the erasures under way) joins the run by its workflow id.
 */
export class ErasureJobs {
  private readonly started = new Set<string>();
  private readonly waiting = new Map<string, ErasureStart>();
  private stopped = false;

  constructor(
    private readonly runner: JobRunner,
    private readonly temporal: Config['temporal'],
    private readonly log: Logger,
    private readonly isReady: () => boolean,
  ) {}

  request(erasure: ErasureStart): void {
    if (this.stopped || this.started.has(erasure.receipt_id)) return;
    if (!this.isReady()) {
      this.waiting.set(erasure.receipt_id, erasure);
      return;
    }
    this.waiting.delete(erasure.receipt_id);
    this.started.add(erasure.receipt_id);
    this.start(erasure).catch((err: unknown) => {
      this.started.delete(erasure.receipt_id);
      if (this.stopped) return;
      this.log.warn({ err, receipt_id: erasure.receipt_id }, 'erasure could not be started; it starts once Temporal is ready again');
      this.waiting.set(erasure.receipt_id, erasure);
    });
  }

  /** Temporal is ready: start every erasure that waited for it. */
  resume(): void {
    const waiting = [...this.waiting.values()];
    this.waiting.clear();
    for (const erasure of waiting) this.request(erasure);
  }

  stop(): void {
    this.stopped = true;
  }

  private async start({ tenant, partition, receipt_id }: ErasureStart): Promise<void> {
    const t = this.temporal;
    const input: EraseOwnerInput = {
      tenant,
      receipt_id,
      partition,
      slice_ms: Math.max(1000, Math.floor(t.activities.start_to_close_timeout_ms / 2)),
      // An erasure must finish: its steps are retried until they succeed (each resumes what is left).
      activity: { ...t.activities, retry: { ...t.activities.retry, maximum_attempts: ERASE_ATTEMPTS } },
    };
    // The run's scope is the tenant's: no EngramOwner attribute, no owner in the memo or the id.
    await this.runner.start({ job: 'erase-owner', scope: { tenant, partition }, workflowType: 'eraseOwner', workflowId: eraseWorkflowId(receipt_id), args: [input], unbounded: true });
  }
}
